/* to_uop.c — engine/schedule.py to_uop: every LazyBuffer becomes a
 * UOp of the big graph. A view is a VIEW of its base's UOp; a CONST is
 * WHERE(VALID(st), c, 0); everything else is VIEW(BUFFER) (realized) or
 * VIEW(BUFFER, op) with the op's sources converted the same way. On the way
 * it fills the ScheduleContext: var_vals, assigns, allbufs, children,
 * ubuf_metadata, and the BUFFER uop -> Buffer and Buffer -> LazyBuffer maps.
 *
 * The Python function recurses on the sources; here an explicit stack of
 * frames keeps the same order of visits (so BUFFER uops get the same `num`
 * and the dicts the same insertion order). */
#include <string.h>
#include "pipeline.h"

/* ScheduleContext.lazybufs[ubuf]: the LazyBuffer whose VIEW(BUFFER, op) has BUFFER uop ubuf, or NULL */
const InLB *v0_10_lazybuf_of(const Sched *s, const UOp *ubuf) {
  int64_t b = (int64_t)(uintptr_t)v0_10_idcache_get(&s->buffers, ubuf) - 1;
  int64_t lb = b >= 0 ? s->lazybufs[b] - 1 : -1;
  return lb >= 0 ? &s->lbs[lb] : NULL;
}

const Value *v0_10_device_value(Sched *s, InBuf *b) {
  if (b->device_v) return b->device_v;
  if (!s->last_device || (s->last_device != b->device && strcmp(s->last_device, b->device) != 0))
    s->last_device = b->device, s->last_device_v = v_str(s->in, b->device);
  return b->device_v = s->last_device_v;
}

/* UOp.new_buffer(device, size, dtype, num) */
static const UOp *new_buffer(Sched *s, InBuf *b, size_t num) {
  const Value *spec[3] = {v0_10_device_value(s, b), v_int(s->in, b->size), v_dtype(s->in, b->dtype)};
  const Value *arg[2] = {v_int(s->in, (int64_t)num), v_tuple(s->in, 3, spec)};
  return uop0(s->in, OP_BUFFER, dtype_ptr(b->dtype, -1, false), v_tuple(s->in, 2, arg));
}

static const UOp *buffer_uop_for(Sched *s, const InLB *lb) {
  const UOp *ubuf = new_buffer(s, &s->bufs[lb->buffer], s->nbuffers);
  if (!v0_10_idcache_get(&s->buffers, ubuf)) s->nbuffers++; /* len(buffers) counts distinct BUFFER uops */
  v0_10_idcache_put(s, &s->buffers, ubuf, (void *)(uintptr_t)(lb->buffer + 1));
  return ubuf;
}

/* "make things that can't be images not images": the dtype fallback, which
 * also overwrites the Buffer's dtype and options (reported as `mutations`). */
static void image_fallback(Sched *s, InLB *lb) {
  if (!lb->dtype->is_image) return;
  const Value *st = lb->st;
  int n = v0_10_st_ndim(st);
  const sint *shape = v0_10_st_shape(st);
  sint p = sint_prod(n, shape), q = sint_int(1);
  for (int i = 0; i < lb->dtype->image_ndim; i++) q = sint_mul(q, sint_int(lb->dtype->image_shape[i]));
  bool fallback = sint_cmp(SINT_NE, p, q); /* bool(prod(buf.shape) != prod(buf.dtype.shape)): UOp.__bool__ when symbolic */
  if (!fallback) {
    int64_t *axes = arena_array(s->graph, (size_t)n + 1, sizeof *axes);
    int na = v0_10_st_unit_stride_axes(s, st, axes);
    fallback = true;
    for (int k = 0; k < na; k++)
      if (sint_eq(sint_mod(shape[axes[k]], sint_int(4)), sint_int(0))) fallback = false;
  }
  if (!fallback) return;
  InBuf *b = &s->bufs[lb->buffer];
  lb->dtype = b->dtype = lb->dtype->base;
  if (lb->realized) error_raise("AssertionError", "can't fixup allocated buffer");
  b->options = NULL;
}

/* consts are always fused and generated: VALID(st).where(const(dtype, val), 0)
 * (0.10.0's to_uop; with consts_in_break_sched a CONST is an op like any other
 * here, and break_sched's generate_valid makes it) */
static const UOp *const_uop(Sched *s, const InLB *lb, const DType *dtype) {
  const UOp *valid = uop1(s->in, OP_VALID, s->bool_dt, s->none, v0_10_st_to_uop(s, lb->st));
  if (lb->var) omap_put(&s->var_vals, omap_ptr(lb->var), (void *)v_int(s->in, lb->var_val)); /* ctx.var_vals.update([val.unbind()]) */
  const UOp *c = lb->var ? lb->var : v0_10_uop_const(s, dtype, lb->arg);
  const UOp *zero = v0_10_uop_const(s, c->dtype, v_int(s->in, 0));
  return uop3(s->in, OP_WHERE, zero->dtype, s->none, valid, c, zero);
}

