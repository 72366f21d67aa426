/* tensor_rules.c — the matchers that clean the tensor graph and push views
 * in tinygrad 0.10.2: ops.py merge_views and view_left, schedule.py
 * remove_movement_ops and sym (whose symbolic_simple part is symbolic.c). */
#include <string.h>
#include "passes.h"

static bool arg_is_zero(const Value *a) {
  return (a->kind == V_INT && a->u.i == 0) || (a->kind == V_FLOAT && a->u.f == 0.0) || (a->kind == V_BOOL && !a->u.b);
}

static bool same_shape(KG *k, const UOp *a, const UOp *b) {
  uint32_t na, nb;
  const sint *sa = v0_10_2_uop_shape(k, a, &na), *sb = v0_10_2_uop_shape(k, b, &nb);
  return v0_10_2_sint_shapes_eq(na, sa, nb, sb);
}

/* ---------------------------------------------------------------- merge_views */

/* VIEW(VIEW) merges to a single VIEW: vm2.replace(arg=vm2.st+vm1.st) */
static const UOp *merge_views_view_view(void *c, const UOp *vm1) {
  KG *k = c;
  if (vm1->nsrc != 1 || vm1->src[0]->op != OP_VIEW) return NULL;
  const UOp *vm2 = vm1->src[0];
  return v0_10_2_replace_arg(k, vm2,
      v0_10_2_value_st(k, v0_10_2_st_add(&k->stc, v0_10_2_value_get_st(vm2->arg), v0_10_2_value_get_st(vm1->arg))));
}

/* remove VIEW if it's contiguous and same as the base shape (0.10.1: `x.st is not None` instead of no DEVICE) */
static const UOp *merge_views_contiguous(void *c, const UOp *vm) {
  KG *k = c;
  if (vm->nsrc != 1 || vm->src[0]->op == OP_DEVICE) return NULL;
  const UOp *x = vm->src[0];
  if (k->f->merge_views_needs_st && !v0_10_2_uop_st(k, x)) return NULL;
  return st_contiguous(v0_10_2_value_get_st(vm->arg)) && same_shape(k, x, vm) ? x : NULL;
}

/* 0.10.2 orders it before VIEW(CONST), a0b4465 after VIEW(LOAD|STORE|VALID) */
static const UOp *merge_views_contiguous_old(void *c, const UOp *vm) {
  KG *k = c;
  return k->f->merge_views_movement ? NULL : merge_views_contiguous(c, vm);
}
static const UOp *merge_views_contiguous_new(void *c, const UOp *vm) {
  KG *k = c;
  return k->f->merge_views_movement ? merge_views_contiguous(c, vm) : NULL;
}

/* merge unmasked const views: VIEW(CONST|DEFINE_VAR(VIEW st)) */
static const UOp *merge_views_const(void *c, const UOp *view) {
  KG *k = c;
  if (view->nsrc != 1) return NULL;
  const UOp *cn = view->src[0];
  if ((cn->op != OP_CONST && cn->op != OP_DEFINE_VAR) || cn->nsrc != 1 || cn->src[0]->op != OP_VIEW) return NULL;
  const UOp *st = cn->src[0];
  const ST *merged = v0_10_2_st_add(&k->stc, v0_10_2_value_get_st(st->arg), v0_10_2_value_get_st(view->arg));
  for (int i = 0; i < merged->nviews; i++)
    if (merged->views[i]->mask) return NULL;
  const UOp *nst = v0_10_2_replace_arg(k, st, v0_10_2_value_st(k, merged));
  return v0_10_2_replace_src(k, cn, 1, &nst);
}

/* a0b4465: merge view on load/store/valid: b.replace(src=tuple((s.st+v.st).to_uop() if s.op is Ops.VIEW else s for s in b.src)) */
static const UOp *merge_views_buffer_ops(void *c, const UOp *v) {
  KG *k = c;
  if (!k->f->merge_views_movement || v->nsrc != 1) return NULL;
  const UOp *b = v->src[0];
  if (b->op != OP_LOAD && b->op != OP_STORE && b->op != OP_VALID) return NULL;
  const ST *vst = v0_10_2_value_get_st(v->arg);
  const UOp **src = arena_array(k->a, b->nsrc ? b->nsrc : 1, sizeof *src);
  for (uint32_t i = 0; i < b->nsrc; i++) {
    const UOp *x = b->src[i];
    src[i] = x->op == OP_VIEW ? v0_10_2_st_to_uop(k, v0_10_2_st_add(&k->stc, v0_10_2_uop_st_unwrap(k, x), vst)) : x;
  }
  return v0_10_2_replace_src(k, b, b->nsrc, src);
}

static const UOp *remove_movement_ops_masked_view(void *c, const UOp *view);
static const UOp *remove_movement_ops_movement(void *c, const UOp *mov);

