/* encode.c — the result of a 0.10.2 scheduler run as the capture's
 * `expected` object (capture-format section 5): schedule items, var_vals,
 * becomes_map, new_buffers and the memory plan. BUFREFs follow the
 * recorder: "new:K" by first appearance walking the schedule's bufs, then
 * the becomes_map graphs, then bases; "plan:K" by first appearance in the
 * memory plan. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "schedule.h"
#include "scheduler.h"

typedef struct Refs {
  KG *k;
  Buf **list[2];     /* [0] new, [1] plan */
  size_t n[2], cap[2];
} Refs;

/* BufRegistry.ref, its JSON built in `out` (the name b->ref stays in k->a) */
static JVal *buf_ref_in(Refs *r, Arena *out, Buf *b, int kind) {
  Arena *a = r->k->a;
  if (b->input_index >= 0) return json_int(out, b->input_index);
  if (!b->ref) {
    if (r->n[kind] == r->cap[kind])
      r->list[kind] = arena_grow(a, r->list[kind], r->n[kind], &r->cap[kind], sizeof *r->list[kind]);
    b->ref_index = (int64_t)r->n[kind];
    b->ref = arena_printf(a, "%s:%zu", kind ? "plan" : "new", r->n[kind]);
    r->list[kind][r->n[kind]++] = b;
  }
  return json_str(out, b->ref);
}

static JVal *buf_ref(Refs *r, Buf *b, int kind) { return buf_ref_in(r, r->k->a, b, kind); }

static JVal *options_json(KG *k, Arena *out, const Buf *b) {
  if (b->options) return (JVal *)b->options;
  if (!b->image) return json_null(out);
  JVal *o = json_obj(out);
  json_set(out, o, "image", dtype_to_json(&k->codec, b->image));
  const char *flags[5] = {"uncached", "cpu_access", "host", "nolru", "external_ptr"};
  for (int i = 0; i < 5; i++) json_set(out, o, flags[i], json_bool(out, false));
  return o;
}

/* BufRegistry.describe of the i-th buffer of a kind, built in `out` */
static JVal *describe_buf(Refs *r, int kind, size_t i, Arena *out) {
  KG *k = r->k;
  Buf *b = r->list[kind][i];
  static const char *const keys[6] = {"device", "size", "dtype", "base", "offset", "options"};
  JVal *vals[6] = {json_str(out, b->device), json_int_shared(out, b->size), dtype_to_json(&k->codec, b->dtype),
                   b->base ? buf_ref_in(r, out, b->base, kind) : json_null_shared(), json_int_shared(out, b->offset),
                   options_json(k, out, b)};
  return json_obj_fixed(out, 6, keys, vals);
}

typedef struct DescribeCtx { Refs *r; int kind; } DescribeCtx;
static JVal *describe_json(void *ctx, size_t i, Arena *out) {
  DescribeCtx *x = ctx;
  return describe_buf(x->r, x->kind, i, out);
}

/* BufRegistry.describe_all (new_buffers: with the replayer's sink, each
 * buffer is built in a scratch arena and compared at once: NULL). The
 * bases are named first, in the order describing them would name them, so
 * that the number of buffers is known. */
static JVal *describe_all(Refs *r, int kind) {
  for (size_t i = 0; i < r->n[kind]; i++)
    if (r->list[kind][i]->base) buf_ref(r, r->list[kind][i]->base, kind);
  DescribeCtx ctx = {r, kind};
  if (kind == 1) {
    JVal *out = json_arr(r->k->a);
    for (size_t i = 0; i < r->n[kind]; i++) json_push(r->k->a, out, describe_buf(r, kind, i, r->k->a));
    return out;
  }
  return encode_sunk_list(&r->k->codec, r->k->a, SINK_NEW_BUFFERS, r->n[kind], describe_json, &ctx);
}

/* one schedule item, built in `out` (graph_encode's JSON in k->codec.out) */
static JVal *encode_item(Refs *r, Arena *out, const ScheduleItem *si) {
  JVal *o = json_obj(out), *bufs = json_arr(out), *meta = json_arr(out);
  json_set(out, o, "ast", graph_encode(&r->k->codec, &si->ast, 1));
  for (size_t i = 0; i < si->nbufs; i++) json_push(out, bufs, buf_ref_in(r, out, si->bufs[i], 0));
  for (size_t i = 0; i < si->metadata->u.tuple.n; i++) {
    const Value *m = si->metadata->u.tuple.items[i]->u.tuple.items[0];
    json_push(out, meta, json_strn(out, m->u.str.s, m->u.str.n));
  }
  json_set(out, o, "bufs", bufs);
  json_set(out, o, "metadata", meta);
  return o;
}

