/* ast.c — from one kernel's STOREs to its AST (engine/schedule.py
 * full_ast_rewrite):
 *   1. `lazy` (+ `multioutput` for several outputs) folds the small graph:
 *      VIEW(BUFFER, op) -> op, VIEW(BUFFER) -> PRELOAD, CONTIGUOUS -> its
 *      source, and a LOAD of another output of the same kernel -> its value;
 *   2. the "cycle detected in kernel" check on PRELOAD/LOAD of assign targets;
 *   3. `view_left` pushes VIEWs up to the loads, `view_right` pushes the
 *      remaining ones (on reduces) down to the stores (swizzle_r,
 *      push_swizzle_down_through_reduce / _elementwise, merge_double_reduce);
 *   4. the augmented-assign contiguity check;
 *   5. `to_si` simplifies the ShapeTrackers, turns PRELOAD into LOAD and
 *      lifts a meta op to the root, `append_bufs` numbers the BUFFERs as
 *      DEFINE_GLOBALs. */
#include <string.h>
#include "pipeline.h"

/* ======== lazy, multioutput ======== */

/* (UPatSrc(), lambda ctx,to_store,**kwargs: to_store) */
static const UOp *rule_lazy_src(void *ctx, const UOp *u) {
  (void)ctx;
  return u->nsrc == 2 ? u->src[1] : NULL;
}

/* (UPat(Ops.BUFFER, name="b").view(name="view"), lambda ctx,b,view: UOp(Ops.PRELOAD, view.dtype, (b, view.st.to_uop()))) */
static const UOp *rule_lazy_preload(void *ctx, const UOp *view) {
  Sched *s = *(Sched **)ctx;
  if (view->nsrc != 1 || view->src[0]->op != OP_BUFFER) return NULL;
  return uop2(s->in, OP_PRELOAD, view->dtype, s->none, view->src[0], v0_10_st_to_uop(s, view->arg));
}

/* (UPat(Ops.CONTIGUOUS, src=(UPat.var("x"),)), lambda ctx,x: x) */
static const UOp *rule_lazy_contiguous(void *ctx, const UOp *u) {
  (void)ctx;
  return u->nsrc == 1 ? u->src[0] : NULL;
}

typedef struct LazyCtx {
  Sched *s;          /* first member: the lazy rules read it */
  OMap stores;       /* {x.buf_uop: x.src[2] for x in pre.src} (ScheduleItemContext.sinked) */
  SiCtx *si;         /* metadata, assign_adj (2ca41d6) */
} LazyCtx;

/* multioutput = PatternMatcher([(UPat.load(UPat.var("b"), UPat()), lambda ctx,b: ctx.get(b)),]) */
static const UOp *rule_multioutput(void *ctx, const UOp *u) {
  LazyCtx *c = ctx;
  return u->nsrc == 2 ? omap_get(&c->stores, omap_ptr(u->src[0])) : NULL;
}

static const Rule lazy_rules[] = {
  {{OP_VIEW}, rule_lazy_src, "UPatSrc() -> to_store", {{[TG_0_10_0] = {V0_10_SCHEDULE_PY, 198}}}},
  {{OP_VIEW}, rule_lazy_preload, "VIEW(BUFFER) -> PRELOAD", {{[TG_0_10_0] = {V0_10_SCHEDULE_PY, 199}}}},
  {{OP_CONTIGUOUS}, rule_lazy_contiguous, "CONTIGUOUS(x) -> x", {{[TG_0_10_0] = {V0_10_SCHEDULE_PY, 200}}}},
};
static const PatternMatcher lazy_pm = {lazy_rules, 3};
static const Rule multioutput_rules[] = {{{OP_LOAD}, rule_multioutput, "LOAD of an output -> its value", {{[TG_0_10_0] = {V0_10_SCHEDULE_PY, 203}, [TG_0_10_0_2CA41D6] = {V0_10_SCHEDULE_PY, 188}}}}};
static const PatternMatcher multioutput_pm = {multioutput_rules, 1};

/* ---- lazy with metadata_of_ops and assign_adj (2ca41d6) ---- */

/* (UPat(tuple(Ops), name="x"), lambda ctx,x: ctx.metadata.add(m) if (m:=ctx.ops_metadata.get(x)) is not None else None) */
static const UOp *add_ops_metadata(void *ctx, const UOp *x) {
  LazyCtx *c = ctx;
  const Value *m = v0_10_idcache_get(&c->s->ops_metadata, x);
  if (m) omap_put(&c->si->metadata, omap_ptr(m), (void *)1);
  return NULL;
}

/* (UPat(Ops.BUFFER, name="b").view(name="v"), lambda ctx,b,v: UOp(Ops.PRELOAD if b in ctx.assigns else Ops.LOAD, v.dtype, (b, v.st.to_uop()))) */
static const UOp *load_or_preload(void *ctx, const UOp *v) {
  Sched *s = *(Sched **)ctx;
  if (v->nsrc != 1 || v->src[0]->op != OP_BUFFER) return NULL;
  Op op = omap_has(&s->assigns, omap_ptr(v->src[0])) ? OP_PRELOAD : OP_LOAD;
  return uop2(s->in, op, v->dtype, s->none, v->src[0], v0_10_st_to_uop(s, v->arg));
}

