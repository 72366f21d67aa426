/* graph.c — value and graph encodings of the capture contract (graph.h). */
#include "graph.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "heap.h"
#include "json_fields.h"

void codec_init(Codec *c, Interner *in, TgVersion v) {
  memset(c, 0, sizeof *c);
  c->in = in;
  c->arena = in->arena;
  c->out = in->arena;
  c->v = v;
}

const DType *dtype_from_json(const JVal *j, const char *where, Status *st) {
  if (!j || j->kind != J_STR) { status_bad_input(st, "%s: dtype must be a string", where); return NULL; }
  const DType *d = dtype_parse(j->u.s);
  if (!d) status_bad_input(st, "%s: unknown dtype \"%s\"", where, j->u.s);
  return d;
}

/* The scalars that recur in every encoded graph (op names, dtypes, None,
 * small node indexes) are one JVal each for the process, pointed to from
 * every node: an encoded result is only read (a node's op, dtype and
 * source indexes were ~60 of its ~180 bytes). */
static JVal null_json = {.kind = J_NULL};

/* a J_INT, shared when small */
static JVal *int_json(Arena *a, int64_t i) { return json_int_shared(a, i); }

/* op_name as a J_STR, the names looked up once per version */
static JVal *op_json(Arena *a, Op op, TgVersion v) {
  static JVal names[TG_NVERSIONS][OP_COUNT];
  if ((int)v < 0 || v >= TG_NVERSIONS || op >= OP_COUNT) return json_str(a, "?");
  JVal *j = &names[v][op];
  if (!j->u.s) {
    const char *name = op_name(op, v);
    *j = (JVal){.kind = J_STR, .u.s = name ? name : "?"};
    j->n = (uint32_t)strlen(j->u.s);
  }
  return j;
}

/* the dtype reprs as J_STRs, by their kept text (one per dtype and version) */
typedef struct DtypeJson { struct DtypeJson *next; JVal val; } DtypeJson;

JVal *dtype_to_json(Codec *c, const DType *d) {
  static DtypeJson *made[256];
  size_t n;
  const char *s = dtype_repr_kept(d, c->v, &n);
  DtypeJson **slot = &made[((uintptr_t)s >> 4) & 255];
  for (DtypeJson *m = *slot; m; m = m->next)
    if (m->val.u.s == s) return &m->val;
  DtypeJson *m = malloc(sizeof *m);
  if (!m) abort();
  *m = (DtypeJson){*slot, {.kind = J_STR, .n = (uint32_t)n, .u.s = s}};
  *slot = m;
  return &m->val;
}

/* {"float": "inf"|"-inf"|"nan"} */
static bool nonfinite(const JVal *j, double *out) {
  const JVal *f = json_get(j, "float");
  if (j->n != 1 || !f || f->kind != J_STR) return false;
  if (strcmp(f->u.s, "inf") == 0) *out = INFINITY;
  else if (strcmp(f->u.s, "-inf") == 0) *out = -INFINITY;
  else if (strcmp(f->u.s, "nan") == 0) *out = NAN;
  else return false;
  return true;
}

static const ShapeTracker *decode_st(Codec *c, const JVal *j, const char *where, Status *st) {
  if (!c->st_decode) { status_unsupported(st, "%s: ShapeTracker values are not supported yet", where); return NULL; }
  return c->st_decode(c, j, st);
}

/* {"MemBuffer": [idx, DT, ST]} / {"ConstBuffer": [val, DT, ST]} */
static const Value *decode_buffer_arg(Codec *c, const JVal *arr, bool mem, const char *where, Status *st) {
  if (arr->kind != J_ARR || arr->n != 3) {
    status_bad_input(st, "%s: %s must be [x, DT, ST]", where, mem ? "MemBuffer" : "ConstBuffer");
    return NULL;
  }
  const DType *d = dtype_from_json(arr->u.arr[1], where, st);
  if (!d) return NULL;
  const ShapeTracker *s = decode_st(c, arr->u.arr[2], where, st);
  if (!s) return NULL;
  if (mem) {
    if (arr->u.arr[0]->kind != J_INT) { status_bad_input(st, "%s: MemBuffer idx must be an int", where); return NULL; }
    return v_membuffer(c->in, arr->u.arr[0]->u.i, d, s);
  }
  const Value *val = value_from_json(c, arr->u.arr[0], where, st);
  return val ? v_constbuffer(c->in, val, d, s) : NULL;
}