typedef struct ItemCtx { Refs *r; const SchedResult *res; } ItemCtx;
static JVal *item_json(void *ctx, size_t k, Arena *out) {
  ItemCtx *x = ctx;
  return encode_item(x->r, out, &x->res->items[k]);
}

typedef struct VarVal { const char *name; int64_t min, max, val; } VarVal;
static int cmp_var(const void *a, const void *b) {
  const VarVal *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  if (c) return c;
  if (x->min != y->min) return x->min < y->min ? -1 : 1;
  return x->max < y->max ? -1 : x->max > y->max;
}

static JVal *encode_var_vals(KG *k, const OMap *var_vals) {
  size_t n = omap_len(var_vals), i = 0;
  Arena *tmp = arena_scratch_begin(&k->scratch);
  VarVal *vs = arena_array(tmp, n ? n : 1, sizeof *vs);
  uint64_t key;
  void *val;
  for (size_t pos = 0; omap_next(var_vals, &pos, &key, &val);) {
    const UOp *var = (const UOp *)(uintptr_t)key;
    const Value *a = var->arg, *v = val;
    if (var->op != OP_DEFINE_VAR || a->kind != V_TUPLE || a->u.tuple.n != 3 || a->u.tuple.items[0]->kind != V_STR ||
        a->u.tuple.items[1]->kind != V_INT || a->u.tuple.items[2]->kind != V_INT || v->kind != V_INT)
      error_unsupported("a bound variable that is not DEFINE_VAR(name, int, int) = int");
    vs[i++] = (VarVal){a->u.tuple.items[0]->u.str.s, a->u.tuple.items[1]->u.i, a->u.tuple.items[2]->u.i, v->u.i};
  }
  qsort(vs, n, sizeof *vs, cmp_var);
  JVal *out = json_arr(k->a);
  for (i = 0; i < n; i++) {
    JVal *pair = json_arr(k->a), *var = json_obj(k->a);
    json_set(k->a, var, "var", json_str(k->a, vs[i].name));
    json_set(k->a, var, "min", json_int(k->a, vs[i].min));
    json_set(k->a, var, "max", json_int(k->a, vs[i].max));
    json_push(k->a, pair, var);
    json_push(k->a, pair, json_int(k->a, vs[i].val));
    json_push(k->a, out, pair);
  }
  arena_scratch_end(&k->scratch, tmp);
  return out;
}

/* A becomes_map value with each UNIQUE's arg written as the BUFREF of the
 * Buffer its BUFFER has, or a "u:K" label (UOpCall._describe); its walk,
 * maps and new UOps in `tmp` (the entry's scratch: see BecomesCtx; the
 * walk's visited set there too, not k->marks, whose stamps, one per UOp id,
 * would be a table for the whole graph for a few nodes an entry). */
/* What names a buffer in a becomes_map graph (a UNIQUE's arg, 0.10.1's BUFFER num): the
 * BUFREF of its Buffer, or the "u:K" label the call began with, or a new one for key */
static const Value *buffer_label(Refs *r, Arena *tmp, const Value *have, Buf *b, const UOp *key, OMap *labels, size_t *nlabels) {
  KG *k = r->k;
  if (b) {
    JVal *ref = buf_ref_in(r, tmp, b, 0);
    return ref->kind == J_INT ? v_int(k->in, ref->u.i) : v_str(k->in, ref->u.s);
  }
  if (have->kind == V_STR && strncmp(have->u.str.s, "u:", 2) == 0) return have;
  const Value *arg = omap_get(labels, omap_ptr(key));
  if (!arg) {
    arg = v_str(k->in, arena_printf(k->a, "u:%zu", (*nlabels)++));
    omap_put(labels, omap_ptr(key), (void *)arg);
  }
  return arg;
}

