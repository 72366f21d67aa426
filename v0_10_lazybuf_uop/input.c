/* input.c — decoding a 0.10.0 capture's `input` and `context` (capture
 * contract section 3): Buffers, LazyBuffers (bases and views), outs and the
 * memory planner's inputs. Every malformed place is ST_BAD_INPUT naming it. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "sched.h"

bool v100_sched_raise(Sched *s, const char *type, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char msg[sizeof s->st->msg];
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  s->failed = true;
  return status_raise(s->st, type, "%s", msg);
}

bool v100_sched_unsupported(Sched *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char msg[sizeof s->st->msg];
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  s->failed = true;
  return status_unsupported(s->st, "%s", msg);
}

bool v100_sched_bad_input(Sched *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char msg[sizeof s->st->msg];
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  s->failed = true;
  return status_bad_input(s->st, "%s", msg);
}

bool v100_sched_st_error(Sched *s, const StError *e) {
  if (e->status == ST_RAISED) return v100_sched_raise(s, e->type, "%s", e->message);
  if (e->status == ST_BAD_INPUT) return v100_sched_bad_input(s, "%s", e->message);
  return v100_sched_unsupported(s, "%s", e->message);
}

bool v100_sym_ok(Sched *s) {
  StError e;
  st_error_clear(&e);
  if (!sym_take_error(&e)) return true;
  v100_sched_st_error(s, &e);
  return false;
}

/* ---- small field readers ---- */

/* where = prefix + "[" + i + "]" (called once per element: no printf) */
static void place(char *where, size_t cap, const char *prefix, size_t i) {
  char digits[24];
  int n = 0;
  do digits[n++] = (char)('0' + i % 10), i /= 10; while (i);
  size_t k = strlen(prefix);
  if (k + (size_t)n + 3 > cap) k = cap - (size_t)n - 3;
  memcpy(where, prefix, k);
  where[k++] = '[';
  while (n) where[k++] = digits[--n];
  where[k++] = ']';
  where[k] = 0;
}

/* dtype_parse / op_parse of the same spelling as last time: most LazyBuffers share a few */
static const DType *parse_dtype_cached(const char *text) {
  static char last[64];
  static const DType *last_dt;
  if (last_dt && strcmp(last, text) == 0) return last_dt;
  const DType *d = dtype_parse(text);
  if (d && strlen(text) < sizeof last) strcpy(last, text), last_dt = d;
  return d;
}

static Op parse_op_cached(const char *text) {
  static char last[64];
  static Op last_op = OP_NONE;
  if (last_op != OP_NONE && strcmp(last, text) == 0) return last_op;
  Op op = op_parse(text, TG_0_10_0);
  if (op != OP_NONE && strlen(text) < sizeof last) strcpy(last, text), last_op = op;
  return op;
}

static const JVal *field(Sched *s, const JVal *obj, const char *key, JKind kind, const char *where) {
  const JVal *v = json_get(obj, key);
  if (!v || v->kind != kind) {
    v100_sched_bad_input(s, "%s: field \"%s\" missing or of the wrong type", where, key);
    return NULL;
  }
  return v;
}

static bool int_field(Sched *s, const JVal *obj, const char *key, const char *where, int64_t *out) {
  const JVal *v = field(s, obj, key, J_INT, where);
  if (v) *out = v->u.i;
  return v != NULL;
}

static bool bool_field(Sched *s, const JVal *obj, const char *key, const char *where, bool *out) {
  const JVal *v = field(s, obj, key, J_BOOL, where);
  if (v) *out = v->u.b;
  return v != NULL;
}

/* an int index into an array of n, or null (-1) when nullable */
static bool index_field(Sched *s, const JVal *obj, const char *key, size_t n, bool nullable, const char *where,
                        int64_t *out) {
  const JVal *v = json_get(obj, key);
  if (nullable && v && v->kind == J_NULL) { *out = -1; return true; }
  if (!v || v->kind != J_INT || v->u.i < 0 || (uint64_t)v->u.i >= n)
    return v100_sched_bad_input(s, "%s: \"%s\" is not an index below %zu", where, key, n);
  *out = v->u.i;
  return true;
}

