/* bufferize.c — which ops of the tensor graph become buffers, tinygrad 0.10.1
 * engine/schedule.py ("UOp realization"): add_buffers, do_realize and
 * create_ctx, realize_before_view, can_pad, create_subbuffer,
 * recursive_group, group_realizes, and break_sched (load_realized,
 * store_or_fuse). Every node that gets a buffer is VIEW(BUFFER, op); the
 * grouping is 0.10.0's, keyed by BUFFER (allbufs, uval). The recursive
 * Python functions are loops over explicit stacks visiting in the same
 * order. */
#include <string.h>
#include "preload.h"

/* schedule.py is_scheduled: VIEW(BUFFER, op) */
static bool is_scheduled(const UOp *u) { return u->op == OP_VIEW && u->nsrc == 2 && u->src[0]->op == OP_BUFFER; }

/* schedule.py uval */
static const UOp *uval(KG *k, const UOp *u) {
  if (!is_scheduled(u)) error_raise("AssertionError", "must be a scheduled op %s", v0_10_2_uop_repr_line(k, u));
  return u->src[1];
}

static bool in_map(const OMap *m, const UOp *u) { return omap_has(m, omap_ptr(u)); }

/* ctx.allbufs[b] (a KeyError when b is not there) */
static const UOp *allbufs_of(KG *k, ScheduleContext *ctx, const UOp *b) {
  const UOp *v = omap_get(&ctx->allbufs, omap_ptr(b));
  if (!v) error_raise("KeyError", "%s", v0_10_2_uop_repr_line(k, b));
  return v;
}

/* len(ctx.children[b]) and its first key */
static size_t nchildren(ScheduleContext *ctx, const UOp *b, const UOp **first) {
  OMap *ch = v0_10_2_idmap_get(&ctx->children, b);
  uint64_t key;
  size_t pos = 0;
  if (first) *first = ch && omap_next(ch, &pos, &key, NULL) ? (const UOp *)(uintptr_t)key : NULL;
  return ch ? omap_len(ch) : 0;
}

/* ---------------------------------------------------------------- add_buffers */

/* A frame of add_buffers' recursion: the UOps it recurses into (deps) and their results (res) */
typedef struct AddFrame {
  const UOp *u;
  const UOp *buf_uop;    /* an op's BUFFER, made before its sources are visited */
  const DType *dtype;    /* an op's dtype, not an image when it cannot be one */
  const UOp *const *deps;
  uint32_t ndeps, next;
  const UOp **res;
} AddFrame;

/* The frame of add_buffers(u): what it recurses into — the SINK's and an
 * op's sources, a view's base — and, for an op, its dtype and buffer. */
static AddFrame add_buffers_enter(KG *k, Arena *tmp, const UOp *buf) {
  AddFrame f = {buf, NULL, NULL, NULL, 0, 0, NULL};
  const UOp *b = v0_10_2_uop_base(k, buf);
  if (buf->op == OP_SINK) f.deps = buf->src, f.ndeps = buf->nsrc;
  else if (b->op == OP_CONST || b->op == OP_BIND || b->op == OP_DEVICE || b->op == OP_BUFFER) return f;
  else if (buf != b) {
    const UOp **d = arena_alloc(tmp, sizeof *d);
    *d = b;
    f.deps = d, f.ndeps = 1;
  } else {
    /* make things that can't be images not images */
    f.dtype = buf->dtype;
    if (buf->dtype->is_image && !v0_10_2_can_be_image(k, buf, buf->dtype)) f.dtype = buf->dtype->base;
    /* ASSIGN already has a target buffer, otherwise we create a new one */
    const char *dev = v0_10_2_uop_device(k, buf);
    if (!dev) error_raise("AssertionError", "buf device is str, not None");
    f.buf_uop = buf->op == OP_ASSIGN ? v0_10_2_uop_buf_uop(k, buf)
                                     : v0_10_2_new_buffer(k, dev, v0_10_2_uop_size(k, buf), f.dtype);
    f.deps = buf->src, f.ndeps = buf->nsrc;
  }
  if (f.ndeps) f.res = arena_array(tmp, f.ndeps, sizeof *f.res);
  return f;
}

