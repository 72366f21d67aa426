/* arena.h — region allocator: everything built for one capture lives in one
 * Arena and is released together by arena_free(). No per-object free(). */
#ifndef TSCHED_ARENA_H
#define TSCHED_ARENA_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct ArenaChunk ArenaChunk;
typedef struct Arena {
  ArenaChunk *head;     /* newest chunk first */
  unsigned char *cur, *end;  /* the free part of head's memory */
  unsigned char *clean;      /* head's memory in [cur, clean) is zeroed; past it, it may hold an earlier arena's bytes */
  size_t chunk_bytes;   /* total bytes of its chunks, for `tsched bench` */
  size_t max_chunk;     /* 0, or the size chunks stop growing at (past it, the arena
                         * asks for chunks often enough to take up the ones other
                         * arenas gave back before touching new memory) */
} Arena;

void arena_init(Arena *a);
void arena_free(Arena *a);
/* Give the chunks pooled by freed arenas back to the system. */
void arena_release_pool(void);
/* Raw blocks for another allocator (the JSON parser's buffers): a block of
 * at least `bytes`, from the chunks pooled by freed arenas when one is big
 * enough, else from the system; its contents are undefined. NULL when out
 * of memory. Given back, it joins the pool (to_system: it is freed), where
 * the next arenas reuse it; `touched` bounds the bytes its owner may have
 * written from its start (SIZE_MAX when unknown), so that the rest is known
 * to be as the pool gave it. */
void *arena_block_take(size_t bytes);
void arena_block_give(void *block, size_t touched, bool to_system);
/* Where an arena is, to forget what is allocated after it (arena_rewind):
 * scratch memory reused item after item without a chunk per item. */
typedef struct ArenaMark { ArenaChunk *head; unsigned char *cur, *clean; } ArenaMark;
ArenaMark arena_mark(const Arena *a);
/* Back to m (taken on a, nothing rewound before it since): the chunks added
 * after m are given back, the memory used since m is zeroed again. On an
 * arena that was empty at m, its first chunk stays, empty. */
void arena_rewind(Arena *a, ArenaMark m);
/* Go on in a pooled chunk, if there is one and what is left of the head
 * chunk is memory no one has touched yet (that part stays unused): so that
 * what other arenas gave back is reused before the process grows, for an
 * arena that goes on growing after they ended. It takes the pooled chunk
 * with the most touched (resident) bytes, whatever its size. */
void arena_prefer_pool(Arena *a);
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
/* Gives back p, `bytes` from the last arena_alloc, when nothing was
 * allocated after it (else it stays); the memory is zero again. */
static inline void arena_unalloc(Arena *a, void *p, size_t bytes) {
  size_t need = (bytes + 7) & ~(size_t)7;
  if ((unsigned char *)p + need != a->cur) return;
  for (size_t i = 0; i < need / 8; i++) ((uint64_t *)p)[i] = 0; /* a few words: no call to memset */
  a->cur = (unsigned char *)p;
}
/* Whether p points into one of a's chunks (memory a handed out, or may). */
bool arena_holds(const Arena *a, const void *p);
/* arena_alloc(count * size) with an overflow check. */
void *arena_array(Arena *a, size_t count, size_t size);
/* A growable array in the arena (Python's list.append): room for `need` elements
 * in items (capacity *cap, `used` of them kept), moved to a larger array (twice
 * the capacity, at least 8 and need) when full; the old one is left to the arena. */
void *arena_reserve_slow(Arena *a, void *items, size_t used, size_t need, size_t *cap, size_t elem);
static inline void *arena_reserve(Arena *a, void *items, size_t used, size_t need, size_t *cap, size_t elem) {
  return need <= *cap ? items : arena_reserve_slow(a, items, used, need, cap, elem);
}
/* room for one more than n */
static inline void *arena_grow(Arena *a, void *items, size_t n, size_t *cap, size_t elem) {
  return arena_reserve(a, items, n, n + 1, cap, elem);
}
/* Scratch arenas: an arena for a pass's temporaries, freed when the pass
 * ends so that what comes next reuses its memory (Python drops a function's
 * locals when it returns); nothing that outlives the pass may point into it.
 * Scratch arenas nest; their headers live in `main` (still there when a raise
 * skips arena_scratch_end) and are reused. When one ends, `main` goes on in
 * the chunks it gave back (arena_prefer_pool) before touching new memory.
 * Whoever set up the protected call ends what a raise left open
 * (arena_scratch_end_all). */
typedef struct ScratchArena { Arena arena; struct ScratchArena *next; } ScratchArena;
typedef struct ScratchArenas {
  Arena *main;
  size_t max_chunk;           /* the scratch arenas' Arena.max_chunk */
  ScratchArena *open, *spare; /* open: innermost first */
} ScratchArenas;
Arena *arena_scratch_begin(ScratchArenas *s);
void arena_scratch_end(ScratchArenas *s, Arena *scratch);
void arena_scratch_end_all(ScratchArenas *s);
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_strdup(Arena *a, const char *s);
/* printf into the arena. */
char *arena_printf(Arena *a, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;
#endif