static const DType *dtype_field(Sched *s, const JVal *obj, const char *key, const char *where) {
  const JVal *v = field(s, obj, key, J_STR, where);
  if (!v) return NULL;
  const DType *d = parse_dtype_cached(v->u.s);
  if (!d) v100_sched_bad_input(s, "%s: unknown dtype \"%s\"", where, v->u.s);
  return d;
}

/* ---- context ---- */

static bool ctx_flag(Sched *s, const char *key, bool *out) {
  int64_t v;
  if (!capture_ctx_int(s->cap, key, &v)) return v100_sched_bad_input(s, "context: \"%s\" missing or not a number", key);
  *out = v != 0;
  return true;
}

static bool decode_context(Sched *s) {
  const JVal *c = s->cap->context;
  if (!c || c->kind != J_OBJ) return v100_sched_bad_input(s, "context: not an object");
  if (!ctx_flag(s, "FUSE_ARANGE", &s->fuse_arange) || !ctx_flag(s, "FUSE_CONV_BW", &s->fuse_conv_bw) ||
      !ctx_flag(s, "NO_MEMORY_PLANNER", &s->no_memory_planner))
    return false;
  s->limit_device = arena_array(s->a, c->n + 1, sizeof(char *));
  s->limit_value = arena_array(s->a, c->n + 1, sizeof(int64_t));
  for (size_t i = 0; i < c->n; i++) {
    const JMember *m = &c->u.obj[i];
    if (strncmp(m->key, "BUF_LIMIT:", 10) != 0) continue;
    if (m->val->kind != J_INT) return v100_sched_bad_input(s, "context: \"%s\" is not an int", m->key);
    s->limit_device[s->nlimits] = m->key + 10;
    s->limit_value[s->nlimits++] = m->val->u.i;
  }
  return true;
}

/* ---- buffers ---- */

/* The input's tree is freed once decoded: what the scheduler keeps of it is
 * copied into s->a (devices through `devices`, options). */
static bool decode_buffer(Sched *s, const JVal *j, size_t i, size_t n, InBuf *b, JStrKeep *devices) {
  char where[64];
  place(where, sizeof where, "input.buffers", i);
  if (j->kind != J_OBJ) return v100_sched_bad_input(s, "%s: not an object", where);
  const JVal *dev = field(s, j, "device", J_STR, where), *opt = json_get(j, "options");
  if (!dev || !(b->dtype = dtype_field(s, j, "dtype", where))) return false;
  b->device = json_keep_str(s->a, devices, dev->u.s, dev->n);
  char why[64];
  if (capture_buffer_problem(j, "size", CAPTURE_MAX_BUFFER_SIZE, why, sizeof why) ||
      capture_buffer_problem(j, "offset", CAPTURE_MAX_BUFFER_OFFSET, why, sizeof why))
    return v100_sched_bad_input(s, "%s: %s", where, why);
  if (!int_field(s, j, "size", where, &b->size) || !bool_field(s, j, "allocated", where, &b->allocated) ||
      !index_field(s, j, "base", n, true, where, &b->base) || !int_field(s, j, "offset", where, &b->offset) ||
      !int_field(s, j, "lb_refcount", where, &b->lb_refcount))
    return false;
  if (b->dtype->is_ptr && !b->dtype->is_image) return v100_sched_bad_input(s, "%s: a Buffer dtype cannot be a pointer", where);
  if (!opt || (opt->kind != J_NULL && opt->kind != J_OBJ)) return v100_sched_bad_input(s, "%s: bad \"options\"", where);
  b->options = opt->kind == J_NULL ? NULL : json_copy(s->a, opt);
  b->dtype0 = b->dtype;
  b->options0 = b->options;
  return true;
}

