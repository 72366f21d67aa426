/* explain.c — what generation 0.10.2 tells `tsched explain` (common/explain.h):
 * why each tensor UOp entered ctx.realizes, which input nodes each kernel
 * computes, and which input nodes each schedule item stores.
 *
 * The scheduler decides on the simplified graph (tensor_map's values);
 * explain names input.graph.nodes indices: every input node k is reported
 * for tensor_map[k]. The maps are built only while someone listens
 * (k->ex), so that scheduling without a listener pays one pointer test per
 * realize. */
#include <string.h>
#include "preload.h"

typedef struct IdxList { uint32_t *items; size_t n, cap; } IdxList;

struct Explain102 {
  const Input *input;
  IdMap nodes;      /* simplified UOp -> IdxList*: the input nodes that became it, ascending */
  IdSet outs;       /* the bases of the SINK's sources (0.10.1: their BUFFERs) */
  IdMap scheduled;  /* 0.10.1: BUFFER -> the VIEW(BUFFER, op) add_buffers made for it */
};

void v0_10_2_explain_begin(KG *k, const Input *input) {
  k->ex = explain_active();
  if (!k->ex) return;
  k->xp = arena_alloc(k->a, sizeof *k->xp);
  memset(k->xp, 0, sizeof *k->xp);
  k->xp->input = input;
}

void v0_10_2_explain_tensor_map(KG *k, const OMap *tensor_map, const UOp *sink) {
  Explain102 *x = k->xp;
  const Input *in = x->input;
  for (size_t i = 0; i < in->nnodes; i++) {
    const UOp *u = in->nodes[i], *v;
    if ((size_t)(uintptr_t)v0_10_2_idmap_get(&in->node_index, u) != i + 1) continue;   /* the same UOp again */
    if (!(v = omap_get(tensor_map, omap_ptr(u)))) continue;
    IdxList *l = v0_10_2_idmap_get(&x->nodes, v);
    if (!l) {
      l = arena_alloc(k->a, sizeof *l);
      memset(l, 0, sizeof *l);
      v0_10_2_idmap_put(k->a, &x->nodes, v, l);
    }
    if (l->n == l->cap) l->items = arena_grow(k->a, l->items, l->n, &l->cap, sizeof *l->items);
    l->items[l->n++] = (uint32_t)i;
  }
  for (uint32_t i = 0; i < sink->nsrc; i++) v0_10_2_idset_add(k->a, &x->outs, v0_10_2_uop_base(k, sink->src[i]));
}

static const IdxList *nodes_of(KG *k, const UOp *v) { return v0_10_2_idmap_get(&k->xp->nodes, v); }

/* "Ops.RECIP" -> "RECIP" */
static const char *op_text(const KG *k, Op op) {
  const char *name = op_name(op, k->cap->generation), *dot = name ? strchr(name, '.') : NULL;
  return dot ? dot + 1 : name ? name : "?";
}

const char *v0_10_2_explain_name(KG *k, const UOp *u) {
  const IdxList *l = nodes_of(k, u);
  if (!l) return arena_printf(k->a, "a %s no input node became", op_text(k, u->op));
  return arena_printf(k->a, "node %u %s", l->items[0], op_text(k, u->op));
}

static const char *shape_text(KG *k, const UOp *u) {
  uint32_t n;
  const sint *shape = v0_10_2_uop_shape(k, u, &n);
  char buf[1024];
  return arena_printf(k->a, "%s", v0_10_2_fmt_tuple(&k->stc, buf, sizeof buf, n, shape));
}

/* the input nodes of l realized for why; out: u is a SINK source (0.10.1: the BUFFER of one) */
static void report(KG *k, const IdxList *l, bool out, ExplainReason why, const char *detail) {
  /* a SINK source is realized last, after a view or a COPY reading it: report it as the output it is */
  if ((why == WHY_EXPAND || why == WHY_UNSAFE_PAD || why == WHY_COPY_SOURCE) && out) why = WHY_OUTPUT, detail = NULL;
  for (size_t i = 0; l && i < l->n; i++) explain_realize(k->ex, l->items[i], why, detail);
}

