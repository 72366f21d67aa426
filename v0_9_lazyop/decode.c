/* decode.c — a 0.9.1 capture's `input` (capture-format section 3) as
 * DeviceBuffer and LazyBuffer structs, with the checks that keep the
 * scheduler away from malformed graphs: every index in range, sources and
 * bases earlier in post-order, sizes that fit, ops a LazyBuffer can have. */
#include <string.h>
#include "error.h"
#include "pipeline.h"
#include "shapetracker.h"
#include "symbolic.h"

enum { MAX_ITEMS = 1 << 26 };                 /* more entries than this is not a real capture */

/* The last few names parsed and what they meant: dtype and op spellings
 * repeat on almost every entry. */
typedef struct NameCache { const char *name[4]; const void *val[4]; int next; } NameCache;

static const void *cache_find(const NameCache *nc, const char *name) {
  for (int i = 0; i < 4; i++)
    if (nc->name[i] && strcmp(nc->name[i], name) == 0) return nc->val[i];
  return NULL;
}
static void cache_add(NameCache *nc, const char *name, const void *val) {
  nc->name[nc->next] = name;
  nc->val[nc->next] = val;
  nc->next = (nc->next + 1) % 4;
}

typedef struct Dec {
  Sched *s;
  const Capture *c;
  NameCache dtypes, ops;
  JCursor *cur;        /* reading the input from its text (NULL: from its tree) */
  Arena *scratch;      /* the input's: freed once it is decoded */
  JTexts st_texts;     /* the lazybuffers' distinct `st` texts, decoded once each */
} Dec;

/* dtype_from_json, its error raised */
static const DType *dtype_of(const JVal *j, const char *place) {
  Status st;
  const DType *dt = dtype_from_json(j, place, &st);
  if (!dt) error_rethrow(&st);
  return dt;
}

static const DType *decode_dtype(Dec *d, const JVal *j, const char *place) {
  if (j->kind != J_STR) return dtype_of(j, place);   /* raises */
  const DType *dt = cache_find(&d->dtypes, j->u.s);
  if (dt) return dt;
  dt = dtype_of(j, place);
  cache_add(&d->dtypes, j->u.s, dt);
  return dt;
}

static Op decode_op(Dec *d, const JVal *j) {
  const Op *op = cache_find(&d->ops, j->u.s);
  if (op) return *op;
  Op *parsed = arena_alloc(d->s->a, sizeof *parsed);
  *parsed = op_parse(j->u.s, d->s->v);
  cache_add(&d->ops, j->u.s, parsed);
  return *parsed;
}

/* "table[i]" into buf (64 bytes), without printf: this runs once per entry. */
static const char *entry_place(char *buf, const char *table, int i) {
  size_t n = strlen(table);
  memcpy(buf, table, n);
  buf[n++] = '[';
  char digits[12];
  int k = 0;
  do digits[k++] = (char)('0' + i % 10); while ((i /= 10) > 0);
  while (k) buf[n++] = digits[--k];
  buf[n++] = ']';
  buf[n] = 0;
  return buf;
}

static _Noreturn void bad(Dec *d, const char *place, const char *what) {
  error_bad_input("%s: input.%s: %s", d->c->name, place, what);
}

/* The member `key` of an entry (v, NULL when absent) when it is of `kind` */
static const JVal *field(Dec *d, const JVal *v, const char *key, JKind kind, const char *place) {
  if (!v || v->kind != kind) {
    char what[128];
    snprintf(what, sizeof what, "field \"%s\" missing or of the wrong type", key);
    bad(d, place, what);
  }
  return v;
}

/* An index into a table of n entries that must also be below `below` (post-order). */
static int index_of(Dec *d, const JVal *v, int n, int below, const char *place) {
  if (!v || v->kind != J_INT || v->u.i < 0 || v->u.i >= n) bad(d, place, "dangling index");
  if (v->u.i >= below) bad(d, place, "index is not earlier in post-order");
  return (int)v->u.i;
}