static bool decode_buffers(Sched *s, const JVal *arr) {
  s->nbufs = arr->n;
  s->bufs = arena_array(s->a, arr->n + 1, sizeof(InBuf));
  JStrKeep devices = {0};
  for (size_t i = 0; i < arr->n; i++)
    if (!decode_buffer(s, arr->u.arr[i], i, arr->n, &s->bufs[i], &devices)) return false;
  for (size_t i = 0; i < arr->n; i++) {
    int64_t base = s->bufs[i].base;
    if (base >= 0 && s->bufs[base].base >= 0) return v100_sched_bad_input(s, "input.buffers[%zu]: base can't have a base", i);
    if (base >= 0 && strcmp(s->bufs[base].device, s->bufs[i].device) != 0)
      return v100_sched_bad_input(s, "input.buffers[%zu]: base must have the same device", i);
  }
  return true;
}

/* ---- lazybuffers ---- */

static bool decode_metadata(Sched *s, const JVal *j, InLB *lb, const char *where) {
  const JVal *m = json_get(j, "metadata"), *caller = json_get(j, "metadata_caller");
  if (!m || m->kind == J_NULL) return true;
  if (m->kind != J_STR || (caller && caller->kind != J_STR)) return v100_sched_bad_input(s, "%s: bad metadata", where);
  const Value *items[2] = {v_strn(s->in, V_STR, m->u.s, m->n),
                           caller ? v_strn(s->in, V_STR, caller->u.s, caller->n) : v_str(s->in, "")};
  lb->metadata = v_tuple(s->in, 2, items);
  return true;
}

static bool decode_srcs(Sched *s, const JVal *j, size_t i, InLB *lb, const char *where) {
  const JVal *srcs = json_get(j, "srcs");
  if (!srcs || (srcs->kind != J_NULL && srcs->kind != J_ARR)) return v100_sched_bad_input(s, "%s: bad \"srcs\"", where);
  lb->has_srcs = srcs->kind == J_ARR;
  if (!lb->has_srcs) return true;
  int64_t *idx = arena_array(s->a, srcs->n + 1, sizeof *idx);
  for (size_t k = 0; k < srcs->n; k++) {
    const JVal *x = srcs->u.arr[k];
    if (x->kind != J_INT || x->u.i < 0 || (uint64_t)x->u.i >= i)
      return v100_sched_bad_input(s, "%s: srcs[%zu] is not an index below %zu (post-order)", where, k, i);
    idx[k] = x->u.i;
  }
  lb->srcs = idx;
  lb->nsrcs = srcs->n;
  return true;
}

/* a CONST's arg {"sym": {"var": name, "min": int, "max": int, "val": int}}: a bound Variable */
static bool decode_bound_var(Sched *s, const JVal *e, InLB *lb, const char *where) {
  const JVal *name = json_get(e, "var"), *mn = json_get(e, "min"), *mx = json_get(e, "max"), *val = json_get(e, "val");
  if (!name || name->kind != J_STR || !mn || mn->kind != J_INT || !mx || mx->kind != J_INT)
    return v100_sched_unsupported(s, "%s: CONST of a symbolic expression", where);
  if (!val || val->kind != J_INT) return v100_sched_unsupported(s, "%s: CONST of an unbound Variable", where);
  lb->var = v100_define_var(s, name->u.s, name->n, mn->u.i, mx->u.i);
  lb->var_val = val->u.i;
  return true;
}

const UOp *v100_define_var(Sched *s, const char *name, size_t len, int64_t lo, int64_t hi) {
  const Value *arg[3] = {v_strn(s->in, V_STR, name, len), v_int(s->in, lo), v_int(s->in, hi)};
  return uop0(s->in, OP_DEFINE_VAR, dt_int, v_tuple(s->in, 3, arg));
}

