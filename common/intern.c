/* intern.c — hash-consing of Values and UOps (see intern.h, value.h, uop.h). */
#include "intern.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t mix(uint64_t x) {
  x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27; x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
/* One order-dependent step of a hash over several words (FxHash: a rotate,
 * an xor and a multiply); a hash is finished with mix(). */
static uint64_t step(uint64_t h, uint64_t x) { return ((h << 5 | h >> 59) ^ x) * 0x517cc1b727220a95ULL; }

static uint64_t hash_bytes(const char *s, size_t n) {
  uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
  return mix(h);
}

void interner_init(Interner *in, Arena *a) {
  memset(in, 0, sizeof *in);
  in->arena = a;
}

/* A table (of values or of nodes) holds at most 3/4 as many entries as it
 * has slots: a probe of the node table compares the slots' hash bits and
 * touches a node only when they match; a probe of the value table compares
 * the value's kind and hash first. */
static bool table_full(size_t n, size_t cap) { return 4 * n > 3 * cap; }

/* ---------------- values ---------------- */

static uint64_t st_hash_of(const Interner *in, const ShapeTracker *st) {
  return in->st_hash ? in->st_hash(st) : (uint64_t)(uintptr_t)st;
}
static bool st_same(const Interner *in, const ShapeTracker *a, const ShapeTracker *b) {
  return a == b || (in->st_equal && a && b && in->st_equal(a, b));
}

static uint64_t value_hash(const Interner *in, const Value *v) {
  uint64_t h = (uint64_t)v->kind + 1;
  switch (v->kind) {
    case V_NONE: break;
    case V_BOOL: h = step(h, v->u.b); break;
    case V_INT: h = step(h, (uint64_t)v->u.i); break;
    case V_BIGINT: h = step(step(h, v->u.big.lo), (uint64_t)v->u.big.hi); break;
    case V_FLOAT: {
      double f = v->u.f;
      uint64_t bits;
      memcpy(&bits, &f, sizeof bits);
      h = step(h, bits);
      break;
    }
    case V_STR: case V_SYM: case V_REPR: case V_BUFREF: h = step(h, hash_bytes(v->u.str.s, v->u.str.n)); break;
    case V_TUPLE:
      for (size_t i = 0; i < v->u.tuple.n; i++) h = step(h, v->u.tuple.items[i]->hash);
      h = step(h, v->u.tuple.n);
      break;
    case V_DTYPE: h = step(h, (uint64_t)(uintptr_t)v->u.dtype); break;
    case V_ST: h = step(h, st_hash_of(in, v->u.st)); break;
    case V_MEMBUFFER:
      h = step(step(step(h, (uint64_t)v->u.membuf.idx), (uintptr_t)v->u.membuf.dtype), st_hash_of(in, v->u.membuf.st));
      break;
    case V_CONSTBUFFER:
      h = step(step(step(h, v->u.constbuf.val->hash), (uintptr_t)v->u.constbuf.dtype), st_hash_of(in, v->u.constbuf.st));
      break;
  }
  return mix(h);
}

/* Exact identity of floats: bit patterns (so 0.0 and -0.0 stay two values,
 * int 1 and float 1.0 too); a scheduler that needs Python's == compares
 * with value_py_eq semantics itself. */
static bool value_same(const Interner *in, const Value *a, const Value *b) {
  if (a->kind != b->kind || a->hash != b->hash) return false;
  switch (a->kind) {
    case V_NONE: return true;
    case V_BOOL: return a->u.b == b->u.b;
    case V_INT: return a->u.i == b->u.i;
    case V_BIGINT: return a->u.big.lo == b->u.big.lo && a->u.big.hi == b->u.big.hi;
    case V_FLOAT: return memcmp(&a->u.f, &b->u.f, sizeof(double)) == 0;
    case V_STR: case V_SYM: case V_REPR: case V_BUFREF:
      return a->u.str.n == b->u.str.n && memcmp(a->u.str.s, b->u.str.s, a->u.str.n) == 0;
    case V_TUPLE:
      if (a->u.tuple.n != b->u.tuple.n) return false;
      for (size_t i = 0; i < a->u.tuple.n; i++)
        if (a->u.tuple.items[i] != b->u.tuple.items[i]) return false;
      return true;
    case V_DTYPE: return a->u.dtype == b->u.dtype;
    case V_ST: return st_same(in, a->u.st, b->u.st);
    case V_MEMBUFFER:
      return a->u.membuf.idx == b->u.membuf.idx && a->u.membuf.dtype == b->u.membuf.dtype && st_same(in, a->u.membuf.st, b->u.membuf.st);
    case V_CONSTBUFFER:
      return a->u.constbuf.val == b->u.constbuf.val && a->u.constbuf.dtype == b->u.constbuf.dtype &&
             st_same(in, a->u.constbuf.st, b->u.constbuf.st);
  }
  return false;
}

