/* create_schedule.c — ordering the kernels: the dependency graph at the end
 * of tinygrad 0.9.1's _graph_schedule and the breadth-first search of
 * create_schedule_with_vars (engine/schedule.py). */
#include <string.h>
#include "pipeline.h"

typedef struct Deps {
  LbList *graph;       /* by LazyBuffer index: graph[key] (defaultdict(list)) */
  int64_t *in_degree;  /* by LazyBuffer index */
  LbList parents, assigns;   /* add_edges' lists, emptied for each item */
} Deps;

/* dedup into `out`, keeping first appearances: `mark` is a fresh search epoch */
static void add_unique(Sched *s, uint32_t mark, LbList *out, LazyBuffer *x) {
  if (x->search_mark == mark) return;
  x->search_mark = mark;
  v0_9_lblist_push(s->a, out, x);
}

/* parents_assigns is an id()-ordered set: its members in the order the
 * capture recorded for this key (set_orders.parents_assigns), the others after. */
static LbList order_parents_assigns(Sched *s, LazyBuffer *key, const LbList *pa) {
  const LbList *rec = omap_get(&s->inp->parents_assigns_order, omap_ptr(key));
  if (!rec) return *pa;
  uint32_t member = ++s->search_epoch;
  for (int i = 0; i < pa->n; i++) pa->items[i]->search_mark = member;
  LbList out = {0};
  uint32_t done = ++s->search_epoch;
  for (int i = 0; i < rec->n; i++)
    if (rec->items[i]->search_mark == member) add_unique(s, done, &out, rec->items[i]);
  for (int i = 0; i < pa->n; i++) add_unique(s, done, &out, pa->items[i]);
  return out;
}

/* in_degree's keys (a defaultdict) in insertion order: `if lsi not in in_degree`, `in_degree[assign] += 1` */
static void add_key(Sched *s, LbList *keys, LazyBuffer *key) {
  if (key->item_mark == s->item_epoch) return;
  key->item_mark = s->item_epoch;
  v0_9_lblist_push(s->a, keys, key);
}

/* The edges of one prescheduled item: after its scheduled parents, and
 * before the assigns to buffers it reads ("realize outputs before a parent
 * is assigned to"). */
static void add_edges(Sched *s, Deps *d, LazyBuffer *key, const LBScheduleItem *lsi, LbList *keys) {
  LbList *parents = &d->parents, *assigns = &d->assigns;
  parents->n = assigns->n = 0;
  uint32_t mark = ++s->search_epoch;
  for (int i = 0; i < lsi->inputs.n; i++) {
    LBScheduleItem *t = lsi->inputs.items[i]->target;
    if (t) add_unique(s, mark, parents, t->outputs[0]);
  }
  for (int i = 0; i < parents->n; i++) {
    v0_9_lblist_push(s->a, &d->graph[parents->items[i]->index], key);
    d->in_degree[key->index]++;
  }
  mark = ++s->search_epoch;
  for (int i = 0; i < lsi->inputs.n; i++) {
    LazyBuffer *assign = lsi->inputs.items[i]->assign;
    if (!assign) continue;
    if (!assign->target) error_raise("KeyError", "an assign to an input is not scheduled");
    add_unique(s, mark, assigns, assign->target->outputs[0]);
  }
  LbList ordered = order_parents_assigns(s, key, assigns);
  add_key(s, keys, key);
  for (int i = 0; i < ordered.n; i++) {
    add_key(s, keys, ordered.items[i]);
    v0_9_lblist_push(s->a, &d->graph[key->index], ordered.items[i]);
    d->in_degree[ordered.items[i]->index]++;
  }
}

/* `tuple(x.buffer for x in (ps.outputs+ps.inputs) if x.size != 0)` */
static void item_bufs(Sched *s, const LBScheduleItem *ps, ScheduleItem *si) {
  int n = ps->noutputs + ps->inputs.n;
  si->bufs = arena_array(s->a, n ? (size_t)n : 1, sizeof *si->bufs);
  for (int i = 0; i < n; i++) {
    LazyBuffer *x = i < ps->noutputs ? ps->outputs[i] : ps->inputs.items[i - ps->noutputs];
    if (x->st->size != 0) si->bufs[si->nbufs++] = x->buffer;
  }
  si->ast = ps->ast;
  si->nast = ps->nast;
  si->metadata = ps->metadata;
  si->nmetadata = ps->nmetadata;
}

