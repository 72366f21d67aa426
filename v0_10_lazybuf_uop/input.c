/* input.c — decoding a LazyBuffer capture's `input` and `context` (capture
 * contract section 3): Buffers, LazyBuffers (bases and views), outs and the
 * memory planner's inputs. Every malformed place is bad input naming it. */
#include <string.h>
#include "pipeline.h"

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

static Op parse_op_cached(const Sched *s, const char *text) {
  static char last[64];
  static Op last_op = OP_NONE;
  static TgVersion last_v;
  if (last_op != OP_NONE && last_v == s->v && strcmp(last, text) == 0) return last_op;
  Op op = op_parse(text, s->v);
  if (op != OP_NONE && strlen(text) < sizeof last) strcpy(last, text), last_op = op, last_v = s->v;
  return op;
}

/* The member `key` (its value v, NULL when absent) when it is of `kind` */
static const JVal *field(const JVal *v, const char *key, JKind kind, const char *where) {
  if (!v || v->kind != kind) error_bad_input("%s: field \"%s\" missing or of the wrong type", where, key);
  return v;
}

static int64_t int_field(const JVal *v, const char *key, const char *where) { return field(v, key, J_INT, where)->u.i; }
static bool bool_field(const JVal *v, const char *key, const char *where) { return field(v, key, J_BOOL, where)->u.b; }

/* an int index into an array of n, or null (-1) when nullable */
static int64_t index_field(const JVal *v, const char *key, size_t n, bool nullable, const char *where) {
  if (nullable && v && v->kind == J_NULL) return -1;
  if (!v || v->kind != J_INT || v->u.i < 0 || (uint64_t)v->u.i >= n)
    error_bad_input("%s: \"%s\" is not an index below %zu", where, key, n);
  return v->u.i;
}

static const DType *dtype_field(const JVal *j, const char *key, const char *where) {
  const JVal *v = field(j, key, J_STR, where);
  const DType *d = parse_dtype_cached(v->u.s);
  if (!d) error_bad_input("%s: unknown dtype \"%s\"", where, v->u.s);
  return d;
}

/* value_from_json, its failure raised */
static const Value *value_field(Sched *s, const JVal *j, const char *where) {
  Status st;
  const Value *v = value_from_json(&s->codec, j, where, &st);
  if (!v) error_rethrow(&st);
  return v;
}

/* ---- context ---- */

static bool ctx_flag(Sched *s, const char *key) {
  int64_t v;
  if (!capture_ctx_int(s->cap, key, &v)) error_bad_input("context: \"%s\" missing or not a number", key);
  return v != 0;
}

static void decode_context(Sched *s) {
  const JVal *c = s->cap->context;
  if (!c || c->kind != J_OBJ) error_bad_input("context: not an object");
  s->fuse_arange = ctx_flag(s, "FUSE_ARANGE");
  s->fuse_conv_bw = ctx_flag(s, "FUSE_CONV_BW");
  s->no_memory_planner = ctx_flag(s, "NO_MEMORY_PLANNER");
  s->merge_view = !s->f->consts_in_break_sched || ctx_flag(s, "MERGE_VIEW"); /* read by const_with_shape */
  s->nlimits = 0; /* runs again when the text decoder falls back to the tree */
  s->limit_device = arena_array(s->a, c->n + 1, sizeof(char *));
  s->limit_value = arena_array(s->a, c->n + 1, sizeof(int64_t));
  for (size_t i = 0; i < c->n; i++) {
    const JMember *m = &c->u.obj[i];
    if (strncmp(m->key, "BUF_LIMIT:", 10) != 0) continue;
    if (m->val->kind != J_INT) error_bad_input("context: \"%s\" is not an int", m->key);
    s->limit_device[s->nlimits] = m->key + 10;
    s->limit_value[s->nlimits++] = m->val->u.i;
  }
}

/* ---- the input's tables, entry by entry (json_fields.h, capture.h) ---- */

/* Reading the input from its text: the cursor, and the distinct `st` texts decoded once each */
typedef struct TextInput { JCursor *cur; JTexts texts; } TextInput;

/* ---- buffers ---- */

/* The input's tree is freed once decoded: what the scheduler keeps of it is
 * copied into s->a (devices through `devices`, options). */
