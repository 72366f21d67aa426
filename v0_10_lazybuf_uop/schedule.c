/* schedule.c — engine/schedule.py create_schedule_with_vars: build
 * the big graph, decide the realizes, group them into kernels, build each
 * kernel's AST (the "prescheduled" ScheduleItems), then order the kernels
 * with a BFS that runs a kernel reading a buffer before the kernel assigning
 * to it, checking BUF_LIMIT and reporting cycles. */
#include <string.h>
#include "pipeline.h"

/* dedup(x.base for x in outs if x.realized is None and x.base.op is not Ops.CONST)
 * (outs_base_realized: x.base.realized is None) */
static size_t schedule_outs(Sched *s, int64_t **out) {
  OMap seen;
  omap_init(&seen, s->a);
  int64_t *outs = arena_array(s->a, s->nouts + 1, sizeof *outs);
  size_t n = 0;
  for (size_t i = 0; i < s->nouts; i++) {
    const InLB *x = &s->lbs[s->outs[i]];
    int64_t base = x->base >= 0 ? x->base : s->outs[i];
    bool realized = s->f->outs_base_realized ? s->lbs[base].realized : x->base < 0 && x->realized;
    if (realized || s->lbs[base].op == OP_CONST || omap_has(&seen, (uint64_t)base)) continue;
    omap_put(&seen, (uint64_t)base, (void *)1);
    outs[n++] = base;
  }
  *out = outs;
  return n;
}

static int64_t buffer_of(Sched *s, const UOp *ubuf) { return (int64_t)(uintptr_t)v0_10_idcache_get(&s->buffers, ubuf) - 1; }

/* tuple({mx for x in sink.sparents if (x.op is Ops.STORE or is_scheduled(x)) and (mx:=ctx.ubuf_metadata.get(x.buf_uop))}),
 * and the PreFacts of the same sparents */
static void item_metadata(Sched *s, const UOp *sink, SchedItem *si, PreFacts *facts) {
  const UOp **parents;
  size_t n = v0_10_sparents(s, sink, &parents);
  for (size_t i = 0; i < n && omap_len(&s->assigns); i++) { /* ASSIGN and LOADs of assigned buffers come with ctx.assigns */
    const UOp *x = parents[i];
    if (x->op == OP_ASSIGN) facts->has_assign = true;
    if (x->op == OP_LOAD && x->nsrc && omap_has(&s->assigns, omap_ptr(x->src[0]))) facts->loads_assigned = true;
  }
  OMap set;
  omap_init(&set, s->tmp);
  for (size_t i = 0; i < n; i++) {
    const UOp *x = parents[i];
    if (x->op != OP_STORE && !v0_10_is_scheduled(x)) continue;
    const Value *m = v0_10_idcache_get(&s->ubuf_metadata, x->src[0]);
    if (m) omap_put(&set, omap_ptr(m), (void *)1);
  }
  si->metadata = arena_array(s->a, omap_len(&set) + 1, sizeof *si->metadata);
  uint64_t key;
  void *val;
  for (size_t pos = 0; omap_next(&set, &pos, &key, &val);) si->metadata[si->nmetadata++] = (const Value *)(uintptr_t)key;
}

/* tuple(ast_ctx.metadata) (metadata_of_ops): the set full_ast_rewrite made */
static void metadata_of_ops(Sched *s, const SiCtx *ctx, SchedItem *si) {
  si->metadata = arena_array(s->a, omap_len(&ctx->metadata) + 1, sizeof *si->metadata);
  uint64_t key;
  void *val;
  for (size_t pos = 0; omap_next(&ctx->metadata, &pos, &key, &val);) si->metadata[si->nmetadata++] = (const Value *)(uintptr_t)key;
}

/* for u in ast_ctx.sinked: del ast_ctx.lazybufs[u].srcs  # can only schedule once */
static void del_srcs(Sched *s, const UOp *sink) {
  for (uint32_t i = 0; i < sink->nsrc; i++) {
    const UOp *u = sink->src[i]->src[0];
    InLB *lb = (InLB *)v0_10_lazybuf_of(s, u);
    if (!lb) error_raise("KeyError", "%s", v0_10_uop_repr(s, u));
    if (!lb->has_srcs) error_raise("AttributeError", "srcs");
    lb->has_srcs = false;
  }
}

