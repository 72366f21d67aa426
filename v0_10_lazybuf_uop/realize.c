/* realize.c — which buffers of the big graph must be realized (engine/
 * schedule.py: realize, realize_view, do_realize, break_sched).
 *
 * Both matchers run over the big graph with `realizes` (BUFFER uop -> STORE)
 * as their context. do_realize decides: meta ops, ASSIGN and CONTIGUOUS
 * always realize, views that expand or pad unsafely realize their base, COPY
 * and BUFFER_VIEW realize their source. break_sched then cuts the graph at
 * every realized buffer, replacing it by a LOAD and recording its STORE. */
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

/* realize_view(ctx, base, view, to_store, b): realize before expand or unsafe pad ops */
static const UOp *realize_view(RealizeCtx *c, const UOp *base, const UOp *view, const UOp *to_store, const UOp *b) {
  Sched *s = c->s;
  const Value *st = view->arg;
  sint base_size = sint_prod(v0_10_st_ndim(base->arg), v0_10_st_shape(base->arg));
  const View *last = v0_10_st_view(st, v0_10_st_nviews(st) - 1);
  /* fold simple pads: all_int(base_shape) and resolve(prod(base_shape) >= prod([y-x for x,y in m])) */
  if (v0_10_st_nviews(st) == 1 && last->mask && sint_all_int(v0_10_st_ndim(base->arg), v0_10_st_shape(base->arg))) {
    sint valid = sint_int(1);
    for (int i = 0; i < last->ndim; i++) valid = sint_mul(valid, sint_sub(last->mask[i].e, last->mask[i].b));
    bool fold = sint_resolve(SINT_GE, base_size, valid, true);
    v0_10_check_sym();
    if (fold) return v0_10_can_pad(s, base) ? NULL : realize_before_view(c, b, to_store, base, view, WHY_UNSAFE_PAD);
  }
  /* early realize before expand: resolve(prod(base_shape) < prod(st.shape)) */
  bool expands = sint_resolve(SINT_LT, base_size, sint_prod(v0_10_st_ndim(st), v0_10_st_shape(st)), true);
  v0_10_check_sym();
  if (expands) return realize_before_view(c, b, to_store, base, view, WHY_EXPAND);
  /* otherwise safety check pads */
  bool no_masks = true;
  for (int i = 0; i < v0_10_st_nviews(st); i++)
    if (v0_10_st_view(st, i)->mask) no_masks = false;
  return no_masks || v0_10_can_pad(s, base) ? NULL : realize_before_view(c, b, to_store, base, view, WHY_UNSAFE_PAD);
}

/* (UPatSrc((Ops.ASSIGN, Ops.CONTIGUOUS, *GroupOp.Meta)), realize) — always realize meta ops */
static const UOp *rule_realize_meta(void *ctx, const UOp *u) {
  RealizeCtx *c = ctx;
  if (!match_src(u)) return NULL;
  Op op = u->src[1]->op;
  if (op != OP_ASSIGN && op != OP_CONTIGUOUS && !v0_10_op_in_meta(op)) return NULL;
  if (c->s->ex) v0_10_explain_meta(c->s, c->realizes, u->src[0], u->src[1]);
  return realize(c, u->src[0], u->src[1], u);
}

/* (UPatSrc(Ops.CAST, src=(UPat(Ops.LOAD, name="x"),), dtype=dtypes.float).view(name="v"),
 *  lambda ctx,x,v,**kwargs: r.src[2].view(v.st) if (r:=ctx.get(b:=x.buf_uop)) is not None and r.op is Ops.STORE
 *    and isinstance(b.dtype, ImageDType) and r.src[2].op not in GroupOp.Meta else None)
 * — don't realize image to image casts */
static const UOp *rule_image_cast(void *ctx, const UOp *v) {
  RealizeCtx *c = ctx;
  if (!match_src_view(v)) return NULL;
  const UOp *cast = v->src[0]->src[1];
  if (cast->op != OP_CAST || cast->nsrc != 1 || (cast->dtype != dt_float && cast->dtype->scalar != dt_float)) return NULL;
  const UOp *x = cast->src[0];
  if (x->op != OP_LOAD) return NULL;
  const UOp *b = v0_10_buf_uop(c->s, x);
  const UOp *r = omap_get(c->realizes, omap_ptr(b));
  if (!r || r->op != OP_STORE || !b->dtype->is_image || v0_10_op_in_meta(r->src[2]->op)) return NULL;
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
  {{OP_VIEW}, rule_realize_meta, "always realize meta ops"},
  {{OP_VIEW}, rule_image_cast, "don't realize image to image casts"},
  {{OP_VIEW}, rule_realize_view, "realize before expand or unsafe pad ops"},
  {{OP_COPY, OP_BUFFER_VIEW}, rule_realize_copy_src, "realize before COPY or BUFFER_VIEW"},
};
static const PatternMatcher do_realize_pm = {do_realize_rules, sizeof do_realize_rules / sizeof *do_realize_rules};

/* graph_rewrite(big_graph, do_realize, realizes): only the side effects on realizes matter */
void v0_10_do_realize(Sched *s, const UOp *big_graph, OMap *realizes) {
  RealizeCtx c = {s, realizes};
  const PatternMatcher *pms[] = {&do_realize_pm};
  graph_rewrite(s->in, big_graph, pms, 1, &c, false);
}

/* break_sched = PatternMatcher([(UPatSrc(), lambda ctx,b,to_store,base: realize(ctx, b, to_store, base) if b in ctx else None),]) */
static const UOp *rule_break(void *ctx, const UOp *u) {
  RealizeCtx *c = ctx;
  if (!match_src(u) || !omap_has(c->realizes, omap_ptr(u->src[0]))) return NULL;
  return realize(c, u->src[0], u->src[1], u);
}

static const Rule break_sched_rules[] = {{{OP_VIEW}, rule_break, "split realizes into small graphs"}};
static const PatternMatcher break_sched_pm = {break_sched_rules, 1};

void v0_10_break_sched(Sched *s, const UOp *big_graph, OMap *realizes) {
  RealizeCtx c = {s, realizes};
  const PatternMatcher *pms[] = {&break_sched_pm};
  graph_rewrite(s->in, big_graph, pms, 1, &c, false);
}
