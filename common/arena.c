/* arena.c — region allocator (see arena.h). Chunks come from mmap (calloc
 * in sanitizer builds), so arena_alloc hands out zeroed memory without
 * clearing it again, and a chunk is memory only as far as it is touched.
 *
 * A freed arena's chunks wait in a pool (one, up to ARENA_POOL_BYTES)
 * for the next arena, which clears the part earlier arenas used (c->dirty)
 * ahead of its bump pointer, ARENA_CLEAR_BLOCK bytes at a time: giving big
 * chunks back to the system and faulting them in again, zeroed page by page,
 * cost more than the scheduling itself. Sanitizer builds skip the pool so
 * that a use after arena_free is still caught. An arena that needs a chunk
 * takes a pooled one, even a smaller one than it would ask for, before new
 * memory; blocks (arena_block_take) go through the same pool.
 *
 * Transparent huge pages (mmap + madvise(MADV_HUGEPAGE) for big chunks) were
 * tried and left out: a third fewer page faults on a cold read, no
 * measurable time, and every arena's last huge page resident in full (peak
 * RSS up to 3x the JSON size higher on the mid-size captures). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "arena.h"
#include <sys/mman.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ArenaChunk {
  ArenaChunk *next;
  size_t size, used;
  size_t dirty;          /* data[used..dirty) may hold an earlier arena's bytes */
  bool mapped;           /* from mmap, not calloc */
  _Alignas(8) unsigned char data[];
};

enum { ARENA_MIN_CHUNK = 64 * 1024, ARENA_CLEAR_BLOCK = 16 * 1024, ARENA_CLEAR_FIRST = 1024 };
#define ARENA_POOL_BYTES ((size_t)256 << 20)

#if defined(__SANITIZE_ADDRESS__)
#define ARENA_POOL 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ARENA_POOL 0
#endif
#endif
#ifndef ARENA_POOL
#define ARENA_POOL 1
#endif

static ArenaChunk *pool;
static size_t pool_bytes;

/* Touched bytes of a pooled chunk (what it holds resident). */
static size_t chunk_touched(const ArenaChunk *c) { return c->used > c->dirty ? c->used : c->dirty; }

/* The pooled chunk at *at, taken out of the pool. */
static ArenaChunk *chunk_from_pool_at(ArenaChunk **at) {
  ArenaChunk *c = *at;
  *at = c->next;
  pool_bytes -= c->size;
  if (c->used > c->dirty) c->dirty = c->used;
  c->used = 0;
  return c;
}

/* The smallest pooled chunk of at least size bytes; NULL if none. */
static ArenaChunk *chunk_from_pool(size_t size) {
  ArenaChunk **best = NULL;
  for (ArenaChunk **p = &pool; *p; p = &(*p)->next)
    if ((*p)->size >= size && (!best || (*p)->size < (*best)->size)) best = p;
  return best ? chunk_from_pool_at(best) : NULL;
}

/* The largest pooled chunk of at least need bytes; NULL if none. */
static ArenaChunk *largest_from_pool(size_t need) {
  ArenaChunk **best = NULL;
  for (ArenaChunk **p = &pool; *p; p = &(*p)->next)
    if ((*p)->size >= need && (!best || (*p)->size > (*best)->size)) best = p;
  return best ? chunk_from_pool_at(best) : NULL;
}

/* The pooled chunk an arena asking for `size` bytes takes, NULL if none has need bytes */
static ArenaChunk *pooled_chunk(size_t size, size_t need) {
  ArenaChunk *c = chunk_from_pool(size);
  return c ? c : largest_from_pool(need);
}

/* The pooled chunk with the most touched bytes (resident already); NULL if
 * the pool is empty. */
static ArenaChunk *most_touched_from_pool(void) {
  ArenaChunk **best = NULL;
  for (ArenaChunk **p = &pool; *p; p = &(*p)->next)
    if (!best || chunk_touched(*p) > chunk_touched(*best)) best = p;
  return best ? chunk_from_pool_at(best) : NULL;
}

/* The pooled chunk with the most touched bytes, if it has at least a
 * clearing block of them and room for need bytes; NULL otherwise. */
static ArenaChunk *touched_from_pool(size_t need) {
  ArenaChunk **best = NULL;
  for (ArenaChunk **p = &pool; *p; p = &(*p)->next)
    if ((*p)->size >= need && chunk_touched(*p) >= ARENA_CLEAR_BLOCK && (!best || chunk_touched(*p) > chunk_touched(*best))) best = p;
  return best ? chunk_from_pool_at(best) : NULL;
}