static void grow_values_to(Interner *in, size_t cap) {
  const Value **t = arena_array(in->arena, cap, sizeof *t);
  for (size_t i = 0; i < in->values_cap; i++) {
    const Value *v = in->values[i];
    if (!v) continue;
    size_t j = v->hash & (cap - 1);
    while (t[j]) j = (j + 1) & (cap - 1);
    t[j] = v;
  }
  in->values = t;
  in->values_cap = cap;
}

static void grow_values(Interner *in) { grow_values_to(in, in->values_cap ? in->values_cap * 2 : 256); }

static const Value *intern_value(Interner *in, Value *proto) {
  proto->hash = value_hash(in, proto);
  if (table_full(in->nvalues + 1, in->values_cap)) grow_values(in);
  size_t mask = in->values_cap - 1, j = proto->hash & mask;
  while (in->values[j]) {
    if (value_same(in, in->values[j], proto)) return in->values[j];
    j = (j + 1) & mask;
  }
  Value *v = arena_alloc(in->arena, sizeof *v);
  *v = *proto;
  if (v->kind == V_TUPLE && v->u.tuple.n) {
    const Value **items = arena_array(in->arena, v->u.tuple.n, sizeof *items);
    memcpy(items, proto->u.tuple.items, v->u.tuple.n * sizeof *items);
    v->u.tuple.items = items;
  }
  if (v->kind == V_STR || v->kind == V_SYM || v->kind == V_REPR || v->kind == V_BUFREF)
    v->u.str.s = arena_strndup(in->arena, proto->u.str.s, proto->u.str.n);
  in->values[j] = v;
  in->nvalues++;
  return v;
}

const Value *v_none(Interner *in) { Value p = {.kind = V_NONE}; return intern_value(in, &p); }
const Value *v_bool(Interner *in, bool b) { Value p = {.kind = V_BOOL, .u.b = b}; return intern_value(in, &p); }
const Value *v_int(Interner *in, int64_t i) { Value p = {.kind = V_INT, .u.i = i}; return intern_value(in, &p); }
const Value *v_float(Interner *in, double f) { Value p = {.kind = V_FLOAT, .u.f = f}; return intern_value(in, &p); }
const Value *v_pyint(Interner *in, PyInt x) {
  if (x >= INT64_MIN && x <= INT64_MAX) return v_int(in, (int64_t)x);
  Value p = {.kind = V_BIGINT, .u.big = {(uint64_t)x, (int64_t)(x >> 64)}};
  return intern_value(in, &p);
}
const Value *v_strn(Interner *in, ValueKind kind, const char *s, size_t n) {
  Value p = {.kind = kind, .u.str = {s, n}};
  return intern_value(in, &p);
}
const Value *v_str(Interner *in, const char *s) { return v_strn(in, V_STR, s, strlen(s)); }
const Value *v_tuple(Interner *in, size_t n, const Value *const *items) {
  Value p = {.kind = V_TUPLE, .u.tuple = {n, items}};
  return intern_value(in, &p);
}
const Value *v_dtype(Interner *in, const DType *d) { Value p = {.kind = V_DTYPE, .u.dtype = d}; return intern_value(in, &p); }
const Value *v_st(Interner *in, const ShapeTracker *st) { Value p = {.kind = V_ST, .u.st = st}; return intern_value(in, &p); }
const Value *v_membuffer(Interner *in, int64_t idx, const DType *d, const ShapeTracker *st) {
  Value p = {.kind = V_MEMBUFFER, .u.membuf = {idx, d, st}};
  return intern_value(in, &p);
}
const Value *v_constbuffer(Interner *in, const Value *val, const DType *d, const ShapeTracker *st) {
  Value p = {.kind = V_CONSTBUFFER, .u.constbuf = {val, d, st}};
  return intern_value(in, &p);
}