static const Rule lazy_ops_rules[] = {
  {{OP_NONE}, add_ops_metadata, "ctx.metadata.add(ctx.ops_metadata[x])", {{[TG_0_10_0_2CA41D6] = {V0_10_SCHEDULE_PY, 183}}}},
  {{OP_VIEW}, load_or_preload, "VIEW(BUFFER) -> PRELOAD or LOAD", {{[TG_0_10_0_2CA41D6] = {V0_10_SCHEDULE_PY, 184}}}},
  {{OP_CONTIGUOUS}, rule_lazy_contiguous, "CONTIGUOUS(x) -> x", {{[TG_0_10_0_2CA41D6] = {V0_10_SCHEDULE_PY, 185}}}},
};
static const PatternMatcher lazy_ops_pm = {lazy_ops_rules, 3};

/* ctx.assign_adj.setdefault(b, []).append(x); the list */
static AdjLoads *assign_adj_append(Sched *s, SiCtx *si, const UOp *b, const UOp *x) {
  AdjLoads *l = omap_get(&si->assign_adj, omap_ptr(b));
  if (!l) {
    l = arena_alloc(s->tmp, sizeof *l);
    omap_put(&si->assign_adj, omap_ptr(b), l);
  }
  if (l->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 4;
    const UOp **bigger = arena_array(s->tmp, cap, sizeof *bigger);
    if (l->n) memcpy(bigger, l->items, l->n * sizeof *bigger);
    l->items = bigger, l->cap = cap;
  }
  l->items[l->n++] = x;
  if (x->op != l->items[0]->op) l->mixed = true;
  if (x->op == OP_PRELOAD) l->preload = true;
  return l;
}

/* append_load = PatternMatcher([(UPat.load(UPat.var("b"), UPat(), name="x"),
 *   lambda ctx,b,x: ctx.assign_adj.setdefault(b, []).append(x) if b in ctx.assigns else None)]) */
static const UOp *append_load(void *ctx, const UOp *x) {
  LazyCtx *c = ctx;
  if (x->nsrc == 2 && omap_has(&c->s->assigns, omap_ptr(x->src[0]))) assign_adj_append(c->s, c->si, x->src[0], x);
  return NULL;
}
static const Rule append_load_rules[] = {{{OP_LOAD}, append_load, "append_load", {{[TG_0_10_0_2CA41D6] = {V0_10_SCHEDULE_PY, 190}}}}};
static const PatternMatcher append_load_pm = {append_load_rules, 1};

/* assert cyclic dependency: among PRELOADs and LOADs of assigned buffers (in
 * sparents order), a run of one buffer must not mix the two ops */
static void check_cycle(Sched *s, const UOp *sink, const PreFacts *facts) {
  if (!facts->loads_assigned) return; /* PRELOADs only: no run mixes */
  const UOp **parents;
  size_t n = v0_10_sparents(s, sink, &parents);
  const UOp *run_buf = NULL;
  Op run_op = OP_NONE;
  bool mixed = false;
  for (size_t i = 0; i < n && !mixed; i++) {
    const UOp *x = parents[i];
    if (x->op != OP_PRELOAD && x->op != OP_LOAD) continue;
    const UOp *b = v0_10_buf_uop(s, x);
    if (!omap_has(&s->assigns, omap_ptr(b))) continue;
    if (b != run_buf) run_buf = b, run_op = x->op;
    else if (x->op != run_op) mixed = true;
  }
  if (mixed)
    error_raise("RuntimeError", "cycle detected in kernel.\nhelp: use .contiguous() to break the part loading pre-assign %s into a different kernel.",
                v0_10_uop_repr(s, run_buf));
}

/* ======== view_left / view_right ======== */

/* merge_views: (UPat(Ops.VIEW, src=(UPat(Ops.VIEW, name="s0"),), name="s1"), lambda s0,s1: s0.replace(arg=s0.st+s1.st)) */
static const UOp *rule_merge_views(void *ctx, const UOp *s1) {
  Sched *s = *(Sched **)ctx;
  if (s1->nsrc != 1 || s1->src[0]->op != OP_VIEW) return NULL;
  const UOp *s0 = s1->src[0];
  return uop_new(s->in, OP_VIEW, s0->dtype, v0_10_st_add(s, s0->arg, s1->arg), s0->nsrc, s0->src);
}

static bool pushable_elementwise(const Sched *s, Op op) {
  return op_in(&s->groups, GROUP_ALU, op) || op == OP_CAST || op == OP_BITCAST || op == OP_ASSIGN;
}

/* (UPat({*GroupOp.ALU, Ops.CAST, Ops.BITCAST, Ops.ASSIGN}, name="e").view(name="v"),
 *  lambda e,v: e.replace(src=tuple(s.view(v.st) for s in e.src))) — VIEW before elementwise ops */
static const UOp *rule_view_before_elementwise(void *ctx, const UOp *v) {
  Sched *s = *(Sched **)ctx;
  if (v->nsrc != 1 || !pushable_elementwise(s, v->src[0]->op)) return NULL;
  const UOp *e = v->src[0];
  const UOp **src = arena_array(s->tmp, e->nsrc + 1, sizeof *src);
  for (uint32_t i = 0; i < e->nsrc; i++)
    src[i] = v0_10_uop_view(s, e->src[i], v->arg);
  return v0_10_uop_replace(s, e, e->nsrc, src);
}

/* (UPat(GroupOp.Buffer, name="b").view(name="v"),
 *  lambda b,v: b.replace(src=tuple((s.arg+v.arg).to_uop() if s.op is Ops.VIEW else s for s in b.src)))
 * — early merge VIEW buffer ops */
static const UOp *rule_merge_buffer_view(void *ctx, const UOp *v) {
  Sched *s = *(Sched **)ctx;
  if (v->nsrc != 1 || !op_in(&s->groups, GROUP_BUFFER, v->src[0]->op)) return NULL;
  const UOp *b = v->src[0];
  const UOp **src = arena_array(s->tmp, b->nsrc + 1, sizeof *src);
  for (uint32_t i = 0; i < b->nsrc; i++) {
    src[i] = b->src[i];
    if (src[i]->op != OP_VIEW) continue;
    src[i] = v0_10_st_to_uop(s, v0_10_st_add(s, src[i]->arg, v->arg));
  }
  return v0_10_uop_replace(s, b, b->nsrc, src);
}

