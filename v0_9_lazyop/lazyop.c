/* lazyop.c — one kernel's AST from a group of output LazyBuffers:
 * tinygrad 0.9.1 engine/schedule.py _recursive_lazyop and _schedule_group,
 * and 0.9.2's _recursive_lazyop and _lower_lazybuffer (a MetaOps.KERNEL
 * root over the STOREs, reduces through reduce_info, metadata).
 * LazyOps are hash-consed UOps with dtype NULL; structurally equal LazyOps
 * are one node, as LazyOp.__eq__ compares them structurally. */
#include <stdlib.h>
#include <string.h>
#include "pipeline.h"
#include "shapetracker.h"
#include "symbolic.h"

typedef struct LopFrame {
  LazyBuffer *buf;        /* a base being fused */
  const StHandle *st; /* the ShapeTracker its sources see */
  const StHandle *key_st;  /* memo key: (buf, st at entry) */
  int next;
  size_t srcs_at;         /* its sources are s->lop_srcs[srcs_at ...] */
  size_t py;              /* Python frames of the recursion down to here */
  const ReduceInfo *rinfo;  /* 0.9.2 reduce: reduce_info.get((buf, st)); NULL merges it */
} LopFrame;

/* The state of one _schedule_group call. Its per-LazyBuffer parts
 * (outputs.index, inputs.index, assign_targets, one memo entry) are fields
 * of the LazyBuffers, valid for the current item_epoch (item_state). */
typedef struct LopCtx {
  Sched *s;
  LazyBuffer **outputs;
  int noutputs;
  LbList *inputs;
  OMap memo;              /* more (base, st) -> const UOp*: _recursive_lazyop is pure in them */
  size_t depth, nsrcs;    /* frames on s->lop_stack, slots used in s->lop_srcs */
  uint32_t into;          /* for explain: the output whose STORE is being built */
  const ReduceInfos *ri;  /* 0.9.2: reduce_info */
  LbList cached;          /* 0.9.2: the bases of `cache`'s keys, in insertion order (for metadata) */
  bool has_reduce;        /* 197f8fd: a REDUCE_AXIS was made */
} LopCtx;

static LopFrame *frames(LopCtx *x) { return x->s->lop_stack; }

static LazyBuffer *item_state(Sched *s, LazyBuffer *b) {
  if (b->item_mark != s->item_epoch) {
    b->item_mark = s->item_epoch;
    b->out_index = b->in_index = -1;
    b->item_assign = NULL;
    b->memo_st = NULL;
  }
  return b;
}

static int output_index(LopCtx *x, LazyBuffer *b) { return item_state(x->s, b)->out_index; }

/* ctx.bufs = outs+inputs, by Buffer: bufs.index(buffer) is the first LazyBuffer of this kernel with it */
static void note_buf(Sched *s, const LazyBuffer *b, int index) {
  if (b->buffer->bufs_mark == s->item_epoch) return;
  b->buffer->bufs_mark = s->item_epoch;
  b->buffer->bufs_index = index;
}

/* `if buf not in inputs: inputs.append(buf)`; returns inputs.index(buf). */
static int input_index(LopCtx *x, LazyBuffer *b) {
  if (item_state(x->s, b)->in_index < 0) {
    b->in_index = x->inputs->n;
    v0_9_lblist_push(x->s->a, x->inputs, b);
    if (x->s->f->lower_to_uops) note_buf(x->s, b, x->noutputs + b->in_index);
  }
  return b->in_index;
}

static const UOp *memo_get(LopCtx *x, LazyBuffer *b, const StHandle *stk) {
  if (item_state(x->s, b)->memo_st == stk) return b->memo_op;
  return b->memo_st ? omap_get(&x->memo, v0_9_st_memo_key(b, stk)) : NULL;
}

static void memo_put(LopCtx *x, LazyBuffer *b, const StHandle *stk, const UOp *u) {
  if (!item_state(x->s, b)->memo_st) {
    b->memo_st = stk;
    b->memo_op = u;
  } else if (b->memo_st != stk) {
    omap_put(&x->memo, v0_9_st_memo_key(b, stk), (void *)u);
  }
}

/* "we also allow masked views. if it has a single view and it's equal when
 * you shrink a contig, it's fine" */
static void assign_view_ok(Sched *s, const StHandle *ust, bool *ok) {
  *ok = ust->contiguous;
  if (*ok || v0_9_st_nviews(ust) != 1 || !v0_9_st_view_masked(ust, 0)) return;
  const StHandle *contig = v0_9_st_from_shape_of(s, ust);
  *ok = v0_9_st_shrink_by_mask(s, contig, ust) == v0_9_st_shrink_by_mask(s, ust, ust);
}

