/* entry.c — the LazyBuffer -> UOp generation's entry point for the replayer (scheduler.h):
 * decode the capture, run create_schedule_with_vars and memory_planner, and
 * encode the result as the contract's `expected` object. */
#include <stdlib.h>
#include <string.h>
#include "pipeline.h"

static void sched_init(Sched *s, const Capture *c, Arena *a, Interner *in) {
  memset(s, 0, sizeof *s);
  s->a = s->caches = s->graph = s->tmp = a;
  s->scratch = (ScratchArenas){a, V0_10_MAX_CHUNK, NULL, NULL};
  s->in = in;
  s->cap = c;
  s->v = c->generation;
  s->f = tg_features(c->generation);
  op_groups_init(&s->groups, c->generation);
  codec_init(&s->codec, in, s->v);
  v0_10_st_init(s);
  OMap *maps[] = {&s->var_vals, &s->assigns,
                  &s->allbufs, &s->st_reduce_cache, &s->st_add_cache, &s->st_unbound, &s->st_simplify_cache, &s->st_json_cache, &s->st_full_cache};
  for (size_t i = 0; i < sizeof maps / sizeof *maps; i++) omap_init(maps[i], a);
  s->none = v_none(in);
  s->void_dt = dt_void;
  s->bool_dt = dt_bool;
}

/* metadata names in Python's string order (the captures write the set sorted) */
static int metadata_cmp(const void *pa, const void *pb) {
  const Value *a = (*(const Value *const *)pa)->u.tuple.items[0], *b = (*(const Value *const *)pb)->u.tuple.items[0];
  size_t n = a->u.str.n < b->u.str.n ? a->u.str.n : b->u.str.n;
  int c = memcmp(a->u.str.s, b->u.str.s, n);
  return c ? c : (a->u.str.n > b->u.str.n) - (a->u.str.n < b->u.str.n);
}

static int int64_cmp(const void *pa, const void *pb) {
  int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
  return (a > b) - (a < b);
}

/* one schedule item, built in `a` (graph_encode's and value_to_json's JSON in s->codec.out):
 * metadata sorted (a set), assign_preloads sorted when it is a frozenset (assign_adj) */
static JVal *encode_item(Sched *s, Arena *a, const SchedItem *si) {
  JVal *o = json_obj(a), *bufs = json_arr(a), *md = json_arr(a), *pre = json_arr(a);
  json_set(a, o, "ast", graph_encode(&s->codec, &si->ast, 1));
  for (size_t i = 0; i < si->nbufs; i++) json_push(a, bufs, json_int(a, si->bufs[i]));
  qsort(si->metadata, si->nmetadata, sizeof *si->metadata, metadata_cmp);
  for (size_t i = 0; i < si->nmetadata; i++) json_push(a, md, value_to_json(&s->codec, si->metadata[i]->u.tuple.items[0]));
  if (s->f->assign_adj) qsort(si->preloads, si->npreloads, sizeof *si->preloads, int64_cmp);
  for (size_t i = 0; i < si->npreloads; i++) json_push(a, pre, json_int(a, si->preloads[i]));
  json_set(a, o, "bufs", bufs);
  json_set(a, o, "metadata", md);
  json_set(a, o, "assign_preloads", pre);
  return o;
}

typedef struct ItemCtx { Sched *s; const SchedItem *items; } ItemCtx;
static JVal *item_json(void *ctx, size_t k, Arena *out) {
  ItemCtx *x = ctx;
  return encode_item(x->s, out, &x->items[k]);
}