bool value_truthy(const Value *v) {
  switch (v->kind) {
    case V_NONE: return false;
    case V_BOOL: return v->u.b;
    case V_INT: return v->u.i != 0;
    case V_FLOAT: return v->u.f != 0.0;
    case V_STR: return v->u.str.n != 0;
    case V_TUPLE: return v->u.tuple.n != 0;
    default: return true; /* V_BIGINT is never 0 */
  }
}

bool value_is_int(const Value *v) { return v->kind == V_INT || v->kind == V_BIGINT; }
bool value_is_number(const Value *v) { return value_is_int(v) || v->kind == V_BOOL || v->kind == V_FLOAT; }

bool value_eq_int(const Value *v, int64_t i) {
  switch (v->kind) {
    case V_BOOL: return (int64_t)v->u.b == i;
    case V_INT: return v->u.i == i;
    case V_FLOAT: /* exact: 2.0**63 is not 2**63-1 */
      return v->u.f == floor(v->u.f) && v->u.f >= -0x1p63 && v->u.f < 0x1p63 && (int64_t)v->u.f == i;
    default: return false; /* a V_BIGINT is outside int64 */
  }
}

PyInt value_pyint(const Value *v) {
  switch (v->kind) {
    case V_BOOL: return v->u.b;
    case V_INT: return v->u.i;
    case V_BIGINT: return (PyInt)(((unsigned __int128)(uint64_t)v->u.big.hi << 64) | v->u.big.lo);
    default: return 0;
  }
}

size_t pyint_format(PyInt x, char *buf) {
  char rev[PYINT_TEXT];
  size_t n = 0, k = 0;
  unsigned __int128 m = x < 0 ? -(unsigned __int128)x : (unsigned __int128)x;
  do rev[n++] = (char)('0' + (int)(m % 10)); while ((m /= 10) != 0);
  if (x < 0) buf[k++] = '-';
  while (n) buf[k++] = rev[--n];
  buf[k] = 0;
  return k;
}

bool pyint_parse(const char *s, size_t n, PyInt *out) {
  bool neg = n > 0 && s[0] == '-';
  size_t i = neg ? 1 : 0;
  if (i == n) return false;
  unsigned __int128 m = 0, limit = neg ? (unsigned __int128)PYINT_MAX + 1 : (unsigned __int128)PYINT_MAX;
  for (; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return false;
    unsigned d = (unsigned)(s[i] - '0');
    if (m > (limit - d) / 10) return false;
    m = m * 10 + d;
  }
  *out = neg ? (PyInt)(0 - m) : (PyInt)m;
  return true;
}

const Value *v_int_of_float(Interner *in, double f) {
  if (!(f >= -0x1p127 && f < 0x1p127)) return NULL; /* NaN too */
  return v_pyint(in, (PyInt)f);
}

double value_to_double(const Value *v) {
  switch (v->kind) {
    case V_BOOL: return v->u.b ? 1.0 : 0.0;
    case V_INT: return (double)v->u.i;
    case V_BIGINT: return (double)value_pyint(v); /* rounds to nearest, as Python's float(int) */
    case V_FLOAT: return v->u.f;
    default: return 0.0;
  }
}

/* ---------------- uops ---------------- */

/* What uop_new looks up: a node's fields with its sources elsewhere */
typedef struct UOpKey {
  Op op;
  uint32_t nsrc;
  const DType *dtype;
  const Value *arg;
  const UOp *const *src;
  uint64_t hash;
} UOpKey;

static uint64_t uop_hash(const UOpKey *u) {
  uint64_t h = step(step((uint64_t)u->op + 1, (uint64_t)(uintptr_t)u->dtype), u->arg->hash);
  for (uint32_t i = 0; i < u->nsrc; i++) h = step(h, u->src[i]->hash);
  return mix(step(h, u->nsrc));
}

static bool uop_same(const UOp *a, const UOpKey *b) {
  if (a->hash != b->hash || a->op != b->op || a->dtype != b->dtype || a->arg != b->arg || a->nsrc != b->nsrc) return false;
  for (uint32_t i = 0; i < a->nsrc; i++)
    if (a->src[i] != b->src[i]) return false;
  return true;
}

