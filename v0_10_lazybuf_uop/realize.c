/* realize.c — which buffers of the big graph must be realized (engine/
 * schedule.py: realize, realize_view, do_realize, break_sched).
 *
 * Both matchers run over the big graph with `realizes` as their context.
 * do_realize decides: meta ops, ASSIGN and CONTIGUOUS always realize, views
 * that expand or pad unsafely realize their base, COPY and BUFFER_VIEW
 * realize their source. break_sched then cuts the graph at every realized
 * buffer, replacing it by a LOAD and recording its STORE.
 *
 * 0.10.0's realize makes the STORE and returns the LOAD as soon as
 * do_realize decides; with realize_records_op (2ca41d6) realize only records
 * the op (realizes[b] = to_store), a SINK rule realizes the outputs
 * (outs_realized_by_sink), and break_sched's append_kernel makes the STORE
 * and LOAD, append_op the ops_metadata of each op, generate_valid the
 * consts (consts_in_break_sched). */
#include "pipeline.h"

typedef struct RealizeCtx {
  Sched *s;
  OMap *realizes;
} RealizeCtx;

/* realize(ctx, b, to_store, base):
 *   ctx[b] = UOp.store(b, ShapeTracker.from_shape(base.st.shape).to_uop(), to_store)
 *   return UOp(Ops.LOAD, base.dtype, (b, base.st.to_uop())) */
static const UOp *realize(RealizeCtx *c, const UOp *b, const UOp *to_store, const UOp *base) {
  Sched *s = c->s;
  const Value *st = base->arg;
  const Value *full = v0_10_st_from_shape_of(s, st);
  omap_put(c->realizes, omap_ptr(b), (void *)uop3(s->in, OP_STORE, s->void_dt, s->none, b, v0_10_st_to_uop(s, full), to_store));
  return uop2(s->in, OP_LOAD, base->dtype, s->none, b, v0_10_st_to_uop(s, st));
}

static const UOp *realize_then_view(RealizeCtx *c, const UOp *b, const UOp *to_store, const UOp *base, const Value *st) {
  return v0_10_uop_view(c->s, realize(c, b, to_store, base), st);
}

/* realize(ctx, b, to_store, base).view(view.st) in realize_view, telling explain why */
static const UOp *realize_before_view(RealizeCtx *c, const UOp *b, const UOp *to_store, const UOp *base, const UOp *view,
                                      ExplainReason why) {
  if (c->s->ex) v0_10_explain_view(c->s, c->realizes, b, base, view, why);
  return realize_then_view(c, b, to_store, base, view->arg);
}

/* UPatSrc(): VIEW(b, to_store) */
static bool match_src(const UOp *u) { return u->op == OP_VIEW && u->nsrc == 2; }
/* UPatSrc().view(): VIEW(VIEW(b, to_store)) */
static bool match_src_view(const UOp *u) { return u->op == OP_VIEW && u->nsrc == 1 && match_src(u->src[0]); }

/* realize_view's test: why the base must be realized before the view (WHY_EXPAND,
 * WHY_UNSAFE_PAD), or WHY_NONE */
static ExplainReason realize_before_view_why(RealizeCtx *c, const UOp *base, const UOp *view) {
  Sched *s = c->s;
  const Value *st = view->arg;
  sint base_size = sint_prod(v0_10_st_ndim(base->arg), v0_10_st_shape(base->arg));
  const View *last = v0_10_st_view(st, v0_10_st_nviews(st) - 1);
  /* fold simple pads: all_int(base_shape) and resolve(prod(base_shape) >= prod([y-x for x,y in m])) */
  if (v0_10_st_nviews(st) == 1 && last->mask && sint_all_int(v0_10_st_ndim(base->arg), v0_10_st_shape(base->arg))) {
    sint valid = sint_int(1);
    for (int i = 0; i < last->ndim; i++) valid = sint_mul(valid, sint_sub(last->mask[i].e, last->mask[i].b));
    bool fold = sint_resolve(SINT_GE, base_size, valid, true);
    if (fold) return v0_10_can_pad(s, base, c->realizes) ? WHY_NONE : WHY_UNSAFE_PAD;
  }
  /* early realize before expand: resolve(prod(base_shape) < prod(st.shape)) */
  bool expands = sint_resolve(SINT_LT, base_size, sint_prod(v0_10_st_ndim(st), v0_10_st_shape(st)), true);
  if (expands) return WHY_EXPAND;
  /* otherwise safety check pads */
  bool no_masks = true;
  for (int i = 0; i < v0_10_st_nviews(st); i++)
    if (v0_10_st_view(st, i)->mask) no_masks = false;
  return no_masks || v0_10_can_pad(s, base, c->realizes) ? WHY_NONE : WHY_UNSAFE_PAD;
}