/* (name, min, max) order of two DEFINE_VARs */
static int var_cmp(const void *pa, const void *pb) {
  const Value *a = (*(const UOp *const *)pa)->arg, *b = (*(const UOp *const *)pb)->arg;
  const Value *na = a->u.tuple.items[0], *nb = b->u.tuple.items[0];
  size_t n = na->u.str.n < nb->u.str.n ? na->u.str.n : nb->u.str.n;
  int c = memcmp(na->u.str.s, nb->u.str.s, n);
  if (c || na->u.str.n != nb->u.str.n) return c ? c : na->u.str.n < nb->u.str.n ? -1 : 1;
  for (int i = 1; i < 3; i++) {
    int64_t x = a->u.tuple.items[i]->u.i, y = b->u.tuple.items[i]->u.i;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

/* var_vals: [[{"var", "min", "max"}, val]] sorted by (name, min, max) */
static JVal *encode_var_vals(Sched *s) {
  Arena *a = s->a;
  JVal *arr = json_arr(a);
  size_t n = omap_len(&s->var_vals), k = 0;
  const UOp **vars = arena_array(a, n + 1, sizeof *vars);
  uint64_t key;
  void *val;
  for (size_t pos = 0; omap_next(&s->var_vals, &pos, &key, &val);) vars[k++] = (const UOp *)(uintptr_t)key;
  qsort(vars, n, sizeof *vars, var_cmp);
  for (size_t i = 0; i < n; i++) {
    const Value *arg = vars[i]->arg;
    JVal *v = json_obj(a), *pair = json_arr(a);
    json_set(a, v, "var", value_to_json(&s->codec, arg->u.tuple.items[0]));
    json_set(a, v, "min", value_to_json(&s->codec, arg->u.tuple.items[1]));
    json_set(a, v, "max", value_to_json(&s->codec, arg->u.tuple.items[2]));
    json_push(a, pair, v);
    json_push(a, pair, value_to_json(&s->codec, omap_get(&s->var_vals, omap_ptr(vars[i]))));
    json_push(a, arr, pair);
  }
  return arr;
}

/* input dtypes and Buffer options the image fallback overwrote */
static JVal *encode_mutations(Sched *s) {
  Arena *a = s->a;
  JVal *o = json_obj(a), *lbs = json_arr(a), *bufs = json_arr(a);
  for (size_t i = 0; i < s->nlbs; i++) {
    if (s->lbs[i].dtype == s->lbs[i].dtype0) continue;
    JVal *e = json_arr(a);
    json_push(a, e, json_int(a, (int64_t)i));
    json_push(a, e, dtype_to_json(&s->codec, s->lbs[i].dtype));
    json_push(a, lbs, e);
  }
  for (size_t i = 0; i < s->nbufs; i++) {
    const InBuf *b = &s->bufs[i];
    if (b->dtype == b->dtype0 && b->options == b->options0) continue;
    JVal *e = json_arr(a);
    json_push(a, e, json_int(a, (int64_t)i));
    json_push(a, e, dtype_to_json(&s->codec, b->dtype));
    json_push(a, e, b->options ? (JVal *)b->options : json_null(a));
    json_push(a, bufs, e);
  }
  json_set(a, o, "lazybuffers", lbs);
  json_set(a, o, "buffers", bufs);
  return o;
}

static JVal *encode_result(Sched *s, const SchedItem *items, size_t n, const MemPlan *mp) {
  Arena *a = s->a;
  JVal *o = json_obj(a);
  ItemCtx ctx = {s, items};
  JVal *schedule = encode_schedule_items(&s->codec, a, n, item_json, &ctx);
  if (schedule) json_set(a, o, "schedule", schedule); /* else the replayer's sink compared it */
  json_set(a, o, "var_vals", encode_var_vals(s));
  json_set(a, o, "memory_plan", mp->ran ? mp->plan : json_null(a));
  json_set(a, o, "memory_plan_buffers", mp->ran ? mp->plan_buffers : json_null(a));
  json_set(a, o, "mutations", encode_mutations(s));
  return o;
}

/* One capture, under the entry point's protected call: what it raises ends it. */
typedef struct Call {
  const Capture *c;
  Arena *a;
  Sched *s;
  JVal *result;
  RewriteTrace *trace;  /* the rewrite steps, when the replayer asked for them */
} Call;

static void schedule_capture(void *ud) {
  Call *x = ud;
  phase_enter(PHASE_BUILD);
  Interner *in = arena_alloc(x->a, sizeof *in);
  interner_init(in, x->a);
  in->trace = x->trace;
  Sched *s = x->s = arena_alloc(x->a, sizeof *s);
  sched_init(s, x->c, x->a, in);
  v0_10_decode_input(s);
  s->cache = arena_array(x->a, s->nlbs + 1, sizeof *s->cache);
  s->lazybufs = arena_array(x->a, s->nbufs + 1, sizeof *s->lazybufs);
  phase_enter(PHASE_SCHEDULE);
  SchedItem *items;
  MemPlan mp;
  v0_10_caches_begin(s);
  size_t n = v0_10_create_schedule_with_vars(s, &items);
  v0_10_caches_drop(s);
  v0_10_memory_planner(s, items, n, &mp);
  phase_enter(PHASE_ENCODE);
  x->result = encode_result(s, items, n, &mp);
}

/* The scheduler of every version whose row names GEN_LAZYBUF_UOP (scheduler.h).
 * The capture runs in its own symbolic context (sint.h): its Variables and
 * shape expressions are hash-consed UOps of this capture. */
bool v0_10_schedule_capture(const Capture *c, Arena *a, JVal **result, Status *st) {
  sym_begin(a, c->generation);
  size_t max_chunk = a->max_chunk;
  a->max_chunk = V0_10_MAX_CHUNK;
  arena_prefer_pool(a); /* the parser's buffers, given back */
  Call x = {c, a, NULL, NULL, NULL};
  RewriteTrace trace;
  if (rewrite_trace_wanted()) rewrite_trace_init(x.trace = &trace, a, c->generation);
  bool ok = error_protect(st, schedule_capture, &x);
  if (x.s) v0_10_scratch_end_all(x.s);
  if (x.s && x.trace) rewrite_trace_emit(x.trace, &x.s->codec, tg_version_name(c->generation), c->name, NULL);
  if (x.s) v0_10_st_release(x.s);
  a->max_chunk = max_chunk;
  sym_end();
  *result = ok ? x.result : NULL;
  return ok;
}
