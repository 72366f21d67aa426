/* uops.c — the UOp methods of tinygrad 0.10.2 ops.py that the scheduler
 * uses (kg.h). Cached properties (`st`, `_device`) are OMaps; their Python
 * recursion is an explicit stack. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kg.h"


/* Room in a page directory for page p: a copy twice as big (at least 16) */
static void **page_dir(Arena *a, void **pages, size_t *npages, size_t p) {
  if (p < *npages) return pages;
  size_t n = *npages ? *npages * 2 : 16;
  while (n <= p) n *= 2;
  void **bigger = arena_array(a, n, sizeof *bigger);
  if (*npages) memcpy(bigger, pages, *npages * sizeof *bigger);
  *npages = n;
  return bigger;
}

void v0_10_2_idmap_put(Arena *a, IdMap *m, const UOp *u, void *val) {
  size_t p = u->id >> ID_PAGE_BITS;
  if (p >= m->npages) m->pages = (void ***)page_dir(a, (void **)m->pages, &m->npages, p);
  if (!m->pages[p]) m->pages[p] = arena_array(a, ID_PAGE, sizeof **m->pages);
  m->pages[p][u->id & (ID_PAGE - 1)] = val;
}

static void idindex_put(Arena *a, IdIndex *m, const UOp *u, uint32_t val) {
  size_t p = u->id >> ID_PAGE_BITS;
  if (p >= m->npages) m->pages = (uint32_t **)page_dir(a, (void **)m->pages, &m->npages, p);
  if (!m->pages[p]) m->pages[p] = arena_array(a, ID_PAGE, sizeof **m->pages);
  m->pages[p][u->id & (ID_PAGE - 1)] = val;
}

void v0_10_2_idset_add(Arena *a, IdSet *s, const UOp *u) {
  size_t p = u->id >> ID_PAGE_BITS;
  if (p >= s->npages) s->pages = (uint8_t **)page_dir(a, (void **)s->pages, &s->npages, p);
  if (!s->pages[p]) s->pages[p] = arena_alloc(a, ID_PAGE);
  uint8_t *in = &s->pages[p][u->id & (ID_PAGE - 1)];
  s->len += !*in;
  *in = 1;
}

bool v0_10_2_idset_del(IdSet *s, const UOp *u) {
  if (!v0_10_2_idset_has(s, u)) return false;
  s->pages[u->id >> ID_PAGE_BITS][u->id & (ID_PAGE - 1)] = 0;
  s->len--;
  return true;
}

void v0_10_2_ulist_push(Arena *a, UList *l, const UOp *u) {
  if (l->n == l->cap) {
    size_t ncap = l->cap ? l->cap * 2 : 2;
    const UOp **bigger = arena_array(a, ncap, sizeof *bigger);
    if (l->n) memcpy(bigger, l->items, l->n * sizeof *bigger);
    l->items = bigger;
    l->cap = ncap;
  }
  l->items[l->n++] = u;
}

UList *v0_10_2_ulist_of(Arena *a, IdMap *m, const UOp *key) {
  UList *l = v0_10_2_idmap_get(m, key);
  if (!l) {
    l = arena_alloc(a, sizeof *l);
    v0_10_2_idmap_put(a, m, key, l);
  }
  return l;
}

/* ---------------------------------------------------------------- scratch arenas */

/* the walks' heap buffers freed (they go with the caches) */
static void walk_bufs_free(KG *k) {
  free(k->walk), k->walk = NULL, k->walk_cap = 0;
  free(k->marks), k->marks = NULL, k->marks_cap = 0, k->epoch = 0;
  free(k->topo_stack), k->topo_stack = NULL, k->topo_stack_cap = 0;
  free((void *)k->topo), k->topo = NULL, k->topo_cap = 0;
  for (int i = 0; i < 2; i++) free((void *)k->append_bufs[i]), k->append_bufs[i] = NULL, k->append_caps[i] = 0;
}

void v0_10_2_scratch_end_all(KG *k) {
  walk_bufs_free(k);
  k->in->node_arena = NULL; /* one of these (encode.c) */
  arena_scratch_end_all(&k->scratch);
  k->in->memo_arena = NULL;
  k->caches = k->a;
}

void v0_10_2_caches_begin(KG *k) {
  k->caches = arena_scratch_begin(&k->scratch);
  k->in->memo_arena = k->caches;
  omap_init(&k->mop_memo, k->caches);
}

void v0_10_2_caches_drop(KG *k) {
  rewrite_memos_forget(k->in);
  k->in->memo_arena = NULL;
  k->st_cache = k->dev_cache = (IdIndex){0};
  walk_bufs_free(k);
  omap_init(&k->mop_memo, k->a);
  Arena *caches = k->caches;
  k->caches = k->a; /* from here on, what is remembered goes into k->a */
  arena_scratch_end(&k->scratch, caches);
}

/* ---------------------------------------------------------------- values */

const Value *v0_10_2_value_int(KG *k, int64_t i) { return v_int(k->in, i); }

const Value *v0_10_2_value_ints(KG *k, uint32_t n, const int64_t *v) {
  const Value *items[ST_MAXDIM * 2];
  for (uint32_t i = 0; i < n; i++) items[i] = v_int(k->in, v[i]);
  return v_tuple(k->in, n, items);
}

const Value *v0_10_2_value_st(KG *k, const ST *s) { return v_st(k->in, (const ShapeTracker *)s); }
const ST *v0_10_2_value_get_st(const Value *v) { return v && v->kind == V_ST ? (const ST *)v->u.st : NULL; }

static sint *sint_box(KG *k, sint x) {
  sint *p = arena_alloc(k->a, sizeof *p);
  *p = x;
  return p;
}

/* a sint as a Value: an int, or the contract's {"sym": EXPR} as the codec
 * keeps it (V_SYM: the JSON text of EXPR), memoised per symbolic UOp */