/* add_buffers(buf) once the results of what it recursed into are in f->res */
static const UOp *add_buffers_leave(KG *k, ScheduleContext *ctx, Arena *tmp, AddFrame *f, IdMap *buffer_map, IdMap *cache) {
  const UOp *buf = f->u, *b = v0_10_2_uop_base(k, buf);
  /* SINK is passthrough */
  if (buf->op == OP_SINK) return v0_10_2_replace_src(k, buf, buf->nsrc, f->res);
  /* skip creating buffers for CONST/BIND/DEVICE/BUFFER */
  if (b->op == OP_CONST || b->op == OP_BIND || b->op == OP_DEVICE) return buf;
  if (b->op == OP_BUFFER) return v0_10_2_uop_view(k, buf, v0_10_2_uop_st_unwrap(k, buf));
  const UOp *ret;
  if (buf != b) {   /* VIEW is passthrough */
    ret = v0_10_2_uop_view(k, f->res[0], v0_10_2_uop_st_unwrap(k, buf));
  } else {
    const UOp *op = v0_10_2_replace_src(k, v0_10_2_replace_dtype(k, buf, f->dtype), buf->nsrc, f->res);
    /* track the buffer uop for the simplified uop */
    v0_10_2_idmap_put(ctx->tmp, buffer_map, buf, (void *)f->buf_uop);
    /* (early) bufferize */
    const ST *st = v0_10_2_uop_st(k, buf);
    ret = v0_10_2_uop2(k, OP_VIEW, f->dtype->base, st ? v0_10_2_value_st(k, st) : v_none(k->in), f->buf_uop, op);
  }
  v0_10_2_idmap_put(tmp, cache, buf, (void *)ret);
  return ret;
}

/* schedule.py add_buffers: wrap tensor uops around a VIEW(BUFFER, <uop>);
 * this BUFFER preserves a link back to the uop on the tensor after the scheduler rewrites it */
const UOp *v0_10_2_add_buffers(KG *k, ScheduleContext *ctx, const UOp *root, IdMap *buffer_map) {
  Arena *tmp = arena_scratch_begin(&k->scratch);
  IdMap cache = {0};
  size_t cap = 64, depth = 0;
  AddFrame *stack = arena_array(tmp, cap, sizeof *stack);
  const UOp *done = NULL;
  stack[depth++] = add_buffers_enter(k, tmp, root);
  while (depth) {
    AddFrame *f = &stack[depth - 1];
    if (f->next < f->ndeps) {
      const UOp *d = f->deps[f->next], *hit = v0_10_2_idmap_get(&cache, d);
      if (hit) { f->res[f->next++] = hit; continue; }
      if (depth == cap) stack = arena_grow(tmp, stack, depth, &cap, sizeof *stack);
      stack[depth++] = add_buffers_enter(k, tmp, d);
      continue;
    }
    const UOp *ret = add_buffers_leave(k, ctx, tmp, f, buffer_map, &cache);
    if (k->ex) v0_10_2_explain_alias(k, ret, f->u);
    if (--depth) stack[depth - 1].res[stack[depth - 1].next++] = ret;
    else done = ret;
  }
  arena_scratch_end(&k->scratch, tmp);
  return done;
}

/* ---------------------------------------------------------------- do_realize + create_ctx */

/* UPatScheduled: VIEW(BUFFER b, to_store) */
static bool match_scheduled(const UOp *u, const UOp **b, const UOp **to_store) {
  if (!is_scheduled(u)) return false;
  *b = u->src[0], *to_store = u->src[1];
  return true;
}

/* schedule.py realize: ctx.realizes[b] = to_store */
static void realize(ScheduleContext *ctx, const UOp *b, const UOp *to_store) { omap_put(&ctx->realizes, omap_ptr(b), (void *)to_store); }

/* can_pad's edges (ops.py, 0.10.1): `len(u.src) == 2 and u.src[0] in edges`, a VIEW(BUFFER, op) of a realized BUFFER */
static bool is_realized_view(const UOp *x, const void *realizes) { return x->nsrc == 2 && in_map(realizes, x->src[0]); }

/* always realize SINK parents: ctx.realizes.update((x.buf_uop, x) for x in sink.src) */
static const UOp *do_realize_sink(void *c, const UOp *sink) {
  KG *k = c;
  ScheduleContext *ctx = k->pass;
  for (uint32_t i = 0; i < sink->nsrc; i++) {
    const UOp *b = v0_10_2_uop_buf_uop(k, sink->src[i]);
    if (k->ex) v0_10_2_explain_realize_preload(k, ctx, b, WHY_OUTPUT, NULL);
    realize(ctx, b, sink->src[i]);
  }
  return NULL;
}

