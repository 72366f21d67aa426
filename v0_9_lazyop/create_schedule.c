/* create_schedule.c — ordering the kernels: the dependency graph at the end
 * of tinygrad 0.9.1's _graph_schedule and the breadth-first search of
 * create_schedule_with_vars (engine/schedule.py). */
#include <string.h>
#include "sched91.h"

typedef struct Deps {
  LbList *graph;       /* by LazyBuffer index: graph[key] (defaultdict(list)) */
  int64_t *in_degree;  /* by LazyBuffer index */
  OMap targets;        /* schedule_targets: output LazyBuffer* -> LBScheduleItem* */
} Deps;

static LBScheduleItem *target_of(Deps *d, const LazyBuffer *x) { return omap_get(&d->targets, omap_ptr(x)); }

/* dedup a list of keys into `out`, keeping first appearances */
static void add_unique(Arena *a, OMap *seen, LbList *out, LazyBuffer *x) {
  if (omap_has(seen, omap_ptr(x))) return;
  omap_put(seen, omap_ptr(x), (void *)1);
  lblist_push91(a, out, x);
}

/* parents_assigns is an id()-ordered set: its members in the order the
 * capture recorded for this key (set_orders.parents_assigns), the others after. */
static LbList order_parents_assigns(Sched91 *s, LazyBuffer *key, const LbList *pa) {
  const LbList *rec = omap_get(&s->inp->parents_assigns_order, omap_ptr(key));
  if (!rec) return *pa;
  OMap members, done;
  omap_init(&members, s->a);
  omap_init(&done, s->a);
  for (int i = 0; i < pa->n; i++) omap_put(&members, omap_ptr(pa->items[i]), (void *)1);
  LbList out = {0};
  for (int i = 0; i < rec->n; i++)
    if (omap_has(&members, omap_ptr(rec->items[i]))) add_unique(s->a, &done, &out, rec->items[i]);
  for (int i = 0; i < pa->n; i++) add_unique(s->a, &done, &out, pa->items[i]);
  return out;
}

/* The edges of one prescheduled item: after its scheduled parents, and
 * before the assigns to buffers it reads ("realize outputs before a parent
 * is assigned to"). */
static bool add_edges(Sched91 *s, Deps *d, LazyBuffer *key, const LBScheduleItem *lsi, Status *st) {
  OMap seen_parents, seen_assigns;
  omap_init(&seen_parents, s->a);
  omap_init(&seen_assigns, s->a);
  LbList parents = {0}, assigns = {0};
  for (int i = 0; i < lsi->inputs.n; i++) {
    LazyBuffer *x = lsi->inputs.items[i];
    LBScheduleItem *t = target_of(d, x);
    if (t) add_unique(s->a, &seen_parents, &parents, t->outputs[0]);
  }
  for (int i = 0; i < parents.n; i++) {
    lblist_push91(s->a, &d->graph[parents.items[i]->index], key);
    d->in_degree[key->index]++;
  }
  for (int i = 0; i < lsi->inputs.n; i++) {
    LazyBuffer *assign = lsi->inputs.items[i]->assign;
    if (!assign) continue;
    LBScheduleItem *t = target_of(d, assign);
    if (!t) return status_raise(st, "KeyError", "an assign to an input is not scheduled");
    add_unique(s->a, &seen_assigns, &assigns, t->outputs[0]);
  }
  LbList ordered = order_parents_assigns(s, key, &assigns);
  for (int i = 0; i < ordered.n; i++) {
    lblist_push91(s->a, &d->graph[key->index], ordered.items[i]);
    d->in_degree[ordered.items[i]->index]++;
  }
  return true;
}

/* `tuple(x.buffer for x in (ps.outputs+ps.inputs) if x.size != 0)` */
static void item_bufs(Sched91 *s, const LBScheduleItem *ps, ScheduleItem91 *si) {
  int n = ps->noutputs + ps->inputs.n;
  si->bufs = arena_array(s->a, n ? (size_t)n : 1, sizeof *si->bufs);
  for (int i = 0; i < n; i++) {
    LazyBuffer *x = i < ps->noutputs ? ps->outputs[i] : ps->inputs.items[i - ps->noutputs];
    if (x->st->size != 0) si->bufs[si->nbufs++] = x->buffer;
  }
  si->ast = ps->ast;
  si->nast = ps->nast;
}

/* engine/schedule.py create_schedule_with_vars (0.9.1), after _graph_schedule:
 * "DAG ordering: breadth first search". */
bool create_schedule91(Sched91 *s, Schedule91 *out, Status *st) {
  int nlbs = s->inp->nlbs;
  Deps d;
  d.graph = arena_array(s->a, nlbs ? (size_t)nlbs : 1, sizeof *d.graph);
  d.in_degree = arena_array(s->a, nlbs ? (size_t)nlbs : 1, sizeof *d.in_degree);
  omap_init(&d.targets, s->a);
  uint64_t k;
  void *v;
  for (size_t i = 0; omap_next(&s->prescheduled, &i, NULL, &v);) {
    LBScheduleItem *ps = v;
    for (int j = 0; j < ps->noutputs; j++) omap_put(&d.targets, omap_ptr(ps->outputs[j]), ps);
  }
  for (size_t i = 0; omap_next(&s->prescheduled, &i, &k, &v);)
    if (!add_edges(s, &d, (LazyBuffer *)(uintptr_t)k, v, st)) return false;
  size_t n = omap_len(&s->prescheduled), head = 0, tail = 0;
  LBScheduleItem **queue = arena_array(s->a, n ? n : 1, sizeof *queue);
  for (size_t i = 0; omap_next(&s->prescheduled, &i, &k, &v);)
    if (d.in_degree[((LazyBuffer *)(uintptr_t)k)->index] == 0) queue[tail++] = v;
  out->items = arena_array(s->a, n ? n : 1, sizeof *out->items);
  out->nitems = 0;
  while (head < tail) {
    LBScheduleItem *ps = queue[head++];
    for (int j = 0; j < ps->noutputs; j++) ps->outputs[j]->in_seen = true;
    item_bufs(s, ps, &out->items[out->nitems++]);
    const LbList *next = &d.graph[ps->outputs[0]->index];
    for (int j = 0; j < next->n; j++)
      if (--d.in_degree[next->items[j]->index] == 0) queue[tail++] = omap_get(&s->prescheduled, omap_ptr(next->items[j]));
  }
  bool all_zero = true;
  for (size_t i = 0; omap_next(&s->prescheduled, &i, &k, NULL);)
    if (d.in_degree[((LazyBuffer *)(uintptr_t)k)->index] != 0) all_zero = false;
  if (!all_zero || (size_t)out->nitems != n)
    return status_raise(st, "RuntimeError", "cycle detected in graph, prescheduled %zu but only scheduled %d", n, out->nitems);
  return true;
}
