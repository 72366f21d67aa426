/* rewrite.c — PatternMatcher.rewrite and RewriteContext (tinygrad/ops.py
 * 0.10.0 and 0.10.2), with the recursion replaced by an explicit stack that
 * visits nodes in exactly the order the Python recursion does. */
#include "rewrite.h"
#include "rewrite_trace.h"
#include "sint.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static bool rule_applies(const Rule *r, Op op) {
  if (r->ops[0] == OP_NONE) return true; /* UPat without an op: any op */
  for (int i = 0; i < RULE_MAX_OPS && r->ops[i] != OP_NONE; i++)
    if (r->ops[i] == op) return true;
  return false;
}

/* PatternMatcher.pdict of `pm1 + pm2 + ...` (the rule lists concatenated):
 * for each op, the functions of the rules that apply to it, in rule order.
 * Built once per list of matchers (matchers are static tables) and kept for
 * the life of the process in a small table keyed by the list. */
typedef struct PmIndex {
  size_t npms;
  const PatternMatcher *pms[RC_MAX_PMS];
  uint32_t start[OP_COUNT + 1];  /* rules for op k: fn[start[k] .. start[k+1]) */
  RuleFn *fn;
  const Rule **rule;             /* rule[k] is the row of fn[k] (for the trace) */
} PmIndex;

enum { PM_INDEX_SLOTS = 256 };
static PmIndex *pm_indexes[PM_INDEX_SLOTS];

static bool is_list(const PmIndex *x, const PatternMatcher *const *pms, size_t npms) {
  if (x->npms != npms) return false;
  for (size_t i = 0; i < npms; i++)
    if (x->pms[i] != pms[i]) return false;
  return true;
}

static PmIndex *pm_index_build(const PatternMatcher *const *pms, size_t npms) {
  size_t nrules = 0;
  for (size_t i = 0; i < npms; i++) nrules += pms[i]->nrules;
  if (nrules * OP_COUNT >= UINT32_MAX) return NULL;
  PmIndex *x = calloc(1, sizeof *x);
  RuleFn *fn = x ? malloc((nrules * OP_COUNT + 1) * sizeof *fn) : NULL;
  const Rule **rule = fn ? malloc((nrules * OP_COUNT + 1) * sizeof *rule) : NULL;
  if (!rule) { free(fn); free(x); return NULL; }
  uint32_t n = 0;
  for (int op = 0; op < OP_COUNT; op++) {
    x->start[op] = n;
    for (size_t p = 0; p < npms; p++)
      for (size_t i = 0; i < pms[p]->nrules; i++)
        if (rule_applies(&pms[p]->rules[i], (Op)op)) rule[n] = &pms[p]->rules[i], fn[n++] = pms[p]->rules[i].fn;
  }
  x->start[OP_COUNT] = n;
  x->npms = npms;
  memcpy(x->pms, pms, npms * sizeof *pms);
  x->fn = fn;
  x->rule = rule;
  return x;
}

/* The index of the list; NULL when there is none (the caller scans the rules). */
static const PmIndex *pm_index(const PatternMatcher *const *pms, size_t npms) {
  if (npms > RC_MAX_PMS) return NULL;
  uint64_t h = npms;
  for (size_t i = 0; i < npms; i++) h = (h ^ (uintptr_t)pms[i]) * 0x9e3779b97f4a7c15ULL;
  size_t slot = (size_t)(h >> 40) & (PM_INDEX_SLOTS - 1);
  for (size_t probe = 0; probe < PM_INDEX_SLOTS; probe++, slot = (slot + 1) & (PM_INDEX_SLOTS - 1)) {
    PmIndex *x = pm_indexes[slot];
    if (x && is_list(x, pms, npms)) return x;
    if (x) continue;
    return pm_indexes[slot] = pm_index_build(pms, npms);
  }
  return NULL; /* table full */
}

/* `pm1 + pm2 + ...`.rewrite(u, ctx) with the list's index x (NULL: scan the rules); the rule that
 * matched in *fired */
