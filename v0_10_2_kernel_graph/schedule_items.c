/* schedule_items.c — tinygrad 0.10.1 engine/schedule.py from the tensor map
 * on: the becomes_map of simplified tensors, add_buffers and group_realizes
 * (bufferize.c), schedule_uop with to_si and the assign checks for each
 * realized BUFFER's STORE, kernel_to_si, and the BFS over ScheduleItems, in
 * which a kernel that PRELOADs a buffer runs before the kernel assigning it. */
#include <string.h>
#include "kernel_rules.h"
#include "preload.h"

/* ---------------------------------------------------------------- to_si */

/* schedule.py ScheduleItemContext: var_vals, and the BUFFERs in DEFINE_GLOBAL order */
typedef struct ScheduleItemContext {
  OMap *var_vals;
  const UOp **bufs;
  size_t nbufs, cap;
  Arena *tmp;
} ScheduleItemContext;

/* schedule.py _append_buf: BUFFER -> DEFINE_GLOBAL */
static const UOp *append_buf(void *c, const UOp *x) {
  KG *k = c;
  ScheduleItemContext *ctx = k->pass;
  if (ctx->nbufs == ctx->cap) ctx->bufs = arena_grow(ctx->tmp, ctx->bufs, ctx->nbufs, &ctx->cap, sizeof *ctx->bufs);
  ctx->bufs[ctx->nbufs++] = x;
  return v0_10_2_uop(k, OP_DEFINE_GLOBAL, v0_10_2_dtype_ptr(k, x->dtype, v0_10_2_uop_size(k, x)),
      v0_10_2_value_int(k, (int64_t)ctx->nbufs - 1), 0, NULL);
}

/* schedule.py _append_st_vars: simplify and unbind the final VIEWs (fix_kernel_ops' rule, whose ctx is var_vals) */
static const UOp *append_st_vars(void *c, const UOp *x) {
  KG *k = c;
  ScheduleItemContext *ctx = k->pass;
  k->pass = ctx->var_vals;
  const UOp *r = v0_10_2_append_st_vars(c, x);
  k->pass = ctx;
  return r;
}

/* don't need SINK on COPY or BUFFER_VIEW:
 * (UPat(Ops.SINK, src=(UPat.store(UPat.var("b"), UPat(), UPat((Ops.COPY, Ops.BUFFER_VIEW), name="x")),)), lambda b,x: x.replace(src=(b, *x.src))) */
static const UOp *to_si_sink_meta(void *c, const UOp *sink) {
  KG *k = c;
  if (sink->nsrc != 1 || sink->src[0]->op != OP_STORE || sink->src[0]->nsrc != 3) return NULL;
  const UOp *b = sink->src[0]->src[0], *x = sink->src[0]->src[2];
  if (x->op != OP_COPY && x->op != OP_BUFFER_VIEW) return NULL;
  const UOp **src = arena_array(k->a, x->nsrc + 1, sizeof *src);
  src[0] = b;
  memcpy(src + 1, x->src, x->nsrc * sizeof *src);
  return v0_10_2_replace_src(k, x, x->nsrc + 1, src);
}

/* PRELOAD becomes LOAD */
static const UOp *to_si_preload_load(void *c, const UOp *root) { return v0_10_2_replace_op(c, root, OP_LOAD); }

static const Rule to_si_rules[] = {
  {{OP_BUFFER}, append_buf, "BUFFER -> DEFINE_GLOBAL", {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 358}}}},
  {{OP_VIEW}, append_st_vars, "simplify and unbind the final VIEWs", {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 360}}}},
  {{OP_SINK}, to_si_sink_meta, "don't need SINK on COPY or BUFFER_VIEW", {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 362}}}},
  {{OP_CONTIGUOUS}, v0_10_2_fix_kernel_ops_remove_contiguous, "don't need contiguous", {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 364}}}},
  {{OP_ASSIGN}, v0_10_2_fix_kernel_ops_remove_assign, "don't need assign", {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 365}}}},
  {{OP_VIEW}, v0_10_2_fix_kernel_ops_view_device, "don't need DEVICE anymore", {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 367}}}},
  {{OP_PRELOAD}, to_si_preload_load, "PRELOAD becomes LOAD", {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 369}}}},
  {{OP_NONE}, v0_10_2_fix_kernel_ops_no_image, "once images are loaded they become the base dtype", {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 371}}}},
};
static const PatternMatcher pm_to_si = {to_si_rules, sizeof to_si_rules / sizeof *to_si_rules};

