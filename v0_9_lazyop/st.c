/* st.c — the ShapeTracker operations of the 0.9.1 scheduler (st.h) on
 * common/shapetracker.h. Every ShapeTracker gets one StHandle; __add__,
 * simplify and from_shape are memoized on the handles (Python lru_caches
 * View.__add__ and friends), so repeated questions cost a lookup. */
#include <stddef.h>
#include <string.h>
#include "pipeline.h"
#include "shapetracker.h"
#include "symbolic.h"

int v0_9_st_nviews(const StHandle *st) { return st->st->nviews; }
bool v0_9_st_view_masked(const StHandle *st, int i) { return st->st->views[i]->mask != NULL; }
int v0_9_st_ndim(const StHandle *st) { return st_ndim(st->st); }
sint v0_9_st_shape(const StHandle *st, int axis) { return st_shape(st->st)[axis]; }
const sint *v0_9_st_shape_of(const StHandle *st) { return st_shape(st->st); }

sint v0_9_st_prod_mask(const StHandle *st) {
  const View *v = st_last(st->st);
  sint p = sint_int(1);
  for (int i = 0; i < v->ndim; i++) p = sint_mul(p, sint_sub(v->mask[i].e, v->mask[i].b));
  return p;
}

/* ---------------------------------------------------------------- interning */

const StHandle *v0_9_st_intern(Sched *s, const ShapeTracker *raw) {
  StHandle *h = omap_get(&s->st_handles, omap_ptr(raw));
  if (h) return h;
  uint64_t hash = st_hash(raw);
  StHandle *chain = omap_get(&s->st_canon, hash);
  for (StHandle *x = chain; x; x = x->next)
    if (st_equal(x->st, raw)) {
      omap_put(&s->st_handles, omap_ptr(raw), x);
      return x;
    }
  h = arena_alloc(s->a, sizeof *h);
  h->st = raw;
  h->id = ++s->nst;
  h->size = st_size(raw);
  h->contiguous = st_contiguous(raw);
  for (int i = 0; i < raw->nviews && !h->symbolic; i++) h->symbolic = view_is_symbolic(raw->views[i]);
  h->next = chain;
  omap_put(&s->st_canon, hash, h);
  omap_put(&s->st_handles, omap_ptr(raw), h);
  return h;
}

/* ---------------------------------------------------------------- operations */

/* ShapeTracker.simplify: merge the last two views while View.__add__ can. */
const StHandle *v0_9_st_simplify(Sched *s, const StHandle *x) {
  if (x->simplified) return x->simplified;
  const StHandle *ret = v0_9_st_intern(s, st_simplify(s->a, s->v, x->st));
  ((StHandle *)x)->simplified = ret;
  return ret;
}

/* ShapeTracker.__add__: "one view at a time = better simplification" */
const StHandle *v0_9_st_add(Sched *s, const StHandle *a, const StHandle *b) {
  if (a->add_rhs == b) return a->add_sum;
  uint64_t key = ((uint64_t)a->id << 32) | b->id;
  const StHandle *ret = omap_get(&s->st_add_memo, key);
  if (!ret) {
    ret = v0_9_st_intern(s, st_add(s->a, s->v, a->st, b->st));
    omap_put(&s->st_add_memo, key, (void *)ret);
  }
  ((StHandle *)a)->add_rhs = b;
  ((StHandle *)a)->add_sum = ret;
  return ret;
}

/* from_shape(shape) is a pure function of the shape: one handle per int shape, found by its hash */
typedef struct FromShape { const StHandle *st; struct FromShape *next; } FromShape;

static bool int_shape_hash(int ndim, const sint *shape, uint64_t *hash) {
  uint64_t h = 0x5348ULL + (uint64_t)ndim;
  for (int i = 0; i < ndim; i++) {
    if (shape[i].sym) return false;
    h = (h ^ (uint64_t)shape[i].i) * 0x100000001b3ULL;
  }
  *hash = h;
  return true;
}

static bool shape_is(const StHandle *x, int ndim, const sint *shape) {
  if (v0_9_st_ndim(x) != ndim) return false;
  for (int i = 0; i < ndim; i++)
    if (!sint_eq(v0_9_st_shape(x, i), shape[i])) return false;
  return true;
}

const StHandle *v0_9_st_from_shape(Sched *s, int ndim, const sint *shape) {
  uint64_t hash;
  if (!int_shape_hash(ndim, shape, &hash)) return v0_9_st_intern(s, st_from_shape(s->a, s->v, ndim, shape));
  FromShape *chain = omap_get(&s->st_from_shape_memo, hash);
  for (FromShape *x = chain; x; x = x->next)
    if (shape_is(x->st, ndim, shape)) return x->st;
  FromShape *x = arena_alloc(s->a, sizeof *x);
  *x = (FromShape){v0_9_st_intern(s, st_from_shape(s->a, s->v, ndim, shape)), chain};
  omap_put(&s->st_from_shape_memo, hash, x);
  return x->st;
}

const StHandle *v0_9_st_from_shape_of(Sched *s, const StHandle *x) {
  if (x->from_shape) return x->from_shape;
  const StHandle *ret = v0_9_st_from_shape(s, st_ndim(x->st), st_shape(x->st));
  ((StHandle *)x)->from_shape = ret;
  return ret;
}