static const Rule merge_views_rules[] = {{{OP_VIEW}, rule_merge_views, "merge_views", {{[TG_0_10_0] = {V0_10_SCHEDULE_PY, 139}, [TG_0_10_0_2CA41D6] = {V0_10_OPS_PY, 1199}}}}};
static const PatternMatcher merge_views_pm = {merge_views_rules, 1};
static const Rule view_left_rules[] = {
  {{OP_VIEW}, rule_view_before_elementwise, "VIEW before elementwise ops", {{[TG_0_10_0] = {V0_10_SCHEDULE_PY, 144}, [TG_0_10_0_2CA41D6] = {V0_10_OPS_PY, 1204}}}},
  {{OP_VIEW}, rule_merge_buffer_view, "early merge VIEW buffer ops", {{[TG_0_10_0] = {V0_10_SCHEDULE_PY, 146}, [TG_0_10_0_2CA41D6] = {V0_10_OPS_PY, 1206}}}},
};
static const PatternMatcher view_left_pm = {view_left_rules, 2};

/* rc, one of the shared contexts of the movement-op passes (see Sched.view_left_rc), set up on first use;
 * never tracked (apply_swizzle rewrites under Context(TRACK_MATCH_STATS=0)) */
static RewriteContext *shared_rc(Sched *s, RewriteContext *rc, const PatternMatcher *const *pms) {
  if (!rc->memo) {
    s->rc_self = s;
    rewrite_context_init(rc, s->in, pms, 2, &s->rc_self);
    rc->trace = NULL;
  }
  return rc;
}

/* graph_rewrite(sink, pms) of a movement-op pass called at `at`: in the shared context, or, while the
 * steps are traced, in a context of its own as in tinygrad (whose rules fire again on the nodes an earlier
 * kernel's rewrite saw) */
static const UOp *movement_rewrite(Sched *s, const PyLoc *at, RewriteContext *shared, const PatternMatcher *const *pms,
                                   const UOp *sink) {
  if (!s->in->trace) return top_down_rewrite(shared_rc(s, shared, pms), sink);
  s->rc_self = s;
  return graph_rewrite_at(at, s->in, sink, pms, 2, &s->rc_self, false);
}

static const PatternMatcher *const view_left_pms[2] = {&merge_views_pm, &view_left_pm};

/* apply_swizzle(u, arg): graph_rewrite(u.view(arg), merge_views+view_left), in the shared context */
static const UOp *apply_swizzle(Sched *s, const UOp *u, const Value *st) {
  return top_down_rewrite(shared_rc(s, &s->view_left_rc, view_left_pms), v0_10_uop_view(s, u, st));
}

/* permute_reduce(input_st, axis): the permutation moving the reduce axes to
 * the end; returns tmp, and rshape = tmp.shape[-len(axis):] in rshape, nr */
static const Value *permute_reduce(Sched *s, const Value *input_st, const Value *axis, const sint **rshape, int *nr) {
  int n = v0_10_st_ndim(input_st), k = 0;
  size_t na = axis->u.tuple.n;
  int64_t *perm = arena_array(s->tmp, (size_t)n + na + 1, sizeof *perm);
  for (int i = 0; i < n; i++) {
    bool reduced = false;
    for (size_t j = 0; j < na; j++) reduced |= axis->u.tuple.items[j]->u.i == i;
    if (!reduced) perm[k++] = i;
  }
  for (size_t j = 0; j < na; j++) perm[k++] = axis->u.tuple.items[j]->u.i;
  const Value *tmp = v0_10_st_permute(s, input_st, k, perm);
  int tn = v0_10_st_ndim(tmp);
  *nr = na == 0 ? tn : (int)na < tn ? (int)na : tn; /* tmp.shape[-len(axis):] */
  *rshape = v0_10_st_shape(tmp) + (tn - *nr);
  return tmp;
}

/* the view v extended by the reduce dimensions rshape (swizzle_r's `nv`) */
static const View *extend_view(Sched *s, const View *v, int nr, const sint *rshape) {
  int n = v->ndim + nr;
  sint *shape = arena_array(s->tmp, (size_t)n + 1, sizeof *shape), *strides = arena_array(s->tmp, (size_t)n + 1, sizeof *strides);
  sint prshape = sint_prod(nr, rshape);
  for (int i = 0; i < v->ndim; i++) shape[i] = v->shape[i], strides[i] = sint_mul(v->strides[i], prshape);
  for (int i = 0; i < nr; i++) shape[v->ndim + i] = rshape[i];
  strides_for_shape(nr, rshape, strides + v->ndim);
  SPair *mask = NULL;
  if (v->mask) {
    mask = arena_array(s->tmp, (size_t)n + 1, sizeof *mask);
    memcpy(mask, v->mask, (size_t)v->ndim * sizeof *mask);
    for (int i = 0; i < nr; i++) mask[v->ndim + i] = (SPair){sint_int(0), rshape[i]};
  }
  return v0_10_view_create(s, n, shape, strides, sint_mul(v->offset, prshape), mask);
}

