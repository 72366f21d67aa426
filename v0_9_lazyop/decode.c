/* decode.c — a 0.9.1 capture's `input` (capture-format section 3) as
 * DeviceBuffer and LazyBuffer structs, with the checks that keep the
 * scheduler away from malformed graphs: every index in range, sources and
 * bases earlier in post-order, sizes that fit, ops a LazyBuffer can have. */
#include <string.h>
#include "error.h"
#include "sched91.h"
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

/* The distinct texts of the lazybuffers' `st` (a capture has few: resnet50's
 * 5,078 LazyBuffers, 305), each decoded once, the first time a LazyBuffer
 * needs it: equal texts are equal trees, so equal ShapeTrackers. A text is
 * found by the hash of its first ST_PREFIX bytes, and is the same value
 * when the text at the cursor starts with all its bytes. */
enum { ST_PREFIX = 48 };
typedef struct StText { const char *text; size_t len; const St91 *st; } StText;
typedef struct StTexts {
  StText *texts;     /* in order of first appearance */
  size_t n, cap;
  struct { uint64_t hash; size_t text; } *slots;  /* text + 1, 0: empty */
  size_t nslots;
} StTexts;

typedef struct Dec {
  Sched91 *s;
  const Capture *c;
  Status *st;
  NameCache dtypes, ops;
  JCursor *cur;        /* reading the input from its text (NULL: from its tree) */
  Arena *scratch;      /* the input's: freed once it is decoded */
  StTexts st_texts;
} Dec;

