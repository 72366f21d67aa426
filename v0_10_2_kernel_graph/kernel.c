/* kernel.c — breaking the tensor graph into KERNELs and turning one KERNEL
 * into a ScheduleItem, tinygrad 0.10.2 engine/schedule.py: create_kernel,
 * append_to_kernel, create_kernels, schedule_uop. */
#include <string.h>
#include "kernel_rules.h"

/* Kernel(ast, metadata), a frozen dataclass, as the Value
 * ("Kernel", ast id, metadata tuple): equal exactly when the dataclasses are. */
const Value *v0_10_2_kernel_arg(KG *k, const UOp *ast, const Value *metadata) {
  const Value *items[3] = {k->kernel_tag, v0_10_2_value_int(k, ast->id), metadata};
  return v_tuple(k->in, 3, items);
}

const UOp *v0_10_2_kernel_arg_ast(KG *k, const UOp *kernel) {
  const Value *a = kernel->arg;
  if (a->kind != V_TUPLE || a->u.tuple.n != 3 || a->u.tuple.items[1]->kind != V_INT)
    error_unsupported("a KERNEL in the input graph");
  int64_t id = a->u.tuple.items[1]->u.i;
  if (id < 0 || (uint64_t)id >= uop_count(k->in)) error_unsupported("a KERNEL whose ast is unknown");
  return uop_by_id(k->in, (uint32_t)id);
}

const Value *v0_10_2_kernel_arg_metadata(const UOp *kernel) { return kernel->arg->u.tuple.items[2]; }

/* ---------------------------------------------------------------- create_kernels */

/* schedule.py create_kernel */
static const UOp *create_kernel(void *c, const UOp *x) {
  KG *k = c;
  KernelContext *ctx = k->pass;
  if (k->f->create_kernels_assign_reshape) return NULL;
  if (x->op == OP_KERNEL || x->op == OP_BUFFER || !v0_10_2_idset_has(ctx->realizes, x)) return NULL;
  const char *dev = v0_10_2_uop_device(k, x);
  if (!dev) error_raise("AssertionError", "%s", "");
  const UOp *b =
      x->op == OP_ASSIGN ? v0_10_2_uop_buf_uop(k, x) : v0_10_2_new_buffer(k, dev, v0_10_2_uop_size(k, x), x->dtype);
  uint32_t n;
  const sint *shape = v0_10_2_uop_shape(k, x, &n);
  const Value *m = v0_10_2_idmap_get(&ctx->ops_metadata, x);
  const Value *meta = m ? v_tuple(k->in, 1, &m) : v_tuple(k->in, 0, NULL);
  const UOp **src = arena_array(k->a, x->nsrc + 1, sizeof *src);
  src[0] = b;
  memcpy(src + 1, x->src, x->nsrc * sizeof *src);
  const UOp *kernel = v0_10_2_uop(k, OP_KERNEL, dt_void, v0_10_2_kernel_arg(k, x, meta), x->nsrc + 1, src);
  const UOp *view = v0_10_2_uop_view(k, b, v0_10_2_st_from_shape(&k->stc, n, shape));
  return v0_10_2_uop2(k, OP_ASSIGN, view->dtype, NULL, view, kernel);
}

/* a0b4465 schedule.py create_kernel(ctx, x, b):
 *   kernel = UOp(Ops.KERNEL, src=(b,)+x.src, arg=Kernel(x.sink(), (m,) if (m:=ctx.ops_metadata.get(x)) else ()))
 *   buffer = b.base if b.size == b.base.size else UOp(Ops.BUFFER_VIEW, b.dtype, (b.base,), (b.size, b.arg.views[0].offset))
 *   return UOp(Ops.ASSIGN, x.dtype, (buffer, kernel)).reshape(x.shape) */