static const Value *decode_object(Codec *c, const JVal *j, const char *where, Status *st) {
  double f;
  const JVal *x;
  if (nonfinite(j, &f)) return v_float(c->in, f);
  if ((x = json_get(j, "MemBuffer")) && j->n == 1) return decode_buffer_arg(c, x, true, where, st);
  if ((x = json_get(j, "ConstBuffer")) && j->n == 1) return decode_buffer_arg(c, x, false, where, st);
  if ((x = json_get(j, "views"))) {
    const ShapeTracker *s = decode_st(c, j, where, st);
    return s ? v_st(c->in, s) : NULL;
  }
  if ((x = json_get(j, "sym")) && j->n == 1) {
    size_t n;
    char *text = json_to_string(x, &n);
    const Value *v = v_strn(c->in, V_SYM, text, n);
    free(text);
    return v;
  }
  if ((x = json_get(j, "repr")) && j->n == 1 && x->kind == J_STR) return v_strn(c->in, V_REPR, x->u.s, x->n);
  status_bad_input(st, "%s: unknown object value", where);
  return NULL;
}

/* an integer beyond int64 and uint64 */
static const Value *bignum_value(Codec *c, const JVal *j, const char *where, Status *st) {
  PyInt x;
  if (pyint_parse(j->u.s, j->n, &x)) return v_pyint(c->in, x);
  status_unsupported(st, "%s: integer beyond 128 bits (%.*s)", where, (int)j->n, j->u.s);
  return NULL;
}

/* an int outside int64: a J_UINT up to 2**64-1, else its decimal text */
static JVal *bigint_json(Arena *a, PyInt x) {
  if (x >= 0 && x <= (PyInt)UINT64_MAX) return json_uint(a, (uint64_t)x);
  char text[PYINT_TEXT];
  size_t n = pyint_format(x, text);
  return json_bignum(a, text, n);
}

/* Iterative over arrays: an explicit stack of partly built tuples. */
const Value *value_from_json(Codec *c, const JVal *j, const char *where, Status *st) {
  typedef struct { const JVal *arr; size_t next; const Value **items; bool on_stack; } Frame;
  Frame stack[64];
  /* the partly built tuples' items (v_tuple copies them): on this stack when they fit */
  const Value *items[256];
  size_t depth = 0, nitems = 0;
  const Value *done = NULL;
  for (;;) {
    if (j) {
      switch (j->kind) {
        case J_NULL: done = v_none(c->in); break;
        case J_BOOL: done = v_bool(c->in, j->u.b); break;
        case J_INT: done = v_int(c->in, j->u.i); break;
        case J_UINT: done = v_pyint(c->in, j->u.u); break;
        case J_BIGNUM: done = bignum_value(c, j, where, st); if (!done) return NULL; break;
        case J_FLOAT: done = v_float(c->in, j->u.f); break;
        case J_STR: done = v_strn(c->in, V_STR, j->u.s, j->n); break;
        case J_OBJ: done = decode_object(c, j, where, st); if (!done) return NULL; break;
        case J_RAW: status_bad_input(st, "%s: value was not parsed", where); return NULL;
        case J_ARR:
          if (depth == 64) { status_bad_input(st, "%s: value nested too deeply", where); return NULL; }
          if (nitems + j->n <= 256) {
            stack[depth++] = (Frame){j, 0, items + nitems, true};
            nitems += j->n;
          } else {
            stack[depth++] = (Frame){j, 0, arena_array(c->arena, j->n, sizeof(Value *)), false};
          }
          done = NULL;
          break;
      }
      j = NULL;
    }
    if (done) {
      if (depth == 0) return done;
      Frame *top = &stack[depth - 1];
      top->items[top->next++] = done;
      done = NULL;
    }
    Frame *top = &stack[depth - 1];
    if (top->next < top->arr->n) { j = top->arr->u.arr[top->next]; continue; }
    done = v_tuple(c->in, top->arr->n, top->items);
    if (top->on_stack) nitems -= top->arr->n;
    depth--;
  }
}