/* the ops engine/lazy.py gives a base LazyBuffer: metaops, CONST, the ALU ops, CAST, BITCAST, REDUCE_AXIS */
static bool lazybuffer_op(Op op) {
  return v100_op_in_meta(op) || v100_op_in_alu(op) || op == OP_CONST || op == OP_ASSIGN || op == OP_CONTIGUOUS ||
         op == OP_CAST || op == OP_BITCAST || op == OP_REDUCE_AXIS;
}

/* how many srcs a LazyBuffer of this op has: EMPTY and CONST none, the
 * binary ALU ops and ASSIGN two, WHERE and MULACC three, the rest one */
static int lazybuffer_arity(Op op) {
  switch (op) {
    case OP_EMPTY: case OP_CONST: return 0;
    case OP_WHERE: case OP_MULACC: return 3;
    case OP_ASSIGN: return 2;
    case OP_EXP2: case OP_LOG2: case OP_SIN: case OP_SQRT: case OP_RECIP: case OP_NEG: return 1;
    default: return v100_op_in_alu(op) ? 2 : 1; /* binary ALU ops; CAST, BITCAST, REDUCE_AXIS, COPY, BUFFER_VIEW, CONTIGUOUS */
  }
}

/* LazyBuffer.assign's arg: () if self.st.contiguous else (self.st,) */
static bool assign_arg_valid(const Value *arg) {
  return arg->kind == V_TUPLE && (arg->u.tuple.n == 0 || (arg->u.tuple.n == 1 && arg->u.tuple.items[0]->kind == V_ST));
}

static bool decode_base_lb(Sched *s, const JVal *j, size_t i, InLB *lb, const char *where) {
  const JVal *op = field(s, j, "op", J_STR, where), *arg = json_get(j, "arg");
  if (!op) return false;
  if ((lb->op = parse_op_cached(op->u.s)) == OP_NONE) return v100_sched_bad_input(s, "%s: unknown op \"%s\"", where, op->u.s);
  if (!lazybuffer_op(lb->op)) return v100_sched_unsupported(s, "%s: a LazyBuffer of op %s (not one engine/lazy.py makes)", where, op->u.s);
  if (!arg) return v100_sched_bad_input(s, "%s: missing \"arg\"", where);
  if (!(lb->arg = value_from_json(&s->codec, arg, where, s->st))) return s->failed = true, false;
  if (!decode_srcs(s, j, i, lb, where) || !index_field(s, j, "buffer", s->nbufs, false, where, &lb->buffer) ||
      !bool_field(s, j, "realized", where, &lb->realized) ||
      !bool_field(s, j, "forced_realize", where, &lb->forced_realize))
    return false;
  if (lb->op == OP_CONST && lb->arg->kind == V_SYM && !decode_bound_var(s, json_get(arg, "sym"), lb, where)) return false;
  if (lb->op == OP_REDUCE_AXIS && !v100_axis_arg_valid(lb->arg)) return v100_sched_bad_input(s, "%s: bad REDUCE_AXIS arg", where);
  if (lb->op == OP_ASSIGN && !assign_arg_valid(lb->arg)) return v100_sched_bad_input(s, "%s: ASSIGN arg must be [] or [ST]", where);
  if (!lb->realized && !lb->has_srcs && lb->op != OP_CONST)
    return v100_sched_bad_input(s, "%s: an unrealized LazyBuffer without srcs", where);
  if (lb->has_srcs && lb->nsrcs != (size_t)lazybuffer_arity(lb->op))
    return v100_sched_bad_input(s, "%s: %zu srcs where %s takes %d", where, lb->nsrcs, op->u.s, lazybuffer_arity(lb->op));
  return decode_metadata(s, j, lb, where);
}