/* A UOp table slot is 32 bits: id + 1 in the low log2(cap) bits (a table
 * at most 3/4 full holds ids below cap), and above them as many of the
 * hash's high bits as fit, which let a probe skip most mismatches without
 * touching a node. 0 is an empty slot. */
static uint32_t slot_tag(size_t cap, uint64_t hash) { return (uint32_t)(hash >> 32) & ~(uint32_t)(cap - 1); }
static uint32_t slot_make(size_t cap, const UOp *u) { return slot_tag(cap, u->hash) | (u->id + 1); }
static uint32_t slot_for(const Interner *in, const UOp *u) { return slot_make(in->uop_slots_cap, u); }
static uint32_t slot_id(const Interner *in, uint32_t slot) { return (slot & (uint32_t)(in->uop_slots_cap - 1)) - 1; }

static void grow_uops_to(Interner *in, size_t cap) {
  if (cap > ((size_t)1 << 31)) { fprintf(stderr, "tsched: more than 2^30 nodes\n"); abort(); }
  uint32_t *t = arena_array(in->arena, cap, sizeof *t);
  for (uint32_t i = 0; i < in->nuops; i++) {
    const UOp *u = uop_by_id(in, i);
    size_t j = u->hash & (cap - 1);
    while (t[j]) j = (j + 1) & (cap - 1);
    t[j] = slot_make(cap, u);
  }
  in->uop_slots = t;
  in->uop_slots_cap = cap;
}

static void grow_uops(Interner *in) { grow_uops_to(in, in->uop_slots_cap ? in->uop_slots_cap * 2 : 256); }

/* Room in the id -> node pages for ids below n: the directory doubles (it
 * is small), the pages are made as they are needed and never move. */
static void reserve_by_id(Interner *in, size_t n) {
  size_t npages = (n + BY_ID_PAGE - 1) >> BY_ID_PAGE_BITS;
  if (npages > in->by_id_dir_cap) {
    size_t cap = in->by_id_dir_cap ? in->by_id_dir_cap * 2 : 16;
    while (cap < npages) cap *= 2;
    const UOp ***dir = arena_array(in->arena, cap, sizeof *dir);
    if (in->by_id_npages) memcpy(dir, in->by_id_pages, in->by_id_npages * sizeof *dir);
    in->by_id_pages = dir;
    in->by_id_dir_cap = cap;
  }
  for (; in->by_id_npages < npages; in->by_id_npages++)
    in->by_id_pages[in->by_id_npages] = arena_array(in->arena, BY_ID_PAGE, sizeof **in->by_id_pages);
}

static void append_by_id(Interner *in, const UOp *u) {
  if ((in->nuops >> BY_ID_PAGE_BITS) >= in->by_id_npages) reserve_by_id(in, in->nuops + 1);
  in->by_id_pages[in->nuops >> BY_ID_PAGE_BITS][in->nuops & (BY_ID_PAGE - 1)] = u;
  in->nuops++;
}

/* the table capacity (a power of two) that holds n entries */
static size_t table_cap(size_t n) {
  size_t cap = 256;
  while (table_full(n + 1, cap)) cap *= 2;
  return cap;
}

/* the slot holding node u */
static size_t slot_of(const Interner *in, const UOp *u) {
  size_t mask = in->uop_slots_cap - 1, j = u->hash & mask;
  uint32_t want = slot_for(in, u);
  while (in->uop_slots[j] != want) j = (j + 1) & mask;
  return j;
}

/* slot j emptied, the later entries of its run that could no longer be
 * found moved back into the hole (backward-shift deletion) */
static void slot_delete(Interner *in, size_t j) {
  size_t mask = in->uop_slots_cap - 1;
  for (size_t i = (j + 1) & mask; in->uop_slots[i]; i = (i + 1) & mask) {
    size_t home = uop_by_id(in, slot_id(in, in->uop_slots[i]))->hash & mask;
    if (((i - home) & mask) >= ((i - j) & mask)) in->uop_slots[j] = in->uop_slots[i], j = i;
  }
  in->uop_slots[j] = 0;
}