/* always realize ASSIGN/CONTIGUOUS/COPY/BUFFER_VIEW */
static const UOp *do_realize_always(void *c, const UOp *u) {
  KG *k = c;
  const UOp *b, *to_store;
  if (!match_scheduled(u, &b, &to_store)) return NULL;
  Op op = to_store->op;
  if (op != OP_ASSIGN && op != OP_CONTIGUOUS && op != OP_COPY && op != OP_BUFFER_VIEW) return NULL;
  if (k->ex) v0_10_2_explain_always_preload(k, k->pass, b, op);
  realize(k->pass, b, to_store);
  return NULL;
}

/* realize(ctx, b, src) in realize_before_view, telling explain why */
static void realize_before(KG *k, ScheduleContext *ctx, const UOp *b, const UOp *src, const UOp *view, ExplainReason why) {
  if (k->ex) v0_10_2_explain_view_preload(k, ctx, b, src, view, why);
  realize(ctx, b, src);
}

/* schedule.py realize_before_view: realize before expand or unsafe pad ops,
 * for UPat(Ops.VIEW, name="view", src=(UPatScheduled(name="src"),)) */
static const UOp *realize_before_view(void *c, const UOp *view) {
  KG *k = c;
  ScheduleContext *ctx = k->pass;
  const UOp *b, *src;
  if (view->nsrc != 1 || !match_scheduled(view->src[0], &b, &src)) return NULL;
  const ST *st = v0_10_2_uop_st_unwrap(k, view);
  StCtx *sc = &k->stc;
  uint32_t n;
  const sint *sshape = v0_10_2_uop_shape(k, src, &n);
  sint sprod = v0_10_2_sint_prod(sc, n, sshape);
  const View *last = st_last(st);
  /* fold simple pads */
  if (st->nviews == 1 && last->mask && v0_10_2_sint_all_int(n, sshape)) {
    sint sizes[ST_MAXDIM];
    for (int i = 0; i < last->ndim; i++) sizes[i] = v0_10_2_sint_sub(sc, last->mask[i].e, last->mask[i].b);
    if (v0_10_2_sint_resolve_ge(sc, sprod, v0_10_2_sint_prod(sc, (uint32_t)last->ndim, sizes), true)) {
      if (!v0_10_2_can_pad(k, ctx->grouping, src, is_realized_view, &ctx->realizes))
        realize_before(k, ctx, b, src, view, WHY_UNSAFE_PAD);
      return NULL;
    }
  }
  /* early realize before expand */
  if (v0_10_2_sint_resolve_lt(sc, sprod, v0_10_2_sint_prod(sc, v0_10_2_st_ndim(st), st_shape(st)), true) &&
      !k->dont_realize_expand) {
    realize_before(k, ctx, b, src, view, WHY_EXPAND);
    return NULL;
  }
  /* otherwise safety check pads */
  bool unmasked = true;
  for (int i = 0; i < st->nviews; i++) unmasked &= st->views[i]->mask == NULL;
  if (!unmasked && !v0_10_2_can_pad(k, ctx->grouping, src, is_realized_view, &ctx->realizes))
    realize_before(k, ctx, b, src, view, WHY_UNSAFE_PAD);
  return NULL;
}

/* UPat.any(UPatScheduled(), UPatScheduled().view()) */
static bool match_scheduled_or_view(const UOp *u, const UOp **b, const UOp **to_store) {
  if (match_scheduled(u, b, to_store)) return true;
  return u->op == OP_VIEW && u->nsrc == 1 && match_scheduled(u->src[0], b, to_store);
}

/* realize before COPY: UPat(Ops.COPY, src=(UPat(), UPat.any(UPatScheduled(), UPatScheduled().view()),)) */
static const UOp *do_realize_before_copy(void *c, const UOp *copy) {
  KG *k = c;
  const UOp *b, *to_store;
  if (copy->nsrc != 2 || !match_scheduled_or_view(copy->src[1], &b, &to_store)) return NULL;
  if (k->ex) v0_10_2_explain_copy_src_preload(k, k->pass, b, copy);
  realize(k->pass, b, to_store);
  return NULL;
}

