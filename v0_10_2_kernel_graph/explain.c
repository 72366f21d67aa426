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
#include "schedule.h"

typedef struct IdxList { uint32_t *items; size_t n, cap; } IdxList;

struct Explain102 {
  const Input *input;
  IdMap nodes;      /* simplified UOp -> IdxList*: the input nodes that became it, ascending */
  IdSet outs;       /* the bases of the SINK's sources */
};

void explain102_begin(KG *k, const Input *input) {
  k->ex = explain_active();
  if (!k->ex) return;
  k->xp = arena_alloc(k->a, sizeof *k->xp);
  memset(k->xp, 0, sizeof *k->xp);
  k->xp->input = input;
}

void explain102_tensor_map(KG *k, const OMap *tensor_map, const UOp *sink) {
  Explain102 *x = k->xp;
  const Input *in = x->input;
  for (size_t i = 0; i < in->nnodes; i++) {
    const UOp *u = in->nodes[i], *v;
    if ((size_t)(uintptr_t)idmap_get(&in->node_index, u) != i + 1) continue;   /* the same UOp again */
    if (!(v = omap_get(tensor_map, omap_ptr(u)))) continue;
    IdxList *l = idmap_get(&x->nodes, v);
    if (!l) {
      l = arena_alloc(k->a, sizeof *l);
      memset(l, 0, sizeof *l);
      idmap_put(k->a, &x->nodes, v, l);
    }
    if (l->n == l->cap) l->items = grow(k->a, l->items, l->n, &l->cap, sizeof *l->items);
    l->items[l->n++] = (uint32_t)i;
  }
  for (uint32_t i = 0; i < sink->nsrc; i++) idset_add(k->a, &x->outs, uop_base(sink->src[i]));
}

static const IdxList *nodes_of(KG *k, const UOp *v) { return idmap_get(&k->xp->nodes, v); }

/* "Ops.RECIP" -> "RECIP" */
static const char *op_text(Op op) {
  const char *name = op_name(op, TG_0_10_2), *dot = name ? strchr(name, '.') : NULL;
  return dot ? dot + 1 : name ? name : "?";
}

const char *explain102_name(KG *k, const UOp *u) {
  const IdxList *l = nodes_of(k, u);
  if (!l) return arena_printf(k->a, "a %s no input node became", op_text(u->op));
  return arena_printf(k->a, "node %u %s", l->items[0], op_text(u->op));
}

static const char *shape_text(KG *k, const UOp *u) {
  uint32_t n;
  const sint *shape = uop_shape(k, u, &n);
  char buf[1024];
  return arena_printf(k->a, "%s", fmt_tuple(&k->stc, buf, sizeof buf, n, shape));
}

void explain102_realize(KG *k, const IdSet *realizes, const UOp *u, ExplainReason why, const char *detail) {
  if (idset_has(realizes, u)) return;   /* a dict: the first insert decides */
  /* a SINK source is realized last, after a view or a COPY reading it: report it as the output it is */
  if ((why == WHY_EXPAND || why == WHY_UNSAFE_PAD || why == WHY_COPY_SOURCE) && idset_has(&k->xp->outs, u)) why = WHY_OUTPUT, detail = NULL;
  const IdxList *l = nodes_of(k, u);
  for (size_t i = 0; l && i < l->n; i++) explain_realize(k->ex, l->items[i], why, detail);
}

void explain102_always(KG *k, const IdSet *realizes, const UOp *tr) {
  if (tr->op == OP_ASSIGN) explain102_realize(k, realizes, tr, WHY_ASSIGN, NULL);
  else if (tr->op == OP_CONTIGUOUS) explain102_realize(k, realizes, tr, WHY_FORCED, "CONTIGUOUS");
  else explain102_realize(k, realizes, tr, WHY_META_OP, arena_printf(k->a, "%s: always realized", op_text(tr->op)));
}