/* a0b4465: merge_views holds remove_movement_ops' two rules */
static const UOp *merge_views_masked_view(void *c, const UOp *v) {
  KG *k = c;
  return k->f->merge_views_movement && v->nsrc == 1 ? remove_movement_ops_masked_view(c, v) : NULL;
}
static const UOp *merge_views_movement(void *c, const UOp *mop) {
  KG *k = c;
  return k->f->merge_views_movement ? remove_movement_ops_movement(c, mop) : NULL;
}

/* In ops.py's order; the a0b4465 rules give None in the other versions. */
static const Rule merge_views_rules[] = {
    {{OP_VIEW}, merge_views_view_view, "VIEW(VIEW)", {{[TG_0_10_1] = {V0_10_2_OPS_PY, 1252}, [TG_0_10_2] = {V0_10_2_OPS_PY, 986}, [TG_0_10_2_A0B4465] = {V0_10_2_OPS_PY, 998}}}},
    {{OP_VIEW}, merge_views_contiguous_old, "contiguous VIEW (before a0b4465)", {{[TG_0_10_1] = {V0_10_2_OPS_PY, 1253}, [TG_0_10_2] = {V0_10_2_OPS_PY, 988}}}},
    {{OP_VIEW}, merge_views_const, "VIEW(CONST)", {{[TG_0_10_1] = {V0_10_2_OPS_PY, 1255}, [TG_0_10_2] = {V0_10_2_OPS_PY, 990}, [TG_0_10_2_A0B4465] = {V0_10_2_OPS_PY, 1000}}}},
    {{OP_VIEW}, merge_views_buffer_ops, "VIEW(LOAD|STORE|VALID) (a0b4465)", {{[TG_0_10_2_A0B4465] = {V0_10_2_OPS_PY, 1003}}}},
    {{OP_VIEW}, merge_views_contiguous_new, "contiguous VIEW (a0b4465)", {{[TG_0_10_2_A0B4465] = {V0_10_2_OPS_PY, 1006}}}},
    {{OP_VIEW}, merge_views_masked_view, "masked VIEW -> CONST (a0b4465)", {{[TG_0_10_2_A0B4465] = {V0_10_2_OPS_PY, 1008}}}},
    {{OP_RESHAPE, OP_EXPAND, OP_PERMUTE, OP_PAD, OP_SHRINK, OP_FLIP}, merge_views_movement,
        "movement op -> VIEW (a0b4465)", {{[TG_0_10_2_A0B4465] = {V0_10_2_OPS_PY, 1011}}}},
};
const PatternMatcher v0_10_2_pm_merge_views = {merge_views_rules, sizeof merge_views_rules / sizeof *merge_views_rules};

/* ---------------------------------------------------------------- remove_movement_ops */

/* NOTE: movement ops are always applied to base: mov(x) -> x.view(mov.st) */
static const UOp *remove_movement_ops_movement(void *c, const UOp *mov) {
  KG *k = c;
  if (mov->nsrc != 1) return NULL;
  return v0_10_2_uop_view(k, mov->src[0], v0_10_2_uop_st_unwrap(k, mov));
}

/* some masked views can collapse to 0, VIEW(x) -> CONST(VIEW) */
static const UOp *remove_movement_ops_masked_view(void *c, const UOp *view) {
  KG *k = c;
  const View *v = st_last(v0_10_2_value_get_st(view->arg));
  if (!v->mask) return NULL;
  for (int i = 0; i < v->ndim; i++)
    if (v0_10_2_sint_eq_int(v0_10_2_sint_sub(&k->stc, v->mask[i].e, v->mask[i].b), 0))
      return v0_10_2_uop_const_like(k, view, v0_10_2_value_int(k, 0));
  return NULL;
}

static const Rule remove_movement_rules[] = {
    {{OP_RESHAPE, OP_EXPAND, OP_PERMUTE, OP_PAD, OP_SHRINK, OP_FLIP}, remove_movement_ops_movement,
        "movement op -> VIEW", {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 74}, [TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 77}}}},
    {{OP_VIEW}, remove_movement_ops_masked_view, "masked VIEW -> CONST", {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 76}, [TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 79}}}},
};
const PatternMatcher v0_10_2_pm_remove_movement_ops = {remove_movement_rules, 2};

/* ---------------------------------------------------------------- sym */

/* UOp with size 0 is zero */
static const UOp *sym_size_zero(void *c, const UOp *root) {
  KG *k = c;
  if (root->op == OP_SINK) return NULL;
  const UOp *b = v0_10_2_uop_base(k, root);
  if (!v0_10_2_uop_st(k, b) || v0_10_2_uop_size(k, root) != 0) return NULL;
  if (b->op == OP_CONST && arg_is_zero(b->arg)) return NULL;
  return v0_10_2_uop_const_like(k, root, v0_10_2_value_int(k, 0));
}

