/* decode.c — a 0.10.2 capture's input (capture-format section 4) into the
 * tensor graph: buffers, the GRAPH of the big sink, node_buffer, metadata.
 * Malformed input raises error_bad_input naming the place; what cannot be
 * represented (multi-device tensors) raises error_unsupported. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "schedule.h"

static KG *kg_of(Codec *c) { return (KG *)((char *)c - offsetof(KG, codec)); }

static bool get_int(const JVal *j, int64_t *out) {
  if (!j || j->kind != J_INT) return false;
  *out = j->u.i;
  return true;
}

/* {"views": [...]} through the core codec, interned */
static const ShapeTracker *st_decode(Codec *c, const JVal *j, Status *st) {
  KG *k = kg_of(c);
  const ShapeTracker *s = st_decode_status(v0_10_2_st_scratch(&k->stc), j, st);
  if (!s) return NULL;
  for (int i = 0; i < s->nviews; i++)
    if (s->views[i]->ndim > ST_MAXDIM) {
      status_unsupported(st, "a shape with more than %d dimensions", ST_MAXDIM);
      return NULL;
    }
  return v0_10_2_st_canon(&k->stc, s);
}

/* the JSON of a ShapeTracker, built once per ShapeTracker and shared (the
 * result's JSON is never modified) */
static JVal *st_encode(Codec *c, const ShapeTracker *s) {
  KG *k = kg_of(c);
  JVal *j = omap_get(&k->st_json, omap_ptr(s));
  if (!j) {
    j = st_to_json(c->arena, s);
    omap_put(&k->st_json, omap_ptr(s), j);
  }
  return j;
}

void v0_10_2_codec_init(KG *k) {
  codec_init(&k->codec, k->in, k->cap->generation);
  k->codec.st_decode = st_decode;
  k->codec.st_encode = st_encode;
}

/* The shape of a tensor-graph node that the scheduler relies on (sources
 * and arg kinds, as tinygrad's tensor_uop_spec guarantees); false names what is wrong. */
/* 0.10.1's BUFFER(DEVICE) with arg (num, size), num written as an input BUFREF or "u:K" */
static const char *buffer_num_size_problem(const UOp *u) {
  const Value *a = u->arg;
  if (u->nsrc != 1 || u->src[0]->op != OP_DEVICE || a->kind != V_TUPLE || a->u.tuple.n != 2 || a->u.tuple.items[1]->kind != V_INT ||
      a->u.tuple.items[1]->u.i < 0 || (a->u.tuple.items[0]->kind != V_INT && a->u.tuple.items[0]->kind != V_STR))
    return "BUFFER needs a DEVICE source and a (num, size) arg";
  if (a->u.tuple.items[1]->u.i > CAPTURE_MAX_BUFFER_SIZE) return "BUFFER of an absurd size";
  return NULL;
}

