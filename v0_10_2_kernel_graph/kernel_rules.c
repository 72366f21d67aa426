/* kernel_rules.c — the matchers schedule_uop runs on one kernel's AST in
 * tinygrad 0.10.2 engine/schedule.py: add_buffer_ops, unbind_vars,
 * view_right (swizzle_r, reduceop_view_right, elementwise_view_right,
 * merge_double_reduce) and fix_kernel_ops (check_load_st). */
#include <string.h>
#include "kernel_rules.h"

/* ---------------------------------------------------------------- add_buffer_ops */

/* schedule.py load_buf */
static const UOp *load_buf(void *c, const UOp *x) {
  KG *k = c;
  BufList *ctx = k->pass;
  size_t idx = v0_10_2_buflist_index(ctx, x);
  const UOp *dg = v0_10_2_uop(k, OP_DEFINE_GLOBAL, v0_10_2_dtype_ptr(k, x->dtype, v0_10_2_uop_size(k, x)),
      v0_10_2_value_int(k, (int64_t)idx), 0, NULL);
  return v0_10_2_uop2(k, OP_LOAD, x->dtype, NULL, dg, v0_10_2_st_to_uop(k, v0_10_2_uop_st_unwrap(k, x)));
}

/* STORE (except for COPY/BUFFER_VIEW): SINK(COPY|BUFFER_VIEW) -> the op itself */
const UOp *v0_10_2_add_buffer_ops_sink_meta(void *c, const UOp *s) {
  (void)c;
  return s->nsrc == 1 && (s->src[0]->op == OP_COPY || s->src[0]->op == OP_BUFFER_VIEW) ? s->src[0] : NULL;
}

/* SINK(x) -> STORE(DEFINE_GLOBAL 0, from_shape(x.shape), x).sink() */
const UOp *v0_10_2_add_buffer_ops_sink_store(void *c, const UOp *s) {
  KG *k = c;
  if (s->nsrc != 1 || s->src[0]->op == OP_STORE) return NULL;
  const UOp *x = s->src[0];
  uint32_t n;
  const sint *shape = v0_10_2_uop_shape(k, x, &n);
  const UOp *dg = v0_10_2_uop(
      k, OP_DEFINE_GLOBAL, v0_10_2_dtype_ptr(k, x->dtype, v0_10_2_uop_size(k, x)), v0_10_2_value_int(k, 0), 0, NULL);
  const UOp *store =
      v0_10_2_uop3(k, OP_STORE, dt_void, NULL, dg, v0_10_2_st_to_uop(k, v0_10_2_st_from_shape(&k->stc, n, shape)), x);
  return v0_10_2_uop_sink(k, 1, &store);
}

static const Rule add_buffer_ops_rules[] = {
  {{OP_BUFFER}, load_buf, "load_buf", {{[TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 337}}}},
  {{OP_SINK}, v0_10_2_add_buffer_ops_sink_meta, "SINK(COPY|BUFFER_VIEW)", {{[TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 339}}}},
  {{OP_SINK}, v0_10_2_add_buffer_ops_sink_store, "SINK -> STORE", {{[TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 340}}}},
};
const PatternMatcher v0_10_2_pm_add_buffer_ops = {add_buffer_ops_rules, 3};

size_t v0_10_2_buflist_index(BufList *l, const UOp *x) {
  void *have = omap_get(&l->index, omap_ptr(x));
  if (have) return (size_t)(uintptr_t)have - 1;
  if (l->n == l->cap) l->items = arena_grow(l->arena, l->items, l->n, &l->cap, sizeof *l->items);
  l->items[l->n++] = x;
  omap_put(&l->index, omap_ptr(x), (void *)(uintptr_t)l->n);
  return l->n - 1;
}

/* ---------------------------------------------------------------- unbind_vars */