static const char *intern_device(Dec *d, const JVal *v) { return v_strn(d->s->in, V_STR, v->u.s, v->n)->u.str.s; }

static int array_len(Dec *d, const JVal *v, const char *place) {
  if (!v || v->kind != J_ARR) bad(d, place, "must be an array");
  if (v->n > MAX_ITEMS) bad(d, place, "absurdly many entries");
  return (int)v->n;
}

/* ---- input.buffers ---- */

static void decode_buffer(Dec *d, const JFields *e, int i, DeviceBuffer *all) {
  char place[64];
  entry_place(place, "buffers", i);
  DeviceBuffer *b = &all[i];
  b->index = i;
  const JVal *const *m = e->m, *dev, *size, *dt, *alloc, *off, *refc;
  char why[64];
  if (capture_size_problem(m[CAPTURE_BUF_SIZE], "size", CAPTURE_MAX_BUFFER_SIZE, why, sizeof why) ||
      capture_size_problem(m[CAPTURE_BUF_OFFSET], "offset", CAPTURE_MAX_BUFFER_OFFSET, why, sizeof why))
    bad(d, place, why);
  dev = field(d, m[CAPTURE_BUF_DEVICE], "device", J_STR, place);
  size = field(d, m[CAPTURE_BUF_SIZE], "size", J_INT, place);
  dt = field(d, m[CAPTURE_BUF_DTYPE], "dtype", J_STR, place);
  alloc = field(d, m[CAPTURE_BUF_ALLOCATED], "allocated", J_BOOL, place);
  off = field(d, m[CAPTURE_BUF_OFFSET], "offset", J_INT, place);
  refc = field(d, m[CAPTURE_BUF_LB_REFCOUNT], "lb_refcount", J_INT, place);
  b->dtype = b->orig_dtype = decode_dtype(d, dt, place);
  b->device = intern_device(d, dev);
  b->size = size->u.i;
  b->offset = off->u.i;
  b->allocated = alloc->u.b;
  b->lb_refcount = refc->u.i;
  const JVal *base = m[CAPTURE_BUF_BASE], *opts = m[CAPTURE_BUF_OPTIONS];
  if (base && base->kind != J_NULL) {
    int bi = index_of(d, base, i + 1, i, place);
    if (all[bi].base) bad(d, place, "the base of a view buffer is itself a view");
    b->base = &all[bi];
  }
  if (opts && opts->kind != J_NULL && opts->kind != J_OBJ) bad(d, place, "options must be null or an object");
  b->options =
      opts && opts->kind == J_OBJ ? json_copy(d->s->a, opts) : NULL; /* the input's tree is freed after decoding */
}

/* ---- input.lazybuffers ---- */


/* Ops a LazyBuffer base can carry: LoadOps, UnaryOps, BinaryOps, TernaryOps, ReduceOps. */
static bool is_lazybuffer_op(Op op) {
  switch (op) {
    case OP_EXP2: case OP_LOG2: case OP_CAST: case OP_BITCAST: case OP_SIN: case OP_SQRT: case OP_NEG: case OP_RECIP:
    case OP_ADD: case OP_MUL: case OP_IDIV: case OP_MAX: case OP_MOD: case OP_CMPLT: case OP_CMPNE: case OP_XOR:
    case OP_SHR: case OP_SHL: case OP_WHERE: case OP_MULACC:
    case OP_OR: case OP_AND: case OP_THREEFRY:   /* 0.9.2 */
    case OP_SUB:                                 /* 0.9.2+197f8fd */
      return true;
    default:
      return v0_9_is_loadop(op) || v0_9_is_reduceop(op);
  }
}

/* How many srcs a LazyBuffer of this op has (lazy.py / ops.py: UnaryOps 1,
 * BinaryOps 2, TernaryOps 3, ReduceOps 1, ASSIGN 2, COPY, CONTIGUOUS and
 * VIEW 1, EMPTY and CONST none); -1: any (CUSTOM). */
