/* encode.c — the result of one 0.9.1 scheduler call as the contract's
 * `expected` object (capture-format section 5): schedule items (AST GRAPH,
 * bufs as BUFREFs, metadata), var_vals, the memory plan and the mutations
 * the image-dtype fallback made to the input. */
#include "pipeline.h"
#include <string.h>
#include "scheduler.h"
#include "symbolic.h"

JVal *v0_9_encode_image_options(Sched *s, const DType *image) {
  Arena *a = s->a;
  JVal *o = json_obj(a);
  json_set(a, o, "image", dtype_to_json(&s->codec, image));
  static const char *flags[] = {"uncached", "cpu_access", "host", "nolru", "external_ptr"};
  for (int i = 0; i < 5; i++) json_set(a, o, flags[i], json_bool(a, false));
  return o;
}

/* Buffer.options now: as recorded, or None once the fallback cleared it. */
static JVal *encode_options(Arena *a, const DeviceBuffer *b) {
  if (b->options_cleared || !b->options) return json_null(a);
  return (JVal *)b->options;
}

/* ---- ASTs ----
 * The contract's GRAPH of one kernel (what graph_encode writes), with the
 * JVals that repeat across kernels shared: op names, args (a MemBuffer's
 * encoding is one tree however many kernels load it), small ints. All of
 * it is built in `out`: the result's arena, or one item's scratch arena
 * when the items go to a sink (then an encoder lives for one item). */

typedef struct AstEncoder {
  Sched *s;
  Arena *out;
  OMap args;        /* const Value* -> JVal* */
  OMap names;       /* Op -> JVal* */
  OMap index;       /* (item, uop id) -> node index + 1 */
  JVal *null, *ints[64];
  int item;
} AstEncoder;

static void ast_encoder_init(AstEncoder *e, Sched *s, Arena *out) {
  *e = (AstEncoder){.s = s, .out = out, .null = json_null(out)};
  omap_init(&e->args, out);
  omap_init(&e->names, out);
  omap_init(&e->index, out);
}

static JVal *shared_int(AstEncoder *e, int64_t i) {
  if (i < 0 || i >= 64) return json_int(e->out, i);
  if (!e->ints[i]) e->ints[i] = json_int(e->out, i);
  return e->ints[i];
}

static JVal *shared_arg(AstEncoder *e, const Value *v) {
  JVal *j = omap_get(&e->args, omap_ptr(v));
  if (!j) omap_put(&e->args, omap_ptr(v), j = value_to_json(&e->s->codec, v));
  return j;
}

static JVal *shared_name(AstEncoder *e, Op op) {
  JVal *j = omap_get(&e->names, (uint64_t)op);
  if (!j) omap_put(&e->names, (uint64_t)op, j = json_str(e->out, v0_9_op_name(e->s, op)));
  return j;
}

static uint64_t node_key(const AstEncoder *e, const UOp *u) { return ((uint64_t)(uint32_t)e->item << 32) | u->id; }

/* [op, null, arg, [src index...]] once its sources have indices */
static void encode_node(AstEncoder *e, JVal *nodes, const UOp *u) {
  Arena *a = e->out;
  JVal *n = json_arr_n(a, 4), *src = json_arr_n(a, u->nsrc);
  for (uint32_t k = 0; k < u->nsrc; k++)
    src->u.arr[k] = shared_int(e, (int64_t)(uintptr_t)omap_get(&e->index, node_key(e, u->src[k])) - 1);
  n->u.arr[0] = shared_name(e, u->op);
  n->u.arr[1] = u->dtype ? dtype_to_json(&e->s->codec, u->dtype) : e->null;   /* LazyOps have none */
  n->u.arr[2] = shared_arg(e, u->arg);
  n->u.arr[3] = src;
  omap_put(&e->index, node_key(e, u), (void *)(uintptr_t)(nodes->n + 1));
  json_push(a, nodes, n);
}

typedef struct AstFrame { const UOp *u; uint32_t next; } AstFrame;

/* Post-order from the roots, sources in order, each node once (uop_toposort's order). */
static JVal *encode_ast(AstEncoder *e, const UOp *const *roots, int nroots) {
  Arena *a = e->out;
  JVal *nodes = json_arr(a), *jroots = json_arr_n(a, (size_t)nroots);
  size_t cap = 0, depth = 0;
  AstFrame *stack = NULL;
  for (int r = 0; r < nroots; r++) {
    if (omap_has(&e->index, node_key(e, roots[r]))) continue;
    stack = arena_grow(a, stack, depth, &cap, sizeof *stack);
    stack[depth++] = (AstFrame){roots[r], 0};
    while (depth) {
      AstFrame *f = &stack[depth - 1];
      if (f->next < f->u->nsrc) {
        const UOp *x = f->u->src[f->next++];
        if (omap_has(&e->index, node_key(e, x))) continue;
        stack = arena_grow(a, stack, depth, &cap, sizeof *stack);
        stack[depth++] = (AstFrame){x, 0};
        continue;
      }
      encode_node(e, nodes, f->u);
      depth--;
    }
  }
  for (int r = 0; r < nroots; r++)
    jroots->u.arr[r] = shared_int(e, (int64_t)(uintptr_t)omap_get(&e->index, node_key(e, roots[r])) - 1);
  e->item++;
  static const char *const keys[2] = {"nodes", "roots"};
  JVal *vals[2] = {nodes, jroots};
  return json_obj_fixed(a, 2, keys, vals);
}

