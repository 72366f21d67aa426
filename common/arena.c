/* arena.c — region allocator (see arena.h). */
#include "arena.h"
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ArenaChunk {
  ArenaChunk *next;
  size_t size, used;
  _Alignas(8) unsigned char data[];
};

enum { ARENA_MIN_CHUNK = 64 * 1024 };

void arena_init(Arena *a) { memset(a, 0, sizeof *a); }

void arena_free(Arena *a) {
  ArenaChunk *c = a->head;
  while (c) {
    ArenaChunk *next = c->next;
    free(c);
    c = next;
  }
  memset(a, 0, sizeof *a);
}

static void out_of_memory(size_t bytes) {
  fprintf(stderr, "tsched: out of memory allocating %zu bytes\n", bytes);
  abort();
}

void *arena_alloc(Arena *a, size_t bytes) {
  size_t need = (bytes + 7) & ~(size_t)7;
  if (need < bytes) out_of_memory(bytes);
  ArenaChunk *c = a->head;
  if (!c || c->size - c->used < need) {
    /* Chunks grow with the arena so that big captures need few mallocs. */
    size_t size = a->chunk_bytes / 2;
    if (size < ARENA_MIN_CHUNK) size = ARENA_MIN_CHUNK;
    if (size < need) size = need;
    if (size > SIZE_MAX - sizeof(ArenaChunk)) out_of_memory(bytes);
    c = malloc(sizeof(ArenaChunk) + size);
    if (!c) out_of_memory(bytes);
    c->next = a->head;
    c->size = size;
    c->used = 0;
    a->head = c;
    a->chunk_bytes += size;
  }
  void *p = c->data + c->used;
  c->used += need;
  a->used_bytes += need;
  memset(p, 0, bytes);
  return p;
}

void *arena_array(Arena *a, size_t count, size_t size) {
  if (size && count > SIZE_MAX / size) out_of_memory(SIZE_MAX);
  return arena_alloc(a, count * size);
}

char *arena_strndup(Arena *a, const char *s, size_t n) {
  char *p = arena_alloc(a, n + 1);
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

char *arena_strdup(Arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

char *arena_printf(Arena *a, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) return arena_strdup(a, "");
  char *p = arena_alloc(a, (size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(p, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return p;
}