/* realize_view(ctx, base, view, to_store, b): realize before expand or unsafe pad ops */
static const UOp *realize_view(RealizeCtx *c, const UOp *base, const UOp *view, const UOp *to_store, const UOp *b) {
  ExplainReason why = realize_before_view_why(c, base, view);
  return why == WHY_NONE ? NULL : realize_before_view(c, b, to_store, base, view, why);
}

/* (UPatSrc((Ops.ASSIGN, Ops.CONTIGUOUS, *GroupOp.Meta)), realize) — always realize meta ops */
static bool is_realized_op(const Sched *s, Op op) {
  return op == OP_ASSIGN || op == OP_CONTIGUOUS || op_in(&s->groups, GROUP_META, op);
}

static const UOp *rule_realize_meta(void *ctx, const UOp *u) {
  RealizeCtx *c = ctx;
  if (!match_src(u) || !is_realized_op(c->s, u->src[1]->op)) return NULL;
  if (c->s->ex) v0_10_explain_meta(c->s, c->realizes, u->src[0], u->src[1]);
  return realize(c, u->src[0], u->src[1], u);
}

/* (UPatSrc(Ops.CAST, src=(UPat(Ops.LOAD, name="x"),), dtype=dtypes.float).view(name="v"),
 *  lambda ctx,x,v,**kwargs: r.src[2].view(v.st) if (r:=ctx.get(b:=x.buf_uop)) is not None and r.op is Ops.STORE
 *    and isinstance(b.dtype, ImageDType) and r.src[2].op not in GroupOp.Meta else None)
 * — don't realize image to image casts */
static bool is_float_cast(const UOp *cast) {
  return cast->op == OP_CAST && cast->nsrc == 1 && (cast->dtype == dt_float || cast->dtype->scalar == dt_float);
}

static const UOp *rule_image_cast(void *ctx, const UOp *v) {
  RealizeCtx *c = ctx;
  if (!match_src_view(v) || !is_float_cast(v->src[0]->src[1])) return NULL;
  const UOp *x = v->src[0]->src[1]->src[0];
  if (x->op != OP_LOAD) return NULL;
  const UOp *b = v0_10_buf_uop(c->s, x);
  const UOp *r = omap_get(c->realizes, omap_ptr(b));
  if (!r || r->op != OP_STORE || !b->dtype->is_image || op_in(&c->s->groups, GROUP_META, r->src[2]->op)) return NULL;
  return v0_10_uop_view(c->s, r->src[2], v->arg);
}

/* (UPatSrc().view(name="view"), realize_view) */
static const UOp *rule_realize_view(void *ctx, const UOp *view) {
  RealizeCtx *c = ctx;
  if (!match_src_view(view)) return NULL;
  const UOp *base = view->src[0];
  return realize_view(c, base, view, base->src[1], base->src[0]);
}

/* (UPat((Ops.COPY, Ops.BUFFER_VIEW), src=(UPat.any(UPatSrc(), UPatSrc().view(name="view")),), name="root"),
 *  lambda ctx,root,view=None,**kwargs: root.replace(src=(realize(ctx,**kwargs) if view is None
 *                                                        else realize(ctx,**kwargs).view(view.st),)))
 * — realize before COPY or BUFFER_VIEW */
static const UOp *rule_realize_copy_src(void *ctx, const UOp *root) {
  RealizeCtx *c = ctx;
  if (root->nsrc != 1) return NULL;
  const UOp *x = root->src[0], *ld;
  if (!match_src(x) && !match_src_view(x)) return NULL;
  if (c->s->ex) v0_10_explain_copy_src(c->s, c->realizes, match_src(x) ? x->src[0] : x->src[0]->src[0], root);
  if (match_src(x)) ld = realize(c, x->src[0], x->src[1], x);
  else ld = realize_then_view(c, x->src[0]->src[0], x->src[0]->src[1], x->src[0], x->arg);
  return v0_10_uop_replace(c->s, root, 1, &ld);
}