/* realize before BUFFER_VIEW: UPat(Ops.BUFFER_VIEW, src=(UPat.any(UPatScheduled(), UPatScheduled().view()),)) */
static const UOp *do_realize_before_buffer_view(void *c, const UOp *bv) {
  KG *k = c;
  const UOp *b, *to_store;
  if (bv->nsrc != 1 || !match_scheduled_or_view(bv->src[0], &b, &to_store)) return NULL;
  if (k->ex) v0_10_2_explain_copy_src_preload(k, k->pass, b, bv);
  realize(k->pass, b, to_store);
  return NULL;
}

/* schedule.py create_subbuffer: substitute BITCAST/CONTIGUOUS with BUFFER_VIEW on DISK, for
 * UPatScheduled((Ops.BITCAST, Ops.CONTIGUOUS), name="root", src=(UPat.var("x"),)) */
static const UOp *create_subbuffer(void *c, const UOp *base) {
  KG *k = c;
  const UOp *b, *root;
  if (!match_scheduled(base, &b, &root) || (root->op != OP_BITCAST && root->op != OP_CONTIGUOUS) || root->nsrc != 1) return NULL;
  const char *dev = v0_10_2_uop_device(k, b);
  if (!dev || strncmp(dev, "DISK", 4) != 0) return NULL;
  const UOp *x = root->src[0];
  sint offset = v0_10_2_uop_st_unwrap(k, x)->views[0]->offset;
  if (!v0_10_2_sint_is_int(offset)) error_unsupported("a BUFFER_VIEW with a symbolic offset");
  Buf *view = v0_10_2_buffer_view(k, v0_10_2_uop_buffer(k, v0_10_2_uop_buf_uop(k, x)), v0_10_2_uop_size(k, b), b->dtype,
      v0_10_2_sint_int(offset) * x->dtype->itemsize);
  omap_put(&k->buffers, omap_ptr(b), view);
  const UOp *src[2] = {b, v0_10_2_replace_op(k, root, OP_BUFFER_VIEW)};
  return v0_10_2_replace_src(k, base, 2, src);
}

/* schedule.py append_uop, for UPat(Ops.VIEW, name="view", src=(UPat(Ops.BUFFER, name="buf_uop"), UPat())) */
static const UOp *append_uop(void *c, const UOp *view) {
  KG *k = c;
  ScheduleContext *ctx = k->pass;
  if (!is_scheduled(view)) return NULL;
  const UOp *buf_uop = view->src[0], *op = uval(k, view);
  omap_put(&ctx->allbufs, omap_ptr(buf_uop), (void *)view);
  if (op->op == OP_ASSIGN) v0_10_2_idset_add(ctx->tmp, &ctx->assigns, buf_uop);
  const UOp *ob = v0_10_2_uop_base(k, op);
  for (uint32_t i = 0; i < ob->nsrc; i++) {
    const UOp *x = v0_10_2_uop_base(k, ob->src[i]);
    if (!is_scheduled(x)) continue;
    const UOp *parent = v0_10_2_uop_buf_uop(k, x);
    OMap *ch = v0_10_2_idmap_get(&ctx->children, parent);
    if (!ch) {
      ch = arena_alloc(ctx->grouping, sizeof *ch);
      omap_init(ch, ctx->grouping);
      v0_10_2_idmap_put(ctx->grouping, &ctx->children, parent, ch);
    }
    omap_put(ch, omap_ptr(buf_uop), (void *)buf_uop);
  }
  return NULL;
}

static const Rule do_realize_rules[] = {
  {{OP_SINK}, do_realize_sink, "always realize SINK parents", {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 142}}}},
  {{OP_VIEW}, do_realize_always, "always realize ASSIGN/CONTIGUOUS/COPY/BUFFER_VIEW", {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 144}}}},
  {{OP_VIEW}, realize_before_view, "realize_before_view", {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 146}}}},
  {{OP_COPY}, do_realize_before_copy, "realize before COPY", {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 148}}}},
  {{OP_BUFFER_VIEW}, do_realize_before_buffer_view, "realize before BUFFER_VIEW", {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 149}}}},
  {{OP_VIEW}, create_subbuffer, "create_subbuffer", {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 151}}}},
  {{OP_VIEW}, append_uop, "create_ctx append_uop", {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 159}}}},
};
static const PatternMatcher pm_do_realize_create_ctx = {do_realize_rules, sizeof do_realize_rules / sizeof *do_realize_rules};