/* ---------------------------------------------------------------- schedule_uop */

/* ctx.preloads[buffer] (a defaultdict of dicts) */
static OMap *preloads_of(ScheduleContext *ctx, Buf *buffer) {
  OMap *p = omap_get(&ctx->preloads, omap_ptr(buffer));
  if (!p) {
    p = arena_alloc(ctx->tmp, sizeof *p);
    omap_init(p, ctx->tmp);
    omap_put(&ctx->preloads, omap_ptr(buffer), p);
  }
  return p;
}

/* schedule.py schedule_uop, "deal with ASSIGN": a kernel depends on the before
 * or the after ASSIGN version of a BUFFER, not both; its PRELOADs run it
 * before the ASSIGN; the PRELOAD of the buffer it assigns must be contiguous */
static void deal_with_assign(KG *k, ScheduleContext *ctx, const UOp *pre, const UOp *sink, const UOp *out_buf) {
  OMap *assign_preloads = preloads_of(ctx, v0_10_2_uop_buffer(k, out_buf));
  const UOp *target = v0_10_2_uop_buf_uop(k, pre->src[0]);
  const UOp **order;
  size_t n = v0_10_2_toposort(k, sink, &order);
  for (size_t i = n; i-- > 0;) {
    const UOp *x = order[i];
    if (x->op == OP_LOAD && omap_has(assign_preloads, omap_ptr(v0_10_2_uop_buf_uop(k, x))))
      error_raise("RuntimeError", "cycle detected in graph");
    if (x->op != OP_PRELOAD) continue;
    const UOp *b = v0_10_2_uop_buf_uop(k, x);
    omap_put(assign_preloads, omap_ptr(b), (void *)b);
    /* if this kernel also assigns to the buffer, we only allow either contiguous or masked views for the LOAD */
    if (b == target) v0_10_2_check_assign_load_st(k, v0_10_2_uop_st_unwrap(k, x));
  }
}

/* NOTE: we only add the metadata for fused tensors:
 * tuple(dedup(m for x in pre.toposort if x.op is not Ops.BUFFER and (m:=ctx.ops_metadata.get(x)) is not None)) */
static const Value *kernel_metadata(KG *k, ScheduleContext *ctx, const UOp *pre, Arena *tmp) {
  const UOp **order;
  size_t n = v0_10_2_toposort(k, pre, &order), nm = 0;
  const Value **ms = arena_array(tmp, n ? n : 1, sizeof *ms);
  OMap seen;
  omap_init(&seen, tmp);
  for (size_t i = 0; i < n; i++) {
    if (order[i]->op == OP_BUFFER) continue;
    const Value *m = v0_10_2_idmap_get(&ctx->ops_metadata, order[i]);
    if (m && !omap_has(&seen, omap_ptr(m))) omap_put(&seen, omap_ptr(m), (void *)m), ms[nm++] = m;
  }
  return v_tuple(k->in, nm, ms);
}

/* schedule.py schedule_uop (0.10.1): the KERNEL of one realized BUFFER's STORE
 * (between v0_10_2_kernel_passes_begin and v0_10_2_kernel_passes_end) */