static const Rule do_realize_rules[] = {
  {{OP_VIEW}, rule_realize_meta, "always realize meta ops", {{[TG_0_10_0] = {V0_10_SCHEDULE_PY, 350}}}},
  {{OP_VIEW}, rule_image_cast, "don't realize image to image casts", {{[TG_0_10_0] = {V0_10_SCHEDULE_PY, 352}}}},
  {{OP_VIEW}, rule_realize_view, "realize before expand or unsafe pad ops", {{[TG_0_10_0] = {V0_10_SCHEDULE_PY, 355}}}},
  {{OP_COPY, OP_BUFFER_VIEW}, rule_realize_copy_src, "realize before COPY or BUFFER_VIEW", {{[TG_0_10_0] = {V0_10_SCHEDULE_PY, 357}}}},
};
static const PatternMatcher do_realize_pm = {do_realize_rules, sizeof do_realize_rules / sizeof *do_realize_rules};

/* ---- realize_records_op (2ca41d6): realize only records the op ---- */

/* realize(ctx, b, to_store, base): ctx.update([(b, to_store)]) */
static const UOp *realize_op(RealizeCtx *c, const UOp *b, const UOp *to_store) {
  omap_put(c->realizes, omap_ptr(b), (void *)to_store);
  return NULL;
}

/* (UPat(Ops.SINK, name="sink"), lambda ctx,sink: ctx.update((x.buf_uop, x) for x in sink.src)) — always realize sinked ops */
static const UOp *realize_sink(void *ctx, const UOp *sink) {
  RealizeCtx *c = ctx;
  if (!c->s->f->outs_realized_by_sink) return NULL;
  for (uint32_t i = 0; i < sink->nsrc; i++) {
    const UOp *b = v0_10_buf_uop(c->s, sink->src[i]);
    if (c->s->ex) v0_10_explain_meta(c->s, c->realizes, b, sink->src[i]);
    omap_put(c->realizes, omap_ptr(b), (void *)sink->src[i]);
  }
  return NULL;
}

/* (UPatSrc({Ops.ASSIGN, Ops.CONTIGUOUS, *GroupOp.Meta}), realize) — always realize meta ops */
static const UOp *realize_meta_op(void *ctx, const UOp *u) {
  RealizeCtx *c = ctx;
  if (!match_src(u) || !is_realized_op(c->s, u->src[1]->op)) return NULL;
  if (c->s->ex) v0_10_explain_meta(c->s, c->realizes, u->src[0], u->src[1]);
  return realize_op(c, u->src[0], u->src[1]);
}

/* (UPatSrc().view(name="view"), realize_view), realize_view starting with
 * `if to_store.op in {Ops.CONST, Ops.BIND}: return None` */
static const UOp *realize_view_op(void *ctx, const UOp *view) {
  RealizeCtx *c = ctx;
  if (!match_src_view(view)) return NULL;
  const UOp *base = view->src[0], *b = base->src[0], *to_store = base->src[1];
  if (to_store->op == OP_CONST || to_store->op == OP_BIND) return NULL;
  ExplainReason why = realize_before_view_why(c, base, view);
  if (why == WHY_NONE) return NULL;
  if (c->s->ex) v0_10_explain_view(c->s, c->realizes, b, base, view, why);
  return realize_op(c, b, to_store);
}

/* (UPatSrc(Ops.CAST, src=(UPat(Ops.VIEW, src=(UPat.var("xb"), UPat()), name="to_cast"),), dtype=dtypes.float).view(name="view"),
 *  fold_img_cast) — don't realize image to image casts:
 *   if not isinstance(xb.dtype, ImageDType) or b not in ctx or xb not in ctx or uval(to_cast).op in GroupOp.Meta: return None
 *   del ctx[b]
 *   return to_cast.view(unwrap(view.st)) */
static const UOp *fold_img_cast(void *ctx, const UOp *view) {
  RealizeCtx *c = ctx;
  if (!c->s->f->fold_img_cast || !match_src_view(view) || !is_float_cast(view->src[0]->src[1])) return NULL;
  const UOp *b = view->src[0]->src[0], *to_cast = view->src[0]->src[1]->src[0];
  if (to_cast->op != OP_VIEW || to_cast->nsrc != 2) return NULL;
  const UOp *xb = to_cast->src[0], *val = to_cast->src[1];
  if (!xb->dtype->is_image || !omap_has(c->realizes, omap_ptr(b)) || !omap_has(c->realizes, omap_ptr(xb))) return NULL;
  if (op_in(&c->s->groups, GROUP_META, (v0_10_is_contiguous_base(c->s, val) ? val->src[0] : val)->op))
    return NULL; /* uval(to_cast) */
  omap_del(c->realizes, omap_ptr(b));
  return v0_10_uop_view(c->s, to_cast, view->arg);
}