static JVal *encode_becomes_value(Refs *r, Arena *tmp, const UOp *v, OMap *labels, size_t *nlabels) {
  KG *k = r->k;
  const UOp **order;
  size_t n = uop_toposort(tmp, &v, 1, &order);
  OMap ub, subs;
  omap_init(&ub, tmp);
  omap_init(&subs, tmp);
  for (size_t i = 0; i < n; i++) {
    const UOp *u = order[i];
    Buf *b;
    if (u->op == OP_BUFFER && u->nsrc >= 2 && u->src[1]->op == OP_UNIQUE && (b = v0_10_2_uop_buffer_get(k, u)))
      omap_put(&ub, omap_ptr(u->src[1]), b);
  }
  for (size_t i = 0; i < n; i++) {
    const UOp *u = order[i], *nu;
    if (u->op == OP_UNIQUE) {
      bool input_label = k->f->unique_label_at_call && u->arg->kind == V_STR && strncmp(u->arg->u.str.s, "u:", 2) == 0;
      if (input_label) continue;
      nu = v0_10_2_uop(k, OP_UNIQUE, u->dtype,
          buffer_label(r, tmp, u->arg, omap_get(&ub, omap_ptr(u)), u, labels, nlabels), 0, NULL);
    } else if (u->op == OP_BUFFER && k->f->buffer_arg_num_size) {
      /* 0.10.1: BUFFER(DEVICE) arg (num, size); an input label stays (capture-format section 7) */
      const Value *num = u->arg->u.tuple.items[0];
      bool input_label = num->kind == V_STR && strncmp(num->u.str.s, "u:", 2) == 0;
      const Value *arg[2] = {
          input_label ? num : buffer_label(r, tmp, num, v0_10_2_uop_buffer_get(k, u), u, labels, nlabels),
          u->arg->u.tuple.items[1]};
      nu = v0_10_2_uop(k, OP_BUFFER, u->dtype, v_tuple(k->in, 2, arg), u->nsrc, u->src);
    } else continue;
    if (nu != u) omap_put(&subs, omap_ptr(u), (void *)nu);
  }
  const UOp *out = omap_len(&subs) ? v0_10_2_uop_substitute(k, v, &subs) : v;
  return graph_encode(&k->codec, &out, 1);
}

typedef struct BecomesEntry { size_t index; const UOp *v; } BecomesEntry;
static int cmp_entry(const void *a, const void *b) {
  const BecomesEntry *x = a, *y = b;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* The UOps an entry makes (the relabelled UNIQUEs, the substituted graph)
 * are needed only until its JSON is built: with the replayer's sink they
 * are made in the entry's scratch arena (Interner.node_arena), with the
 * entry's maps, and forgotten once the JSON is built (interner_compact_since
 * keeping none); the scratch is then freed with the JSON. What is
 * remembered by id meanwhile forgets them by itself: graph_encode's
 * positions and the substitute rewrite's pooled memo
 * are stamped with epochs older than any new walk, and nothing here
 * computes UOp.st / UOp.device or adds to zero_consts. Not while `tsched
 * explain` listens (all in k->a, kept). */
typedef struct BecomesCtx {
  Refs *r;
  const BecomesEntry *es;
  OMap labels;       /* in k->caches: UNIQUE -> its "u:K" label */
  size_t nlabels;
} BecomesCtx;

/* becomes_map entry j, [node index, GRAPH], built in `out` */
static JVal *becomes_entry_json(void *ctx, size_t j, Arena *out) {
  BecomesCtx *x = ctx;
  KG *k = x->r->k;
  bool scratch = out != k->a && !k->ex; /* the sink's scratch: freed after the entry */
  uint32_t mark = uop_count(k->in);
  if (scratch) k->in->node_arena = out;
  JVal *pair = json_arr_n(out, 2);
  pair->u.arr[0] = json_int_shared(out, (int64_t)x->es[j].index);
  pair->u.arr[1] = encode_becomes_value(x->r, scratch ? out : k->caches, x->es[j].v, &x->labels, &x->nlabels);
  if (scratch) {
    k->in->node_arena = NULL;
    interner_compact_since(k->in, mark, NULL, 0, out);
  }
  return pair;
}

/* (its walks, the substitutes' memos and the entries' list in k->caches;
 * with the replayer's sink each entry is built in a scratch arena and
 * compared at once: NULL) */