/* one prescheduled ScheduleItem from a kernel's SINK of STOREs */
static void preschedule(Sched *s, const UOp *sink, SchedItem *si) {
  PreFacts facts = {false, false};
  if (!s->f->metadata_of_ops) item_metadata(s, sink, si, &facts);
  SiCtx ctx;
  memset(&ctx, 0, sizeof ctx);
  si->ast = v0_10_full_ast_rewrite(s, sink, &facts, &ctx);
  if (s->f->metadata_of_ops) metadata_of_ops(s, &ctx, si);
  const InLB *first = v0_10_lazybuf_of(s, sink->src[0]->src[0]);
  si->lb = first ? first - s->lbs : -1;
  si->bufs = arena_array(s->a, ctx.nbufs + 1, sizeof *si->bufs);
  for (size_t i = 0; i < ctx.nbufs; i++) {
    int64_t b = buffer_of(s, ctx.bufs[i]);
    if (b < 0) error_raise("KeyError", "%s", v0_10_uop_repr(s, ctx.bufs[i]));
    if (s->bufs[b].size != 0) si->bufs[si->nbufs++] = b;
  }
  si->preloads = arena_array(s->a, ctx.npreloads + 1, sizeof *si->preloads);
  for (size_t i = 0; i < ctx.npreloads; i++) si->preloads[si->npreloads++] = buffer_of(s, ctx.preloads[i]);
  if (s->f->srcs_deleted_when_prescheduled) del_srcs(s, sink);
}

/* ScheduleItem.output_idxs / outputs / inputs: bufs[i] is an output when i is
 * a DEFINE_GLOBAL index of a STORE (bufs omits size-0 buffers, so this can
 * pick the wrong one exactly as tinygrad does) */
static bool is_output_idx(const SchedItem *si, size_t i) {
  if (si->ast->op != OP_SINK) return i == 0;
  for (uint32_t k = 0; k < si->ast->nsrc; k++) {
    const UOp *dg = si->ast->src[k]->src[0];
    if (dg->arg->kind == V_INT && (uint64_t)dg->arg->u.i == i) return true;
  }
  return false;
}

typedef struct Bfs {
  size_t n;
  SchedItem *items;
  OMap targets;       /* Buffer index -> SchedItem index + 1 */
  OMap item_of_lb;    /* the LazyBuffer behind an item's first output -> SchedItem index + 1 (set_orders) */
  size_t **graph;     /* per item: the items that wait for it */
  size_t *ngraph, *capgraph;
  int64_t *in_degree;
} Bfs;

static void edge(Sched *s, Bfs *b, size_t from, size_t to) {
  if (b->ngraph[from] == b->capgraph[from]) {
    size_t cap = b->capgraph[from] ? b->capgraph[from] * 2 : 4;
    size_t *bigger = arena_array(s->tmp, cap, sizeof *bigger);
    if (b->ngraph[from]) memcpy(bigger, b->graph[from], b->ngraph[from] * sizeof *bigger);
    b->graph[from] = bigger, b->capgraph[from] = cap;
  }
  b->graph[from][b->ngraph[from]++] = to;
  b->in_degree[to]++;
}

static int64_t target_of(Bfs *b, int64_t buf) { return (int64_t)(uintptr_t)omap_get(&b->targets, (uint64_t)buf) - 1; }

/* parents_assigns in the order the capture recorded for item i (input.set_orders.parents_assigns:
 * the order the scheduler iterated assign_preloads, a frozenset, where it decides the BFS) */
static void recorded_order(Sched *s, Bfs *b, size_t i, OMap *parents_assigns) {
  const SetOrder *o = NULL;
  for (size_t k = 0; k < s->npa_orders && !o; k++)
    if (s->pa_orders[k].key == b->items[i].lb) o = &s->pa_orders[k];
  if (!o) return;
  OMap ordered;
  omap_init(&ordered, s->tmp);
  for (size_t k = 0; k < o->n; k++) {
    uint64_t x = (uint64_t)(uintptr_t)omap_get(&b->item_of_lb, (uint64_t)o->members[k]) - 1;
    if (omap_has(parents_assigns, x)) omap_put(&ordered, x, (void *)1);
  }
  uint64_t key;
  void *val;
  for (size_t pos = 0; omap_next(parents_assigns, &pos, &key, &val);) omap_setdefault(&ordered, key, (void *)1);
  *parents_assigns = ordered;
}