const Value *v0_10_2_value_sint(KG *k, sint x) {
  if (v0_10_2_sint_is_int(x)) return v_int(k->in, v0_10_2_sint_int(x));
  const Value *v = omap_get(&k->sym_values, omap_ptr(x.sym));
  if (v) return v;
  const JVal *e = json_get(sint_to_json(k->a, x), "sym");
  size_t n;
  char *text = json_to_string(e, &n);
  v = v_strn(k->in, V_SYM, text, n);
  free(text);
  omap_put(&k->sym_values, omap_ptr(x.sym), (void *)v);
  omap_put(&k->sym_sints, omap_ptr(v), sint_box(k, x));
  return v;
}

/* a V_SYM Value as a sint: its EXPR decoded into the symbolic context, memoised per Value */
static sint sym_value_sint(KG *k, const Value *v) {
  const sint *have = omap_get(&k->sym_sints, omap_ptr(v));
  if (have) return *have;
  char err[64];
  JVal *e = json_parse_text(k->a, arena_printf(k->a, "%.*s", (int)v->u.str.n, v->u.str.s), err, sizeof err);
  if (!e) error_bad_input("a symbolic value that is not JSON: %s", err);
  JVal *o = json_obj(k->a);
  json_set(k->a, o, "sym", e);
  sint x = sint_from_json(k->a, o);
  omap_put(&k->sym_sints, omap_ptr(v), sint_box(k, x));
  omap_setdefault(&k->sym_values, omap_ptr(x.sym), (void *)v);
  return x;
}

const Value *v0_10_2_value_sints(KG *k, uint32_t n, const sint *v) {
  const Value *items[ST_MAXDIM * 2];
  for (uint32_t i = 0; i < n; i++) items[i] = v0_10_2_value_sint(k, v[i]);
  return v_tuple(k->in, n, items);
}

static bool get_sint(KG *k, const Value *v, sint *out) {
  if (v->kind == V_INT) *out = v0_10_2_sint_of(v->u.i);
  else if (v->kind == V_BOOL) *out = v0_10_2_sint_of(v->u.b);
  else if (v->kind == V_SYM) *out = sym_value_sint(k, v);
  else return false;
  return true;
}

static bool get_sints(KG *k, const Value *v, uint32_t *n, sint *out) {
  if (v->kind != V_TUPLE || v->u.tuple.n > ST_MAXDIM) return false;
  for (size_t i = 0; i < v->u.tuple.n; i++)
    if (!get_sint(k, v->u.tuple.items[i], &out[i])) return false;
  *n = (uint32_t)v->u.tuple.n;
  return true;
}

static bool get_ints(const Value *v, uint32_t *n, int64_t *out) {
  if (v->kind != V_TUPLE || v->u.tuple.n > ST_MAXDIM) return false;
  for (size_t i = 0; i < v->u.tuple.n; i++) {
    const Value *x = v->u.tuple.items[i];
    if (x->kind == V_INT) out[i] = x->u.i;
    else if (x->kind == V_BOOL) out[i] = x->u.b;
    else return false;
  }
  *n = (uint32_t)v->u.tuple.n;
  return true;
}

/* dtypes.as_const */
const Value *v0_10_2_as_const(KG *k, const Value *b, const DType *dt) {
  if (dtype_is_int(dt)) {
    if (value_is_int(b)) return b;
    if (b->kind == V_BOOL) return v_int(k->in, b->u.b);
    if (b->kind == V_FLOAT) {
      double f = b->u.f;
      if (isnan(f)) error_raise("ValueError", "cannot convert float NaN to integer");
      if (isinf(f)) error_raise("OverflowError", "cannot convert float infinity to integer");
      const Value *i = v_int_of_float(k->in, f);
      if (!i) error_unsupported("an integer constant beyond 64 bits");
      return i;
    }
  } else if (dtype_is_float(dt)) {
    if (b->kind == V_FLOAT) return b;
    if (value_is_number(b)) return v_float(k->in, value_to_double(b));
  } else {
    return v_bool(k->in, value_truthy(b));
  }
  error_unsupported("a constant that is not a number");
}

/* ---------------------------------------------------------------- construction */

static bool float_zero(const Value *v) { return v->kind == V_FLOAT && v->u.f == 0.0; }

/* UOp(op, dtype, src, arg). Python's UOp cache compares args with ==, so a
 * CONST 0.0 and a CONST -0.0 are one node: whichever exists first. */
const UOp *v0_10_2_uop(KG *k, Op op, const DType *dt, const Value *arg, uint32_t n, const UOp *const *src) {
  if (op != OP_CONST || !arg || !float_zero(arg)) return uop_new(k->in, op, dt, arg, n, src);
  const UOp *plus = uop_new(k->in, op, dt, v_float(k->in, 0.0), n, src);
  const UOp *have = omap_get(&k->zero_consts, omap_ptr(plus));
  if (have) return have;
  const UOp *u = uop_new(k->in, op, dt, arg, n, src);
  omap_put(&k->zero_consts, omap_ptr(plus), (void *)u);
  return u;
}

void v0_10_2_note_const(KG *k, const UOp *u) {
  if (u->op != OP_CONST || !float_zero(u->arg)) return;
  const UOp *plus = uop_new(k->in, u->op, u->dtype, v_float(k->in, 0.0), u->nsrc, u->src);
  omap_setdefault(&k->zero_consts, omap_ptr(plus), (void *)u);
}

const UOp *v0_10_2_uop1(KG *k, Op op, const DType *dt, const Value *arg, const UOp *a) {
  return v0_10_2_uop(k, op, dt, arg, 1, &a);
}
const UOp *v0_10_2_uop2(KG *k, Op op, const DType *dt, const Value *arg, const UOp *a, const UOp *b) {
  const UOp *s[2] = {a, b};
  return v0_10_2_uop(k, op, dt, arg, 2, s);
}
const UOp *v0_10_2_uop3(KG *k, Op op, const DType *dt, const Value *arg, const UOp *a, const UOp *b, const UOp *c) {
  const UOp *s[3] = {a, b, c};
  return v0_10_2_uop(k, op, dt, arg, 3, s);
}