static int lazybuffer_arity(Op op) {
  switch (op) {
    case OP_ADD: case OP_MUL: case OP_IDIV: case OP_MAX: case OP_MOD: case OP_CMPLT: case OP_CMPNE: case OP_XOR:
    case OP_SHR: case OP_SHL: case OP_ASSIGN: case OP_OR: case OP_AND: case OP_THREEFRY: case OP_SUB:
      return 2;
    case OP_WHERE: case OP_MULACC: return 3;
    case OP_EMPTY: case OP_LOADOPS_CONST: return 0;
    case OP_CUSTOM: return -1;
    default: return 1; /* the unary ops, CAST, BITCAST, the reduces, COPY, CONTIGUOUS, VIEW */
  }
}

static const Value *decode_arg(Dec *d, const JVal *j, Op op, const char *place) {
  bool dtype_arg = op == OP_CAST || op == OP_BITCAST || (op == OP_VIEW && j->kind == J_STR);
  if (dtype_arg) return v_dtype(d->s->in, decode_dtype(d, j, place));
  Status st;
  const Value *arg = value_from_json(&d->s->codec, j, place, &st);
  if (!arg) error_rethrow(&st);
  if (op == OP_LOADOPS_CONST && arg->kind == V_SYM) return arg;   /* a Variable: decode_const_var */
  if (op == OP_LOADOPS_CONST && !value_is_number(arg)) bad(d, place, "a CONST arg must be an int, float or bool");
  if (op == OP_ASSIGN && arg->kind != V_TUPLE) bad(d, place, "an ASSIGN arg must be [] or [ST]");
  if (op == OP_ASSIGN && arg->u.tuple.n && arg->u.tuple.items[0]->kind != V_ST)
    bad(d, place, "an ASSIGN arg must be [] or [ST]");
  return arg;
}

/* LoadOps.CONST with a Variable arg (lazy.py keeps it as is): the Variable itself */
static void decode_const_var(Dec *d, const JVal *j, LazyBuffer *lb, const char *place) {
  lb->arg_var = sint_from_json(d->s->a, j);
  const SymNode *v = lb->arg_var.sym;
  if (v->kind != SN_VAR) error_unsupported("symbolic: %s: a CONST of a symbolic value that is not a Variable", place);
}

static void decode_srcs(Dec *d, const JVal *j, LazyBuffer *lb, LazyBuffer *all, const char *place) {
  if (j->kind == J_NULL) return;
  int n = array_len(d, j, place);
  lb->srcs = arena_array(d->s->a, n ? (size_t)n : 1, sizeof *lb->srcs);
  lb->nsrcs = n;
  for (int k = 0; k < n; k++) {
    int si = index_of(d, j->u.arr[k], d->s->inp->nlbs, lb->index, place);
    lb->srcs[k] = &all[si];
    LazyBuffer *parent = all[si].base;   /* decoded already: sources come earlier */
    bool again = false;
    for (int i = 0; i < k && !again; i++) again = lb->srcs[i]->base == parent;
    if (!again) parent->nreaders++;
  }
}

