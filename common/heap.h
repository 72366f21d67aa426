/* heap.h — a growable array on malloc's heap (Python's list.append), the
 * counterpart of arena_reserve / arena_grow (arena.h) for arrays that
 * outlive a capture's arena (the lists `tsched explain` is told) or that are
 * big and regrown often (0.10.2's walk stacks: realloc gives the old copy
 * back, a big one is remapped, where a doubling in an arena leaves every
 * old copy resident). The owner frees the array with free(). Running out of
 * memory aborts with a message. */
#ifndef TSCHED_HEAP_H
#define TSCHED_HEAP_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Room for `need` elements in items (capacity *cap): realloc'ed to twice the
 * capacity (at least 8 and need) when full. The contents past the old *cap
 * are undefined. */
static inline void *heap_reserve(void *items, size_t need, size_t *cap, size_t elem) {
  if (need <= *cap) return items;
  size_t bigger = *cap ? *cap * 2 : 8;
  while (bigger < need) bigger *= 2;
  void *p = bigger <= SIZE_MAX / elem ? realloc(items, bigger * elem) : NULL;
  if (!p) {
    fprintf(stderr, "tsched: out of memory growing an array to %zu items\n", bigger);
    abort();
  }
  *cap = bigger;
  return p;
}
/* room for one more than n */
static inline void *heap_grow(void *items, size_t n, size_t *cap, size_t elem) {
  return heap_reserve(items, n + 1, cap, elem);
}
#endif
