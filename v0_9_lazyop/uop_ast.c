/* uop_ast.c — tinygrad 0.9.2+197f8fd engine/schedule.py full_ast_rewrite:
 * the UOp AST _recursive_uop built (lazyop.c) goes through
 *   reduceop_fusor: a SWIZZLE (movement op) on a reduce is pushed up to the
 *     loads (push_swizzle_up_through_reduce) or down to the STORE through
 *     reduces and elementwise ops (push_swizzle_down_through_reduce,
 *     _elementwise), a reduce of a reduce merges (merge_double_reduce);
 *   enumerate_bufs: each DEFINE_GLOBAL's Buffer becomes its index in the
 *     item's bufs (untraced, lazyop.c numbers them as it makes them).
 * with UOp.st (ops.py) and st_fixup, the helper that rewrites every
 * SHAPETRACKER under a node. Python recurses; here the walks are loops over
 * explicit stacks. */
#include <stdlib.h>
#include <string.h>
#include "error.h"
#include "rewrite.h"
#include "rewrite_trace.h"
#include <stdio.h>
#include "pipeline.h"
#include "shapetracker.h"

typedef struct FixFrame FixFrame;

typedef struct AstCtx {
  Sched *s;
  const UOp **stack; size_t cap;                /* uop_st's walk */
  FixFrame *fix_stack; size_t fix_cap;          /* st_fixup's frames and the sources they rebuild, */
  const UOp **fix_srcs; size_t fix_srcs_cap;    /* reused by every call */
} AstCtx;

static const StHandle NO_ST_MARK;
#define NO_ST (&NO_ST_MARK)

/* UOp.st, a cached_property, by UOp id for all the kernels (Sched.uop_sts): NULL not known yet, NO_ST None */
static const StHandle *known_st(AstCtx *c, const UOp *u) {
  return u->id < c->s->nuop_sts ? c->s->uop_sts[u->id] : NULL;
}

static void keep_st(AstCtx *c, const UOp *u, const StHandle *x) {
  Sched *s = c->s;
  if (u->id >= s->nuop_sts) {
    size_t n = uop_count(s->in) + 1;
    s->uop_sts = arena_reserve(s->a, s->uop_sts, s->nuop_sts, n, &s->uop_sts_cap, sizeof *s->uop_sts);
    memset(s->uop_sts + s->nuop_sts, 0, (n - s->nuop_sts) * sizeof *s->uop_sts);
    s->nuop_sts = n;
  }
  s->uop_sts[u->id] = x;
}

static const StHandle *arg_st(AstCtx *c, const UOp *u) { return v0_9_st_intern(c->s, u->arg->u.st); }

/* ---------------------------------------------------------------- UOp.st */

/* has_st is False, or the ShapeTracker is the node's own (BUFFER_UOPS, SHAPETRACKER, SWIZZLE) */
static bool st_of_sources(Op op) {
  switch (op) {
    case OP_DEFINE_LOCAL: case OP_DEFINE_GLOBAL: case OP_CONST: case OP_DEFINE_VAR:
    case OP_LOAD: case OP_STORE: case OP_VALID: case OP_SHAPETRACKER: case OP_SWIZZLE:
      return false;
    default:
      return true;
  }
}

/* repr(dtype) (dtype.py) */
static const char *dtype_text(AstCtx *c, const DType *d) {
  char buf[160];
  dtype_repr(d, c->s->v, buf, sizeof buf);
  return arena_printf(
      c->s->a, "%s%s", d->is_ptr && !d->is_image ? "" : "dtypes.", buf); /* PtrDType(dtypes.float) is whole */
}

