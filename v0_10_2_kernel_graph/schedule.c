/* schedule.c — tinygrad 0.10.2 engine/schedule.py create_schedule_with_vars:
 * the tensor-map rewrite, group_realizes, the becomes_map, create_kernels,
 * the assign dependencies and the BFS that orders the kernels. */
#include <stdio.h>
#include <string.h>
#include "preload.h"

typedef struct MopWanted { OMap *tensor_map; const UOp *vbase; const ST *vst; } MopWanted;

static bool is_wanted_mop(KG *k, const UOp *x, void *ctx) {
  MopWanted *w = ctx;
  const UOp *xs = omap_get(w->tensor_map, omap_ptr(x));
  return v0_10_2_uop_base(k, xs) == w->vbase && v0_10_2_uop_st(k, xs) == w->vst;
}

/* [x for x in k.toposort if (xs:=tensor_map[x]).base is v.base and xs.st == v.st][0]:
 * the toposort stops at the first match */
static const UOp *first_movement_op(KG *k, const UOp *root, OMap *tensor_map, const UOp *vbase, const ST *vst) {
  MopWanted w = {tensor_map, vbase, vst};
  const UOp **order;
  size_t n = v0_10_2_toposort_until(k, root, is_wanted_mop, &w, &order);
  if (n && is_wanted_mop(k, order[n - 1], &w)) return order[n - 1];
  error_raise("IndexError", "list index out of range");
}

/* ---------------------------------------------------------------- type_verify(kernel_spec) */

static bool all_src_in(const UOp *u, const Op *ops, int nops) {
  for (uint32_t i = 0; i < u->nsrc; i++) {
    bool ok = false;
    for (int j = 0; j < nops; j++) ok |= u->src[i]->op == ops[j];
    if (!ok) return false;
  }
  return true;
}

/* a0b4465 spec.py buffer_spec + kernel_spec: BUFFER_VIEW(BUFFER), no VIEW or CONST in the kernel graph */
static bool kernel_spec_ok_a0b4465(const UOp *u) {
  switch (u->op) {
    case OP_UNIQUE: return u->dtype == dt_void && u->nsrc == 0;
    case OP_DEVICE: return u->dtype == dt_void && u->nsrc == 0 && u->arg->kind == V_STR;
    case OP_BUFFER:
      return u->nsrc == 2 && u->src[0]->op == OP_DEVICE && u->src[1]->op == OP_UNIQUE && u->arg->kind == V_INT;
    case OP_BUFFER_VIEW:
      if (u->nsrc != 1 || u->src[0]->op != OP_BUFFER) return false;
      return u->arg && u->arg->kind == V_TUPLE && u->arg->u.tuple.n == 2;
    case OP_KERNEL: {
      static const Op ok[] = {OP_BUFFER, OP_BUFFER_VIEW, OP_ASSIGN};
      return all_src_in(u, ok, 3);
    }
    case OP_ASSIGN: {
      static const Op ok[] = {OP_BUFFER, OP_BUFFER_VIEW, OP_KERNEL, OP_ASSIGN};
      return all_src_in(u, ok, 4);
    }
    case OP_SINK: return true;
    default: return false;
  }
}

/* spec + kernel_spec (spec.py): false means "verification failed" */
static bool kernel_spec_ok(const UOp *u) {
  switch (u->op) {
    case OP_UNIQUE: return u->dtype == dt_void && u->nsrc == 0;
    case OP_DEVICE: return u->dtype == dt_void && u->nsrc == 0 && u->arg->kind == V_STR;
    case OP_BUFFER:
      return u->nsrc == 2 && u->src[0]->op == OP_DEVICE && u->src[1]->op == OP_UNIQUE && u->arg->kind == V_INT;
    case OP_KERNEL: {
      static const Op ok[] = {OP_BUFFER, OP_ASSIGN};
      return all_src_in(u, ok, 2);
    }
    case OP_ASSIGN: {
      static const Op ok[] = {OP_BUFFER, OP_VIEW, OP_KERNEL, OP_ASSIGN};
      return all_src_in(u, ok, 4);
    }
    case OP_VIEW:
      if (u->nsrc == 0) return u->dtype == dt_void;
      return u->nsrc != 1 || (u->src[0]->op != OP_STORE && u->dtype->base == u->src[0]->dtype->base);
    case OP_SINK: case OP_CONST: return true;
    default: return false;
  }
}

