/* reorder_view.c — tinygrad 0.10.2+a0b4465 engine/schedule.py reorder_view:
 * casts to smaller dtypes and unary ops move before an EXPAND, a COPY copies
 * the base (or a contiguous shrink) and views after it. Runs in the tensor
 * map's rewrite, after merge_views and sym, before replace_contiguous. */
#include <string.h>
#include "passes.h"
#include "symbolic.h"

/* shape/shapetracker.py ShapeTracker.real_size: the extent views[0] (shrunk to
 * its mask) reaches, idx.vmax+1 of its indexing expression */
static int64_t real_size(KG *k, const ST *st) {
  for (uint32_t i = 0; i < v0_10_2_st_ndim(st); i++)
    if (v0_10_2_sint_eq_int(st_shape(st)[i], 0)) return 0;
  const View *v = st->views[0];
  const ST *one = v0_10_2_st_new(&k->stc, 1, &v);
  if (v->mask) one = v0_10_2_st_shrink(&k->stc, one, v->mask);
  v = one->views[0];
  /* view.to_indexed_uops(): idx = offset + sum(RANGE(0, sh)*st for dims with resolve(sh != 1) and resolve(st != 0)) */
  SymCtx *sc = sym_uop_ctx();
  const SymUOp *idx =
      v0_10_2_sint_is_int(v->offset) ? suop_const(sc, SDT_INT, v0_10_2_sint_int(v->offset)) : v->offset.sym;
  for (int i = 0; i < v->ndim; i++) {
    sint sh = v->shape[i], stride = v->strides[i];
    if (!v0_10_2_sint_resolve_ne(&k->stc, sh, v0_10_2_sint_of(1), true) ||
        !v0_10_2_sint_resolve_ne(&k->stc, stride, v0_10_2_sint_of(0), true))
      continue;
    const SymUOp *r = v0_10_2_sint_is_int(sh) ? suop_range(sc, v0_10_2_sint_int(sh), i) : suop_range_to(sc, sh.sym, i);
    idx = suop_add(sc, idx,
        v0_10_2_sint_is_int(stride) ? suop_mul_int(sc, r, v0_10_2_sint_int(stride)) : suop_mul(sc, r, stride.sym));
  }
  int64_t vmax = suop_vmax(idx);
  return vmax + 1;
}

/* resolve(prod(shape) > real_size) */
static bool expands(KG *k, const UOp *u, const ST *st) {
  uint32_t n;
  const sint *shape = v0_10_2_uop_shape(k, u, &n);
  return v0_10_2_sint_resolve_lt(
      &k->stc, v0_10_2_sint_of(real_size(k, st)), v0_10_2_sint_prod(&k->stc, n, shape), true);
}

/* put CAST to smaller dtype before EXPAND: vm.base.cast(cast.dtype).view(vm.st) */
static const UOp *cast_before_expand(void *c, const UOp *cast) {
  KG *k = c;
  if (cast->nsrc != 1 || cast->src[0]->op != OP_VIEW) return NULL;
  const UOp *vm = cast->src[0], *base = v0_10_2_uop_base(k, vm);
  if (k->cast_after_expand && base->op == OP_BUFFER) return NULL;
  if (cast->dtype->itemsize > vm->dtype->itemsize) return NULL;
  const ST *st = v0_10_2_uop_st_unwrap(k, vm);
  if (!expands(k, vm, st)) return NULL;
  return v0_10_2_uop_view(k, v0_10_2_uop_cast(k, base, cast->dtype), st);
}

/* ops.py UOp.copy_to_device: UOp(Ops.COPY, self.dtype, (UOp(Ops.DEVICE, arg=device), self), clone) */
static const UOp *copy_to_device(KG *k, const UOp *x, const UOp *device, bool clone) {
  return v0_10_2_uop2(k, OP_COPY, x->dtype, v_bool(k->in, clone), device, x);
}