/* DETACH and CONTIGUOUS_BACKWARD are NOOPs here */
static const UOp *sym_detach(void *c, const UOp *x) {
  (void)c;
  return x->nsrc ? x->src[0] : NULL;
}

/* ops.py identity_element */
static const Value *identity_element(KG *k, Op op, const DType *dt) {
  switch (op) {
    case OP_ADD: return v0_10_2_as_const(k, v0_10_2_value_int(k, 0), dt);
    case OP_MUL: return v0_10_2_as_const(k, v0_10_2_value_int(k, 1), dt);
    case OP_MAX:
      if (dtype_is_int(dt))
        return v0_10_2_as_const(k,
            v0_10_2_value_int(k, dtype_is_unsigned(dt) ? 0 : (int64_t)(((uint64_t)-1) << (dt->itemsize * 8 - 1))), dt);
      if (dtype_is_float(dt)) return v0_10_2_as_const(k, v_float(k->in, -__builtin_inf()), dt);
      return v0_10_2_as_const(k, v_bool(k->in, false), dt);
    default: error_unsupported("a REDUCE_AXIS with op %s", op_name(op, k->cap->generation));
  }
}

/* reduce of size 0 is the identity element */
static const UOp *sym_reduce_size_zero(void *c, const UOp *reduce) {
  KG *k = c;
  if (reduce->nsrc != 1) return NULL;
  if (v0_10_2_uop_size(k, reduce->src[0]) != 0 || v0_10_2_uop_size(k, reduce) == 0) return NULL;
  return v0_10_2_uop_const_like(k, reduce, identity_element(k, v0_10_2_reduce_op_of(k, reduce), reduce->dtype));
}

/* 0.10.1 schedule.py simplify_reduceop: "reduce of const is collapsed", for
 * (UPat(Ops.REDUCE_AXIS, name="reduce", src=(UPat.cvar("x"),)), simplify_reduceop) */
static const UOp *simplify_reduceop(void *c, const UOp *reduce) {
  KG *k = c;
  if (!k->f->sym_folds_reduce_of_const || reduce->nsrc != 1) return NULL;
  const UOp *x = reduce->src[0];
  if (x->op != OP_CONST && x->op != OP_VCONST) return NULL;
  uint32_t n;
  const sint *shape = v0_10_2_uop_shape(k, x, &n);
  if (!v0_10_2_sint_all_int(n, shape)) return NULL;
  int64_t axis[ST_MAXDIM];
  uint32_t na = v0_10_2_axis_arg(reduce, axis);
  const Value *prshape = v0_10_2_value_int(k, 1);
  for (uint32_t i = 0; i < na; i++) {
    if (axis[i] < 0 || axis[i] >= (int64_t)n) error_raise("IndexError", "tuple index out of range");
    const Value *f[2] = {prshape, v0_10_2_value_int(k, v0_10_2_sint_int(shape[axis[i]]))};
    prshape = v0_10_2_exec_alu(k, OP_MUL, f, 2);
  }
  if (x->op != OP_CONST) error_raise("AssertionError", "const_arg called on %s", op_name(x->op, k->cap->generation));
  const Value *ret = x->arg, *operands[2] = {ret, prshape};
  switch (v0_10_2_reduce_op_of(k, reduce)) {
    case OP_ADD: ret = v0_10_2_exec_alu(k, OP_MUL, operands, 2); break;   /* ret *= prshape */
    case OP_MUL: ret = v0_10_2_py_int_power(k, ret, prshape); break;      /* ret **= prshape */
    case OP_MAX: break;                                           /* NOTE: Ops.MAX is passthrough */
    default: return NULL;
  }
  return v0_10_2_uop_const_like(k, reduce, ret);
}

/* schedule.py simplify_stride0_reduce (0.10.2; 0.10.1 has simplify_reduceop) */
static const UOp *simplify_stride0_reduce(void *c, const UOp *reduce) {
  KG *k = c;
  if (k->f->sym_folds_reduce_of_const || reduce->nsrc != 1) return NULL;
  const UOp *x = reduce->src[0];
  const ST *s = v0_10_2_uop_st_unwrap(k, x);
  for (int i = 0; i < s->nviews; i++)
    if (s->views[i]->mask) return NULL;
  int64_t axis[ST_MAXDIM];
  uint32_t na = v0_10_2_axis_arg(reduce, axis), n = v0_10_2_st_ndim(s);
  for (uint32_t i = 0; i < na; i++)
    if (axis[i] < 0 || axis[i] >= (int64_t)n || !v0_10_2_sint_eq_int(st_last(s)->strides[axis[i]], 0)) return NULL;
  const sint *shape = st_shape(s);
  if (!v0_10_2_sint_all_int(n, shape)) return NULL;
  int64_t prshape = 1;
  SPair arg[ST_MAXDIM];
  for (uint32_t i = 0; i < na; i++) prshape = sint_mul(sint_int(prshape), shape[axis[i]]).i;
  for (uint32_t i = 0; i < n; i++) {
    bool reduced = false;
    for (uint32_t j = 0; j < na; j++) reduced |= axis[j] == (int64_t)i;
    arg[i] = (SPair){v0_10_2_sint_of(0), reduced ? v0_10_2_sint_of(1) : shape[i]};
  }
  const UOp *ret = v0_10_2_uop_shrink(k, x, arg);
  switch (v0_10_2_reduce_op_of(k, reduce)) {
    case OP_ADD: return v0_10_2_uop_binop_const(k, OP_MUL, ret, v0_10_2_value_int(k, prshape), false);
    case OP_MUL: return v0_10_2_uop_binop_const(k, OP_POW, ret, v0_10_2_value_int(k, prshape), false);
    case OP_MAX: return ret;
    default: return NULL;
  }
}