/* swizzle_r(r, src, st): a non contiguous VIEW on a reduce becomes a view of its input */
static const UOp *swizzle_r(Sched *s, const UOp *r, const UOp *src, const Value *st) {
  const Value *src_st = v0_10_uop_st(s, src), *axis = v0_10_axis_arg(r);
  if (!src_st) return NULL;
  const sint *rshape;
  int nr;
  const Value *tmp = permute_reduce(s, v0_10_st_from_shape_of(s, src_st), axis, &rshape, &nr);
  int nv = v0_10_st_nviews(st);
  const View **views = arena_array(s->tmp, (size_t)nv + 1, sizeof *views);
  for (int i = 0; i < nv; i++) views[i] = extend_view(s, v0_10_st_view(st, i), nr, rshape);
  const Value *new_input_st = v0_10_st_add(s, tmp, v0_10_st_from_views(s, nv, views));
  /* update input_st and axis: 0.10.0 takes new_rshape from permute_reduce(new_input_st, r.axis_arg) and
   * new_axis = tuple(range(len(new_input_st.shape)-len(new_rshape), len(new_input_st.shape)));
   * swizzle_r_axis_after_shape: new_axis = tuple(range(len(st.shape), len(st.shape) + len(r.axis_arg))) */
  int first, nnr;
  if (s->f->swizzle_r_axis_after_shape) {
    first = v0_10_st_ndim(st), nnr = (int)axis->u.tuple.n;
  } else {
    const sint *new_rshape;
    permute_reduce(s, new_input_st, axis, &new_rshape, &nnr);
    first = v0_10_st_ndim(new_input_st) - nnr;
  }
  const Value **new_axis = arena_array(s->tmp, (size_t)nnr + 1, sizeof *new_axis);
  for (int i = 0; i < nnr; i++) new_axis[i] = v_int(s->in, first + i);
  const UOp *x = apply_swizzle(s, src, new_input_st);
  const Value *out = v0_10_st_from_shape_of(s, st);
  return v0_10_uop_view(s, v0_10_uop_r(s, x, r->arg->u.tuple.items[0], v_tuple(s->in, (size_t)nnr, new_axis)), out);
}

/* (UPat(Ops.STORE, src=(UPat.var("b"), UPat.var("st"), UPat(Ops.ASSIGN, name="a"))),
 *  lambda a,b,st: UOp.store(b, (a.arg[0]+st.arg).to_uop(), a.replace(arg=())) if a.arg else None) — ASSIGN can override st */
static const UOp *rule_assign_st(void *ctx, const UOp *u) {
  Sched *s = *(Sched **)ctx;
  if (u->nsrc != 3 || u->src[2]->op != OP_ASSIGN) return NULL;
  const UOp *a = u->src[2], *st_node = u->src[1];
  if (a->arg->kind != V_TUPLE || a->arg->u.tuple.n == 0) return NULL;
  const Value *st = v0_10_st_add(s, a->arg->u.tuple.items[0], st_node->arg);
  const UOp *na = uop_new(s->in, a->op, a->dtype, v_tuple(s->in, 0, NULL), a->nsrc, a->src);
  return uop3(s->in, OP_STORE, s->void_dt, s->none, u->src[0], v0_10_st_to_uop(s, st), na);
}

/* (UPat(Ops.REDUCE_AXIS, src=UPat.var("src"), name="r").view(name="v"),
 *  lambda v,r,src: None if v.st.contiguous else swizzle_r(r, src, v.st)) — non contiguous VIEW on a reduce creates a new VIEW */
static const UOp *rule_swizzle_reduce(void *ctx, const UOp *v) {
  Sched *s = *(Sched **)ctx;
  if (v->nsrc != 1 || v->src[0]->op != OP_REDUCE_AXIS || v->src[0]->nsrc != 1) return NULL;
  if (v0_10_st_contiguous(v->arg)) return NULL;
  return swizzle_r(s, v->src[0], v->src[0]->src[0], v->arg);
}

/* push_swizzle_down_through_reduce(root, swizzle, src) — push a VIEW down to STORE, through a reduce (ONLY reshapes) */
static const UOp *push_swizzle_down_through_reduce(void *ctx, const UOp *root) {
  Sched *s = *(Sched **)ctx;
  if (root->nsrc != 1 || root->src[0]->op != OP_VIEW || root->src[0]->nsrc != 1) return NULL;
  const UOp *swizzle = root->src[0], *src = swizzle->src[0];
  const Value *swizzle_st = swizzle->arg, *src_st = v0_10_uop_st(s, src);
  if (!src_st) return NULL;
  if (!v0_10_st_contiguous(swizzle_st)) error_raise("AssertionError", "can't push a non contiguous VIEW down to STORE");
  int n = v0_10_st_ndim(swizzle_st), ns = v0_10_st_ndim(src_st);
  if (sint_ne(sint_prod(n, v0_10_st_shape(swizzle_st)), sint_prod(ns, v0_10_st_shape(src_st))))
    error_raise("AssertionError", "can't push expands down to STORE");
  sint *output_shape = arena_array(s->tmp, (size_t)n + 1, sizeof *output_shape);
  memcpy(output_shape, v0_10_st_shape(swizzle_st), (size_t)n * sizeof *output_shape);
  const Value *axis = v0_10_axis_arg(root);
  for (size_t j = 0; j < axis->u.tuple.n; j++) {
    int64_t ax = axis->u.tuple.items[j]->u.i;
    if (ax >= 0 && ax < n) output_shape[ax] = sint_int(1);
  }
  const Value **new_axis = arena_array(s->tmp, (size_t)n + 1, sizeof *new_axis);
  size_t k = 0;
  for (int i = 0; i < n && i < ns; i++) /* `if s != u`: UOp.__bool__ of the comparison when symbolic */
    if (sint_cmp(SINT_NE, v0_10_st_shape(src_st)[i], output_shape[i])) new_axis[k++] = v_int(s->in, i);
  const Value *out = v0_10_st_from_reduced_shape(s, swizzle_st, axis); /* ShapeTracker.from_shape(output_shape) */
  return v0_10_uop_view(s, v0_10_uop_r(s, src, root->arg->u.tuple.items[0], v_tuple(s->in, k, new_axis)), out);
}

