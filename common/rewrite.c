/* rewrite.c — PatternMatcher.rewrite and RewriteContext (tinygrad/ops.py
 * 0.10.0 and 0.10.2), with the recursion replaced by an explicit stack that
 * visits nodes in exactly the order the Python recursion does. */
#include "rewrite.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static bool rule_applies(const Rule *r, Op op) {
  if (r->ops[0] == OP_NONE) return true; /* UPat without an op: any op */
  for (int i = 0; i < RULE_MAX_OPS && r->ops[i] != OP_NONE; i++)
    if (r->ops[i] == op) return true;
  return false;
}

/* PatternMatcher.pdict: for each op, the indices of the rules that apply to
 * it, in rule order. Built once per matcher (matchers are static tables) and
 * kept for the life of the process in a small table keyed by the matcher. */
typedef struct PmIndex {
  const PatternMatcher *pm;
  uint32_t start[OP_COUNT + 1];  /* rules for op k: idx[start[k] .. start[k+1]) */
  uint16_t *idx;
} PmIndex;

enum { PM_INDEX_SLOTS = 256 };
static PmIndex *pm_indexes[PM_INDEX_SLOTS];

static const PmIndex *pm_index(const PatternMatcher *pm) {
  size_t h = ((uintptr_t)pm >> 4) & (PM_INDEX_SLOTS - 1);
  for (size_t probe = 0; probe < PM_INDEX_SLOTS; probe++, h = (h + 1) & (PM_INDEX_SLOTS - 1)) {
    PmIndex *x = pm_indexes[h];
    if (x && x->pm == pm) return x;
    if (x) continue;
    if (pm->nrules > UINT16_MAX) return NULL;
    x = calloc(1, sizeof *x);
    uint16_t *idx = x ? malloc((pm->nrules * OP_COUNT + 1) * sizeof *idx) : NULL;
    if (!idx) { free(x); return NULL; }
    uint32_t n = 0;
    for (int op = 0; op < OP_COUNT; op++) {
      x->start[op] = n;
      for (size_t i = 0; i < pm->nrules; i++)
        if (rule_applies(&pm->rules[i], (Op)op)) idx[n++] = (uint16_t)i;
    }
    x->start[OP_COUNT] = n;
    x->pm = pm;
    x->idx = idx;
    pm_indexes[h] = x;
    return x;
  }
  return NULL; /* table full: the caller scans the rules */
}

/* ops.py PatternMatcher.rewrite */
const UOp *pm_rewrite(const PatternMatcher *pm, void *ctx, const UOp *u) {
  const PmIndex *x = u->op < OP_COUNT ? pm_index(pm) : NULL;
  if (x) {
    for (uint32_t k = x->start[u->op]; k < x->start[u->op + 1]; k++) {
      const UOp *ret = pm->rules[x->idx[k]].fn(ctx, u);
      if (ret) return ret;
    }
    return NULL;
  }
  for (size_t i = 0; i < pm->nrules; i++) {
    const Rule *r = &pm->rules[i];
    if (!rule_applies(r, u->op)) continue;
    const UOp *ret = r->fn(ctx, u);
    if (ret) return ret;
  }
  return NULL;
}

/* `pm1 + pm2 + ...`: PatternMatcher.__add__ concatenates the rule lists. */
const UOp *pm_rewrite_list(const PatternMatcher *const *pms, size_t npms, void *ctx, const UOp *u) {
  for (size_t i = 0; i < npms; i++) {
    const UOp *ret = pm_rewrite(pms[i], ctx, u);
    if (ret) return ret;
  }
  return NULL;
}

void rewrite_context_init(RewriteContext *rc, Interner *in, const PatternMatcher *const *pms, size_t npms, void *ctx) {
  rc->in = in;
  rc->pms = pms;
  rc->npms = npms;
  rc->ctx = ctx;
  omap_init(&rc->replace, in->arena);
  rc->stack = NULL;
  rc->stack_cap = 0;
}

/* One activation of the Python recursive function. */
typedef enum { F_ENTER, F_SOURCES, F_TAIL } FrameStage;
typedef struct {
  const UOp *n;          /* the argument */
  const UOp *last;       /* bottom-up: the node after rewriting it to a fixpoint */
  FrameStage stage;
  uint32_t i;            /* next source to rewrite */
  const UOp **new_src;
} Frame;

typedef struct { Frame *items; size_t n, cap; Arena *arena; } Stack;

static void push(Stack *s, const UOp *n) {
  if (s->n == s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 16;
    Frame *bigger = arena_array(s->arena, cap, sizeof *bigger);
    if (s->n) memcpy(bigger, s->items, s->n * sizeof *bigger);
    s->items = bigger;
    s->cap = cap;
  }
  s->items[s->n++] = (Frame){n, NULL, F_ENTER, 0, NULL};
}

static const UOp *rewrite_node(RewriteContext *rc, const UOp *n) {
  return pm_rewrite_list(rc->pms, rc->npms, rc->ctx, n);
}

/* new_src[i] = ret for the next source i of node: new_src is allocated only
 * once a source changes, so NULL means "new_src == node.src". */