static void decode_base(Dec *d, const JFields *e, LazyBuffer *lb, LazyBuffer *all, const char *place) {
  const JVal *const *m = e->m, *op, *srcs, *buf, *real, *forced;
  op = field(d, m[CAPTURE_LB_OP], "op", J_STR, place);
  buf = field(d, m[CAPTURE_LB_BUFFER], "buffer", J_INT, place);
  real = field(d, m[CAPTURE_LB_REALIZED], "realized", J_BOOL, place);
  forced = field(d, m[CAPTURE_LB_FORCED_REALIZE], "forced_realize", J_BOOL, place);
  lb->op = decode_op(d, op);
  if (!is_lazybuffer_op(lb->op)) bad(d, place, "op is not a LazyBuffer op of this version");
  const JVal *arg = m[CAPTURE_LB_ARG];
  if (!arg) bad(d, place, "field \"arg\" missing");
  lb->arg = decode_arg(d, arg, lb->op, place);
  if (lb->arg->kind == V_SYM) decode_const_var(d, arg, lb, place);
  if (!(srcs = m[CAPTURE_LB_SRCS])) bad(d, place, "field \"srcs\" missing");
  decode_srcs(d, srcs, lb, all, place);
  lb->buffer = &d->s->inp->buffers[index_of(d, buf, d->s->inp->nbuffers, d->s->inp->nbuffers, place)];
  lb->realized = real->u.b;
  lb->forced_realize = forced->u.b;
  const JVal *meta = m[CAPTURE_LB_METADATA], *caller = m[CAPTURE_LB_METADATA_CALLER];
  if (meta && meta->kind == J_STR) lb->metadata = v_strn(d->s->in, V_STR, meta->u.s, meta->n)->u.str.s;
  if (meta && meta->kind != J_STR && meta->kind != J_NULL) bad(d, place, "\"metadata\" must be a string or null");
  if (caller && caller->kind == J_STR) lb->metadata_caller = v_strn(d->s->in, V_STR, caller->u.s, caller->n)->u.str.s;
  /* realized is `not hasattr(self, 'srcs')`: the two fields must agree */
  if (lb->realized != (lb->srcs == NULL)) bad(d, place, "\"realized\" disagrees with \"srcs\"");
  int want = lazybuffer_arity(lb->op);
  if (lb->srcs && want >= 0 && lb->nsrcs != want)
    bad(d, place, want == 1 ? "this op needs one source" : "this op needs another number of sources");
}

/* The interned ShapeTracker of the tree stj */
static const StHandle *decode_st(Dec *d, const JVal *stj) {
  Status st;
  const ShapeTracker *raw = d->s->codec.st_decode(&d->s->codec, stj, &st);
  if (!raw) error_rethrow(&st);
  return v0_9_st_intern(d->s, raw);
}

/* The text is not JSON or not as the recorder writes it: the tree decides (v0_9_decode_input) */
static _Noreturn void text_unreadable(Dec *d) { error_bad_input("%s: input: not read from its text", d->c->name); }

/* The interned ShapeTracker of a distinct `st` text, parsed and decoded the first time */
static const StHandle *decode_st_text(Dec *d, size_t k) {
  JText *x = &d->st_texts.texts[k - 1];
  if (!x->decoded) {
    const JVal *stj = json_text_value(d->cur, &d->st_texts, k);
    if (!stj) text_unreadable(d);
    x->decoded = decode_st(d, stj);
  }
  return x->decoded;
}

static void decode_lazybuffer(Dec *d, const JFields *e, int i, LazyBuffer *all) {
  char place[64];
  entry_place(place, "lazybuffers", i);
  LazyBuffer *lb = &all[i];
  lb->index = i;
  const JVal *const *m = e->m, *dev, *dt, *stj = NULL;
  dev = field(d, m[CAPTURE_LB_DEVICE], "device", J_STR, place);
  dt = field(d, m[CAPTURE_LB_DTYPE], "dtype", J_STR, place);
  if (!e->text) stj = field(d, m[CAPTURE_LB_ST], "st", J_OBJ, place);
  lb->device = intern_device(d, dev);
  lb->dtype = lb->orig_dtype = decode_dtype(d, dt, place);
  lb->st = e->text ? decode_st_text(d, e->text) : decode_st(d, stj);
  if (lb->st->size < 0) bad(d, place, "absurd size");
  const JVal *base = m[CAPTURE_LB_BASE];
  if (base && base->kind != J_NULL) {
    int bi = index_of(d, base, d->s->inp->nlbs, i, place);
    if (all[bi].base != &all[bi]) bad(d, place, "the base of a view is itself a view");
    lb->base = &all[bi];
    return;
  }
  lb->base = lb;  /* a base is its buffer: bounded as Buffers are (a view may expand far past it) */
  if (lb->st->size > CAPTURE_MAX_BUFFER_SIZE) bad(d, place, "absurd size");
  decode_base(d, e, lb, all, place);
}