/* a0b4465 schedule.py split_reduceop */
static const UOp *split_reduceop(void *c, const UOp *reduce) {
  KG *k = c;
  if (!k->f->sym_split_reduceop || reduce->nsrc != 1) return NULL;
  int64_t axis[ST_MAXDIM];
  uint32_t na = v0_10_2_axis_arg(reduce, axis);
  return v0_10_2_split_reduce(k, reduce->src[0], v0_10_2_reduce_op_of(k, reduce), na, axis);
}

/* COPY(CONST) creates a new CONST on the destination device */
static const UOp *sym_copy_const(void *c, const UOp *root) {
  if (root->nsrc != 2 || (root->src[1]->op != OP_CONST && root->src[1]->op != OP_VCONST)) return NULL;
  return v0_10_2_uop_const_like(c, root, root->src[1]->arg);
}

/* no COPY to same device, except clone (arg is True) */
static const UOp *sym_copy_same_device(void *c, const UOp *copy) {
  KG *k = c;
  if (copy->nsrc != 2) return NULL;
  const UOp *copyin = copy->src[1];
  const char *din = v0_10_2_uop_device(k, copyin), *dout = v0_10_2_uop_device(k, copy);
  if (!din || !dout) error_raise("AssertionError", "%s", "");
  bool clone = copy->arg->kind == V_BOOL && copy->arg->u.b;
  return strcmp(din, dout) == 0 && !clone ? copyin : NULL;
}

/* remove cast to image when it's already a contiguous image:
 * CAST(VIEW(CONTIGUOUS)) -> base.view(vm.st) */
static const UOp *sym_cast_image(void *c, const UOp *cast) {
  KG *k = c;
  if (k->f->sym_image_cast_under_view || cast->nsrc != 1) return NULL;
  const UOp *vm = cast->src[0];
  if (vm->op != OP_VIEW || vm->nsrc != 1 || vm->src[0]->op != OP_CONTIGUOUS) return NULL;
  const UOp *base = vm->src[0];
  return cast->dtype->is_image && base->dtype->is_image ? v0_10_2_uop_view(k, base, v0_10_2_value_get_st(vm->arg))
                                                        : NULL;
}

/* 0.10.1: VIEW(CAST(VIEW(CONTIGUOUS))) -> base.view(vm2.st+vm1.st) */
static const UOp *sym_view_cast_image(void *c, const UOp *vm1) {
  KG *k = c;
  if (!k->f->sym_image_cast_under_view || vm1->nsrc != 1 || vm1->src[0]->op != OP_CAST || vm1->src[0]->nsrc != 1) return NULL;
  const UOp *cast = vm1->src[0], *vm2 = cast->src[0];
  if (vm2->op != OP_VIEW || vm2->nsrc != 1 || vm2->src[0]->op != OP_CONTIGUOUS) return NULL;
  const UOp *base = vm2->src[0];
  if (!cast->dtype->is_image || !base->dtype->is_image) return NULL;
  return v0_10_2_uop_view(
      k, base, v0_10_2_st_add(&k->stc, v0_10_2_value_get_st(vm2->arg), v0_10_2_value_get_st(vm1->arg)));
}

/* prod(u.shape) == prod(dt.shape) and any(u.shape[x]%4 == 0 for x in u.st.unit_stride_axes()) */
bool v0_10_2_can_be_image(KG *k, const UOp *u, const DType *dt) {
  uint32_t n;
  const sint *shape = v0_10_2_uop_shape(k, u, &n);
  if (!v0_10_2_sint_all_int(n, shape)) error_unsupported("an image dtype with a symbolic shape");
  int64_t img = 1;
  for (int i = 0; i < dt->image_ndim; i++) img *= dt->image_shape[i];
  if (v0_10_2_shape_prod(n, shape) == img) {
    sint strides[ST_MAXDIM];
    bool has[ST_MAXDIM];
    v0_10_2_st_real_strides(&k->stc, v0_10_2_uop_st_unwrap(k, u), false, strides, has);
    for (uint32_t i = 0; i < n; i++)
      if (has[i] && v0_10_2_sint_eq_int(strides[i], 1) && v0_10_2_sint_int(shape[i]) % 4 == 0) return true;
  }
  return false;
}