static void decode_buffer(Sched *s, const JTable *t, size_t i, InBuf *b, JStrKeep *devices) {
  char where[64];
  place(where, sizeof where, "input.buffers", i);
  JFields room;
  const JFields *f = json_table_row(t, i, &room);
  if (!f) error_bad_input("%s: not an object", where);
  const JVal *const *m = f->m, *dev = field(m[CAPTURE_BUF_DEVICE], "device", J_STR, where), *opt = m[CAPTURE_BUF_OPTIONS];
  b->dtype = dtype_field(m[CAPTURE_BUF_DTYPE], "dtype", where);
  b->device = json_keep_str(s->a, devices, dev->u.s, dev->n);
  char why[64];
  if (capture_size_problem(m[CAPTURE_BUF_SIZE], "size", CAPTURE_MAX_BUFFER_SIZE, why, sizeof why) ||
      capture_size_problem(m[CAPTURE_BUF_OFFSET], "offset", CAPTURE_MAX_BUFFER_OFFSET, why, sizeof why))
    error_bad_input("%s: %s", where, why);
  b->size = int_field(m[CAPTURE_BUF_SIZE], "size", where);
  b->allocated = bool_field(m[CAPTURE_BUF_ALLOCATED], "allocated", where);
  b->base = index_field(m[CAPTURE_BUF_BASE], "base", t->n, true, where);
  b->offset = int_field(m[CAPTURE_BUF_OFFSET], "offset", where);
  b->lb_refcount = int_field(m[CAPTURE_BUF_LB_REFCOUNT], "lb_refcount", where);
  if (b->dtype->is_ptr && !b->dtype->is_image) error_bad_input("%s: a Buffer dtype cannot be a pointer", where);
  if (!opt || (opt->kind != J_NULL && opt->kind != J_OBJ)) error_bad_input("%s: bad \"options\"", where);
  b->options = opt->kind == J_NULL ? NULL : json_copy(s->a, opt);
  b->dtype0 = b->dtype;
  b->options0 = b->options;
}

static void decode_buffers(Sched *s, const JTable *t) {
  s->nbufs = t->n;
  s->bufs = arena_array(s->a, t->n + 1, sizeof(InBuf));
  JStrKeep devices = {0};
  for (size_t i = 0; i < t->n; i++) decode_buffer(s, t, i, &s->bufs[i], &devices);
  for (size_t i = 0; i < t->n; i++) {
    int64_t base = s->bufs[i].base;
    if (base >= 0 && s->bufs[base].base >= 0) error_bad_input("input.buffers[%zu]: base can't have a base", i);
    if (base >= 0 && strcmp(s->bufs[base].device, s->bufs[i].device) != 0)
      error_bad_input("input.buffers[%zu]: base must have the same device", i);
  }
}

/* ---- lazybuffers ---- */

static void decode_metadata(Sched *s, const JFields *f, InLB *lb, const char *where) {
  const JVal *m = f->m[CAPTURE_LB_METADATA], *caller = f->m[CAPTURE_LB_METADATA_CALLER];
  if (!m || m->kind == J_NULL) return;
  if (m->kind != J_STR || (caller && caller->kind != J_STR)) error_bad_input("%s: bad metadata", where);
  const Value *items[2] = {v_strn(s->in, V_STR, m->u.s, m->n),
                           caller ? v_strn(s->in, V_STR, caller->u.s, caller->n) : v_str(s->in, "")};
  lb->metadata = v_tuple(s->in, 2, items);
}

static void decode_srcs(Sched *s, const JVal *srcs, size_t i, InLB *lb, const char *where) {
  if (!srcs || (srcs->kind != J_NULL && srcs->kind != J_ARR)) error_bad_input("%s: bad \"srcs\"", where);
  lb->has_srcs = srcs->kind == J_ARR;
  if (!lb->has_srcs) return;
  int64_t *idx = arena_array(s->a, srcs->n + 1, sizeof *idx);
  for (size_t k = 0; k < srcs->n; k++) {
    const JVal *x = srcs->u.arr[k];
    if (x->kind != J_INT || x->u.i < 0 || (uint64_t)x->u.i >= i)
      error_bad_input("%s: srcs[%zu] is not an index below %zu (post-order)", where, k, i);
    idx[k] = x->u.i;
  }
  lb->srcs = idx;
  lb->nsrcs = srcs->n;
}