/* The load of a buffer this kernel does not compute: BufferOps.LOAD from an
 * input, or from the output it assigns to. */
static const UOp *load_op(LopCtx *x, LazyBuffer *buf, const StHandle *stk) {
  Sched *s = x->s;
  const StHandle *ust = v0_9_st_unbind(s, v0_9_st_simplify(s, stk));   /* st.simplify().unbind() */
  LazyBuffer *assign = item_state(s, buf)->item_assign;
  int idx;
  if (assign) {
    bool ok;
    assign_view_ok(s, ust, &ok);
    if (!ok) {
      error_raise("RuntimeError",
                  "self operand of augmented assign must be contiguous.\nhelp: consider using .contiguous():\n"
                  "\x1b[31m   - a += a.T\n\x1b[0m\x1b[32m   + a += a.T.contiguous()\x1b[0m");
    }
    idx = output_index(x, assign);
  } else {
    idx = x->noutputs + input_index(x, buf);
  }
  return uop0(s->in, OP_LOAD, NULL, v_membuffer(s->in, idx, buf->dtype, ust->st));
}

/* The {"sym"} Value of a Node */
static const Value *sym_value(Sched *s, sint x) {
  size_t n;
  char *text = json_to_string(json_get(sint_to_json(s->a, x), "sym"), &n);
  const Value *v = v_strn(s->in, V_SYM, text, n);
  free(text);
  return v;
}

/* "consts are always fused and generated" */
static const UOp *const_op(LopCtx *x, LazyBuffer *buf, const StHandle *stk) {
  Sched *s = x->s;
  const StHandle *ust = v0_9_st_unbind(s, v0_9_st_simplify(s, stk));   /* st.simplify().unbind() */
  const Value *val = buf->arg;
  if (buf->arg_var.sym != NULL) { /* val, var_val = buf.arg.unbind() */
    sint var = sint_unbind(buf->arg_var);
    v0_9_var_vals_put(s, var, ((const SymNode *)buf->arg_var.sym)->val);
    val = sym_value(s, var);
  }
  return uop0(s->in, OP_CONST, NULL, v_constbuffer(s->in, val, buf->dtype, ust->st));
}

static void push_frame(LopCtx *x, LazyBuffer *buf, const StHandle *stk, const StHandle *key_st, size_t py) {
  Sched *s = x->s;
  v0_9_py_recursion_check(py);
  s->lop_stack = arena_grow(s->a, s->lop_stack, x->depth, &s->lop_stack_cap, sizeof(LopFrame));
  s->lop_srcs =
      arena_reserve(s->a, s->lop_srcs, x->nsrcs, x->nsrcs + (size_t)buf->nsrcs, &s->lop_srcs_cap, sizeof *s->lop_srcs);
  frames(x)[x->depth++] = (LopFrame){buf, stk, key_st, 0, x->nsrcs, py, NULL};
  x->nsrcs += (size_t)buf->nsrcs;
}

static _Noreturn void assertion(const char *msg) { error_raise("AssertionError", "%s", msg); }

/* repr() of a LazyBuffer (lazy.py LazyBuffer.__repr__), for an assertion message; the
 * parts of a view (its ShapeTracker) and of a realized base (its Buffer) are not modelled */
const char *v0_9_lazybuffer_repr(Sched *s, const LazyBuffer *b) {
  char dt[64];
  const View *v = st_last(b->st->st);
  const char *tail = b->base != b ? "<view>" : b->realized ? "<realized>" : "None";
  return arena_printf(s->a, "<LB %s %s %s (<%s: %d>, %s)>", b->device, py_repr_tuple(s->a, v->ndim, v->shape),
      dtype_repr(b->dtype, s->v, dt, sizeof dt), v0_9_op_name(s, b->op), op_value(b->op, s->v), tail);
}

/* ---- 0.9.2+197f8fd: _recursive_uop ---- */

/* dtype = buf.dtype.base if isinstance(buf.dtype, ImageDType) else buf.dtype */
static const DType *uop_dtype(const LazyBuffer *b) { return b->dtype->is_image ? b->dtype->base : b->dtype; }

/* buf.dtype if isinstance(buf.dtype, ImageDType) else PtrDType(buf.dtype) */
static const DType *global_dtype(const DType *d) { return d->is_image ? d : dtype_ptr(d, -1, false); }