/* UOp.replace */
const UOp *v0_10_2_replace_src(KG *k, const UOp *u, uint32_t n, const UOp *const *src) {
  if (n == u->nsrc && (n == 0 || memcmp(src, u->src, n * sizeof *src) == 0)) return u;
  return v0_10_2_uop(k, u->op, u->dtype, u->arg, n, src);
}
const UOp *v0_10_2_replace_dtype(KG *k, const UOp *u, const DType *dt) {
  return dt == u->dtype ? u : v0_10_2_uop(k, u->op, dt, u->arg, u->nsrc, u->src);
}
const UOp *v0_10_2_replace_arg(KG *k, const UOp *u, const Value *arg) {
  return arg == u->arg ? u : v0_10_2_uop(k, u->op, u->dtype, arg, u->nsrc, u->src);
}
const UOp *v0_10_2_replace_op(KG *k, const UOp *u, Op op) {
  return op == u->op ? u : v0_10_2_uop(k, op, u->dtype, u->arg, u->nsrc, u->src);
}

typedef struct PtrDType { const DType *dt; int64_t size; const DType *ptr; } PtrDType;

const DType *v0_10_2_dtype_ptr(KG *k, const DType *dt, int64_t size) {
  uint64_t key = (uint64_t)(uintptr_t)dt * 0x9e3779b97f4a7c15ULL ^ (uint64_t)size;
  PtrDType *have = omap_get(&k->ptr_dtypes, key);
  if (have && have->dt == dt && have->size == size) return have->ptr;
  PtrDType *p = arena_alloc(k->a, sizeof *p);
  *p = (PtrDType){dt, size, dtype_ptr(dt, size, false)};
  omap_put(&k->ptr_dtypes, key, p);
  return p->ptr;
}

/* ---------------------------------------------------------------- st */

Op v0_10_2_reduce_op_of(const KG *k, const UOp *r) {
  const Value *a = r->arg;
  if (a->kind != V_TUPLE || a->u.tuple.n != 2 || a->u.tuple.items[0]->kind != V_STR) return OP_NONE;
  return op_parse(a->u.tuple.items[0]->u.str.s, k->cap->generation);
}

uint32_t v0_10_2_axis_arg(const UOp *r, int64_t *out) {
  uint32_t n = 0;
  if (r->arg->kind != V_TUPLE || r->arg->u.tuple.n != 2 || !get_ints(r->arg->u.tuple.items[1], &n, out)) return 0;
  return n;
}

/* The i-th UOp whose st UOp.st reads for u, or NULL past the last. */
static const UOp *st_dep(KG *k, const UOp *u, uint32_t i) {
  switch (u->op) {
    case OP_BUFFER: case OP_VIEW: return NULL;
    case OP_KERNEL: return i == 0 ? v0_10_2_kernel_arg_ast(k, u) : NULL;
    default: break;
  }
  if (op_in(&k->groups, GROUP_MOVEMENT, u->op)) return i == 0 && u->nsrc ? u->src[0] : NULL;
  if (op_in(&k->groups, GROUP_BUFFER, u->op)) return NULL;
  return i < u->nsrc ? u->src[i] : NULL;
}

static const ST *cached_st(KG *k, const UOp *u, bool *found) {
  uint32_t c = v0_10_2_idindex_get(&k->st_cache, u);
  *found = c != 0;
  return c >= 2 ? v0_10_2_st_at(&k->stc, c - 2) : NULL;
}

static const ST *mop_st_compute(KG *k, const ST *s, Op op, const Value *arg) {
  int64_t v[ST_MAXDIM];
  sint sv[ST_MAXDIM];
  uint32_t n = 0;
  if (op == OP_PAD || op == OP_SHRINK) {
    SPair pairs[ST_MAXDIM];
    if (arg->kind != V_TUPLE || arg->u.tuple.n != v0_10_2_st_ndim(s))
      error_raise("AssertionError", "invalid %s arg", op == OP_PAD ? "pad" : "shrink");
    for (size_t i = 0; i < arg->u.tuple.n; i++) {
      uint32_t m;
      sint p[ST_MAXDIM];
      if (!get_sints(k, arg->u.tuple.items[i], &m, p) || m != 2) error_unsupported("a malformed movement arg");
      pairs[i] = (SPair){p[0], p[1]};
    }
    return op == OP_PAD ? v0_10_2_st_pad(&k->stc, s, pairs) : v0_10_2_st_shrink(&k->stc, s, pairs);
  }
  if (op == OP_RESHAPE || op == OP_EXPAND) {
    if (!get_sints(k, arg, &n, sv)) error_unsupported("a malformed movement arg");
    return op == OP_RESHAPE ? v0_10_2_st_reshape(&k->stc, s, n, sv) : v0_10_2_st_expand(&k->stc, s, n, sv);
  }
  if (!get_ints(arg, &n, v)) error_unsupported("a symbolic or malformed movement arg");
  switch (op) {
    case OP_PERMUTE:
      if (n != v0_10_2_st_ndim(s)) error_raise("AssertionError", "invalid permutation");
      return v0_10_2_st_permute(&k->stc, s, v);
    case OP_FLIP: {
      bool f[ST_MAXDIM];
      if (n != v0_10_2_st_ndim(s)) error_raise("AssertionError", "invalid flip");
      for (uint32_t i = 0; i < n; i++) f[i] = v[i] != 0;
      return v0_10_2_st_flip(&k->stc, s, f);
    }
    default: error_unsupported("movement op %s", op_name(op, k->cap->generation));
  }
}

/* The ShapeTracker a movement op gives, memoised on (st, op, arg): the
 * ShapeTracker methods are pure (Python caches View.reshape the same way),
 * and movement args are interned Values. */
typedef struct MopMemo { const ST *s; Op op; const Value *arg; const ST *r; } MopMemo;

static const ST *mop_st(KG *k, const ST *s, Op op, const Value *arg) {
  uint64_t key = ((uint64_t)(uintptr_t)s * 0x9e3779b97f4a7c15ULL) ^ ((uint64_t)(uintptr_t)arg * 0xc2b2ae3d27d4eb4fULL) ^ (uint64_t)op;
  MopMemo *m = omap_get(&k->mop_memo, key);
  if (m && m->s == s && m->op == op && m->arg == arg) return m->r;
  const ST *r = mop_st_compute(k, s, op, arg);
  m = arena_alloc(k->caches, sizeof *m);
  *m = (MopMemo){s, op, arg, r};
  omap_put(&k->mop_memo, key, m);
  return r;
}