static const UOp *pm_rewrite_indexed(const PatternMatcher *const *pms, size_t npms, const PmIndex *x, void *ctx,
                                     const UOp *u, const Rule **fired) {
  if (x && u->op < OP_COUNT) {
    for (uint32_t k = x->start[u->op]; k < x->start[u->op + 1]; k++) {
      const UOp *ret = x->fn[k](ctx, u);
      if (ret) return *fired = x->rule[k], ret;
    }
    return NULL;
  }
  for (size_t p = 0; p < npms; p++)
    for (size_t i = 0; i < pms[p]->nrules; i++) {
      const Rule *r = &pms[p]->rules[i];
      if (!rule_applies(r, u->op)) continue;
      const UOp *ret = r->fn(ctx, u);
      if (ret) return *fired = r, ret;
    }
  return NULL;
}

/* ops.py PatternMatcher.rewrite */
const UOp *pm_rewrite(const PatternMatcher *pm, void *ctx, const UOp *u) {
  return pm_rewrite_list(&pm, 1, ctx, u);
}

/* `pm1 + pm2 + ...`: PatternMatcher.__add__ concatenates the rule lists. */
const UOp *pm_rewrite_list(const PatternMatcher *const *pms, size_t npms, void *ctx, const UOp *u) {
  const Rule *fired;
  return pm_rewrite_indexed(pms, npms, u->op < OP_COUNT ? pm_index(pms, npms) : NULL, ctx, u, &fired);
}

/* One activation of the Python recursive function. */
typedef enum { F_ENTER, F_SOURCES, F_TAIL } FrameStage;
typedef struct {
  const UOp *n;          /* the argument */
  const UOp *last;       /* bottom-up: the node after rewriting it to a fixpoint */
  FrameStage stage;
  uint32_t i;            /* next source to rewrite */
  uint32_t new_src;      /* offset of new_src in the memo's srcs, NO_SRC while new_src == node.src */
} Frame;

enum { NO_SRC = UINT32_MAX };

/* RewriteContext.replace as a table by UOp id (see rewrite.h), plus the
 * walk's scratch stacks: frames, and the new_src tuples of the frames being
 * built (a frame's tuple sits above those of the frames below it, so they
 * form a stack too). The table is paged: MEMO_PAGE ids a page, a page made
 * when the first id in it is stored, so a context costs memory for the ids
 * it touches, not for every node of the graph (and growing it copies only
 * the page directory). 128 ids a page (~1 KiB): a pooled context used by
 * many small rewrites touches ids all over the graph, a page for each. */
enum { MEMO_PAGE_BITS = 7, MEMO_PAGE = 1 << MEMO_PAGE_BITS };
/* A page's entries belong to the context whose epoch it holds (a page of
 * an older epoch is emptied when the context first stores into it): a bit
 * per entry rather than a stamp, as these pages are most of what a
 * schedule keeps only to go faster. */
typedef struct MemoPage {
  uint32_t epoch;
  struct MemoPage *next_free;   /* in the Interner's free list */
  uint64_t live[MEMO_PAGE / 64];
  const UOp *val[MEMO_PAGE];
} MemoPage;

struct RewriteMemo {
  RewriteMemo *next;     /* in the Interner's free list */
  uint32_t epoch;
  MemoPage **pages;      /* pages[id >> MEMO_PAGE_BITS], NULL: no entry there yet */
  size_t npages;
  uint32_t *used;        /* the pages stored into since acquired: given back when released */
  size_t nused, used_cap;
  Frame *frames;
  size_t nframes, frames_cap;
  bool deep;             /* the frames went past REWRITE_MAX_DEPTH: the rewrite gives up */
  const UOp **srcs;
  size_t nsrcs, srcs_cap;
};

static Arena *memo_arena(Interner *in) { return in->memo_arena ? in->memo_arena : in->arena; }

static RewriteMemo *memo_acquire(Interner *in) {
  RewriteMemo *m = in->rewrite_memos;
  if (m) in->rewrite_memos = m->next;
  else m = arena_alloc(memo_arena(in), sizeof *m);
  m->next = NULL;
  if (++m->epoch == 0) { /* wrapped: forget every page's epoch */
    for (size_t p = 0; p < m->npages; p++)
      if (m->pages[p]) m->pages[p]->epoch = 0;
    m->epoch = 1;
  }
  m->nframes = m->nsrcs = m->nused = 0;
  m->deep = false;
  return m;
}