/* UOp.argstr: the REDUCE_AXIS arg "(BinaryOps.ADD, (0, 1))", an op name, or None */
static const char *argstr(AstCtx *c, const UOp *u) {
  const Value *a = u->arg;
  if (u->op == OP_REDUCE_AXIS && a->kind == V_TUPLE && a->u.tuple.n == 2) {
    const Value *axis = a->u.tuple.items[1];
    const char *t = "";
    for (size_t i = 0; i < axis->u.tuple.n; i++)
      t = arena_printf(c->s->a, "%s%s%lld", t, i ? ", " : "", (long long)axis->u.tuple.items[i]->u.i);
    return arena_printf(c->s->a, "(%s, (%s%s))", a->u.tuple.items[0]->u.str.s, t, axis->u.tuple.n == 1 ? "," : "");
  }
  if (a->kind == V_STR) return a->u.str.s;
  return a->kind == V_NONE ? "None" : "...";
}

/* The first line of repr(u): pretty_print's "UOp(op, dtype, arg=..., src=(" */
static const char *uop_head(AstCtx *c, const UOp *u) {
  return arena_printf(c->s->a, "UOp(%s, %s, arg=%s, src=(%s", v0_9_op_name(c->s, u->op), dtype_text(c, u->dtype),
      argstr(c, u), u->nsrc ? "\n  ...)" : "))");
}

static bool same_shape(const StHandle *a, const StHandle *b) {
  if (v0_9_st_ndim(a) != v0_9_st_ndim(b)) return false;
  for (int i = 0; i < v0_9_st_ndim(a); i++)
    if (!sint_eq(v0_9_st_shape(a, i), v0_9_st_shape(b, i))) return false;
  return true;
}

/* AssertionError(f"UOp parents must have the same shape {self} {[x.shape for x in src_sts]}") */
_Noreturn static void parents_shape_error(AstCtx *c, const UOp *u) {
  Arena *a = c->s->a;
  const char *shapes = "";
  for (uint32_t i = 0; i < u->nsrc; i++) {
    const StHandle *x = known_st(c, u->src[i]);
    if (x != NO_ST)
      shapes = arena_printf(
          a, "%s%s%s", shapes, *shapes ? ", " : "", py_repr_tuple(a, v0_9_st_ndim(x), v0_9_st_shape_of(x)));
  }
  error_raise("AssertionError", "UOp parents must have the same shape %s [%s]", uop_head(c, u), shapes);
}

/* UOp.st of u, whose sources' are known */
static const StHandle *compute_st(AstCtx *c, const UOp *u) {
  Sched *s = c->s;
  switch (u->op) {
    case OP_DEFINE_LOCAL: case OP_DEFINE_GLOBAL: case OP_CONST: case OP_DEFINE_VAR: return NO_ST;
    case OP_SHAPETRACKER: case OP_SWIZZLE: return arg_st(c, u);
    case OP_LOAD: case OP_STORE: case OP_VALID: { /* st_arg */
      uint32_t k = u->op == OP_VALID ? 0 : 1;
      if (u->nsrc <= k || u->src[k]->op != OP_SHAPETRACKER)
        error_unsupported("st_arg of a %s without a SHAPETRACKER", v0_9_op_name(s, u->op));
      const StHandle *x = known_st(c, u->src[k]);   /* the SHAPETRACKER's arg */
      return x ? x : arg_st(c, u->src[k]);
    }
    default: break;
  }
  const StHandle *first = NULL;
  bool same = true;
  for (uint32_t i = 0; i < u->nsrc; i++) {
    const StHandle *x = known_st(c, u->src[i]);
    if (x == NO_ST) continue;
    if (!first) first = x;
    else same = same && same_shape(x, first);
  }
  if (!same) parents_shape_error(c, u);
  if (!first) error_raise("IndexError", "list index out of range");
  if (u->op != OP_REDUCE_AXIS) return first;
  /* ShapeTracker.from_shape(src_sts[0].reduce(self.arg[1])) */
  const Value *axis = u->arg->u.tuple.items[1];
  int n = v0_9_st_ndim(first);
  sint *shape = arena_array(s->a, (size_t)n + 1, sizeof *shape);
  for (int i = 0; i < n; i++) shape[i] = v0_9_st_shape(first, i);
  for (size_t k = 0; k < axis->u.tuple.n; k++) {
    int64_t ax = axis->u.tuple.items[k]->u.i;
    if (ax >= 0 && ax < n) shape[ax] = sint_int(1);
  }
  return v0_9_st_from_shape(s, n, shape);
}