static const UOp *create_kernel_to(KG *k, const UOp *x, const UOp *b) {
  KernelContext *ctx = k->pass;
  const Value *m = v0_10_2_idmap_get(&ctx->ops_metadata, x);
  const Value *meta = m ? v_tuple(k->in, 1, &m) : v_tuple(k->in, 0, NULL);
  const UOp **src = arena_array(k->a, x->nsrc + 1, sizeof *src);
  src[0] = b;
  memcpy(src + 1, x->src, x->nsrc * sizeof *src);
  const UOp *kernel =
      v0_10_2_uop(k, OP_KERNEL, dt_void, v0_10_2_kernel_arg(k, v0_10_2_uop_sink(k, 1, &x), meta), x->nsrc + 1, src);
  const UOp *base = v0_10_2_uop_base(k, b), *buffer = base;
  if (v0_10_2_uop_size(k, b) != v0_10_2_uop_size(k, base)) {
    const ST *bst = v0_10_2_value_get_st(b->arg);
    if (b->op != OP_VIEW || !bst) error_unsupported("an ASSIGN to a view that is no VIEW");
    const Value *arg[2] = {v0_10_2_value_int(k, v0_10_2_uop_size(k, b)), v0_10_2_value_sint(k, bst->views[0]->offset)};
    buffer = v0_10_2_uop1(k, OP_BUFFER_VIEW, b->dtype, v_tuple(k->in, 2, arg), base);
  }
  uint32_t n;
  const sint *shape = v0_10_2_uop_shape(k, x, &n);
  return v0_10_2_uop_reshape(k, v0_10_2_uop2(k, OP_ASSIGN, x->dtype, NULL, buffer, kernel), n, shape);
}

/* UOp.new_buffer(x.device, x.size, x.dtype) */
static const UOp *new_buffer_like(KG *k, const UOp *x, const char *dev) {
  if (!dev) error_raise("AssertionError", "%s", "");
  return v0_10_2_new_buffer(k, dev, v0_10_2_uop_size(k, x), x->dtype);
}

/* always give assign/contiguous a kernel: ASSIGN(b, not KERNEL) */
static const UOp *create_kernels_assign(void *c, const UOp *x) {
  KG *k = c;
  if (!k->f->create_kernels_assign_reshape || x->nsrc != 2 || x->src[1]->op == OP_KERNEL) return NULL;
  return create_kernel_to(k, x, x->src[0]);
}
static const UOp *create_kernels_contiguous(void *c, const UOp *x) {
  KG *k = c;
  if (!k->f->create_kernels_assign_reshape) return NULL;
  return create_kernel_to(k, x, new_buffer_like(k, x, v0_10_2_uop_device(k, x)));
}
/* create a buffer for COPY on the new device */
static const UOp *create_kernels_copy(void *c, const UOp *x) {
  KG *k = c;
  if (!k->f->create_kernels_assign_reshape || x->nsrc != 2 || x->src[0]->op != OP_DEVICE) return NULL;
  const Value *d = x->src[0]->arg;
  if (d->kind != V_STR) error_unsupported("a COPY to several devices");
  return create_kernel_to(k, x, new_buffer_like(k, x, d->u.str.s));
}
/* otherwise check the context if we're realizing this UOp */
static const UOp *create_kernels_realized(void *c, const UOp *x) {
  KG *k = c;
  KernelContext *ctx = k->pass;
  if (!k->f->create_kernels_assign_reshape || x->op == OP_KERNEL || x->op == OP_ASSIGN || x->op == OP_BUFFER) return NULL;
  if (!v0_10_2_idset_has(ctx->realizes, x)) return NULL;
  return create_kernel_to(k, x, new_buffer_like(k, x, v0_10_2_uop_device(k, x)));
}
/* remove downstream reshapes from SINK */
static const UOp *create_kernels_sink_bases(void *c, const UOp *x) {
  KG *k = c;
  if (!k->f->create_kernels_assign_reshape) return NULL;
  bool any = false;
  for (uint32_t i = 0; i < x->nsrc; i++) any |= x->src[i]->op == OP_VIEW;
  if (!any) return NULL;
  const UOp **src = arena_array(k->a, x->nsrc, sizeof *src);
  for (uint32_t i = 0; i < x->nsrc; i++) src[i] = v0_10_2_uop_base(k, x->src[i]);
  return v0_10_2_replace_src(k, x, x->nsrc, src);
}

/* dedup / dict.fromkeys for the few items of one KERNEL: a list searched
 * linearly, with an OMap index once it grows past a handful */
typedef struct UniqList { const void **items; size_t n, cap; OMap *index; } UniqList;