static inline const UOp *memo_get(const RewriteMemo *m, const UOp *n) {
  size_t p = n->id >> MEMO_PAGE_BITS, i = n->id & (MEMO_PAGE - 1);
  const MemoPage *pg = p < m->npages ? m->pages[p] : NULL;
  return pg && pg->epoch == m->epoch && (pg->live[i / 64] >> (i % 64) & 1) ? pg->val[i] : NULL;
}

/* The page of id p (made, and the directory grown, as needed). */
static MemoPage *memo_page(Interner *in, RewriteMemo *m, size_t p) {
  if (p >= m->npages) {
    size_t n = m->npages ? m->npages * 2 : 16;
    while (n <= p) n *= 2;
    MemoPage **pages = arena_array(memo_arena(in), n, sizeof *pages);
    if (m->npages) memcpy(pages, m->pages, m->npages * sizeof *pages);
    m->pages = pages, m->npages = n;
  }
  if (!m->pages[p]) { /* a page given back by a released context, else a new one (epoch 0: no entry) */
    MemoPage *pg = in->memo_pages;
    if (pg) in->memo_pages = pg->next_free;
    else pg = arena_alloc(memo_arena(in), sizeof(MemoPage));
    m->pages[p] = pg;
  }
  return m->pages[p];
}

/* page p is stored into for the first time since m was acquired */
static void memo_page_used(Interner *in, RewriteMemo *m, size_t p) {
  if (m->nused == m->used_cap) {
    size_t cap = m->used_cap ? m->used_cap * 2 : 16;
    uint32_t *bigger = arena_array(memo_arena(in), cap, sizeof *bigger);
    if (m->nused) memcpy(bigger, m->used, m->nused * sizeof *bigger);
    m->used = bigger, m->used_cap = cap;
  }
  m->used[m->nused++] = (uint32_t)p;
}

static inline void memo_put(Interner *in, RewriteMemo *m, const UOp *n, const UOp *ret) {
  size_t p = n->id >> MEMO_PAGE_BITS, i = n->id & (MEMO_PAGE - 1);
  MemoPage *pg = p < m->npages && m->pages[p] ? m->pages[p] : memo_page(in, m, p);
  if (pg->epoch != m->epoch) { /* an older context's entries */
    pg->epoch = m->epoch;
    for (size_t w = 0; w < MEMO_PAGE / 64; w++) pg->live[w] = 0;
    memo_page_used(in, m, p);
  }
  pg->live[i / 64] |= (uint64_t)1 << (i % 64);
  pg->val[i] = ret;
}

void rewrite_context_init(RewriteContext *rc, Interner *in, const PatternMatcher *const *pms, size_t npms, void *ctx) {
  rc->in = in;
  rc->pms = pms;
  rc->npms = npms;
  rc->ctx = ctx;
  rc->memo = memo_acquire(in);
  rc->index = pm_index(pms, npms);
  rc->gave_up = false;
  rc->trace = in->trace;
}

/* The released context's pages go to the Interner's free list (their
 * entries are of no use to the next context: it has a newer epoch), so
 * that a pooled context used by many small rewrites does not keep a page
 * for every part of the graph one of them touched. */
void rewrite_context_release(RewriteContext *rc) {
  RewriteMemo *m = rc->memo;
  Interner *in = rc->in;
  for (size_t i = 0; i < m->nused; i++) {
    MemoPage *pg = m->pages[m->used[i]];
    m->pages[m->used[i]] = NULL;
    pg->epoch = 0; /* no entry, for whichever context takes it */
    pg->next_free = in->memo_pages;
    in->memo_pages = pg;
  }
  m->nused = 0;
  m->next = in->rewrite_memos;
  in->rewrite_memos = m;
  rc->memo = NULL;
}

void rewrite_memos_forget(Interner *in) { in->rewrite_memos = NULL, in->memo_pages = NULL; }

/* a page's live entries whose result was forgotten dropped, the kept ones following their copy */
static void page_compact(MemoPage *pg, uint32_t mark, const UOp *const *copy) {
  for (size_t w = 0; w < MEMO_PAGE / 64; w++)
    for (uint64_t bits = pg->live[w]; bits; bits &= bits - 1) {
      size_t i = w * 64 + (size_t)__builtin_ctzll(bits);
      const UOp *v = pg->val[i];
      if (!v || v->id < mark) continue;
      if (copy[v->id - mark]) pg->val[i] = copy[v->id - mark];
      else pg->live[w] &= ~((uint64_t)1 << (i % 64));
    }
}