/* UOp.st (a cached_property): NULL for None */
static const StHandle *uop_st(AstCtx *c, const UOp *root) {
  const StHandle *done = known_st(c, root);
  if (done) return done == NO_ST ? NULL : done;
  size_t depth = 0;
  c->stack = arena_grow(c->s->a, c->stack, depth, &c->cap, sizeof *c->stack);
  c->stack[depth++] = root;
  while (depth) {
    const UOp *u = c->stack[depth - 1];
    if (known_st(c, u)) { depth--; continue; }
    bool waiting = false;
    for (uint32_t i = 0; st_of_sources(u->op) && i < u->nsrc; i++) {
      if (known_st(c, u->src[i])) continue;
      c->stack = arena_grow(c->s->a, c->stack, depth, &c->cap, sizeof *c->stack);
      c->stack[depth++] = u->src[i];
      waiting = true;
    }
    if (waiting) continue;
    keep_st(c, u, compute_st(c, u));
    depth--;
  }
  done = known_st(c, root);
  return done == NO_ST ? NULL : done;
}

static const StHandle *some_st(AstCtx *c, const UOp *u) {  /* unwrap(u.st) */
  const StHandle *x = uop_st(c, u);
  if (!x) error_raise("AssertionError", "%s", "");
  return x;
}

/* ---------------------------------------------------------------- st_fixup */

/* the apply_to_st of a st_fixup: lambda st: st+rhs, or lambda st: st.reshape(shape) */
typedef struct Fixup { const StHandle *rhs; const StHandle *shape_of; } Fixup;

/* apply_to_st(x): x + rhs or x.reshape(shape_of.shape) (both memoized in st.c); with MERGE_VIEW
 * a reshape to x's own shape is x (View.reshape: `if self.shape == new_shape: return self`) */
static const StHandle *apply_fixup(AstCtx *c, const Fixup *fx, const StHandle *x) {
  Sched *s = c->s;
  if (fx->rhs) return v0_9_st_add(s, x, fx->rhs);
  if (s->inp->merge_view && same_shape(x, fx->shape_of)) return x;
  return v0_9_st_reshape_as(s, x, fx->shape_of);
}

struct FixFrame { const UOp *u; uint32_t next; size_t srcs_at; };

/* st_fixup(u, apply_to_st, cache) at u: its result, or NULL when u's sources must be fixed first */
static const UOp *fixup_enter(AstCtx *c, const Fixup *fx, OMap *cache, const UOp *u) {
  const UOp *n = omap_get(cache, u->id);
  if (n) return n;
  if (u->op == OP_SHAPETRACKER) {
    const StHandle *new_st = apply_fixup(c, fx, some_st(c, u));
    return new_st->st == u->arg->u.st ? u : v0_9_st_to_uop(c->s, new_st);
  }
  if (u->nsrc == 0) return u;
  const StHandle *x = uop_st(c, u);
  if (x && x == apply_fixup(c, fx, x)) return u;
  return NULL;
}

