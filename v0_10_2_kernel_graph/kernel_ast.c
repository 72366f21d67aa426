/* kernel_ast.c — from a KERNEL to its AST in tinygrad 0.10.2+a0b4465
 * engine/schedule.py: fix_kernel_ast and the matchers it runs, view_right
 * (swizzle_reduceop, reduceop_view_right, elementwise_view_right),
 * add_buffer_ops and fix_kernel_ops (unbind_shapetracker, unbind_variable,
 * check_load_st). It replaces 0.10.2's schedule_uop (kernel.c). */
#include <stdio.h>
#include <string.h>
#include "kernel_rules.h"

/* fix_kernel_ast's ctx=(var_vals, bufs) */
typedef struct FixCtx {
  OMap *var_vals;
  const UOp *const *bufs;
  size_t nbufs;
} FixCtx;

/* schedule.py DONT_PUSH_VIEWS */
static bool dont_push_view(Op op) {
  switch (op) {
    case OP_BUFFER: case OP_CONST: case OP_BIND: case OP_DEVICE: case OP_ASSIGN: case OP_SINK: case OP_CONTIGUOUS: case OP_COPY: return true;
    default: return false;
  }
}

/* ---------------------------------------------------------------- view_right */

/* schedule.py swizzle_reduceop: push a non contiguous ShapeTracker through reduceop */
static const UOp *swizzle_reduceop(void *c, const UOp *view) {
  KG *k = c;
  if (view->nsrc != 1 || view->src[0]->op != OP_REDUCE_AXIS || view->src[0]->nsrc != 1) return NULL;
  const ST *st = v0_10_2_uop_st_unwrap(k, view);
  if (st_contiguous(st)) return NULL;
  return v0_10_2_swizzle_r(k, view->src[0], view->src[0]->src[0], st);
}

/* schedule.py reduceop_view_right: apply view after reduceops */
static const UOp *reduceop_view_right(void *c, const UOp *r) {
  KG *k = c;
  if (r->nsrc != 1 || r->src[0]->op != OP_VIEW || r->src[0]->nsrc != 1 || dont_push_view(r->src[0]->src[0]->op)) return NULL;
  const UOp *v = r->src[0], *src = v->src[0];
  uint32_t sn, rn;
  const sint *sshape = v0_10_2_uop_shape(k, src, &sn), *rshape = v0_10_2_uop_shape(k, r, &rn);
  if (!st_contiguous(v0_10_2_uop_st_unwrap(k, v)) || v0_10_2_uop_size(k, v) != v0_10_2_uop_size(k, src))
    error_raise("AssertionError", "can't compute new axis for %s -> %s",
        v0_10_2_py_repr(k, v0_10_2_value_sints(k, sn, sshape)), v0_10_2_py_repr(k, v0_10_2_value_sints(k, rn, rshape)));
  int64_t axis[ST_MAXDIM];
  uint32_t na = 0;
  for (uint32_t i = 0; i < sn && i < rn; i++)
    if (v0_10_2_sint_bool_ne(&k->stc, sshape[i], rshape[i])) axis[na++] = i;
  return v0_10_2_uop_view(
      k, v0_10_2_uop_r(k, src, v0_10_2_reduce_op_of(k, r), na, axis), v0_10_2_st_from_shape(&k->stc, rn, rshape));
}