/* (UPat((Ops.COPY, Ops.BUFFER_VIEW), src=(UPat.any(UPatSrc(), UPatSrc().view()),)), realize) — realize before COPY or BUFFER_VIEW */
static const UOp *realize_copy_src(void *ctx, const UOp *root) {
  RealizeCtx *c = ctx;
  if (root->nsrc != 1) return NULL;
  const UOp *x = root->src[0];
  if (match_src_view(x)) x = x->src[0];
  else if (!match_src(x)) return NULL;
  if (c->s->ex) v0_10_explain_copy_src(c->s, c->realizes, x->src[0], root);
  return realize_op(c, x->src[0], x->src[1]);
}

static const Rule do_realize_sink_rules[] = {
  {{OP_SINK}, realize_sink, "always realize sinked ops", {{[TG_0_10_0_2CA41D6] = {V0_10_SCHEDULE_PY, 345}}}},
  {{OP_VIEW}, realize_meta_op, "always realize meta ops", {{[TG_0_10_0_2CA41D6] = {V0_10_SCHEDULE_PY, 347}}}},
  {{OP_VIEW}, realize_view_op, "realize before expand or unsafe pad ops", {{[TG_0_10_0_2CA41D6] = {V0_10_SCHEDULE_PY, 349}}}},
  {{OP_VIEW}, fold_img_cast, "don't realize image to image casts", {{[TG_0_10_0_2CA41D6] = {V0_10_SCHEDULE_PY, 351}}}},
  {{OP_COPY, OP_BUFFER_VIEW}, realize_copy_src, "realize before COPY or BUFFER_VIEW", {{[TG_0_10_0_2CA41D6] = {V0_10_SCHEDULE_PY, 353}}}},
};
static const PatternMatcher do_realize_sink_pm = {do_realize_sink_rules, sizeof do_realize_sink_rules / sizeof *do_realize_sink_rules};

/* graph_rewrite(big_graph, do_realize, realizes). 0.10.0 keeps only the side
 * effects on realizes (it goes on with the graph it had); with
 * realize_records_op the rewritten graph is the big graph from here on
 * (`big_graph = graph_rewrite(...)`: fold_img_cast's rewrites). */
const UOp *v0_10_do_realize(Sched *s, const UOp *big_graph, OMap *realizes) {
  static const PyLoc at = {{[TG_0_10_0] = {V0_10_SCHEDULE_PY, 374}, [TG_0_10_0_2CA41D6] = {V0_10_SCHEDULE_PY, 382}}};
  RealizeCtx c = {s, realizes};
  const PatternMatcher *pms[] = {s->f->realize_records_op ? &do_realize_sink_pm : &do_realize_pm};
  const UOp *ret = graph_rewrite_at(&at, s->in, big_graph, pms, 1, &c, false);
  return s->f->realize_records_op ? ret : big_graph;
}

/* break_sched = PatternMatcher([(UPatSrc(), lambda ctx,b,to_store,base: realize(ctx, b, to_store, base) if b in ctx else None),]) */
static const UOp *rule_break(void *ctx, const UOp *u) {
  RealizeCtx *c = ctx;
  if (!match_src(u) || !omap_has(c->realizes, omap_ptr(u->src[0]))) return NULL;
  return realize(c, u->src[0], u->src[1], u);
}

static const Rule break_sched_rules[] = {{{OP_VIEW}, rule_break, "split realizes into small graphs", {{[TG_0_10_0] = {V0_10_SCHEDULE_PY, 360}}}}};
static const PatternMatcher break_sched_pm = {break_sched_rules, 1};

/* ---- break_sched with realize_records_op (2ca41d6) ---- */