/* schedule.py unbind_variable: BIND(var, CONST val) -> var, ctx[var.replace(src=())] = val.arg */
static const UOp *unbind_variable(void *c, const UOp *bind) {
  KG *k = c;
  OMap *var_vals = k->pass;
  if (bind->nsrc != 2 || (bind->src[1]->op != OP_CONST && bind->src[1]->op != OP_VCONST)) return NULL;
  const UOp *var = bind->src[0];
  omap_put(var_vals, omap_ptr(v0_10_2_replace_src(k, var, 0, NULL)), (void *)bind->src[1]->arg);
  return var;
}
static const Rule unbind_vars_rules[] = {{{OP_BIND}, unbind_variable, "unbind_variable", {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 377}, [TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 347}}}}};
const PatternMatcher v0_10_2_pm_unbind_vars = {unbind_vars_rules, 1};

/* ---------------------------------------------------------------- view_right */

/* STORE(.., ASSIGN(VIEW(BUFFER), new_val)) -> VIEW(STORE(.., new_val)) */
static const UOp *view_right_store_assign(void *c, const UOp *s) {
  KG *k = c;
  if (s->nsrc != 3 || s->src[2]->op != OP_ASSIGN || s->src[2]->nsrc != 2) return NULL;
  const UOp *target = s->src[2]->src[0], *val = s->src[2]->src[1];
  const UOp *store = v0_10_2_uop3(k, OP_STORE, dt_void, NULL, s->src[0], s->src[1], val);
  return v0_10_2_apply_swizzle(k, v0_10_2_uop_view(k, store, v0_10_2_uop_st_unwrap(k, target)));
}

/* STORE is the last child, so we just merge the ShapeTrackers and store the base */
static const UOp *view_right_store_view(void *c, const UOp *s) {
  KG *k = c;
  if (s->nsrc != 3 || s->src[2]->op != OP_VIEW || s->src[2]->nsrc != 1) return NULL;
  const UOp *st = s->src[1], *val = s->src[2]->src[0];
  return v0_10_2_uop3(
      k, OP_STORE, dt_void, NULL, s->src[0], v0_10_2_uop_view(k, st, v0_10_2_uop_st_unwrap(k, val)), val);
}

/* schedule.py swizzle_r (a0b4465 swizzle_reduceop's body: a VIEW src keeps its
 * arg, src.view(src.arg+new_input_st), and the new REDUCE_AXIS is built as is) */