/* UOp(UOps.DEFINE_GLOBAL, global_dtype(d), (), i), kept by i for the last d asked (Sched.define_globals) */
static const UOp *numbered_global(Sched *s, const DType *d, int i) {
  if ((size_t)i >= s->define_globals_cap) {
    size_t n = s->define_globals_cap;
    s->define_globals =
        arena_reserve(s->a, s->define_globals, n, (size_t)i + 1, &s->define_globals_cap, sizeof *s->define_globals);
    memset(s->define_globals + n, 0, (s->define_globals_cap - n) * sizeof *s->define_globals);
  }
  struct DefineGlobal *g = &s->define_globals[i];
  if (g->dtype != d) *g = (struct DefineGlobal){d, uop0(s->in, OP_DEFINE_GLOBAL, global_dtype(d), v_int(s->in, i))};
  return g->uop;
}

/* UOp(UOps.DEFINE_GLOBAL, buf.dtype if isinstance(buf.dtype, ImageDType) else PtrDType(buf.dtype), (), buf.buffer).
 * Traced, the arg is the Buffer (a V_BUFREF of its input.buffers index) and enumerate_bufs numbers it
 * (uop_ast.c), as in Python. Untraced it is numbered here already as enumerate_bufs would number it
 * (ctx.bufs.index(x.arg)): bufs only grows behind the Buffers in it, so the index is final when the
 * DEFINE_GLOBAL is made, and no rule of reduceop_fusor reads a DEFINE_GLOBAL's arg, so the kernel
 * is the same either way. */
static const UOp *define_global(LopCtx *x, const LazyBuffer *b) {
  Sched *s = x->s;
  if (b->buffer->bufs_mark != s->item_epoch) /* an assign target whose Buffer is not its ASSIGN's */
    error_bad_input("lazybuffers[%d]: its Buffer is in none of the kernel's LazyBuffers", b->index);
  if (s->in->trace) return uop0(s->in, OP_DEFINE_GLOBAL, global_dtype(b->dtype), v0_9_buffer_arg(s, b->buffer));
  return numbered_global(s, b->dtype, b->buffer->bufs_index);
}

/* An op's name as an arg (an ALU's op, REDUCE_ALU's), interned once per op */
static const Value *op_arg(Sched *s, Op op) {
  if (!s->op_args[op]) s->op_args[op] = v_str(s->in, v0_9_op_name(s, op));
  return s->op_args[op];
}

/* ShapeTracker.to_uop: UOp(UOps.SHAPETRACKER, dtypes.void, (), self) */
const UOp *v0_9_st_to_uop(Sched *s, const StHandle *x) {
  if (!x->uop) ((StHandle *)x)->uop = uop0(s->in, OP_SHAPETRACKER, dt_void, v0_9_st_value(s, x));
  return x->uop;
}

/* dtypes.as_const(val, dtype): int(val), float(val) or bool(val) */
static const Value *as_const(Sched *s, const Value *val, const DType *d) {
  if (dtype_is_int(d)) {
    if (value_is_int(val)) return val;
    if (val->kind == V_BOOL) return v_int(s->in, val->u.b);
    const Value *i = val->kind == V_FLOAT ? v_int_of_float(s->in, val->u.f) : NULL;
    if (!i) error_unsupported("int() of a CONST that is no finite float");
    return i;
  }
  if (dtype_is_float(d)) return v_float(s->in, value_to_double(val));
  return v_bool(s->in, value_truthy(val));
}

/* "if it's a const, we generate it": VALID(st).where(UOp.const(dtype, val), UOp.const(dtype, 0)) */
static const UOp *const_uop(LopCtx *x, LazyBuffer *buf, const StHandle *stk) {
  Sched *s = x->s;
  const StHandle *ust = v0_9_st_unbind(s, v0_9_st_simplify(s, stk));   /* st.simplify().unbind() */
  const DType *dt = uop_dtype(buf);
  const UOp *c;
  if (buf->arg_var.sym != NULL) { /* val, var_val = val.unbind(); UOp.const of a Variable is a DEFINE_VAR */
    sint var = sint_unbind(buf->arg_var);
    const SymNode *v = var.sym;
    v0_9_var_vals_put(s, var, ((const SymNode *)buf->arg_var.sym)->val);
    const Value *arg[3] = {v_str(s->in, v->expr), v_int(s->in, v->min), v_int(s->in, v->max)};
    c = uop0(s->in, OP_DEFINE_VAR, dt, v_tuple(s->in, 3, arg));
  } else {
    if (!value_is_number(buf->arg)) error_raise("AssertionError", "cannot create ConstBuffer with value %s", "?");
    c = uop0(s->in, OP_CONST, dt, as_const(s, buf->arg, dt));
  }
  const Value *zero = as_const(s, v_int(s->in, 0), dt);
  const UOp *valid = uop1(s->in, OP_VALID, dt_bool, s->in->none, v0_9_st_to_uop(s, ust));
  return uop3(s->in, OP_ALU, dt, op_arg(s, OP_WHERE), valid, c, uop0(s->in, OP_CONST, dt, zero));
}