/* ---- outs, seen, set_orders, memory_planner_bufs ---- */

static void decode_lb_list(Dec *d, const JVal *j, const char *place, LazyBuffer ***out, int *n) {
  *n = array_len(d, j, place);
  Input *inp = d->s->inp;
  *out = arena_array(d->s->a, *n ? (size_t)*n : 1, sizeof **out);
  for (int k = 0; k < *n; k++) (*out)[k] = &inp->lbs[index_of(d, j->u.arr[k], inp->nlbs, inp->nlbs, place)];
}

static void decode_set_orders(Dec *d, const JVal *j) {
  Input *inp = d->s->inp;
  omap_init(&inp->parents_assigns_order, d->s->a);
  if (d->s->f->simple_pads_dict) return;   /* 0.9.2 iterates only dicts: no set_orders */
  if (!j || j->kind != J_OBJ) bad(d, "set_orders", "missing or not an object");
  const JVal *sp = json_get(j, "simple_pads"), *pa = json_get(j, "parents_assigns");
  if (sp) decode_lb_list(d, sp, "set_orders.simple_pads", &inp->simple_pads_order, &inp->nsimple_pads_order);
  if (!pa) return;
  int n = array_len(d, pa, "set_orders.parents_assigns");
  for (int k = 0; k < n; k++) {
    const JVal *e = pa->u.arr[k];
    if (e->kind != J_ARR || e->n != 2) bad(d, "set_orders.parents_assigns", "entries must be [lb, [lb...]]");
    int nm = 0;
    LazyBuffer **members;
    int key = index_of(d, e->u.arr[0], inp->nlbs, inp->nlbs, "set_orders.parents_assigns");
    decode_lb_list(d, e->u.arr[1], "set_orders.parents_assigns", &members, &nm);
    LbList *l = arena_alloc(d->s->a, sizeof *l);
    for (int m = 0; m < nm; m++) v0_9_lblist_push(d->s->a, l, members[m]);
    omap_put(&inp->parents_assigns_order, omap_ptr(&inp->lbs[key]), l);
  }
}

static void decode_planner_bufs(Dec *d, const JVal *j) {
  Input *inp = d->s->inp;
  if (!j) bad(d, "memory_planner_bufs", "missing (null when the planner did not run)");
  inp->planner_ran = j->kind != J_NULL;
  if (!inp->planner_ran) return;
  int n = array_len(d, j, "memory_planner_bufs");
  for (int k = 0; k < n; k++) {
    const JVal *e = j->u.arr[k];
    if (e->kind != J_ARR || e->n != 3 || e->u.arr[1]->kind != J_BOOL || e->u.arr[2]->kind != J_INT)
      bad(d, "memory_planner_bufs", "entries must be [BUFREF, allocated, lb_refcount]");
    if (e->u.arr[0]->kind == J_STR)
      error_unsupported("memory_planner_bufs names a buffer the scheduler created (%s)", e->u.arr[0]->u.s);
    int bi = index_of(d, e->u.arr[0], inp->nbuffers, inp->nbuffers, "memory_planner_bufs");
    PlannerBufState *ps = arena_alloc(d->s->a, sizeof *ps);
    ps->allocated = e->u.arr[1]->u.b;
    ps->lb_refcount = e->u.arr[2]->u.i;
    inp->buffers[bi].planner = ps;
  }
}