/* ---------------------------------------------------------------- recursive_group */

/* dedup(unwrap(x.st) for x in uop.src if is_scheduled(x.base) and x.base.buf_uop is tr): the count and the first */
static size_t child_sts(KG *k, const UOp *uop, const UOp *tr, const ST **first) {
  size_t n = 0;
  *first = NULL;
  for (uint32_t i = 0; i < uop->nsrc; i++) {
    const UOp *x = uop->src[i], *xb = v0_10_2_uop_base(k, x);
    if (!is_scheduled(xb) || v0_10_2_uop_buf_uop(k, xb) != tr) continue;
    const ST *s = v0_10_2_uop_st_unwrap(k, x);
    if (!*first) *first = s, n = 1;
    else if (s != *first) n = 2;
  }
  return n;
}

typedef struct GroupWalk {
  const UOp *r;
  ScheduleContext *ctx;
  OMap *reduce_for_op, *group, cache;  /* cache: tr -> OMap of st */
  Arena *tmp;
  const char *why;                      /* for explain: what first put r in its group */
} GroupWalk;

static void group_add(OMap *group, const UOp *u) { omap_setdefault(group, omap_ptr(u), (void *)u); }

/* group.setdefault(r): r cannot fuse into its children (why: for explain) */
static void group_add_reduce(GroupWalk *w, const char *why) {
  if (why && !w->why && !in_map(w->group, w->r)) w->why = why;
  group_add(w->group, w->r);
}

/* why realized BUFFER tr, seen through st, cannot take reduce r into its kernel */
static const char *realized_child_why(KG *k, GroupWalk *w, const UOp *tr, const ST *st, int64_t rsize) {
  const UOp *other = omap_get(w->reduce_for_op, omap_ptr(tr));
  return v0_10_2_explain_realized_child_why(
      k, v0_10_2_explain_buffer_name(k, tr), st, rsize, other ? v0_10_2_explain_buffer_name(k, other) : NULL);
}

/* why child BUFFER tr_next (its op tr_next_uop) of tr stops the group */
static const char *unfusable_child_why(KG *k, GroupWalk *w, const UOp *tr, const UOp *tr_next, const UOp *tr_next_uop) {
  return v0_10_2_explain_unfusable_child_why(k, v0_10_2_explain_buffer_name(k, tr_next),
      tr == w->r ? NULL : v0_10_2_explain_buffer_name(k, tr), tr_next_uop->op == OP_REDUCE_AXIS);
}

/* schedule.py recursive_group: search the uop for groupable children, realize the UOp if a child can't group */
static void recursive_group(KG *k, GroupWalk *w, const UOp *tr0, const ST *st0) {
  typedef struct { const UOp *tr; const ST *st; size_t pos; } Frame;
  size_t cap = 64, depth = 0;
  Frame *stack = arena_array(w->tmp, cap, sizeof *stack);
  ScheduleContext *ctx = w->ctx;
  int64_t rsize = v0_10_2_st_size(v0_10_2_uop_st_unwrap(k, allbufs_of(k, ctx, w->r)));
  stack[depth++] = (Frame){tr0, st0, 0};
  bool entering = true;
  while (depth) {
    Frame *f = &stack[depth - 1];
    if (entering) {
      entering = false;
      if (v0_10_2_group_cache_seen(w->tmp, &w->cache, f->tr, f->st)) { depth--; continue; }
      if (in_map(&ctx->realizes, f->tr) && f->tr != w->r) {
        /* can only fuse contiguous; max one reduceop per kernel */
        if (!st_contiguous(f->st) || v0_10_2_st_size(f->st) != rsize || in_map(w->reduce_for_op, f->tr))
          group_add_reduce(w, k->ex ? realized_child_why(k, w, f->tr, f->st, rsize) : NULL);
        group_add(w->group, f->tr);
        depth--;
        continue;
      }
    }
    OMap *ch = v0_10_2_idmap_get(&ctx->children, f->tr);
    uint64_t key;
    size_t pos = f->pos;
    if (!ch || !omap_next(ch, &pos, &key, NULL)) { depth--; continue; }
    f->pos = pos;
    const UOp *tr_next = (const UOp *)(uintptr_t)key;
    const UOp *tr_next_uop = v0_10_2_uop_base(k, uval(k, allbufs_of(k, ctx, tr_next)));
    const ST *first;
    /* max one reduceop per kernel; can only fuse contiguous */
    if (tr_next_uop->op == OP_REDUCE_AXIS || child_sts(k, tr_next_uop, f->tr, &first) > 1) {
      group_add_reduce(w, k->ex ? unfusable_child_why(k, w, f->tr, tr_next, tr_next_uop) : NULL);
      depth--;
      continue;
    }
    if (!first) error_raise("IndexError", "list index out of range");
    const ST *nst = v0_10_2_st_add(&k->stc, f->st, first);
    if (depth == cap) stack = arena_grow(w->tmp, stack, depth, &cap, sizeof *stack);
    stack[depth++] = (Frame){tr_next, nst, 0};
    entering = true;
  }
}