static const DType *decode_dtype(Dec *d, const JVal *j, const char *place) {
  if (j->kind != J_STR) return dtype_from_json(j, place, d->st);   /* reports the error */
  const DType *dt = cache_find(&d->dtypes, j->u.s);
  if (dt) return dt;
  if ((dt = dtype_from_json(j, place, d->st))) cache_add(&d->dtypes, j->u.s, dt);
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

static bool bad(Dec *d, const char *place, const char *what) {
  return status_bad_input(d->st, "%s: input.%s: %s", d->c->name, place, what);
}

/* The member `key` of an entry (v, NULL when absent) when it is of `kind` */
static const JVal *field(Dec *d, const JVal *v, const char *key, JKind kind, const char *place) {
  if (!v || v->kind != kind) {
    char what[128];
    snprintf(what, sizeof what, "field \"%s\" missing or of the wrong type", key);
    bad(d, place, what);
    return NULL;
  }
  return v;
}

/* An index into a table of n entries that must also be below `below` (post-order). */
static bool index_of(Dec *d, const JVal *v, int n, int below, const char *place, int *out) {
  if (!v || v->kind != J_INT || v->u.i < 0 || v->u.i >= n) return bad(d, place, "dangling index");
  if (v->u.i >= below) return bad(d, place, "index is not earlier in post-order");
  *out = (int)v->u.i;
  return true;
}

static const char *intern_device(Dec *d, const JVal *v) { return v_strn(d->s->in, V_STR, v->u.s, v->n)->u.str.s; }

static bool array_len(Dec *d, const JVal *v, const char *place, int *n) {
  if (!v || v->kind != J_ARR) return bad(d, place, "must be an array");
  if (v->n > MAX_ITEMS) return bad(d, place, "absurdly many entries");
  *n = (int)v->n;
  return true;
}

/* ---- an entry of input.buffers or input.lazybuffers, member by member ---- */

/* The members an entry of each table has, in the order the recorder writes them. */
enum { BUF_DEVICE, BUF_SIZE, BUF_DTYPE, BUF_ALLOCATED, BUF_BASE, BUF_OFFSET, BUF_OPTIONS, BUF_LB_REFCOUNT, BUF_KEYS };
static const char *const buffer_keys[BUF_KEYS] = {"device", "size", "dtype", "allocated", "base", "offset", "options", "lb_refcount"};
enum { LB_DEVICE, LB_DTYPE, LB_ST, LB_BASE, LB_OP, LB_ARG, LB_SRCS, LB_BUFFER, LB_REALIZED, LB_FORCED_REALIZE,
       LB_METADATA, LB_METADATA_CALLER, LB_KEYS };
static const char *const lazybuffer_keys[LB_KEYS] = {"device", "dtype", "st", "base", "op", "arg", "srcs", "buffer",
                                                     "realized", "forced_realize", "metadata", "metadata_caller"};

/* An entry's members by key index (NULL: absent); read from the text, the
 * lazybuffer's `st` is one of the distinct texts (st_text - 1). */
typedef struct Entry {
  const JVal *m[LB_KEYS];
  size_t st_text;
} Entry;

/* The index of key[0..n) in keys, or -1; the search starts after `*last`
 * (the entries of a table list their members in one order). */
static int key_index(const char *const *keys, int nkeys, const char *key, size_t n, int *last) {
  for (int t = 1; t <= nkeys; t++) {
    int k = (*last + t) % nkeys;
    const char *name = keys[k];
    size_t i = 0;
    while (i < n && name[i] == key[i]) i++;
    if (i == n && name[n] == 0) return *last = k;
  }
  return -1;
}

/* The entry j of the input's tree (place: "table[i]") */
static bool entry_of_tree(Dec *d, const JVal *j, const char *const *keys, int nkeys, const char *place, Entry *e) {
  if (j->kind != J_OBJ) return bad(d, place, "must be an object");
  memset(e, 0, sizeof *e);
  int last = -1;
  for (uint32_t i = 0; i < j->n; i++) { /* the reader refuses a key twice */
    int k = key_index(keys, nkeys, j->u.obj[i].key, j->u.obj[i].keylen, &last);
    if (k >= 0) e->m[k] = j->u.obj[i].val;
  }
  return true;
}

/* The entry at the cursor; false (c->failed) on anything the tree must
 * judge: not an object, a key twice, a key the decoder does not read. */
static size_t st_text_at_cursor(Dec *d);

static bool entry_of_text(Dec *d, const char *const *keys, int nkeys, int text_key, Entry *e) {
  JCursor *c = d->cur;
  memset(e, 0, sizeof *e);
  unsigned seen = 0;
  int last = -1;
  if (!json_cursor_open(c, '{')) return false;
  for (bool first = true; json_cursor_more(c, '}', first); first = false) {
    const char *key;
    size_t n;
    if (!json_cursor_key(c, &key, &n)) return false;
    int k = key_index(keys, nkeys, key, n, &last);
    if (k < 0 || (seen >> k & 1)) return c->failed = true, false;
    seen |= 1u << k;
    if (k == text_key) {
      if (!(e->st_text = st_text_at_cursor(d))) return false;
    } else if (!(e->m[k] = json_cursor_value(c))) {
      return false;
    }
  }
  return !c->failed;
}

/* ---- input.buffers ---- */

static bool decode_buffer(Dec *d, const Entry *e, int i, DeviceBuffer *all) {
  char place[64];
  entry_place(place, "buffers", i);
  DeviceBuffer *b = &all[i];
  b->index = i;
  const JVal *const *m = e->m, *dev, *size, *dt, *alloc, *off, *refc;
  char why[64];
  if (capture_size_problem(m[BUF_SIZE], "size", CAPTURE_MAX_BUFFER_SIZE, why, sizeof why) ||
      capture_size_problem(m[BUF_OFFSET], "offset", CAPTURE_MAX_BUFFER_OFFSET, why, sizeof why))
    return bad(d, place, why);
  if (!(dev = field(d, m[BUF_DEVICE], "device", J_STR, place)) || !(size = field(d, m[BUF_SIZE], "size", J_INT, place)) ||
      !(dt = field(d, m[BUF_DTYPE], "dtype", J_STR, place)) ||
      !(alloc = field(d, m[BUF_ALLOCATED], "allocated", J_BOOL, place)) ||
      !(off = field(d, m[BUF_OFFSET], "offset", J_INT, place)) ||
      !(refc = field(d, m[BUF_LB_REFCOUNT], "lb_refcount", J_INT, place)))
    return false;
  if (!(b->dtype = b->orig_dtype = decode_dtype(d, dt, place))) return false;
  b->device = intern_device(d, dev);
  b->size = size->u.i;
  b->offset = off->u.i;
  b->allocated = alloc->u.b;
  b->lb_refcount = refc->u.i;
  const JVal *base = m[BUF_BASE], *opts = m[BUF_OPTIONS];
  if (base && base->kind != J_NULL) {
    int bi = 0;
    if (!index_of(d, base, i + 1, i, place, &bi)) return false;
    if (all[bi].base) return bad(d, place, "the base of a view buffer is itself a view");
    b->base = &all[bi];
  }
  if (opts && opts->kind != J_NULL && opts->kind != J_OBJ) return bad(d, place, "options must be null or an object");
  b->options = opts && opts->kind == J_OBJ ? json_copy(d->s->a, opts) : NULL; /* the input's tree is freed after decoding */
  return true;
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
      return is_loadop91(op) || is_reduceop91(op);
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

static bool decode_arg(Dec *d, const JVal *j, Op op, const char *place, const Value **out) {
  Interner *in = d->s->in;
  bool dtype_arg = op == OP_CAST || op == OP_BITCAST || (op == OP_VIEW && j->kind == J_STR);
  if (dtype_arg) {
    const DType *dt = decode_dtype(d, j, place);
    if (!dt) return false;
    *out = v_dtype(in, dt);
    return true;
  }
  if (!(*out = value_from_json(&d->s->codec, j, place, d->st))) return false;
  if (op == OP_LOADOPS_CONST && (*out)->kind == V_SYM) return true;   /* a Variable: decode_const_var */
  if (op == OP_LOADOPS_CONST && !value_is_number(*out))
    return bad(d, place, "a CONST arg must be an int, float or bool");
  if (op == OP_ASSIGN && (*out)->kind != V_TUPLE) return bad(d, place, "an ASSIGN arg must be [] or [ST]");
  if (op == OP_ASSIGN && (*out)->u.tuple.n && (*out)->u.tuple.items[0]->kind != V_ST)
    return bad(d, place, "an ASSIGN arg must be [] or [ST]");
  return true;
}

/* LoadOps.CONST with a Variable arg (lazy.py keeps it as is): the Variable itself */
static bool decode_const_var(Dec *d, const JVal *j, LazyBuffer *lb, const char *place) {
  lb->arg_var = sint_from_json(d->s->a, j);
  const SymNode *v = lb->arg_var.sym;
  if (v->kind != SN_VAR) return status_unsupported(d->st, "symbolic: %s: a CONST of a symbolic value that is not a Variable", place);
  return true;
}

static bool decode_srcs(Dec *d, const JVal *j, LazyBuffer *lb, LazyBuffer *all, const char *place) {
  if (j->kind == J_NULL) return true;
  int n = 0;
  if (!array_len(d, j, place, &n)) return false;
  lb->srcs = arena_array(d->s->a, n ? (size_t)n : 1, sizeof *lb->srcs);
  lb->nsrcs = n;
  for (int k = 0; k < n; k++) {
    int si = 0;
    if (!index_of(d, j->u.arr[k], d->s->inp->nlbs, lb->index, place, &si)) return false;
    lb->srcs[k] = &all[si];
    LazyBuffer *parent = all[si].base;   /* decoded already: sources come earlier */
    bool again = false;
    for (int i = 0; i < k && !again; i++) again = lb->srcs[i]->base == parent;
    if (!again) parent->nreaders++;
  }
  return true;
}

static bool decode_base(Dec *d, const Entry *e, LazyBuffer *lb, LazyBuffer *all, const char *place) {
  const JVal *const *m = e->m, *op, *srcs, *buf, *real, *forced;
  if (!(op = field(d, m[LB_OP], "op", J_STR, place)) || !(buf = field(d, m[LB_BUFFER], "buffer", J_INT, place)) ||
      !(real = field(d, m[LB_REALIZED], "realized", J_BOOL, place)) ||
      !(forced = field(d, m[LB_FORCED_REALIZE], "forced_realize", J_BOOL, place)))
    return false;
  lb->op = decode_op(d, op);
  if (!is_lazybuffer_op(lb->op)) return bad(d, place, "op is not a LazyBuffer op of this version");
  const JVal *arg = m[LB_ARG];
  if (!arg) return bad(d, place, "field \"arg\" missing");
  if (!decode_arg(d, arg, lb->op, place, &lb->arg)) return false;
  if (lb->arg->kind == V_SYM && !decode_const_var(d, arg, lb, place)) return false;
  if (!(srcs = m[LB_SRCS])) return bad(d, place, "field \"srcs\" missing");
  if (!decode_srcs(d, srcs, lb, all, place)) return false;
  int bi = 0;
  if (!index_of(d, buf, d->s->inp->nbuffers, d->s->inp->nbuffers, place, &bi)) return false;
  lb->buffer = &d->s->inp->buffers[bi];
  lb->realized = real->u.b;
  lb->forced_realize = forced->u.b;
  const JVal *meta = m[LB_METADATA], *caller = m[LB_METADATA_CALLER];
  if (meta && meta->kind == J_STR) lb->metadata = v_strn(d->s->in, V_STR, meta->u.s, meta->n)->u.str.s;
  if (meta && meta->kind != J_STR && meta->kind != J_NULL) return bad(d, place, "\"metadata\" must be a string or null");
  if (caller && caller->kind == J_STR) lb->metadata_caller = v_strn(d->s->in, V_STR, caller->u.s, caller->n)->u.str.s;
  /* realized is `not hasattr(self, 'srcs')`: the two fields must agree */
  if (lb->realized != (lb->srcs == NULL)) return bad(d, place, "\"realized\" disagrees with \"srcs\"");
  int want = lazybuffer_arity(lb->op);
  if (lb->srcs && want >= 0 && lb->nsrcs != want)
    return bad(d, place, want == 1 ? "this op needs one source" : "this op needs another number of sources");
  return true;
}

/* The interned ShapeTracker of the tree stj */
static const St91 *decode_st(Dec *d, const JVal *stj) {
  const ShapeTracker *raw = d->s->codec.st_decode(&d->s->codec, stj, d->st);
  return raw ? st91_intern(d->s, raw) : NULL;
}

static void st_slots_grow(Dec *d) {
  StTexts *t = &d->st_texts;
  size_t old_n = t->nslots;
  __typeof__(t->slots) old = t->slots;
  t->nslots = old_n ? 2 * old_n : 256;
  t->slots = arena_array(d->scratch, t->nslots, sizeof *t->slots);
  for (size_t k = 0; k < old_n; k++) {
    if (!old[k].text) continue;
    size_t i = old[k].hash & (t->nslots - 1);
    while (t->slots[i].text) i = (i + 1) & (t->nslots - 1);
    t->slots[i] = old[k];
  }
}

/* The distinct text (index + 1) of the `st` object at the cursor, moved
 * past it; 0 (c->failed) when it is no object. */
static size_t st_text_at_cursor(Dec *d) {
  JCursor *c = d->cur;
  StTexts *t = &d->st_texts;
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\n' || *c->p == '\r' || *c->p == '\t')) c->p++;
  bool hashed = c->end - c->p >= ST_PREFIX;
  uint64_t h = hashed ? json_text_hash(c->p, ST_PREFIX) : 0;
  if (2 * (t->n + 1) > t->nslots) st_slots_grow(d);
  size_t mask = t->nslots - 1, i = h & mask;
  for (; hashed && t->slots[i].text; i = (i + 1) & mask) {
    const StText *x = &t->texts[t->slots[i].text - 1];
    if (t->slots[i].hash == h && (size_t)(c->end - c->p) >= x->len && memcmp(x->text, c->p, x->len) == 0) {
      c->p += x->len;
      return t->slots[i].text;
    }
  }
  const char *text;
  size_t len;
  if (!json_cursor_text(c, &text, &len) || text[0] != '{') return c->failed = true, 0;
  t->texts = arena_grow(d->scratch, t->texts, t->n, &t->cap, sizeof *t->texts);
  t->texts[t->n++] = (StText){text, len, NULL};
  if (hashed) t->slots[i].hash = h, t->slots[i].text = t->n;
  return t->n;
}

/* The interned ShapeTracker of a distinct `st` text, parsed and decoded
 * the first time (NULL with c->failed when it is not JSON: the tree says why). */
static const St91 *decode_st_text(Dec *d, size_t k) {
  StText *x = &d->st_texts.texts[k - 1];
  if (x->st) return x->st;
  JCursor *c = d->cur;
  const char *after = c->p;
  c->p = x->text;
  const JVal *stj = json_cursor_value(c);
  if (!stj || c->p != x->text + x->len) c->failed = true;
  c->p = after;
  return c->failed ? NULL : (x->st = decode_st(d, stj));
}

static bool decode_lazybuffer(Dec *d, const Entry *e, int i, LazyBuffer *all) {
  char place[64];
  entry_place(place, "lazybuffers", i);
  LazyBuffer *lb = &all[i];
  lb->index = i;
  const JVal *const *m = e->m, *dev, *dt, *stj = NULL;
  if (!(dev = field(d, m[LB_DEVICE], "device", J_STR, place)) || !(dt = field(d, m[LB_DTYPE], "dtype", J_STR, place)) ||
      (!e->st_text && !(stj = field(d, m[LB_ST], "st", J_OBJ, place))))
    return false;
  lb->device = intern_device(d, dev);
  if (!(lb->dtype = lb->orig_dtype = decode_dtype(d, dt, place))) return false;
  if (!(lb->st = e->st_text ? decode_st_text(d, e->st_text) : decode_st(d, stj))) return false;
  if (lb->st->size > CAPTURE_MAX_BUFFER_SIZE || lb->st->size < 0) return bad(d, place, "absurd size");
  const JVal *base = m[LB_BASE];
  if (base && base->kind != J_NULL) {
    int bi = 0;
    if (!index_of(d, base, d->s->inp->nlbs, i, place, &bi)) return false;
    if (all[bi].base != &all[bi]) return bad(d, place, "the base of a view is itself a view");
    lb->base = &all[bi];
    return true;
  }
  lb->base = lb;
  return decode_base(d, e, lb, all, place);
}

/* ---- outs, seen, set_orders, memory_planner_bufs ---- */

static bool decode_lb_list(Dec *d, const JVal *j, const char *place, LazyBuffer ***out, int *n) {
  if (!array_len(d, j, place, n)) return false;
  Input91 *inp = d->s->inp;
  *out = arena_array(d->s->a, *n ? (size_t)*n : 1, sizeof **out);
  for (int k = 0; k < *n; k++) {
    int li = 0;
    if (!index_of(d, j->u.arr[k], inp->nlbs, inp->nlbs, place, &li)) return false;
    (*out)[k] = &inp->lbs[li];
  }
  return true;
}

static bool decode_set_orders(Dec *d, const JVal *j) {
  Input91 *inp = d->s->inp;
  omap_init(&inp->parents_assigns_order, d->s->a);
  if (d->s->f->simple_pads_dict) return true;   /* 0.9.2 iterates only dicts: no set_orders */
  if (!j || j->kind != J_OBJ) return bad(d, "set_orders", "missing or not an object");
  const JVal *sp = json_get(j, "simple_pads"), *pa = json_get(j, "parents_assigns");
  if (sp && !decode_lb_list(d, sp, "set_orders.simple_pads", &inp->simple_pads_order, &inp->nsimple_pads_order))
    return false;
  if (!pa) return true;
  int n = 0;
  if (!array_len(d, pa, "set_orders.parents_assigns", &n)) return false;
  for (int k = 0; k < n; k++) {
    const JVal *e = pa->u.arr[k];
    if (e->kind != J_ARR || e->n != 2) return bad(d, "set_orders.parents_assigns", "entries must be [lb, [lb...]]");
    int key = 0, nm = 0;
    LazyBuffer **members;
    if (!index_of(d, e->u.arr[0], inp->nlbs, inp->nlbs, "set_orders.parents_assigns", &key)) return false;
    if (!decode_lb_list(d, e->u.arr[1], "set_orders.parents_assigns", &members, &nm)) return false;
    LbList *l = arena_alloc(d->s->a, sizeof *l);
    for (int m = 0; m < nm; m++) lblist_push91(d->s->a, l, members[m]);
    omap_put(&inp->parents_assigns_order, omap_ptr(&inp->lbs[key]), l);
  }
  return true;
}

static bool decode_planner_bufs(Dec *d, const JVal *j) {
  Input91 *inp = d->s->inp;
  if (!j) return bad(d, "memory_planner_bufs", "missing (null when the planner did not run)");
  inp->planner_ran = j->kind != J_NULL;
  if (!inp->planner_ran) return true;
  int n = 0;
  if (!array_len(d, j, "memory_planner_bufs", &n)) return false;
  for (int k = 0; k < n; k++) {
    const JVal *e = j->u.arr[k];
    if (e->kind != J_ARR || e->n != 3 || e->u.arr[1]->kind != J_BOOL || e->u.arr[2]->kind != J_INT)
      return bad(d, "memory_planner_bufs", "entries must be [BUFREF, allocated, lb_refcount]");
    if (e->u.arr[0]->kind == J_STR)
      return status_unsupported(d->st, "memory_planner_bufs names a buffer the scheduler created (%s)", e->u.arr[0]->u.s);
    int bi = 0;
    if (!index_of(d, e->u.arr[0], inp->nbuffers, inp->nbuffers, "memory_planner_bufs", &bi)) return false;
    PlannerBufState *ps = arena_alloc(d->s->a, sizeof *ps);
    ps->allocated = e->u.arr[1]->u.b;
    ps->lb_refcount = e->u.arr[2]->u.i;
    inp->buffers[bi].planner = ps;
  }
  return true;
}

/* Three context flags, as the capture recorded them (never defaults) */
static bool read_flags(Dec *d, const char *const keys[3], bool out[3]) {
  for (int k = 0; k < 3; k++) {
    int64_t v;
    if (!capture_ctx_int(d->c, keys[k], &v))
      return status_bad_input(d->st, "%s: context.%s missing or not a number", d->c->name, keys[k]);
    out[k] = v != 0;
  }
  return true;
}

/* The context flags the scheduler reads: 0.9.1's three; 0.9.2 adds FUSE_ARANGE,
 * FUSE_CONV_BW and MERGE_VIEW (ShapeTracker.reshape reads it). */
static bool decode_context(Dec *d) {
  static const char *const keys[3] = {"MULTIOUTPUT", "USE_COPY_KERNEL", "NO_MEMORY_PLANNER"};
  static const char *const keys092[3] = {"FUSE_ARANGE", "FUSE_CONV_BW", "MERGE_VIEW"};
  bool v[3], w[3] = {false, false, true};
  if (!read_flags(d, keys, v) || (d->s->f->fuse_arange_conv_bw && !read_flags(d, keys092, w))) return false;
  Input91 *inp = d->s->inp;
  inp->multioutput = v[0], inp->use_copy_kernel = v[1], inp->no_memory_planner = v[2];
  inp->fuse_arange = w[0], inp->fuse_conv_bw = w[1], inp->merge_view = w[2];
  inp->ast_rewrite = true;
  int64_t ast_rewrite;   /* 197f8fd: full_ast_rewrite reads AST_REWRITE */
  if (d->s->f->reduceop_fusor) {
    if (!capture_ctx_int(d->c, "AST_REWRITE", &ast_rewrite))
      return status_bad_input(d->st, "%s: context.AST_REWRITE missing or not a number", d->c->name);
    inp->ast_rewrite = ast_rewrite != 0;
  }
  return true;
}

/* 197f8fd: each Buffer's device's renderer.buf_max, context BUF_MAX:<device> (0: none; absent: none) */
static void decode_buf_max(Dec *d) {
  Input91 *inp = d->s->inp;
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
static void reserve_children(Sched91 *s, Input91 *inp) {
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

/* A table of the input: the array of its tree, or its entries read from its text. */
typedef struct Table { const JVal *tree; const Entry *entries; int n; } Table;

/* Entry i of t (e: room for one from the tree); NULL when it is no object. */
static const Entry *table_entry(Dec *d, const Table *t, const char *name, const char *const *keys, int nkeys, int i,
                                Entry *e) {
  if (t->entries) return &t->entries[i];
  char place[64];
  return entry_of_tree(d, t->tree->u.arr[i], keys, nkeys, entry_place(place, name, i), e) ? e : NULL;
}

/* The tables of the input: buffers and lazybuffers, then the members of
 * `in` (its tree, or the other members read from its text). */
static bool decode_tables(Dec *d, const Table *bufs, const Table *lbs, const JVal *in) {
  Sched91 *s = d->s;
  Input91 *inp = s->inp;
  inp->nbuffers = bufs->n, inp->nlbs = lbs->n;
  inp->buffers = arena_array(s->a, inp->nbuffers ? (size_t)inp->nbuffers : 1, sizeof *inp->buffers);
  inp->lbs = arena_array(s->a, inp->nlbs ? (size_t)inp->nlbs : 1, sizeof *inp->lbs);
  /* a 0.9.1 schedule makes ~0.1-0.4 UOps and ~0.1 Values per LazyBuffer: size the tables once */
  interner_reserve(s->in, (size_t)inp->nlbs / 2, (size_t)inp->nlbs / 4);
  Entry room;
  for (int i = 0; i < inp->nbuffers; i++) {
    const Entry *e = table_entry(d, bufs, "buffers", buffer_keys, BUF_KEYS, i, &room);
    if (!e || !decode_buffer(d, e, i, inp->buffers)) return false;
  }
  for (int i = 0; i < inp->nlbs; i++) {
    const Entry *e = table_entry(d, lbs, "lazybuffers", lazybuffer_keys, LB_KEYS, i, &room);
    if (!e || !decode_lazybuffer(d, e, i, inp->lbs)) return false;
  }
  reserve_children(s, inp);
  if (!decode_lb_list(d, json_get(in, "outs"), "outs", &inp->outs, &inp->nouts)) return false;
  const JVal *seen = json_get(in, "seen");
  if (seen && seen->kind != J_NULL && !decode_lb_list(d, seen, "seen", &inp->seen, &inp->nseen)) return false;
  const JVal *offs = json_get(in, "memory_planner_allocator_offset");
  if (offs && offs->kind == J_OBJ) inp->allocator_offset = json_copy(s->a, offs);
  return decode_set_orders(d, json_get(in, "set_orders")) && decode_planner_bufs(d, json_get(in, "memory_planner_bufs"));
}

/* The input from its tree */
static bool decode_tree(Dec *d, const JVal *in) {
  Table bufs = {json_get(in, "buffers"), NULL, 0}, lbs = {json_get(in, "lazybuffers"), NULL, 0};
  return array_len(d, bufs.tree, "buffers", &bufs.n) && array_len(d, lbs.tree, "lazybuffers", &lbs.n) &&
         decode_tables(d, &bufs, &lbs, in);
}

/* The entries of the table at the cursor, read from its text into the scratch arena */
static bool table_of_text(Dec *d, const char *const *keys, int nkeys, int text_key, Table *t) {
  JCursor *c = d->cur;
  Entry *entries = NULL;
  size_t cap = 0, n = 0;
  if (!json_cursor_open(c, '[')) return false;
  for (bool first = true; json_cursor_more(c, ']', first); first = false) {
    if (n == MAX_ITEMS) return c->failed = true, false;
    entries = arena_grow(d->scratch, entries, n, &cap, sizeof *entries);
    if (!entry_of_text(d, keys, nkeys, text_key, &entries[n++])) return false;
  }
  *t = (Table){NULL, entries, (int)n};
  return !c->failed;
}

static bool is_key(const char *key, size_t n, const char *name) { return strlen(name) == n && memcmp(key, name, n) == 0; }

/* The input from its text, without its tree: buffers, then lazybuffers
 * (entry by entry), the other members as trees. False when a check failed
 * (*st set) or when the tree must decide (the cursor failed: the text is
 * not JSON or not as the recorder writes it); then nothing decoded so far
 * is kept but what the tree decodes the same way in the same order. */
static bool decode_text(Dec *d) {
  JCursor *c = d->cur;
  Table bufs = {0}, lbs = {0};
  bool have_bufs = false, have_lbs = false;
  JVal *rest = json_obj(d->scratch);
  if (!json_cursor_open(c, '{')) return false;
  for (bool first = true; json_cursor_more(c, '}', first); first = false) {
    const char *key;
    size_t n;
    if (!json_cursor_key(c, &key, &n)) return false;
    if (is_key(key, n, "buffers") || is_key(key, n, "lazybuffers")) {
      bool lazy = n == strlen("lazybuffers");
      if (have_lbs || have_bufs == !lazy) return c->failed = true, false; /* out of order, or twice */
      if (!(lazy ? table_of_text(d, lazybuffer_keys, LB_KEYS, LB_ST, &lbs) : table_of_text(d, buffer_keys, BUF_KEYS, -1, &bufs)))
        return false;
      have_bufs = true, have_lbs = lazy;
      continue;
    }
    char *name = arena_strndup(d->scratch, key, n);
    const JVal *v = json_get(rest, name) ? NULL : json_cursor_value(c);
    if (!v) return c->failed = true, false;
    json_set(d->scratch, rest, name, (JVal *)v);
  }
  if (c->failed || !have_lbs) return c->failed = true, false;
  return decode_tables(d, &bufs, &lbs, rest);
}

/* decode_text and decode_tree as protected calls (error.h): what they
 * raise must not skip freeing the input's scratch arena */
typedef struct DecodeRun { Dec *d; bool ok; } DecodeRun;

static void text_protected(void *ud) {
  DecodeRun *r = ud;
  r->ok = decode_text(r->d);
}

static void tree_protected(void *ud) {
  DecodeRun *r = ud;
  const JVal *in = capture_input(r->d->c, r->d->scratch, r->d->st);
  r->ok = in && decode_tree(r->d, in);
}

bool decode_input91(Sched91 *s, const Capture *c, Input91 *inp, Status *st) {
  Dec d = {.s = s, .c = c, .st = st};
  memset(inp, 0, sizeof *inp);
  s->inp = inp;
  if (!decode_context(&d)) return false;
  Arena tree;   /* the input's text or tree is read in it while it is decoded */
  arena_init(&tree);
  d.scratch = &tree;
  DecodeRun run = {&d, false};
  Status raised = {0};
  bool returned = true;
  if (c->input->kind == J_RAW) { /* straight from the text; the tree judges what that does not read */
    Input91 context = *inp;
    JCursor cur;
    json_cursor_begin(&cur, &tree, c->input);
    d.cur = &cur;
    if (!error_protect(&raised, text_protected, &run) || !run.ok) {
      *inp = context;
      memset(st, 0, sizeof *st);
      d.cur = NULL;
      run.ok = false;
    }
  }
  if (!run.ok) returned = error_protect(&raised, tree_protected, &run);
  if (run.ok) decode_buf_max(&d);
  arena_free(&tree);
  arena_prefer_pool(s->a); /* the scheduler goes on in the tree's memory */
  if (!returned) error_rethrow(&raised);
  return run.ok;
}

/* ---- LbList ---- */