void v0_10_2_explain_realize(KG *k, const IdSet *realizes, const UOp *u, ExplainReason why, const char *detail) {
  if (v0_10_2_idset_has(realizes, u)) return;   /* a dict: the first insert decides */
  report(k, nodes_of(k, u), v0_10_2_idset_has(&k->xp->outs, u), why, detail);
}

/* the reason of "always realize ASSIGN/CONTIGUOUS/COPY/BUFFER_VIEW" for op */
static ExplainReason always_why(KG *k, Op op, const char **detail) {
  *detail = NULL;
  if (op == OP_ASSIGN) return WHY_ASSIGN;
  if (op == OP_CONTIGUOUS) return *detail = "CONTIGUOUS", WHY_FORCED;
  *detail = arena_printf(k->a, "%s: always realized", op_text(k, op));
  return WHY_META_OP;
}

void v0_10_2_explain_always(KG *k, const IdSet *realizes, const UOp *tr) {
  const char *detail;
  ExplainReason why = always_why(k, tr->op, &detail);
  v0_10_2_explain_realize(k, realizes, tr, why, detail);
}

static bool in_idset(const UOp *x, const void *edges) { return v0_10_2_idset_has(edges, x); }

/* can_pad(src) was false: the first UnsafePad op can_pad reaches (same walk, the same edges). */
static const UOp *unsafe_pad_node(KG *k, const UOp *u, bool (*is_edge)(const UOp *x, const void *edges), const void *edges) {
  OMap cache;
  omap_init(&cache, k->a);
  size_t cap = 64, n = 0;
  const UOp **stack = arena_array(k->a, cap, sizeof *stack);
  stack[n++] = u;
  while (n) {
    const UOp *x = stack[--n];
    if (op_in(&k->groups, GROUP_UNSAFE_PAD, x->op)) return x;
    if (is_edge(x, edges) || omap_has(&cache, omap_ptr(x))) continue;
    omap_put(&cache, omap_ptr(x), (void *)1);
    for (uint32_t i = x->nsrc; i-- > 0;) {
      if (n == cap) stack = arena_grow(k->a, stack, n, &cap, sizeof *stack);
      stack[n++] = v0_10_2_uop_base(k, x->src[i]);
    }
  }
  return NULL;
}

/* "node 42 EXPAND expands (2, 4) to (2, 3, 4)" / "node 5 PAD pads it, and ... is not 0 at 0" */
static const char *view_detail(KG *k, const UOp *src, const UOp *view, ExplainReason why, bool (*is_edge)(const UOp *x, const void *edges),
                               const void *edges) {
  const IdxList *l = nodes_of(k, view);
  const char *by =
      l ? arena_printf(k->a, "node %u %s", l->items[0], op_text(k, k->xp->input->nodes[l->items[0]]->op)) : "a view";
  const char *detail;
  if (why == WHY_EXPAND) detail = arena_printf(k->a, "%s expands %s to %s", by, shape_text(k, src), shape_text(k, view));
  else {
    const UOp *bad = unsafe_pad_node(k, src, is_edge, edges);
    const char *what = !bad ? "an op under the pad is"
                       : bad == src ? arena_printf(k->a, "its own op %s is", op_text(k, src->op))
                                    : arena_printf(k->a, "%s under the pad is", v0_10_2_explain_name(k, bad));
    detail = arena_printf(k->a, "%s pads it, and %s not 0 at 0 (can_pad: GroupOp.UnsafePad)", by, what);
  }
  return detail;
}

void v0_10_2_explain_view(KG *k, const IdSet *realizes, const UOp *src, const UOp *view, ExplainReason why) {
  if (v0_10_2_idset_has(realizes, src)) return;
  v0_10_2_explain_realize(k, realizes, src, why, view_detail(k, src, view, why, in_idset, realizes));
}