void rewrite_context_compact(RewriteContext *rc, uint32_t mark, const UOp *const *copy) {
  RewriteMemo *m = rc->memo;
  for (size_t p = 0; m && copy && p < m->npages; p++) {
    MemoPage *pg = m->pages[p];
    if (!pg || pg->epoch != m->epoch) continue;
    if (p * MEMO_PAGE >= mark) { /* all forgotten (the page stays the context's: its epoch is kept) */
      for (size_t w = 0; w < MEMO_PAGE / 64; w++) pg->live[w] = 0;
    } else if ((p + 1) * MEMO_PAGE <= mark) page_compact(pg, mark, copy);
    else { /* the page where mark falls: its ids from mark on forgotten first */
      for (size_t i = mark - p * MEMO_PAGE; i < MEMO_PAGE; i++) pg->live[i / 64] &= ~((uint64_t)1 << (i % 64));
      page_compact(pg, mark, copy);
    }
  }
}

/* tinygrad's graph_rewrite recurses (a call or two per level) under
 * sys.setrecursionlimit(10000) (engine/schedule.py): a rewrite nesting
 * deeper than that many levels ended in RecursionError there. Only a graph
 * no real call makes (a rule that never stops rewriting, on bad input) gets
 * that deep; so does a node rewritten in place that many times (bottom-up,
 * where Python loops instead: it would never return). Such a rewrite gives
 * up: the capture is unsupported (error_unsupported unwinds out of the
 * rewrite), and this context rewrites nothing more. */
enum { REWRITE_MAX_DEPTH = 10000, REWRITE_MAX_STEPS = 1000000 };

_Noreturn static void give_up(RewriteContext *rc) {
  rc->gave_up = true;
  rc->memo->nframes = 0;
  error_unsupported("a graph_rewrite nesting past Python's recursion limit (tinygrad: RecursionError) or never ending");
}

static inline Frame *push(Interner *in, RewriteMemo *m, const UOp *n) {
  if (m->nframes == m->frames_cap) {
    m->deep = m->nframes > REWRITE_MAX_DEPTH;
    size_t cap = m->frames_cap ? m->frames_cap * 2 : 16;
    Frame *bigger = arena_array(memo_arena(in), cap, sizeof *bigger);
    if (m->nframes) memcpy(bigger, m->frames, m->nframes * sizeof *bigger);
    m->frames = bigger, m->frames_cap = cap;
  }
  Frame *f = &m->frames[m->nframes++];
  *f = (Frame){n, NULL, F_ENTER, 0, NO_SRC};
  return f;
}

/* pm_rewrite_list with the matchers' index looked up once per context; a
 * match is recorded when the context is tracked (TrackedPatternMatcher.rewrite) */
static inline const UOp *rewrite_node(RewriteContext *rc, const UOp *n) {
  const PmIndex *x = rc->index;
  if (x && n->op < OP_COUNT && x->start[n->op] == x->start[n->op + 1]) return NULL; /* no rule names the op */
  const Rule *fired;
  const UOp *ret = pm_rewrite_indexed(rc->pms, rc->npms, x, rc->ctx, n, &fired);
  if (ret && rc->trace) rewrite_trace_step(rc->trace, n, ret, fired);
  return ret;
}

/* new_src[i] = ret for the next source i of node: new_src gets room on the
 * srcs stack only once a source changes. */
static inline void record_source(Interner *in, RewriteMemo *m, Frame *f, const UOp *node, const UOp *ret) {
  if (f->new_src == NO_SRC && ret != node->src[f->i]) {
    if (m->nsrcs + node->nsrc > m->srcs_cap) {
      size_t cap = m->srcs_cap ? m->srcs_cap * 2 : 16;
      while (cap < m->nsrcs + node->nsrc) cap *= 2;
      const UOp **bigger = arena_array(memo_arena(in), cap, sizeof *bigger);
      if (m->nsrcs) memcpy(bigger, m->srcs, m->nsrcs * sizeof *bigger);
      m->srcs = bigger, m->srcs_cap = cap;
    }
    f->new_src = (uint32_t)m->nsrcs;
    for (uint32_t k = 0; k < f->i; k++) m->srcs[m->nsrcs + k] = node->src[k]; /* a few pointers: no call to memcpy */
    m->nsrcs += node->nsrc;
  }
  if (f->new_src != NO_SRC) m->srcs[f->new_src + f->i] = ret;
  f->i++;
}