/* Three context flags, as the capture recorded them (never defaults) */
static void read_flags(Dec *d, const char *const keys[3], bool out[3]) {
  for (int k = 0; k < 3; k++) {
    int64_t v;
    if (!capture_ctx_int(d->c, keys[k], &v))
      error_bad_input("%s: context.%s missing or not a number", d->c->name, keys[k]);
    out[k] = v != 0;
  }
}

/* The context flags the scheduler reads: 0.9.1's three; 0.9.2 adds FUSE_ARANGE,
 * FUSE_CONV_BW and MERGE_VIEW (ShapeTracker.reshape reads it). */
static void decode_context(Dec *d) {
  static const char *const keys[3] = {"MULTIOUTPUT", "USE_COPY_KERNEL", "NO_MEMORY_PLANNER"};
  static const char *const keys092[3] = {"FUSE_ARANGE", "FUSE_CONV_BW", "MERGE_VIEW"};
  bool v[3], w[3] = {false, false, true};
  read_flags(d, keys, v);
  if (d->s->f->fuse_arange_conv_bw) read_flags(d, keys092, w);
  Input *inp = d->s->inp;
  inp->multioutput = v[0], inp->use_copy_kernel = v[1], inp->no_memory_planner = v[2];
  inp->fuse_arange = w[0], inp->fuse_conv_bw = w[1], inp->merge_view = w[2];
  inp->ast_rewrite = true;
  int64_t ast_rewrite;   /* 197f8fd: full_ast_rewrite reads AST_REWRITE */
  if (d->s->f->reduceop_fusor) {
    if (!capture_ctx_int(d->c, "AST_REWRITE", &ast_rewrite))
      error_bad_input("%s: context.AST_REWRITE missing or not a number", d->c->name);
    inp->ast_rewrite = ast_rewrite != 0;
  }
}

/* 197f8fd: each Buffer's device's renderer.buf_max, context BUF_MAX:<device> (0: none; absent: none) */
static void decode_buf_max(Dec *d) {
  Input *inp = d->s->inp;
  for (int i = 0; i < inp->nbuffers && d->s->f->buf_max; i++) {
    char key[160];
    int64_t m = 0;
    snprintf(key, sizeof key, "BUF_MAX:%s", inp->buffers[i].device);
    if (capture_ctx_int(d->c, key, &m) && m > 0) inp->buffers[i].buf_max = m;
  }
}

/* _graph_schedule's children[base] gets each reader at most once
 * (graph_schedule.c add_child): every list gets its room up front, all in
 * one block in post-order, so none grows and the walks over children read
 * adjacent memory. */
static void reserve_children(Sched *s, Input *inp) {
  size_t total = 0;
  for (int i = 0; i < inp->nlbs; i++) total += (size_t)inp->lbs[i].nreaders;
  LazyBuffer **block = arena_array(s->a, total ? total : 1, sizeof *block);
  for (int i = 0; i < inp->nlbs; i++) {
    LazyBuffer *lb = &inp->lbs[i];
    if (!lb->nreaders) continue;
    lb->children.items = block;
    lb->children.cap = (size_t)lb->nreaders;
    block += lb->nreaders;
  }
}

/* Row i of table t (bad input when the tree's entry is no object) */
static const JFields *table_row(Dec *d, const JTable *t, size_t i, JFields *room) {
  const JFields *f = json_table_row(t, i, room);
  char place[64];
  if (!f) bad(d, entry_place(place, t->name, (int)i), "must be an object");
  return f;
}

/* The tables of the input: buffers and lazybuffers, then the members of
 * `in` (its tree, or the other members read from its text). */