static JVal *encode_becomes_map(Refs *r, const Input *in, const OMap *bm) {
  KG *k = r->k;
  size_t n = omap_len(bm), i = 0;
  v0_10_2_caches_begin(k);
  BecomesEntry *es = arena_array(k->caches, n ? n : 1, sizeof *es);
  uint64_t key;
  void *val;
  for (size_t pos = 0; omap_next(bm, &pos, &key, &val);) {
    size_t idx = (size_t)(uintptr_t)v0_10_2_idmap_get(&in->node_index, (const UOp *)(uintptr_t)key);
    if (!idx) continue; /* "becomes_map key not in the input graph" */
    es[i++] = (BecomesEntry){idx - 1, val};
  }
  qsort(es, i, sizeof *es, cmp_entry);
  BecomesCtx ctx = {.r = r, .es = es, .nlabels = in->unique_labels};
  omap_init(&ctx.labels, k->caches);
  JVal *out = encode_sunk_list(&k->codec, k->a, SINK_BECOMES_MAP, i, becomes_entry_json, &ctx);
  v0_10_2_caches_drop(k);
  return out;
}

/* The planner's view of each Buffer: allocated / lb_refcount when it ran */
static void apply_planner_bufs(Refs *r, const Input *in) {
  KG *k = r->k;
  if (in->planner_bad)
    error_bad_input("input.memory_planner_bufs[%zu] must be [BUFREF, bool, int]", in->planner_bad - 1);
  for (size_t i = 0; i < in->nplanner_bufs; i++) {
    const PlannerBuf *p = &in->planner_bufs[i];
    Buf *b = NULL;
    if (p->kind == PLANNER_REF_INPUT && p->input >= 0 && (size_t)p->input < k->ninbufs) b = k->inbufs[p->input];
    else if (p->kind == PLANNER_REF_NEW && p->new_k < r->n[0]) b = r->list[0][p->new_k];
    if (!b) continue; /* our schedule has no such buffer: the comparison will say so */
    b->allocated = p->allocated;
    b->lb_refcount = p->lb_refcount;
    b->planner_known = true;
  }
}

/* [[buf, replacement], ...] for each schedule Buffer the plan replaces, once (Buf.plan_encoded) */
static JVal *encode_memory_plan(Refs *r, const SchedResult *res, const MemoryPlan *plan) {
  KG *k = r->k;
  JVal *out = json_arr(k->a);
  for (size_t i = 0; i < res->n; i++)
    for (size_t j = 0; j < res->items[i].nbufs; j++) res->items[i].bufs[j]->plan_encoded = false;
  for (size_t i = 0; i < res->n; i++)
    for (size_t j = 0; j < res->items[i].nbufs; j++) {
      Buf *b = res->items[i].bufs[j], *nb = plan->bufs[i][j];
      if (b->plan_encoded) continue;
      b->plan_encoded = true;
      if (nb == b) continue;
      JVal *pair = json_arr_n(k->a, 2);
      pair->u.arr[0] = buf_ref(r, b, 0);
      pair->u.arr[1] = buf_ref(r, nb, 1);
      json_push(k->a, out, pair);
    }
  return out;
}

JVal *v0_10_2_encode_result(KG *k, const Input *in, const SchedResult *res) {
  Refs r = {.k = k};
  Arena *a = k->a;
  JVal *o = json_obj(a);
  ItemCtx items = {&r, res};
  JVal *schedule = encode_schedule_items(&k->codec, a, res->n, item_json, &items);
  if (schedule) json_set(a, o, "schedule", schedule); /* else the replayer's sink compared it */
  json_set(a, o, "var_vals", encode_var_vals(k, &res->var_vals));
  JVal *becomes = encode_becomes_map(&r, in, &res->becomes_map);
  if (becomes) json_set(a, o, "becomes_map", becomes); /* else the sink compared it */
  JVal *new_buffers = describe_all(&r, 0);
  if (new_buffers) json_set(a, o, "new_buffers", new_buffers); /* else the sink compared it */
  if (!in->has_planner_bufs) {
    json_set(a, o, "memory_plan", json_null(a));
    json_set(a, o, "memory_plan_buffers", json_null(a));
    return o;
  }
  apply_planner_bufs(&r, in);
  MemoryPlan plan;
  v0_10_2_memory_planner(k, res, in->allocator_offset, &plan);
  json_set(a, o, "memory_plan", encode_memory_plan(&r, res, &plan));
  json_set(a, o, "memory_plan_buffers", describe_all(&r, 1));
  return o;
}