/* a CONST's arg {"sym": {"var": name, "min": int, "max": int, "val": int}}: a bound Variable */
static void decode_bound_var(Sched *s, const JVal *e, InLB *lb, const char *where) {
  const JVal *name = json_get(e, "var"), *mn = json_get(e, "min"), *mx = json_get(e, "max"), *val = json_get(e, "val");
  if (!name || name->kind != J_STR || !mn || mn->kind != J_INT || !mx || mx->kind != J_INT)
    error_unsupported("%s: CONST of a symbolic expression", where);
  if (!val || val->kind != J_INT) error_unsupported("%s: CONST of an unbound Variable", where);
  lb->var = v0_10_variable(s, name->u.s, name->n, mn->u.i, mx->u.i);
  lb->var_val = val->u.i;
}

const UOp *v0_10_variable(Sched *s, const char *name, size_t len, int64_t lo, int64_t hi) {
  const Value *arg[3] = {v_strn(s->in, V_STR, name, len), v_int(s->in, lo), v_int(s->in, hi)};
  return uop0(s->in, OP_DEFINE_VAR, dt_int, v_tuple(s->in, 3, arg));
}

/* the ops engine/lazy.py gives a base LazyBuffer: metaops, CONST, the ALU ops, CAST, BITCAST, REDUCE_AXIS */
static bool lazybuffer_op(const Sched *s, Op op) {
  return op_in(&s->groups, GROUP_META, op) || op_in(&s->groups, GROUP_ALU, op) || op == OP_CONST || op == OP_ASSIGN ||
         op == OP_CONTIGUOUS || op == OP_CAST || op == OP_BITCAST || op == OP_REDUCE_AXIS;
}

/* how many srcs a LazyBuffer of this op has: EMPTY and CONST none, the
 * binary ALU ops and ASSIGN two, WHERE and MULACC three, the rest one */
static int lazybuffer_arity(const Sched *s, Op op) {
  switch (op) {
    case OP_EMPTY: case OP_CONST: return 0;
    case OP_WHERE: case OP_MULACC: return 3;
    case OP_ASSIGN: return 2;
    case OP_EXP2: case OP_LOG2: case OP_SIN: case OP_SQRT: case OP_RECIP: case OP_NEG: return 1;
    default: /* binary ALU ops; CAST, BITCAST, REDUCE_AXIS, COPY, BUFFER_VIEW, CONTIGUOUS */
      return op_in(&s->groups, GROUP_ALU, op) ? 2 : 1;
  }
}

/* LazyBuffer.assign's arg: () if self.st.contiguous else (self.st,) */
static bool assign_arg_valid(const Value *arg) {
  return arg->kind == V_TUPLE && (arg->u.tuple.n == 0 || (arg->u.tuple.n == 1 && arg->u.tuple.items[0]->kind == V_ST));
}

static void decode_base_lb(Sched *s, const JFields *f, size_t i, InLB *lb, const char *where) {
  const JVal *const *m = f->m, *op = field(m[CAPTURE_LB_OP], "op", J_STR, where), *arg = m[CAPTURE_LB_ARG];
  if ((lb->op = parse_op_cached(s, op->u.s)) == OP_NONE) error_bad_input("%s: unknown op \"%s\"", where, op->u.s);
  if (!lazybuffer_op(s, lb->op))
    error_unsupported("%s: a LazyBuffer of op %s (not one engine/lazy.py makes)", where, op->u.s);
  if (!arg) error_bad_input("%s: missing \"arg\"", where);
  lb->arg = value_field(s, arg, where);
  decode_srcs(s, m[CAPTURE_LB_SRCS], i, lb, where);
  lb->buffer = index_field(m[CAPTURE_LB_BUFFER], "buffer", s->nbufs, false, where);
  lb->realized = bool_field(m[CAPTURE_LB_REALIZED], "realized", where);
  lb->forced_realize = bool_field(m[CAPTURE_LB_FORCED_REALIZE], "forced_realize", where);
  if (lb->op == OP_CONST && lb->arg->kind == V_SYM) decode_bound_var(s, json_get(arg, "sym"), lb, where);
  if (lb->op == OP_REDUCE_AXIS && !v0_10_axis_arg_valid(lb->arg)) error_bad_input("%s: bad REDUCE_AXIS arg", where);
  if (lb->op == OP_ASSIGN && !assign_arg_valid(lb->arg)) error_bad_input("%s: ASSIGN arg must be [] or [ST]", where);
  if (!lb->realized && !lb->has_srcs && lb->op != OP_CONST) error_bad_input("%s: an unrealized LazyBuffer without srcs", where);
  if (lb->has_srcs && lb->nsrcs != (size_t)lazybuffer_arity(s, lb->op))
    error_bad_input("%s: %zu srcs where %s takes %d", where, lb->nsrcs, op->u.s, lazybuffer_arity(s, lb->op));
  decode_metadata(s, f, lb, where);
}