static const UOp *schedule_uop_preload(KG *k, Arena *tmp, const UOp *pre, ScheduleContext *ctx, OMap *var_vals) {
  void *saved = k->pass;
  /* unbind_vars + push views to edges */
  k->pass = var_vals;
  static const PyLoc at_views = {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 381}}}, at_to_si = {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 383}}};
  const UOp *sink = v0_10_2_pass_rewrite(k, &at_views, &k->kpasses->left, pre);
  sink = v0_10_2_pass_rewrite(k, &at_views, &k->kpasses->right, sink);
  /* remove extra uops from SINK + substitue BUFFER with DEFINE_GLOBAL */
  ScheduleItemContext si_ctx = {var_vals, NULL, 0, 0, tmp};
  k->pass = &si_ctx;
  const PatternMatcher *ts = &pm_to_si;
  const UOp *ast = graph_rewrite_at(&at_to_si, k->in, sink, &ts, 1, k, false);
  k->pass = saved;
  /* deal with ASSIGN */
  if (ctx->assigns.len != 0) {
    if (!si_ctx.nbufs) error_raise("IndexError", "list index out of range");
    deal_with_assign(k, ctx, pre, sink, si_ctx.bufs[0]);
  }
  const Value *metadata = kernel_metadata(k, ctx, pre, tmp);
  return v0_10_2_uop(k, OP_KERNEL, dt_void, v0_10_2_kernel_arg(k, ast, metadata), (uint32_t)si_ctx.nbufs, si_ctx.bufs);
}

/* ---------------------------------------------------------------- the BFS */

/* ScheduleItem.output_idxs contains i: tuple(x.src[0].arg for x in self.ast.src) if self.ast.op is Ops.SINK else (0,) */
bool v0_10_2_is_output_idx(const ScheduleItem *si, size_t i) {
  if (si->ast->op != OP_SINK) return i == 0;
  for (uint32_t j = 0; j < si->ast->nsrc; j++) {
    const UOp *x = si->ast->src[j];
    if (x->nsrc && x->src[0]->arg->kind == V_INT && x->src[0]->arg->u.i == (int64_t)i) return true;
  }
  return false;
}

/* kernel_to_si */
static ScheduleItem kernel_to_si(KG *k, const UOp *kernel) {
  ScheduleItem si = {v0_10_2_kernel_arg_ast(k, kernel),
      arena_array(k->a, kernel->nsrc ? kernel->nsrc : 1, sizeof(Buf *)), kernel->nsrc,
      v0_10_2_kernel_arg_metadata(kernel)};
  for (uint32_t i = 0; i < kernel->nsrc; i++)
    si.bufs[i] = v0_10_2_uop_buffer(k, v0_10_2_uop_buf_uop(k, kernel->src[i]));
  return si;
}

/* graph[si].append(x); in_degree[x] += 1 */
typedef struct Edges { size_t **succ; size_t *nsucc, *cap; intptr_t *in_degree; Arena *tmp; } Edges;
static void add_edge(Edges *e, size_t from, size_t to) {
  if (e->nsucc[from] == e->cap[from])
    e->succ[from] = arena_grow(e->tmp, e->succ[from], e->nsucc[from], &e->cap[from], sizeof **e->succ);
  e->succ[from][e->nsucc[from]++] = to;
  e->in_degree[to]++;
}

/* dedup'd append of item j to list l (n of them) */
static void add_unique(size_t *l, size_t *n, size_t j) {
  for (size_t i = 0; i < *n; i++)
    if (l[i] == j) return;
  l[(*n)++] = j;
}