const UOp *v0_10_2_swizzle_r(KG *k, const UOp *r, const UOp *src, const ST *st) {
  StCtx *sc = &k->stc;
  uint32_t n;
  const sint *sshape = v0_10_2_uop_shape(k, src, &n);
  const ST *input_st = v0_10_2_st_from_shape(sc, n, sshape);
  int64_t axis[ST_MAXDIM], perm[ST_MAXDIM];
  uint32_t na = v0_10_2_axis_arg(r, axis), np = 0;
  for (uint32_t i = 0; i < n; i++) {
    bool in = false;
    for (uint32_t j = 0; j < na; j++) in |= axis[j] == (int64_t)i;
    if (!in) perm[np++] = i;
  }
  if (np + na != n || na == 0) error_unsupported("swizzle_r with an unusual axis arg");
  for (uint32_t j = 0; j < na; j++) perm[np++] = axis[j];
  const ST *tmp = v0_10_2_st_permute(sc, input_st, perm);
  const sint *rshape = st_shape(tmp) + (n - na);
  sint prshape = v0_10_2_sint_prod(sc, na, rshape), strides[ST_MAXDIM];
  strides_for_shape((int)na, rshape, strides);
  const View **nv = arena_array(k->a, st->nviews, sizeof *nv);
  for (int i = 0; i < st->nviews; i++) {
    const View *v = st->views[i];
    uint32_t m = v->ndim + na;
    if (m > ST_MAXDIM) error_unsupported("too many dimensions");
    sint shp[ST_MAXDIM], std[ST_MAXDIM];
    SPair mask[ST_MAXDIM];
    for (int d = 0; d < v->ndim; d++) {
      shp[d] = v->shape[d], std[d] = v0_10_2_sint_mul(sc, v->strides[d], prshape);
      if (v->mask) mask[d] = v->mask[d];
    }
    for (uint32_t d = 0; d < na; d++) {
      shp[v->ndim + d] = rshape[d], std[v->ndim + d] = strides[d];
      mask[v->ndim + d] = (SPair){v0_10_2_sint_of(0), rshape[d]};
    }
    nv[i] = v0_10_2_view_create(sc, m, shp, std, v0_10_2_sint_mul(sc, v->offset, prshape), v->mask ? mask : NULL);
  }
  const ST *new_input_st = v0_10_2_st_add(sc, tmp, v0_10_2_st_new(sc, st->nviews, nv));
  int64_t new_axis[ST_MAXDIM];
  for (uint32_t j = 0; j < na; j++) new_axis[j] = v0_10_2_st_ndim(st) + j;
  if (k->f->fix_kernel_ast) {
    const ST *vst =
        src->op == OP_VIEW ? v0_10_2_st_add(sc, v0_10_2_value_get_st(src->arg), new_input_st) : new_input_st;
    const UOp *sw = v0_10_2_apply_swizzle(k, v0_10_2_uop_view(k, src, vst));
    const Value *arg[2] = {r->arg->u.tuple.items[0], v0_10_2_value_ints(k, na, new_axis)};
    const UOp *red = v0_10_2_uop1(k, OP_REDUCE_AXIS, r->dtype, v_tuple(k->in, 2, arg), sw);
    return v0_10_2_uop_view(k, red, v0_10_2_st_from_shape(sc, v0_10_2_st_ndim(st), st_shape(st)));
  }
  const UOp *sw = v0_10_2_apply_swizzle(k, v0_10_2_uop_view(k, src, new_input_st));
  const UOp *red = v0_10_2_uop_r(k, sw, v0_10_2_reduce_op_of(k, r), na, new_axis);
  return v0_10_2_uop_view(k, red, v0_10_2_st_from_shape(sc, v0_10_2_st_ndim(st), st_shape(st)));
}

/* REDUCE(src.view(contiguous=False)) -> REDUCE(src.view(contiguous=True)).view() */
static const UOp *view_right_swizzle_r(void *c, const UOp *v) {
  KG *k = c;
  if (v->nsrc != 1 || v->src[0]->op != OP_REDUCE_AXIS || v->src[0]->nsrc != 1) return NULL;
  const ST *vst = v0_10_2_value_get_st(v->arg);
  if (st_contiguous(vst)) return NULL;
  return v0_10_2_swizzle_r(k, v->src[0], v->src[0]->src[0], vst);
}

/* schedule.py reduceop_view_right: REDUCE(src.view()) -> REDUCE(src).view() */
static const UOp *reduceop_view_right(void *c, const UOp *r) {
  KG *k = c;
  if (r->nsrc != 1 || r->src[0]->op != OP_VIEW || r->src[0]->nsrc != 1) return NULL;
  const UOp *v = r->src[0], *src = v->src[0];
  const ST *swizzle_st = v0_10_2_uop_st_unwrap(k, v);
  if (!st_contiguous(swizzle_st) || v0_10_2_uop_size(k, v) != v0_10_2_uop_size(k, src))
    error_raise("AssertionError", "can't push %s", v0_10_2_uop_repr_line(k, v));
  int64_t axis[ST_MAXDIM], new_axis[ST_MAXDIM];
  sint out_shape[ST_MAXDIM];
  uint32_t na = v0_10_2_axis_arg(r, axis), n, sn, nn = 0;
  v0_10_2_st_reduce_shape(swizzle_st, na, axis, out_shape);
  n = v0_10_2_st_ndim(swizzle_st);
  const sint *sshape = v0_10_2_uop_shape(k, src, &sn);
  for (uint32_t i = 0; i < sn && i < n; i++)
    if (v0_10_2_sint_bool_ne(&k->stc, sshape[i], out_shape[i])) new_axis[nn++] = i;
  const UOp *red = v0_10_2_uop_r(k, src, v0_10_2_reduce_op_of(k, r), nn, new_axis);
  return v0_10_2_uop_view(k, red, v0_10_2_st_from_shape(&k->stc, n, out_shape));
}