/* ---------------------------------------------------------------- the rewrite steps */

typedef struct TracePatch {
  KG *k;
  const RewriteTrace *t;
  OMap labels;       /* UNIQUE -> its new "u:K" JVal */
} TracePatch;

typedef struct PyFrame { const UOp *u; uint32_t i; } PyFrame;

/* What names a buffer in node u (a UNIQUE's arg; 0.10.1: a BUFFER's num), or NULL */
static const Value *buffer_name(const TracePatch *x, const UOp *u) {
  if (u->op == OP_UNIQUE) return u->arg;
  if (u->op == OP_BUFFER && x->k->f->buffer_arg_num_size && u->arg->kind == V_TUPLE && u->arg->u.tuple.n == 2)
    return u->arg->u.tuple.items[0];
  return NULL;
}

/* the Buffer named by u: its BUFFER's (for a UNIQUE, via unique_buf) */
static Buf *named_buffer(TracePatch *x, const UOp *u, OMap *unique_buf) {
  return u->op == OP_UNIQUE ? omap_get(unique_buf, omap_ptr(u)) : v0_10_2_uop_buffer_get(x->k, u);
}

/* a name made by the scheduler (not the capture's at call time) */
static bool made_name(const Value *name) { return name->kind == V_BUFREF && strncmp(name->u.str.s, "k:", 2) == 0; }
static bool known_buffer(const Buf *b) { return b && (b->input_index >= 0 || b->ref); }

/* The nodes in the order rewrite_trace.py describes them (its GraphBuilder: post-order from each
 * rewrite's sink, then from each of its steps' before and after node; a KERNEL's ast just before
 * the KERNEL): each buffer name needing a new "u:K" label gets the next one. */
static void label_new_names(TracePatch *x, Arena *a, OMap *unique_buf, size_t nlabels) {
  KG *k = x->k;
  const RewriteTrace *t = x->t;
  PyFrame *stack = NULL;
  size_t depth = 0, cap = 0;
  v0_10_2_marks_begin(k);
  for (size_t c = 0; c < t->ncalls; c++) {
    size_t end = c + 1 < t->ncalls ? t->calls[c + 1].first : t->nsteps;
    for (size_t r = 0; r < 1 + 2 * (end - t->calls[c].first); r++) {
      const UOp *root = r == 0 ? t->calls[c].sink : r % 2 ? t->steps[t->calls[c].first + r / 2].before
                                                          : t->steps[t->calls[c].first + r / 2 - 1].after;
      if (v0_10_2_mark(k, root)) continue;
      if (depth == cap) stack = arena_grow(a, stack, depth, &cap, sizeof *stack);
      stack[depth++] = (PyFrame){root, 0};
      while (depth) {
        PyFrame *f = &stack[depth - 1];
        const UOp *u = f->u, *next = NULL;
        while (!next && f->i <= u->nsrc) {
          const UOp *s = f->i < u->nsrc ? u->src[f->i] : u->op == OP_KERNEL ? v0_10_2_kernel_arg_ast(k, u) : NULL;
          f->i++;
          if (s && !v0_10_2_mark(k, s)) next = s;
        }
        if (next) {
          if (depth == cap) stack = arena_grow(a, stack, depth, &cap, sizeof *stack);
          stack[depth++] = (PyFrame){next, 0};
          continue;
        }
        depth--;
        const Value *name = buffer_name(x, u);
        if (name && made_name(name) && !known_buffer(named_buffer(x, u, unique_buf)))
          omap_put(&x->labels, omap_ptr(u), json_str(a, arena_printf(a, "u:%zu", nlabels++)));
      }
    }
  }
}

/* rewrite_trace.py's describer: a name the capture gave at call time stays, else it is the BUFREF of
 * the Buffer after the call, else a new "u:K" (0.10.1: a BUFFER's arg [NAME, size]) */