static const char *node_problem(KG *k, const UOp *u) {
  uint32_t n = u->nsrc;
  const Value *a = u->arg;
  if (op_in(&k->groups, GROUP_UNARY, u->op) && n != 1) return "a unary op needs 1 source";
  if (op_in(&k->groups, GROUP_BINARY, u->op) && n != 2) return "a binary op needs 2 sources";
  if ((u->op == OP_WHERE || u->op == OP_MULACC) && n != 3) return "a ternary op needs 3 sources";
  if (op_in(&k->groups, GROUP_MOVEMENT, u->op) && (n != 1 || a->kind != V_TUPLE))
    return "a movement op needs 1 source and a tuple arg";
  switch (u->op) {
    case OP_BUFFER:
      if (k->f->buffer_arg_num_size) return buffer_num_size_problem(u);
      if (n != 2 || u->src[0]->op != OP_DEVICE || u->src[1]->op != OP_UNIQUE || a->kind != V_INT || a->u.i < 0)
        return "BUFFER needs (DEVICE, UNIQUE) sources and a size";
      if (a->u.i > CAPTURE_MAX_BUFFER_SIZE) return "BUFFER of an absurd size";
      break;
    case OP_DEVICE: if (n != 0 || a->kind != V_STR) return "DEVICE needs a string arg and no sources"; break;
    case OP_VIEW: if (n > 1 || a->kind != V_ST) return "VIEW needs a ShapeTracker arg and at most 1 source"; break;
    case OP_CONST:
      if (n > 1 || !value_is_number(a)) return "CONST needs a number arg and at most 1 source";
      break;
    case OP_REDUCE_AXIS:
      if (n != 1 || a->kind != V_TUPLE || a->u.tuple.n != 2 || a->u.tuple.items[0]->kind != V_STR || a->u.tuple.items[1]->kind != V_TUPLE)
        return "REDUCE_AXIS needs 1 source and an (op, axes) arg";
      break;
    case OP_CAST: case OP_BITCAST: case OP_CONTIGUOUS: case OP_CONTIGUOUS_BACKWARD: case OP_DETACH:
      if (n != 1) return "needs 1 source";
      break;
    case OP_ASSIGN: case OP_COPY: case OP_BIND: if (n != 2) return "needs 2 sources"; break;
    default: break;
  }
  return NULL;
}

static bool is_u_label(const Value *v) { return v->kind == V_STR && strncmp(v->u.str.s, "u:", 2) == 0; }

/* The input's tree is freed once decoded: what the scheduler keeps of it is
 * copied into k->a (devices, options, the memory planner's inputs). */
static void decode_buffers(KG *k, const JVal *jb) {
  if (!jb || jb->kind != J_ARR) error_bad_input("input.buffers must be an array");
  JStrKeep devices = {0};
  k->ninbufs = jb->n;
  k->inbufs = arena_array(k->a, jb->n ? jb->n : 1, sizeof *k->inbufs);
  for (size_t i = 0; i < jb->n; i++) {
    const JVal *e = jb->u.arr[i], *dev = json_get(e, "device"), *base = json_get(e, "base"), *opts = json_get(e, "options");
    Buf *b = arena_alloc(k->a, sizeof *b);
    char where[64];
    snprintf(where, sizeof where, "input.buffers[%zu]", i);
    char why[64];
    if (!dev || dev->kind != J_STR) error_bad_input("%s: field \"device\" missing or of the wrong type", where);
    if (capture_buffer_problem(e, "size", CAPTURE_MAX_BUFFER_SIZE, why, sizeof why))
      error_bad_input("%s: %s", where, why);
    get_int(json_get(e, "size"), &b->size);
    Status st;
    if (!(b->dtype = dtype_from_json(json_get(e, "dtype"), where, &st))) error_rethrow(&st);
    b->input_index = (int64_t)i;
    b->device = json_keep_str(k->a, &devices, dev->u.s, dev->n);
    int64_t off = 0, bi;
    get_int(json_get(e, "offset"), &off);
    if (off < 0 || off > CAPTURE_MAX_BUFFER_OFFSET) error_bad_input("%s: absurd offset", where);
    b->offset = off;
    b->options = opts && opts->kind == J_OBJ ? json_copy(k->a, opts) : NULL;
    if (base && base->kind != J_NULL) {
      if (!get_int(base, &bi) || bi < 0 || (size_t)bi >= i || k->inbufs[bi]->base)
        error_bad_input("%s: base must index an earlier base buffer", where);
      b->base = k->inbufs[bi];
    }
    k->inbufs[i] = b;
  }
}

static const Value *metadata_value(KG *k, const char *str, const char *caller, bool backward) {
  const Value *items[3] = {v_str(k->in, str), v_str(k->in, caller), v_bool(k->in, backward)};
  return v_tuple(k->in, 3, items);
}

/* input.metadata's (str, "", backward) of the string j, by j's address: the
 * reader stores each short string once per document (a few hundred distinct
 * names for thousands of entries) */
enum { METADATA_MEMO = 64 };
typedef struct MetadataMemo { const JVal *j[METADATA_MEMO]; const Value *v[METADATA_MEMO]; } MetadataMemo;