/* schedule.py elementwise_view_right: ALU(src.view()) -> ALU(src).view() */
static const UOp *elementwise_view_right(void *c, const UOp *root) {
  KG *k = c;
  const UOp *first = NULL;
  for (uint32_t i = 0; i < root->nsrc; i++) {
    const UOp *x = root->src[i];
    if (v0_10_2_uop_base(k, x) == x) continue;
    if (!v0_10_2_uop_st(k, v0_10_2_uop_base(k, x)))
      error_raise("AssertionError", "found shapeless VIEW src in %s", v0_10_2_uop_repr_line(k, root));
    if (!first) first = x;
  }
  if (!first) return NULL;
  for (uint32_t i = 0; i < root->nsrc; i++) {
    const UOp *x = root->src[i];
    if (v0_10_2_uop_base(k, x) != x &&
        v0_10_2_uop_size(k, v0_10_2_uop_base(k, x)) != v0_10_2_uop_size(k, v0_10_2_uop_base(k, first)))
      error_raise("AssertionError", "swizzle inputs must have the same size [%s", v0_10_2_uop_repr_line(k, first));
  }
  uint32_t n;
  const sint *bshape = v0_10_2_uop_shape(k, v0_10_2_uop_base(k, first), &n);
  const ST *new_input_st = v0_10_2_st_from_shape(&k->stc, n, bshape);
  const UOp **src = arena_array(k->a, root->nsrc, sizeof *src);
  for (uint32_t i = 0; i < root->nsrc; i++) {
    const UOp *x = root->src[i];
    if (!v0_10_2_uop_st(k, x)) src[i] = x;
    else if (v0_10_2_uop_base(k, x) != x) src[i] = v0_10_2_uop_base(k, x);
    else src[i] = v0_10_2_apply_swizzle(k, v0_10_2_uop_view(k, x, new_input_st));
  }
  const UOp *ret = v0_10_2_replace_src(k, root, root->nsrc, src);
  const sint *oshape = v0_10_2_uop_shape(k, first, &n);
  return v0_10_2_uop_view(k, ret, v0_10_2_st_from_shape(&k->stc, n, oshape));
}

/* schedule.py merge_double_reduce */
static const UOp *merge_double_reduce(void *c, const UOp *root) {
  KG *k = c;
  if (root->nsrc != 1 || root->src[0]->op != OP_REDUCE_AXIS) return NULL;
  const UOp *first = root->src[0];
  if (v0_10_2_reduce_op_of(k, root) != v0_10_2_reduce_op_of(k, first))
    error_raise("AssertionError", "can't merge reduceops with different alu");
  if (v0_10_2_contains_op(k, first->src[0], OP_REDUCE_AXIS))
    error_raise("AssertionError", "can't merge more than two reduceops at a time");
  int64_t a[2 * ST_MAXDIM];
  uint32_t n1 = v0_10_2_axis_arg(root, a), n2 = v0_10_2_axis_arg(first, a + n1);
  const Value *arg[2] = {first->arg->u.tuple.items[0], v0_10_2_value_ints(k, n1 + n2, a)};
  return v0_10_2_replace_arg(k, first, v_tuple(k->in, 2, arg));
}