/* schedule.py elementwise_view_right: apply view after elementwise ops */
static const UOp *elementwise_view_right(void *c, const UOp *root) {
  KG *k = c;
  if (dont_push_view(root->op)) return NULL;
  const UOp *first = NULL;
  for (uint32_t i = 0; i < root->nsrc; i++) {
    const UOp *x = root->src[i];
    if (x->op != OP_VIEW || dont_push_view(v0_10_2_uop_base(k, x)->op)) continue;
    if (!first) first = x;
    else if (v0_10_2_uop_size(k, v0_10_2_uop_base(k, x)) != v0_10_2_uop_size(k, v0_10_2_uop_base(k, first)))
      error_raise("AssertionError", "swizzle inputs must have the same size [%s", v0_10_2_uop_repr_line(k, first));
  }
  if (!first) return NULL;
  uint32_t n;
  const sint *bshape = v0_10_2_uop_shape(k, v0_10_2_uop_base(k, first), &n);
  const ST *new_st = v0_10_2_st_from_shape(&k->stc, n, bshape);
  const UOp **src = arena_array(k->a, root->nsrc, sizeof *src);
  for (uint32_t i = 0; i < root->nsrc; i++) {
    const UOp *x = root->src[i], *xb = v0_10_2_uop_base(k, x);
    uint32_t xn;
    const sint *xshape = v0_10_2_uop_shape(k, xb, &xn);
    if (v0_10_2_sint_shapes_eq(xn, xshape, n, bshape)) src[i] = xb;
    else if (x->op == OP_VIEW)
      src[i] = v0_10_2_apply_swizzle(
          k, v0_10_2_uop_view(k, x, v0_10_2_st_add(&k->stc, v0_10_2_value_get_st(x->arg), new_st)));
    else src[i] = v0_10_2_apply_swizzle(k, v0_10_2_uop_view(k, x, new_st));
  }
  uint32_t rn;
  const sint *rshape = v0_10_2_uop_shape(k, root, &rn);
  return v0_10_2_uop_reshape(k, v0_10_2_replace_src(k, root, root->nsrc, src), rn, rshape);
}

/* merge axes for double reduce (invert of SPLIT_REDUCEOP=1): r1.replace(arg=(r1.arg[0], r2.arg[1]+r1.arg[1])) */
static const UOp *merge_double_reduce(void *c, const UOp *r2) {
  KG *k = c;
  if (r2->nsrc != 1 || r2->src[0]->op != OP_REDUCE_AXIS) return NULL;
  const UOp *r1 = r2->src[0];
  if (v0_10_2_reduce_op_of(k, r1) != v0_10_2_reduce_op_of(k, r2)) return NULL;
  int64_t a[2 * ST_MAXDIM];
  uint32_t n2 = v0_10_2_axis_arg(r2, a), n1 = v0_10_2_axis_arg(r1, a + n2);
  const Value *arg[2] = {r1->arg->u.tuple.items[0], v0_10_2_value_ints(k, n1 + n2, a)};
  return v0_10_2_replace_arg(k, r1, v_tuple(k->in, 2, arg));
}

static const Rule view_right_rules[] = {
  {{OP_VIEW}, swizzle_reduceop, "swizzle_reduceop", {{[TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 306}}}},
  {{OP_REDUCE_AXIS}, reduceop_view_right, "reduceop_view_right", {{[TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 308}}}},
  {{OP_NONE}, elementwise_view_right, "elementwise_view_right", {{[TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 310}}}},
  {{OP_REDUCE_AXIS}, merge_double_reduce, "merge axes for double reduce", {{[TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 312}}}},
};
static const PatternMatcher pm_view_right_a0b4465 = {view_right_rules, sizeof view_right_rules / sizeof *view_right_rules};

/* ---------------------------------------------------------------- add_buffer_ops */

/* LOAD: UOp.load(UOp(Ops.DEFINE_GLOBAL, x.dtype.ptr(x.size), (), ctx[1].index(x)), x.st.to_uop(), dtype=x.dtype) */
static const UOp *load_buffer(void *c, const UOp *x) {
  KG *k = c;
  FixCtx *ctx = k->pass;
  size_t idx = ctx->nbufs;
  for (size_t i = 0; i < ctx->nbufs && idx == ctx->nbufs; i++)
    if (ctx->bufs[i] == x) idx = i;
  if (idx == ctx->nbufs) error_raise("ValueError", "tuple.index(x): x not in tuple");
  const UOp *dg = v0_10_2_uop(k, OP_DEFINE_GLOBAL, v0_10_2_dtype_ptr(k, x->dtype, v0_10_2_uop_size(k, x)),
      v0_10_2_value_int(k, (int64_t)idx), 0, NULL);
  return v0_10_2_uop2(k, OP_LOAD, x->dtype, NULL, dg, v0_10_2_st_to_uop(k, v0_10_2_uop_st_unwrap(k, x)));
}