/* can_pad(src) was false: the first UnsafePad op can_pad reaches (same walk). */
static const UOp *unsafe_pad_node(KG *k, const UOp *u, const IdSet *edges) {
  OMap cache;
  omap_init(&cache, k->a);
  size_t cap = 64, n = 0;
  const UOp **stack = arena_array(k->a, cap, sizeof *stack);
  stack[n++] = u;
  while (n) {
    const UOp *x = stack[--n];
    if (op_is_unsafe_pad(x->op)) return x;
    if (idset_has(edges, x) || omap_has(&cache, omap_ptr(x))) continue;
    omap_put(&cache, omap_ptr(x), (void *)1);
    for (uint32_t i = x->nsrc; i-- > 0;) {
      if (n == cap) stack = grow(k->a, stack, n, &cap, sizeof *stack);
      stack[n++] = uop_base(x->src[i]);
    }
  }
  return NULL;
}

void explain102_view(KG *k, const IdSet *realizes, const UOp *src, const UOp *view, ExplainReason why) {
  if (idset_has(realizes, src)) return;
  const IdxList *l = nodes_of(k, view);
  const char *by = l ? arena_printf(k->a, "node %u %s", l->items[0], op_text(k->xp->input->nodes[l->items[0]]->op)) : "a view";
  const char *detail;
  if (why == WHY_EXPAND) detail = arena_printf(k->a, "%s expands %s to %s", by, shape_text(k, src), shape_text(k, view));
  else {
    const UOp *bad = unsafe_pad_node(k, src, realizes);
    const char *what = !bad ? "an op under the pad is"
                       : bad == src ? arena_printf(k->a, "its own op %s is", op_text(src->op))
                                    : arena_printf(k->a, "%s under the pad is", explain102_name(k, bad));
    detail = arena_printf(k->a, "%s pads it, and %s not 0 at 0 (can_pad: GroupOp.UnsafePad)", by, what);
  }
  explain102_realize(k, realizes, src, why, detail);
}

void explain102_copy_src(KG *k, const IdSet *realizes, const UOp *tr, const UOp *copy) {
  explain102_realize(k, realizes, tr, WHY_COPY_SOURCE, arena_printf(k->a, "read by %s", explain102_name(k, copy)));
}

void explain102_reduce(KG *k, const IdSet *realizes, const UOp *tr, const UOp *r, const char *why) {
  if (!why) why = "it has no realized consumer to fuse into";
  if (tr == r) explain102_realize(k, realizes, tr, WHY_REDUCE, why);
  else explain102_realize(k, realizes, tr, WHY_REDUCE_CHILD,
                          arena_printf(k->a, "chased down from reduce %s, which could not fuse: %s", explain102_name(k, r), why));
}

/* What append_to_kernel pulls into the KERNEL of each realized x: its
 * sources down to BUFFERs and other realized UOps (explicit stack). */
void explain102_fuses(KG *k, const UOp *sink, const IdSet *realizes) {
  const UOp **topo;
  size_t n = kg_toposort(k, sink, &topo);
  const UOp **order = arena_array(k->a, n ? n : 1, sizeof *order), **stack = arena_array(k->a, n ? n : 1, sizeof *stack);
  memcpy(order, topo, n * sizeof *order);
  for (size_t i = 0; i < n; i++) {
    const UOp *x = order[i];
    const IdxList *into = idset_has(realizes, x) ? nodes_of(k, x) : NULL;
    if (!into) continue;
    size_t depth = 0;
    kg_marks_begin(k);
    kg_mark(k, x);
    stack[depth++] = x;
    while (depth) {
      const UOp *u = stack[--depth];
      for (uint32_t j = 0; j < u->nsrc; j++) {
        const UOp *s = u->src[j];
        if (kg_mark(k, s) || s->op == OP_BUFFER || s->op == OP_DEVICE || s->op == OP_UNIQUE || idset_has(realizes, s)) continue;
        const IdxList *l = nodes_of(k, s);
        for (size_t m = 0; l && m < l->n; m++) explain_fuse(k->ex, l->items[m], into->items[0]);
        stack[depth++] = s;
      }
    }
  }
}

/* The schedule in order: item i stores the realized UOp of ASSIGN assigns[i]'s KERNEL. */
void explain102_kernels(KG *k, const UOp *const *assigns, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const IdxList *l = nodes_of(k, kernel_arg_ast(k, assigns[i]->src[1]));
    for (size_t m = 0; l && m < l->n; m++) explain_kernel(k->ex, (uint32_t)i, l->items[m]);
  }
}