void v0_10_2_explain_copy_src(KG *k, const IdSet *realizes, const UOp *tr, const UOp *copy) {
  v0_10_2_explain_realize(
      k, realizes, tr, WHY_COPY_SOURCE, arena_printf(k->a, "read by %s", v0_10_2_explain_name(k, copy)));
}

const char *v0_10_2_explain_realized_child_why(
    KG *k, const char *node, const ST *st, int64_t rsize, const char *other) {
  if (!st_contiguous(st)) return arena_printf(k->a, "realized %s reads it through a non-contiguous view (can only fuse contiguous)", node);
  if (v0_10_2_st_size(st) != rsize)
    return arena_printf(k->a, "realized %s reads it through a view of size %lld, not %lld (can only fuse contiguous)", node,
                        (long long)v0_10_2_st_size(st), (long long)rsize);
  return arena_printf(k->a, "realized %s is already in the kernel of reduce %s (one reduce per kernel)", node, other ? other : "?");
}

const char *v0_10_2_explain_unfusable_child_why(KG *k, const char *child, const char *via, bool is_reduce) {
  const char *through = via ? arena_printf(k->a, " (through %s)", via) : "";
  if (is_reduce) return arena_printf(k->a, "%s reads it%s and is a reduce itself (one reduce per kernel)", child, through);
  return arena_printf(k->a, "%s reads it%s through different views (can only fuse contiguous)", child, through);
}

const char *v0_10_2_explain_several_outputs_why(KG *k, const OMap *group, const char *(*name)(KG *k, const UOp *u)) {
  const char *names = "";
  uint64_t key;
  size_t i = 0;
  for (size_t pos = 0; omap_next(group, &pos, &key, NULL); i++)
    names = arena_printf(k->a, "%s%s%s", names, i ? " and " : "", name(k, (const UOp *)(uintptr_t)key));
  return arena_printf(k->a, "its kernel would store %s (can only have one output)", names);
}

/* why reduce r (named rname) or tr, chased down from it, was realized */
static ExplainReason reduce_why(KG *k, bool chased, const char *rname, const char **why) {
  if (!*why) *why = "it has no realized consumer to fuse into";
  if (!chased) return WHY_REDUCE;
  *why = arena_printf(k->a, "chased down from reduce %s, which could not fuse: %s", rname, *why);
  return WHY_REDUCE_CHILD;
}

void v0_10_2_explain_reduce(KG *k, const IdSet *realizes, const UOp *tr, const UOp *r, const char *why) {
  ExplainReason reason = reduce_why(k, tr != r, v0_10_2_explain_name(k, r), &why);
  v0_10_2_explain_realize(k, realizes, tr, reason, why);
}

/* What append_to_kernel pulls into the KERNEL of each realized x: its
 * sources down to BUFFERs and other realized UOps (explicit stack). */
void v0_10_2_explain_fuses(KG *k, const UOp *sink, const IdSet *realizes) {
  const UOp **topo;
  size_t n = v0_10_2_toposort(k, sink, &topo);
  const UOp **order = arena_array(k->a, n ? n : 1, sizeof *order), **stack = arena_array(k->a, n ? n : 1, sizeof *stack);
  memcpy(order, topo, n * sizeof *order);
  for (size_t i = 0; i < n; i++) {
    const UOp *x = order[i];
    const IdxList *into = v0_10_2_idset_has(realizes, x) ? nodes_of(k, x) : NULL;
    if (!into) continue;
    size_t depth = 0;
    v0_10_2_marks_begin(k);
    v0_10_2_mark(k, x);
    stack[depth++] = x;
    while (depth) {
      const UOp *u = stack[--depth];
      for (uint32_t j = 0; j < u->nsrc; j++) {
        const UOp *s = u->src[j];
        if (v0_10_2_mark(k, s) || s->op == OP_BUFFER || s->op == OP_DEVICE || s->op == OP_UNIQUE ||
            v0_10_2_idset_has(realizes, s))
          continue;
        const IdxList *l = nodes_of(k, s);
        for (size_t m = 0; l && m < l->n; m++) explain_fuse(k->ex, l->items[m], into->items[0]);
        stack[depth++] = s;
      }
    }
  }
}