/* partial assign can store to a non-contiguous ShapeTracker:
 * UOp.store(DEFINE_GLOBAL(x.dtype.ptr(x.src[0].base.size), 0), x.src[0].st.to_uop(), x.src[1]).sink() */
static const UOp *sink_of_assign(void *c, const UOp *s) {
  KG *k = c;
  if (s->nsrc != 1 || s->src[0]->op != OP_ASSIGN || s->src[0]->nsrc != 2) return NULL;
  const UOp *x = s->src[0], *target = x->src[0];
  const UOp *dg =
      v0_10_2_uop(k, OP_DEFINE_GLOBAL, v0_10_2_dtype_ptr(k, x->dtype, v0_10_2_uop_size(k, v0_10_2_uop_base(k, target))),
          v0_10_2_value_int(k, 0), 0, NULL);
  const UOp *store =
      v0_10_2_uop3(k, OP_STORE, dt_void, NULL, dg, v0_10_2_st_to_uop(k, v0_10_2_uop_st_unwrap(k, target)), x->src[1]);
  return v0_10_2_uop_sink(k, 1, &store);
}

/* VALID: VIEW(CONST|DEFINE_VAR) -> x.valid(view.arg) */
static const UOp *view_of_const(void *c, const UOp *view) {
  if (view->nsrc != 1 || (view->src[0]->op != OP_CONST && view->src[0]->op != OP_DEFINE_VAR)) return NULL;
  return v0_10_2_uop_valid(c, view->src[0], v0_10_2_value_get_st(view->arg));
}

/* if the last child is a VIEW we merge the ShapeTrackers and store the base */
static const UOp *store_of_view(void *c, const UOp *s) {
  KG *k = c;
  if (s->nsrc != 3 || s->src[2]->op != OP_VIEW || s->src[2]->nsrc != 1 || dont_push_view(s->src[2]->src[0]->op)) return NULL;
  const UOp *x = s->src[2]->src[0];
  const ST *st = v0_10_2_st_add(&k->stc, v0_10_2_value_get_st(s->src[1]->arg), v0_10_2_uop_st_unwrap(k, x));
  return v0_10_2_uop3(k, OP_STORE, dt_void, NULL, s->src[0], v0_10_2_st_to_uop(k, st), x);
}

/* ---------------------------------------------------------------- fix_kernel_ops */

/* schedule.py unbind_shapetracker: BIND in shapetracker becomes DEFINE_VAR, x.replace(arg=st) */
static const UOp *unbind_shapetracker(void *c, const UOp *x) {
  KG *k = c;
  FixCtx *ctx = k->pass;
  enum { MAXVARS = 64 };
  sint vars[MAXVARS];
  int64_t vals[MAXVARS];
  int nvars = 0;
  const ST *st = v0_10_2_uop_st_unwrap(k, x),
           *s = v0_10_2_st_unbind_binds(&k->stc, v0_10_2_st_simplify(&k->stc, st), vars, vals, &nvars, MAXVARS);
  for (int i = 0; i < nvars; i++)
    omap_put(ctx->var_vals, omap_ptr(v0_10_2_define_var_uop(k, vars[i])), (void *)v0_10_2_value_int(k, vals[i]));
  return s != st ? v0_10_2_replace_arg(k, x, v0_10_2_value_st(k, s)) : NULL;
}

/* schedule.py unbind_variable: BIND(var, CONST val) -> var, ctx[0][var.replace(src=())] = val.arg */
static const UOp *unbind_variable(void *c, const UOp *bind) {
  KG *k = c;
  FixCtx *ctx = k->pass;
  if (bind->nsrc != 2 || (bind->src[1]->op != OP_CONST && bind->src[1]->op != OP_VCONST)) return NULL;
  const UOp *var = bind->src[0];
  omap_put(ctx->var_vals, omap_ptr(v0_10_2_replace_src(k, var, 0, NULL)), (void *)bind->src[1]->arg);
  return var;
}