static void type_verify(KG *k, const UOp *sink) {
  const UOp **order;
  size_t n = v0_10_2_toposort(k, sink, &order);
  for (size_t i = 0; i < n; i++) {
    const UOp *u = order[i];
    if (k->f->fix_kernel_ast ? kernel_spec_ok_a0b4465(u) : kernel_spec_ok(u)) continue;
    char srcs[1024], d[128];
    size_t w = (size_t)snprintf(srcs, sizeof srcs, "[");
    for (uint32_t j = 0; j < u->nsrc && w < sizeof srcs; j++)
      w += (size_t)snprintf(srcs + w, sizeof srcs - w, "%s<%s: %d>", j ? ", " : "", op_name(u->src[j]->op, k->cap->generation),
                            op_value(u->src[j]->op, k->cap->generation));
    if (w < sizeof srcs) snprintf(srcs + w, sizeof srcs - w, "]");
    error_raise("RuntimeError", "UOp verification failed at %zu on %s dtypes.%s %u %s %s", i,
        op_name(u->op, k->cap->generation), dtype_repr(u->dtype, k->cap->generation, d, sizeof d), u->nsrc, srcs,
        v0_10_2_py_repr(k, u->arg));
  }
}

/* ---------------------------------------------------------------- create_schedule_with_vars */

/* ops.py graph_rewrite_map, called at `at`: {k: rewrite(k) for k in list(sink.toposort)[::-1]}
 * (the core's, with this module's toposort); the map lives in arena `a`.
 * keep(k, v), when given, picks the entries the caller reads (the others
 * are rewritten all the same, not stored). Returns rewrite(sink). */
static const UOp *kg_graph_rewrite_map(KG *k, const PyLoc *at, Arena *a, const UOp *sink, const PatternMatcher *const *pms, size_t npms,
                                       bool bottom_up, bool (*keep)(const KG *, const UOp *, const UOp *), OMap *out) {
  if (k->in->trace) rewrite_trace_call(k->in->trace, at, sink, bottom_up);
  RewriteContext rc;
  rewrite_context_init(&rc, k->in, pms, npms, k);
  const UOp **topo;
  size_t n = v0_10_2_toposort(k, sink, &topo);
  const UOp **order = arena_array(a, n ? n : 1, sizeof *order); /* the rules may walk too */
  memcpy(order, topo, n * sizeof *order);
  omap_init(out, a);
  const UOp *root = sink;
  for (size_t i = n; i-- > 0;) {
    const UOp *v = bottom_up ? bottom_up_rewrite(&rc, order[i]) : top_down_rewrite(&rc, order[i]);
    if (order[i] == sink) root = v;
    if (!keep || keep(k, order[i], v)) omap_put(out, omap_ptr(order[i]), (void *)v);
  }
  rewrite_context_release(&rc);
  return root;
}

/* the kernel_map entries create_schedule_with_vars reads: the realized tensors' new ASSIGNs */
static bool is_new_assign(const KG *k, const UOp *kk, const UOp *v) {
  (void)k;
  return kk != v && v->op == OP_ASSIGN;
}

/* all_int(u.shape) */
static bool all_int_shape(KG *k, const UOp *u) {
  uint32_t n;
  const sint *shape = v0_10_2_uop_shape(k, u, &n);
  return v0_10_2_sint_all_int(n, shape);
}

/* create_schedule_with_vars, "map tensors to new uops": the becomes_map of
 * simplified tensors, rev_tensor_map and ops_metadata */
