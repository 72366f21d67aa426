/* explain.c — what generation 0.10.0 tells `tsched explain` (common/explain.h):
 * why each BUFFER uop entered `realizes`, which LazyBuffers each kernel
 * computes, and which LazyBuffer each schedule item stores.
 *
 * The scheduler works on BUFFER uops; explain names input.lazybuffers
 * indices. The maps between them are built from to_uop's per-LazyBuffer
 * cache, and only while someone listens (s->ex), so that scheduling without
 * a listener pays one pointer test per realize. */
#include <string.h>
#include "pipeline.h"

struct ExplainState {
  OMap lb_of_buf;      /* BUFFER uop -> LazyBuffer index + 1 (the base whose VIEW(BUFFER, op) it is) */
  OMap view_of_st;     /* ShapeTracker Value -> the first view LazyBuffer index + 1 with it */
  int64_t *lb_of_buffer;  /* Buffer index -> the unrealized LazyBuffer computing it, -1 */
  bool *is_out;        /* per LazyBuffer: in the deduplicated outs */
  uint32_t *mark;      /* per LazyBuffer: the walk of explain_fuses that reached it */
};

void v0_10_explain_begin(Sched *s, const int64_t *outs, size_t nouts) {
  s->ex = explain_active();
  if (!s->ex) return;
  ExplainState *x = s->xp = arena_alloc(s->a, sizeof *x);
  omap_init(&x->lb_of_buf, s->a);
  omap_init(&x->view_of_st, s->a);
  x->lb_of_buffer = arena_array(s->a, s->nbufs + 1, sizeof *x->lb_of_buffer);
  x->is_out = arena_array(s->a, s->nlbs + 1, sizeof *x->is_out);
  x->mark = arena_array(s->a, s->nlbs + 1, sizeof *x->mark);
  for (size_t b = 0; b < s->nbufs; b++) x->lb_of_buffer[b] = -1;
  for (size_t i = 0; i < nouts; i++) x->is_out[outs[i]] = true;
  for (size_t i = 0; i < s->nlbs; i++) {
    const InLB *lb = &s->lbs[i];
    const UOp *u = s->cache[i];
    if (lb->base >= 0) {
      if (u) omap_setdefault(&x->view_of_st, omap_ptr(lb->st), (void *)(uintptr_t)(i + 1));
      continue;
    }
    if (u && v0_10_is_scheduled(u)) omap_put(&x->lb_of_buf, omap_ptr(u->src[0]), (void *)(uintptr_t)(i + 1));
    if (!lb->realized && lb->op != OP_CONST && lb->buffer >= 0 && (size_t)lb->buffer < s->nbufs) x->lb_of_buffer[lb->buffer] = (int64_t)i;
  }
}

/* The LazyBuffer whose VIEW(BUFFER, op) node has BUFFER uop b, or -1. */
static int64_t lb_of(Sched *s, const UOp *b) { return (int64_t)(uintptr_t)omap_get(&s->xp->lb_of_buf, omap_ptr(b)) - 1; }

/* The view LazyBuffer of base LazyBuffer `base` with ShapeTracker st, or -1. */
static int64_t view_lb(Sched *s, int64_t base, const Value *st) {
  int64_t v = (int64_t)(uintptr_t)omap_get(&s->xp->view_of_st, omap_ptr(st)) - 1;
  if (v >= 0 && s->lbs[v].base == base) return v;
  for (size_t i = 0; i < s->nlbs; i++)
    if (s->lbs[i].base == base && s->lbs[i].st == st) return (int64_t)i;
  return -1;
}

/* "Ops.RECIP" -> "RECIP" */
static const char *op_text(const Sched *s, Op op) {
  const char *name = op_name(op, s->v), *dot = name ? strchr(name, '.') : NULL;
  return dot ? dot + 1 : name ? name : "?";
}

static const char *shape_text(Sched *s, const Value *st) { return py_repr_tuple(s->a, v0_10_st_ndim(st), v0_10_st_shape(st)); }

/* Records b's reason unless b is in realizes already (the first insert decides). */
static void report(Sched *s, const OMap *realizes, const UOp *b, ExplainReason why, const char *detail) {
  int64_t lb = lb_of(s, b);
  if (lb < 0 || omap_has(realizes, omap_ptr(b))) return;
  explain_realize(s->ex, (uint32_t)lb, why, detail);
}

void v0_10_explain_meta(Sched *s, const OMap *realizes, const UOp *b, const UOp *to_store) {
  int64_t lb = lb_of(s, b);
  if (lb < 0) return;
  Op op = to_store->op;
  if (s->xp->is_out[lb]) report(s, realizes, b, WHY_OUTPUT, NULL);
  else if (op == OP_ASSIGN) report(s, realizes, b, WHY_ASSIGN, NULL);
  else if (op == OP_CONTIGUOUS)
    report(s, realizes, b, WHY_FORCED, s->lbs[lb].op == OP_CONTIGUOUS ? "CONTIGUOUS" : "forced_realize: to_uop stores it through a CONTIGUOUS");
  else report(s, realizes, b, WHY_META_OP, arena_printf(s->a, "%s: always realize meta ops", op_text(s, op)));
}

/* can_pad(base) was false: "<the first UnsafePad op among base.sparents> is",
 * named by the buffer whose op it is. */
