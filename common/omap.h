/* omap.h — an insertion-ordered hash map, the C stand-in for a Python dict
 * (and, with values ignored, for a set or dict.fromkeys). Keys are 64-bit:
 * a pointer to an interned object or an integer. Iteration is in insertion
 * order; deleting keeps the order of the rest and re-inserting appends, as
 * in CPython. Lives in an Arena. */
#ifndef TSCHED_OMAP_H
#define TSCHED_OMAP_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arena.h"

typedef struct { uint64_t key; void *val; bool live; } OMapEntry;

typedef struct OMap {
  Arena *arena;
  OMapEntry *entries;   /* in insertion order, deleted ones have live=false */
  size_t nentries, entries_cap, len;
  int32_t *index;       /* open addressing into entries; -1 empty, -2 deleted */
  size_t index_cap;
} OMap;

void omap_init(OMap *m, Arena *a);
size_t omap_len(const OMap *m);
bool omap_has(const OMap *m, uint64_t key);
/* NULL when absent (store non-NULL values, or use omap_find). */
void *omap_get(const OMap *m, uint64_t key);
bool omap_find(const OMap *m, uint64_t key, void **val);
/* Insert or overwrite (overwriting keeps the position, as a dict does). */
void omap_put(OMap *m, uint64_t key, void *val);
/* Insert only if absent (dict.setdefault); returns the value now stored. */
void *omap_setdefault(OMap *m, uint64_t key, void *val);
bool omap_del(OMap *m, uint64_t key);

/* Iteration: for (size_t i = 0; omap_next(m, &i, &k, &v);) ... */
bool omap_next(const OMap *m, size_t *pos, uint64_t *key, void **val);

static inline uint64_t omap_ptr(const void *p) { return (uint64_t)(uintptr_t)p; }
#endif