static const Value *metadata_of_str(KG *k, MetadataMemo *m, const JVal *j) {
  size_t slot = ((uintptr_t)j >> 4 ^ (uintptr_t)j >> 10) & (METADATA_MEMO - 1);
  if (m->j[slot] == j) return m->v[slot];
  const char *s = j->u.s;
  size_t len = strlen(s);
  bool bw = len >= 3 && strcmp(s + len - 3, " bw") == 0;
  m->j[slot] = j;
  return m->v[slot] = metadata_value(k, s, "", bw);
}

/* input.metadata's entries [node index, str] as read from the input's text */
typedef struct MetaPair { size_t node; const JVal *str; } MetaPair;
typedef struct MetaPairs { MetaPair *items; size_t n, cap; } MetaPairs;

static void metadata_put(KG *k, MetadataMemo *memo, Input *in, size_t node, const JVal *str) {
  v0_10_2_idmap_put(k->a, &k->all_metadata, in->nodes[node], (void *)metadata_of_str(k, memo, str));
}

/* input.metadata (from `text` when it was read from the input's text) and input.metadata_full */
static void decode_metadata(KG *k, const JVal *input, const MetaPairs *text, Input *in) {
  const JVal *md = text ? NULL : json_get(input, "metadata"), *full = json_get(input, "metadata_full");
  if (md && md->kind != J_ARR) error_bad_input("input.metadata must be an array");
  MetadataMemo memo = {{0}, {0}};
  for (size_t i = 0; md && i < md->n; i++) {
    const JVal *e = md->u.arr[i];
    int64_t node;
    if (e->kind != J_ARR || e->n != 2 || !get_int(e->u.arr[0], &node) || node < 0 || (size_t)node >= in->nnodes || e->u.arr[1]->kind != J_STR)
      error_bad_input("input.metadata[%zu] must be [node index, str]", i);
    metadata_put(k, &memo, in, (size_t)node, e->u.arr[1]);
  }
  for (size_t i = 0; text && i < text->n; i++) metadata_put(k, &memo, in, text->items[i].node, text->items[i].str);
  if (full && full->kind != J_ARR) error_bad_input("input.metadata_full must be an array");
  for (size_t i = 0; full && i < full->n; i++) {
    const JVal *e = full->u.arr[i];
    int64_t node;
    if (e->kind != J_ARR || e->n != 4 || !get_int(e->u.arr[0], &node) || node < 0 || (size_t)node >= in->nnodes ||
        e->u.arr[1]->kind != J_STR || e->u.arr[2]->kind != J_STR || e->u.arr[3]->kind != J_BOOL)
      error_bad_input("input.metadata_full[%zu] must be [node, name, caller, backward]", i);
    bool bw = e->u.arr[3]->u.b;
    const char *s = bw ? arena_printf(k->a, "%s bw", e->u.arr[1]->u.s) : e->u.arr[1]->u.s;
    v0_10_2_idmap_put(k->a, &k->all_metadata, in->nodes[node], (void *)metadata_value(k, s, e->u.arr[2]->u.s, bw));
  }
}

/* input.metadata at the cursor, read from its text once the graph's nnodes nodes are known: each
 * entry [node index, str], a name that repeats the entry before's bytes taken as its value
 * (json_column_value: names come in runs, "arange" for every node of an arange); false when the
 * text is not so */
static bool metadata_of_text(JCursor *cur, Arena *tree, size_t nnodes, MetaPairs *out) {
  JColumn name = {0};
  if (!json_cursor_open(cur, '[')) return false;
  for (bool first = true; json_cursor_more(cur, ']', first); first = false) {
    size_t node;
    const JVal *str;
    if (!json_cursor_open(cur, '[') || !json_cursor_more(cur, ']', true) || !json_cursor_index(cur, nnodes, &node) ||
        !json_cursor_more(cur, ']', false) || !(str = json_column_value(cur, &name)) || str->kind != J_STR)
      return false;
    if (json_cursor_more(cur, ']', false)) return false; /* a third field */
    out->items = arena_grow(tree, out->items, out->n, &out->cap, sizeof *out->items);
    out->items[out->n++] = (MetaPair){node, str};
  }
  return !cur->failed;
}