static void uniq_add(KG *k, UniqList *l, const void *x) {
  if (l->index) {
    if (omap_has(l->index, omap_ptr(x))) return;
  } else {
    for (size_t i = 0; i < l->n; i++)
      if (l->items[i] == x) return;
  }
  if (l->n == l->cap) l->items = arena_grow(k->a, l->items, l->n, &l->cap, sizeof *l->items);
  l->items[l->n++] = x;
  if (l->index) omap_put(l->index, omap_ptr(x), (void *)1);
  else if (l->n > 32) {
    l->index = arena_alloc(k->a, sizeof *l->index);
    omap_init(l->index, k->a);
    for (size_t i = 0; i < l->n; i++) omap_put(l->index, omap_ptr(l->items[i]), (void *)1);
  }
}

/* a0b4465: s.op in DONT_PLACE_IN_KERNEL (KERNEL, ASSIGN, BUFFER) or s in ctx.realizes */
static bool kept_in_kernel(KG *k, KernelContext *ctx, const UOp *s) {
  if (k->f->create_kernels_assign_reshape)
    return s->op == OP_KERNEL || s->op == OP_ASSIGN || s->op == OP_BUFFER || v0_10_2_idset_has(ctx->realizes, s);
  return s->op == OP_BUFFER || (s->op == OP_ASSIGN && s->src[1]->op == OP_KERNEL) ||
         v0_10_2_idset_has(ctx->realizes, s);
}

/* schedule.py append_to_kernel, applied until it returns None, as
 * bottom_up_rewrite does with a KERNEL (the only op it is tried on): the
 * KERNELs in between are never seen outside that loop, so the steps work on
 * lists and only the last one becomes a UOp. One step:
 *   new_srcs, new_metadata = [], dict.fromkeys(x.arg.metadata)
 *   for s in x.src: keep s, or take s.src and s's metadata
 *   x.replace(src=dedup(new_srcs), arg=Kernel(x.arg.ast, tuple(new_metadata))) if that changes the sources */
static const UOp *append_to_kernel(void *c, const UOp *x) {
  KG *k = c;
  KernelContext *ctx = k->pass;
  const void *meta_buf[8];
  UniqList meta = {meta_buf, 0, 8, NULL};
  const Value *old_meta = v0_10_2_kernel_arg_metadata(x);
  for (size_t i = 0; i < old_meta->u.tuple.n; i++) uniq_add(k, &meta, old_meta->u.tuple.items[i]);
  const UOp *const *cur = x->src;
  size_t n = x->nsrc;
  bool changed = false;
  for (int which = 0;; which ^= 1) {
    const UOp **next = k->append_bufs[which];
    size_t m = 0;
    v0_10_2_marks_begin(k); /* dedup */
    for (size_t i = 0; i < n; i++) {
      const UOp *s = cur[i];
      if (kept_in_kernel(k, ctx, s)) {
        if (v0_10_2_mark(k, s)) continue;
        if (m == k->append_caps[which])
          next = k->append_bufs[which] = heap_grow(next, m, &k->append_caps[which], sizeof *next);
        next[m++] = s;
        continue;
      }
      for (uint32_t j = 0; j < s->nsrc; j++) {
        if (v0_10_2_mark(k, s->src[j])) continue;
        if (m == k->append_caps[which])
          next = k->append_bufs[which] = heap_grow(next, m, &k->append_caps[which], sizeof *next);
        next[m++] = s->src[j];
      }
      const Value *md = v0_10_2_idmap_get(&ctx->ops_metadata, s);
      if (md) uniq_add(k, &meta, md);
    }
    if (m == n && (n == 0 || memcmp(next, cur, n * sizeof *cur) == 0)) break;
    changed = true;
    cur = next, n = m;
    if (k->in->trace) break; /* traced: one step a match, as tinygrad's loop takes them */
  }
  if (!changed) return NULL;
  const Value **nmeta = arena_array(k->a, meta.n ? meta.n : 1, sizeof *nmeta);
  for (size_t i = 0; i < meta.n; i++) nmeta[i] = meta.items[i];
  const Value *arg = v0_10_2_kernel_arg(k, v0_10_2_kernel_arg_ast(k, x), v_tuple(k->in, meta.n, nmeta));
  return v0_10_2_uop(k, OP_KERNEL, x->dtype, arg, (uint32_t)n, cur);
}