static bool decode_lb(Sched *s, const JVal *j, size_t i, InLB *lb, JStrKeep *devices) {
  char where[64];
  place(where, sizeof where, "input.lazybuffers", i);
  if (j->kind != J_OBJ) return v100_sched_bad_input(s, "%s: not an object", where);
  const JVal *dev = field(s, j, "device", J_STR, where), *jst = json_get(j, "st");
  if (!dev || !(lb->dtype = dtype_field(s, j, "dtype", where))) return false;
  lb->device = json_keep_str(s->a, devices, dev->u.s, dev->n);
  lb->dtype0 = lb->dtype;
  if (!jst) return v100_sched_bad_input(s, "%s: missing \"st\"", where);
  if (!(lb->st = value_from_json(&s->codec, jst, where, s->st))) return s->failed = true, false;
  if (lb->st->kind != V_ST) return v100_sched_bad_input(s, "%s: \"st\" is not a ShapeTracker", where);
  if (!json_get(j, "base")) {
    lb->base = -1;
    return decode_base_lb(s, j, i, lb, where);
  }
  if (!index_field(s, j, "base", i, false, where, &lb->base)) return false;
  if (s->lbs[lb->base].base >= 0) return v100_sched_bad_input(s, "%s: base must be a base itself", where);
  return true;
}

static bool decode_lbs(Sched *s, const JVal *arr) {
  s->nlbs = arr->n;
  s->lbs = arena_array(s->a, arr->n + 1, sizeof(InLB));
  JStrKeep devices = {0};
  for (size_t i = 0; i < arr->n; i++)
    if (!decode_lb(s, arr->u.arr[i], i, &s->lbs[i], &devices)) return false;
  return true;
}

static bool decode_outs(Sched *s, const JVal *arr) {
  int64_t *outs = arena_array(s->a, arr->n + 1, sizeof *outs);
  for (size_t k = 0; k < arr->n; k++) {
    const JVal *x = arr->u.arr[k];
    if (x->kind != J_INT || x->u.i < 0 || (uint64_t)x->u.i >= s->nlbs)
      return v100_sched_bad_input(s, "input.outs[%zu] is not a lazybuffer index", k);
    outs[k] = x->u.i;
  }
  s->outs = outs;
  s->nouts = arr->n;
  return true;
}

/* The input's tree `in` (freed once decoded: what the planner reads later is copied). */
static bool decode_input_tree(Sched *s, const JVal *in) {
  if (!in || in->kind != J_OBJ) return v100_sched_bad_input(s, "input: not an object");
  if (!decode_context(s)) return false;
  const JVal *bufs = field(s, in, "buffers", J_ARR, "input"), *lbs, *outs;
  if (!bufs || !decode_buffers(s, bufs)) return false;
  if (!(lbs = field(s, in, "lazybuffers", J_ARR, "input"))) return false;
  interner_reserve(s->in, 10 * (size_t)lbs->n, 3 * (size_t)lbs->n); /* a schedule makes ~9-11 UOps and ~2-3 Values per LazyBuffer */
  if (!decode_lbs(s, lbs)) return false;
  if (!(outs = field(s, in, "outs", J_ARR, "input")) || !decode_outs(s, outs)) return false;
  const JVal *mp = json_get(in, "memory_planner_bufs");
  if (!mp || (mp->kind != J_NULL && mp->kind != J_ARR)) return v100_sched_bad_input(s, "input.memory_planner_bufs: missing or not a list");
  s->mp_bufs = mp && mp->kind == J_ARR ? json_copy(s->a, mp) : NULL;
  s->mp_offset = json_copy(s->a, json_get(in, "memory_planner_allocator_offset"));
  if (s->mp_offset && s->mp_offset->kind != J_OBJ) return v100_sched_bad_input(s, "input.memory_planner_allocator_offset: not an object");
  return true;
}

bool v100_decode_input(Sched *s) {
  Arena tree;   /* the input's JSON tree lives while it is decoded */
  arena_init(&tree);
  const JVal *in = capture_input(s->cap, &tree, s->st);
  bool ok = in ? decode_input_tree(s, in) : (s->failed = true, false);
  arena_free(&tree);
  arena_prefer_pool(s->a); /* the scheduler goes on in the tree's memory */
  return ok;
}