static const char *shape_pair_repr(Sched *s, const Value *a, const Value *b) {
  return arena_printf(s->a, "(%s, %s)", py_repr_tuple(s->a, v0_10_st_ndim(a), v0_10_st_shape(a)), py_repr_tuple(s->a, v0_10_st_ndim(b), v0_10_st_shape(b)));
}

/* AssertionError(f"swizzles must have the same size {swizzle_shapes}") */
_Noreturn static void swizzle_size_error(Sched *s, const UOp *root) {
  const char *shapes = "[";
  bool first = true;
  for (uint32_t i = 0; i < root->nsrc; i++) {
    const UOp *x = root->src[i];
    if (v0_10_uop_base(s, x) == x) continue;
    shapes = arena_printf(s->a, "%s%s%s", shapes, first ? "" : ", ", shape_pair_repr(s, x->arg, v0_10_uop_st(s, x->src[0])));
    first = false;
  }
  error_raise("AssertionError", "swizzles must have the same size %s]", shapes);
}

static sint st_prod(const Value *st) { return sint_prod(v0_10_st_ndim(st), v0_10_st_shape(st)); }

/* (UPat((*GroupOp.ALU, Ops.CAST, Ops.BITCAST, Ops.ASSIGN, Ops.CONTIGUOUS, Ops.STORE), name="root"), push_swizzle_down_through_elementwise)
 * — push VIEW(s) down to STORE, through an elementwise op (ONLY reshapes) */
static const UOp *push_swizzle_down_through_elementwise(void *ctx, const UOp *root) {
  Sched *s = *(Sched **)ctx;
  const Value *first_st = NULL, *first_in = NULL;
  for (uint32_t i = 0; i < root->nsrc; i++) {
    const UOp *x = root->src[i];
    if (v0_10_uop_base(s, x) == x) continue;
    const Value *xs = x->arg, *ys = v0_10_uop_st(s, x->src[0]);
    if (!ys) error_raise("AssertionError", "%s", ""); /* unwrap(x.src[0].st) */
    if (!first_st) { first_st = xs, first_in = ys; continue; }
    if (!v0_10_st_same_shape(xs, first_st) || sint_ne(st_prod(ys), st_prod(first_in))) swizzle_size_error(s, root);
  }
  if (!first_st) return NULL;
  const Value *input_st = v0_10_st_from_shape_of(s, first_in);
  const UOp **src = arena_array(s->tmp, root->nsrc + 1, sizeof *src);
  for (uint32_t i = 0; i < root->nsrc; i++) {
    const UOp *x = root->src[i];
    src[i] = v0_10_uop_base(s, x) != x ? x->src[0] : apply_swizzle(s, x, input_st);
  }
  const UOp *ret = v0_10_uop_replace(s, root, root->nsrc, src);
  if (ret->op == OP_STORE) return ret;
  return v0_10_uop_view(s, ret, v0_10_st_from_shape_of(s, first_st));
}

/* any(x.op is Ops.REDUCE_AXIS for x in u.parents) */
static bool has_reduce_parent(Sched *s, const UOp *u) {
  const UOp **parents;
  size_t n = v0_10_sparents(s, u, &parents);
  for (size_t i = 0; i + 1 < n; i++)
    if (parents[i]->op == OP_REDUCE_AXIS) return true;
  return false;
}

/* (UPat(Ops.REDUCE_AXIS, src=(UPat(Ops.REDUCE_AXIS, name="first_reduce"),), name="root"), merge_double_reduce) */
static const UOp *merge_double_reduce(void *ctx, const UOp *root) {
  Sched *s = *(Sched **)ctx;
  if (root->nsrc != 1 || root->src[0]->op != OP_REDUCE_AXIS) return NULL;
  const UOp *first = root->src[0];
  if (root->arg->u.tuple.items[0] != first->arg->u.tuple.items[0])
    error_raise("AssertionError", "can't merge reduceops with different alu");
  if (has_reduce_parent(s, first)) error_raise("AssertionError", "can't merge more than two reduceops at a time");
  const Value *a = v0_10_axis_arg(root), *b = v0_10_axis_arg(first);
  const Value **items = arena_array(s->tmp, a->u.tuple.n + b->u.tuple.n + 1, sizeof *items);
  memcpy(items, a->u.tuple.items, a->u.tuple.n * sizeof *items);
  memcpy(items + a->u.tuple.n, b->u.tuple.items, b->u.tuple.n * sizeof *items);
  return v0_10_uop_r(s, first->src[0], first->arg->u.tuple.items[0], v_tuple(s->in, a->u.tuple.n + b->u.tuple.n, items));
}