/* 0.10.2: create_kernel, append_to_kernel; a0b4465: the rules marked so */
static const Rule create_kernels_rules[] = {
  {{OP_ASSIGN}, create_kernels_assign, "always give assign a kernel (a0b4465)", {{[TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 258}}}},
  {{OP_CONTIGUOUS}, create_kernels_contiguous, "always give contiguous a kernel (a0b4465)", {{[TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 259}}}},
  {{OP_COPY}, create_kernels_copy, "create a buffer for COPY on the new device (a0b4465)", {{[TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 261}}}},
  {{OP_NONE}, create_kernels_realized, "create_kernel if we're realizing this UOp (a0b4465)", {{[TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 263}}}},
  {{OP_NONE}, create_kernel, "create_kernel", {{[TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 225}}}},
  {{OP_KERNEL}, append_to_kernel, "append_to_kernel", {{[TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 226}, [TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 266}}}},
  {{OP_SINK}, create_kernels_sink_bases, "remove downstream reshapes from SINK (a0b4465)", {{[TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 268}}}},
};
const PatternMatcher v0_10_2_pm_create_kernels = {
    create_kernels_rules, sizeof create_kernels_rules / sizeof *create_kernels_rules};

/* ---------------------------------------------------------------- schedule_uop */

/* device.py Buffer.view */
Buf *v0_10_2_buffer_view(KG *k, Buf *src, int64_t size, const DType *dt, int64_t offset) {
  if (!(offset < src->size * src->dtype->itemsize)) error_raise("AssertionError", "offset must be less than nbytes");
  Buf *b = arena_alloc(k->a, sizeof *b);
  b->input_index = -1;
  b->device = src->device;
  b->size = size;
  b->dtype = dt;
  b->image = dt->is_image ? dt : NULL;
  b->base = src->base ? src->base : src;
  b->offset = src->base ? src->offset + offset : offset;
  return b;
}

/* The passes of schedule_uop after add_buffer_ops (view_left with
 * unbind_vars, view_right, fix_kernel_ops) and apply_swizzle's view_left
 * read nothing but the node they rewrite, so rewrite(n) is a function of n:
 * each gets one RewriteContext for the whole schedule, and a subtree that
 * many kernels share is rewritten once. The replace map of a context only
 * ever holds rewrite(n), so every kernel gets what a fresh graph_rewrite
 * would give it. (unbind_vars adds to var_vals, which is shared by all
 * kernels: seeing a BIND again would put the same value again.) */

static const PatternMatcher *const left_pms[3] = {
    &v0_10_2_pm_unbind_vars, &v0_10_2_pm_merge_views, &v0_10_2_pm_view_left};
static const PatternMatcher *const right_pms[2] = {&v0_10_2_pm_merge_views, &v0_10_2_pm_view_right};
static const PatternMatcher *const fix_pms[1] = {&v0_10_2_pm_fix_kernel_ops};
static const PatternMatcher *const swizzle_pms[2] = {&v0_10_2_pm_merge_views, &v0_10_2_pm_view_left};

void v0_10_2_kernel_passes_begin(KG *k) {
  KernelPasses *p = arena_alloc(k->a, sizeof *p);
  rewrite_context_init(&p->left, k->in, left_pms, 3, k);
  rewrite_context_init(&p->right, k->in, right_pms, 2, k);
  rewrite_context_init(&p->fix, k->in, fix_pms, 1, k);
  rewrite_context_init(&p->swizzle, k->in, swizzle_pms, 2, k);
  p->swizzle.trace = NULL; /* apply_swizzle: Context(TRACK_MATCH_STATS=0) */
  k->kpasses = p;
}

void v0_10_2_kernel_passes_end(KG *k) {
  KernelPasses *p = k->kpasses;
  rewrite_context_release(&p->swizzle);
  rewrite_context_release(&p->fix);
  rewrite_context_release(&p->right);
  rewrite_context_release(&p->left);
  k->kpasses = NULL;
}

/* with Context(TRACK_MATCH_STATS=0): return graph_rewrite(u, merge_views+view_left) */
const UOp *v0_10_2_apply_swizzle(KG *k, const UOp *u) {
  if (k->kpasses) return top_down_rewrite(&k->kpasses->swizzle, u);
  return graph_rewrite_untracked(k->in, u, swizzle_pms, 2, k, false);
}