/* The Value of distinct `st` text k, decoded the first time (a text that
 * is not JSON raises: the tree says why) */
static const Value *st_of_text(Sched *s, TextInput *t, size_t k, const char *where) {
  JText *x = &t->texts.texts[k - 1];
  if (!x->decoded) {
    const JVal *j = json_text_value(t->cur, &t->texts, k);
    if (!j) error_bad_input("%s: \"st\" is not JSON", where);
    x->decoded = value_field(s, j, where);
  }
  return x->decoded;
}

static void decode_lb(Sched *s, const JTable *t, TextInput *text, size_t i, InLB *lb, JStrKeep *devices) {
  char where[64];
  place(where, sizeof where, "input.lazybuffers", i);
  JFields room;
  const JFields *f = json_table_row(t, i, &room);
  if (!f) error_bad_input("%s: not an object", where);
  const JVal *const *m = f->m, *dev = field(m[CAPTURE_LB_DEVICE], "device", J_STR, where), *jst = m[CAPTURE_LB_ST];
  lb->dtype = dtype_field(m[CAPTURE_LB_DTYPE], "dtype", where);
  lb->device = json_keep_str(s->a, devices, dev->u.s, dev->n);
  lb->dtype0 = lb->dtype;
  if (!jst && !f->text) error_bad_input("%s: missing \"st\"", where);
  lb->st = f->text ? st_of_text(s, text, f->text, where) : value_field(s, jst, where);
  if (lb->st->kind != V_ST) error_bad_input("%s: \"st\" is not a ShapeTracker", where);
  if (!m[CAPTURE_LB_BASE]) {
    lb->base = -1;
    decode_base_lb(s, f, i, lb, where);
    return;
  }
  lb->base = index_field(m[CAPTURE_LB_BASE], "base", i, false, where);
  if (s->lbs[lb->base].base >= 0) error_bad_input("%s: base must be a base itself", where);
}

static void decode_lbs(Sched *s, const JTable *t, TextInput *text) {
  s->nlbs = t->n;
  s->lbs = arena_array(s->a, t->n + 1, sizeof(InLB));
  JStrKeep devices = {0};
  for (size_t i = 0; i < t->n; i++) decode_lb(s, t, text, i, &s->lbs[i], &devices);
}

static void decode_outs(Sched *s, const JVal *arr) {
  int64_t *outs = arena_array(s->a, arr->n + 1, sizeof *outs);
  for (size_t k = 0; k < arr->n; k++) {
    const JVal *x = arr->u.arr[k];
    if (x->kind != J_INT || x->u.i < 0 || (uint64_t)x->u.i >= s->nlbs) error_bad_input("input.outs[%zu] is not a lazybuffer index", k);
    outs[k] = x->u.i;
  }
  s->outs = outs;
  s->nouts = arr->n;
}

/* input.set_orders.parents_assigns: [[key lb, [lb, ...]], ...] (0.10.0+2ca41d6; absent for 0.10.0) */
static void decode_set_orders(Sched *s, const JVal *in) {
  const JVal *so = json_get(in, "set_orders"), *pa;
  if (!so) return;
  if (so->kind != J_OBJ || !(pa = json_get(so, "parents_assigns")) || pa->kind != J_ARR)
    error_bad_input("input.set_orders: must be an object with a list \"parents_assigns\"");
  s->pa_orders = arena_array(s->a, pa->n + 1, sizeof *s->pa_orders);
  s->npa_orders = 0;
  for (size_t i = 0; i < pa->n; i++) {
    const JVal *e = pa->u.arr[i];
    if (e->kind != J_ARR || e->n != 2 || e->u.arr[1]->kind != J_ARR)
      error_bad_input("input.set_orders.parents_assigns[%zu]: must be [lazybuffer index, [lazybuffer index, ...]]", i);
    SetOrder *o = &s->pa_orders[s->npa_orders++];
    const JVal *m = e->u.arr[1];
    int64_t *members = arena_array(s->a, m->n + 1, sizeof *members);
    o->key = e->u.arr[0]->kind == J_INT ? e->u.arr[0]->u.i : -1;
    for (size_t k = 0; k < m->n; k++) members[k] = m->u.arr[k]->kind == J_INT ? m->u.arr[k]->u.i : -1;
    if (o->key < 0 || (uint64_t)o->key >= s->nlbs) error_bad_input("input.set_orders.parents_assigns[%zu]: not a lazybuffer index", i);
    for (size_t k = 0; k < m->n; k++)
      if (members[k] < 0 || (uint64_t)members[k] >= s->nlbs) error_bad_input("input.set_orders.parents_assigns[%zu][1][%zu]: not a lazybuffer index", i, k);
    o->members = members, o->n = m->n;
  }
}