static const char *unsafe_pad_culprit(Sched *s, const UOp *base) {
  int64_t padded = lb_of(s, base->src[0]);
  UStack stack = {0};
  Marks seen = {0};
  v0_10_marks_begin(&seen);
  v0_10_ustack_push(s, &stack, base);
  v0_10_marks_set(s, &seen, base);
  while (stack.n) {
    const UOp *u = stack.items[--stack.n];
    if (v0_10_is_scheduled(u)) {
      const UOp *op = v0_10_is_contiguous_base(s, u->src[1]) ? u->src[1]->src[0] : u->src[1];
      int64_t lb = lb_of(s, u->src[0]);
      if (!op_in(&s->groups, GROUP_UNSAFE_PAD, op->op)) {
      } else if (lb >= 0 && lb == padded) {
        return arena_printf(s->a, "its own op %s is", op_text(s, op->op));
      } else {
        return lb < 0 ? arena_printf(s->a, "a %s under the pad is", op_text(s, op->op))
                      : arena_printf(s->a, "node %lld %s under the pad is", (long long)lb, op_text(s, op->op));
      }
    } else if (op_in(&s->groups, GROUP_UNSAFE_PAD, u->op)) {
      return arena_printf(s->a, "a %s under the pad is", op_text(s, u->op));
    }
    for (uint32_t i = u->nsrc; i-- > 0;)
      if (v0_10_marks_set(s, &seen, u->src[i])) v0_10_ustack_push(s, &stack, u->src[i]);
  }
  return "an op under the pad is";
}

void v0_10_explain_view(Sched *s, const OMap *realizes, const UOp *b, const UOp *base, const UOp *view, ExplainReason why) {
  int64_t lb = lb_of(s, b);
  if (lb < 0 || omap_has(realizes, omap_ptr(b))) return;
  int64_t v = view_lb(s, lb, view->arg);
  const char *by = v >= 0 ? arena_printf(s->a, "view node %lld", (long long)v) : "a view";
  const char *detail;
  if (why == WHY_EXPAND)
    detail = arena_printf(s->a, "%s expands %s to %s", by, shape_text(s, base->arg), shape_text(s, view->arg));
  else
    detail = arena_printf(s->a, "%s pads it, and %s not 0 at 0 (can_pad: GroupOp.UnsafePad)", by, unsafe_pad_culprit(s, base));
  explain_realize(s->ex, (uint32_t)lb, why, detail);
}

void v0_10_explain_copy_src(Sched *s, const OMap *realizes, const UOp *b, const UOp *root) {
  report(s, realizes, b, WHY_COPY_SOURCE, arena_printf(s->a, "read by a %s", op_text(s, root->op)));
}

const char *v0_10_explain_node(Sched *s, const UOp *b) {
  int64_t lb = lb_of(s, b);
  const UOp *u = omap_get(&s->allbufs, omap_ptr(b));
  const UOp *op = u && v0_10_is_scheduled(u) ? (v0_10_is_contiguous_base(s, u->src[1]) ? u->src[1]->src[0] : u->src[1]) : NULL;
  return arena_printf(s->a, "node %lld %s", (long long)lb, op ? op_text(s, op->op) : "?");
}

void v0_10_explain_reduce(Sched *s, const OMap *realizes, const UOp *tr, const UOp *r, const char *why) {
  if (!why) why = "it has no realized consumer to fuse into";
  if (tr == r) report(s, realizes, tr, WHY_REDUCE, why);
  else report(s, realizes, tr, WHY_REDUCE_CHILD,
              arena_printf(s->a, "chased down from reduce %s, which could not fuse: %s", v0_10_explain_node(s, r), why));
}

/* The LazyBuffers each kernel computes: what break_sched leaves in a STORE,
 * i.e. everything from a realized buffer down to realized buffers, views and
 * CONSTs included (explicit stack over input.lazybuffers). */
void v0_10_explain_fuses(Sched *s, const OMap *realizes) {
  ExplainState *x = s->xp;
  uint32_t epoch = 0;
  int64_t *stack = arena_array(s->a, s->nlbs + 1, sizeof *stack);
  uint64_t key;
  void *val;
  for (size_t pos = 0; omap_next(realizes, &pos, &key, &val);) {
    int64_t out = lb_of(s, (const UOp *)(uintptr_t)key);
    if (out < 0) continue;
    size_t n = 0;
    epoch++;
    stack[n++] = out;
    x->mark[out] = epoch;
    while (n) {
      const InLB *lb = &s->lbs[stack[--n]];
      size_t nsrc = lb->base >= 0 ? 1 : lb->has_srcs ? lb->nsrcs : 0;
      for (size_t i = 0; i < nsrc; i++) {
        int64_t y = lb->base >= 0 ? lb->base : lb->srcs[i];
        const InLB *ly = &s->lbs[y];
        if (x->mark[y] == epoch) continue;
        x->mark[y] = epoch;
        if (ly->base < 0 && ly->realized) continue;
        if (ly->base < 0 && ly->op != OP_CONST && s->cache[y] && v0_10_is_scheduled(s->cache[y]) &&
            omap_has(realizes, omap_ptr(s->cache[y]->src[0])))
          continue;   /* a LOAD of a realized buffer */
        explain_fuse(s->ex, (uint32_t)y, (uint32_t)out);
        stack[n++] = y;
      }
    }
  }
}

int64_t v0_10_explain_lb_of_buffer(Sched *s, int64_t buf) {
  return buf >= 0 && (size_t)buf < s->nbufs ? s->xp->lb_of_buffer[buf] : -1;
}