/* make things that can't be images not images (0.10.1 does it in add_buffers) */
static const UOp *sym_not_image(void *c, const UOp *u) {
  KG *k = c;
  if (k->f->images_fixed_in_add_buffers) return NULL;
  if (u->op == OP_BUFFER || u->op == OP_VIEW || u->op == OP_CONST || u->op == OP_DEVICE || !u->dtype->is_image) return NULL;
  return v0_10_2_can_be_image(k, u, u->dtype) ? NULL : v0_10_2_replace_dtype(k, u, u->dtype->base);
}

/* remove contiguous if we can just view the buffer */
static const UOp *sym_contiguous_view_buffer(void *c, const UOp *root) {
  KG *k = c;
  if (root->nsrc != 1) return NULL;
  const UOp *view = root->src[0];
  if (view->op != OP_VIEW || view->nsrc != 1 || view->src[0]->op != OP_BUFFER) return NULL;
  const UOp *buf = view->src[0];
  return st_contiguous(v0_10_2_value_get_st(view->arg)) && v0_10_2_uop_size(k, view) == v0_10_2_uop_size(k, buf) ? view
                                                                                                                 : NULL;
}

/* contiguous/buffer/copy is already contiguous */
static const UOp *sym_contiguous_noop(void *c, const UOp *root) {
  (void)c;
  if (root->nsrc != 1) return NULL;
  Op op = root->src[0]->op;
  return op == OP_CONTIGUOUS || op == OP_BUFFER || op == OP_COPY ? root->src[0] : NULL;
}

/* schedule.py found_contiguous */
static const UOp *found_contiguous(void *c, const UOp *contig) {
  KG *k = c;
  ContigCtx *ctx = k->pass;
  if (contig->nsrc != 1 || contig->src[0]->op != OP_VIEW) return NULL;
  const UOp *src = contig->src[0], *base = v0_10_2_uop_base(k, src);
  uint32_t n;
  const sint *bshape = v0_10_2_uop_shape(k, base, &n);
  const ST *sti = v0_10_2_st_invert(&k->stc, v0_10_2_uop_st_unwrap(k, src), n, bshape);
  if (sti) omap_put(&ctx->contig, omap_ptr(base), (void *)v0_10_2_uop_view(k, contig, sti));
  return NULL;
}

/* schedule.py replace_contiguous */
static const UOp *replace_contiguous(void *c, const UOp *alu) {
  KG *k = c;
  ContigCtx *ctx = k->pass;
  if (!op_in(&k->groups, GROUP_ALU, alu->op) || !omap_len(&ctx->contig)) return NULL;
  const UOp **src = arena_array(k->a, alu->nsrc, sizeof *src);
  bool changed = false;
  for (uint32_t i = 0; i < alu->nsrc; i++) {
    const UOp *r = omap_get(&ctx->contig, omap_ptr(alu->src[i]));
    src[i] = r ? r : alu->src[i];
    changed |= src[i] != alu->src[i];
  }
  return changed ? v0_10_2_replace_src(k, alu, alu->nsrc, src) : NULL;
}

/* in sym before a0b4465, its own matcher after reorder_view in a0b4465 */
static const UOp *sym_found_contiguous(void *c, const UOp *contig) {
  KG *k = c;
  return k->f->tensor_map_reorder_view ? NULL : found_contiguous(c, contig);
}
static const UOp *sym_replace_contiguous(void *c, const UOp *alu) {
  KG *k = c;
  return k->f->tensor_map_reorder_view ? NULL : replace_contiguous(c, alu);
}

/* substitute BITCAST/CONTIGUOUS with BUFFER_VIEW on DISK */
static const UOp *sym_disk_buffer_view(void *c, const UOp *root) {
  KG *k = c;
  if (k->f->disk_views_in_do_realize) return NULL; /* 0.10.1: create_subbuffer */
  if (k->f->sym_disk_buffer_view_arg) { /* a0b4465: UOp(BUFFER_VIEW, t.dtype, (x.base,), (t.size, x.st.views[0].offset)).reshape(t.shape) */
    if (root->nsrc != 1) return NULL;
    const UOp *x = root->src[0];
    const char *xdev = v0_10_2_uop_device(k, x);
    if (!xdev) error_raise("AttributeError", "'NoneType' object has no attribute 'startswith'");
    if (strncmp(xdev, "DISK", 4) != 0) return NULL;
    sint off = v0_10_2_uop_st_unwrap(k, x)->views[0]->offset;
    const Value *arg[2] = {v0_10_2_value_int(k, v0_10_2_uop_size(k, root)), v0_10_2_value_sint(k, off)};
    const UOp *bv = v0_10_2_uop1(k, OP_BUFFER_VIEW, root->dtype, v_tuple(k->in, 2, arg), v0_10_2_uop_base(k, x));
    uint32_t n;
    const sint *shape = v0_10_2_uop_shape(k, root, &n);
    return v0_10_2_uop_reshape(k, bv, n, shape);
  }
  const char *dev = v0_10_2_uop_device(k, root);
  if (!dev) error_raise("AssertionError", "%s", "");
  return strncmp(dev, "DISK", 4) == 0 ? v0_10_2_replace_op(k, root, OP_BUFFER_VIEW) : NULL;
}