static JVal *encode_item(AstEncoder *e, const ScheduleItem *si) {
  Arena *a = e->out;
  JVal *ast = encode_ast(e, si->ast, si->nast);
  JVal *bufs = json_arr_n(a, (size_t)si->nbufs);
  for (int i = 0; i < si->nbufs; i++) bufs->u.arr[i] = shared_int(e, si->bufs[i]->index);
  JVal *meta = json_arr_n(a, (size_t)si->nmetadata);   /* 0.9.1's ScheduleItem has no metadata */
  for (int i = 0; i < si->nmetadata; i++) meta->u.arr[i] = json_str(a, si->metadata[i]);
  static const char *const keys[3] = {"ast", "bufs", "metadata"};
  JVal *vals[3] = {ast, bufs, meta};
  return json_obj_fixed(a, 3, keys, vals);
}

/* {"lazybuffers": [[lb, DT]], "buffers": [[buffer, DT, OPTIONS]]} in index order */
static JVal *encode_mutations(Sched *s) {
  Arena *a = s->a;
  Input *inp = s->inp;
  JVal *m = json_obj(a), *lbs = json_arr(a), *bufs = json_arr(a);
  for (int i = 0; i < inp->nlbs; i++) {
    const LazyBuffer *lb = &inp->lbs[i];
    if (lb->dtype == lb->orig_dtype) continue;
    JVal *e = json_arr(a);
    json_push(a, e, json_int(a, i));
    json_push(a, e, dtype_to_json(&s->codec, lb->dtype));
    json_push(a, lbs, e);
  }
  for (int i = 0; i < inp->nbuffers; i++) {
    const DeviceBuffer *b = &inp->buffers[i];
    if (b->dtype == b->orig_dtype && !(b->options_cleared && b->options)) continue;
    JVal *e = json_arr(a);
    json_push(a, e, json_int(a, i));
    json_push(a, e, dtype_to_json(&s->codec, b->dtype));
    json_push(a, e, encode_options(a, b));
    json_push(a, bufs, e);
  }
  json_set(a, m, "lazybuffers", lbs);
  json_set(a, m, "buffers", bufs);
  return m;
}

/* (name, min, max) order of two Variables */
static bool var_before(const SymNode *x, const SymNode *y) {
  int c = strcmp(x->expr, y->expr);
  if (c != 0) return c < 0;
  return x->min != y->min ? x->min < y->min : x->max < y->max;
}

/* var_vals: [[{"var", "min", "max"}, val], ...] sorted by (name, min, max) */
static JVal *encode_var_vals(Sched *s) {
  Arena *a = s->a;
  int n = s->nvar_vals;
  const struct VarVal **order = arena_array(a, (size_t)(n > 0 ? n : 1), sizeof *order);
  for (int i = 0; i < n; i++) { /* insertion sort */
    const struct VarVal *x = &s->var_vals[i];
    int j = i - 1;
    while (j >= 0 && var_before(x->var.sym, order[j]->var.sym)) {
      order[j + 1] = order[j];
      j--;
    }
    order[j + 1] = x;
  }
  JVal *arr = json_arr(a);
  for (int i = 0; i < n; i++) {
    const SymNode *v = order[i]->var.sym;
    JVal *pair = json_arr(a), *var = json_obj(a);
    json_set(a, var, "var", json_str(a, v->expr));
    json_set(a, var, "min", json_int(a, v->min));
    json_set(a, var, "max", json_int(a, v->max));
    json_push(a, pair, var);
    json_push(a, pair, json_int(a, order[i]->val));
    json_push(a, arr, pair);
  }
  return arr;
}

/* item k in `out`; the encoder shares JVals across items only in the
 * result's arena (a scratch arena is one item's, freed after it) */
typedef struct ItemCtx { Sched *s; const Schedule *sched; AstEncoder e; bool shared; } ItemCtx;
static JVal *item_json(void *ctx, size_t k, Arena *out) {
  ItemCtx *x = ctx;
  if (!x->shared) ast_encoder_init(&x->e, x->s, out);
  x->shared = out == x->s->a;
  return encode_item(&x->e, &x->sched->items[k]);
}

JVal *v0_9_encode_result(Sched *s, const Schedule *sched) {
  Arena *a = s->a;
  JVal *o = json_obj(a), *plan_buffers;
  ItemCtx ctx = {.s = s, .sched = sched};
  JVal *schedule = encode_schedule_items(&s->codec, a, (size_t)sched->nitems, item_json, &ctx);
  if (schedule) json_set(a, o, "schedule", schedule); /* else the replayer's sink compared it */
  json_set(a, o, "var_vals", encode_var_vals(s));
  json_set(a, o, "memory_plan", v0_9_encode_memory_plan(s, sched, &plan_buffers));
  json_set(a, o, "memory_plan_buffers", plan_buffers);
  json_set(a, o, "mutations", encode_mutations(s));
  return o;
}