/* ---------------------------------------------------------------- group_realizes */

/* can only fuse assign if no other assign_target is used in the kernel: the
 * walk over parents (a DFS without a visited set in Python; the answer is the
 * same with one) */
static bool other_assign_used(KG *k, ScheduleContext *ctx, const UOp *r, OMap *group, Arena *tmp) {
  OMap seen;
  omap_init(&seen, tmp);
  size_t cap = 64, n = 0;
  const UOp **stack = arena_array(tmp, cap, sizeof *stack);
  stack[n++] = r;
  uint64_t key;
  for (size_t pos = 0; omap_next(group, &pos, &key, NULL);) {
    if (n == cap) stack = arena_grow(tmp, stack, n, &cap, sizeof *stack);
    stack[n++] = (const UOp *)(uintptr_t)key;
  }
  while (n) {
    const UOp *p = stack[--n];
    if (in_map(&seen, p)) continue;
    omap_put(&seen, omap_ptr(p), (void *)1);
    const UOp *pv = omap_get(&ctx->allbufs, omap_ptr(p));
    if (!pv) continue;
    const UOp *p_uop = uval(k, pv);
    if (p_uop->op == OP_ASSIGN && !in_map(group, p)) return true;
    if (in_map(&ctx->realizes, p)) continue;
    /* [x.base.buf_uop for x in p_uop.src if x.base.is_realized or (x.base.op is Ops.VIEW and len(x.base.src) != 0)] */
    for (uint32_t i = 0; i < p_uop->nsrc; i++) {
      const UOp *xb = v0_10_2_uop_base(k, p_uop->src[i]);
      if (xb->op == OP_BUFFER) v0_10_2_uop_buffer(k, xb);   /* is_realized: UOp.buffer makes the Buffer */
      else if (!(xb->op == OP_VIEW && xb->nsrc != 0)) continue;
      if (n == cap) stack = arena_grow(tmp, stack, n, &cap, sizeof *stack);
      stack[n++] = v0_10_2_uop_buf_uop(k, xb);
    }
  }
  return false;
}

/* the chase down to contiguous children of a forced realize, and "don't cast
 * to higher size before store" */
static const UOp *chase(KG *k, ScheduleContext *ctx, const UOp *tr, const UOp *r_uop) {
  const ST *st = v0_10_2_uop_st_unwrap(k, r_uop);
  const UOp *tr_next;
  while (nchildren(ctx, tr, &tr_next) == 1) {
    const UOp *tr_next_uop = uval(k, allbufs_of(k, ctx, tr_next));
    const ST *first;
    if (child_sts(k, tr_next_uop, tr, &first) > 1) break;
    if (!first) error_raise("IndexError", "list index out of range");
    if (v0_10_2_st_size(st) != v0_10_2_st_size(first)) break;
    st = v0_10_2_st_add(&k->stc, st, first);
    if (!st_contiguous(st) || tr_next_uop->op == OP_REDUCE_AXIS) break;
    tr = tr_next;
  }
  const UOp *tr_uop = uval(k, allbufs_of(k, ctx, tr));
  if (tr_uop->op == OP_CAST && tr_uop->dtype->base->itemsize > tr_uop->src[0]->dtype->base->itemsize)
    tr = v0_10_2_uop_buf_uop(k, v0_10_2_uop_base(k, tr_uop->src[0]));
  return tr;
}