/* 0.10.1: remove CONST/BIND/BUFFER from SINK
 *   UOp(Ops.SINK, root.dtype, new_src, root.arg) if (new_src:=tuple(x for x in root.src
 *     if not x.is_realized and x.base.op not in {Ops.CONST, Ops.BIND})) != root.src else None */
static const UOp *sym_sink_drop_realized(void *c, const UOp *root) {
  KG *k = c;
  if (!k->f->sym_drops_realized_sink_srcs) return NULL;
  const UOp **src = arena_array(k->a, root->nsrc ? root->nsrc : 1, sizeof *src);
  uint32_t n = 0;
  for (uint32_t i = 0; i < root->nsrc; i++) {
    const UOp *x = root->src[i], *b = v0_10_2_uop_base(k, x);
    if (b->op == OP_MULTI) error_unsupported("multi-device tensors (Ops.MULTI)");
    if (b->op == OP_BUFFER) { v0_10_2_uop_buffer(k, b); continue; }   /* is_realized: UOp.buffer makes the Buffer */
    if (b->op == OP_CONST || b->op == OP_BIND) continue;
    src[n++] = x;
  }
  return n == root->nsrc ? NULL : v0_10_2_uop(k, OP_SINK, root->dtype, root->arg, n, src);
}

/* a0b4465: remove CONST/BIND/VIEW from SINK: x.replace(src=dedup(s.base for s in x.src if s.op not in {CONST, BIND})) */
static const UOp *sym_sink_bases(void *c, const UOp *x) {
  KG *k = c;
  if (!k->f->sym_sink_keeps_bases) return NULL;
  const UOp **src = arena_array(k->a, x->nsrc ? x->nsrc : 1, sizeof *src);
  uint32_t n = 0;
  for (uint32_t i = 0; i < x->nsrc; i++) {
    const UOp *s = x->src[i];
    if (s->op == OP_CONST || s->op == OP_BIND) continue;
    const UOp *b = v0_10_2_uop_base(k, s);
    bool dup = false;
    for (uint32_t j = 0; j < n && !dup; j++) dup = src[j] == b;
    if (!dup) src[n++] = b;
  }
  if (n == x->nsrc && memcmp(src, x->src, n * sizeof *src) == 0) return NULL;
  return v0_10_2_replace_src(k, x, n, src);
}

static const Rule sym_rules[] = {
  {{OP_NONE}, sym_size_zero, "size 0 is zero", {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 41}, [TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 42}, [TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 51}}}},
  {{OP_DETACH, OP_CONTIGUOUS_BACKWARD}, sym_detach, "DETACH/CONTIGUOUS_BACKWARD", {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 44}, [TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 45}, [TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 54}}}},
  {{OP_REDUCE_AXIS}, sym_reduce_size_zero, "reduce of size 0", {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 46}, [TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 47}, [TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 56}}}},
  {{OP_REDUCE_AXIS}, simplify_reduceop, "simplify_reduceop (0.10.1)", {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 49}}}},
  {{OP_REDUCE_AXIS}, simplify_stride0_reduce, "simplify_stride0_reduce", {{[TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 50}, [TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 59}}}},
  {{OP_REDUCE_AXIS}, split_reduceop, "split_reduceop (a0b4465)", {{[TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 61}}}},
  {{OP_COPY}, sym_copy_const, "COPY(CONST)", {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 51}, [TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 52}, [TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 63}}}},
  {{OP_COPY}, sym_copy_same_device, "COPY to same device", {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 53}, [TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 54}, [TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 65}}}},
  {{OP_CAST}, sym_cast_image, "CAST to image", {{[TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 57}, [TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 68}}}},
  {{OP_VIEW}, sym_view_cast_image, "VIEW(CAST) to image (0.10.1)", {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 56}}}},
  {{OP_NONE}, sym_not_image, "not an image", {{[TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 60}, [TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 71}}}},
  {{OP_CONTIGUOUS}, sym_contiguous_view_buffer, "CONTIGUOUS(VIEW(BUFFER))", {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 59}, [TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 63}, [TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 74}}}},
  {{OP_CONTIGUOUS}, sym_contiguous_noop, "CONTIGUOUS(CONTIGUOUS|BUFFER|COPY)", {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 62}, [TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 66}, [TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 77}}}},
  {{OP_CONTIGUOUS}, sym_found_contiguous, "found_contiguous", {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 64}, [TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 68}}}},
  {{OP_EXP2, OP_LOG2, OP_SIN, OP_SQRT, OP_RECIP, OP_NEG, OP_ADD, OP_MUL, OP_IDIV, OP_MAX, OP_MOD, OP_CMPLT, OP_CMPNE,
    OP_XOR, OP_SHL, OP_SHR, OP_OR, OP_AND, OP_THREEFRY, OP_SUB, OP_FDIV, OP_POW, OP_WHERE, OP_MULACC},
   sym_replace_contiguous, "replace_contiguous", {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 65}, [TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 69}}}},
  {{OP_BITCAST, OP_CONTIGUOUS}, sym_disk_buffer_view, "BUFFER_VIEW on DISK", {{[TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 71}, [TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 79}}}},
  {{OP_SINK}, sym_sink_drop_realized, "remove CONST/BIND/BUFFER from SINK (0.10.1)", {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 67}}}},
  {{OP_SINK}, sym_sink_bases, "remove CONST/BIND/VIEW from SINK (a0b4465)", {{[TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 82}}}},
};
const PatternMatcher v0_10_2_pm_sym = {sym_rules, sizeof sym_rules / sizeof *sym_rules};