/* The schedule in order: item i stores the realized UOp of ASSIGN assigns[i]'s KERNEL. */
void v0_10_2_explain_kernels(KG *k, const UOp *const *assigns, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const IdxList *l = nodes_of(k, v0_10_2_kernel_arg_ast(k, assigns[i]->src[1]));
    for (size_t m = 0; l && m < l->n; m++) explain_kernel(k->ex, (uint32_t)i, l->items[m]);
  }
}

/* ---------------------------------------------------------------- 0.10.1 (feature preload_scheduler) */
/* Its scheduler decides on BUFFERs: add_buffers wraps each simplified op as
 * VIEW(BUFFER, op); every add_buffers result names the input nodes of the
 * tensor UOp it came from, every BUFFER those of its VIEW(BUFFER, op). */

static bool is_scheduled(const UOp *u) { return u->op == OP_VIEW && u->nsrc == 2 && u->src[0]->op == OP_BUFFER; }

void v0_10_2_explain_alias(KG *k, const UOp *u, const UOp *t) {
  Explain102 *x = k->xp;
  const IdxList *l = nodes_of(k, t);
  if (u == t || !l || t->op == OP_BUFFER) return;   /* a realized BUFFER's view is no part of a kernel */
  if (!v0_10_2_idmap_get(&x->nodes, u)) v0_10_2_idmap_put(k->a, &x->nodes, u, (void *)l);
  if (!is_scheduled(u)) return;
  if (!v0_10_2_idmap_get(&x->nodes, u->src[1]))
    v0_10_2_idmap_put(k->a, &x->nodes, u->src[1], (void *)l); /* the op it stores */
  if (!v0_10_2_idmap_get(&x->scheduled, u->src[0])) v0_10_2_idmap_put(k->a, &x->scheduled, u->src[0], (void *)u);
}

void v0_10_2_explain_preload_outs(KG *k, const UOp *sink) {
  for (uint32_t i = 0; i < sink->nsrc; i++) {
    const UOp *b = v0_10_2_uop_base(k, sink->src[i]);
    if (is_scheduled(b)) v0_10_2_idset_add(k->a, &k->xp->outs, b->src[0]);
  }
}

static const IdxList *nodes_of_buffer(KG *k, const UOp *b) {
  const UOp *s = b ? v0_10_2_idmap_get(&k->xp->scheduled, b) : NULL;
  return s ? nodes_of(k, s) : NULL;
}

const char *v0_10_2_explain_buffer_name(KG *k, const UOp *b) {
  const UOp *s = v0_10_2_idmap_get(&k->xp->scheduled, b);
  return s ? v0_10_2_explain_name(k, s->src[1]) : arena_printf(k->a, "a BUFFER no input node became");
}

void v0_10_2_explain_realize_preload(
    KG *k, const ScheduleContext *ctx, const UOp *b, ExplainReason why, const char *detail) {
  if (omap_has(&ctx->realizes, omap_ptr(b))) return;   /* a dict: the first insert decides */
  report(k, nodes_of_buffer(k, b), v0_10_2_idset_has(&k->xp->outs, b), why, detail);
}

void v0_10_2_explain_always_preload(KG *k, const ScheduleContext *ctx, const UOp *b, Op op) {
  const char *detail;
  ExplainReason why = always_why(k, op, &detail);
  v0_10_2_explain_realize_preload(k, ctx, b, why, detail);
}

/* can_pad's edges in 0.10.1: a VIEW(BUFFER, op) of a realized BUFFER */
static bool is_realized_view(const UOp *x, const void *realizes) { return x->nsrc == 2 && omap_has(realizes, omap_ptr(x->src[0])); }

