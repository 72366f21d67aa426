/* st.c — the scheduler's view of the core ShapeTracker module (st.h):
 * interning, memoised View.__add__, errors as unwinding. */
#include "st.h"
#include "symbolic.h"
#include <stdio.h>
#include <string.h>

static uint64_t mix(uint64_t x) {
  x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27; x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/* ---------------------------------------------------------------- sint */

bool v0_10_2_sint_is_int(sint x) { return sint_is_int(x); }
int64_t v0_10_2_sint_int(sint x) { return x.i; }
sint v0_10_2_sint_of(int64_t i) { return sint_int(i); }
static bool sint_same(sint a, sint b) { return sint_eq(a, b); }
bool v0_10_2_sint_eq_int(sint a, int64_t b) { return v0_10_2_sint_is_int(a) && v0_10_2_sint_int(a) == b; }
static uint64_t ks_hash(sint x) { return sint_is_int(x) ? (uint64_t)x.i : sint_hash(x); }
static const SymUOp *ks_uop(sint x) { return (const SymUOp *)x.sym; }

bool v0_10_2_sint_all_int(uint32_t n, const sint *xs) { return sint_all_int((int)n, xs); }

bool v0_10_2_sint_shapes_eq(uint32_t na, const sint *a, uint32_t nb, const sint *b) {
  if (na != nb) return false;
  for (uint32_t i = 0; i < na; i++)
    if (!sint_same(a[i], b[i])) return false;
  return true;
}

/* sint.h's operators; their errors raise (error.h) */
sint v0_10_2_sint_sub(StCtx *c, sint a, sint b) { (void)c; return sint_sub(a, b); }
sint v0_10_2_sint_mul(StCtx *c, sint a, sint b) { (void)c; return sint_mul(a, b); }
sint v0_10_2_sint_floordiv(StCtx *c, sint a, sint b) {
  (void)c;
  if (v0_10_2_sint_eq_int(b, 0) && v0_10_2_sint_is_int(a))
    error_raise("ZeroDivisionError", "integer division or modulo by zero");
  return sint_floordiv(a, b);
}

sint v0_10_2_sint_prod(StCtx *c, uint32_t n, const sint *xs) {
  sint p = v0_10_2_sint_of(1);
  for (uint32_t i = 0; i < n; i++) p = v0_10_2_sint_mul(c, p, xs[i]);
  return p;
}

/* resolve(a OP b, dflt) and bool(a OP b): Python builds the comparison UOp in MathTrait's operand
 * order (a reflected method of the UOp when a is the int), sint.h does the same */
static bool ks_resolve(StCtx *c, SintCmp op, sint a, sint b, bool dflt) {
  (void)c;
  return sint_resolve(op, a, b, dflt);
}

bool v0_10_2_sint_resolve_lt(StCtx *c, sint a, sint b, bool dflt) { return ks_resolve(c, SINT_LT, a, b, dflt); }
bool v0_10_2_sint_resolve_ge(StCtx *c, sint a, sint b, bool dflt) { return ks_resolve(c, SINT_GE, a, b, dflt); }
bool v0_10_2_sint_resolve_ne(StCtx *c, sint a, sint b, bool dflt) { return ks_resolve(c, SINT_NE, a, b, dflt); }

bool v0_10_2_sint_bool_ne(StCtx *c, sint a, sint b) {
  (void)c;
  return sint_cmp(SINT_NE, a, b);
}

const char *v0_10_2_sint_repr(StCtx *c, sint x) { return sint_repr(c->arena, x); }

int64_t v0_10_2_shape_prod(uint32_t n, const sint *shape) { /* past int64: "int64 overflow" raised (sint_mul) */
  sint p = sint_int(1);
  for (uint32_t i = 0; i < n; i++) p = sint_mul(p, sint_int(v0_10_2_sint_int(shape[i])));
  return p.i;
}

const char *v0_10_2_fmt_tuple(StCtx *c, char *buf, size_t size, uint32_t n, const sint *v) {
  size_t k = 0;
  k += (size_t)snprintf(buf + k, size - k, "(");
  for (uint32_t i = 0; i < n && k < size; i++)
    k += (size_t)snprintf(buf + k, size - k, "%s%s", i ? ", " : "", v0_10_2_sint_repr(c, v[i]));
  if (k < size) snprintf(buf + k, size - k, n == 1 ? ",)" : ")");
  return buf;
}

void v0_10_2_st_init(StCtx *c, Arena *a, TgVersion v, bool merge_view) {
  memset(c, 0, sizeof *c);
  c->arena = a;
  c->v = v;
  c->merge_view = merge_view;
  omap_init(&c->add_memo, a);
  omap_init(&c->view_add_memo, a);
  omap_init(&c->shape_memo, a);
  arena_init(&c->scratch);
}

void v0_10_2_st_release(StCtx *c) {
  arena_free(&c->scratch);
  arena_init(&c->scratch);
}

Arena *v0_10_2_st_scratch(StCtx *c) { return &c->scratch; }

/* Called when an operation has its (interned) result: nothing points into
 * the scratch arena any more, so it is emptied if it holds anything: its
 * first chunk stays (the next operations reuse what is touched of it), the
 * others go to the pool. Only as much as one operation needs is touched. */
static const void *kst_sweep(StCtx *c, const void *result) {
  Arena *s = &c->scratch;
  if (s->chunk_bytes > (size_t)(s->end - s->cur)) arena_rewind(s, (ArenaMark){0});
  return result;
}

static void check_ndim(StCtx *c, uint32_t n) {
  (void)c;
  if (n > ST_MAXDIM) error_unsupported("a shape with %u dimensions (more than %d)", n, ST_MAXDIM);
}

/* ---------------------------------------------------------------- interning */

static const View *intern_view(StCtx *c, const View *v) {
  uint64_t h = view_hash(v);
  if ((c->nv + 1) * 2 > c->vcap) {
    size_t cap = c->vcap ? c->vcap * 2 : 256;
    const View **t = arena_array(c->arena, cap, sizeof *t);
    for (size_t i = 0; i < c->vcap; i++) {
      if (!c->vtab[i]) continue;
      size_t j = view_hash(c->vtab[i]) & (cap - 1);
      while (t[j]) j = (j + 1) & (cap - 1);
      t[j] = c->vtab[i];
    }
    c->vtab = t, c->vcap = cap;
  }
  size_t j = h & (c->vcap - 1);
  while (c->vtab[j]) {
    if (c->vtab[j] == v || view_equal(c->vtab[j], v)) return c->vtab[j];
    j = (j + 1) & (c->vcap - 1);
  }
  v = view_new(c->arena, v->ndim, v->shape, v->strides, v->offset, v->mask, v->contiguous); /* v may be in the scratch arena */
  c->vtab[j] = v;
  c->nv++;
  return v;
}

static uint64_t views_hash(uint32_t n, const View *const *views) {
  uint64_t h = mix(n + 99);
  for (uint32_t i = 0; i < n; i++) h = mix(h ^ (uint64_t)(uintptr_t)views[i]);
  return h;
}

/* views are interned: a ShapeTracker is its array of View pointers */
static const ST *intern_st(StCtx *c, uint32_t n, const View *const *views) {
  uint64_t h = views_hash(n, views);
  if ((c->ns + 1) * 2 > c->scap) {
    size_t cap = c->scap ? c->scap * 2 : 256;
    const ST **t = arena_array(c->arena, cap, sizeof *t);
    for (size_t i = 0; i < c->scap; i++) {
      const ST *s = c->stab[i];
      if (!s) continue;
      size_t j = views_hash((uint32_t)s->nviews, s->views) & (cap - 1);
      while (t[j]) j = (j + 1) & (cap - 1);
      t[j] = s;
    }
    c->stab = t, c->scap = cap;
  }
  size_t j = h & (c->scap - 1);
  while (c->stab[j]) {
    const ST *s = c->stab[j];
    if ((uint32_t)s->nviews == n && memcmp(s->views, views, n * sizeof *views) == 0) return s;
    j = (j + 1) & (c->scap - 1);
  }
  ST *s = (ST *)st_new(c->arena, (int)n, views);
  if (c->ns == c->by_index_cap) {
    size_t cap = c->by_index_cap ? c->by_index_cap * 2 : 256;
    const ST **t = arena_array(c->arena, cap, sizeof *t);
    if (c->ns) memcpy(t, c->by_index, c->ns * sizeof *t);
    c->by_index = t, c->by_index_cap = cap;
  }
  s->index = (uint32_t)c->ns;
  c->by_index[c->ns++] = s;
  c->stab[j] = s;
  return s;
}

enum { KST_MAXVIEWS = 64 };

uint32_t v0_10_2_st_index(StCtx *c, const ST *s) {
  if (s->index < c->ns && c->by_index[s->index] == s) return s->index;
  return v0_10_2_st_new(c, (uint32_t)s->nviews, s->views)->index;
}

const ST *v0_10_2_st_new(StCtx *c, uint32_t nviews, const View *const *views) {
  if (nviews > KST_MAXVIEWS) error_unsupported("a ShapeTracker with more than %d views", KST_MAXVIEWS);
  const View *vs[KST_MAXVIEWS];
  for (uint32_t i = 0; i < nviews; i++) vs[i] = intern_view(c, views[i]);
  return intern_st(c, nviews, vs);
}

/* the interned copy of s, which may be in the scratch arena */
static const ST *canon(StCtx *c, const ST *s) { return s ? v0_10_2_st_new(c, (uint32_t)s->nviews, s->views) : NULL; }

const ST *v0_10_2_st_canon(StCtx *c, const ST *s) { return kst_sweep(c, canon(c, s)); }

/* ---------------------------------------------------------------- operations */

const View *v0_10_2_view_create(
    StCtx *c, uint32_t n, const sint *shape, const sint *strides, sint offset, const SPair *mask) {
  check_ndim(c, n);
  return kst_sweep(c, intern_view(c, view_create(&c->scratch, c->v, (int)n, shape, strides, offset, mask)));
}

/* ShapeTracker.from_shape, memoised on the shape (a hash, then an exact check) */
const ST *v0_10_2_st_from_shape(StCtx *c, uint32_t n, const sint *shape) {
  uint64_t h = mix(n + 7);
  for (uint32_t i = 0; i < n; i++) h = mix(h ^ ks_hash(shape[i]));
  const ST *r = omap_get(&c->shape_memo, h);
  if (r && v0_10_2_sint_shapes_eq(v0_10_2_st_ndim(r), st_shape(r), n, shape)) return r;
  check_ndim(c, n);
  r = canon(c, st_from_shape(&c->scratch, c->v, (int)n, shape));
  omap_put(&c->shape_memo, h, (void *)r);
  return kst_sweep(c, r);
}

const ST *v0_10_2_st_scalar(StCtx *c) {
  sint none[1] = {v0_10_2_sint_of(0)};
  return v0_10_2_st_from_shape(c, 0, none);
}

int64_t v0_10_2_st_size(const ST *s) { return st_size(s); }

/* View.__add__ on interned views, memoised as Python's lru_cache does; NULL is None */
static const View *kview_add(StCtx *c, const View *vm2, const View *vm1) {
  static const View none_marker;
  OMap *inner = omap_get(&c->view_add_memo, omap_ptr(vm2));
  const View *r;
  if (inner && (r = omap_get(inner, omap_ptr(vm1)))) return r == &none_marker ? NULL : r;
  r = view_add(&c->scratch, c->v, vm2, vm1);
  if (r) r = intern_view(c, r);
  if (!inner) {
    inner = arena_alloc(c->arena, sizeof *inner);
    omap_init(inner, c->arena);
    omap_put(&c->view_add_memo, omap_ptr(vm2), inner);
  }
  omap_put(inner, omap_ptr(vm1), (void *)(r ? r : &none_marker));
  return r;
}

/* ShapeTracker.simplify: merge the last two views while View.__add__ allows */
static const ST *simplify_views(StCtx *c, uint32_t n, const View **vs) {
  const View *nv;
  while (n >= 2 && (nv = kview_add(c, vs[n - 2], vs[n - 1]))) vs[n - 2] = nv, n--;
  return intern_st(c, n, vs);
}

const ST *v0_10_2_st_simplify(StCtx *c, const ST *s) {
  const View *vs[KST_MAXVIEWS];
  s = canon(c, s);
  memcpy(vs, s->views, (size_t)s->nviews * sizeof *vs);
  return kst_sweep(c, simplify_views(c, (uint32_t)s->nviews, vs));
}

/* ShapeTracker.__add__ (one view of b at a time), memoised on the pair of interned operands */
const ST *v0_10_2_st_add(StCtx *c, const ST *a, const ST *b) {
  OMap *inner = omap_get(&c->add_memo, omap_ptr(a));
  const ST *r;
  if (inner && (r = omap_get(inner, omap_ptr(b)))) return r;
  r = a;
  for (int i = 0; i < b->nviews; i++) {
    const View *vs[KST_MAXVIEWS];
    if (r->nviews + 1 > KST_MAXVIEWS) error_unsupported("a ShapeTracker with more than %d views", KST_MAXVIEWS);
    memcpy(vs, r->views, (size_t)r->nviews * sizeof *vs);
    vs[r->nviews] = b->views[i];
    r = simplify_views(c, (uint32_t)r->nviews + 1, vs);
  }
  if (!inner) {
    inner = arena_alloc(c->arena, sizeof *inner);
    omap_init(inner, c->arena);
    omap_put(&c->add_memo, omap_ptr(a), inner);
  }
  omap_put(inner, omap_ptr(b), (void *)r);
  return kst_sweep(c, r);
}

const ST *v0_10_2_st_invert(StCtx *c, const ST *s, uint32_t n, const sint *out_shape) {
  return v0_10_2_st_canon(c, st_invert(&c->scratch, c->v, s, (int)n, out_shape, c->merge_view));
}

const ST *v0_10_2_st_reshape(StCtx *c, const ST *s, uint32_t n, const sint *new_shape) {
  check_ndim(c, n);
  return v0_10_2_st_canon(c, st_reshape(&c->scratch, c->v, s, (int)n, new_shape, c->merge_view));
}

const ST *v0_10_2_st_pad(StCtx *c, const ST *s, const SPair *arg) {
  return v0_10_2_st_canon(c, st_pad(&c->scratch, c->v, s, st_ndim(s), arg));
}

const ST *v0_10_2_st_shrink(StCtx *c, const ST *s, const SPair *arg) {
  return v0_10_2_st_canon(c, st_shrink(&c->scratch, c->v, s, st_ndim(s), arg));
}

const ST *v0_10_2_st_expand(StCtx *c, const ST *s, uint32_t n, const sint *new_shape) {
  return v0_10_2_st_canon(c, st_expand(&c->scratch, c->v, s, (int)n, new_shape));
}

const ST *v0_10_2_st_permute(StCtx *c, const ST *s, const int64_t *axis) {
  return v0_10_2_st_canon(c, st_permute(&c->scratch, c->v, s, st_ndim(s), axis));
}

const ST *v0_10_2_st_flip(StCtx *c, const ST *s, const bool *arg) {
  return v0_10_2_st_canon(c, st_flip(&c->scratch, c->v, s, st_ndim(s), arg));
}

/* ---------------------------------------------------------------- variables */

enum { KST_MAXVARS = 64 };

const ST *v0_10_2_st_unbind_binds(StCtx *c, const ST *s, sint *vars, int64_t *vals, int *n, int cap) {
  sint vs[KST_MAXVARS];
  int nv = st_vars(s, vs, KST_MAXVARS);
  bool any_bind = false;
  for (int i = 0; i < nv; i++) any_bind |= ks_uop(vs[i])->op == SU_BIND;
  if (!any_bind) return s;
  const ShapeTracker *r = st_unbind(&c->scratch, c->v, s, vars, vals, cap, n);
  return v0_10_2_st_canon(c, r);
}

void v0_10_2_sint_var_arg(sint var, const char **name, int64_t *lo, int64_t *hi) {
  const SymUOp *u = ks_uop(var);
  *name = u->name, *lo = u->lo, *hi = u->hi;
}

void v0_10_2_st_reduce_shape(const ST *s, uint32_t naxis, const int64_t *axis, sint *out) {
  const View *v = st_last(s);
  for (int i = 0; i < v->ndim; i++) {
    out[i] = v->shape[i];
    for (uint32_t k = 0; k < naxis; k++)
      if (axis[k] == (int64_t)i) out[i] = v0_10_2_sint_of(1);
  }
}

void v0_10_2_st_real_strides(StCtx *c, const ST *s, bool ignore_valid, sint *out, bool *has) {
  bool is_none[ST_MAXDIM];
  st_real_strides(&c->scratch, c->v, s, ignore_valid, out, is_none);
  for (int i = 0; i < st_ndim(s); i++) has[i] = !is_none[i];
  kst_sweep(c, NULL);
}