/* "otherwise, it's a load and we add it to the inputs": LOAD(DEFINE_GLOBAL, SHAPETRACKER) */
static const UOp *load_uop(LopCtx *x, LazyBuffer *buf, const StHandle *stk) {
  Sched *s = x->s;
  const StHandle *ust = v0_9_st_unbind(s, v0_9_st_simplify(s, stk));   /* st.simplify().unbind() */
  if (item_state(s, buf)->item_assign) {
    bool ok;
    assign_view_ok(s, ust, &ok);
    if (!ok)
      error_raise("RuntimeError",
                  "self operand of augmented assign must be contiguous.\nhelp: consider using .contiguous():\n"
                  "\x1b[31m   - a += a.T\n\x1b[0m\x1b[32m   + a += a.T.contiguous()\x1b[0m");
  } else {
    input_index(x, buf);
  }
  const UOp *global = define_global(x, buf);
  return uop2(s->in, OP_LOAD, uop_dtype(buf), s->in->none, global, v0_9_st_to_uop(s, ust));
}

/* _recursive_uop once buf's sources are built (the ops `cache.setdefault`s, then CONTIGUOUS) */
static const UOp *uop_finish_197(LopCtx *x, const LopFrame *f, const UOp **srcs) {
  Sched *s = x->s;
  LazyBuffer *buf = f->buf;
  const DType *dt = uop_dtype(buf);
  if (buf->op == OP_CONTIGUOUS) {
    if (output_index(x, buf) < 0) error_raise("AssertionError", "%s must be writable", v0_9_op_name(s, buf->op));
    return srcs[0];
  }
  v0_9_lblist_push(s->a, &x->cached, buf);
  if (buf->op == OP_ASSIGN) { /* UOp(UOps.ASSIGN, dtype, (in_uops[1].src[0], in_uops[0])) */
    if (srcs[1]->nsrc == 0) error_unsupported("an ASSIGN whose target lowers to a UOp without sources");
    return uop2(s->in, OP_UOPS_ASSIGN, dt, s->in->none, srcs[1]->src[0], srcs[0]);
  }
  if (buf->op == OP_CAST || buf->op == OP_BITCAST)
    return uop_new(
        s->in, buf->op == OP_CAST ? OP_UOPS_CAST : OP_UOPS_BITCAST, dt, s->in->none, (uint32_t)buf->nsrcs, srcs);
  if (v0_9_is_reduceop(buf->op)) { /* REDUCE_AXIS(dtype, (rsrc,), (REDUCE_ALU[op], buf.arg)).swizzle(st) */
    int naxis;
    const int64_t *axis;
    v0_9_reduce_axis(s, buf, &naxis, &axis);
    Op alu = buf->op == OP_REDUCE_SUM ? OP_ADD : buf->op == OP_REDUCE_PROD ? OP_MUL : OP_MAX;
    const Value *arg[2] = {op_arg(s, alu), buf->arg};
    x->has_reduce = true;
    const UOp *r = uop1(s->in, OP_REDUCE_AXIS, dt, v_tuple(s->in, 2, arg), srcs[0]);
    return uop1(s->in, OP_SWIZZLE, dt, v0_9_st_value(s, f->key_st), r);
  }
  return uop_new(s->in, OP_ALU, dt, op_arg(s, buf->op), (uint32_t)buf->nsrcs, srcs);
}

/* 0.9.2's _recursive_lazyop at a base buf not in the memo: "buffer ops define
 * ShapeTracker", "reduce ops change ShapeTracker", "elementwise ops pass
 * shapetracker" (CONTIGUOUS and ASSIGN walk all sources too, then pass the first). */
static void lazyop_enter_092(
    LopCtx *x, LazyBuffer *buf, const StHandle *stk, bool in_outputs, size_t py, const UOp **done) {
  Sched *s = x->s;
  if (buf->realized || (buf->in_realizes && !in_outputs)) {
    if (buf->op == OP_LOADOPS_CONST && s->ex) explain_fuse(s->ex, (uint32_t)buf->index, x->into);
    if (s->f->lower_to_uops) *done = buf->op == OP_LOADOPS_CONST ? const_uop(x, buf, stk) : load_uop(x, buf, stk);
    else *done = buf->op == OP_LOADOPS_CONST ? const_op(x, buf, stk) : load_op(x, buf, stk);
    memo_put(x, buf, stk, *done);
    return;
  }
  const ReduceInfo *rinfo = NULL;
  const StHandle *src_st = stk;
  if (v0_9_is_reduceop(buf->op) &&
      s->f->lower_to_uops) { /* _recursive_uop(buf.srcs[0], ShapeTracker.from_shape(buf.srcs[0].shape), ...) */
    src_st = v0_9_st_from_shape_of(s, buf->srcs[0]->st);
  } else if (v0_9_is_reduceop(buf->op) && (rinfo = v0_9_reduce_info_get(x->ri, buf, stk))) {
    src_st = rinfo->input_st;
  }
  if (s->ex && !in_outputs) explain_fuse(s->ex, (uint32_t)buf->index, x->into);
  push_frame(x, buf, src_st, stk, py);
  frames(x)[x->depth - 1].rinfo = rinfo;
}

