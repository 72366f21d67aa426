/* arena.h — region allocator: everything built for one capture lives in one
 * Arena and is released together by arena_free(). No per-object free(). */
#ifndef TSCHED_ARENA_H
#define TSCHED_ARENA_H
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

typedef struct ArenaChunk ArenaChunk;
typedef struct Arena {
  ArenaChunk *head;     /* newest chunk first */
  unsigned char *cur, *end;  /* the free part of head's memory */
  unsigned char *clean;      /* head's memory in [cur, clean) is zeroed; past it, it may hold an earlier arena's bytes */
  size_t chunk_bytes;   /* total bytes reserved from malloc, for `tsched bench` */
} Arena;

void arena_init(Arena *a);
void arena_free(Arena *a);
/* Give the chunks pooled by freed arenas (this thread's) back to the system. */
void arena_release_pool(void);
/* Raw blocks for another allocator (the JSON parser's buffers): a block of
 * at least `bytes`, from the chunks pooled by freed arenas when one is big
 * enough, else from the system; its contents are undefined. NULL when out
 * of memory. Given back, it joins the pool (to_system: it is freed), where
 * the next arenas reuse it. */
void *arena_block_take(size_t bytes);
void arena_block_give(void *block, bool to_system);
/* arena_alloc past the zeroed part of the head chunk (arena.c) */
void *arena_alloc_slow(Arena *a, size_t bytes);
/* Zero-filled, 8-byte aligned (nothing here needs more). Aborts with a message on out-of-memory.
 * The common case, a bump of the pointer, is inline. */
static inline void *arena_alloc(Arena *a, size_t bytes) {
  size_t need = (bytes + 7) & ~(size_t)7;
  if (need < bytes || need > (size_t)(a->clean - a->cur)) return arena_alloc_slow(a, bytes);
  unsigned char *p = a->cur;
  a->cur += need;
  return p;
}
/* arena_alloc(count * size) with an overflow check. */
void *arena_array(Arena *a, size_t count, size_t size);
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_strdup(Arena *a, const char *s);
/* printf into the arena. */
char *arena_printf(Arena *a, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;
#endif