/* del ctx.realizes[tr] */
static void unrealize(KG *k, ScheduleContext *ctx, const UOp *tr) {
  if (!omap_del(&ctx->realizes, omap_ptr(tr))) error_raise("KeyError", "%s", v0_10_2_uop_repr_line(k, tr));
}

/* group_realizes for reduce r (with op r_uop): find its group, force the realize when it cannot fuse */
static void group_reduce(KG *k, ScheduleContext *ctx, const UOp *r, const UOp *r_uop, OMap *reduce_for_op, Arena *per) {
  OMap *group = arena_alloc(per, sizeof *group);
  omap_init(group, per);
  GroupWalk w = {r, ctx, reduce_for_op, group, {0}, per, NULL};
  omap_init(&w.cache, per);
  recursive_group(k, &w, r, v0_10_2_uop_st_unwrap(k, r_uop));
  uint64_t key;
  /* max one reduceop per kernel */
  bool can_chase = true;
  for (size_t pos = 0; omap_next(group, &pos, &key, NULL);)
    if (omap_has(reduce_for_op, key)) can_chase = false;
  /* TODO: forced_realize exists because the scheduler is incapable of checking for self-contained DAGs */
  bool forced_realize = in_map(group, r);
  /* can only have one output */
  if (!forced_realize && omap_len(group) > 1) {
    forced_realize = true;
    if (k->ex) w.why = v0_10_2_explain_several_outputs_why(k, group, v0_10_2_explain_buffer_name);
  }
  /* can only fuse assign if no other assign_target is used in the kernel */
  if (!forced_realize) {
    bool any_assign = false;
    for (size_t pos = 0; omap_next(group, &pos, &key, NULL);)
      any_assign |= v0_10_2_idset_has(&ctx->assigns, (const UOp *)(uintptr_t)key);
    if (any_assign && other_assign_used(k, ctx, r, group, per)) {
      forced_realize = true, can_chase = false;
      if (k->ex) w.why = "its kernel would read the buffer another ASSIGN writes, in another kernel";
    }
  }
  if (forced_realize || omap_len(group) == 0) {
    const UOp *tr = can_chase ? chase(k, ctx, r, r_uop) : r;
    omap_init(group, per);
    omap_put(group, omap_ptr(tr), (void *)tr);
    if (k->ex) v0_10_2_explain_reduce_preload(k, ctx, tr, r, w.why);
    realize(ctx, tr, tr);
  }
  for (size_t pos = 0; omap_next(group, &pos, &key, NULL);) omap_put(reduce_for_op, key, (void *)r);
  if (k->fuse_arange && v0_10_2_reduce_op_of(k, r_uop) == OP_ADD &&
      v0_10_2_uop_base(k, r_uop->src[0])->op == OP_CONST) {
    /* maybe fuse arange with its children */
    size_t nkids = 0;
    for (size_t pos = 0; omap_next(group, &pos, &key, NULL);) nkids += nchildren(ctx, (const UOp *)(uintptr_t)key, NULL);
    if (nkids)
      for (size_t pos = 0; omap_next(group, &pos, &key, NULL);) unrealize(k, ctx, (const UOp *)(uintptr_t)key);
  }
}

/* ---------------------------------------------------------------- break_sched */

/* schedule.py load_realized: VIEW(BUFFER b) becomes a LOAD (PRELOAD when b is assigned to in this schedule) */
static const UOp *load_realized(void *c, const UOp *st) {
  KG *k = c;
  ScheduleContext *ctx = k->pass;
  if (st->nsrc != 1 || st->src[0]->op != OP_BUFFER) return NULL;
  const UOp *b = st->src[0];
  Op op = v0_10_2_idset_has(&ctx->assigns, b) ? OP_PRELOAD : OP_LOAD;
  return v0_10_2_uop2(k, op, b->dtype->base, NULL, b, v0_10_2_st_to_uop(k, v0_10_2_uop_st_unwrap(k, st)));
}