static const Rule view_right_rules[] = {
  {{OP_STORE}, rule_assign_st, "ASSIGN can override st", {{[TG_0_10_0] = {V0_10_SCHEDULE_PY, 152}, [TG_0_10_0_2CA41D6] = {V0_10_SCHEDULE_PY, 132}}}},
  {{OP_VIEW}, rule_swizzle_reduce, "non contiguous VIEW on a reduce creates a new VIEW", {{[TG_0_10_0] = {V0_10_SCHEDULE_PY, 155}, [TG_0_10_0_2CA41D6] = {V0_10_SCHEDULE_PY, 135}}}},
  {{OP_REDUCE_AXIS}, push_swizzle_down_through_reduce, "push a VIEW down to STORE, through a reduce", {{[TG_0_10_0] = {V0_10_SCHEDULE_PY, 157}, [TG_0_10_0_2CA41D6] = {V0_10_SCHEDULE_PY, 137}}}},
  {{OP_EXP2, OP_LOG2, OP_SIN, OP_SQRT, OP_RECIP, OP_NEG, OP_ADD, OP_MUL, OP_IDIV, OP_MAX, OP_MOD, OP_CMPLT, OP_CMPNE,
    OP_XOR, OP_SHL, OP_SHR, OP_OR, OP_AND, OP_THREEFRY, OP_SUB, OP_FDIV, OP_WHERE, OP_MULACC, OP_CAST, OP_BITCAST,
    OP_ASSIGN, OP_CONTIGUOUS, OP_STORE},
   push_swizzle_down_through_elementwise, "push VIEW(s) down to STORE, through an elementwise op", {{[TG_0_10_0] = {V0_10_SCHEDULE_PY, 159}, [TG_0_10_0_2CA41D6] = {V0_10_SCHEDULE_PY, 139}}}},
  {{OP_REDUCE_AXIS}, merge_double_reduce, "merge_double_reduce", {{[TG_0_10_0] = {V0_10_SCHEDULE_PY, 160}, [TG_0_10_0_2CA41D6] = {V0_10_SCHEDULE_PY, 140}}}},
};
static const PatternMatcher view_right_pm = {view_right_rules, 5};
static const PatternMatcher *const view_right_pms[2] = {&merge_views_pm, &view_right_pm};

/* we also allow masked views. if it has a single view and it's equal when you shrink a contig, it's fine */
static void check_assign_contiguous(Sched *s, const UOp *sink, const PreFacts *facts) {
  if (!facts->has_assign) return; /* no ASSIGN, no target */
  const UOp **parents;
  size_t n = v0_10_sparents(s, sink, &parents);
  OMap targets;
  omap_init(&targets, s->tmp);
  for (size_t i = 0; i < n; i++) {
    if (parents[i]->op != OP_ASSIGN) continue;
    omap_put(&targets, omap_ptr(v0_10_buf_uop(s, parents[i])), (void *)1);
  }
  if (!omap_len(&targets)) return;
  for (size_t i = 0; i < n; i++) {
    const UOp *x = parents[i];
    if (x->op != OP_PRELOAD || !omap_has(&targets, omap_ptr(v0_10_buf_uop(s, x)))) continue;
    const Value *st = v0_10_st_arg(s, x);
    if (v0_10_st_contiguous(st)) continue;
    const View *v = v0_10_st_view(st, 0);
    if (v0_10_st_nviews(st) == 1 && v->mask) {
      const Value *a = v0_10_st_shrink(s, v0_10_st_from_shape_of(s, st), v->ndim, v->mask);
      if (a == v0_10_st_shrink(s, st, v->ndim, v->mask)) continue;
    }
    error_raise("RuntimeError", "self operand of augmented assign must be contiguous.\nhelp: consider using .contiguous():");
  }
}

/* ======== to_si, append_bufs ======== */

typedef struct ToSiCtx {
  Sched *s;
  SiCtx *si;
} ToSiCtx;

static void push_uop(Arena *a, const UOp ***arr, size_t *n, size_t *cap, const UOp *u) {
  if (*n == *cap) {
    size_t c = *cap ? *cap * 2 : 8;
    const UOp **bigger = arena_array(a, c, sizeof *bigger);
    if (*n) memcpy(bigger, *arr, *n * sizeof *bigger);
    *arr = bigger, *cap = c;
  }
  (*arr)[(*n)++] = u;
}

/* (UPat(Ops.VIEW, name="x"), _append_st_vars) */
static const UOp *append_st_vars(void *ctx, const UOp *x) {
  ToSiCtx *c = ctx;
  Sched *s = c->s;
  if (omap_has(&c->si->sts, omap_ptr(x->arg))) return NULL;
  const Value *st = v0_10_st_unbind(s, v0_10_st_simplify(s, x->arg)); /* ctx.var_vals.update(var_vals) inside */
  omap_put(&c->si->sts, omap_ptr(st), (void *)1);
  return st != x->arg ? v0_10_st_to_uop(s, st) : NULL;
}

/* (UPat(Ops.PRELOAD, src=(UPat.var("b"), UPat()), name="x"), _append_preload) */
static const UOp *append_preload(void *ctx, const UOp *x) {
  ToSiCtx *c = ctx;
  Sched *s = c->s;
  if (x->nsrc != 2) return NULL;
  if (omap_has(&s->assigns, omap_ptr(x->src[0]))) push_uop(s->tmp, &c->si->preloads, &c->si->npreloads, &c->si->cappreloads, x->src[0]);
  return uop_new(s->in, OP_LOAD, x->dtype, x->arg, x->nsrc, x->src);
}

/* (UPat(Ops.SINK, src=(UPat.store(UPat.var("b"), UPat(), UPat(GroupOp.Meta, name="x")),)), lambda ctx,b,x: x.replace(src=(b, *x.src))) */
static const UOp *rule_meta_root(void *ctx, const UOp *sink) {
  ToSiCtx *c = ctx;
  Sched *s = c->s;
  if (sink->nsrc != 1) return NULL;
  const UOp *st = sink->src[0];
  if (st->op != OP_STORE || st->dtype != s->void_dt || st->nsrc != 3 || !op_in(&s->groups, GROUP_META, st->src[2]->op))
    return NULL;
  const UOp *x = st->src[2];
  const UOp **src = arena_array(s->tmp, x->nsrc + 2, sizeof *src);
  src[0] = st->src[0];
  memcpy(src + 1, x->src, x->nsrc * sizeof *src);
  return v0_10_uop_replace(s, x, x->nsrc + 1, src);
}