static void decode_tables(Dec *d, const JTable t[2], const JVal *in) {
  Sched *s = d->s;
  Input *inp = s->inp;
  inp->nbuffers = (int)t[0].n, inp->nlbs = (int)t[1].n;
  inp->buffers = arena_array(s->a, inp->nbuffers ? (size_t)inp->nbuffers : 1, sizeof *inp->buffers);
  inp->lbs = arena_array(s->a, inp->nlbs ? (size_t)inp->nlbs : 1, sizeof *inp->lbs);
  /* a 0.9.1 schedule makes ~0.1-0.4 UOps and ~0.1 Values per LazyBuffer: size the tables once */
  interner_reserve(s->in, (size_t)inp->nlbs / 2, (size_t)inp->nlbs / 4);
  JFields room;
  for (int i = 0; i < inp->nbuffers; i++) {
    decode_buffer(d, table_row(d, &t[0], (size_t)i, &room), i, inp->buffers);
  }
  for (int i = 0; i < inp->nlbs; i++) {
    decode_lazybuffer(d, table_row(d, &t[1], (size_t)i, &room), i, inp->lbs);
  }
  reserve_children(s, inp);
  decode_lb_list(d, json_get(in, "outs"), "outs", &inp->outs, &inp->nouts);
  const JVal *seen = json_get(in, "seen");
  if (seen && seen->kind != J_NULL) decode_lb_list(d, seen, "seen", &inp->seen, &inp->nseen);
  const JVal *offs = json_get(in, "memory_planner_allocator_offset");
  if (offs && offs->kind == J_OBJ) inp->allocator_offset = json_copy(s->a, offs);
  decode_set_orders(d, json_get(in, "set_orders"));
  decode_planner_bufs(d, json_get(in, "memory_planner_bufs"));
}

/* The input from its tree */
static void decode_tree(Dec *d, const JVal *in) {
  JTable t[2];
  capture_lazybuffer_tables(t);
  t[0].tree = json_get(in, "buffers"), t[1].tree = json_get(in, "lazybuffers");
  t[0].n = (size_t)array_len(d, t[0].tree, "buffers");
  t[1].n = (size_t)array_len(d, t[1].tree, "lazybuffers");
  decode_tables(d, t, in);
}

/* The input from its text, without its tree: buffers, then lazybuffers
 * (entry by entry), the other members as trees. What it raises (a check
 * failed, or the text is not JSON or not as the recorder writes it) lets
 * the tree decide; then nothing decoded so far is kept but what the tree
 * decodes the same way in the same order. */
static void decode_text(Dec *d) {
  JTable t[2];
  capture_lazybuffer_tables(t);
  JVal *rest;
  if (!json_tables_of_text(d->cur, d->scratch, &d->st_texts, t, 2, &rest)) text_unreadable(d);
  decode_tables(d, t, rest);
}

/* decode_text and decode_tree as protected calls (error.h): what they
 * raise must not skip freeing the input's scratch arena */
static void text_protected(void *ud) { decode_text(ud); }

static void tree_protected(void *ud) {
  Dec *d = ud;
  Status st;
  const JVal *in = capture_input(d->c, d->scratch, &st);
  if (!in) error_rethrow(&st);
  decode_tree(d, in);
}

void v0_9_decode_input(Sched *s, const Capture *c, Input *inp) {
  Dec d = {.s = s, .c = c};
  memset(inp, 0, sizeof *inp);
  s->inp = inp;
  decode_context(&d);
  Arena tree;   /* the input's text or tree is read in it while it is decoded */
  arena_init(&tree);
  d.scratch = &tree;
  Status raised = {0};
  bool decoded = false;
  if (c->input->kind == J_RAW) { /* straight from the text; the tree judges what that does not read */
    Input context = *inp;
    JCursor cur;
    json_cursor_begin(&cur, &tree, c->input);
    d.cur = &cur;
    decoded = error_protect(&raised, text_protected, &d);
    if (!decoded) {
      *inp = context;
      d.cur = NULL;
    }
  }
  if (!decoded) decoded = error_protect(&raised, tree_protected, &d);
  if (decoded) decode_buf_max(&d);
  arena_free(&tree);
  arena_prefer_pool(s->a); /* the scheduler goes on in the tree's memory */
  if (!decoded) error_rethrow(&raised);
}

/* ---- LbList ---- */