/* input.memory_planner_bufs as PlannerBufs (a few words each instead of a
 * copy of its JSON); a malformed entry is reported when the encoder applies
 * them (apply_planner_bufs), where the JSON was read before */
static void decode_planner_bufs(KG *k, const JVal *mpb, Input *in) {
  in->has_planner_bufs = true;
  in->planner_bufs = arena_array(k->a, mpb->n ? mpb->n : 1, sizeof *in->planner_bufs);
  for (size_t i = 0; i < mpb->n; i++) {
    const JVal *e = mpb->u.arr[i];
    if (e->kind != J_ARR || e->n != 3 || e->u.arr[1]->kind != J_BOOL || e->u.arr[2]->kind != J_INT) {
      in->planner_bad = i + 1;
      return;
    }
    const JVal *ref = e->u.arr[0];
    PlannerBuf *p = &in->planner_bufs[in->nplanner_bufs++];
    *p = (PlannerBuf){.allocated = e->u.arr[1]->u.b, .lb_refcount = e->u.arr[2]->u.i};
    if (ref->kind == J_INT) p->kind = PLANNER_REF_INPUT, p->input = ref->u.i;
    else if (ref->kind == J_STR && strncmp(ref->u.s, "new:", 4) == 0)
      p->kind = PLANNER_REF_NEW, p->new_k = (size_t)strtoull(ref->u.s + 4, NULL, 10);
  }
}

/* A schedule makes ~4.5-6 UOps and ~0.6-1.6 Values per input node (big
 * captures): the tables at their final size, without the copies that
 * doubling leaves behind */
static void reserve_for_nodes(KG *k, size_t nodes) { interner_reserve(k->in, nodes * 9 / 2, nodes * 7 / 10); }

static void decode_after_graph(KG *k, const JVal *input, const MetaPairs *meta, Input *in, const UOp **roots, size_t nroots);

void v0_10_2_decode_input(KG *k, const JVal *input, Input *in) {
  memset(in, 0, sizeof *in);
  if (!input || input->kind != J_OBJ) error_bad_input("input must be an object");
  decode_buffers(k, json_get(input, "buffers"));
  const JVal *g = json_get(input, "graph");
  if (!g) error_bad_input("input.graph is missing");
  const JVal *gn = json_get(g, "nodes");
  if (gn && gn->kind == J_ARR) reserve_for_nodes(k, gn->n);
  const UOp **roots;
  size_t nroots;
  Status st;
  if (!graph_decode(&k->codec, g, "input.graph", &in->nodes, &in->nnodes, &roots, &nroots, &st)) error_rethrow(&st);
  decode_after_graph(k, input, NULL, in, roots, nroots);
}

bool v0_10_2_decode_input_text(KG *k, const JVal *raw, Arena *tree, Input *in) {
  if (raw->kind != J_RAW) return false;
  memset(in, 0, sizeof *in);
  JCursor cur;
  json_cursor_begin(&cur, tree, raw);
  JVal *rest = json_obj(tree); /* every member but the graph, as trees */
  const UOp **roots = NULL;
  size_t nroots = 0;
  bool graph = false, metadata = false;
  MetaPairs meta = {0};
  if (!json_cursor_open(&cur, '{')) return false;
  for (bool first = true; json_cursor_more(&cur, '}', first); first = false) {
    const char *key;
    size_t n;
    if (!json_cursor_key(&cur, &key, &n)) return false;
    bool is_graph = n == 5 && memcmp(key, "graph", 5) == 0;
    char *name = arena_strndup(tree, key, n);
    if (json_get(rest, name) || (is_graph && graph)) return false; /* a key twice: the tree's reader says so */
    if (is_graph) {
      if (!graph_decode_text(&k->codec, &cur, &in->nodes, &in->nnodes, &roots, &nroots)) return false;
      reserve_for_nodes(k, in->nnodes); /* for the schedule's UOps (the input's are made) */
      graph = true;
      continue;
    }
    if (n == 8 && memcmp(key, "metadata", 8) == 0 && graph) {
      if (!metadata_of_text(&cur, tree, in->nnodes, &meta)) return false;
      metadata = true;
      json_set(tree, rest, name, json_null(tree)); /* read: a second "metadata" is a key twice */
      continue;
    }
    const JVal *v = json_cursor_value(&cur);
    if (!v) return false;
    json_set(tree, rest, name, (JVal *)v);
  }
  if (cur.failed || !graph) return false;
  decode_buffers(k, json_get(rest, "buffers"));
  decode_after_graph(k, rest, metadata ? &meta : NULL, in, roots, nroots);
  return true;
}