/* "UOp sources must have the same shape {self} {[x.shape for x in src_sts]}" */
_Noreturn static void shape_mismatch(KG *k, const UOp *u) {
  error_raise("AssertionError", "UOp sources must have the same shape %s", v0_10_2_uop_repr_line(k, u));
}

/* Is s ShapeTracker.from_shape(s.shape)? (both are interned) */
static bool is_from_shape(KG *k, const ST *s) {
  return s->nviews == 1 && s->views[0]->contiguous &&
         v0_10_2_st_from_shape(&k->stc, v0_10_2_st_ndim(s), st_shape(s)) == s;
}

/* UOp.st for u once the st of what it reads is cached */
static const ST *compute_st(KG *k, const UOp *u) {
  bool found;
  switch (u->op) {
    case OP_MULTI: error_unsupported("multi-device tensors (Ops.MULTI)");
    case OP_BUFFER: {
      sint n = v0_10_2_sint_of(v0_10_2_uop_size(k, u));
      return v0_10_2_st_from_shape(&k->stc, 1, &n);
    }
    case OP_KERNEL: {
      const ST *a = cached_st(k, v0_10_2_kernel_arg_ast(k, u), &found);
      if (!a) error_raise("AssertionError", "%s", "");
      if (k->f->kernel_st_of_size) { /* a0b4465: from_shape((self.arg.ast.size,)) */
        sint n = v0_10_2_sint_of(v0_10_2_st_size(a));
        return v0_10_2_st_from_shape(&k->stc, 1, &n);
      }
      return v0_10_2_st_from_shape(&k->stc, v0_10_2_st_ndim(a), st_shape(a));
    }
    case OP_BUFFER_VIEW:
      if (k->f->kernel_st_of_size) { /* a0b4465: from_shape((self.size,)) */
        sint n = v0_10_2_sint_of(v0_10_2_uop_size(k, u));
        return v0_10_2_st_from_shape(&k->stc, 1, &n);
      }
      break;
    case OP_VIEW: return v0_10_2_value_get_st(u->arg);
    default: break;
  }
  if (op_in(&k->groups, GROUP_MOVEMENT, u->op)) {
    const ST *s = cached_st(k, u->src[0], &found);
    if (!s) error_raise("AssertionError", "%s", "");
    return mop_st(k, s, u->op, u->arg);
  }
  if (op_in(&k->groups, GROUP_BUFFER, u->op)) {
    for (uint32_t i = 0; i < u->nsrc; i++)
      if (u->src[i]->op == OP_VIEW) return v0_10_2_value_get_st(u->src[i]->arg);
    return NULL;
  }
  const ST *first = NULL;
  for (uint32_t i = 0; i < u->nsrc; i++) {
    const ST *s = cached_st(k, u->src[i], &found);
    if (!s) continue;
    if (!first) first = s;
    else if (!v0_10_2_sint_shapes_eq(v0_10_2_st_ndim(s), st_shape(s), v0_10_2_st_ndim(first), st_shape(first)))
      shape_mismatch(k, u);
  }
  if (!first) return NULL;
  if (u->op != OP_BITCAST && u->op != OP_BUFFER_VIEW && u->op != OP_REDUCE_AXIS && u->op != OP_WMMA && is_from_shape(k, first))
    return first; /* ShapeTracker.from_shape(first.shape) is first itself (interned) */
  uint32_t n = v0_10_2_st_ndim(first);
  sint shape[ST_MAXDIM];
  memcpy(shape, st_shape(first), n * sizeof *shape);
  if (u->op == OP_BITCAST || u->op == OP_BUFFER_VIEW) {
    int isz = u->src[0]->dtype->itemsize;
    /* shape[:-1]+((shape[-1]*input_sz) // self.dtype.itemsize,) */
    if (u->dtype->itemsize != isz && n)
      shape[n - 1] = v0_10_2_sint_floordiv(
          &k->stc, v0_10_2_sint_mul(&k->stc, shape[n - 1], v0_10_2_sint_of(isz)), v0_10_2_sint_of(u->dtype->itemsize));
  } else if (u->op == OP_REDUCE_AXIS || u->op == OP_WMMA) {
    int64_t axis[ST_MAXDIM];
    uint32_t na = v0_10_2_axis_arg(u, axis);
    v0_10_2_st_reduce_shape(first, na, axis, shape);
  }
  return v0_10_2_st_from_shape(&k->stc, n, shape);
}

const ST *v0_10_2_uop_st(KG *k, const UOp *u) {
  bool found;
  const ST *s = cached_st(k, u, &found);
  if (found) return s;
  size_t depth = 0;
  if (!k->walk_cap) k->walk = heap_grow(k->walk, 0, &k->walk_cap, sizeof *k->walk);
  k->walk[depth++] = (WalkFrame){u, 0};
  while (depth) {
    WalkFrame *f = &k->walk[depth - 1];
    const UOp *d = st_dep(k, f->u, f->next);
    if (d) {
      f->next++;
      cached_st(k, d, &found);
      if (found) continue;
      if (depth == k->walk_cap) k->walk = heap_grow(k->walk, depth, &k->walk_cap, sizeof *k->walk);
      k->walk[depth++] = (WalkFrame){d, 0};
      continue;
    }
    const ST *r = compute_st(k, f->u);
    idindex_put(k->caches, &k->st_cache, f->u, r ? 2 + v0_10_2_st_index(&k->stc, r) : 1);
    depth--;
  }
  return cached_st(k, u, &found);
}

const ST *v0_10_2_uop_st_unwrap(KG *k, const UOp *u) {
  const ST *s = v0_10_2_uop_st(k, u);
  if (!s) error_raise("AssertionError", "%s", "");
  return s;
}

const sint *v0_10_2_uop_shape(KG *k, const UOp *u, uint32_t *n) {
  const ST *s = v0_10_2_uop_st_unwrap(k, u);
  *n = v0_10_2_st_ndim(s);
  return st_shape(s);
}