/* the bookkeeping after a buffer with an op got its VIEW(BUFFER, op) node */
static void record_op_buffer(Sched *s, const InLB *lb, const UOp *ubuf, const UOp *op, const UOp *ret) {
  if (lb->metadata) v0_10_idcache_put(s, &s->ubuf_metadata, ubuf, lb->metadata);
  s->lazybufs[lb->buffer] = lb - s->lbs + 1;
  for (uint32_t i = 0; i < op->nsrc; i++) {
    const UOp *x = v0_10_uop_base(s, op->src[i]);
    if (!v0_10_is_scheduled(x)) continue;
    OMap *kids = (OMap *)v0_10_idcache_get(&s->children, x->src[0]);
    if (!kids) {
      kids = arena_alloc(s->graph, sizeof *kids);
      omap_init(kids, s->graph);
      v0_10_idcache_put(s, &s->children, x->src[0], kids);
    }
    omap_put(kids, omap_ptr(ubuf), (void *)1);
  }
  omap_put(&s->allbufs, omap_ptr(ubuf), (void *)ret);
  v0_10_idcache_put(s, &s->allbuf_of, ubuf, ret);
}

/* One activation of the recursive Python function. */
typedef struct Frame {
  int64_t lb;
  size_t next;            /* next source to convert */
  const UOp *ubuf;
  const UOp **src;        /* converted sources */
} Frame;

/* The sources to_uop recurses into for lb, in order. */
static size_t visit_list(const InLB *lb, const int64_t **list) {
  if (lb->base >= 0) { *list = &lb->base; return 1; }
  if (lb->op == OP_CONST || lb->realized) return 0; /* a CONST has none */
  *list = lb->srcs;
  return lb->nsrcs;
}

/* Frame entry: the part of to_uop before the recursive calls. Returns the
 * finished UOp when there is nothing to recurse into, else NULL. */
static const UOp *enter(Sched *s, Frame *f) {
  InLB *lb = &s->lbs[f->lb];
  if (lb->base >= 0) return NULL;
  image_fallback(s, lb);
  const DType *dtype = op_in(&s->groups, GROUP_META, lb->op) ? lb->dtype : lb->dtype->base;
  if (lb->op == OP_CONST && !s->f->consts_in_break_sched) return const_uop(s, lb, dtype);
  if (lb->realized) {
    f->ubuf = buffer_uop_for(s, lb);
    return s->cache[f->lb] = uop1(s->in, OP_VIEW, dtype->base, lb->st, f->ubuf);
  }
  if (lb->op != OP_ASSIGN) f->ubuf = buffer_uop_for(s, lb);
  f->src = arena_array(s->graph, lb->nsrcs + 1, sizeof *f->src);
  return NULL;
}

/* Frame exit: the part of to_uop after the recursive calls. */
static const UOp *leave(Sched *s, Frame *f) {
  InLB *lb = &s->lbs[f->lb];
  if (lb->base >= 0) return s->cache[f->lb] = v0_10_uop_view(s, f->src[0], lb->st);
  const DType *dtype = op_in(&s->groups, GROUP_META, lb->op) ? lb->dtype : lb->dtype->base;
  const UOp *op;
  if (lb->op == OP_ASSIGN) {
    if (lb->nsrcs != 2) error_bad_input("input.lazybuffers[%lld]: ASSIGN needs 2 srcs", (long long)f->lb);
    f->ubuf = v0_10_buf_uop(s, f->src[0]);
    omap_put(&s->assigns, omap_ptr(f->ubuf), (void *)1);
    op = uop2(s->in, OP_ASSIGN, dtype, lb->arg, f->ubuf, f->src[1]);
  } else {
    bool no_arg = (lb->op == OP_CAST || lb->op == OP_BITCAST) && !s->f->to_uop_keeps_cast_arg;
    const Value *arg = no_arg ? s->none : lb->arg;
    op = uop_new(s->in, lb->op, dtype, arg, (uint32_t)lb->nsrcs, f->src);
  }
  const UOp *stored = lb->forced_realize ? uop1(s->in, OP_CONTIGUOUS, op->dtype, s->none, op) : op;
  const UOp *ret = s->cache[f->lb] = uop2(s->in, OP_VIEW, dtype->base, lb->st, f->ubuf, stored);
  record_op_buffer(s, lb, f->ubuf, op, ret);
  return ret;
}

const UOp *v0_10_to_uop(Sched *s, int64_t root) {
  if (s->cache[root]) return s->cache[root];
  size_t n = 0, cap = s->to_uop_cap ? s->to_uop_cap : 64;
  Frame *stack = s->to_uop_stack ? s->to_uop_stack : arena_array(s->caches, cap, sizeof *stack);
  const UOp *ret = NULL;
  bool entering = true;
  s->to_uop_stack = stack, s->to_uop_cap = cap;
  stack[n++] = (Frame){root, 0, NULL, NULL};
  while (n) {
    Frame *f = &stack[n - 1];
    if (entering) {
      ret = enter(s, f);
      if (ret) { n--; entering = false; continue; }
      if (s->lbs[f->lb].base >= 0) f->src = arena_array(s->graph, 1, sizeof *f->src);
    } else {
      f->src[f->next++] = ret;
    }
    const int64_t *list;
    size_t nlist = visit_list(&s->lbs[f->lb], &list);
    /* convert the next source; cached ones need no frame */
    while (f->next < nlist && s->cache[list[f->next]]) { f->src[f->next] = s->cache[list[f->next]]; f->next++; }
    if (f->next < nlist) {
      if (n == cap) {
        Frame *bigger = arena_array(s->caches, cap * 2, sizeof *bigger);
        memcpy(bigger, stack, cap * sizeof *stack);
        stack = bigger, cap *= 2;
        s->to_uop_stack = stack, s->to_uop_cap = cap;
        f = &stack[n - 1];
      }
      stack[n++] = (Frame){list[f->next], 0, NULL, NULL};
      entering = true;
      continue;
    }
    ret = leave(s, f);
    n--;
    entering = false;
  }
  return ret;
}