/* schedule.py store_or_fuse: VIEW(BUFFER b, x) is a STORE of x, or x fused in its reader */
static const UOp *store_or_fuse(void *c, const UOp *st) {
  KG *k = c;
  ScheduleContext *ctx = k->pass;
  if (!is_scheduled(st)) return NULL;
  const UOp *b = st->src[0], *x = st->src[1];
  const Value *m = v0_10_2_idmap_get(&ctx->ops_metadata, b);
  if (m) v0_10_2_idmap_put(ctx->tmp, &ctx->ops_metadata, x, (void *)m);
  if (!in_map(&ctx->realizes, b)) return x; /* collapse BUFFER */
  uint32_t n;
  const sint *shape = v0_10_2_uop_shape(k, st, &n);
  const UOp *store =
      v0_10_2_uop3(k, OP_STORE, dt_void, NULL, b, v0_10_2_st_to_uop(k, v0_10_2_st_from_shape(&k->stc, n, shape)), x);
  omap_put(&ctx->realizes, omap_ptr(b), (void *)store);
  return v0_10_2_uop2(k, OP_LOAD, x->dtype, NULL, b, v0_10_2_st_to_uop(k, v0_10_2_uop_st_unwrap(k, st)));
}

static const Rule break_sched_rules[] = {
  {{OP_VIEW}, load_realized, "load_realized", {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 254}}}},
  {{OP_VIEW}, store_or_fuse, "store_or_fuse", {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 255}}}},
};
static const PatternMatcher pm_break_sched = {break_sched_rules, 2};

/* schedule.py group_realizes (0.10.1) */
void v0_10_2_group_realizes_preload(KG *k, const UOp *sink, ScheduleContext *ctx) {
  void *saved = k->pass;
  k->pass = ctx;
  /* start by adding uops that always realize */
  if (k->ex) v0_10_2_explain_preload_outs(k, sink);
  ctx->grouping = arena_scratch_begin(&k->scratch);
  omap_init(&ctx->allbufs, ctx->grouping);
  const PatternMatcher *dr = &pm_do_realize_create_ctx;
  static const PyLoc at_do_realize = {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 186}}}, at_break_sched = {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 237}}};
  sink = graph_rewrite_at(&at_do_realize, k->in, sink, &dr, 1, k, false);
  /* find all reduces, and pair them to a elementwise op. if they can't be cleanly paired, force realize the reduce (or a contig child) */
  Arena *tmp = arena_scratch_begin(&k->scratch);
  OMap reduce_for_op;
  omap_init(&reduce_for_op, tmp);
  size_t nbufs = omap_len(&ctx->allbufs), ndouble = 0;
  const UOp **double_reduces = arena_array(tmp, nbufs ? nbufs : 1, sizeof *double_reduces);
  /* each reduce's group, walk cache and stacks, forgotten after it */
  Arena *per = arena_scratch_begin(&k->scratch);
  ArenaMark start = arena_mark(per);
  uint64_t key;
  void *val;
  for (size_t pos = 0; omap_next(&ctx->allbufs, &pos, &key, &val);) {
    const UOp *r = (const UOp *)(uintptr_t)key, *r_uop = uval(k, val);
    if (r_uop->op != OP_REDUCE_AXIS) continue;
    const UOp *x = r_uop->src[0], *xb = v0_10_2_uop_base(k, x);
    if (k->fuse_conv_bw && is_scheduled(xb) && uval(k, xb)->op == r_uop->op && xb != x) double_reduces[ndouble++] = r;
    if (in_map(&ctx->realizes, r)) continue;
    arena_rewind(per, start);
    group_reduce(k, ctx, r, r_uop, &reduce_for_op, per);
  }
  /* fuse double reduces with no other child */
  for (size_t i = 0; i < ndouble; i++) {
    const UOp *top_reduce =
        v0_10_2_uop_buf_uop(k, v0_10_2_uop_base(k, uval(k, allbufs_of(k, ctx, double_reduces[i]))->src[0]));
    if (nchildren(ctx, top_reduce, NULL) == 1) unrealize(k, ctx, top_reduce);
  }
  arena_scratch_end(&k->scratch, per);
  arena_scratch_end(&k->scratch, tmp);
  arena_scratch_end(&k->scratch, ctx->grouping);
  ctx->grouping = NULL, ctx->children = (IdMap){0};
  omap_init(&ctx->allbufs, ctx->tmp);
  const PatternMatcher *bs = &pm_break_sched;
  graph_rewrite_at(&at_break_sched, k->in, sink, &bs, 1, k, false);
  if (k->ex) v0_10_2_explain_fuses_preload(k, ctx);
  k->pass = saved;
}