/* A BUFFER's size: its arg (0.10.1: arg[1] of (num, size)) */
static int64_t buffer_size(KG *k, const UOp *u) {
  const Value *a = u->arg;
  if (k->f->buffer_arg_num_size) a = a->kind == V_TUPLE && a->u.tuple.n == 2 ? a->u.tuple.items[1] : NULL;
  if (!a || a->kind != V_INT) error_unsupported("a BUFFER whose size is not an int");
  return a->u.i;
}

int64_t v0_10_2_uop_size(KG *k, const UOp *u) {
  if (u->op == OP_BUFFER) return buffer_size(k, u);
  if (u->op == OP_BUFFER_VIEW && k->f->kernel_st_of_size) { /* a0b4465: self.arg[0] */
    const Value *a = u->arg;
    if (a->kind != V_TUPLE || a->u.tuple.n != 2 || a->u.tuple.items[0]->kind != V_INT)
      error_unsupported("a BUFFER_VIEW whose arg is not (size, offset)");
    return a->u.tuple.items[0]->u.i;
  }
  return v0_10_2_st_size(v0_10_2_uop_st_unwrap(k, u));
}

/* UOp.base. A VIEW of one source is a view of it; 0.10.1's VIEW(BUFFER, op)
 * (add_buffers) is a base of its own (0.10.2 has no VIEW of two sources). */
const UOp *v0_10_2_uop_base(const KG *k, const UOp *u) {
  while ((u->op == OP_VIEW && u->nsrc == 1) || op_in(&k->groups, GROUP_MOVEMENT, u->op)) u = u->src[0];
  return u;
}

/* ---------------------------------------------------------------- device */

/* 2 + dev's index in k->devices (added when new), 1 for None */
static uint32_t device_index(KG *k, const char *dev) {
  if (!dev) return 1;
  for (size_t i = 0; i < k->ndevices; i++)
    if (k->devices[i] == dev) return (uint32_t)i + 2;
  if (k->ndevices >= UINT32_MAX - 2) error_unsupported("more than 2^32 devices");
  if (k->ndevices == k->devices_cap)
    k->devices = arena_grow(k->a, k->devices, k->ndevices, &k->devices_cap, sizeof *k->devices);
  k->devices[k->ndevices++] = dev;
  return (uint32_t)k->ndevices + 1;
}

static const char *device_at(const KG *k, uint32_t c) { return c >= 2 ? k->devices[c - 2] : NULL; }

const char *v0_10_2_uop_device(KG *k, const UOp *u) {
  uint32_t c = v0_10_2_idindex_get(&k->dev_cache, u);
  if (c) return device_at(k, c);
  size_t depth = 0;
  if (!k->walk_cap) k->walk = heap_grow(k->walk, 0, &k->walk_cap, sizeof *k->walk);
  k->walk[depth++] = (WalkFrame){u, 0};
  while (depth) {
    WalkFrame *f = &k->walk[depth - 1];
    if (f->u->op == OP_MULTI) error_unsupported("multi-device tensors (Ops.MULTI)");
    if (f->u->op != OP_DEVICE && f->next < f->u->nsrc) {
      const UOp *d = f->u->src[f->next++];
      if (v0_10_2_idindex_get(&k->dev_cache, d)) continue;
      if (depth == k->walk_cap) k->walk = heap_grow(k->walk, depth, &k->walk_cap, sizeof *k->walk);
      k->walk[depth++] = (WalkFrame){d, 0};
      continue;
    }
    const char *dev = NULL;
    if (f->u->op == OP_DEVICE) {
      if (f->u->arg->kind != V_STR) error_unsupported("a DEVICE whose arg is not a string (multi-device)");
      dev = f->u->arg->u.str.s;
    } else {
      for (uint32_t i = 0; i < f->u->nsrc && !dev; i++)
        dev = device_at(k, v0_10_2_idindex_get(&k->dev_cache, f->u->src[i]));
    }
    idindex_put(k->caches, &k->dev_cache, f->u, device_index(k, dev));
    depth--;
  }
  return device_at(k, v0_10_2_idindex_get(&k->dev_cache, u));
}

/* ---------------------------------------------------------------- buffers */

const UOp *v0_10_2_uop_buf_uop(KG *k, const UOp *u) {
  if (k->f->fix_kernel_ast) { /* a0b4465: self if BUFFER, else ASSIGN's src[0].base */
    if (u->op == OP_BUFFER) return u;
    if (u->op != OP_ASSIGN) error_raise("AssertionError", "must be ASSIGN %s", op_name(u->op, k->cap->generation));
    return v0_10_2_uop_base(k, u->src[0]);
  }
  for (;;) {
    const UOp *b = v0_10_2_uop_base(k, u);
    if (b->op == OP_BUFFER) return b;
    if (!(op_in(&k->groups, GROUP_BUFFER, b->op) || b->op == OP_ASSIGN ||
            (b->op == OP_VIEW && k->f->buf_uop_through_view)))
      error_raise("AssertionError", "buf_uop called on %s", op_name(u->op, k->cap->generation));
    if (!u->nsrc) error_raise("IndexError", "tuple index out of range");
    u = u->src[0];
  }
}

Buf *v0_10_2_uop_buffer_get(KG *k, const UOp *u) { return omap_get(&k->buffers, omap_ptr(u)); }

Buf *v0_10_2_uop_buffer(KG *k, const UOp *u) {
  while (u != v0_10_2_uop_base(k, u)) {
    if (!st_contiguous(v0_10_2_uop_st_unwrap(k, u)))
      error_raise("AssertionError", "VIEW only works here if it's contiguous");
    u = u->src[0];
  }
  if (u->op != OP_BUFFER) error_raise("AssertionError", "must be BUFFER %s", op_name(u->op, k->cap->generation));
  Buf *b = v0_10_2_uop_buffer_get(k, u);
  if (b) return b;
  const char *dev = v0_10_2_uop_device(k, u);
  if (!dev) error_raise("AssertionError", "buffer not supported on multi");
  b = arena_alloc(k->a, sizeof *b);
  b->input_index = -1;
  b->device = dev;
  b->size = v0_10_2_uop_size(k, u);
  b->dtype = u->dtype->is_image ? u->dtype : u->dtype->base;
  b->image = u->dtype->is_image ? u->dtype : NULL;
  omap_put(&k->buffers, omap_ptr(u), b);
  return b;
}