static const Rule to_si_rules[] = {
  {{OP_VIEW}, append_st_vars, "_append_st_vars", {{[TG_0_10_0] = {V0_10_SCHEDULE_PY, 190}}}},
  {{OP_PRELOAD}, append_preload, "_append_preload", {{[TG_0_10_0] = {V0_10_SCHEDULE_PY, 191}}}},
  {{OP_SINK}, rule_meta_root, "meta op as the root", {{[TG_0_10_0] = {V0_10_SCHEDULE_PY, 192}}}},
};
static const PatternMatcher to_si_pm = {to_si_rules, 3};

/* ---- to_si + check_preload with assign_adj (2ca41d6) ---- */

/* (UPat(Ops.PRELOAD, src=(UPat.var("b"), UPat()), name="x"), _append_preload):
 *   (adj_loads:=ctx.assign_adj.setdefault(b, [])).append(x)
 *   if not all_same([x.op for x in adj_loads]): raise RuntimeError(f"Detected cycle when fusing {adj_loads}. ...")
 *   return x.replace(op=Ops.LOAD) */
static const UOp *check_preload(void *ctx, const UOp *x) {
  ToSiCtx *c = ctx;
  Sched *s = c->s;
  if (x->nsrc != 2) return NULL;
  const AdjLoads *l = assign_adj_append(s, c->si, x->src[0], x);
  if (l->mixed) /* the message's first line: the list's repr opens with its first UOp's */
    error_raise("RuntimeError", "Detected cycle when fusing [%s", v0_10_uop_repr(s, l->items[0]));
  return uop_new(s->in, OP_LOAD, x->dtype, x->arg, x->nsrc, x->src);
}

static const Rule to_si_adj_rules[] = {
  {{OP_VIEW}, append_st_vars, "_append_st_vars", {{[TG_0_10_0_2CA41D6] = {V0_10_SCHEDULE_PY, 176}}}},
  {{OP_SINK}, rule_meta_root, "meta op as the root", {{[TG_0_10_0_2CA41D6] = {V0_10_SCHEDULE_PY, 177}}}},
  {{OP_PRELOAD}, check_preload, "check_preload", {{[TG_0_10_0_2CA41D6] = {V0_10_SCHEDULE_PY, 173}}}},
};
static const PatternMatcher to_si_adj_pm = {to_si_adj_rules, 3};
static const PatternMatcher to_si_only_pm = {to_si_adj_rules, 2};

/* append_bufs = PatternMatcher([(UPat(Ops.BUFFER, name="x"), _append_buf)]) */
static const UOp *append_buf(void *ctx, const UOp *x) {
  ToSiCtx *c = ctx;
  Sched *s = c->s;
  push_uop(s->tmp, &c->si->bufs, &c->si->nbufs, &c->si->capbufs, x);
  return uop0(s->in, OP_DEFINE_GLOBAL, x->dtype, v_int(s->in, (int64_t)c->si->nbufs - 1));
}
static const Rule append_bufs_rules[] = {{{OP_BUFFER}, append_buf, "_append_buf", {{[TG_0_10_0] = {V0_10_SCHEDULE_PY, 183}, [TG_0_10_0_2CA41D6] = {V0_10_SCHEDULE_PY, 167}}}}};
static const PatternMatcher append_bufs_pm = {append_bufs_rules, 1};

/* ---- the checks of 2ca41d6's full_ast_rewrite ---- */

/* repr of a set of Metadata (the BUF_LIMIT message): Python's set order shows only with two or more */
static const char *metadata_set_repr(Sched *s, const OMap *set) {
  size_t n = omap_len(set);
  if (n == 0) return "set()";
  if (n > 1) error_unsupported("the order of a set of Metadata in the BUF_LIMIT message");
  uint64_t key;
  void *val;
  size_t pos = 0;
  omap_next(set, &pos, &key, &val);
  const Value *m = (const Value *)(uintptr_t)key, *name = m->u.tuple.items[0], *caller = m->u.tuple.items[1];
  return arena_printf(s->a, "{%.*s%s%.*s}", (int)name->u.str.n, name->u.str.s, caller->u.str.n ? " - " : "", (int)caller->u.str.n,
                      caller->u.str.s);
}

/* assert buffer count limit:
 *   if (limit:=BUF_LIMIT.get(device:=si_ctx.bufs[0].device)) is not None and len(si_ctx.bufs) >= limit: raise RuntimeError(...) */
static void check_buf_limit(Sched *s, const SiCtx *si) {
  if (si->nbufs == 0) error_raise("IndexError", "list index out of range");
  const Value *device = si->bufs[0]->arg->u.tuple.items[1]->u.tuple.items[0];
  for (size_t i = 0; i < s->nlimits; i++) {
    if (strlen(s->limit_device[i]) != device->u.str.n || memcmp(s->limit_device[i], device->u.str.s, device->u.str.n) != 0) continue;
    if ((int64_t)si->nbufs < s->limit_value[i]) return;
    error_raise("RuntimeError", "Kernel for %s exceeded the %lld buffer count limit for %.*s with %zu buffers.", metadata_set_repr(s, &si->metadata),
                (long long)s->limit_value[i], (int)device->u.str.n, device->u.str.s, si->nbufs);
  }
}