/* the edges of item i: realize outputs before a parent is assigned to, and after all parents are realized */
static void item_edges(Sched *s, Bfs *b, size_t i) {
  const SchedItem *si = &b->items[i];
  OMap parents_assigns, scheduled_parents;
  omap_init(&parents_assigns, s->tmp);
  omap_init(&scheduled_parents, s->tmp);
  for (size_t k = 0; k < si->npreloads; k++) {
    int64_t x = target_of(b, si->preloads[k]);
    if (x >= 0 && (size_t)x != i) omap_put(&parents_assigns, (uint64_t)x, (void *)1);
  }
  if (s->npa_orders) recorded_order(s, b, i, &parents_assigns);
  uint64_t key;
  void *val;
  for (size_t pos = 0; omap_next(&parents_assigns, &pos, &key, &val);) edge(s, b, i, (size_t)key);
  for (size_t k = 0; k < si->nbufs; k++) {
    if (is_output_idx(si, k)) continue;
    int64_t x = target_of(b, si->bufs[k]);
    if (x >= 0 && !omap_has(&parents_assigns, (uint64_t)x)) omap_put(&scheduled_parents, (uint64_t)x, (void *)1);
  }
  for (size_t pos = 0; omap_next(&scheduled_parents, &pos, &key, &val);) edge(s, b, (size_t)key, i);
}

static const char *metadata_tuple_repr(Sched *s, const SchedItem *si) {
  const char *acc = "(";
  for (size_t i = 0; i < si->nmetadata; i++) {
    const Value *m = si->metadata[i], *name = m->u.tuple.items[0], *caller = m->u.tuple.items[1];
    acc = arena_printf(s->a, "%s%s%.*s%s%.*s", acc, i ? ", " : "", (int)name->u.str.n, name->u.str.s,
                       caller->u.str.n ? " - " : "", (int)caller->u.str.n, caller->u.str.s);
  }
  return arena_printf(s->a, "%s%s)", acc, si->nmetadata == 1 ? "," : "");
}

/* after scheduling si: for b in si.outputs: del lazybufs[b].srcs */
static void del_output_srcs(Sched *s, const SchedItem *si) {
  for (size_t k = 0; k < si->nbufs; k++) {
    if (!is_output_idx(si, k)) continue;
    InBuf *buf = &s->bufs[si->bufs[k]];
    int64_t lb = s->lazybufs[si->bufs[k]] - 1;
    if (lb < 0)
      error_raise("KeyError", "<buf real:%s device:%s size:%lld dtype:%s offset:%lld>", buf->allocated ? "True" : "False",
                  buf->device, (long long)buf->size, v0_10_value_repr(s, v_dtype(s->in, buf->dtype)), (long long)buf->offset);
    if (!s->lbs[lb].has_srcs) error_raise("AttributeError", "srcs");
    s->lbs[lb].has_srcs = false;
  }
}

/* if (m:=BUF_LIMIT.get(device:=si.outputs[0].device)) and len(si.bufs) >= m: raise RuntimeError(...) */
static void check_buf_limit(Sched *s, const SchedItem *si) {
  const char *device = NULL;
  for (size_t k = 0; k < si->nbufs && !device; k++)
    if (is_output_idx(si, k)) device = s->bufs[si->bufs[k]].device;
  if (!device) error_raise("IndexError", "tuple index out of range");
  for (size_t i = 0; i < s->nlimits; i++)
    if (strcmp(s->limit_device[i], device) == 0 && s->limit_value[i] && (int64_t)si->nbufs >= s->limit_value[i])
      error_raise("RuntimeError", "Kernel for %s exceeded the %lld buffer count limit for %s with %zu buffers.",
                  metadata_tuple_repr(s, si), (long long)s->limit_value[i], device, si->nbufs);
}

/* what the BFS does with si once it is scheduled (0.10.0): its outputs' srcs deleted, BUF_LIMIT checked */
static void after_scheduled(Sched *s, const SchedItem *si) {
  if (!s->f->srcs_deleted_when_prescheduled) del_output_srcs(s, si);
  if (!s->f->buf_limit_in_full_ast_rewrite) check_buf_limit(s, si);
}

/* tell `tsched explain` which LazyBuffer each schedule item stores */
static void explain_kernels(Sched *s, const SchedItem *items, size_t n) {
  for (size_t k = 0; k < n; k++)
    for (size_t i = 0; i < items[k].nbufs; i++) {
      int64_t lb = is_output_idx(&items[k], i) ? v0_10_explain_lb_of_buffer(s, items[k].bufs[i]) : -1;
      if (lb >= 0) explain_kernel(s->ex, (uint32_t)k, (uint32_t)lb);
    }
}