const Value *v0_10_2_uop_metadata(KG *k, const UOp *u) { return v0_10_2_idmap_get(&k->all_metadata, u); }

/* UOp(Ops.DEVICE, arg=device), remembered for the last device asked for */
static const UOp *device_uop(KG *k, const char *device) {
  if (k->last_device != device) {
    k->last_device_uop = v0_10_2_uop(k, OP_DEVICE, dt_void, v_str(k->in, device), 0, NULL);
    k->last_device = device;
  }
  return k->last_device_uop;
}

const UOp *v0_10_2_new_buffer(KG *k, const char *device, int64_t size, const DType *dt) {
  char label[32], digits[24];
  int nd = 0;
  uint64_t x = k->unique_count++;
  do digits[nd++] = (char)('0' + x % 10), x /= 10; while (x);
  int n = 0;
  label[n++] = 'k', label[n++] = ':';
  while (nd) label[n++] = digits[--nd];
  const Value *num = v_strn(k->in, V_BUFREF, label, (size_t)n);
  if (k->f->buffer_arg_num_size) {   /* 0.10.1: BUFFER(DEVICE) arg (next(UOp.buffer_num), size) */
    const Value *arg[2] = {num, v0_10_2_value_int(k, size)};
    return v0_10_2_uop1(k, OP_BUFFER, dt, v_tuple(k->in, 2, arg), device_uop(k, device));
  }
  const UOp *uniq = v0_10_2_uop(k, OP_UNIQUE, dt_void, num, 0, NULL);
  return v0_10_2_uop2(k, OP_BUFFER, dt, v0_10_2_value_int(k, size), device_uop(k, device), uniq);
}

/* ---------------------------------------------------------------- builders */

const UOp *v0_10_2_st_to_uop(KG *k, const ST *s) {
  return v0_10_2_uop(k, OP_VIEW, dt_void, v0_10_2_value_st(k, s), 0, NULL);
}

const UOp *v0_10_2_uop_view(KG *k, const UOp *u, const ST *s) {
  return v0_10_2_uop1(k, OP_VIEW, u->dtype, v0_10_2_value_st(k, s), v0_10_2_uop_base(k, u));
}

/* UOp.const */
const UOp *v0_10_2_uop_const(KG *k, const DType *dt, const Value *b) {
  return v0_10_2_uop(k, OP_CONST, dt, v0_10_2_as_const(k, b, dt), 0, NULL);
}

/* UOp._mop */
static const UOp *uop_mop(KG *k, const UOp *u, Op op, const Value *arg) {
  const UOp *ret = v0_10_2_uop1(k, op, u->dtype, arg, u);
  return v0_10_2_uop_st(k, u) == v0_10_2_uop_st_unwrap(k, ret) ? u : ret;
}

const UOp *v0_10_2_uop_reshape(KG *k, const UOp *u, uint32_t n, const sint *shape) {
  return uop_mop(k, u, OP_RESHAPE, v0_10_2_value_sints(k, n, shape));
}

const UOp *v0_10_2_uop_shrink(KG *k, const UOp *u, const SPair *arg) {
  uint32_t n;
  v0_10_2_uop_shape(k, u, &n);
  const Value *pairs[ST_MAXDIM];
  for (uint32_t i = 0; i < n; i++) pairs[i] = v0_10_2_value_sints(k, 2, (const sint[2]){arg[i].b, arg[i].e});
  return uop_mop(k, u, OP_SHRINK, v_tuple(k->in, n, pairs));
}

/* UOp.metaop(Ops.CONST, shape, dtype, device, b) */
static const UOp *metaop_const(KG *k, uint32_t n, const sint *shape, const DType *dt, const char *device, const Value *b) {
  const UOp *vw =
      v0_10_2_uop1(k, OP_VIEW, dt_void, v0_10_2_value_st(k, v0_10_2_st_scalar(&k->stc)), device_uop(k, device));
  const UOp *c = v0_10_2_uop1(k, OP_CONST, dt, v0_10_2_as_const(k, b, dt), vw);
  sint ones[ST_MAXDIM];
  for (uint32_t i = 0; i < n; i++) ones[i] = v0_10_2_sint_of(1);
  c = v0_10_2_uop_reshape(k, c, n, ones);
  return uop_mop(k, c, OP_EXPAND, v0_10_2_value_sints(k, n, shape));
}

/* UOp.const_like */
const UOp *v0_10_2_uop_const_like(KG *k, const UOp *u, const Value *b) {
  const char *dev = v0_10_2_uop_device(k, u);
  if (!dev) return v0_10_2_uop_const(k, u->dtype, b);
  uint32_t n;
  const sint *shape = v0_10_2_uop_shape(k, u, &n);
  return metaop_const(k, n, shape, u->dtype, dev, b);
}

/* UOp.alu */
const UOp *v0_10_2_uop_alu(KG *k, Op op, uint32_t n, const UOp *const *src) {
  const DType *dt = src[n - 1]->dtype;
  if (op == OP_CMPLT || op == OP_CMPNE) dt = dt->count > 1 ? dtype_vec(dt_bool, dt->count) : dt_bool;
  return v0_10_2_uop(k, op, dt, NULL, n, src);
}
const UOp *v0_10_2_uop_alu2(KG *k, Op op, const UOp *a, const UOp *b) {
  const UOp *s[2] = {a, b};
  return v0_10_2_uop_alu(k, op, 2, s);
}

/* SimpleMathTrait._binop with a Python number (ufix makes it const_like) */
const UOp *v0_10_2_uop_binop_const(KG *k, Op op, const UOp *a, const Value *b, bool reverse) {
  const UOp *c = v0_10_2_uop_const_like(k, a, b);
  return reverse ? v0_10_2_uop_alu2(k, op, c, a) : v0_10_2_uop_alu2(k, op, a, c);
}