/* store a shrink before COPY, otherwise view after the COPY */
static const UOp *copy_of_view(void *c, const UOp *copy) {
  KG *k = c;
  if (copy->nsrc != 2 || copy->src[1]->op != OP_VIEW) return NULL;
  const UOp *v = copy->src[1], *base = v0_10_2_uop_base(k, v), *dev = copy->src[0];
  if (dev->op != OP_DEVICE || dev->arg->kind != V_STR) error_unsupported("a COPY to several devices");
  const UOp *device = v0_10_2_uop(k, OP_DEVICE, dt_void, dev->arg, 0, NULL);
  uint32_t n, nb;
  const sint *shape = v0_10_2_uop_shape(k, v, &n), *bshape = v0_10_2_uop_shape(k, base, &nb);
  sint size = v0_10_2_sint_prod(&k->stc, n, shape), bsize = v0_10_2_sint_prod(&k->stc, nb, bshape);
  if (!v0_10_2_sint_is_int(size) || !v0_10_2_sint_is_int(bsize)) error_unsupported("a COPY of a symbolic view");
  if (v0_10_2_sint_int(size) < v0_10_2_sint_int(bsize))
    return copy_to_device(k, v0_10_2_uop1(k, OP_CONTIGUOUS, v->dtype, NULL, v), device, false);
  bool clone = copy->arg->kind == V_BOOL && copy->arg->u.b;
  return v0_10_2_uop_view(k, copy_to_device(k, base, device, clone), v0_10_2_uop_st_unwrap(k, v));
}

/* put UnaryOps before EXPANDs: inp.alu(alu.op).view(v.st) */
static const UOp *unary_before_expand(void *c, const UOp *alu) {
  KG *k = c;
  if (alu->nsrc != 1 || alu->src[0]->op != OP_VIEW || alu->src[0]->nsrc != 1) return NULL;
  const UOp *v = alu->src[0], *inp = v->src[0];
  const ST *st = v0_10_2_uop_st_unwrap(k, v);
  if (!expands(k, alu, st)) return NULL;
  return v0_10_2_uop_view(k, v0_10_2_uop1(k, alu->op, inp->dtype, NULL, inp), st);
}

/* put CAST after expanding BUFFER (CAST_AFTER_EXPAND): x.view(x.st+v.st).cast(v.dtype) */
static const UOp *cast_after_expand(void *c, const UOp *v) {
  KG *k = c;
  if (!k->cast_after_expand || v->nsrc != 1 || v->src[0]->op != OP_CAST || v->src[0]->nsrc != 1) return NULL;
  const UOp *x = v->src[0]->src[0];
  if (v0_10_2_uop_base(k, x)->op != OP_BUFFER) return NULL;
  uint32_t n, nx;
  const sint *shape = v0_10_2_uop_shape(k, v, &n), *xshape = v0_10_2_uop_shape(k, x, &nx);
  if (!v0_10_2_sint_resolve_lt(
          &k->stc, v0_10_2_sint_prod(&k->stc, nx, xshape), v0_10_2_sint_prod(&k->stc, n, shape), true))
    return NULL;
  const ST *st = v0_10_2_st_add(&k->stc, v0_10_2_uop_st_unwrap(k, x), v0_10_2_uop_st_unwrap(k, v));
  return v0_10_2_uop_cast(k, v0_10_2_uop_view(k, x, st), v->dtype);
}

static const Rule reorder_view_rules[] = {
  {{OP_CAST}, cast_before_expand, "put CAST to smaller dtype before EXPAND", {{[TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 100}}}},
  {{OP_COPY}, copy_of_view, "store a shrink before COPY, otherwise view after the COPY", {{[TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 104}}}},
  {{OP_EXP2, OP_LOG2, OP_SIN, OP_SQRT, OP_RECIP, OP_NEG}, unary_before_expand, "put UnaryOps before EXPANDs", {{[TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 107}}}},
  {{OP_VIEW}, cast_after_expand, "put CAST after expanding BUFFER", {{[TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 110}}}},
};
const PatternMatcher v0_10_2_pm_reorder_view = {
    reorder_view_rules, sizeof reorder_view_rules / sizeof *reorder_view_rules};