/* a0b4465 schedule.py replace_contiguous (ctx: the dict found_contiguous fills) */
static const Rule replace_contiguous_rules[] = {
  {{OP_CONTIGUOUS}, found_contiguous, "found_contiguous", {{[TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 92}}}},
  {{OP_EXP2, OP_LOG2, OP_SIN, OP_SQRT, OP_RECIP, OP_NEG, OP_ADD, OP_MUL, OP_IDIV, OP_MAX, OP_MOD, OP_CMPLT, OP_CMPNE,
    OP_XOR, OP_SHL, OP_SHR, OP_OR, OP_AND, OP_THREEFRY, OP_SUB, OP_FDIV, OP_POW, OP_WHERE, OP_MULACC},
   replace_contiguous, "replace_contiguous", {{[TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 93}}}},
};
const PatternMatcher v0_10_2_pm_replace_contiguous = {replace_contiguous_rules, 2};

/* ---------------------------------------------------------------- view_left */

/* UOp.valid */
const UOp *v0_10_2_uop_valid(KG *k, const UOp *x, const ST *st) {
  uint32_t n = v0_10_2_st_ndim(st);
  sint ones[ST_MAXDIM];
  for (uint32_t i = 0; i < n; i++) ones[i] = v0_10_2_sint_of(1);
  const ST *u =
      v0_10_2_st_expand(&k->stc, v0_10_2_st_reshape(&k->stc, v0_10_2_st_scalar(&k->stc), n, ones), n, st_shape(st));
  const UOp *unmasked = v0_10_2_st_to_uop(k, u);
  const UOp *valid = v0_10_2_uop1(k, OP_VALID, dt_bool, NULL, v0_10_2_st_to_uop(k, st));
  const UOp *a = v0_10_2_replace_src(k, x, 1, &unmasked);
  const UOp *zero = v0_10_2_uop_const(k, x->dtype, v0_10_2_value_int(k, 0));
  const UOp *b = v0_10_2_replace_src(k, zero, 1, &unmasked);
  const UOp *s[3] = {valid, a, b};
  return v0_10_2_uop_alu(k, OP_WHERE, 3, s);
}

/* VIEW(CONST) becomes VALID (a0b4465: in add_buffer_ops) */
static const UOp *view_left_const(void *c, const UOp *vm) {
  KG *k = c;
  if (k->f->view_left_unsafe_pad) return NULL;
  if (vm->nsrc != 1 || (vm->src[0]->op != OP_CONST && vm->src[0]->op != OP_DEFINE_VAR)) return NULL;
  return v0_10_2_uop_valid(c, vm->src[0], v0_10_2_value_get_st(vm->arg));
}

/* a0b4465: do not push masked view before unsafe pad ops: e.contiguous().view(view.st) */
static const UOp *view_left_unsafe_pad(void *c, const UOp *view) {
  KG *k = c;
  if (!k->f->view_left_unsafe_pad || view->nsrc != 1 || !op_in(&k->groups, GROUP_UNSAFE_PAD, view->src[0]->op))
    return NULL;
  const ST *st = v0_10_2_value_get_st(view->arg);
  bool masked = false;
  for (int i = 0; i < st->nviews; i++) masked |= st->views[i]->mask != NULL;
  if (!masked) return NULL;
  const UOp *e = view->src[0];
  return v0_10_2_uop_view(k, v0_10_2_uop1(k, OP_CONTIGUOUS, e->dtype, NULL, e), st);
}