static void record_source(Arena *a, Frame *f, const UOp *node, const UOp *ret) {
  if (!f->new_src && ret != node->src[f->i]) {
    f->new_src = arena_array(a, node->nsrc, sizeof(UOp *));
    memcpy(f->new_src, node->src, f->i * sizeof(UOp *));
  }
  if (f->new_src) f->new_src[f->i] = ret;
  f->i++;
}

/* Finishes frame f with result ret: records replace[f->n] and pops it. */
static const UOp *finish(RewriteContext *rc, Stack *s, const UOp *ret) {
  omap_put(&rc->replace, omap_ptr(s->items[s->n - 1].n), (void *)ret);
  s->n--;
  return ret;
}

/* ops.py RewriteContext.rewrite (0.10.0) / top_down_rewrite (0.10.2):
 *   if (rn := self.replace.get(n)) is not None: return rn
 *   new_src = tuple(rewrite(x) for x in n.src)
 *   new_n = pm.rewrite(n, ctx) if new_src == n.src else UOp(n.op, n.dtype, new_src, n.arg)
 *   self.replace[n] = ret = n if new_n is None else rewrite(new_n) */
const UOp *top_down_rewrite(RewriteContext *rc, const UOp *root) {
  const UOp *done = omap_get(&rc->replace, omap_ptr(root));
  if (done) return done;
  Stack s = {.items = rc->stack, .cap = rc->stack_cap, .arena = rc->in->arena};
  const UOp *ret = NULL; /* the value the last finished frame returned */
  push(&s, root);
  while (s.n) {
    Frame *f = &s.items[s.n - 1];
    switch (f->stage) {
      case F_ENTER: {
        const UOp *cached = omap_get(&rc->replace, omap_ptr(f->n));
        if (cached) { ret = cached; s.n--; continue; }
        f->stage = F_SOURCES;
        if (f->n->nsrc) { push(&s, f->n->src[0]); }
        continue;
      }
      case F_SOURCES: {
        if (f->n->nsrc) record_source(rc->in->arena, f, f->n, ret);
        if (f->i < f->n->nsrc) { push(&s, f->n->src[f->i]); continue; }
        const UOp *new_n = !f->new_src ? rewrite_node(rc, f->n) : uop_with_src(rc->in, f->n, f->n->nsrc, f->new_src);
        if (!new_n) { ret = finish(rc, &s, f->n); continue; }
        f->stage = F_TAIL;
        push(&s, new_n);
        continue;
      }
      case F_TAIL: ret = finish(rc, &s, ret); continue;
    }
  }
  rc->stack = s.items, rc->stack_cap = s.cap;
  return ret;
}

/* ops.py RewriteContext.bottom_up_rewrite (0.10.2):
 *   if (rn := self.replace.get(n)) is not None: return rn
 *   new_n = n
 *   while new_n is not None: last_n, new_n = new_n, pm.rewrite(new_n, ctx)
 *   new_src = tuple(bottom_up_rewrite(x) for x in last_n.src)
 *   self.replace[n] = ret = last_n if new_src == last_n.src else bottom_up_rewrite(UOp(last_n.op, ..., new_src, ...)) */
const UOp *bottom_up_rewrite(RewriteContext *rc, const UOp *root) {
  const UOp *done = omap_get(&rc->replace, omap_ptr(root));
  if (done) return done;
  Stack s = {.items = rc->stack, .cap = rc->stack_cap, .arena = rc->in->arena};
  const UOp *ret = NULL;
  push(&s, root);
  while (s.n) {
    Frame *f = &s.items[s.n - 1];
    switch (f->stage) {
      case F_ENTER: {
        const UOp *cached = omap_get(&rc->replace, omap_ptr(f->n));
        if (cached) { ret = cached; s.n--; continue; }
        const UOp *last = f->n, *next;
        while ((next = rewrite_node(rc, last))) last = next;
        f = &s.items[s.n - 1]; /* rules may not touch the stack, but stay safe */
        f->last = last;
        f->stage = F_SOURCES;
        if (last->nsrc) push(&s, last->src[0]);
        continue;
      }
      case F_SOURCES: {
        if (f->last->nsrc) record_source(rc->in->arena, f, f->last, ret);
        if (f->i < f->last->nsrc) { push(&s, f->last->src[f->i]); continue; }
        if (!f->new_src) { ret = finish(rc, &s, f->last); continue; }
        f->stage = F_TAIL;
        push(&s, uop_with_src(rc->in, f->last, f->last->nsrc, f->new_src));
        continue;
      }
      case F_TAIL: ret = finish(rc, &s, ret); continue;
    }
  }
  rc->stack = s.items, rc->stack_cap = s.cap;
  return ret;
}

/* ops.py graph_rewrite */
const UOp *graph_rewrite(Interner *in, const UOp *sink, const PatternMatcher *const *pms, size_t npms, void *ctx,
                         bool bottom_up) {
  RewriteContext rc;
  rewrite_context_init(&rc, in, pms, npms, ctx);
  return bottom_up ? bottom_up_rewrite(&rc, sink) : top_down_rewrite(&rc, sink);
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
}