/* schedule.py st_fixup: every SHAPETRACKER under u through apply_to_st, where a node's st changes */
static const UOp *st_fixup(AstCtx *c, const UOp *root, const Fixup *fx, OMap *cache) {
  const UOp *done = fixup_enter(c, fx, cache, root);
  if (done) return done;
  Arena *a = c->s->a;
  size_t depth = 0, nsrcs = 0;
  c->fix_stack = arena_grow(a, c->fix_stack, depth, &c->fix_cap, sizeof *c->fix_stack);
  c->fix_srcs = arena_reserve(a, c->fix_srcs, nsrcs, nsrcs + root->nsrc, &c->fix_srcs_cap, sizeof *c->fix_srcs);
  c->fix_stack[depth++] = (FixFrame){root, 0, nsrcs};
  nsrcs += root->nsrc;
  while (depth) {
    FixFrame *f = &c->fix_stack[depth - 1];
    if (done) { c->fix_srcs[f->srcs_at + f->next++] = done; done = NULL; }
    if (f->next < f->u->nsrc) {
      const UOp *x = f->u->src[f->next];
      if ((done = fixup_enter(c, fx, cache, x))) continue;
      c->fix_stack = arena_grow(a, c->fix_stack, depth, &c->fix_cap, sizeof *c->fix_stack);
      c->fix_srcs = arena_reserve(a, c->fix_srcs, nsrcs, nsrcs + x->nsrc, &c->fix_srcs_cap, sizeof *c->fix_srcs);
      c->fix_stack[depth++] = (FixFrame){x, 0, nsrcs};
      nsrcs += x->nsrc;
      continue;
    }
    const UOp *u = f->u;
    done = uop_with_src(c->s->in, u, u->nsrc, c->fix_srcs + f->srcs_at);   /* u itself when no source changed */
    omap_put(cache, u->id, (void *)done);
    nsrcs = f->srcs_at;
    depth--;
  }
  return done;
}

/* ---------------------------------------------------------------- reduceop_fusor */

static const Value *axis_of(const UOp *r) { return r->arg->u.tuple.items[1]; }

static int64_t *axis_ints(AstCtx *c, const Value *axis) {
  int64_t *out = arena_array(c->s->a, axis->u.tuple.n + 1, sizeof *out);
  for (size_t i = 0; i < axis->u.tuple.n; i++) out[i] = axis->u.tuple.items[i]->u.i;
  return out;
}

static const Value *axis_value(AstCtx *c, int n, const int64_t *axis) {
  const Value **items = arena_array(c->s->a, (size_t)n + 1, sizeof *items);
  for (int i = 0; i < n; i++) items[i] = v_int(c->s->in, axis[i]);
  return v_tuple(c->s->in, (size_t)n, items);
}

static const Value *reduce_arg(AstCtx *c, const UOp *r, const Value *axis) {
  const Value *arg[2] = {r->arg->u.tuple.items[0], axis};
  return v_tuple(c->s->in, 2, arg);
}

/* x.swizzle(ShapeTracker.from_shape(shape)) */
static const UOp *swizzle_to_shape(AstCtx *c, const UOp *x, int n, const sint *shape) {
  const StHandle *st = v0_9_st_from_shape(c->s, n, shape);
  return uop1(c->s->in, OP_SWIZZLE, x->dtype, v0_9_st_value(c->s, st), x);
}

/* x.swizzle(ShapeTracker.from_shape(st.shape)) (kept on st's handle) */
static const UOp *swizzle_like(AstCtx *c, const UOp *x, const StHandle *st) {
  const StHandle *from = v0_9_st_from_shape_of(c->s, st);
  return uop1(c->s->in, OP_SWIZZLE, x->dtype, v0_9_st_value(c->s, from), x);
}

/* (UPat(UOps.SWIZZLE, src=(UPat(UOps.REDUCE_AXIS, name="reduceop"),), name="swizzle"), push_swizzle_up_through_reduce)
 * — push a SWIZZLE up to LOAD, through a reduce (eg. expands) */
static const UOp *push_swizzle_up_through_reduce(void *ctx, const UOp *swizzle) {
  AstCtx *c = ctx;
  Sched *s = c->s;
  if (swizzle->nsrc != 1 || swizzle->src[0]->op != OP_REDUCE_AXIS) return NULL;
  const UOp *reduceop = swizzle->src[0];
  const StHandle *swizzle_st = some_st(c, swizzle);
  if (swizzle_st->contiguous) return NULL;
  const UOp *rsrc = reduceop->src[0];
  const StHandle *input_st = v0_9_st_from_shape_of(s, some_st(c, rsrc));
  const Value *axis = axis_of(reduceop);
  const int64_t *new_axis = axis_ints(c, axis);
  const StHandle *new_input_st = v0_9_push_view_to_input(s, input_st, swizzle_st, (int)axis->u.tuple.n, &new_axis);
  OMap cache;
  omap_init(&cache, s->a);
  const UOp *src = st_fixup(c, rsrc, &(Fixup){new_input_st, NULL}, &cache);
  const UOp *r = uop1(s->in, OP_REDUCE_AXIS, reduceop->dtype,
      reduce_arg(c, reduceop, axis_value(c, (int)axis->u.tuple.n, new_axis)), src);
  return swizzle_like(c, r, swizzle_st);
}