JVal *value_to_json(Codec *c, const Value *v) {
  Arena *a = c->out;
  switch (v->kind) {
    case V_NONE: return &null_json;
    case V_BOOL: return json_bool(a, v->u.b);
    case V_INT: return int_json(a, v->u.i);
    case V_BIGINT: return bigint_json(a, value_pyint(v));
    case V_FLOAT: return json_float(a, v->u.f);
    case V_STR: case V_BUFREF: return json_strn(a, v->u.str.s, v->u.str.n);
    case V_TUPLE: {
      JVal *arr = json_arr(a);
      for (size_t i = 0; i < v->u.tuple.n; i++) json_push(a, arr, value_to_json(c, v->u.tuple.items[i]));
      return arr;
    }
    case V_DTYPE: return dtype_to_json(c, v->u.dtype);
    case V_ST: return c->st_encode ? c->st_encode(c, v->u.st) : json_null(a);
    case V_MEMBUFFER: case V_CONSTBUFFER: {
      JVal *arr = json_arr(a), *obj = json_obj(a);
      bool mem = v->kind == V_MEMBUFFER;
      json_push(a, arr, mem ? json_int(a, v->u.membuf.idx) : value_to_json(c, v->u.constbuf.val));
      json_push(a, arr, dtype_to_json(c, mem ? v->u.membuf.dtype : v->u.constbuf.dtype));
      const ShapeTracker *s = mem ? v->u.membuf.st : v->u.constbuf.st;
      json_push(a, arr, c->st_encode ? c->st_encode(c, s) : json_null(a));
      json_set(a, obj, mem ? "MemBuffer" : "ConstBuffer", arr);
      return obj;
    }
    case V_SYM: {
      JVal *obj = json_obj(a);
      char *buf = arena_alloc(a, v->u.str.n + JSON_PADDING);
      memcpy(buf, v->u.str.s, v->u.str.n);
      char err[64];
      JVal *inner = json_parse(a, buf, v->u.str.n, err, sizeof err);
      json_set(a, obj, "sym", inner ? inner : json_null(a));
      return obj;
    }
    case V_REPR: {
      JVal *obj = json_obj(a);
      json_set(a, obj, "repr", json_strn(a, v->u.str.s, v->u.str.n));
      return obj;
    }
  }
  return json_null(a);
}

/* Errors inside a node name it: "<where>: ..." becomes "<where> node i: ...".
 * (Formatting the place only on failure keeps big graphs fast.) */
static bool at_node(Status *st, const char *where, size_t i) {
  size_t n = strlen(where);
  if (strncmp(st->msg, where, n) == 0 && n + 64 < sizeof st->msg) {
    char head[64], rest[sizeof st->msg];
    snprintf(head, sizeof head, " node %zu", i);
    size_t h = strlen(head), r = strlen(st->msg + n);
    if (n + h + r >= sizeof st->msg) r = sizeof st->msg - 1 - n - h;
    memcpy(rest, st->msg + n, r);
    memcpy(st->msg + n, head, h);
    memcpy(st->msg + n + h, rest, r);
    st->msg[n + h + r] = 0;
  }
  return false;
}

/* What graph_decode has decoded already, by the address of its JSON: the
 * reader stores each short string (op names, dtypes) once per document and
 * shares small containers of shared values (shapes, source lists), so a
 * graph's nodes name few distinct addresses. Within one call the tree is
 * alive, so one address is one value. Direct-mapped; a miss decodes. */
enum { GRAPH_MEMO = 64 };
typedef struct GraphMemo {
  const JVal *op_j[GRAPH_MEMO], *dt_j[GRAPH_MEMO], *arg_j[GRAPH_MEMO];
  Op op[GRAPH_MEMO];
  const DType *dt[GRAPH_MEMO];
  const Value *arg[GRAPH_MEMO];
} GraphMemo;