static const Rule view_right_rules[] = {
  {{OP_STORE}, view_right_store_assign, "STORE(ASSIGN)", {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 331}, [TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 287}}}},
  {{OP_STORE}, view_right_store_view, "STORE(VIEW)", {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 334}, [TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 290}}}},
  {{OP_VIEW}, view_right_swizzle_r, "swizzle_r", {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 336}, [TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 292}}}},
  {{OP_REDUCE_AXIS}, reduceop_view_right, "reduceop_view_right", {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 338}, [TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 294}}}},
  /* UPat((*GroupOp.ALU, Ops.CAST, Ops.BITCAST, Ops.ASSIGN, Ops.CONTIGUOUS, Ops.STORE), name="root") */
  {{OP_EXP2, OP_LOG2, OP_SIN, OP_SQRT, OP_RECIP, OP_NEG, OP_ADD, OP_MUL, OP_IDIV, OP_MAX, OP_MOD, OP_CMPLT, OP_CMPNE,
    OP_XOR, OP_SHL, OP_SHR, OP_OR, OP_AND, OP_THREEFRY, OP_SUB, OP_FDIV, OP_POW, OP_WHERE, OP_MULACC, OP_CAST,
    OP_BITCAST, OP_ASSIGN, OP_CONTIGUOUS, OP_STORE},
   elementwise_view_right, "elementwise_view_right", {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 340}, [TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 296}}}},
  {{OP_REDUCE_AXIS}, merge_double_reduce, "merge_double_reduce", {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 342}, [TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 298}}}},
};
const PatternMatcher v0_10_2_pm_view_right = {view_right_rules, sizeof view_right_rules / sizeof *view_right_rules};

/* ---------------------------------------------------------------- fix_kernel_ops */

/* The tensor-graph UOp of a variable of a ShapeTracker: UOp(DEFINE_VAR, int, arg=(name, min, max)) */
const UOp *v0_10_2_define_var_uop(KG *k, sint var) {
  const char *name;
  int64_t lo, hi;
  v0_10_2_sint_var_arg(var, &name, &lo, &hi);
  const Value *arg[3] = {v_str(k->in, name), v0_10_2_value_int(k, lo), v0_10_2_value_int(k, hi)};
  return v0_10_2_uop(k, OP_DEFINE_VAR, dt_int, v_tuple(k->in, 3, arg), 0, NULL);
}

/* schedule.py _append_st_vars: BIND in shapetracker becomes DEFINE_VAR
 *   st = unwrap(x.st).simplify()
 *   if any(x.op is Ops.BIND for x in st.vars()): st, var_vals = st.unbind(); ctx.update(var_vals)
 *   return st.to_uop() if st != x.st else None */
const UOp *v0_10_2_append_st_vars(void *c, const UOp *x) {
  KG *k = c;
  enum { MAXVARS = 64 };
  sint vars[MAXVARS];
  int64_t vals[MAXVARS];
  int nvars = 0;
  const ST *st = v0_10_2_uop_st_unwrap(k, x),
           *s = v0_10_2_st_unbind_binds(&k->stc, v0_10_2_st_simplify(&k->stc, st), vars, vals, &nvars, MAXVARS);
  for (int i = 0; i < nvars; i++)
    omap_put(k->pass, omap_ptr(v0_10_2_define_var_uop(k, vars[i])), (void *)v0_10_2_value_int(k, vals[i]));
  return s != st ? v0_10_2_st_to_uop(k, s) : NULL;
}

const UOp *v0_10_2_fix_kernel_ops_remove_contiguous(void *c, const UOp *u) {
  (void)c;
  return u->nsrc == 1 ? u->src[0] : NULL;
}
const UOp *v0_10_2_fix_kernel_ops_remove_assign(void *c, const UOp *u) {
  (void)c;
  return u->nsrc == 2 ? u->src[1] : NULL;
}
const UOp *v0_10_2_fix_kernel_ops_view_device(void *c, const UOp *view) {
  return view->nsrc == 1 && view->src[0]->op == OP_DEVICE ? v0_10_2_replace_src(c, view, 0, NULL) : NULL;
}
/* no ImageDType after load */
const UOp *v0_10_2_fix_kernel_ops_no_image(void *c, const UOp *x) {
  if (x->op == OP_DEFINE_GLOBAL || !x->dtype->is_image) return NULL;
  return v0_10_2_replace_dtype(c, x, x->dtype->base);
}

/* check_load_st's test of a load of the buffer the kernel also assigns to: the
 * view is fine when contiguous, or a single view that becomes contiguous when
 * its expanded axes are shrunk, or equal to a contiguous one on its mask;
 * otherwise tinygrad raises */