/* (UPat(UOps.REDUCE_AXIS, src=(UPat(UOps.SWIZZLE, name="swizzle"),), name="root"), push_swizzle_down_through_reduce)
 * — push a SWIZZLE down to STORE, through a reduce (ONLY reshapes) */
static const UOp *push_swizzle_down_through_reduce(void *ctx, const UOp *root) {
  AstCtx *c = ctx;
  if (root->nsrc != 1 || root->src[0]->op != OP_SWIZZLE) return NULL;
  const UOp *swizzle = root->src[0];
  const StHandle *swizzle_st = some_st(c, swizzle);
  if (!swizzle_st->contiguous) error_raise("AssertionError", "can't push a non contiguous SWIZZLE down to STORE");
  const StHandle *in_st = some_st(c, swizzle->src[0]);
  if (!sint_eq(sint_prod(v0_9_st_ndim(swizzle_st), v0_9_st_shape_of(swizzle_st)),
          sint_prod(v0_9_st_ndim(in_st), v0_9_st_shape_of(in_st))))
    error_raise("AssertionError", "can't push expands down to STORE");
  const UOp *r = uop_new(c->s->in, OP_REDUCE_AXIS, root->dtype, root->arg, swizzle->nsrc, swizzle->src);
  int n = v0_9_st_ndim(swizzle_st);   /* swizzle_st.reduce(root.arg[1]) */
  sint *shape = arena_array(c->s->a, (size_t)n + 1, sizeof *shape);
  for (int i = 0; i < n; i++) shape[i] = v0_9_st_shape(swizzle_st, i);
  const Value *axis = axis_of(root);
  for (size_t k = 0; k < axis->u.tuple.n; k++) {
    int64_t ax = axis->u.tuple.items[k]->u.i;
    if (ax >= 0 && ax < n) shape[ax] = sint_int(1);
  }
  return swizzle_to_shape(c, r, n, shape);
}

static sint st_prod(const StHandle *x) { return sint_prod(v0_9_st_ndim(x), v0_9_st_shape_of(x)); }

/* AssertionError(f"swizzles must have the same size {swizzle_shapes}") */
_Noreturn static void swizzle_size_error(AstCtx *c, const UOp *root) {
  Arena *a = c->s->a;
  const char *shapes = "";
  for (uint32_t i = 0; i < root->nsrc; i++) {
    const UOp *x = root->src[i];
    if (x->op != OP_SWIZZLE) continue;
    const StHandle *xs = some_st(c, x), *ys = some_st(c, x->src[0]);
    shapes = arena_printf(a, "%s%s(%s, %s)", shapes, *shapes ? ", " : "",
        py_repr_tuple(a, v0_9_st_ndim(xs), v0_9_st_shape_of(xs)),
        py_repr_tuple(a, v0_9_st_ndim(ys), v0_9_st_shape_of(ys)));
  }
  error_raise("AssertionError", "swizzles must have the same size [%s]", shapes);
}

/* (UPat((UOps.ALU, UOps.CAST, UOps.BITCAST, UOps.ASSIGN, UOps.STORE), name="root"), push_swizzle_down_through_elementwise)
 * — push SWIZZLE(s) down to STORE, through an elementwise op (ONLY reshapes) */