/* ShapeTracker.unbind (0.9.1) */
const StHandle *v0_9_st_unbind(Sched *s, const StHandle *x) {
  if (!x->symbolic) return x;
  if (!x->unbound) {
    enum { CAP = 64 };
    sint *vars = arena_array(s->a, CAP, sizeof *vars);
    int64_t *vals = arena_array(s->a, CAP, sizeof *vals);
    int n = 0;
    const StHandle *u = v0_9_st_intern(s, st_unbind(s->a, s->v, x->st, vars, vals, CAP, &n));
    StHandle *h = (StHandle *)x;
    h->vars = vars;
    h->vals = vals;
    h->nvars = n;
    h->unbound = u;
  }
  for (int i = 0; i < x->nvars; i++)
    v0_9_var_vals_put(s, x->vars[i], x->vals[i]);
  return x->unbound;
}

/* ShapeTracker.var_vals: merge_dicts([dict([v.unbind()]) for v in self.vars()]) */
void v0_9_st_add_var_vals(Sched *s, const StHandle *x) {
  if (!x->symbolic) return;
  sint vars[64];
  int n = st_vars(x->st, vars, 64);
  for (int i = 0; i < n; i++) {
    const SymNode *v = vars[i].sym;
    if (!v->bound)
      error_raise("AssertionError", "Variable isn't bound, can't access val of %s", sint_str(s->a, vars[i]));
    v0_9_var_vals_put(s, sint_unbind(vars[i]), v->val);
  }
}

/* x.shrink(mask_of.views[0].mask) */
const StHandle *v0_9_st_shrink_by_mask(Sched *s, const StHandle *x, const StHandle *mask_of) {
  const View *m = mask_of->st->views[0];
  return v0_9_st_intern(s, st_shrink(s->a, s->v, x->st, m->ndim, m->mask));
}

/* ShapeTracker.unit_stride_axes() */
void v0_9_st_unit_stride_axes(Sched *s, const StHandle *x, bool *unit) {
  int n = st_ndim(x->st);
  int *axes = arena_array(s->a, n ? (size_t)n : 1, sizeof *axes);
  int k = st_unit_stride_axes(s->a, s->v, x->st, false, axes);
  for (int i = 0; i < n; i++) unit[i] = false;
  for (int i = 0; i < k; i++) unit[axes[i]] = true;
}

/* ---------------------------------------------------------------- codec and interner hooks */

static Sched *sched_of(Codec *c) { return (Sched *)((char *)c - offsetof(Sched, codec)); }

/* Decoded ShapeTrackers are interned at once: every ShapeTracker inside a
 * Value is canonical, so Values can hash and compare them by pointer. */
static const ShapeTracker *st_decode_canonical(Codec *c, const JVal *j, Status *st) {
  const ShapeTracker *x = st_decode_status(c->arena, j, st);
  return x ? v0_9_st_intern(sched_of(c), x)->st : NULL;
}

/* Encoded ShapeTrackers are shared: the same ShapeTracker is one JVal tree
 * however often the result mentions it (JVals are immutable). */
static JVal *st_encode_shared(Codec *c, const ShapeTracker *x) {
  StHandle *h = (StHandle *)v0_9_st_intern(sched_of(c), x);
  if (!h->json) h->json = st_to_json(c->arena, h->st);
  return h->json;
}

static uint64_t st_pointer_hash(const ShapeTracker *x) { return (uint64_t)(uintptr_t)x * 0x9e3779b97f4a7c15ULL; }
static bool st_pointer_equal(const ShapeTracker *x, const ShapeTracker *y) { return x == y; }

void v0_9_st_init(Sched *s) {
  s->in->st_hash = st_pointer_hash;
  s->in->st_equal = st_pointer_equal;
  s->codec.st_decode = st_decode_canonical;
  s->codec.st_encode = st_encode_shared;
  omap_init(&s->st_handles, s->a);
  omap_init(&s->st_canon, s->a);
  omap_init(&s->st_add_memo, s->a);
  omap_init(&s->st_from_shape_memo, s->a);
  omap_init(&s->st_reshape_memo, s->a);
}

/* ShapeTracker.reshape (0.9.2): getenv("MERGE_VIEW", 1) as the capture recorded it; once per
 * (x, shape_of) in Sched.st_reshape_memo */
const StHandle *v0_9_st_reshape_as(Sched *s, const StHandle *x, const StHandle *shape_of) {
  uint64_t key = ((uint64_t)x->id << 32) | shape_of->id;
  const StHandle *done = omap_get(&s->st_reshape_memo, key);
  if (!done) {
    const ShapeTracker *r = st_reshape(s->a, s->v, x->st, st_ndim(shape_of->st), st_shape(shape_of->st), s->inp->merge_view);
    done = v0_9_st_intern(s, r);
    omap_put(&s->st_reshape_memo, key, (void *)done);
  }
  return done;
}

const StHandle *v0_9_st_reshape(Sched *s, const StHandle *x, int n, const sint *shape) {
  return v0_9_st_reshape_as(s, x, v0_9_st_from_shape(s, n, shape));
}

/* ShapeTracker.permute */
const StHandle *v0_9_st_permute(Sched *s, const StHandle *x, int n, const int64_t *axis) {
  return v0_9_st_intern(s, st_permute(s->a, s->v, x->st, n, axis));
}

/* ShapeTracker.pad */
const StHandle *v0_9_st_pad(Sched *s, const StHandle *x, int n, const SPair *arg) {
  return v0_9_st_intern(s, st_pad(s->a, s->v, x->st, n, arg));
}

const Value *v0_9_st_value(Sched *s, const StHandle *x) {
  if (!x->value) ((StHandle *)x)->value = v_st(s->in, x->st);
  return x->value;
}

/* ShapeTracker(tuple(views)) */
const StHandle *v0_9_st_of_views(Sched *s, int nviews, const View *const *views) {
  return v0_9_st_intern(s, st_new(s->a, nviews, views));
}