/* UOp(node.op, node.dtype, new_src, node.arg); frees new_src's room */
static const UOp *with_new_src(Interner *in, RewriteMemo *m, Frame *f, const UOp *node) {
  const UOp *u = uop_with_src(in, node, node->nsrc, m->srcs + f->new_src);
  m->nsrcs = f->new_src;
  return u;
}

/* Finishes the top frame with result ret: records replace[f->n] and pops it. */
static inline const UOp *finish(RewriteContext *rc, const UOp *ret) {
  RewriteMemo *m = rc->memo;
  memo_put(rc->in, m, m->frames[--m->nframes].n, ret);
  return ret;
}

/* ops.py RewriteContext.rewrite (0.10.0) / top_down_rewrite (0.10.2):
 *   if (rn := self.replace.get(n)) is not None: return rn
 *   new_src = tuple(rewrite(x) for x in n.src)
 *   new_n = pm.rewrite(n, ctx) if new_src == n.src else UOp(n.op, n.dtype, new_src, n.arg)
 *   self.replace[n] = ret = n if new_n is None else rewrite(new_n)
 * A frame resumed after a call reads what the call returned from replace:
 * rewrite(x) always leaves replace[x] set to its result. A source without
 * sources is rewritten in its parent's frame (the same calls in the same
 * order; most leaves match nothing). */
const UOp *top_down_rewrite(RewriteContext *rc, const UOp *root) {
  RewriteMemo *m = rc->memo;
  const UOp *done = memo_get(m, root);
  if (done) return done;
  if (rc->gave_up) return root;
  Interner *in = rc->in;
  size_t bottom = m->nframes;
  const UOp *ret;
  push(in, m, root);
  for (;;) {
    if (m->deep) give_up(rc);
    Frame *f = &m->frames[m->nframes - 1];
    const UOp *n = f->n;
    if (f->last) { /* the tail call rewrite(new_n) returned */
      ret = memo_get(m, f->last);
      goto finish;
    }
    while (f->i < n->nsrc) { /* new_src: the sources rewritten so far are in replace */
      const UOp *x = n->src[f->i], *r = memo_get(m, x);
      if (!r && x->nsrc) { push(in, m, x); goto next; }
      if (!r) { /* rewrite(x) of a leaf, in place */
        const UOp *new_x = rewrite_node(rc, x);
        f = &m->frames[m->nframes - 1]; /* rules may not touch this stack, but stay safe */
        if (!new_x) r = x;
        else if (!(r = memo_get(m, new_x))) { /* rewrite(new_x): a frame for x waiting on one for new_x */
          push(in, m, x)->last = new_x;
          push(in, m, new_x);
          goto next;
        }
        memo_put(in, m, x, r);
      }
      record_source(in, m, f, n, r);
    }
    const UOp *new_n = f->new_src == NO_SRC ? rewrite_node(rc, n) : with_new_src(in, m, f, n);
    if (!new_n) ret = n;
    else if (!(ret = memo_get(m, new_n))) { /* rewrite(new_n), unless it returns at once */
      m->frames[m->nframes - 1].last = new_n;
      push(in, m, new_n);
      continue;
    }
  finish:
    memo_put(in, m, n, ret);
    if (--m->nframes == bottom) return ret;
  next:;
  }
}

/* while new_n is not None: last_n, new_n = new_n, pm.rewrite(new_n, ctx);
 * it gives up after REWRITE_MAX_STEPS */
static const UOp *rewrite_to_fixpoint(RewriteContext *rc, const UOp *n) {
  const UOp *last = n, *next;
  for (size_t steps = 0; (next = rewrite_node(rc, last)); steps++) {
    if (steps == REWRITE_MAX_STEPS) give_up(rc);
    last = next;
  }
  return last;
}

/* ops.py RewriteContext.bottom_up_rewrite (0.10.2):
 *   if (rn := self.replace.get(n)) is not None: return rn
 *   new_n = n
 *   while new_n is not None: last_n, new_n = new_n, pm.rewrite(new_n, ctx)
 *   new_src = tuple(bottom_up_rewrite(x) for x in last_n.src)
 *   self.replace[n] = ret = last_n if new_src == last_n.src else bottom_up_rewrite(UOp(last_n.op, ..., new_src, ...)) */