/* SimpleMathTrait.neg */
const UOp *v0_10_2_uop_neg(KG *k, const UOp *u) {
  if (u->dtype->scalar == dt_bool) return v0_10_2_uop_binop_const(k, OP_CMPNE, u, v_bool(k->in, true), false);
  return v0_10_2_uop_binop_const(k, OP_MUL, u, v0_10_2_value_int(k, -1), false);
}

/* UOp.cast (a0b4465: always a CAST) */
const UOp *v0_10_2_uop_cast(KG *k, const UOp *u, const DType *dt) {
  return u->dtype == dt && !k->f->uop_cast_always ? u : v0_10_2_uop1(k, OP_CAST, dt, NULL, u);
}

const UOp *v0_10_2_uop_sink(KG *k, uint32_t n, const UOp *const *src) {
  return v0_10_2_uop(k, OP_SINK, dt_void, NULL, n, src);
}

/* UOp._reduce_op: axis = tuple(sorted([x for x in axis if resolve(self.shape[x] != 1)])) */
static const UOp *reduce_op(KG *k, const UOp *u, Op op, uint32_t naxis, const int64_t *axis) {
  uint32_t n, m = 0;
  const sint *shape = v0_10_2_uop_shape(k, u, &n);
  int64_t keep[ST_MAXDIM];
  for (uint32_t i = 0; i < naxis; i++)
    if (axis[i] < 0 || axis[i] >= (int64_t)n) error_raise("IndexError", "tuple index out of range");
    else if (v0_10_2_sint_resolve_ne(&k->stc, shape[axis[i]], v0_10_2_sint_of(1), true)) keep[m++] = axis[i];
  for (uint32_t i = 1; i < m; i++) /* sorted() */
    for (uint32_t j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
      int64_t t = keep[j]; keep[j] = keep[j - 1]; keep[j - 1] = t;
    }
  if (m == 0) return u;
  const Value *arg[2] = {v_str(k->in, op_name(op, k->cap->generation)), v0_10_2_value_ints(k, m, keep)};
  return v0_10_2_uop1(k, OP_REDUCE_AXIS, u->dtype, v_tuple(k->in, 2, arg), u);
}

/* The split of UOp.r (0.10.2) and schedule.py split_reduceop (a0b4465): NULL
 * when the reduce stays whole. In a0b4465 a 0 in the shape reaches
 * prod(x.shape)//prod(reduce.shape), which raises when the reduce is empty. */
const UOp *v0_10_2_split_reduce(KG *k, const UOp *u, Op op, uint32_t naxis, const int64_t *axis) {
  const ST *s = v0_10_2_uop_st_unwrap(k, u);
  uint32_t n = v0_10_2_st_ndim(s);
  const sint *sshape = st_shape(s);
  sint new_shape[ST_MAXDIM];
  v0_10_2_st_reduce_shape(s, naxis, axis, new_shape);
  /* not SPLIT_REDUCEOP or not all_int(self.shape) or (0 in self.shape) or prod(shape) // prod(new_shape) < threshold */
  if (!k->split_reduceop || !v0_10_2_sint_all_int(n, sshape)) return NULL;
  int64_t shape[ST_MAXDIM];
  bool zero = false;
  for (uint32_t i = 0; i < n; i++) shape[i] = v0_10_2_sint_int(sshape[i]), zero |= shape[i] == 0;
  int64_t prod = v0_10_2_shape_prod(n, sshape), new_prod = v0_10_2_shape_prod(n, new_shape);
  if (zero && k->f->sym_split_reduceop && new_prod == 0)
    error_raise("ZeroDivisionError", "integer division or modulo by zero");
  if (zero) return NULL;
  if (prod / new_prod < k->split_threshold) return NULL;
  sint strides[ST_MAXDIM];
  bool has[ST_MAXDIM], have_strides = false;
  int64_t top = (int64_t)1 << (k->split_size < 62 ? k->split_size : 62);
  top = top / new_prod - ((top % new_prod != 0) && (new_prod < 0));
  if (top > 256) top = 256;
  int64_t dim = -1, divisor = 0;
  for (uint32_t i = 0; i < naxis && dim < 0; i++) {
    for (int64_t x = top; x > 7 && dim < 0; x--) {
      if (shape[axis[i]] % x != 0) continue;
      if (!have_strides) {
        v0_10_2_st_real_strides(&k->stc, s, true, strides, has);
        have_strides = true;
      }
      if (has[axis[i]] && v0_10_2_sint_eq_int(strides[axis[i]], 0)) continue;
      dim = axis[i], divisor = x;
    }
  }
  if (dim < 0) return NULL;
  sint split[ST_MAXDIM];
  int64_t perm[ST_MAXDIM];
  uint32_t sn = 0, pn = 0;
  if (n + 1 > ST_MAXDIM) error_unsupported("too many dimensions");
  for (uint32_t i = 0; i < n; i++) {
    if ((int64_t)i == dim) split[sn++] = v0_10_2_sint_of(divisor), split[sn++] = v0_10_2_sint_of(shape[i] / divisor);
    else split[sn++] = v0_10_2_sint_of(shape[i]);
  }
  for (uint32_t i = 0; i < sn; i++)
    if ((int64_t)i != dim) perm[pn++] = i;
  perm[pn++] = dim;
  const UOp *sp = uop_mop(k, v0_10_2_uop_reshape(k, u, sn, split), OP_PERMUTE, v0_10_2_value_ints(k, pn, perm));
  int64_t last = n;
  const UOp *r = reduce_op(k, reduce_op(k, sp, op, naxis, axis), op, 1, &last);
  return v0_10_2_uop_reshape(k, r, n, new_shape);
}

/* UOp.r: with SPLIT_REDUCEOP, a big reduce is split in two (a0b4465: never, split_reduceop is in sym) */
const UOp *v0_10_2_uop_r(KG *k, const UOp *u, Op op, uint32_t naxis, const int64_t *axis) {
  const UOp *r = k->f->sym_split_reduceop ? NULL : v0_10_2_split_reduce(k, u, op, naxis, axis);
  return r ? r : reduce_op(k, u, op, naxis, axis);
}