void v0_10_2_check_assign_load_st(KG *k, const ST *st) {
  if (st_contiguous(st)) return;
  if (st->nviews == 1) {
    const View *v = st->views[0];
    SPair arg[ST_MAXDIM];
    for (int i = 0; i < v->ndim; i++)
      arg[i] = (SPair){v0_10_2_sint_of(0), v0_10_2_sint_eq_int(v->strides[i], 0) ? v0_10_2_sint_of(1) : v->shape[i]};
    if (st_contiguous(v0_10_2_st_shrink(&k->stc, st, arg))) return;
    if (v->mask && v0_10_2_st_shrink(&k->stc, v0_10_2_st_from_shape(&k->stc, v->ndim, v->shape), v->mask) ==
                       v0_10_2_st_shrink(&k->stc, st, v->mask))
      return;
  }
  error_raise("RuntimeError",
           "self operand of augmented assign must be contiguous.\nhelp: consider using .contiguous():\n"
           "\x1b[31m   - a += a.T\n\x1b[0m\x1b[32m   + a += a.T.contiguous()\x1b[0m");
}

/* schedule.py check_load_st */
static const UOp *check_load_st(void *c, const UOp *ld) {
  KG *k = c;
  if (ld->nsrc != 2) return NULL;
  const UOp *glbl = ld->src[0], *view = ld->src[1];
  if (!(glbl->arg->kind == V_INT && glbl->arg->u.i == 0)) return NULL;
  v0_10_2_check_assign_load_st(k, v0_10_2_uop_st_unwrap(k, view));
  return NULL;
}

static const Rule fix_kernel_ops_rules[] = {
  {{OP_VIEW}, v0_10_2_append_st_vars, "_append_st_vars", {{[TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 320}}}},
  {{OP_CONTIGUOUS}, v0_10_2_fix_kernel_ops_remove_contiguous, "remove CONTIGUOUS", {{[TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 322}}}},
  {{OP_ASSIGN}, v0_10_2_fix_kernel_ops_remove_assign, "remove ASSIGN", {{[TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 323}}}},
  {{OP_VIEW}, v0_10_2_fix_kernel_ops_view_device, "VIEW(DEVICE)", {{[TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 324}}}},
  {{OP_NONE}, v0_10_2_fix_kernel_ops_no_image, "no ImageDType after load", {{[TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 326}}}},
  {{OP_LOAD}, check_load_st, "check_load_st", {{[TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 328}}}},
};
const PatternMatcher v0_10_2_pm_fix_kernel_ops = {
    fix_kernel_ops_rules, sizeof fix_kernel_ops_rules / sizeof *fix_kernel_ops_rules};

/* ---------------------------------------------------------------- substitute */

static const UOp *sub_rule(void *c, const UOp *x) {
  KG *k = c;
  return omap_get(k->pass, omap_ptr(x));
}
static const Rule substitute_rules[] = {{{OP_NONE}, sub_rule, "_substitute",
    {{[TG_0_10_1] = {V0_10_2_OPS_PY, 1224}, [TG_0_10_2] = {V0_10_2_OPS_PY, 958}, [TG_0_10_2_A0B4465] = {V0_10_2_OPS_PY, 969}}}}};
static const PatternMatcher pm_substitute = {substitute_rules, 1};

/* UOp.substitute: with Context(TRACK_MATCH_STATS=0): graph_rewrite(self, _substitute, dvars, bottom_up=True) */
const UOp *v0_10_2_uop_substitute(KG *k, const UOp *u, OMap *dvars) {
  if (!omap_len(dvars)) return u; /* no rule can match: the rewrite gives u back */
  void *saved = k->pass;
  k->pass = dvars;
  const PatternMatcher *pm = &pm_substitute;
  const UOp *r = graph_rewrite_untracked(k->in, u, &pm, 1, k, true); /* under Context(TRACK_MATCH_STATS=0) */
  k->pass = saved;
  return r;
}