/* Entering _recursive_lazyop(buf, st): either *done is the LazyOp, or a
 * frame was pushed to build it from its sources. */
static void lazyop_enter(LopCtx *x, LazyBuffer *buf, const StHandle *stk, const UOp **done) {
  Sched *s = x->s;
  *done = NULL;
  /* Python frames: the caller's, then a frame and a generator per level */
  size_t py = x->depth ? frames(x)[x->depth - 1].py + 2 : 1;
  for (;;) {
    if (buf->base != buf) {
      stk = v0_9_st_add(s, buf->st, stk);
      if (s->ex) explain_fuse(s->ex, (uint32_t)buf->index, x->into);
      buf = buf->base;
    }
    const StHandle *key_st = stk;
    if ((*done = memo_get(x, buf, stk))) return;
    bool in_outputs = output_index(x, buf) >= 0;
    if (s->f->lower_lazybuffer) {
      lazyop_enter_092(x, buf, stk, in_outputs, py, done);
      return;
    }
    if (buf->op == OP_LOADOPS_CONST && s->ex) explain_fuse(s->ex, (uint32_t)buf->index, x->into);
    if (buf->op == OP_LOADOPS_CONST) *done = const_op(x, buf, stk);
    else if (buf->realized || (buf->in_realizes && !in_outputs)) *done = load_op(x, buf, stk);
    if (*done) { memo_put(x, buf, key_st, *done); return; }
    /* if a CONTIGUOUS or ASSIGN made it all the way here, just skip it */
    if (buf->op == OP_CONTIGUOUS || buf->op == OP_ASSIGN) {
      if (!in_outputs) assertion("");
      if (buf->op == OP_ASSIGN && buf->srcs[1]->base != buf->srcs[1]) assertion("assign must be to base");
      if (buf->op == OP_ASSIGN && !buf->srcs[1]->realized)
        error_raise(
            "AssertionError", "assign must be already realized to schedule %s", v0_9_lazybuffer_repr(s, buf->srcs[1]));
      buf = buf->srcs[0];
      py++;   /* return _recursive_lazyop(buf.srcs[0], ...) */
      continue;
    }
    /* if it's a reduce, we have to change the shapetracker */
    if (v0_9_is_reduceop(buf->op)) {
      if (!stk->contiguous) assertion("ReduceOps late fusion must be contiguous");
      stk = v0_9_st_from_shape_of(s, buf->srcs[0]->st);
    }
    if (s->ex && !in_outputs) explain_fuse(s->ex, (uint32_t)buf->index, x->into);
    push_frame(x, buf, stk, key_st, py);
    return;
  }
}

/* repr(ShapeTracker): "ShapeTracker(views=(View(...), ...))" */
static const char *st_repr(Sched *s, const StHandle *x) {
  const char *views = "";
  int n = v0_9_st_nviews(x);
  for (int i = 0; i < n; i++)
    views = arena_printf(s->a, "%s%s%s", views, i ? ", " : "", py_repr_view(s->a, x->st->views[i]));
  return arena_printf(s->a, "ShapeTracker(views=(%s%s))", views, n == 1 ? "," : "");
}

/* The tuple of ints axis as an arg */
static const Value *axis_value(Sched *s, int n, const int64_t *axis) {
  const Value **items = arena_array(s->a, n ? (size_t)n : 1, sizeof *items);
  for (int i = 0; i < n; i++) items[i] = v_int(s->in, axis[i]);
  return v_tuple(s->in, (size_t)n, items);
}

/* 0.9.2's _recursive_lazyop once buf's sources are built */
static const UOp *lazyop_finish_092(LopCtx *x, const LopFrame *f, const UOp **srcs) {
  Sched *s = x->s;
  LazyBuffer *buf = f->buf;
  if (buf->op == OP_CONTIGUOUS || buf->op == OP_ASSIGN) {
    if (output_index(x, buf) < 0) error_raise("AssertionError", "%s must be writable", v0_9_op_name(s, buf->op));
    return srcs[0];
  }
  if (v0_9_is_reduceop(buf->op) && !f->rinfo) {   /* if we are merging the reduce, skip it */
    if (srcs[0]->op != buf->op)
      error_raise("AssertionError", "can't merge reduceop %s with %s\n%s", v0_9_op_name(s, buf->op),
                  v0_9_op_name(s, srcs[0]->op), st_repr(s, f->st));
    return srcs[0];
  }
  const Value *arg = f->rinfo ? axis_value(s, f->rinfo->naxis, f->rinfo->axis) : buf->arg;
  v0_9_lblist_push(s->a, &x->cached, buf);
  return uop_new(s->in, buf->op, NULL, arg, (uint32_t)buf->nsrcs, srcs);
}