static void becomes_from_tensor_map(KG *k, Arena *tmp, OMap *tensor_map, OMap *becomes, IdMap *rev, KernelContext *kctx) {
  uint64_t key;
  void *val;
  for (size_t pos = 0; omap_next(tensor_map, &pos, &key, &val);) {
    const UOp *kk = (const UOp *)(uintptr_t)key, *v = val;
    v0_10_2_ulist_push(tmp, v0_10_2_ulist_of(tmp, rev, v), kk);
    if (kk == v) continue;
    const UOp *vb = v0_10_2_uop_base(k, v);
    if (vb->op == OP_BUFFER) {
      if (v->op == OP_VIEW) {
        /* VIEW isn't a valid tensor uop, we need to backtrack to the movement op that created it */
        const UOp *mop = first_movement_op(k, kk, tensor_map, vb, v0_10_2_uop_st(k, v));
        if (kk != mop) omap_put(becomes, key, (void *)mop);
      } else omap_put(becomes, key, (void *)v);
    } else if (vb->op == OP_CONST && all_int_shape(k, v)) {
      omap_put(becomes, key, (void *)v);
    } else {
      const Value *m = v0_10_2_uop_metadata(k, kk);
      if (m) v0_10_2_idmap_put(tmp, &kctx->ops_metadata, v, (void *)m);
    }
  }
}

static bool is_assign_to(KG *k, const UOp *x, void *buf) {
  return x->op == OP_ASSIGN && v0_10_2_uop_buf_uop(k, x) == buf;
}

/* any(x.op is Ops.ASSIGN and x.buf_uop is buf for x in u.toposort) */
static bool assigns_buffer(KG *k, const UOp *u, const UOp *buf) {
  const UOp **sub;
  size_t m = v0_10_2_toposort_until(k, u, is_assign_to, (void *)buf, &sub);
  return m && is_assign_to(k, sub[m - 1], (void *)buf);
}

/* if a kernel depends on a buffer, and that buffer is later assigned to, make the assign depend on the kernel's assign */
static const UOp *assign_dependencies(KG *k, const UOp *sched_sink) {
  Arena *tmp = arena_scratch_begin(&k->scratch);
  OMap kernel_assign, assign_rep;
  omap_init(&kernel_assign, tmp);
  omap_init(&assign_rep, tmp);
  const UOp **topo;
  size_t n = v0_10_2_toposort(k, sched_sink, &topo);
  const UOp **order = arena_array(tmp, n, sizeof *order); /* the cycle check below walks again */
  memcpy(order, topo, n * sizeof *order);
  for (size_t i = 0; i < n; i++) {
    const UOp *u = order[i];
    if (u->op != OP_ASSIGN) continue;
    const UOp *ub = v0_10_2_uop_buf_uop(k, u);
    omap_put(&kernel_assign, omap_ptr(ub), (void *)u);
    const UOp *kern = u->src[1];
    for (uint32_t j = 0; j < kern->nsrc; j++) {
      const UOp *s = kern->src[j], *a;
      if (s->op != OP_BUFFER || s == ub || !(a = omap_get(&kernel_assign, omap_ptr(s)))) continue;
      if (assigns_buffer(k, u, s))
        error_raise("RuntimeError",
            "cycle detected in graph, kernel for %s\n...) must either depend on ASSIGN or BUFFER",
            v0_10_2_uop_repr_line(k, ub));
      const UOp **src = arena_array(tmp, a->nsrc + 1, sizeof *src);
      memcpy(src, a->src, a->nsrc * sizeof *src);
      src[a->nsrc] = u;
      const UOp *na = v0_10_2_replace_src(k, a, a->nsrc + 1, src);
      omap_put(&assign_rep, omap_ptr(a), (void *)na);
      omap_put(&kernel_assign, omap_ptr(s), (void *)na);
    }
  }
  if (omap_len(&assign_rep)) {
    sched_sink = v0_10_2_uop_substitute(k, sched_sink, &assign_rep);
    type_verify(k, sched_sink);
  }
  arena_scratch_end(&k->scratch, tmp);
  return sched_sink;
}

