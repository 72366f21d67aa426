/* omap.c — insertion-ordered hash map (see omap.h), CPython's compact-dict
 * layout: an index table pointing into an append-only entry array. */
#include "omap.h"
#include <string.h>

static uint64_t mix(uint64_t x) { /* splitmix64 finaliser */
  x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27; x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

void omap_init(OMap *m, Arena *a) { memset(m, 0, sizeof *m); m->arena = a; }
size_t omap_len(const OMap *m) { return m->len; }

/* Slot of key in the index, or of the empty slot where it would go. */
static size_t probe(const OMap *m, uint64_t key, bool *found) {
  size_t mask = m->index_cap - 1, i = mix(key) & mask, first_deleted = SIZE_MAX;
  for (;;) {
    int64_t e = m->index[i];
    if (e == -1) { *found = false; return first_deleted != SIZE_MAX ? first_deleted : i; }
    if (e == -2) { if (first_deleted == SIZE_MAX) first_deleted = i; }
    else if (m->entries[e].key == key) { *found = true; return i; }
    i = (i + 1) & mask;
  }
}

static void rebuild(OMap *m, size_t need) {
  /* compact the entries, then re-index with room for `need` live ones */
  size_t live = 0;
  for (size_t i = 0; i < m->nentries; i++)
    if (m->entries[i].live) m->entries[live++] = m->entries[i];
  m->nentries = live;
  size_t cap = 8;
  while (cap < need * 2) cap *= 2;
  if (cap > m->index_cap || !m->index) m->index = arena_array(m->arena, cap, sizeof(int64_t)), m->index_cap = cap;
  memset(m->index, 0xff, m->index_cap * sizeof(int64_t)); /* all -1 */
  for (size_t i = 0; i < m->nentries; i++) {
    bool found;
    m->index[probe(m, m->entries[i].key, &found)] = (int64_t)i;
  }
  if (m->entries_cap < need) {
    size_t ecap = m->entries_cap ? m->entries_cap : 8;
    while (ecap < need) ecap *= 2;
    OMapEntry *e = arena_array(m->arena, ecap, sizeof *e);
    if (m->nentries) memcpy(e, m->entries, m->nentries * sizeof *e);
    m->entries = e;
    m->entries_cap = ecap;
  }
}

bool omap_find(const OMap *m, uint64_t key, void **val) {
  if (!m->len) return false;
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

static void insert_new(OMap *m, uint64_t key, void *val) {
  if (m->nentries + 1 > m->entries_cap || (m->nentries + 1) * 2 > m->index_cap) rebuild(m, (m->len + 1) * 2);
  bool found;
  size_t slot = probe(m, key, &found);
  m->entries[m->nentries] = (OMapEntry){key, val, true};
  m->index[slot] = (int64_t)m->nentries++;
  m->len++;
}

void omap_put(OMap *m, uint64_t key, void *val) {
  if (m->len) {
    bool found;
    size_t slot = probe(m, key, &found);
    if (found) { m->entries[m->index[slot]].val = val; return; }
  }
  insert_new(m, key, val);
}

void *omap_setdefault(OMap *m, uint64_t key, void *val) {
  void *old;
  if (omap_find(m, key, &old)) return old;
  insert_new(m, key, val);
  return val;
}

bool omap_del(OMap *m, uint64_t key) {
  if (!m->len) return false;
  bool found;
  size_t slot = probe(m, key, &found);
  if (!found) return false;
  m->entries[m->index[slot]].live = false;
  m->index[slot] = -2;
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