/* schedule.py check_load_st */
static const UOp *check_load_st(void *c, const UOp *ld) {
  KG *k = c;
  if (ld->nsrc != 2) return NULL;
  const UOp *glbl = ld->src[0], *view = ld->src[1];
  if (!(glbl->arg && glbl->arg->kind == V_INT && glbl->arg->u.i == 0)) return NULL;
  v0_10_2_check_assign_load_st(k, v0_10_2_uop_st_unwrap(k, view));
  return NULL;
}

/* merge_views+add_buffer_ops+fix_kernel_ops, in that order (merge_views is tensor_rules.c's) */
static const Rule add_buffer_ops_rules[] = {
  {{OP_BUFFER}, load_buffer, "LOAD", {{[TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 333}}}},
  {{OP_SINK}, v0_10_2_add_buffer_ops_sink_meta, "STORE (except for meta ops)", {{[TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 335}}}},
  {{OP_SINK}, sink_of_assign, "partial assign can store to a non-contiguous ShapeTracker", {{[TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 337}}}},
  {{OP_SINK}, v0_10_2_add_buffer_ops_sink_store, "otherwise the store is contiguous", {{[TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 340}}}},
  {{OP_VIEW}, view_of_const, "VALID", {{[TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 343}}}},
  {{OP_STORE}, store_of_view, "if the last child is a VIEW we merge the ShapeTrackers and store the base", {{[TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 345}}}},
};
static const PatternMatcher pm_add_buffer_ops_a0b4465 = {add_buffer_ops_rules, sizeof add_buffer_ops_rules / sizeof *add_buffer_ops_rules};

static const Rule fix_kernel_ops_rules[] = {
  {{OP_CONTIGUOUS}, v0_10_2_fix_kernel_ops_remove_contiguous, "remove CONTIGUOUS", {{[TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 361}}}},
  {{OP_VIEW}, v0_10_2_fix_kernel_ops_view_device, "VIEW(DEVICE)", {{[TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 362}}}},
  {{OP_VIEW}, unbind_shapetracker, "unbind_shapetracker", {{[TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 364}}}},
  {{OP_BIND}, unbind_variable, "unbind_variable", {{[TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 365}}}},
  {{OP_NONE}, v0_10_2_fix_kernel_ops_no_image, "no ImageDType after load", {{[TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 367}}}},
  {{OP_LOAD}, check_load_st, "check_load_st", {{[TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 369}}}},
};
static const PatternMatcher pm_fix_kernel_ops_a0b4465 = {fix_kernel_ops_rules, sizeof fix_kernel_ops_rules / sizeof *fix_kernel_ops_rules};

/* ---------------------------------------------------------------- fix_kernel_ast */

/* "all buffers must be on the same device: ['CPU', 'NPY']" */
_Noreturn static void devices_differ(KG *k, const UOp *const *bufs, size_t n) {
  size_t cap = 64;
  for (size_t i = 0; i < n; i++) cap += strlen(v0_10_2_uop_device(k, bufs[i])) + 4;
  char *msg = arena_alloc(k->a, cap);
  size_t w = (size_t)snprintf(msg, cap, "all buffers must be on the same device: [");
  for (size_t i = 0; i < n; i++)
    w += (size_t)snprintf(msg + w, cap - w, "%s'%s'", i ? ", " : "", v0_10_2_uop_device(k, bufs[i]));
  snprintf(msg + w, cap - w, "]");
  error_raise("RuntimeError", "%s", msg);
}