static size_t memo_slot(const JVal *j) { return ((uintptr_t)j >> 4 ^ (uintptr_t)j >> 10) & (GRAPH_MEMO - 1); }

static Op memo_op(GraphMemo *m, const JVal *j, TgVersion v) {
  size_t k = memo_slot(j);
  if (m->op_j[k] != j) m->op[k] = op_parse(j->u.s, v), m->op_j[k] = j;
  return m->op[k];
}

static const DType *memo_dtype(GraphMemo *m, const JVal *j, const char *where, Status *st) {
  size_t k = memo_slot(j);
  if (m->dt_j[k] == j) return m->dt[k];
  const DType *d = dtype_from_json(j, where, st);
  if (d) m->dt[k] = d, m->dt_j[k] = j;
  return d;
}

static const Value *memo_value(Codec *c, GraphMemo *m, const JVal *j, const char *where, Status *st) {
  size_t k = memo_slot(j);
  if (m->arg_j[k] == j) return m->arg[k];
  const Value *v = value_from_json(c, j, where, st);
  if (v) m->arg[k] = v, m->arg_j[k] = j;
  return v;
}

/* Node i's op, dtype and arg from their fields */
static bool decode_head(Codec *c, GraphMemo *m, const JVal *const f[3], size_t i, const char *where, Op *op,
                        const DType **dt, const Value **arg, Status *st) {
  const JVal *jop = f[0], *jdt = f[1], *jarg = f[2];
  if (jop->kind != J_STR) return status_bad_input(st, "%s node %zu: op must be a string", where, i);
  *op = memo_op(m, jop, c->v);
  if (*op == OP_NONE) return status_bad_input(st, "%s node %zu: unknown op \"%s\"", where, i, jop->u.s);
  *dt = NULL; /* only 0.9.1's LazyOps have no dtype (null) */
  if ((jdt->kind != J_NULL || !tg_features(c->v)->ast_is_lazyop) && !(*dt = memo_dtype(m, jdt, where, st)))
    return at_node(st, where, i);
  *arg = memo_value(c, m, jarg, where, st);
  return *arg ? true : at_node(st, where, i);
}

/* Node i of a graph from its four fields [op, dtype, arg, [src...]] */
static bool decode_fields(Codec *c, GraphMemo *m, const JVal *const f[4], size_t i, const UOp **nodes, const char *where,
                          const UOp **out, Status *st) {
  Op op;
  const DType *dt;
  const Value *arg;
  if (!decode_head(c, m, f, i, where, &op, &dt, &arg, st)) return false;
  const JVal *jsrc = f[3];
  if (jsrc->kind != J_ARR) return status_bad_input(st, "%s node %zu: sources must be an array", where, i);
  if (jsrc->n > UINT32_MAX) return status_bad_input(st, "%s node %zu: too many sources", where, i);
  const UOp *few[16]; /* uop_new copies the sources */
  const UOp **src = jsrc->n <= 16 ? few : arena_array(c->arena, jsrc->n, sizeof *src);
  for (size_t k = 0; k < jsrc->n; k++) {
    const JVal *s = jsrc->u.arr[k];
    if (s->kind != J_INT || s->u.i < 0 || (uint64_t)s->u.i >= i)
      return status_bad_input(st, "%s node %zu: source %zu must be an index below %zu (post-order)", where, i, k, i);
    src[k] = nodes[s->u.i];
  }
  *out = uop_new(c->in, op, dt, arg, (uint32_t)jsrc->n, src);
  return true;
}

static bool decode_node(Codec *c, GraphMemo *m, const JVal *e, size_t i, const UOp **nodes, const char *where,
                        const UOp **out, Status *st) {
  if (e->kind != J_ARR || e->n != 4)
    return status_bad_input(st, "%s node %zu: must be [op, dtype, arg, [src...]]", where, i);
  return decode_fields(c, m, (const JVal *const *)e->u.arr, i, nodes, where, out, st);
}