/* a0b4465: view before elementwise ops: s.view(s.st+view.st) if s.op is Ops.VIEW else s.view(view.st) */
static const UOp *view_left_elementwise_a0b4465(KG *k, const UOp *vm) {
  const UOp *e = vm->src[0];
  if (!(op_in(&k->groups, GROUP_ALU, e->op) || e->op == OP_CAST || e->op == OP_BITCAST)) return NULL;
  const ST *vst = v0_10_2_value_get_st(vm->arg);
  const UOp **src = arena_array(k->a, e->nsrc ? e->nsrc : 1, sizeof *src);
  for (uint32_t i = 0; i < e->nsrc; i++) {
    const UOp *s = e->src[i];
    src[i] = s->op == OP_VIEW ? v0_10_2_uop_view(k, s, v0_10_2_st_add(&k->stc, v0_10_2_uop_st_unwrap(k, s), vst))
                              : v0_10_2_uop_view(k, s, vst);
  }
  return v0_10_2_replace_src(k, e, e->nsrc, src);
}

/* VIEW before elementwise ops */
static const UOp *view_left_elementwise(void *c, const UOp *vm) {
  KG *k = c;
  if (vm->nsrc != 1) return NULL;
  if (k->f->view_left_unsafe_pad) return view_left_elementwise_a0b4465(k, vm);
  const UOp *e = vm->src[0];
  if (!(op_in(&k->groups, GROUP_ALU, e->op) || e->op == OP_CAST || e->op == OP_BITCAST || e->op == OP_ASSIGN))
    return NULL;
  const ST *vst = v0_10_2_value_get_st(vm->arg);
  const UOp **src = arena_array(k->a, e->nsrc ? e->nsrc : 1, sizeof *src);
  for (uint32_t i = 0; i < e->nsrc; i++) {
    const UOp *s = e->src[i];
    const ST *sst = v0_10_2_uop_st(k, s);
    if (!sst) src[i] = s;
    else if (s == v0_10_2_uop_base(k, s)) src[i] = v0_10_2_uop_view(k, s, vst);
    else src[i] = v0_10_2_uop_view(k, v0_10_2_uop_base(k, s), v0_10_2_st_add(&k->stc, sst, vst));
  }
  return v0_10_2_replace_src(k, e, e->nsrc, src);
}

/* VIEW before buffer ops */
static const UOp *view_left_buffer(void *c, const UOp *vm) {
  KG *k = c;
  if (k->f->view_left_unsafe_pad) return NULL; /* a0b4465: merge_views' VIEW(LOAD|STORE|VALID) */
  if (vm->nsrc != 1 || !op_in(&k->groups, GROUP_BUFFER, vm->src[0]->op)) return NULL;
  const UOp *b = vm->src[0];
  const ST *vst = v0_10_2_value_get_st(vm->arg);
  const UOp **src = arena_array(k->a, b->nsrc ? b->nsrc : 1, sizeof *src);
  for (uint32_t i = 0; i < b->nsrc; i++) {
    const UOp *s = b->src[i];
    src[i] = s->op == OP_VIEW ? v0_10_2_st_to_uop(k, v0_10_2_st_add(&k->stc, v0_10_2_uop_st_unwrap(k, s), vst)) : s;
  }
  return v0_10_2_replace_src(k, b, b->nsrc, src);
}

static const Rule view_left_rules[] = {
  {{OP_VIEW}, view_left_const, "VIEW(CONST) becomes VALID", {{[TG_0_10_1] = {V0_10_2_OPS_PY, 1262}, [TG_0_10_2] = {V0_10_2_OPS_PY, 997}}}},
  {{OP_VIEW}, view_left_unsafe_pad, "masked VIEW of an unsafe pad op (a0b4465)", {{[TG_0_10_2_A0B4465] = {V0_10_2_OPS_PY, 1016}}}},
  {{OP_VIEW}, view_left_elementwise, "VIEW before elementwise", {{[TG_0_10_1] = {V0_10_2_OPS_PY, 1264}, [TG_0_10_2] = {V0_10_2_OPS_PY, 999}, [TG_0_10_2_A0B4465] = {V0_10_2_OPS_PY, 1019}}}},
  {{OP_VIEW}, view_left_buffer, "VIEW before buffer ops", {{[TG_0_10_1] = {V0_10_2_OPS_PY, 1266}, [TG_0_10_2] = {V0_10_2_OPS_PY, 1001}}}},
};
const PatternMatcher v0_10_2_pm_view_left = {view_left_rules, sizeof view_left_rules / sizeof *view_left_rules};