/* create_schedule_with_vars, "add ScheduleItem children" and "do BFS" */
static void bfs_schedule_items(KG *k, ScheduleContext *ctx, ScheduleItem *pre, size_t n, SchedResult *res) {
  Arena *tmp = arena_scratch_begin(&k->scratch);
  /* schedule_targets = {out:si for si in prescheduled for out in si.outputs} */
  OMap targets;
  omap_init(&targets, tmp);
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < pre[i].nbufs; j++)
      if (v0_10_2_is_output_idx(&pre[i], j)) omap_put(&targets, omap_ptr(pre[i].bufs[j]), (void *)(i + 1));
  Edges e = {arena_array(tmp, n + 1, sizeof(size_t *)), arena_array(tmp, n + 1, sizeof(size_t)), arena_array(tmp, n + 1, sizeof(size_t)),
             arena_array(tmp, n + 1, sizeof(intptr_t)), tmp};
  size_t *parents = arena_array(tmp, n + 1, sizeof *parents), *scheduled = arena_array(tmp, n + 1, sizeof *scheduled);
  for (size_t i = 0; i < n; i++) {
    /* realize outputs before a parent is assigned to */
    size_t np = 0, ns = 0;
    OMap *pl = pre[i].nbufs ? omap_get(&ctx->preloads, omap_ptr(pre[i].bufs[0])) : NULL;
    if (!pre[i].nbufs) error_raise("IndexError", "tuple index out of range");
    uint64_t key;
    for (size_t pos = 0; pl && omap_next(pl, &pos, &key, NULL);) {
      size_t t = (size_t)(uintptr_t)omap_get(&targets, omap_ptr(v0_10_2_uop_buffer(k, (const UOp *)(uintptr_t)key)));
      if (t && t - 1 != i) add_unique(parents, &np, t - 1);
    }
    for (size_t j = 0; j < np; j++) add_edge(&e, i, parents[j]);
    /* realize outputs after all parents are realized */
    for (size_t j = 0; j < pre[i].nbufs; j++) {
      if (v0_10_2_is_output_idx(&pre[i], j)) continue;
      size_t t = (size_t)(uintptr_t)omap_get(&targets, omap_ptr(pre[i].bufs[j]));
      bool in_parents = false;
      for (size_t q = 0; q < np; q++) in_parents |= t && parents[q] == t - 1;
      if (t && !in_parents) add_unique(scheduled, &ns, t - 1);
    }
    for (size_t j = 0; j < ns; j++) add_edge(&e, scheduled[j], i);
  }
  /* do BFS */
  size_t *queue = arena_array(tmp, n + 1, sizeof *queue), head = 0, tail = 0;
  for (size_t i = 0; i < n; i++)
    if (e.in_degree[i] == 0) queue[tail++] = i;
  res->items = arena_array(k->a, n + 1, sizeof *res->items);
  res->n = 0;
  while (head < tail) {
    size_t i = queue[head++];
    res->items[res->n++] = pre[i];
    for (size_t j = 0; j < e.nsucc[i]; j++)
      if (--e.in_degree[e.succ[i][j]] == 0) queue[tail++] = e.succ[i][j];
  }
  /* confirm everything was scheduled correctly */
  if (res->n != n)
    error_raise("RuntimeError", "cycle detected in graph, grouped %zu but only scheduled %zu", n, res->n);
  arena_scratch_end(&k->scratch, tmp);
}

/* ---------------------------------------------------------------- create_schedule_with_vars */

/* all_int(u.shape) */
static bool all_int_shape(KG *k, const UOp *u) {
  uint32_t n;
  const sint *shape = v0_10_2_uop_shape(k, u, &n);
  return v0_10_2_sint_all_int(n, shape);
}

/* UOp.is_realized: the base is a BUFFER (UOp.buffer makes its Buffer) */
static bool is_realized(KG *k, const UOp *u) {
  const UOp *b = v0_10_2_uop_base(k, u);
  if (b->op == OP_MULTI) error_unsupported("multi-device tensors (Ops.MULTI)");
  if (b->op != OP_BUFFER) return false;
  v0_10_2_uop_buffer(k, b);
  return true;
}

/* tensors can become an existing buffer or simplify to a const, no ScheduleItem needed */
static void becomes_from_tensor_map(KG *k, const OMap *tensor_map, OMap *becomes) {
  uint64_t key;
  void *val;
  for (size_t pos = 0; omap_next(tensor_map, &pos, &key, &val);) {
    const UOp *kk = (const UOp *)(uintptr_t)key, *v = val;
    /* NOOP */
    if (v0_10_2_uop_base(k, kk) == v0_10_2_uop_base(k, v)) continue;
    /* NOTE: only the base tensors get a BUFFER UOp */
    if (is_realized(k, v) && kk == v0_10_2_uop_base(k, kk))
      omap_put(becomes, key, (void *)v0_10_2_uop_view(k, v, v0_10_2_uop_st_unwrap(k, kk)));
    /* otherwise if it simplified to a CONST the UOp just becomes that CONST */
    else if (v->op == OP_CONST && all_int_shape(k, v)) omap_put(becomes, key, (void *)v);
  }
}