/* engine/schedule.py _recursive_lazyop (0.9.1): "recursively create a lazyop". */
static const UOp *recursive_lazyop(LopCtx *x, LazyBuffer *root, const StHandle *root_st) {
  const UOp *done;
  size_t base_depth = x->depth;
  lazyop_enter(x, root, root_st, &done);
  while (x->depth > base_depth) {
    LopFrame *f = &frames(x)[x->depth - 1];
    const UOp **srcs = &x->s->lop_srcs[f->srcs_at];
    if (done) { srcs[f->next++] = done; done = NULL; }
    if (f->next < f->buf->nsrcs) {
      lazyop_enter(x, f->buf->srcs[f->next], f->st, &done);
      continue;
    }
    if (x->s->f->lower_to_uops) {
      done = uop_finish_197(x, f, srcs);
    } else if (x->s->f->lower_lazybuffer) {
      done = lazyop_finish_092(x, f, srcs);
    } else {
      done = uop_new(x->s->in, f->buf->op, NULL, f->buf->arg, (uint32_t)f->buf->nsrcs, srcs);
    }
    memo_put(x, f->buf, f->key_st, done);
    x->nsrcs = f->srcs_at;
    x->depth--;
  }
  return done;
}

/* ---------------------------------------------------------------- _schedule_group */

static bool is_single_op(Op op) { return op == OP_CUSTOM || op == OP_COPY || op == OP_EMPTY || op == OP_VIEW; }

/* device.split(":")[0] equal */
static bool same_device_kind(const char *a, const char *b) {
  size_t na = strcspn(a, ":"), nb = strcspn(b, ":");
  return na == nb && strncmp(a, b, na) == 0;
}

/* "single output AST": CUSTOM, COPY, EMPTY, VIEW (or USE_COPY_KERNEL's copy kernel) */
static void single_op_ast(Sched *s, LazyBuffer *out, LBScheduleItem *item) {
  for (int i = 0; i < out->nsrcs; i++) v0_9_lblist_push(s->a, &item->inputs, out->srcs[i]->base);
  item->ast = arena_alloc(s->a, sizeof *item->ast);
  item->nast = 1;
  if (s->inp->use_copy_kernel && out->op == OP_COPY && same_device_kind(out->device, out->srcs[0]->device)) {
    if (out->arg->kind != V_INT) error_bad_input("a COPY arg must be an int");
    sint n = sint_int(out->arg->u.i);
    const StHandle *cst = v0_9_st_from_shape(s, 1, &n);
    const UOp *rd = uop0(s->in, OP_LOAD, NULL, v_membuffer(s->in, 1, dt_uchar, cst->st));
    item->ast[0] = uop1(s->in, OP_STORE, NULL, v_membuffer(s->in, 0, dt_uchar, cst->st), rd);
    return;
  }
  item->ast[0] = uop0(s->in, out->op, NULL, out->arg);
}

static void lopctx_init(LopCtx *x, Sched *s, LazyBuffer **outs, int nouts, LbList *inputs) {
  memset(x, 0, sizeof *x);
  x->s = s;
  x->outputs = outs;
  x->noutputs = nouts;
  x->inputs = inputs;
  omap_init(&x->memo, s->a);
  s->item_epoch++;
  for (int i = nouts - 1; i >= 0; i--) item_state(s, outs[i])->out_index = i;
  for (int i = 0; i < nouts && s->f->lower_to_uops; i++) note_buf(s, outs[i], i);
  for (int i = 0; i < nouts; i++)
    if (outs[i]->op == OP_ASSIGN) item_state(s, outs[i]->srcs[1])->item_assign = outs[i];
}

/* One STORE of the "multi output AST". */
static const UOp *store_op(LopCtx *x, int i) {
  Sched *s = x->s;
  LazyBuffer *out = x->outputs[i];
  LazyBuffer *r = out->reduce_for_op;
  const StHandle *output_st = v0_9_st_from_shape_of(s, r ? r->st : out->st), *output_view = output_st;
  if (out->op == OP_ASSIGN && out->arg->u.tuple.n) output_view = v0_9_st_intern(s, out->arg->u.tuple.items[0]->u.st);
  x->into = (uint32_t)out->index;
  const UOp *lop = recursive_lazyop(x, out, output_st);
  output_view = v0_9_st_unbind(s, v0_9_st_simplify(s, output_view));
  return uop1(s->in, OP_STORE, NULL, v_membuffer(s->in, i, out->dtype, output_view->st), lop);
}