/* do BFS (the graph and queue in a scratch arena, the schedule in s->a) */
static size_t bfs(Sched *s, SchedItem *pre, size_t n, SchedItem **out) {
  Bfs b = {n, pre, {0}, {0}, NULL, NULL, NULL, NULL};
  s->tmp = arena_scratch_begin(&s->scratch);
  omap_init(&b.targets, s->tmp);
  omap_init(&b.item_of_lb, s->tmp);
  for (size_t i = 0; i < n; i++) omap_setdefault(&b.item_of_lb, (uint64_t)pre[i].lb, (void *)(uintptr_t)(i + 1));
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < pre[i].nbufs; k++)
      if (is_output_idx(&pre[i], k)) omap_put(&b.targets, (uint64_t)pre[i].bufs[k], (void *)(uintptr_t)(i + 1));
  b.graph = arena_array(s->tmp, n + 1, sizeof *b.graph);
  b.ngraph = arena_array(s->tmp, n + 1, sizeof *b.ngraph);
  b.capgraph = arena_array(s->tmp, n + 1, sizeof *b.capgraph);
  b.in_degree = arena_array(s->tmp, n + 1, sizeof *b.in_degree);
  for (size_t i = 0; i < n; i++) item_edges(s, &b, i);
  size_t *queue = arena_array(s->tmp, n + 1, sizeof *queue), head = 0, tail = 0;
  for (size_t i = 0; i < n; i++)
    if (b.in_degree[i] == 0) queue[tail++] = i;
  SchedItem *schedule = arena_array(s->a, n + 1, sizeof *schedule);
  size_t ns = 0;
  while (head < tail) {
    size_t i = queue[head++];
    schedule[ns++] = pre[i];
    after_scheduled(s, &pre[i]);
    for (size_t k = 0; k < b.ngraph[i]; k++)
      if (--b.in_degree[b.graph[i][k]] == 0) queue[tail++] = b.graph[i][k];
  }
  /* confirm everything was scheduled correctly */
  if (ns != n) error_raise("RuntimeError", "cycle detected in graph, grouped %zu but only scheduled %zu", n, ns);
  *out = schedule;
  arena_scratch_end(&s->scratch, s->tmp);
  s->tmp = s->a;
  return ns;
}

/* Prescheduling makes ~20 times the nodes its items' ASTs keep (the
 * swizzles of view_left and view_right, lazy's and to_si's rewrites): they
 * are made in a scratch arena, and between two kernels, once it holds
 * nodes_budget, and at the end, all but the ASTs of the items so far and
 * var_vals' DEFINE_VARs are forgotten, the survivors copied into s->a under
 * the ids from the start of the batch (interner_compact_since). What is
 * remembered by node follows: the shared rewrite contexts' memos, UOp.st and
 * can_pad forget the batch's ids (the sparents stamps of older walks are
 * never read). Not while `tsched explain` listens (it was told about nodes)
 * nor while the rewrite steps are traced (the trace holds nodes). */
static uint32_t nodes_begin(Sched *s) {
  if (!s->ex && !s->in->trace) s->in->node_arena = arena_scratch_begin(&s->scratch);
  return uop_count(s->in);
}

/* the bytes a batch of nodes grows to before it is compacted */
static size_t nodes_budget(const Sched *s) {
  size_t b = V0_10_NODES_PER_LB * s->nlbs;
  return b < V0_10_NODES_MIN ? V0_10_NODES_MIN : b > V0_10_NODES_MAX ? V0_10_NODES_MAX : b;
}

/* var_vals under its keys' copies (keys[i], in order), when one was copied */
static void rekey_var_vals(Sched *s, uint32_t mark, const UOp *const *keys) {
  size_t n = omap_len(&s->var_vals);
  bool moved = false;
  for (size_t i = 0; i < n; i++) moved |= keys[i]->id >= mark;
  if (!moved) return;
  OMap vars;
  omap_init(&vars, s->a);
  uint64_t key;
  void *val;
  size_t k = 0;
  for (size_t pos = 0; omap_next(&s->var_vals, &pos, &key, &val);) omap_put(&vars, omap_ptr(keys[k++]), val);
  s->var_vals = vars;
}