/* create_schedule_with_vars (0.10.1) after `tensor_map = graph_rewrite_map(big_sink, remove_movement_ops+sym)`;
 * tensor_map is in scratch arena `maps`, ended here once the tensors are mapped to their BUFFERs */
void v0_10_2_create_schedule_with_preloads(
    KG *k, Arena *maps, const UOp *big_sink, const OMap *tensor_map, SchedResult *res) {
  becomes_from_tensor_map(k, tensor_map, &res->becomes_map);
  /* we group the rest of UOps into ScheduleItems */
  Arena *ctx_maps = arena_scratch_begin(&k->scratch);
  ScheduleContext ctx = {.tmp = ctx_maps};
  omap_init(&ctx.realizes, ctx_maps);
  omap_init(&ctx.preloads, ctx_maps);
  IdMap buffer_map = {0};
  const UOp *sink = v0_10_2_add_buffers(k, &ctx, omap_get(tensor_map, omap_ptr(big_sink)), &buffer_map);
  /* get realizes: buf_tensors and ops_metadata */
  IdMap buf_tensors = {0};
  uint64_t key;
  void *val;
  for (size_t pos = 0; omap_next(tensor_map, &pos, &key, &val);) {
    const UOp *b = v0_10_2_idmap_get(&buffer_map, val);
    if (!b) continue;
    v0_10_2_ulist_push(ctx_maps, v0_10_2_ulist_of(ctx_maps, &buf_tensors, b), (const UOp *)(uintptr_t)key);
    v0_10_2_idmap_put(ctx_maps, &ctx.ops_metadata, b, (void *)v0_10_2_uop_metadata(k, (const UOp *)(uintptr_t)key));
  }
  /* the tensor map is not read again: its memory goes on in the kernels */
  arena_scratch_end(&k->scratch, maps);
  tensor_map = NULL;
  v0_10_2_group_realizes_preload(k, sink, &ctx);
  /* create kernels + map buffers to realized tensors */
  size_t n = omap_len(&ctx.realizes), i = 0;
  ScheduleItem *pre = arena_array(k->a, n ? n : 1, sizeof *pre);
  v0_10_2_kernel_passes_begin(k);
  Arena *per = arena_scratch_begin(&k->scratch); /* each kernel's temporaries, forgotten after it */
  ArenaMark start = arena_mark(per);
  for (size_t pos = 0; omap_next(&ctx.realizes, &pos, &key, &val); i++) {
    const UOp *buf_uop = (const UOp *)(uintptr_t)key, *store = val;
    if (store->op != OP_STORE)
      error_raise("AssertionError", "expected a realized BUFFER to get a STORE %s", v0_10_2_uop_repr_line(k, sink));
    arena_rewind(per, start);
    pre[i] = kernel_to_si(k, schedule_uop_preload(k, per, v0_10_2_uop_sink(k, 1, &store), &ctx, &res->var_vals));
    /* can only schedule once */
    UList *ts = v0_10_2_idmap_get(&buf_tensors, buf_uop);
    if (!ts) error_raise("KeyError", "%s", v0_10_2_uop_repr_line(k, buf_uop));
    for (size_t j = 0; j < ts->n; j++)
      omap_put(&res->becomes_map, omap_ptr(ts->items[j]),
          (void *)v0_10_2_uop_view(k, buf_uop, v0_10_2_uop_st_unwrap(k, ts->items[j])));
    /* increment refcount for this buffer */
    v0_10_2_uop_buffer(k, buf_uop);
  }
  arena_scratch_end(&k->scratch, per);
  v0_10_2_kernel_passes_end(k);
  /* type_verify(list(sched_sink.toposort), kernel_spec): the SINK of KERNELs of BUFFER(DEVICE)s always passes */
  bfs_schedule_items(k, &ctx, pre, n, res);
  if (k->ex) v0_10_2_explain_kernels_preload(k, res);
  arena_scratch_end(&k->scratch, ctx_maps);
}