static const UOp *push_swizzle_down_through_elementwise(void *ctx, const UOp *root) {
  AstCtx *c = ctx;
  Sched *s = c->s;
  const StHandle *new_shape = NULL, *new_input = NULL;
  for (uint32_t i = 0; i < root->nsrc; i++) {
    const UOp *x = root->src[i];
    if (x->op != OP_SWIZZLE) continue;
    const StHandle *xs = some_st(c, x), *ys = some_st(c, x->src[0]);
    if (!new_shape) { new_shape = xs, new_input = ys; continue; }
    if (!same_shape(xs, new_shape) || !sint_eq(st_prod(ys), st_prod(new_input))) swizzle_size_error(c, root);
  }
  if (!new_shape) return NULL;
  OMap cache;
  omap_init(&cache, s->a);
  Fixup fx = {NULL, new_input};
  const UOp **srcs = arena_array(s->a, root->nsrc + 1, sizeof *srcs);
  for (uint32_t i = 0; i < root->nsrc; i++) {
    const UOp *x = root->src[i];
    srcs[i] = x->op == OP_SWIZZLE ? x->src[0] : st_fixup(c, x, &fx, &cache);
  }
  const UOp *ret = uop_new(s->in, root->op, root->dtype, root->arg, root->nsrc, srcs);
  return ret->op == OP_STORE ? ret : swizzle_like(c, ret, new_shape);
}

/* any(x.op is UOps.REDUCE_AXIS for x in u.parents) */
static bool has_reduce_parent(AstCtx *c, const UOp *u) {
  const UOp **order;
  size_t n = uop_toposort(c->s->a, u->src, u->nsrc, &order);
  for (size_t i = 0; i < n; i++)
    if (order[i]->op == OP_REDUCE_AXIS) return true;
  return false;
}

/* (UPat(UOps.REDUCE_AXIS, src=(UPat(UOps.REDUCE_AXIS, name="first_reduce"),), name="root"), merge_double_reduce) */
static const UOp *merge_double_reduce(void *ctx, const UOp *root) {
  AstCtx *c = ctx;
  if (root->nsrc != 1 || root->src[0]->op != OP_REDUCE_AXIS) return NULL;
  const UOp *first = root->src[0];
  if (root->arg->u.tuple.items[0] != first->arg->u.tuple.items[0])
    error_raise("AssertionError", "can't merge reduceops with different alu");
  if (has_reduce_parent(c, first)) error_raise("AssertionError", "can't merge more than two reduceops at a time");
  const Value *a = axis_of(root), *b = axis_of(first);
  const Value **items = arena_array(c->s->a, a->u.tuple.n + b->u.tuple.n + 1, sizeof *items);
  memcpy(items, a->u.tuple.items, a->u.tuple.n * sizeof *items);
  memcpy(items + a->u.tuple.n, b->u.tuple.items, b->u.tuple.n * sizeof *items);
  const Value *axis = v_tuple(c->s->in, a->u.tuple.n + b->u.tuple.n, items);
  return uop_new(c->s->in, OP_REDUCE_AXIS, first->dtype, reduce_arg(c, first, axis), first->nsrc, first->src);
}

static const Rule reduceop_fusor_rules[] = {
  {{OP_SWIZZLE}, push_swizzle_up_through_reduce, "push a SWIZZLE up to LOAD, through a reduce",
   {{[TG_0_9_2_197F8FD] = {V0_9_SCHEDULE_PY, 111}}}},
  {{OP_REDUCE_AXIS}, push_swizzle_down_through_reduce, "push a SWIZZLE down to STORE, through a reduce",
   {{[TG_0_9_2_197F8FD] = {V0_9_SCHEDULE_PY, 113}}}},
  {{OP_ALU, OP_UOPS_CAST, OP_UOPS_BITCAST, OP_UOPS_ASSIGN, OP_STORE}, push_swizzle_down_through_elementwise,
   "push SWIZZLE(s) down to STORE, through an elementwise op", {{[TG_0_9_2_197F8FD] = {V0_9_SCHEDULE_PY, 115}}}},
  {{OP_REDUCE_AXIS}, merge_double_reduce, "merge_double_reduce", {{[TG_0_9_2_197F8FD] = {V0_9_SCHEDULE_PY, 116}}}},
};
static const PatternMatcher reduceop_fusor = {reduceop_fusor_rules, 4};