/* ---------------------------------------------------------------- repr */

static void py_float_repr(double f, char *buf, size_t n) {
  if (isnan(f)) { snprintf(buf, n, "nan"); return; }
  if (isinf(f)) { snprintf(buf, n, f > 0 ? "inf" : "-inf"); return; }
  char tmp[64];
  int prec;
  for (prec = 1; prec <= 17; prec++) {
    snprintf(tmp, sizeof tmp, "%.*e", prec - 1, f);
    if (strtod(tmp, NULL) == f) break;
  }
  /* tmp is d.ddde[+-]XX: decide fixed vs scientific like repr() */
  char *e = strchr(tmp, 'e');
  int exp = atoi(e + 1);
  if (exp < -4 || exp >= 16) {
    char mant[40];
    size_t ml = (size_t)(e - tmp);
    memcpy(mant, tmp, ml);
    mant[ml] = 0;
    snprintf(buf, n, "%se%c%02d", mant, exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    return;
  }
  snprintf(buf, n, "%.*f", prec - 1 - exp > 0 ? prec - 1 - exp : 0, f);
  if (!strchr(buf, '.')) strncat(buf, ".0", n - strlen(buf) - 1);
}

static void repr_into(KG *k, const Value *v, char *buf, size_t n, bool as_str);

static void repr_view(KG *kg, const View *v, char *buf, size_t n) {
  char a[512], b[512], m[1024];
  size_t k = 0;
  if (v->mask) {
    k += (size_t)snprintf(m, sizeof m, "(");
    for (int i = 0; i < v->ndim && k < sizeof m; i++)
      k += (size_t)snprintf(m + k, sizeof m - k, "%s(%s, %s)", i ? ", " : "", v0_10_2_sint_repr(&kg->stc, v->mask[i].b),
          v0_10_2_sint_repr(&kg->stc, v->mask[i].e));
    if (k < sizeof m) snprintf(m + k, sizeof m - k, v->ndim == 1 ? ",)" : ")");
  } else snprintf(m, sizeof m, "None");
  snprintf(buf, n, "View(shape=%s, strides=%s, offset=%s, mask=%s, contiguous=%s)",
      v0_10_2_fmt_tuple(&kg->stc, a, sizeof a, v->ndim, v->shape),
      v0_10_2_fmt_tuple(&kg->stc, b, sizeof b, v->ndim, v->strides), v0_10_2_sint_repr(&kg->stc, v->offset), m,
      v->contiguous ? "True" : "False");
}

static void repr_into(KG *k, const Value *v, char *buf, size_t n, bool as_str) {
  switch (v->kind) {
    case V_NONE: snprintf(buf, n, "None"); return;
    case V_BOOL: snprintf(buf, n, v->u.b ? "True" : "False"); return;
    case V_INT: snprintf(buf, n, "%lld", (long long)v->u.i); return;
    case V_BIGINT: {
      char text[PYINT_TEXT];
      pyint_format(value_pyint(v), text);
      snprintf(buf, n, "%s", text);
      return;
    }
    case V_FLOAT: py_float_repr(v->u.f, buf, n); return;
    case V_STR: snprintf(buf, n, as_str ? "%s" : "'%s'", v->u.str.s); return;
    case V_DTYPE: {
      char d[128];
      snprintf(buf, n, "dtypes.%s", dtype_repr(v->u.dtype, k->cap->generation, d, sizeof d));
      return;
    }
    case V_ST: {
      const ST *s = v0_10_2_value_get_st(v);
      size_t w = (size_t)snprintf(buf, n, "ShapeTracker(views=(");
      for (int i = 0; i < s->nviews && w < n; i++) {
        repr_view(k, s->views[i], buf + w, n - w);
        w = strlen(buf);
        if (w < n) w += (size_t)snprintf(buf + w, n - w, ",");
      }
      if (w < n) snprintf(buf + w, n - w, "))");
      return;
    }
    case V_TUPLE: {
      size_t w = (size_t)snprintf(buf, n, "(");
      for (size_t i = 0; i < v->u.tuple.n && w < n; i++) {
        if (i) w += (size_t)snprintf(buf + w, n - w, ", ");
        if (w < n) repr_into(k, v->u.tuple.items[i], buf + w, n - w, as_str);
        w = strlen(buf);
      }
      if (w < n) snprintf(buf + w, n - w, v->u.tuple.n == 1 ? ",)" : ")");
      return;
    }
    case V_SYM: snprintf(buf, n, "%s", v0_10_2_sint_repr(&k->stc, sym_value_sint(k, v))); return;
    default: snprintf(buf, n, "%.*s", (int)v->u.str.n, v->u.str.s); return;
  }
}

const char *v0_10_2_py_repr(KG *k, const Value *v) {
  char *buf = arena_alloc(k->a, 2048);
  repr_into(k, v, buf, 2048, false);
  return buf;
}

const char *v0_10_2_uop_repr_line(KG *k, const UOp *u) {
  char d[128], arg[2048];
  if (u->op == OP_REDUCE_AXIS && u->arg->kind == V_TUPLE) {
    /* argstr: f'({", ".join(map(str, self.arg))})' */
    size_t w = (size_t)snprintf(arg, sizeof arg, "(");
    for (size_t i = 0; i < u->arg->u.tuple.n && w < sizeof arg; i++) {
      if (i) w += (size_t)snprintf(arg + w, sizeof arg - w, ", ");
      if (w < sizeof arg) repr_into(k, u->arg->u.tuple.items[i], arg + w, sizeof arg - w, true);
      w = strlen(arg);
    }
    if (w < sizeof arg) snprintf(arg + w, sizeof arg - w, ")");
  } else repr_into(k, u->arg, arg, sizeof arg, false);
  return arena_printf(k->a, "UOp(%s, dtypes.%s, arg=%s, src=(%s", op_name(u->op, k->cap->generation),
      dtype_repr(u->dtype, k->cap->generation, d, sizeof d), arg, u->nsrc ? "" : "))");
}
