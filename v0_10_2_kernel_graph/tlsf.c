/* tlsf.c — tinygrad 0.10.2+a0b4465 runtime/support/allocator.py
 * TLSFAllocator: the two-level segregated fit allocator the memory planner
 * suballocates one buffer per device from. The Python dicts and lists are
 * kept as they are (blocks: start -> (size, next, prev, is_free); storage:
 * a list of starts per (lv1, lv2) bucket, appended to and removed from), so
 * the same requests give the same offsets. */
#include <string.h>
#include "tlsf.h"

static int bit_length(int64_t x) {
  int n = 0;
  while (x > 0) n++, x >>= 1;
  return n;
}

static int64_t round_up(int64_t x, int64_t a) { return (x + a - 1) / a * a; }

static int lv1(int64_t size) { return bit_length(size); }
static int lv2(const Tlsf *t, int64_t size) {
  int bl = bit_length(size), sh = bl - t->l2_cnt > 0 ? bl - t->l2_cnt : 0;
  return (int)((size - ((int64_t)1 << (bl - 1))) >> sh);
}

static TlsfBucket *bucket(Tlsf *t, int l1, int l2) { return &t->storage[l1 * (1 << t->l2_cnt) + l2]; }

static TlsfBlock *block(Tlsf *t, int64_t start) { return omap_get(&t->blocks, (uint64_t)start); }

static void set_block(Tlsf *t, int64_t start, int64_t size, int64_t next, int64_t prev, bool is_free) {
  TlsfBlock *b = block(t, start);
  if (!b) {
    b = arena_alloc(t->a, sizeof *b);
    omap_put(&t->blocks, (uint64_t)start, b);
  }
  *b = (TlsfBlock){size, next, prev, is_free};
}

/* _insert_block(start, size, prev=None) */
static void insert_block(Tlsf *t, int64_t start, int64_t size, bool has_prev, int64_t prev) {
  if (!has_prev) prev = block(t, start)->prev;
  TlsfBucket *s = bucket(t, lv1(size), lv2(t, size));
  if (s->n == s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 4;
    int64_t *items = arena_array(t->a, cap, sizeof *items);
    if (s->n) memcpy(items, s->items, s->n * sizeof *items);
    s->items = items, s->cap = cap;
  }
  s->items[s->n++] = start;
  t->lv1_entries[lv1(size)]++;
  set_block(t, start, size, start + size, prev, true);
}

/* _remove_block(start, size): storage[...].remove(start) takes the first occurrence */
static void remove_block(Tlsf *t, int64_t start, int64_t size) {
  int64_t prev = block(t, start)->prev;
  TlsfBucket *s = bucket(t, lv1(size), lv2(t, size));
  size_t i = 0;
  while (i < s->n && s->items[i] != start) i++;
  if (i == s->n) error_raise("ValueError", "list.remove(x): x not in list");
  memmove(s->items + i, s->items + i + 1, (s->n - i - 1) * sizeof *s->items);
  s->n--;
  t->lv1_entries[lv1(size)]--;
  set_block(t, start, size, start + size, prev, false);
}

/* _split_block(start, size, new_size) */
static void split_block(Tlsf *t, int64_t start, int64_t size, int64_t new_size) {
  int64_t nxt = block(t, start)->next;
  if (!block(t, start)->is_free) error_raise("AssertionError", "block must be free");
  remove_block(t, start, size);
  insert_block(t, start, new_size, false, 0);
  insert_block(t, start + new_size, size - new_size, true, start);
  TlsfBlock *n = block(t, nxt);
  if (n) n->prev = start + new_size;
}

/* _merge_right(start) */
static void merge_right(Tlsf *t, int64_t start) {
  TlsfBlock *b = block(t, start);
  int64_t size = b->size, nxt = b->next;
  TlsfBlock *blk;
  while ((blk = block(t, nxt))) {
    if (!blk->is_free) break;
    int64_t bsize = blk->size;
    remove_block(t, start, size);
    remove_block(t, nxt, bsize);
    insert_block(t, start, size += bsize, false, 0);
    int64_t popped_next = block(t, nxt)->next;
    omap_del(&t->blocks, (uint64_t)nxt);
    nxt = popped_next;
  }
  TlsfBlock *n = block(t, nxt);
  if (n) n->prev = start;
}

/* _merge_block(start): go left while blocks are free, then merge them right */
static void merge_block(Tlsf *t, int64_t start) {
  for (;;) {
    int64_t x = block(t, start)->prev;
    if (x < 0 || !block(t, x)->is_free) break;
    start = x;
  }
  merge_right(t, start);
}

void v0_10_2_tlsf_init(Tlsf *t, Arena *a, int64_t size, int64_t block_size, int lv2_cnt) {
  memset(t, 0, sizeof *t);
  t->a = a;
  t->size = size, t->block_size = block_size, t->l2_cnt = bit_length(lv2_cnt);
  t->nl1 = bit_length(size) + 1;
  t->storage = arena_array(a, (size_t)t->nl1 << t->l2_cnt, sizeof *t->storage);
  memset(t->storage, 0, ((size_t)t->nl1 << t->l2_cnt) * sizeof *t->storage);
  t->lv1_entries = arena_array(a, (size_t)t->nl1, sizeof *t->lv1_entries);
  memset(t->lv1_entries, 0, (size_t)t->nl1 * sizeof *t->lv1_entries);
  omap_init(&t->blocks, a);
  set_block(t, 0, size, -1, -1, true);
  insert_block(t, 0, size, false, 0);
}

/* alloc(req_size) (align=1) */
int64_t v0_10_2_tlsf_alloc(Tlsf *t, int64_t req_size) {
  if (req_size < t->block_size) req_size = t->block_size;
  int64_t size = req_size > t->block_size ? req_size : t->block_size;
  int sh = bit_length(size) - t->l2_cnt;
  if (sh < 0) error_raise("ValueError", "negative shift count");
  size = round_up(size, (int64_t)1 << sh);
  for (int l1 = lv1(size); l1 < t->nl1; l1++) {
    if (t->lv1_entries[l1] == 0) continue;
    for (int l2 = l1 == bit_length(size) ? lv2(t, size) : 0; l2 < (1 << t->l2_cnt); l2++) {
      TlsfBucket *s = bucket(t, l1, l2);
      if (!s->n) continue;
      int64_t start = s->items[0], nsize = block(t, start)->size;
      if (nsize < size) error_raise("AssertionError", "block must be larger");
      if (nsize > req_size) split_block(t, start, nsize, req_size);
      remove_block(t, start, req_size);
      return start;
    }
  }
  error_raise("MemoryError", "Can't allocate %lld bytes", (long long)req_size);
}

/* free(start) */
void v0_10_2_tlsf_free(Tlsf *t, int64_t start) {
  TlsfBlock *b = block(t, start);
  if (!b) error_raise("KeyError", "%lld", (long long)start);
  insert_block(t, start, b->size, false, 0);
  merge_block(t, start);
}