/* A zeroed chunk of `size` data bytes from the system: mapped, so that it
 * is memory only where it is touched (calloc clears chunks it takes from
 * malloc's heap, which it does for sizes up to the threshold glibc raises as
 * big blocks are freed), or from calloc in sanitizer builds (where ASan
 * watches it). */
static ArenaChunk *chunk_new(size_t size) {
  if (size > SIZE_MAX - sizeof(ArenaChunk)) return NULL;
  ArenaChunk *c;
  if (ARENA_POOL) {
    void *p = mmap(NULL, sizeof(ArenaChunk) + size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    c = p == MAP_FAILED ? NULL : p;
  } else {
    c = calloc(1, sizeof(ArenaChunk) + size);
  }
  if (!c) return NULL;
  c->size = size;
  c->used = c->dirty = 0;
  c->mapped = ARENA_POOL;
  return c;
}

/* back to the system */
static void chunk_dispose(ArenaChunk *c) {
  if (c->mapped) munmap(c, sizeof *c + c->size);
  else free(c);
}

static void chunk_release(ArenaChunk *c) {
  if (ARENA_POOL && pool_bytes + c->size <= ARENA_POOL_BYTES) {
    c->next = pool;
    pool = c;
    pool_bytes += c->size;
    return;
  }
  chunk_dispose(c);
}

void arena_release_pool(void) {
  while (pool) {
    ArenaChunk *c = pool;
    pool = c->next;
    chunk_dispose(c);
  }
  pool_bytes = 0;
}

void *arena_block_take(size_t bytes) {
  ArenaChunk *c = chunk_from_pool(bytes);
  if (!c) c = chunk_new(bytes);
  if (!c) return NULL;
  c->used = 0;
  return c->data;
}

void arena_block_give(void *block, size_t touched, bool to_system) {
  ArenaChunk *c = (ArenaChunk *)((unsigned char *)block - offsetof(ArenaChunk, data));
  if (touched > c->size) touched = c->size;
  if (c->dirty < touched) c->dirty = touched;
  if (to_system) chunk_dispose(c);
  else chunk_release(c);
}

void arena_init(Arena *a) { memset(a, 0, sizeof *a); }

/* head's bump pointer back into the chunk */
static void sync_head(Arena *a) {
  if (a->head) a->head->used = (size_t)(a->cur - a->head->data);
}

void arena_free(Arena *a) {
  sync_head(a);
  ArenaChunk *c = a->head;
  while (c) {
    ArenaChunk *next = c->next;
    chunk_release(c);
    c = next;
  }
  memset(a, 0, sizeof *a);
}

static void out_of_memory(size_t bytes) {
  fprintf(stderr, "tsched: out of memory allocating %zu bytes\n", bytes);
  abort();
}

/* Zero the head chunk past a->clean far enough for `need` bytes at a->cur:
 * at least a block (as much as is clear already in the chunk, from
 * ARENA_CLEAR_FIRST up to ARENA_CLEAR_BLOCK: a small capture's arenas clear
 * little more than they use), and nothing beyond what earlier arenas used
 * (an arena with max_chunk goes on into new memory a block at a time, so
 * that arena_alloc_slow can take a pooled chunk before it touches each block). */
static void clear_ahead(Arena *a, size_t need) {
  unsigned char *want = a->cur + need, *dirty_end = a->head->data + a->head->dirty;
  size_t block = (size_t)(a->clean - a->head->data);
  block = block < ARENA_CLEAR_FIRST ? ARENA_CLEAR_FIRST : block > ARENA_CLEAR_BLOCK ? ARENA_CLEAR_BLOCK : block;
  if (want < a->clean + block) want = a->clean + block;
  if (want > a->end) want = a->end;
  if (a->clean < dirty_end) {
    if (want > dirty_end) want = dirty_end; /* the next call finds new memory ahead */
    memset(a->clean, 0, (size_t)(want - a->clean));
    a->clean = want;
  } else if (a->max_chunk) {
    a->clean = want; /* new memory a block at a time: a pooled chunk is taken first when there is one */
  } else {
    a->clean = a->end;
  }
}

/* Chunks grow with the arena so that big captures need few mallocs (up to
 * a->max_chunk when it is set). */
static size_t next_chunk_size(const Arena *a, size_t need) {
  size_t size = a->chunk_bytes / 2;
  if (a->max_chunk && size > a->max_chunk) size = a->max_chunk;
  if (size < ARENA_MIN_CHUNK) size = ARENA_MIN_CHUNK;
  return size < need ? need : size;
}

/* c becomes the head chunk, its memory the free part */
static void push_chunk(Arena *a, ArenaChunk *c) {
  c->next = a->head;
  a->head = c;
  a->chunk_bytes += c->size;
  a->cur = a->clean = c->data;
  a->end = c->data + c->size;
}

void *arena_alloc_slow(Arena *a, size_t bytes) {
  size_t need = (bytes + 7) & ~(size_t)7;
  if (need < bytes) out_of_memory(bytes);
  size_t size = next_chunk_size(a, need);
  if (size > SIZE_MAX - sizeof(ArenaChunk)) out_of_memory(bytes);
  /* a pooled chunk rather than new memory, even a smaller one: what earlier
   * arenas and blocks freed is reused before the process grows (for an
   * arena with max_chunk, before the untouched part of its head too, if the
   * pooled chunk has touched memory) */
  ArenaChunk *c = NULL;
  if (a->head && need <= (size_t)(a->end - a->cur)) {
    bool untouched = a->cur + need > a->head->data + a->head->dirty;
    if (!(a->max_chunk && untouched && (c = touched_from_pool(need)))) {
      clear_ahead(a, need);
      return arena_alloc(a, bytes);
    }
  }
  sync_head(a);
  if (!c) c = pooled_chunk(size, need);
  if (!c) c = chunk_new(size);
  if (!c) out_of_memory(bytes);
  push_chunk(a, c);
  clear_ahead(a, need);
  return arena_alloc(a, bytes);
}

ArenaMark arena_mark(const Arena *a) { return (ArenaMark){a->head, a->cur, a->clean}; }

void arena_rewind(Arena *a, ArenaMark m) {
  if (!a->head) return;
  sync_head(a);
  ArenaChunk *keep = m.head;
  if (!keep) { /* empty at m: back to the start of its first chunk */
    for (keep = a->head; keep->next; keep = keep->next) {}
    m.cur = m.clean = keep->data;
  }
  bool same_head = a->head == keep; /* then a->clean is keep's, and past used */
  while (a->head != keep) {
    ArenaChunk *c = a->head;
    a->head = c->next;
    a->chunk_bytes -= c->size;
    chunk_release(c);
  }
  /* [m.cur, used) written since m; past used, zero up to m.clean at least */
  unsigned char *used = keep->data + keep->used;
  if (used > m.cur) memset(m.cur, 0, (size_t)(used - m.cur));
  a->cur = m.cur;
  a->end = keep->data + keep->size;
  if (!same_head) a->clean = used > m.clean ? used : m.clean;
}

void arena_prefer_pool(Arena *a) {
  if (!pool) return;
  sync_head(a);
  if (a->head && a->head->used < a->head->dirty) return; /* touched memory left in the head: it goes first */
  push_chunk(a, most_touched_from_pool());
}

bool arena_holds(const Arena *a, const void *p) {
  for (const ArenaChunk *c = a->head; c; c = c->next)
    if ((const unsigned char *)p >= c->data && (const unsigned char *)p < c->data + c->size) return true;
  return false;
}

void *arena_array(Arena *a, size_t count, size_t size) {
  if (size && count > SIZE_MAX / size) out_of_memory(SIZE_MAX);
  return arena_alloc(a, count * size);
}

void *arena_reserve_slow(Arena *a, void *items, size_t used, size_t need, size_t *cap, size_t elem) {
  size_t bigger = *cap ? *cap * 2 : 8;
  while (bigger < need) bigger *= 2;
  void *p = arena_array(a, bigger, elem);
  if (used) memcpy(p, items, used * elem);
  *cap = bigger;
  return p;
}

Arena *arena_scratch_begin(ScratchArenas *s) {
  ScratchArena *x = s->spare;
  if (x) s->spare = x->next;
  else x = arena_alloc(s->main, sizeof *x);
  arena_init(&x->arena);
  x->arena.max_chunk = s->max_chunk;
  x->next = s->open;
  s->open = x;
  return &x->arena;
}

void arena_scratch_end(ScratchArenas *s, Arena *scratch) {
  for (ScratchArena **p = &s->open; *p; p = &(*p)->next) {
    ScratchArena *x = *p;
    if (&x->arena != scratch) continue;
    *p = x->next;
    arena_free(&x->arena);
    arena_prefer_pool(s->main); /* its memory goes on in main, before new memory */
    x->next = s->spare;
    s->spare = x;
    return;
  }
}

void arena_scratch_end_all(ScratchArenas *s) {
  while (s->open) arena_scratch_end(s, &s->open->arena);
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