static void graph_memo_init(GraphMemo *m) {
  memset(m->op_j, 0, sizeof m->op_j), memset(m->dt_j, 0, sizeof m->dt_j), memset(m->arg_j, 0, sizeof m->arg_j);
}

bool graph_decode(Codec *c, const JVal *g, const char *where, const UOp ***nodes_out, size_t *nnodes,
                  const UOp ***roots_out, size_t *nroots, Status *st) {
  const JVal *jn = json_get(g, "nodes"), *jr = json_get(g, "roots");
  if (!jn || jn->kind != J_ARR || !jr || jr->kind != J_ARR)
    return status_bad_input(st, "%s: a graph needs \"nodes\" and \"roots\" arrays", where);
  const UOp **nodes = arena_array(c->arena, jn->n ? jn->n : 1, sizeof *nodes);
  GraphMemo memo;
  graph_memo_init(&memo);
  for (size_t i = 0; i < jn->n; i++)
    if (!decode_node(c, &memo, jn->u.arr[i], i, nodes, where, &nodes[i], st)) return false;
  const UOp **roots = arena_array(c->arena, jr->n ? jr->n : 1, sizeof *roots);
  for (size_t k = 0; k < jr->n; k++) {
    const JVal *r = jr->u.arr[k];
    if (r->kind != J_INT || r->u.i < 0 || (uint64_t)r->u.i >= jn->n)
      return status_bad_input(st, "%s: root %zu is not a node index", where, k);
    roots[k] = nodes[r->u.i];
  }
  *nodes_out = nodes;
  *nnodes = jn->n;
  *roots_out = roots;
  *nroots = jr->n;
  return true;
}

/* ---- a graph read from its text ---- */

/* The op, dtype and arg fields read before, by their text: a field whose
 * bytes are a known text's is that text's value, read once (a graph's
 * nodes repeat them: gpt2's 2,432 name 21 ops, 4 dtypes, 295 args).
 * Direct-mapped on the text's hash, the node before's fields checked
 * first; a miss reads the value. */
enum { TEXT_MEMO_MIN = 16, TEXT_MEMO_MAX = 512, TEXT_PER_SLOT = 64 }; /* slots: a power of two, one per 64 bytes of text */
typedef struct TextSlot { const char *text; size_t len; const JVal *val; } TextSlot;
typedef struct TextRead {
  GraphMemo memo;                 /* the values decoded, by their JVal */
  TextSlot last[3], *slot;        /* slot: nslots of them (heap) */
  size_t nslots;
  const UOp **src;                /* a node's sources (heap) */
  size_t src_cap;
} TextRead;

/* The extent of the field at the cursor as the recorder writes it (no
 * space before it): a string without escapes, an array or object, or a
 * number or literal up to ',' or ']'; 0 when it is none of these */
static size_t field_len(const JCursor *cur) {
  const char *p = cur->p, *end = cur->end;
  if (p >= end) return 0;
  if (*p == '"') {
    const char *q = memchr(p + 1, '"', (size_t)(end - p - 1));
    return q && !memchr(p + 1, '\\', (size_t)(q - p - 1)) ? (size_t)(q + 1 - p) : 0;
  }
  if (*p == '{' || *p == '[') {
    JCursor probe = *cur;
    const char *text;
    size_t n;
    return json_cursor_text(&probe, &text, &n) ? n : 0;
  }
  const char *q = p;
  while (q < end && *q != ',' && *q != ']' && *q != '}' && *q != ' ') q++;
  return (size_t)(q - p);
}

static bool same_field(const TextSlot *s, const JCursor *cur, size_t len) {
  return s->text && s->len == len && memcmp(s->text, cur->p, len) == 0;
}

/* Field k (op, dtype, arg) of a node at the cursor, the cursor past it */
static const JVal *field_read(TextRead *t, JCursor *cur, int k) {
  size_t len = field_len(cur);
  if (len && same_field(&t->last[k], cur, len)) {
    cur->p += len;
    return t->last[k].val;
  }
  TextSlot *s = len ? &t->slot[json_text_hash(cur->p, len) & (t->nslots - 1)] : NULL;
  if (s && same_field(s, cur, len)) {
    cur->p += len;
    return (t->last[k] = *s).val;
  }
  const char *at = cur->p;
  const JVal *v = json_cursor_value(cur);
  if (v && s && (size_t)(cur->p - at) == len) *s = t->last[k] = (TextSlot){at, len, v};
  return v;
}

