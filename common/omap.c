/* omap.c — insertion-ordered hash map (see omap.h), CPython's compact-dict
 * layout: an index table of 32-bit slots pointing into an append-only entry
 * array. The entry array doubles when full (deleted entries are squeezed out
 * first when they are many); the index has twice the entries' capacity, so
 * it is at most half full. A map of at most SMALL entries has no index:
 * lookups scan its entries (most maps of a schedule are that small). */
#include "omap.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SLOT_EMPTY = -1, SLOT_DELETED = -2, SMALL = 8 };

static uint64_t mix(uint64_t x) { /* splitmix64 finaliser */
  x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27; x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

void omap_init(OMap *m, Arena *a) { memset(m, 0, sizeof *m); m->arena = a; }
size_t omap_len(const OMap *m) { return m->len; }

/* Slot of key in the index, or of the slot where it would go. */
static size_t probe(const OMap *m, uint64_t key, bool *found) {
  size_t mask = m->index_cap - 1, i = mix(key) & mask, first_deleted = SIZE_MAX;
  for (;;) {
    int32_t e = m->index[i];
    if (e == SLOT_EMPTY) { *found = false; return first_deleted != SIZE_MAX ? first_deleted : i; }
    if (e == SLOT_DELETED) { if (first_deleted == SIZE_MAX) first_deleted = i; }
    else if (m->entries[e].key == key) { *found = true; return i; }
    i = (i + 1) & mask;
  }
}

/* The live entry with key in a map without index, or -1. */
static long scan(const OMap *m, uint64_t key) {
  for (size_t i = 0; i < m->nentries; i++)
    if (m->entries[i].key == key && m->entries[i].live) return (long)i;
  return -1;
}

/* Make room for one more entry: squeeze out deleted entries if they are at
 * least a quarter, else double the entry array; then re-index. */
static void grow(OMap *m) {
  size_t live = 0;
  for (size_t i = 0; i < m->nentries; i++)
    if (m->entries[i].live) m->entries[live++] = m->entries[i];
  bool squeeze = m->entries_cap && (m->nentries - live) * 4 >= m->entries_cap;
  m->nentries = live;
  if (!squeeze) {
    size_t ecap = m->entries_cap ? m->entries_cap * 2 : 8;
    if (ecap > INT32_MAX / 2) { fprintf(stderr, "tsched: map larger than 2^30 entries\n"); abort(); }
    OMapEntry *e = arena_array(m->arena, ecap, sizeof *e);
    if (live) memcpy(e, m->entries, live * sizeof *e);
    m->entries = e;
    m->entries_cap = ecap;
    if (ecap <= SMALL) return;
    m->index = arena_array(m->arena, ecap * 2, sizeof(int32_t));
    m->index_cap = ecap * 2;
  }
  if (!m->index) return;
  memset(m->index, 0xff, m->index_cap * sizeof(int32_t)); /* all SLOT_EMPTY */
  for (size_t i = 0; i < m->nentries; i++) {
    bool found;
    m->index[probe(m, m->entries[i].key, &found)] = (int32_t)i;
  }
}

bool omap_find(const OMap *m, uint64_t key, void **val) {
  if (!m->len) return false;
  if (!m->index) {
    long e = scan(m, key);
    if (e >= 0 && val) *val = m->entries[e].val;
    return e >= 0;
  }
  bool found;
  size_t slot = probe(m, key, &found);
  if (found && val) *val = m->entries[m->index[slot]].val;
  return found;
}

bool omap_has(const OMap *m, uint64_t key) { return omap_find(m, key, NULL); }

void *omap_get(const OMap *m, uint64_t key) {
  void *v = NULL;
  return omap_find(m, key, &v) ? v : NULL;
}

/* entries[nentries] = (key, val), indexed at slot (key's place, found absent) when there is an index */
static void place(OMap *m, size_t slot, uint64_t key, void *val) {
  m->entries[m->nentries] = (OMapEntry){key, val, true};
  if (m->index) m->index[slot] = (int32_t)m->nentries;
  m->nentries++;
  m->len++;
}

/* key, absent, with its value; slot is its place when known, SIZE_MAX when not */
static void insert_new(OMap *m, size_t slot, uint64_t key, void *val) {
  if (m->nentries == m->entries_cap) {
    grow(m);
    slot = SIZE_MAX;
  }
  bool found;
  if (slot == SIZE_MAX && m->index) slot = probe(m, key, &found);
  place(m, slot, key, val);
}

/* The entry of key, or -1 when absent; *slot: its place in the index (SIZE_MAX without one). */
static long lookup(const OMap *m, uint64_t key, size_t *slot) {
  *slot = SIZE_MAX;
  if (!m->index) return scan(m, key);
  bool found;
  *slot = probe(m, key, &found);
  return found ? m->index[*slot] : -1;
}

void omap_put(OMap *m, uint64_t key, void *val) {
  size_t slot;
  long e = lookup(m, key, &slot);
  if (e >= 0) { m->entries[e].val = val; return; }
  insert_new(m, slot, key, val);
}

void *omap_setdefault(OMap *m, uint64_t key, void *val) {
  size_t slot;
  long e = lookup(m, key, &slot);
  if (e >= 0) return m->entries[e].val;
  insert_new(m, slot, key, val);
  return val;
}

bool omap_del(OMap *m, uint64_t key) {
  if (!m->len) return false;
  size_t slot;
  long e = lookup(m, key, &slot);
  if (e < 0) return false;
  m->entries[e].live = false;
  if (m->index) m->index[slot] = SLOT_DELETED;
  m->len--;
  return true;
}

bool omap_next(const OMap *m, size_t *pos, uint64_t *key, void **val) {
  while (*pos < m->nentries) {
    const OMapEntry *e = &m->entries[(*pos)++];
    if (!e->live) continue;
    if (key) *key = e->key;
    if (val) *val = e->val;
    return true;
  }
  return false;
}