/* graph_rewrite(ast, pms) of a pass of schedule_uop called at `at`: in the pass's shared context, or,
 * while the steps are traced, in a context of its own as in tinygrad (whose rules fire again on the
 * nodes an earlier kernel's rewrite saw) */
const UOp *v0_10_2_pass_rewrite(KG *k, const PyLoc *at, RewriteContext *shared, const UOp *ast) {
  if (!k->in->trace) return top_down_rewrite(shared, ast);
  return graph_rewrite_at(at, k->in, ast, shared->pms, shared->npms, k, false);
}

/* schedule.py schedule_uop (between v0_10_2_kernel_passes_begin and v0_10_2_kernel_passes_end);
 * its temporaries go to tmp */
void v0_10_2_schedule_uop(KG *k, Arena *tmp, const UOp *sink, OMap *var_vals, ScheduleItem *out) {
  if (sink->op != OP_ASSIGN || sink->src[1]->op != OP_KERNEL)
    error_raise("AssertionError", "%s\n...) must be ASSIGN", v0_10_2_uop_repr_line(k, sink));
  const UOp *kernel = sink->src[1];
  /* substitute kernel sources for the target buffer */
  OMap subs;
  omap_init(&subs, tmp);
  for (uint32_t i = 0; i < kernel->nsrc; i++) {
    const UOp *s = kernel->src[i];
    if (s->op == OP_ASSIGN) omap_put(&subs, omap_ptr(v0_10_2_kernel_arg_ast(k, s->src[1])), (void *)s->src[0]);
  }
  const UOp *ast = v0_10_2_uop_substitute(k, v0_10_2_kernel_arg_ast(k, kernel), &subs);
  ast = v0_10_2_uop_sink(k, 1, &ast);
  void *saved = k->pass;
  /* add buffer ops */
  BufList bufs = {.arena = tmp};
  omap_init(&bufs.index, tmp);
  v0_10_2_buflist_index(&bufs, v0_10_2_uop_buf_uop(k, sink));
  k->pass = &bufs;
  static const PyLoc at_add_buffer_ops = {{[TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 354}}}, at_views = {{[TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 356}}},
                     at_fix = {{[TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 358}}};
  const PatternMatcher *abo = &v0_10_2_pm_add_buffer_ops;
  ast = graph_rewrite_at(&at_add_buffer_ops, k->in, ast, &abo, 1, k, true);
  /* unbind_vars + push views to edges */
  k->pass = var_vals;
  KernelPasses *p = k->kpasses;
  ast = v0_10_2_pass_rewrite(k, &at_views, &p->left, ast);
  ast = v0_10_2_pass_rewrite(k, &at_views, &p->right, ast);
  /* fix_kernel_ops */
  ast = v0_10_2_pass_rewrite(k, &at_fix, &p->fix, ast);
  k->pass = saved;
  /* create subbuffer */
  if (ast->op == OP_BUFFER_VIEW) {
    if (bufs.n < 2) error_raise("IndexError", "list index out of range");
    const UOp *x = ast->src[0];
    sint offset = v0_10_2_uop_st_unwrap(k, x)->views[0]->offset;
    if (!v0_10_2_sint_is_int(offset)) error_unsupported("a BUFFER_VIEW with a symbolic offset");
    Buf *view = v0_10_2_buffer_view(k, v0_10_2_uop_buffer(k, bufs.items[1]), v0_10_2_uop_size(k, ast), ast->dtype,
        v0_10_2_sint_int(offset) * x->dtype->itemsize);
    omap_put(&k->buffers, omap_ptr(bufs.items[0]), view);
  }
  out->ast = ast;
  out->bufs = arena_array(k->a, bufs.n, sizeof *out->bufs);
  out->nbufs = 0;
  for (size_t i = 0; i < bufs.n; i++) {
    Buf *b = v0_10_2_uop_buffer(k, bufs.items[i]);
    bool dup = false;
    for (size_t j = 0; j < out->nbufs; j++) dup |= out->bufs[j] == b;
    if (!dup) out->bufs[out->nbufs++] = b;
  }
  out->metadata = v0_10_2_kernel_arg_metadata(kernel);
}