/* schedule.py fix_kernel_ast(k, var_vals) -> the ScheduleItem of KERNEL kern */
void v0_10_2_fix_kernel_ast(KG *k, Arena *tmp, const UOp *kern, OMap *var_vals, ScheduleItem *out) {
  if (kern->op != OP_KERNEL)
    error_raise("AssertionError", "kernel isn't kernel, it's %s", v0_10_2_uop_repr_line(k, kern));
  /* substitute kernel sources for the target buffer + apply reshapes */
  OMap parents_rep;
  omap_init(&parents_rep, tmp);
  for (uint32_t i = 0; i < kern->nsrc; i++) {
    const UOp *s = kern->src[i];
    if (s->op != OP_ASSIGN) continue;
    const UOp *ast = v0_10_2_kernel_arg_ast(k, s->src[1]), *b = v0_10_2_uop_buf_uop(k, s);
    for (uint32_t j = 0; j < ast->nsrc; j++)
      omap_put(
          &parents_rep, omap_ptr(ast->src[j]), (void *)v0_10_2_uop_view(k, b, v0_10_2_uop_st_unwrap(k, ast->src[j])));
  }
  const UOp *ast = v0_10_2_uop_substitute(k, v0_10_2_kernel_arg_ast(k, kern), &parents_rep);
  /* push views to edges */
  const PatternMatcher *left[2] = {&v0_10_2_pm_merge_views, &v0_10_2_pm_view_left},
                       *right[2] = {&v0_10_2_pm_merge_views, &pm_view_right_a0b4465};
  static const PyLoc at_views = {{[TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 381}}}, at_fix = {{[TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 383}}};
  ast = graph_rewrite_at(&at_views, k->in, ast, left, 2, k, false);
  ast = graph_rewrite_at(&at_views, k->in, ast, right, 2, k, false);
  /* add buffer ops + fix_kernel_ops */
  const UOp **bufs = arena_array(tmp, kern->nsrc ? kern->nsrc : 1, sizeof *bufs);
  for (uint32_t i = 0; i < kern->nsrc; i++) bufs[i] = v0_10_2_uop_buf_uop(k, kern->src[i]);
  FixCtx ctx = {var_vals, bufs, kern->nsrc};
  void *saved = k->pass;
  k->pass = &ctx;
  const PatternMatcher *fix[3] = {&v0_10_2_pm_merge_views, &pm_add_buffer_ops_a0b4465, &pm_fix_kernel_ops_a0b4465};
  ast = graph_rewrite_at(&at_fix, k->in, ast, fix, 3, k, true);
  k->pass = saved;
  for (uint32_t i = 0; ast->op == OP_SINK && i < kern->nsrc; i++) {
    if (!v0_10_2_uop_device(k, bufs[i])) error_unsupported("a kernel buffer without a device");
    if (strcmp(v0_10_2_uop_device(k, bufs[i]), v0_10_2_uop_device(k, bufs[0])) != 0)
      devices_differ(k, bufs, kern->nsrc);
  }
  /* create subbuffer (TODO: this does not belong here) */
  if (ast->op == OP_BUFFER_VIEW) {
    if (kern->nsrc < 2) error_raise("IndexError", "tuple index out of range");
    const Value *off = ast->arg->kind == V_TUPLE && ast->arg->u.tuple.n == 2 ? ast->arg->u.tuple.items[1] : NULL;
    if (!off || off->kind != V_INT) error_unsupported("a BUFFER_VIEW with a symbolic offset");
    Buf *base = v0_10_2_uop_buffer(k, bufs[1]);
    omap_put(&k->buffers, omap_ptr(bufs[0]),
        v0_10_2_buffer_view(k, base, v0_10_2_uop_size(k, ast), ast->dtype, off->u.i * base->dtype->itemsize));
  }
  out->ast = ast;
  out->bufs = arena_array(k->a, kern->nsrc ? kern->nsrc : 1, sizeof *out->bufs);
  out->nbufs = kern->nsrc;
  for (uint32_t i = 0; i < kern->nsrc; i++) out->bufs[i] = v0_10_2_uop_buffer(k, bufs[i]);
  out->metadata = v0_10_2_kernel_arg_metadata(kern);
}