/* final toposort (bfs) */
static void bfs_schedule(KG *k, const UOp *sched_sink, SchedResult *res) {
  Arena *tmp = arena_scratch_begin(&k->scratch);
  IdMap children = {0};
  OMap in_degree;
  omap_init(&in_degree, tmp);
  const UOp **order;
  size_t n = v0_10_2_toposort(k, sched_sink, &order);
  for (size_t i = 0; i < n; i++) {
    const UOp *u = order[i];
    if (u->op != OP_ASSIGN) continue;
    intptr_t deg = 0;
    const UOp *kern = u->src[1];
    for (uint32_t j = 0; j < kern->nsrc; j++) {
      const UOp *s = kern->src[j];
      if (s->op != OP_ASSIGN) continue;
      v0_10_2_ulist_push(tmp, v0_10_2_ulist_of(tmp, &children, s), u);
      deg++;
    }
    omap_put(&in_degree, omap_ptr(u), (void *)deg);
  }
  size_t qcap = omap_len(&in_degree) + 1, qhead = 0, qtail = 0;
  const UOp **queue = arena_array(tmp, qcap, sizeof *queue);
  uint64_t key;
  void *val;
  for (size_t pos = 0; omap_next(&in_degree, &pos, &key, &val);)
    if ((intptr_t)val == 0) queue[qtail++] = (const UOp *)(uintptr_t)key;
  res->items = arena_array(k->a, qcap, sizeof *res->items);
  res->n = 0;
  if (!k->f->fix_kernel_ast) v0_10_2_kernel_passes_begin(k);
  /* each kernel's temporaries (schedule_uop's maps), forgotten after it */
  Arena *per = arena_scratch_begin(&k->scratch);
  ArenaMark start = arena_mark(per);
  while (qhead < qtail) {
    const UOp *u = queue[qhead++];
    arena_rewind(per, start);
    if (k->f->fix_kernel_ast) v0_10_2_fix_kernel_ast(k, per, u->src[1], &res->var_vals, &res->items[res->n++]);
    else {
      v0_10_2_schedule_uop(k, per, u, &res->var_vals, &res->items[res->n++]);
      v0_10_2_uop_buffer(k, v0_10_2_uop_buf_uop(k, u));
    }
    UList *ch = v0_10_2_idmap_get(&children, u);
    for (size_t j = 0; ch && j < ch->n; j++) {
      intptr_t d = (intptr_t)omap_get(&in_degree, omap_ptr(ch->items[j])) - 1;
      omap_put(&in_degree, omap_ptr(ch->items[j]), (void *)d);
      if (d == 0) queue[qtail++] = ch->items[j];
    }
  }
  if (!k->f->fix_kernel_ast) v0_10_2_kernel_passes_end(k);
  arena_scratch_end(&k->scratch, per);
  if (k->ex) v0_10_2_explain_kernels(k, queue, res->n);
  if (res->n != omap_len(&in_degree))
    error_raise("RuntimeError", "cycle detected in graph, created %zu kernels but only scheduled %zu",
        omap_len(&in_degree), res->n);
  arena_scratch_end(&k->scratch, tmp);
}

/* the kernel_map entries a0b4465 reads: kernel_map.get(v.base).base is an ASSIGN */
static bool is_kernel_of(const KG *k, const UOp *kk, const UOp *v) {
  (void)kk;
  return v0_10_2_uop_base(k, v)->op == OP_ASSIGN;
}