/* ---------------------------------------------------------------- _lower_lazybuffer (0.9.2) */

/* shape == shape */
static bool shape_eq(int n, const sint *a, int m, const sint *b) {
  if (n != m) return false;
  for (int i = 0; i < n; i++)
    if (!sint_eq(a[i], b[i])) return false;
  return true;
}

/* out.arg[0] of an ASSIGN, after `assert out.arg[0].shape == out.shape, f"ASSIGN must not override output shape ..."` */
static const StHandle *assign_output_st(Sched *s, const LazyBuffer *out) {
  const StHandle *view = v0_9_st_intern(s, out->arg->u.tuple.items[0]->u.st);
  if (!shape_eq(v0_9_st_ndim(view), v0_9_st_shape_of(view), v0_9_st_ndim(out->st), v0_9_st_shape_of(out->st)))
    error_raise("AssertionError", "ASSIGN must not override output shape %s != %s",
                py_repr_tuple(s->a, v0_9_st_ndim(view), v0_9_st_shape_of(view)),
                py_repr_tuple(s->a, v0_9_st_ndim(out->st), v0_9_st_shape_of(out->st)));
  return view;
}

/* One STORE of 0.9.2's KERNEL: output_st is shared by the outputs */
static const UOp *store_op_092(LopCtx *x, int i, const StHandle *output_st) {
  Sched *s = x->s;
  LazyBuffer *out = x->outputs[i];
  x->into = (uint32_t)out->index;
  const UOp *lop = recursive_lazyop(x, out, output_st);
  if (out->op == OP_ASSIGN && out->arg->u.tuple.n) {
    const StHandle *view = assign_output_st(s, out);
    output_st = v0_9_st_reshape(s, view, v0_9_st_ndim(output_st), v0_9_st_shape_of(output_st));
  }
  output_st = v0_9_st_unbind(s, v0_9_st_simplify(s, output_st));
  return uop1(s->in, OP_STORE, NULL, v_membuffer(s->in, i, out->dtype, output_st->st), lop);
}

/* dedup([x[0].metadata for x in cache if x[0].metadata and x[0] not in inputs]) */
static void item_metadata(LopCtx *x, LBScheduleItem *item) {
  Sched *s = x->s;
  item->metadata = arena_array(s->a, x->cached.n ? (size_t)x->cached.n : 1, sizeof *item->metadata);
  const char **callers = arena_array(s->a, x->cached.n ? (size_t)x->cached.n : 1, sizeof *callers);
  for (int i = 0; i < x->cached.n; i++) {
    LazyBuffer *b = x->cached.items[i];
    if (!b->metadata || item_state(s, b)->in_index >= 0) continue;
    bool again = false;   /* Metadata.__eq__: name, caller, backward (all in str() and caller) */
    for (int k = 0; k < item->nmetadata && !again; k++)
      again = item->metadata[k] == b->metadata && callers[k] == b->metadata_caller;
    if (again) continue;
    callers[item->nmetadata] = b->metadata_caller;
    item->metadata[item->nmetadata++] = b->metadata;
  }
}

/* One STORE of 197f8fd's SINK: STORE(DEFINE_GLOBAL, output_st.to_uop(), src) */
static const UOp *store_uop(LopCtx *x, int i) {
  Sched *s = x->s;
  LazyBuffer *out = x->outputs[i];
  x->into = (uint32_t)out->index;
  const StHandle *output_st = v0_9_st_from_shape_of(s, out->st);
  const UOp *src = recursive_lazyop(x, out, output_st);
  if (out->op == OP_ASSIGN && out->arg->u.tuple.n) output_st = assign_output_st(s, out);
  output_st = v0_9_st_unbind(s, v0_9_st_simplify(s, output_st));
  const UOp *global = define_global(x, out);
  return uop3(s->in, OP_STORE, dt_void, s->in->none, global, v0_9_st_to_uop(s, output_st), src);
}