/* 197f8fd: `if (m:=Device[(device:=si.outputs[0].device)].renderer.buf_max) and len(si.bufs) >= m: raise RuntimeError(...)` */
static void check_buf_max(const ScheduleItem *si) {
  if (si->nbufs == 0) error_raise("IndexError", "tuple index out of range");
  int64_t m = si->bufs[0]->buf_max;
  if (!m || si->nbufs < m) return;
  if (si->ast[0]->op != OP_SINK)
    error_unsupported("buf_max: the RuntimeError prints repr(ScheduleItem) of a UOps.EXT item");
  error_raise("RuntimeError",
      "ScheduleItem(ast=UOp(UOps.SINK, dtypes.void, arg=None, src=(\n ...) exceeded the buffer count limit for %s: %d "
      ">= %lld",
      si->bufs[0]->device, si->nbufs, (long long)m);
}

/* engine/schedule.py create_schedule_with_vars (0.9.1), after _graph_schedule:
 * "DAG ordering: breadth first search". */
void v0_9_create_schedule_with_vars(Sched *s, Schedule *out) {
  int nlbs = s->inp->nlbs;
  Deps d = {0};
  d.graph = arena_array(s->a, nlbs ? (size_t)nlbs : 1, sizeof *d.graph);
  d.in_degree = arena_array(s->a, nlbs ? (size_t)nlbs : 1, sizeof *d.in_degree);
  uint64_t k;
  void *v;
  for (size_t i = 0; omap_next(&s->prescheduled, &i, NULL, &v);) {
    LBScheduleItem *ps = v;
    for (int j = 0; j < ps->noutputs; j++) ps->outputs[j]->target = ps;
  }
  LbList keys = {0};
  s->item_epoch++;   /* marks in_degree's keys */
  for (size_t i = 0; omap_next(&s->prescheduled, &i, &k, &v);)
    add_edges(s, &d, (LazyBuffer *)(uintptr_t)k, v, &keys);
  size_t n = omap_len(&s->prescheduled), head = 0, tail = 0;
  LBScheduleItem **queue = arena_array(s->a, n ? n : 1, sizeof *queue);
  if (s->f->queue_in_degree_order) {   /* 0.9.2: deque(lsi for lsi,deg in in_degree.items() if deg == 0) */
    for (int i = 0; i < keys.n; i++)
      if (d.in_degree[keys.items[i]->index] == 0) queue[tail++] = keys.items[i]->target;
  } else {
    for (size_t i = 0; omap_next(&s->prescheduled, &i, &k, &v);)
      if (d.in_degree[((LazyBuffer *)(uintptr_t)k)->index] == 0) queue[tail++] = v;
  }
  out->items = arena_array(s->a, n ? n : 1, sizeof *out->items);
  out->nitems = 0;
  while (head < tail) {
    LBScheduleItem *ps = queue[head++];
    for (int j = 0; j < ps->noutputs; j++) ps->outputs[j]->in_seen = true;
    for (int j = 0; s->ex && j < ps->noutputs; j++)
      explain_kernel(s->ex, (uint32_t)out->nitems, (uint32_t)ps->outputs[j]->index);
    item_bufs(s, ps, &out->items[out->nitems++]);
    if (s->f->buf_max) check_buf_max(&out->items[out->nitems - 1]);
    const LbList *next = &d.graph[ps->outputs[0]->index];
    for (int j = 0; j < next->n; j++)
      if (--d.in_degree[next->items[j]->index] == 0) queue[tail++] = next->items[j]->target;
  }
  bool all_zero = true;
  for (size_t i = 0; omap_next(&s->prescheduled, &i, &k, NULL);)
    if (d.in_degree[((LazyBuffer *)(uintptr_t)k)->index] != 0) all_zero = false;
  if (!all_zero || (size_t)out->nitems != n)
    error_raise("RuntimeError", "cycle detected in graph, prescheduled %zu but only scheduled %d", n, out->nitems);
}