/* a0b4465: ops_metadata = {v:k.metadata for k,v in tensor_map.items() if k.base.op not in {CONST, DEVICE} and isinstance(k.metadata, Metadata)} */
static void ops_metadata_of_tensors(KG *k, Arena *tmp, OMap *tensor_map, KernelContext *kctx) {
  uint64_t key;
  void *val;
  for (size_t pos = 0; omap_next(tensor_map, &pos, &key, &val);) {
    const UOp *kk = (const UOp *)(uintptr_t)key, *b = v0_10_2_uop_base(k, kk);
    const Value *m = v0_10_2_uop_metadata(k, kk);
    if (m && b->op != OP_CONST && b->op != OP_DEVICE) v0_10_2_idmap_put(tmp, &kctx->ops_metadata, val, (void *)m);
  }
}

/* a0b4465: map tensors to buffer/const, optionally apply a VIEW on top */
static void becomes_from_kernel_map(KG *k, OMap *tensor_map, OMap *kernel_map, OMap *becomes) {
  uint64_t key;
  void *val;
  for (size_t pos = 0; omap_next(tensor_map, &pos, &key, &val);) {
    const UOp *kk = (const UOp *)(uintptr_t)key, *v = val, *a;
    if (v->op == OP_ASSIGN) { /* ASSIGN always becomes the target buffer */
      omap_put(becomes, key, (void *)v->src[0]);
    } else if ((a = omap_get(kernel_map, omap_ptr(v0_10_2_uop_base(k, v)))) &&
               (a = v0_10_2_uop_base(k, a))->op == OP_ASSIGN) {
      /* if we created a new buffer for this tensor, map it to the assigned buffer */
      const ST *vst = v0_10_2_uop_st(k, v);
      omap_put(becomes, key,
          (void *)(v0_10_2_uop_st(k, a->src[0]) == vst ? a->src[0]
                                                       : v0_10_2_uop_view(k, a->src[0], v0_10_2_uop_st_unwrap(k, v))));
    } else if (kk != v) { /* tensors can also simplify to an existing buffer/const */
      const UOp *vb = v0_10_2_uop_base(k, v);
      if (vb->op == OP_BUFFER || (vb->op == OP_CONST && all_int_shape(k, v))) omap_put(becomes, key, (void *)v);
    }
  }
}

/* the lines of create_schedule_with_vars that call graph_rewrite_map */
static const PyLoc at_tensor_map = {{[TG_0_10_1] = {V0_10_2_SCHEDULE_PY, 410}, [TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 374}, [TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 406}}};
static const PyLoc at_create_kernels = {{[TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 402}, [TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 417}}};

/* a0b4465 create_schedule_with_vars after group_realizes: create_kernels, the
 * becomes_map, the assign dependencies, the BFS with fix_kernel_ast */
static void kernel_graph_a0b4465(KG *k, Arena *maps, const UOp *sink, OMap *tensor_map, GrouperContext *gctx, SchedResult *res) {
  KernelContext kctx = {&gctx->realizes, {0}};
  ops_metadata_of_tensors(k, maps, tensor_map, &kctx);
  OMap kernel_map;
  k->pass = &kctx;
  const PatternMatcher *ck[2] = {&v0_10_2_pm_merge_views, &v0_10_2_pm_create_kernels};
  const UOp *sched_sink = kg_graph_rewrite_map(k, &at_create_kernels, maps, sink, ck, 2, true, is_kernel_of, &kernel_map);
  k->pass = NULL;
  type_verify(k, sched_sink);
  becomes_from_kernel_map(k, tensor_map, &kernel_map, &res->becomes_map);
  arena_scratch_end(&k->scratch, maps);
  sched_sink = assign_dependencies(k, sched_sink);
  bfs_schedule(k, sched_sink, res);
}