/* the nodes made since mark that keep[0..nkeep) need, sources first; kept[id - mark] set for them */
static size_t survivors(uint32_t mark, const UOp *const *keep, size_t nkeep, uint8_t *kept, const UOp **order, Arena *scratch) {
  typedef struct { const UOp *u; uint32_t next; } Frame;
  size_t cap = 64, depth = 0, n = 0;
  Frame *stack = arena_array(scratch, cap, sizeof *stack);
  for (size_t k = 0; k < nkeep; k++) {
    if (keep[k]->id < mark || kept[keep[k]->id - mark]) continue;
    kept[keep[k]->id - mark] = 1;
    stack[depth++] = (Frame){keep[k], 0};
    while (depth) { /* post-order */
      Frame *f = &stack[depth - 1];
      if (f->next == f->u->nsrc) {
        order[n++] = f->u;
        depth--;
        continue;
      }
      const UOp *c = f->u->src[f->next++];
      if (c->id < mark || kept[c->id - mark]) continue;
      kept[c->id - mark] = 1;
      if (depth == cap) {
        Frame *bigger = arena_array(scratch, cap * 2, sizeof *bigger);
        memcpy(bigger, stack, cap * sizeof *stack);
        stack = bigger, cap *= 2;
      }
      stack[depth++] = (Frame){c, 0};
    }
  }
  return n;
}

/* u's copy in in->arena with the next id, its sources made since mark replaced by their copies */
static const UOp *copy_node(Interner *in, const UOp *u, uint32_t mark, const UOp **copy) {
  UOp *c = arena_alloc(in->arena, sizeof *c + u->nsrc * sizeof(UOp *));
  c->op = u->op, c->nsrc = u->nsrc, c->dtype = u->dtype, c->arg = u->arg, c->hash = u->hash;
  const UOp **src = (const UOp **)c->src;
  for (uint32_t i = 0; i < u->nsrc; i++) src[i] = u->src[i]->id >= mark ? copy[u->src[i]->id - mark] : u->src[i];
  c->id = (uint32_t)in->nuops++; /* below the count made: its id page is there */
  in->by_id_pages[c->id >> BY_ID_PAGE_BITS][c->id & (BY_ID_PAGE - 1)] = c;
  copy[u->id - mark] = c;
  return c;
}

/* The table is updated in place (a rebuild would cost the whole table): the
 * forgotten nodes' slots deleted first, while every id still names its
 * node; then each survivor's slot, found under its old id, takes its copy. */
const UOp *const *interner_compact_since(Interner *in, uint32_t mark, const UOp **keep, size_t nkeep, Arena *scratch) {
  uint32_t made = (uint32_t)in->nuops;
  if (mark >= made) return NULL;
  size_t n = made - mark;
  uint8_t *kept = arena_array(scratch, n, 1);
  const UOp **order = arena_array(scratch, n, sizeof *order), **copy = arena_array(scratch, n, sizeof *copy);
  size_t nkept = survivors(mark, keep, nkeep, kept, order, scratch);
  for (uint32_t id = mark; id < made; id++)
    if (!kept[id - mark]) slot_delete(in, slot_of(in, uop_by_id(in, id)));
  size_t *pos = arena_array(scratch, nkept + 1, sizeof *pos);
  for (size_t k = 0; k < nkept; k++) pos[k] = slot_of(in, order[k]);
  in->nuops = mark;
  for (size_t k = 0; k < nkept; k++) in->uop_slots[pos[k]] = slot_for(in, copy_node(in, order[k], mark, copy));
  for (size_t k = 0; k < nkeep; k++)
    if (keep[k]->id >= mark) keep[k] = copy[keep[k]->id - mark];
  return copy;
}

void interner_reserve(Interner *in, size_t nuops, size_t nvalues) {
  if (table_cap(nuops) > in->uop_slots_cap) grow_uops_to(in, table_cap(nuops));
  reserve_by_id(in, nuops);
  if (table_cap(nvalues) > in->values_cap) grow_values_to(in, table_cap(nvalues));
}