const UOp *bottom_up_rewrite(RewriteContext *rc, const UOp *root) {
  RewriteMemo *m = rc->memo;
  const UOp *done = memo_get(m, root);
  if (done) return done;
  if (rc->gave_up) return root;
  Interner *in = rc->in;
  size_t bottom = m->nframes;
  const UOp *ret = NULL;
  push(in, m, root);
  while (m->nframes > bottom) {
    if (m->deep) give_up(rc);
    Frame *f = &m->frames[m->nframes - 1];
    switch (f->stage) {
      case F_ENTER: {
        const UOp *cached = memo_get(m, f->n);
        if (cached) { ret = cached; m->nframes--; continue; }
        const UOp *last = rewrite_to_fixpoint(rc, f->n);
        f = &m->frames[m->nframes - 1]; /* rules may not touch the stack, but stay safe */
        f->last = last;
        f->stage = F_SOURCES;
        if (last->nsrc) push(in, m, last->src[0]);
        continue;
      }
      case F_SOURCES: {
        const UOp *last = f->last;
        if (last->nsrc) record_source(in, m, f, last, ret);
        if (f->i < last->nsrc) { push(in, m, last->src[f->i]); continue; }
        if (f->new_src == NO_SRC) { ret = finish(rc, last); continue; }
        const UOp *next = with_new_src(in, m, f, last);
        f->stage = F_TAIL;
        push(in, m, next);
        continue;
      }
      case F_TAIL: ret = finish(rc, ret); continue;
    }
  }
  return ret;
}

/* ops.py graph_rewrite:
 *   if TRACK_MATCH_STATS >= 2: tracked_ctxs[-1].append(TrackedGraphRewrite(caller's loc, sink, bottom_up))
 *   return RewriteContext(pm, ctx).bottom_up_rewrite(sink) if bottom_up else ....top_down_rewrite(sink) */
const UOp *graph_rewrite_at(const PyLoc *at, Interner *in, const UOp *sink, const PatternMatcher *const *pms, size_t npms,
                            void *ctx, bool bottom_up) {
  if (in->trace) rewrite_trace_call(in->trace, at, sink, bottom_up);
  RewriteContext rc;
  rewrite_context_init(&rc, in, pms, npms, ctx);
  const UOp *ret = bottom_up ? bottom_up_rewrite(&rc, sink) : top_down_rewrite(&rc, sink);
  rewrite_context_release(&rc);
  return ret;
}

const UOp *graph_rewrite(Interner *in, const UOp *sink, const PatternMatcher *const *pms, size_t npms, void *ctx,
                         bool bottom_up) {
  return graph_rewrite_at(NULL, in, sink, pms, npms, ctx, bottom_up);
}

/* with Context(TRACK_MATCH_STATS=0): return graph_rewrite(...) */
const UOp *graph_rewrite_untracked(Interner *in, const UOp *sink, const PatternMatcher *const *pms, size_t npms, void *ctx,
                                   bool bottom_up) {
  struct RewriteTrace *trace = in->trace;
  in->trace = NULL;
  const UOp *ret = graph_rewrite_at(NULL, in, sink, pms, npms, ctx, bottom_up);
  in->trace = trace;
  return ret;
}

/* ops.py graph_rewrite_map (0.10.2):
 *   {k: rewrite(k) for k in list(sink.toposort)[::-1]} */
void graph_rewrite_map(Interner *in, const UOp *sink, const PatternMatcher *const *pms, size_t npms, void *ctx,
                       bool bottom_up, OMap *out) {
  RewriteContext rc;
  rewrite_context_init(&rc, in, pms, npms, ctx);
  const UOp **order;
  size_t n = uop_toposort(in->arena, &sink, 1, &order);
  omap_init(out, in->arena);
  for (size_t i = n; i-- > 0;) {
    const UOp *k = order[i];
    omap_put(out, omap_ptr(k), (void *)(bottom_up ? bottom_up_rewrite(&rc, k) : top_down_rewrite(&rc, k)));
  }
  rewrite_context_release(&rc);
}