/* schedule.py create_schedule_with_vars */
void v0_10_2_create_schedule_with_vars(KG *k, const UOp *big_sink, SchedResult *res) {
  memset(res, 0, sizeof *res);
  omap_init(&res->var_vals, k->a);
  omap_init(&res->becomes_map, k->a);
  /* the maps from tensors to their UOps, until they are mapped to buffers */
  Arena *maps = arena_scratch_begin(&k->scratch);
  /* remove_movement_ops + sym */
  ContigCtx contig_ctx;
  omap_init(&contig_ctx.contig, maps);
  k->pass = &contig_ctx;
  OMap tensor_map;
  const PatternMatcher *pms[4] = {
      &v0_10_2_pm_merge_views, &v0_10_2_pm_remove_movement_ops, &v0_10_2_pm_symbolic_simple, &v0_10_2_pm_sym};
  /* a0b4465: merge_views + sym + reorder_view + replace_contiguous */
  const PatternMatcher *pms_reorder[5] = {&v0_10_2_pm_merge_views, &v0_10_2_pm_symbolic_simple, &v0_10_2_pm_sym,
      &v0_10_2_pm_reorder_view, &v0_10_2_pm_replace_contiguous};
  if (k->f->tensor_map_reorder_view) kg_graph_rewrite_map(k, &at_tensor_map, maps, big_sink, pms_reorder, 5, false, NULL, &tensor_map);
  else kg_graph_rewrite_map(k, &at_tensor_map, maps, big_sink, pms, 4, false, NULL, &tensor_map);
  k->pass = NULL;

  /* do_realize + group_realizes */
  const UOp *sink = omap_get(&tensor_map, omap_ptr(big_sink));
  if (k->ex) v0_10_2_explain_tensor_map(k, &tensor_map, sink);
  if (k->f->preload_scheduler) { /* 0.10.1: add_buffers, group_realizes, break_sched, the ScheduleItems' BFS */
    v0_10_2_create_schedule_with_preloads(k, maps, big_sink, &tensor_map, res);   /* it ends maps */
    return;
  }
  GrouperContext gctx;
  v0_10_2_group_realizes(k, sink, &gctx);
  if (k->ex) v0_10_2_explain_fuses(k, sink, &gctx.realizes);

  if (k->f->ops_metadata_of_tensors) {
    kernel_graph_a0b4465(k, maps, sink, &tensor_map, &gctx, res);
    return;
  }
  /* map tensors to new uops */
  IdMap rev_tensor_map = {0};
  KernelContext kctx = {&gctx.realizes, {0}};
  becomes_from_tensor_map(k, maps, &tensor_map, &res->becomes_map, &rev_tensor_map, &kctx);

  /* create kernels */
  if (gctx.realizes.len == 0) {
    arena_scratch_end(&k->scratch, maps);
    return;
  }
  OMap kernel_map;
  k->pass = &kctx;
  const PatternMatcher *ck[2] = {&v0_10_2_pm_merge_views, &v0_10_2_pm_create_kernels};
  const UOp *sched_sink = kg_graph_rewrite_map(k, &at_create_kernels, maps, sink, ck, 2, true, is_new_assign, &kernel_map);
  k->pass = NULL;
  type_verify(k, sched_sink);

  /* map realized tensors to buffers */
  uint64_t key;
  void *val;
  for (size_t pos = 0; omap_next(&kernel_map, &pos, &key, &val);) {
    const UOp *kk = (const UOp *)(uintptr_t)key, *v = val;
    if (kk == v || v->op != OP_ASSIGN) continue;
    UList *ts = v0_10_2_idmap_get(&rev_tensor_map, kk);
    if (!ts) error_raise("KeyError", "%s", v0_10_2_uop_repr_line(k, kk));
    for (size_t i = 0; i < ts->n; i++) {
      const UOp *t = ts->items[i], *to;
      if (t->op == OP_ASSIGN) to = t->src[0];
      else {
        uint32_t n;
        const sint *shape = v0_10_2_uop_shape(k, t, &n);
        to = v0_10_2_uop_reshape(k, v0_10_2_uop_buf_uop(k, v), n, shape);
      }
      omap_put(&res->becomes_map, omap_ptr(t), (void *)to);
    }
  }
  arena_scratch_end(&k->scratch, maps);

  sched_sink = assign_dependencies(k, sched_sink);
  bfs_schedule(k, sched_sink, res);
}