/* the batch of nodes since mark forgotten but pre[0..n)'s ASTs and var_vals' keys */
static void nodes_compact(Sched *s, uint32_t mark, SchedItem *pre, size_t n) {
  Arena *nodes = s->in->node_arena;
  s->in->node_arena = NULL;
  if (!nodes) return;
  size_t k = n;
  const UOp **keep = arena_array(s->tmp, n + omap_len(&s->var_vals) + 1, sizeof *keep);
  uint64_t key;
  void *val;
  for (size_t i = 0; i < n; i++) keep[i] = pre[i].ast;
  for (size_t pos = 0; omap_next(&s->var_vals, &pos, &key, &val);) keep[k++] = (const UOp *)(uintptr_t)key;
  const UOp *const *copy = interner_compact_since(s->in, mark, keep, k, s->tmp);
  for (size_t i = 0; i < n; i++) pre[i].ast = keep[i];
  rekey_var_vals(s, mark, keep + n);
  if (s->view_left_rc.memo) rewrite_context_compact(&s->view_left_rc, mark, copy);
  if (s->view_right_rc.memo) rewrite_context_compact(&s->view_right_rc, mark, copy);
  v0_10_idcache_forget_since(&s->st_cache, mark);
  v0_10_idcache_forget_since(&s->unsafe_cache, mark);
  arena_scratch_end(&s->scratch, nodes);
}

size_t v0_10_create_schedule_with_vars(Sched *s, SchedItem **items) {
  *items = NULL;
  int64_t *outs;
  size_t nouts = schedule_outs(s, &outs);
  if (nouts == 0) return 0;
  if (!s->f->outs_realized_by_sink)
    for (size_t i = 0; i < nouts; i++) s->lbs[outs[i]].forced_realize = true;
  /* create the big graph */
  v0_10_graph_begin(s);
  const UOp **roots = arena_array(s->a, nouts + 1, sizeof *roots);
  for (size_t i = 0; i < nouts; i++) roots[i] = v0_10_to_uop(s, outs[i]);
  v0_10_explain_begin(s, outs, nouts);
  const UOp *big_graph = uop_new(s->in, OP_SINK, s->void_dt, s->none, (uint32_t)nouts, roots);
  /* get realizes */
  OMap realizes;
  omap_init(&realizes, s->a);
  big_graph = v0_10_do_realize(s, big_graph, &realizes);
  StoreGroup *store_groups;
  size_t ngroups = v0_10_group_realizes(s, &realizes, &store_groups);
  v0_10_graph_end(s);
  if (s->ex) v0_10_explain_fuses(s, &realizes);
  /* split realizes into small graphs */
  v0_10_break_sched(s, big_graph, &realizes);
  /* preschedule all realizes (their temporaries in a scratch arena, emptied once it has grown) */
  SchedItem *pre = arena_array(s->a, ngroups + 1, sizeof *pre);
  s->tmp = arena_scratch_begin(&s->scratch);
  uint32_t mark = nodes_begin(s);
  for (size_t g = 0; g < ngroups; g++) {
    if (v0_10_arena_used(s->tmp) > V0_10_TMP_BYTES) {
      arena_scratch_end(&s->scratch, s->tmp);
      s->tmp = arena_scratch_begin(&s->scratch);
    }
    if (s->in->node_arena && v0_10_arena_used(s->in->node_arena) > nodes_budget(s)) {
      nodes_compact(s, mark, pre, g);
      mark = nodes_begin(s);
    }
    v0_10_caches_renew(s);
    const UOp **stores = arena_array(s->tmp, store_groups[g].n + 1, sizeof *stores);
    uint32_t k = 0;
    for (size_t i = 0; i < store_groups[g].n; i++) {
      const UOp *st = omap_get(&realizes, omap_ptr(store_groups[g].bufs[i]));
      /* UOp.sink(*(ctx.realizes[u] for u in store_uops)): with realize_records_op what break_sched
       * did not reach stays as it was (full_ast_rewrite raises on it as Python does) */
      if (!st || (st->op != OP_STORE && !s->f->realize_records_op))
        error_unsupported("a realized buffer that break_sched did not reach");
      stores[k++] = st;
    }
    preschedule(s, uop_new(s->in, OP_SINK, s->void_dt, s->none, k, stores), &pre[g]);
  }
  nodes_compact(s, mark, pre, ngroups);
  arena_scratch_end(&s->scratch, s->tmp);
  s->tmp = s->a;
  size_t n = bfs(s, pre, ngroups, items);
  if (s->ex) explain_kernels(s, *items, n);
  return n;
}