/* The input's tables t (from its tree or its text), then its other members
 * `in` (its tree, or the other members read from its text); freed once
 * decoded: what the planner reads later is copied. */
static void decode_input_tables(Sched *s, JTable t[2], TextInput *text, const JVal *in) {
  decode_buffers(s, &t[0]);
  if (!text) {
    t[1].tree = field(json_get(in, "lazybuffers"), "lazybuffers", J_ARR, "input");
    t[1].n = t[1].tree->n;
  }
  interner_reserve(s->in, 10 * t[1].n, 3 * t[1].n); /* a schedule makes ~9-11 UOps and ~2-3 Values per LazyBuffer */
  decode_lbs(s, &t[1], text);
  decode_outs(s, field(json_get(in, "outs"), "outs", J_ARR, "input"));
  decode_set_orders(s, in);
  const JVal *mp = json_get(in, "memory_planner_bufs");
  if (!mp || (mp->kind != J_NULL && mp->kind != J_ARR)) error_bad_input("input.memory_planner_bufs: missing or not a list");
  s->mp_bufs = mp->kind == J_ARR ? json_copy(s->a, mp) : NULL;
  s->mp_offset = json_copy(s->a, json_get(in, "memory_planner_allocator_offset"));
  if (s->mp_offset && s->mp_offset->kind != J_OBJ) error_bad_input("input.memory_planner_allocator_offset: not an object");
}

static void decode_input_tree(Sched *s, const JVal *in) {
  if (!in || in->kind != J_OBJ) error_bad_input("input: not an object");
  decode_context(s);
  JTable t[2];
  capture_lazybuffer_tables(t);
  t[0].tree = field(json_get(in, "buffers"), "buffers", J_ARR, "input");
  t[0].n = t[0].tree->n;
  decode_input_tables(s, t, NULL, in);
}

/* The input straight from its text, without its tree; false (nothing
 * raised) when the tree must decide: the text is not JSON or not as the
 * recorder writes it (json_fields.h). */
static bool decode_input_text(Sched *s, Arena *scratch, TextInput *text) {
  decode_context(s);
  JTable t[2];
  capture_lazybuffer_tables(t);
  JVal *rest;
  if (!json_tables_of_text(text->cur, scratch, &text->texts, t, 2, &rest)) return false;
  decode_input_tables(s, t, text, rest);
  return true;
}

/* The decoding as protected calls (error.h): a raise must not skip freeing the input's arena */
typedef struct DecodeCall { Sched *s; Arena *tree; TextInput text; bool ok; } DecodeCall;

static void text_protected(void *ud) {
  DecodeCall *d = ud;
  d->ok = decode_input_text(d->s, d->tree, &d->text);
}

static void tree_protected(void *ud) {
  DecodeCall *d = ud;
  Status st;
  const JVal *in = capture_input(d->s->cap, d->tree, &st);
  if (!in) error_rethrow(&st);
  decode_input_tree(d->s, in);
  d->ok = true;
}

void v0_10_decode_input(Sched *s) {
  Arena tree;   /* the input's text or tree is read in it: freed before a raise goes on */
  arena_init(&tree);
  Status st;
  DecodeCall d = {s, &tree, {NULL, {0}}, false};
  bool returned = true;
  if (s->cap->input->kind == J_RAW) { /* straight from the text; the tree judges what that does not read */
    JCursor cur;
    json_cursor_begin(&cur, &tree, s->cap->input);
    d.text.cur = &cur;
    if (!error_protect(&st, text_protected, &d)) d.ok = false;
  }
  if (!d.ok) returned = error_protect(&st, tree_protected, &d);
  arena_free(&tree);
  arena_prefer_pool(s->a); /* the scheduler goes on in the tree's memory */
  if (!returned) error_rethrow(&st);
}
