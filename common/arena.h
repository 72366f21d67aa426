/* arena.h — region allocator: everything built for one capture lives in one
 * Arena and is released together by arena_free(). No per-object free(). */
#ifndef TSCHED_ARENA_H
#define TSCHED_ARENA_H
#include <stddef.h>

typedef struct ArenaChunk ArenaChunk;
typedef struct Arena {
  ArenaChunk *head;     /* newest chunk first */
  size_t used_bytes;    /* total bytes handed out, for `tsched bench` */
  size_t chunk_bytes;   /* total bytes reserved from malloc */
} Arena;

void arena_init(Arena *a);
void arena_free(Arena *a);
/* Zero-filled, 8-byte aligned (nothing here needs more). Aborts with a message on out-of-memory. */
void *arena_alloc(Arena *a, size_t bytes);
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