/* x.st_arg is contiguous, or a single masked view equal to a shrunk contiguous one */
static bool assign_operand_ok(Sched *s, const UOp *x) {
  const Value *st = v0_10_st_arg(s, x);
  if (v0_10_st_contiguous(st)) return true;
  const View *v = v0_10_st_view(st, 0);
  if (v0_10_st_nviews(st) != 1 || !v->mask) return false;
  return v0_10_st_shrink(s, v0_10_st_from_shape_of(s, st), v->ndim, v->mask) == v0_10_st_shrink(s, st, v->ndim, v->mask);
}

/* we also allow masked views. if it has a single view and it's equal when you shrink a contig, it's fine:
 *   for ubuf,ops in si_ctx.assign_adj.items():
 *     if si_ctx.sinked.get(ubuf) is not None and not all(... for x in ops): raise RuntimeError(...) */
static void check_assign_adj(Sched *s, const SiCtx *si, const OMap *sinked) {
  uint64_t key;
  void *val;
  for (size_t pos = 0; omap_next(&si->assign_adj, &pos, &key, &val);) {
    const AdjLoads *l = val;
    if (!omap_has(sinked, key)) continue;
    for (size_t i = 0; i < l->n; i++)
      if (!assign_operand_ok(s, l->items[i]))
        error_raise("RuntimeError", "self operand of augmented assign must be contiguous.\nhelp: consider using .contiguous():");
  }
}

/* frozenset(ubuf for ubuf,ops in ast_ctx.assign_adj.items() if any(x.op is Ops.PRELOAD for x in ops)), in assign_adj's order */
static void assign_preloads_of_adj(Sched *s, SiCtx *si) {
  uint64_t key;
  void *val;
  for (size_t pos = 0; omap_next(&si->assign_adj, &pos, &key, &val);)
    if (((const AdjLoads *)val)->preload) push_uop(s->tmp, &si->preloads, &si->npreloads, &si->cappreloads, (const UOp *)(uintptr_t)key);
}

/* the lines of full_ast_rewrite that call graph_rewrite */
static const PyLoc at_lazy = {{[TG_0_10_0] = {V0_10_SCHEDULE_PY, 207}, [TG_0_10_0_2CA41D6] = {V0_10_SCHEDULE_PY, 198}}};
static const PyLoc at_movement = {{[TG_0_10_0] = {V0_10_SCHEDULE_PY, 213}, [TG_0_10_0_2CA41D6] = {V0_10_SCHEDULE_PY, 200}}};
static const PyLoc at_to_si = {{[TG_0_10_0] = {V0_10_SCHEDULE_PY, 221}, [TG_0_10_0_2CA41D6] = {V0_10_SCHEDULE_PY, 202}}};

/* full_ast_rewrite(pre, ctx) */
const UOp *v0_10_full_ast_rewrite(Sched *s, const UOp *pre, const PreFacts *facts, SiCtx *si) {
  /* fuse and fold store -> loads; metadata_of_ops: si_ctx.metadata starts as the outputs' */
  LazyCtx lc = {s, {0}, si};
  omap_init(&lc.stores, s->tmp);
  omap_init(&si->metadata, s->tmp);
  omap_init(&si->assign_adj, s->tmp);
  for (uint32_t i = 0; i < pre->nsrc; i++) {
    const UOp *b = v0_10_buf_uop(s, pre->src[i]);
    if (pre->src[i]->nsrc < 3) error_raise("IndexError", "tuple index out of range"); /* x.src[2] of what is no STORE */
    omap_put(&lc.stores, omap_ptr(b), (void *)pre->src[i]->src[2]);
    const InLB *lb = s->f->metadata_of_ops ? v0_10_lazybuf_of(s, b) : NULL;
    if (lb && lb->metadata) omap_put(&si->metadata, omap_ptr(lb->metadata), (void *)1);
  }
  /* ops_folding = lazy if len(si_ctx.sinked) == 1 else lazy+multioutput; +append_load with assigns (assign_adj) */
  const PatternMatcher *lazy_pms[3];
  size_t nlazy = 0;
  bool assigns = omap_len(&s->assigns) != 0;
  lazy_pms[nlazy++] = s->f->metadata_of_ops ? &lazy_ops_pm : &lazy_pm;
  if (pre->nsrc > 1) lazy_pms[nlazy++] = &multioutput_pm;
  if (s->f->assign_adj && assigns) lazy_pms[nlazy++] = &append_load_pm;
  const UOp *sink = graph_rewrite_at(&at_lazy, s->in, pre, lazy_pms, nlazy, &lc, false);
  if (!s->f->assign_adj) check_cycle(s, sink, facts);
  /* do movementops: graph_rewrite(sink, merge_views+view_left), then +view_right, in the shared contexts */
  sink = movement_rewrite(s, &at_movement, &s->view_left_rc, view_left_pms, sink);
  sink = movement_rewrite(s, &at_movement, &s->view_right_rc, view_right_pms, sink);
  if (!s->f->assign_adj) check_assign_contiguous(s, sink, facts);
  /* convert to AST: to_si (+check_preload with assigns), append_bufs */
  omap_init(&si->sts, s->tmp);
  ToSiCtx tc = {s, si};
  const PatternMatcher *to_si_pms[1] = {!s->f->assign_adj ? &to_si_pm : assigns ? &to_si_adj_pm : &to_si_only_pm};
  const PatternMatcher *append_pms[1] = {&append_bufs_pm};
  sink = graph_rewrite_at(&at_to_si, s->in, sink, to_si_pms, 1, &tc, false);
  sink = graph_rewrite_at(&at_to_si, s->in, sink, append_pms, 1, &tc, false);
  if (s->f->buf_limit_in_full_ast_rewrite) check_buf_limit(s, si);
  if (s->f->assign_adj) {
    check_assign_adj(s, si, &lc.stores);
    assign_preloads_of_adj(s, si);
  }
  return sink;
}