/* The sources [j, ...] of node i at the cursor into t->src, each an index
 * below i written as plain digits; their count, or -1 when not so */
static long sources_read(TextRead *t, JCursor *cur, size_t i, const UOp **nodes) {
  if (cur->p >= cur->end || *cur->p != '[') return -1;
  cur->p++;
  size_t n = 0;
  if (cur->p < cur->end && *cur->p == ']') {
    cur->p++;
    return 0;
  }
  for (size_t idx;; cur->p++) { /* past the ',' */
    if (!json_cursor_index(cur, i, &idx) || cur->p >= cur->end) return -1;
    t->src = heap_grow(t->src, n, &t->src_cap, sizeof *t->src);
    t->src[n++] = nodes[idx];
    if (*cur->p == ']') break;
    if (*cur->p != ',') return -1;
  }
  cur->p++;
  return n <= UINT32_MAX ? (long)n : -1;
}

/* Node i at the cursor, [op, dtype, arg, [src...]] */
static bool node_of_text(Codec *c, TextRead *t, JCursor *cur, size_t i, const UOp **nodes, const UOp **out) {
  const JVal *f[3];
  if (!json_cursor_open(cur, '[')) return false;
  for (int k = 0; k < 3; k++)
    if (!json_cursor_more(cur, ']', k == 0) || !(f[k] = field_read(t, cur, k))) return false;
  if (!json_cursor_more(cur, ']', false)) return false;
  long n = sources_read(t, cur, i, nodes);
  if (n < 0 || json_cursor_more(cur, ']', false) || cur->failed) return false; /* a fifth field */
  Op op;
  const DType *dt;
  const Value *arg;
  Status st;
  if (!decode_head(c, &t->memo, f, i, "input.graph", &op, &dt, &arg, &st)) return false;
  *out = uop_new(c->in, op, dt, arg, (uint32_t)n, t->src);
  return true;
}

bool graph_decode_text(Codec *c, JCursor *cur, const UOp ***nodes_out, size_t *nnodes, const UOp ***roots_out,
                       size_t *nroots) {
  if (!json_cursor_open(cur, '{') || !json_cursor_key_is(cur, "nodes", 5) || !json_cursor_open(cur, '[')) return false;
  TextRead read = {.nslots = TEXT_MEMO_MIN}, *t = &read;
  while (t->nslots < TEXT_MEMO_MAX && t->nslots * TEXT_PER_SLOT < (size_t)(cur->end - cur->p)) t->nslots *= 2;
  if (!(t->slot = calloc(t->nslots, sizeof *t->slot))) abort();
  graph_memo_init(&t->memo);
  const UOp **nodes = NULL;
  size_t n = 0, cap = 0;
  bool ok = true;
  for (bool first = true; ok && json_cursor_more(cur, ']', first); first = false) {
    nodes = heap_grow(nodes, n, &cap, sizeof *nodes);
    ok = node_of_text(c, t, cur, n, nodes, &nodes[n]);
    n++;
  }
  const JVal *jr = NULL;
  ok = ok && !cur->failed && json_cursor_more(cur, '}', false) && json_cursor_key_is(cur, "roots", 5) &&
       (jr = json_cursor_value(cur)) && jr->kind == J_ARR && !json_cursor_more(cur, '}', false) && !cur->failed;
  for (size_t k = 0; ok && k < jr->n; k++)
    ok = jr->u.arr[k]->kind == J_INT && jr->u.arr[k]->u.i >= 0 && (uint64_t)jr->u.arr[k]->u.i < n;
  if (ok) {
    const UOp **kept = arena_array(c->arena, n ? n : 1, sizeof *kept);
    if (n) memcpy(kept, nodes, n * sizeof *nodes);
    const UOp **roots = arena_array(c->arena, jr->n ? jr->n : 1, sizeof *roots);
    for (size_t k = 0; k < jr->n; k++) roots[k] = kept[jr->u.arr[k]->u.i];
    *nodes_out = kept, *nnodes = n;
    *roots_out = roots, *nroots = jr->n;
  }
  free(nodes);
  free(t->src);
  free(t->slot);
  return ok;
}