const UOp *uop_new(Interner *in, Op op, const DType *dtype, const Value *arg, uint32_t nsrc, const UOp *const *src) {
  if (!arg) arg = in->none ? in->none : (in->none = v_none(in));
  UOpKey proto = {.op = op, .nsrc = nsrc, .dtype = dtype, .arg = arg, .src = src};
  proto.hash = uop_hash(&proto);
  if (table_full(in->nuops + 1, in->uop_slots_cap)) grow_uops(in);
  size_t mask = in->uop_slots_cap - 1, j = proto.hash & mask;
  uint32_t tag = slot_tag(in->uop_slots_cap, proto.hash);
  for (; in->uop_slots[j]; j = (j + 1) & mask) {
    if ((in->uop_slots[j] & ~(uint32_t)mask) != tag) continue;
    const UOp *other = uop_by_id(in, slot_id(in, in->uop_slots[j]));
    if (uop_same(other, &proto)) return other;
  }
  if (nsrc > UOP_MAX_SRC) { fprintf(stderr, "tsched: a node with more than 2^24 sources\n"); abort(); }
  /* the node and its source array in one allocation */
  UOp *u = arena_alloc(in->node_arena ? in->node_arena : in->arena, sizeof *u + nsrc * sizeof(UOp *));
  u->op = op, u->nsrc = nsrc, u->dtype = dtype, u->arg = arg, u->hash = proto.hash;
  const UOp **s = (const UOp **)u->src;
  for (uint32_t i = 0; i < nsrc; i++) s[i] = src[i]; /* a few pointers: no call to memcpy */
  u->id = (uint32_t)in->nuops;
  in->uop_slots[j] = slot_for(in, u);
  append_by_id(in, u);
  return u;
}

const UOp *uop0(Interner *in, Op op, const DType *dtype, const Value *arg) { return uop_new(in, op, dtype, arg, 0, NULL); }
const UOp *uop1(Interner *in, Op op, const DType *dtype, const Value *arg, const UOp *a) {
  const UOp *s[1] = {a};
  return uop_new(in, op, dtype, arg, 1, s);
}
const UOp *uop2(Interner *in, Op op, const DType *dtype, const Value *arg, const UOp *a, const UOp *b) {
  const UOp *s[2] = {a, b};
  return uop_new(in, op, dtype, arg, 2, s);
}
const UOp *uop3(Interner *in, Op op, const DType *dtype, const Value *arg, const UOp *a, const UOp *b, const UOp *c) {
  const UOp *s[3] = {a, b, c};
  return uop_new(in, op, dtype, arg, 3, s);
}
const UOp *uop_with_src(Interner *in, const UOp *u, uint32_t nsrc, const UOp *const *src) {
  return uop_new(in, u->op, u->dtype, u->arg, nsrc, src);
}
uint32_t uop_count(const Interner *in) { return (uint32_t)in->nuops; }

/* Iterative post-order DFS, sources in order, each node once. */
size_t uop_toposort(Arena *a, const UOp *const *roots, size_t nroots, const UOp ***out) {
  typedef struct { const UOp *u; uint32_t next; } Frame;
  size_t cap = 64, n = 0, depth = 0, scap = 64;
  const UOp **order = arena_array(a, cap, sizeof *order);
  Frame *stack = arena_array(a, scap, sizeof *stack);
  OMap seen;
  omap_init(&seen, a);
  for (size_t r = 0; r < nroots; r++) {
    if (omap_has(&seen, omap_ptr(roots[r]))) continue;
    omap_put(&seen, omap_ptr(roots[r]), (void *)1);
    stack[depth++] = (Frame){roots[r], 0};
    while (depth) {
      Frame *f = &stack[depth - 1];
      if (f->next < f->u->nsrc) {
        const UOp *s = f->u->src[f->next++];
        if (omap_has(&seen, omap_ptr(s))) continue;
        omap_put(&seen, omap_ptr(s), (void *)1);
        if (depth == scap) {
          Frame *bigger = arena_array(a, scap * 2, sizeof *bigger);
          memcpy(bigger, stack, scap * sizeof *stack);
          stack = bigger;
          scap *= 2;
        }
        stack[depth++] = (Frame){s, 0};
        continue;
      }
      if (n == cap) {
        const UOp **bigger = arena_array(a, cap * 2, sizeof *bigger);
        memcpy(bigger, order, cap * sizeof *order);
        order = bigger;
        cap *= 2;
      }
      order[n++] = f->u;
      depth--;
    }
  }
  *out = order;
  return n;
}