static void patch_name(TracePatch *x, Arena *a, JVal *node, const UOp *u, OMap *unique_buf) {
  const Value *name = buffer_name(x, u);
  if (!made_name(name)) return;
  Buf *b = named_buffer(x, u, unique_buf);
  JVal *label = omap_get(&x->labels, omap_ptr(u));
  if (!label && known_buffer(b)) label = b->input_index >= 0 ? json_int(a, b->input_index) : json_str(a, b->ref);
  if (!label) return;
  if (u->op == OP_UNIQUE) node->u.arr[2] = label;
  else if (node->u.arr[2]->kind == J_ARR && node->u.arr[2]->n == 2) node->u.arr[2]->u.arr[0] = label;
}

/* a KERNEL's arg as {"Kernel": [its ast's node, [str(metadata)...]]} */
static void patch_kernel(TracePatch *x, Codec *c, JVal *node, const UOp *u) {
  Arena *a = c->out;
  const UOp *ast = v0_10_2_kernel_arg_ast(x->k, u);
  const Value *md = v0_10_2_kernel_arg_metadata(u);
  JVal *pair = json_arr_n(a, 2), *meta = json_arr(a), *o = json_obj(a);
  pair->u.arr[0] = json_int(a, c->enc_pos[ast->id]);
  for (size_t i = 0; i < md->u.tuple.n; i++) {
    const Value *m = md->u.tuple.items[i]->u.tuple.items[0];
    json_push(a, meta, json_strn(a, m->u.str.s, m->u.str.n));
  }
  pair->u.arr[1] = meta;
  json_set(a, o, "Kernel", pair);
  node->u.arr[2] = o;
}

/* TraceEncoding.patch: node i is c->enc_order[i] */
static void trace_patch(void *ctx, Codec *c, JVal *nodes) {
  TracePatch *x = ctx;
  OMap unique_buf;
  omap_init(&unique_buf, c->out);
  omap_init(&x->labels, c->out);
  size_t nlabels = 0; /* the capture's u:K labels: those of the input, which the first sink holds */
  for (size_t i = 0; i < nodes->n; i++) {
    const UOp *u = c->enc_order[i];
    Buf *b;
    const Value *name = buffer_name(x, u);
    if (name && name->kind == V_STR && strncmp(name->u.str.s, "u:", 2) == 0) nlabels++;
    if (u->op == OP_BUFFER && u->nsrc >= 2 && u->src[1]->op == OP_UNIQUE && (b = v0_10_2_uop_buffer_get(x->k, u)))
      omap_put(&unique_buf, omap_ptr(u->src[1]), b);
  }
  label_new_names(x, c->out, &unique_buf, nlabels);
  for (size_t i = 0; i < nodes->n; i++) {
    const UOp *u = c->enc_order[i];
    if (!op_name(u->op, x->k->cap->generation) && op_uop_name(u->op)) /* 0.10.1's PRELOAD */
      nodes->u.arr[i]->u.arr[0] = json_str(c->out, op_uop_name(u->op));
    if (buffer_name(x, u)) patch_name(x, c->out, nodes->u.arr[i], u, &unique_buf);
    else if (u->op == OP_KERNEL) patch_kernel(x, c, nodes->u.arr[i], u);
  }
}

void v0_10_2_trace_emit(KG *k, const RewriteTrace *t) {
  /* the KERNELs' ASTs are nodes of the GRAPH too */
  size_t nroots = t->ncalls + 2 * t->nsteps, n = 0, nextra = 0;
  const UOp **roots = arena_array(k->a, nroots + 1, sizeof *roots), **order;
  for (size_t i = 0; i < t->ncalls; i++) roots[n++] = t->calls[i].sink;
  for (size_t j = 0; j < t->nsteps; j++) roots[n++] = t->steps[j].before, roots[n++] = t->steps[j].after;
  size_t norder = uop_toposort(k->a, roots, n, &order);
  const UOp **extra = arena_array(k->a, norder + 1, sizeof *extra);
  for (size_t i = 0; i < norder; i++)
    if (order[i]->op == OP_KERNEL) extra[nextra++] = v0_10_2_kernel_arg_ast(k, order[i]);
  TracePatch x = {k, t, {0}};
  TraceEncoding how = {extra, nextra, trace_patch, &x};
  rewrite_trace_emit(t, &k->codec, tg_version_name(k->cap->generation), k->cap->name, &how);
}