/* engine/schedule.py _lower_lazybuffer (197f8fd): "describe the computation for a LazyBuffer with UOp + inputs + var_vals" */
static void lower_lazybuffer_uops(Sched *s, LazyBuffer **outs, int nouts, LBScheduleItem *item) {
  LazyBuffer *out = outs[0];
  item->ast = arena_alloc(s->a, sizeof *item->ast);
  item->nast = 1;
  if (is_single_op(out->op)) { /* UOp(UOps.EXT, out.dtype, (), (out.op, out.arg)) */
    for (int i = 0; i < out->nsrcs; i++) v0_9_lblist_push(s->a, &item->inputs, out->srcs[i]->base);
    const Value *arg[2] = {v_str(s->in, v0_9_op_name(s, out->op)), out->arg};
    item->ast[0] = uop0(s->in, OP_EXT, out->dtype, v_tuple(s->in, 2, arg));
    return;
  }
  for (int i = 0; i < nouts; i++) /* var_vals = merge_dicts([out.st.var_vals.copy() for out in outs]) */
    v0_9_st_add_var_vals(s, outs[i]->st);
  LopCtx x;
  lopctx_init(&x, s, outs, nouts, &item->inputs);
  const UOp **stores = arena_array(s->a, (size_t)nouts, sizeof *stores);
  for (int i = 0; i < nouts; i++)
    stores[i] = store_uop(&x, i);
  const UOp *sink = uop_new(s->in, OP_SINK, dt_void, s->in->none, (uint32_t)nouts, stores);
  item->ast[0] = v0_9_full_ast_rewrite(s, sink, x.has_reduce);
  item_metadata(&x, item);
}

/* engine/schedule.py _lower_lazybuffer (0.9.2): "describe the computation for a LazyBuffer with LazyOp + inputs + var_vals" */
static void lower_lazybuffer(Sched *s, LazyBuffer **outs, int nouts, LBScheduleItem *item) {
  LazyBuffer *out = outs[0];
  item->ast = arena_alloc(s->a, sizeof *item->ast);
  item->nast = 1;
  if (s->inp->use_copy_kernel && out->op == OP_COPY && same_device_kind(out->device, out->srcs[0]->device)) {
    single_op_ast(s, out, item);
    item->ast[0] = uop1(s->in, OP_KERNEL, NULL, v_none(s->in), item->ast[0]);
    return;
  }
  if (is_single_op(out->op)) {
    for (int i = 0; i < out->nsrcs; i++) v0_9_lblist_push(s->a, &item->inputs, out->srcs[i]->base);
    const Value *arg[2] = {v_str(s->in, v0_9_op_name(s, out->op)), out->arg};
    item->ast[0] = uop0(s->in, OP_EXT, NULL, v_tuple(s->in, 2, arg));
    return;
  }
  ReduceInfos ri;
  v0_9_reduce_info(s, outs, nouts, &ri);
  for (int i = 0; i < nouts; i++) /* var_vals = merge_dicts([out.st.var_vals.copy() for out in outs]) */
    v0_9_st_add_var_vals(s, outs[i]->st);
  LopCtx x;
  lopctx_init(&x, s, outs, nouts, &item->inputs);
  x.ri = &ri;
  const StHandle *reduce_out = NULL;
  if (ri.n) {
    const ReduceInfo *last = &ri.items[ri.n - 1];
    reduce_out = v0_9_reduce_st(s, last->input_st, last->naxis, last->axis);
  }
  const UOp **stores = arena_array(s->a, (size_t)nouts, sizeof *stores);
  for (int i = 0; i < nouts; i++) {
    const StHandle *output_st = reduce_out ? reduce_out : v0_9_st_from_shape_of(s, outs[i]->st);
    stores[i] = store_op_092(&x, i, output_st);
  }
  item->ast[0] = uop_new(s->in, OP_KERNEL, NULL, v_none(s->in), (uint32_t)nouts, stores);
  item_metadata(&x, item);
}

/* engine/schedule.py _schedule_group (0.9.1): "create a schedule item from a list of outputs";
 * 0.9.2's _lower_lazybuffer. */
void v0_9_schedule_group(Sched *s, LazyBuffer **outs, int nouts, LBScheduleItem *item) {
  memset(item, 0, sizeof *item);
  if (s->f->lower_lazybuffer) {
    item->outputs = outs;
    item->noutputs = nouts;
    if (s->f->lower_to_uops) lower_lazybuffer_uops(s, outs, nouts, item);
    else lower_lazybuffer(s, outs, nouts, item);
    return;
  }
  item->outputs = outs;
  item->noutputs = nouts;
  for (int i = 0; i < nouts; i++) /* var_vals = merge_dicts([out.st.var_vals.copy() for out in outs]) */
    v0_9_st_add_var_vals(s, outs[i]->st);
  if (is_single_op(outs[0]->op)) {
    if (nouts != 1) error_raise("AssertionError", "can't schedule a group of %s", v0_9_op_name(s, outs[0]->op));
    single_op_ast(s, outs[0], item);
    return;
  }
  LopCtx x;
  lopctx_init(&x, s, outs, nouts, &item->inputs);
  item->ast = arena_array(s->a, (size_t)nouts, sizeof *item->ast);
  item->nast = nouts;
  for (int i = 0; i < nouts; i++)
    item->ast[i] = store_op(&x, i);
}
