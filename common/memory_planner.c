/* memory_planner.c — _internal_memory_planner with noopt_buffers (memory_planner.h):
 * tinygrad 0.9.2 engine/realize.py and 0.10.0 engine/memory.py. */
#include "memory_planner.h"
#include <stdlib.h>
#include <string.h>
#include "omap.h"

typedef struct Planner {
  Arena *a;
  const PlanBuf *bufs;
  PlanNewBuf *news;
  size_t nnew, capnew;
} Planner;

static int64_t base_of(const Planner *p, int64_t b) { return p->bufs[b].base >= 0 ? p->bufs[b].base : b; }

static int64_t new_buffer(Planner *p, int64_t like, int64_t base, int64_t offset) {
  if (p->nnew == p->capnew) {
    size_t cap = p->capnew ? p->capnew * 2 : 8;
    PlanNewBuf *bigger = arena_array(p->a, cap, sizeof *bigger);
    if (p->nnew) memcpy(bigger, p->news, p->nnew * sizeof *bigger);
    p->news = bigger, p->capnew = cap;
  }
  p->news[p->nnew] = (PlanNewBuf){like, base, offset};
  return -2 - (int64_t)p->nnew++;
}

/* free_segs[key]: a list of (start, end, buffer) segments, popped anywhere and
 * appended at the end. The search takes the first segment in list order with
 * start <= st and en <= end: a popped segment stays in its place, dead, so
 * positions keep the list's order, and the scan tests a block of positions
 * at a time without branches (the compiler vectorizes it) before it looks
 * for the first match inside the block (the same first match as Python's
 * linear scan). Starts and ends are schedule positions, far below 2^31. */
enum { SEG_BLOCK = 64, SEG_DEAD_ST = INT32_MAX, SEG_DEAD_EN = INT32_MIN };
typedef struct Seg { int64_t st, en, buf; } Seg;
typedef struct SegList {
  Seg *items;
  int32_t *st, *en;        /* the items' starts and ends, dead ones (and those past n) never matching */
  size_t n, cap;           /* cap: a multiple of SEG_BLOCK */
} SegList;

static void seg_grow(Arena *a, SegList *l) {
  size_t cap = l->cap ? l->cap * 2 : SEG_BLOCK;
  Seg *items = arena_array(a, cap, sizeof *items);
  int32_t *st = arena_array(a, cap, sizeof *st), *en = arena_array(a, cap, sizeof *en);
  if (l->n) {
    memcpy(items, l->items, l->n * sizeof *items);
    memcpy(st, l->st, l->n * sizeof *st);
    memcpy(en, l->en, l->n * sizeof *en);
  }
  for (size_t i = l->n; i < cap; i++) st[i] = SEG_DEAD_ST, en[i] = SEG_DEAD_EN;
  l->items = items, l->st = st, l->en = en, l->cap = cap;
}

static void seg_append(Arena *a, SegList *l, Seg x) {
  if (l->n == l->cap) seg_grow(a, l);
  l->items[l->n] = x;
  l->st[l->n] = (int32_t)x.st, l->en[l->n] = (int32_t)x.en;
  l->n++;
}

static void seg_pop(SegList *l, size_t i) { l->st[i] = SEG_DEAD_ST, l->en[i] = SEG_DEAD_EN; }

/* any(sst <= a and b <= sen) over one block, without branches */
static bool seg_block_hit(const int32_t *restrict st, const int32_t *restrict en, int32_t a, int32_t b) {
  int32_t hit = 0;
  for (int k = 0; k < SEG_BLOCK; k++) hit |= (int32_t)(st[k] <= a) & (int32_t)(en[k] >= b);
  return hit != 0;
}

/* next(i for i,(sst,sen,_) in enumerate(segs) if sst <= st and en <= sen), or -1 */
static long seg_find(const SegList *l, int64_t st, int64_t en) {
  int32_t a = (int32_t)st, b = (int32_t)en;
  for (size_t i = 0; i < l->n; i += SEG_BLOCK) {
    if (!seg_block_hit(l->st + i, l->en + i, a, b)) continue;
    for (size_t k = i;; k++)
      if (l->st[k] <= a && l->en[k] >= b) return (long)k;
  }
  return -1;
}