typedef struct EncFrame { const UOp *u; uint32_t next; } EncFrame;

/* post-order from the roots, sources in order, each node once (uop_toposort's
 * order), numbering each node in enc_pos; returns the count */
static size_t encode_order(Codec *c, const UOp *const *roots, size_t nroots) {
  Arena *a = c->arena;
  size_t ids = uop_count(c->in);
  if (ids > c->enc_cap) {
    /* a quarter more than the ids so far, for the nodes made while the rest
     * is encoded (the old arrays stay behind in the arena: no doubling; a
     * new walk starts a new epoch, so their contents need no copy) */
    c->enc_cap = ids + ids / 4 + 64;
    c->enc_stamp = arena_array(a, c->enc_cap, sizeof *c->enc_stamp);
    c->enc_pos = arena_array(a, c->enc_cap, sizeof *c->enc_pos);
  }
  if (++c->enc_epoch == 0) {
    memset(c->enc_stamp, 0, c->enc_cap * sizeof *c->enc_stamp);
    c->enc_epoch = 1;
  }
  size_t n = 0, depth = 0;
  for (size_t r = 0; r < nroots; r++) {
    if (c->enc_stamp[roots[r]->id] == c->enc_epoch) continue;
    c->enc_stamp[roots[r]->id] = c->enc_epoch;
    if (depth == c->enc_stack_cap) c->enc_stack = arena_grow(a, c->enc_stack, depth, &c->enc_stack_cap, sizeof *c->enc_stack);
    c->enc_stack[depth++] = (EncFrame){roots[r], 0};
    while (depth) {
      EncFrame *f = &c->enc_stack[depth - 1];
      if (f->next < f->u->nsrc) {
        const UOp *s = f->u->src[f->next++];
        if (c->enc_stamp[s->id] == c->enc_epoch) continue;
        c->enc_stamp[s->id] = c->enc_epoch;
        if (depth == c->enc_stack_cap) c->enc_stack = arena_grow(a, c->enc_stack, depth, &c->enc_stack_cap, sizeof *c->enc_stack);
        c->enc_stack[depth++] = (EncFrame){s, 0};
        continue;
      }
      if (n == c->enc_order_cap) c->enc_order = arena_grow(a, c->enc_order, n, &c->enc_order_cap, sizeof *c->enc_order);
      c->enc_pos[f->u->id] = (uint32_t)n;
      c->enc_order[n++] = f->u;
      depth--;
    }
  }
  return n;
}

JVal *graph_encode(Codec *c, const UOp *const *roots, size_t nroots) {
  Arena *a = c->out;
  size_t n = encode_order(c, roots, nroots);
  JVal *nodes = json_arr_n(a, n), *jroots = json_arr_n(a, nroots);
  for (size_t i = 0; i < n; i++) {
    const UOp *u = c->enc_order[i];
    JVal *e = json_arr_n(a, 4), *src = json_arr_n(a, u->nsrc);
    e->u.arr[0] = op_json(a, u->op, c->v);
    e->u.arr[1] = u->dtype ? dtype_to_json(c, u->dtype) : &null_json;
    e->u.arr[2] = value_to_json(c, u->arg);
    e->u.arr[3] = src;
    for (uint32_t k = 0; k < u->nsrc; k++) src->u.arr[k] = int_json(a, c->enc_pos[u->src[k]->id]);
    nodes->u.arr[i] = e;
  }
  for (size_t r = 0; r < nroots; r++) jroots->u.arr[r] = int_json(a, c->enc_pos[roots[r]->id]);
  static const char *const keys[2] = {"nodes", "roots"};
  JVal *vals[2] = {nodes, jroots};
  return json_obj_fixed(a, 2, keys, vals);
}