/* ---------------------------------------------------------------- enumerate_bufs */

const Value *v0_9_buffer_arg(Sched *s, const DeviceBuffer *b) {
  char text[24];
  int n = snprintf(text, sizeof text, "%d", b->index);
  return v_strn(s->in, V_BUFREF, text, (size_t)n);
}

/* (UPat(UOps.DEFINE_GLOBAL, name="x"),
 *  lambda ctx,x: x.replace(arg=ctx.bufs.index(x.arg)) if isinstance(x.arg, Buffer) else None) */
static const UOp *number_buffer(void *ctx, const UOp *x) {
  AstCtx *c = ctx;
  if (x->arg->kind != V_BUFREF) return NULL;
  const DeviceBuffer *b = &c->s->inp->buffers[strtol(x->arg->u.str.s, NULL, 10)];
  return uop_new(c->s->in, OP_DEFINE_GLOBAL, x->dtype, v_int(c->s->in, b->bufs_index), x->nsrc, x->src);
}

static const Rule enumerate_bufs_rules[] = {
  {{OP_DEFINE_GLOBAL}, number_buffer, "enumerate_bufs", {{[TG_0_9_2_197F8FD] = {V0_9_SCHEDULE_PY, 120}}}},
};
static const PatternMatcher enumerate_bufs = {enumerate_bufs_rules, 1};

/* ---------------------------------------------------------------- full_ast_rewrite */

/* schedule.py full_ast_rewrite (197f8fd):
 *   if not AST_REWRITE: return sink            (not modelled)
 *   sink = graph_rewrite(sink, reduceop_fusor)
 *   return graph_rewrite(sink, enumerate_bufs, ctx)
 * Untraced, a sink without a reduce is its own result (every rule of reduceop_fusor needs a
 * REDUCE_AXIS or a SWIZZLE, which only a reduce's view makes) and enumerate_bufs has nothing to
 * number (define_global, lazyop.c). */
const UOp *v0_9_full_ast_rewrite(Sched *s, const UOp *sink, bool has_reduce) {
  static const PyLoc at_fusor = {{[TG_0_9_2_197F8FD] = {V0_9_SCHEDULE_PY, 125}}};
  static const PyLoc at_enumerate = {{[TG_0_9_2_197F8FD] = {V0_9_SCHEDULE_PY, 126}}};
  if (!s->inp->ast_rewrite) error_unsupported("AST_REWRITE=0: DEFINE_GLOBALs keep their Buffer objects");
  bool traced = s->in->trace != NULL;
  if (!has_reduce && !traced) return sink;
  AstCtx c = {.s = s};
  const PatternMatcher *fusor[1] = {&reduceop_fusor}, *numbering[1] = {&enumerate_bufs};
  sink = graph_rewrite_at(&at_fusor, s->in, sink, fusor, 1, &c, false);
  if (!traced) return sink;
  return graph_rewrite_at(&at_enumerate, s->in, sink, numbering, 1, &c, false);
}

/* ---------------------------------------------------------------- the trace */

/* TraceEncoding.patch: a DEFINE_GLOBAL's Buffer arg as the trace writes it, {"Buffer": BUFREF} */
static void trace_patch(void *ctx, Codec *c, JVal *nodes) {
  (void)ctx;
  for (size_t i = 0; i < nodes->n; i++) {
    const UOp *u = c->enc_order[i];
    if (u->op != OP_DEFINE_GLOBAL || u->arg->kind != V_BUFREF) continue;
    JVal *o = json_obj(c->out);
    json_set(c->out, o, "Buffer", json_int(c->out, strtol(u->arg->u.str.s, NULL, 10)));
    nodes->u.arr[i]->u.arr[2] = o;
  }
}

void v0_9_trace_emit(Sched *s, const RewriteTrace *t, const Capture *c) {
  TraceEncoding how = {NULL, 0, trace_patch, s};
  rewrite_trace_emit(t, &s->codec, tg_version_name(c->generation), c->name, &how);
}