void v0_10_2_explain_view_preload(
    KG *k, const ScheduleContext *ctx, const UOp *b, const UOp *src, const UOp *view, ExplainReason why) {
  if (omap_has(&ctx->realizes, omap_ptr(b))) return;
  v0_10_2_explain_realize_preload(k, ctx, b, why, view_detail(k, src, view, why, is_realized_view, &ctx->realizes));
}

void v0_10_2_explain_copy_src_preload(KG *k, const ScheduleContext *ctx, const UOp *b, const UOp *copy) {
  v0_10_2_explain_realize_preload(
      k, ctx, b, WHY_COPY_SOURCE, arena_printf(k->a, "read by %s", v0_10_2_explain_name(k, copy)));
}

void v0_10_2_explain_reduce_preload(KG *k, const ScheduleContext *ctx, const UOp *tr, const UOp *r, const char *why) {
  ExplainReason reason = reduce_why(k, tr != r, v0_10_2_explain_buffer_name(k, r), &why);
  v0_10_2_explain_realize_preload(k, ctx, tr, reason, why);
}

/* What store_or_fuse leaves in the STORE of each realized BUFFER: the
 * sources of its op down to BUFFERs and realized VIEW(BUFFER, op)s. */
void v0_10_2_explain_fuses_preload(KG *k, const ScheduleContext *ctx) {
  Arena *tmp = arena_scratch_begin(&k->scratch);
  size_t cap = 64;
  const UOp **stack = arena_array(tmp, cap, sizeof *stack);
  uint64_t key;
  for (size_t pos = 0; omap_next(&ctx->realizes, &pos, &key, NULL);) {
    const IdxList *into = nodes_of_buffer(k, (const UOp *)(uintptr_t)key);
    const UOp *s = v0_10_2_idmap_get(&k->xp->scheduled, (const UOp *)(uintptr_t)key);
    if (!into || !s) continue;
    size_t depth = 0;
    v0_10_2_marks_begin(k);
    v0_10_2_mark(k, s);
    stack[depth++] = s->src[1];
    while (depth) {
      const UOp *u = stack[--depth];
      for (uint32_t j = 0; j < u->nsrc; j++) {
        const UOp *c = u->src[j];
        if (v0_10_2_mark(k, c) || c->op == OP_BUFFER || c->op == OP_DEVICE) continue;
        if (is_scheduled(c) && omap_has(&ctx->realizes, omap_ptr(c->src[0]))) continue;
        const IdxList *l = nodes_of(k, c);
        for (size_t m = 0; l && m < l->n; m++) explain_fuse(k->ex, l->items[m], into->items[0]);
        if (depth == cap) stack = arena_grow(tmp, stack, depth, &cap, sizeof *stack);
        stack[depth++] = is_scheduled(c) ? c->src[1] : c;
      }
    }
  }
  arena_scratch_end(&k->scratch, tmp);
}

/* The schedule in order: item i stores the BUFFERs of its output_idxs */
void v0_10_2_explain_kernels_preload(KG *k, const SchedResult *res) {
  Arena *tmp = arena_scratch_begin(&k->scratch);
  OMap buf_uops;   /* Buf -> its first BUFFER UOp */
  omap_init(&buf_uops, tmp);
  uint64_t key;
  void *val;
  for (size_t pos = 0; omap_next(&k->buffers, &pos, &key, &val);)
    if (!omap_has(&buf_uops, omap_ptr(val))) omap_put(&buf_uops, omap_ptr(val), (void *)(uintptr_t)key);
  for (size_t i = 0; i < res->n; i++) {
    const ScheduleItem *si = &res->items[i];
    for (uint32_t j = 0; j < si->nbufs; j++) {
      if (!v0_10_2_is_output_idx(si, j)) continue;
      const IdxList *l = nodes_of_buffer(k, omap_get(&buf_uops, omap_ptr(si->bufs[j])));
      for (size_t m = 0; l && m < l->n; m++) explain_kernel(k->ex, (uint32_t)i, l->items[m]);
    }
  }
  arena_scratch_end(&k->scratch, tmp);
}