/* What follows the graph's decoding, input's other members and the nodes checked */
static void decode_after_graph(KG *k, const JVal *input, const MetaPairs *meta, Input *in, const UOp **roots, size_t nroots) {
  if (nroots != 1 || roots[0]->op != OP_SINK) error_bad_input("input.graph: roots must be [the big sink]");
  in->big_sink = roots[0];
  Arena *tmp = arena_scratch_begin(&k->scratch);
  OMap labels;
  omap_init(&labels, tmp);
  for (size_t i = 0; i < in->nnodes; i++) {
    const UOp *u = in->nodes[i];
    if (!v0_10_2_idmap_get(&in->node_index, u)) v0_10_2_idmap_put(k->a, &in->node_index, u, (void *)(uintptr_t)(i + 1));
    if (u->op == OP_MULTI) error_unsupported("multi-device tensors (Ops.MULTI, node %zu)", i);
    if (u->op == OP_KERNEL) error_bad_input("input.graph node %zu: a KERNEL in a tensor graph", i);
    const char *problem = node_problem(k, u);
    if (problem) error_bad_input("input.graph node %zu (%s): %s", i, op_name(u->op, k->cap->generation), problem);
    if (u->op == OP_UNIQUE && u->arg->kind == V_STR && strncmp(u->arg->u.str.s, "u:", 2) == 0) omap_put(&labels, omap_ptr(u), (void *)1);
    if (u->op == OP_BUFFER && k->f->buffer_arg_num_size && is_u_label(u->arg->u.tuple.items[0])) omap_put(&labels, omap_ptr(u), (void *)1);
    v0_10_2_note_const(k, u);
  }
  in->unique_labels = omap_len(&labels);
  arena_scratch_end(&k->scratch, tmp);
  const JVal *nb = json_get(input, "node_buffer");
  if (!nb || nb->kind != J_ARR) error_bad_input("input.node_buffer must be an array");
  for (size_t i = 0; i < nb->n; i++) {
    const JVal *e = nb->u.arr[i];
    int64_t node, buf;
    if (e->kind != J_ARR || e->n != 2 || !get_int(e->u.arr[0], &node) || !get_int(e->u.arr[1], &buf) || node < 0 ||
        (size_t)node >= in->nnodes || buf < 0 || (size_t)buf >= k->ninbufs || in->nodes[node]->op != OP_BUFFER)
      error_bad_input("input.node_buffer[%zu] must be [BUFFER node index, buffer index]", i);
    omap_put(&k->buffers, omap_ptr(in->nodes[node]), k->inbufs[buf]);
  }
  decode_metadata(k, input, meta, in);
  const JVal *mpb = json_get(input, "memory_planner_bufs");
  if (mpb && mpb->kind != J_NULL && mpb->kind != J_ARR)
    error_bad_input("input.memory_planner_bufs must be null or an array");
  if (mpb && mpb->kind == J_ARR) decode_planner_bufs(k, mpb, in);
  in->allocator_offset = json_copy(k->a, json_get(input, "memory_planner_allocator_offset"));
}