typedef struct Request { int64_t nbytes; size_t pos; int64_t buf; } Request;

/* sorted(key=lambda x: -x[2].nbytes) is stable: equal sizes keep their order */
static int request_cmp(const void *pa, const void *pb) {
  const Request *a = pa, *b = pb;
  if (a->nbytes != b->nbytes) return a->nbytes > b->nbytes ? -1 : 1;
  return (a->pos > b->pos) - (a->pos < b->pos);
}

/* find_replace_buffer(buf, st, en) */
static bool find_replace_buffer(Planner *p, OMap *free_segs, int64_t buf, int64_t st, int64_t en, size_t n, PlanKeyFn key,
                                void *ctx, int64_t *out) {
  uint64_t k;
  if (!key(ctx, buf, &k)) return false;
  SegList *segs = omap_get(free_segs, k);
  if (!segs) {
    segs = arena_alloc(p->a, sizeof *segs);
    omap_put(free_segs, k, segs);
  }
  Seg found = {0, (int64_t)n - 1, buf}; /* "will return the buffer itself if the replace one is not found" */
  long j = seg_find(segs, st, en);
  if (j >= 0) found = segs->items[j], seg_pop(segs, (size_t)j);
  if (st - 1 >= found.st) seg_append(p->a, segs, (Seg){found.st, st - 1, found.buf});
  if (found.en >= en + 1) seg_append(p->a, segs, (Seg){en + 1, found.en, found.buf});
  *out = p->bufs[found.buf].nbytes == p->bufs[buf].nbytes ? found.buf : new_buffer(p, buf, found.buf, 0);
  return true;
}

bool internal_memory_planner(Arena *tmp, const PlanBuf *bufs, size_t nbufs, const PlanSchedule *sched, PlanKeyFn key, void *ctx,
                             int64_t *assigned, PlanNewBuf **news, size_t *nnew) {
  Planner p = {tmp, bufs, NULL, 0, 0};
  size_t n = sched->n, nreq = 0;
  int64_t *first = arena_array(tmp, nbufs + 1, sizeof *first), *last = arena_array(tmp, nbufs + 1, sizeof *last);
  int64_t *order = arena_array(tmp, nbufs + 1, sizeof *order); /* first_appearance's keys in order */
  for (size_t i = 0; i < nbufs; i++) first[i] = -1, assigned[i] = -1;
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < sched->nbufs[i]; k++) {
      int64_t b = sched->bufs[i][k];
      if (bufs[b].skipped) continue;
      int64_t base = base_of(&p, b);
      if (first[base] < 0) first[base] = (int64_t)i, order[nreq++] = base;
      last[base] = (int64_t)i;
    }
  Request *req = arena_array(tmp, nreq + 1, sizeof *req);
  for (size_t r = 0; r < nreq; r++) req[r] = (Request){bufs[order[r]].nbytes, r, order[r]};
  qsort(req, nreq, sizeof *req, request_cmp);
  OMap free_segs; /* key -> SegList */
  omap_init(&free_segs, tmp);
  for (size_t i = 0; i < nreq; i++) {
    int64_t buf = req[i].buf;
    if (!find_replace_buffer(&p, &free_segs, buf, first[buf], last[buf], n, key, ctx, &assigned[buf])) return false;
  }
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < sched->nbufs[i]; k++) {
      int64_t b = sched->bufs[i][k];
      if (bufs[b].skipped) continue;
      if (bufs[b].base >= 0) {
        int64_t base = bufs[b].base;
        int64_t a = assigned[base] != -1 ? assigned[base] : base;
        int64_t root = a >= 0 ? base_of(&p, a) : p.news[-2 - a].base;
        assigned[b] = new_buffer(&p, b, root, bufs[b].offset);
      } else if (assigned[b] == -1) {
        assigned[b] = b;
      }
    }
  *news = p.news;
  *nnew = p.nnew;
  return true;
}