/* append_op(ctx, b, to_store): if (m:=ctx.lazybufs[b].metadata) is not None: ctx.ops_metadata[to_store] = m */
static const UOp *append_op(RealizeCtx *c, const UOp *b, const UOp *to_store) {
  Sched *s = c->s;
  const InLB *lb = v0_10_lazybuf_of(s, b);
  if (!lb) error_raise("KeyError", "%s", v0_10_uop_repr(s, b));
  if (lb->metadata) v0_10_idcache_put(s, &s->ops_metadata, to_store, lb->metadata);
  return to_store;
}

/* append_kernel(ctx, b, to_store, base):
 *   ctx.realizes[b] = UOp.store(b, ShapeTracker.from_shape((st:=unwrap(base.st)).shape).to_uop(), append_op(ctx, b, to_store))
 *   return UOp(Ops.LOAD, base.dtype, (b, st.to_uop())) */
static const UOp *append_kernel(RealizeCtx *c, const UOp *b, const UOp *to_store, const UOp *base) {
  Sched *s = c->s;
  const Value *st = base->arg, *full = v0_10_st_from_shape_of(s, st);
  const UOp *op = append_op(c, b, to_store);
  omap_put(c->realizes, omap_ptr(b), (void *)uop3(s->in, OP_STORE, s->void_dt, s->none, b, v0_10_st_to_uop(s, full), op));
  return uop2(s->in, OP_LOAD, base->dtype, s->none, b, v0_10_st_to_uop(s, st));
}

/* (UPatSrc({Ops.CONST, Ops.BIND}), generate_valid) — consts are always fused and generated:
 *   if isinstance((val:=to_store.arg), UOp): ctx.var_vals.update([val.unbind()])
 *   return UOp.const_with_shape(base.dtype, val, unwrap(base.st).shape) */
static const UOp *generate_valid(void *ctx, const UOp *base) {
  RealizeCtx *c = ctx;
  if (!match_src(base) || (base->src[1]->op != OP_CONST && base->src[1]->op != OP_BIND)) return NULL;
  Sched *s = c->s;
  const UOp *to_store = base->src[1], *k;
  const InLB *lb = v0_10_lazybuf_of(s, base->src[0]);
  if (lb && lb->var) { /* a bound Variable: UOp.const gives its DEFINE_VAR */
    omap_put(&s->var_vals, omap_ptr(lb->var), (void *)v_int(s->in, lb->var_val));
    k = lb->var;
  } else {
    if (to_store->arg->kind == V_SYM) error_unsupported("a CONST of a symbolic expression");
    k = v0_10_uop_const(s, base->dtype, to_store->arg);
  }
  return v0_10_const_with_shape(s, k, v0_10_st_ndim(base->arg), v0_10_st_shape(base->arg));
}

/* (UPatSrc(), lambda ctx,b,to_store,base: append_kernel(ctx, b, to_store, base) if b in ctx.realizes else append_op(ctx, b, to_store))
 * — everything else is a VIEW of BUFFER that either realizes or fuses */
static const UOp *realize_or_fuse(void *ctx, const UOp *base) {
  RealizeCtx *c = ctx;
  if (!match_src(base)) return NULL;
  const UOp *b = base->src[0], *to_store = base->src[1];
  return omap_has(c->realizes, omap_ptr(b)) ? append_kernel(c, b, to_store, base) : append_op(c, b, to_store);
}

static const Rule break_sched_append_rules[] = {
  {{OP_VIEW}, generate_valid, "consts are always fused and generated", {{[TG_0_10_0_2CA41D6] = {V0_10_SCHEDULE_PY, 370}}}},
  {{OP_VIEW}, realize_or_fuse, "everything else is a VIEW of BUFFER that either realizes or fuses", {{[TG_0_10_0_2CA41D6] = {V0_10_SCHEDULE_PY, 372}}}},
};
static const PatternMatcher break_sched_append_pm = {break_sched_append_rules, 2};

/* graph_rewrite(big_graph, break_sched, ctx): only the side effects on realizes (and ops_metadata) matter */
void v0_10_break_sched(Sched *s, const UOp *big_graph, OMap *realizes) {
  static const PyLoc at = {{[TG_0_10_0] = {V0_10_SCHEDULE_PY, 377}, [TG_0_10_0_2CA41D6] = {V0_10_SCHEDULE_PY, 385}}};
  RealizeCtx c = {s, realizes};
  const PatternMatcher *pms[] = {s->f->realize_records_op ? &break_sched_append_pm : &break_sched_pm};
  graph_rewrite_at(&at, s->in, big_graph, pms, 1, &c, false);
}
