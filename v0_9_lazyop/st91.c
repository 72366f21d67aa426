/* st91.c — the ShapeTracker operations of the 0.9.1 scheduler (st91.h) on
 * common/shapetracker.h, with canonical (interned) results and memo tables
 * for __add__, simplify and from_shape (Python lru_caches View.__add__). */
#include <stddef.h>
#include <string.h>
#include "sched91.h"
#include "shapetracker.h"

static const View *last_view(const ShapeTracker *st) { return st_last(st); }

int st91_nviews(const ShapeTracker *st) { return st->nviews; }
bool st91_view_masked(const ShapeTracker *st, int i) { return st->views[i]->mask != NULL; }
int st91_ndim(const ShapeTracker *st) { return st_ndim(st); }
int64_t st91_shape(const ShapeTracker *st, int axis) { return st_shape(st)[axis]; }
int64_t st91_size(const ShapeTracker *st) { return st_size(st); }
int64_t st91_prod_shape(const ShapeTracker *st) { return view_size(last_view(st)); }
bool st91_contiguous(const ShapeTracker *st) { return st_contiguous(st); }

int64_t st91_prod_mask(const ShapeTracker *st) {
  const View *v = last_view(st);
  int64_t p = 1;
  for (int i = 0; i < v->ndim; i++) p *= v->mask[i].e - v->mask[i].b;
  return p;
}

const ShapeTracker *st91_canonical(Sched91 *s, const ShapeTracker *st) { return v_st(s->in, st)->u.st; }

static bool from_err(StError *e, Status *st) {
  st_error_to_status(e, st);
  return false;
}

/* ---------------------------------------------------------------- operations */

/* ShapeTracker.simplify: merge the last two views while View.__add__ can. */
const ShapeTracker *st91_simplify(Sched91 *s, const ShapeTracker *x, Status *st) {
  const ShapeTracker *memo = omap_get(&s->st_simplify_memo, omap_ptr(x));
  if (memo) return memo;
  StError e;
  st_error_clear(&e);
  const ShapeTracker *ret = st_simplify(s->a, TG_0_9_1, x, &e);
  if (!ret) return from_err(&e, st), NULL;
  ret = st91_canonical(s, ret);
  omap_put(&s->st_simplify_memo, omap_ptr(x), (void *)ret);
  return ret;
}

/* ShapeTracker.__add__: "one view at a time = better simplification" */
const ShapeTracker *st91_add(Sched91 *s, const ShapeTracker *a, const ShapeTracker *b, Status *st) {
  uint64_t key = ((uint64_t)st_id91(s, a) << 32) | st_id91(s, b);
  const ShapeTracker *memo = omap_get(&s->st_add_memo, key);
  if (memo) return memo;
  StError e;
  st_error_clear(&e);
  const ShapeTracker *ret = st_add(s->a, TG_0_9_1, a, b, &e);
  if (!ret) return from_err(&e, st), NULL;
  ret = st91_canonical(s, ret);
  omap_put(&s->st_add_memo, key, (void *)ret);
  return ret;
}

const ShapeTracker *st91_from_shape(Sched91 *s, int ndim, const int64_t *shape, Status *st) {
  StError e;
  st_error_clear(&e);
  const ShapeTracker *ret = st_from_shape(s->a, TG_0_9_1, ndim, shape, &e);
  if (!ret) return from_err(&e, st), NULL;
  return st91_canonical(s, ret);
}

const ShapeTracker *st91_from_shape_of(Sched91 *s, const ShapeTracker *x, Status *st) {
  const ShapeTracker *memo = omap_get(&s->st_from_shape_memo, omap_ptr(x));
  if (memo) return memo;
  const View *v = last_view(x);
  if ((memo = st91_from_shape(s, v->ndim, v->shape, st))) omap_put(&s->st_from_shape_memo, omap_ptr(x), (void *)memo);
  return memo;
}

/* x.shrink(mask_of.views[0].mask) */
const ShapeTracker *st91_shrink_by_mask(Sched91 *s, const ShapeTracker *x, const ShapeTracker *mask_of, Status *st) {
  StError e;
  st_error_clear(&e);
  const View *m = mask_of->views[0];
  const ShapeTracker *ret = st_shrink(s->a, TG_0_9_1, x, m->ndim, m->mask, &e);
  if (!ret) return from_err(&e, st), NULL;
  return st91_canonical(s, ret);
}

/* ShapeTracker.unit_stride_axes() */
bool st91_unit_stride_axes(Sched91 *s, const ShapeTracker *x, bool *unit, Status *st) {
  int n = st_ndim(x);
  int *axes = arena_array(s->a, n ? (size_t)n : 1, sizeof *axes);
  StError e;
  st_error_clear(&e);
  int k = st_unit_stride_axes(s->a, TG_0_9_1, x, false, axes, &e);
  if (k < 0) return from_err(&e, st);
  for (int i = 0; i < n; i++) unit[i] = false;
  for (int i = 0; i < k; i++) unit[axes[i]] = true;
  return true;
}

/* ---------------------------------------------------------------- JSON codec */

static const ShapeTracker *st_decode_canonical(Codec *c, const JVal *j, Status *st) {
  const ShapeTracker *x = st_decode_status(c->arena, j, st);
  return x ? v_st(c->in, x)->u.st : NULL;
}

/* Encoded ShapeTrackers are shared: the same canonical ShapeTracker is one
 * JVal tree however often the result mentions it (JVals are immutable). */
static JVal *st_encode_shared(Codec *c, const ShapeTracker *x) {
  Sched91 *s = (Sched91 *)((char *)c - offsetof(Sched91, codec));
  x = st91_canonical(s, x);
  JVal *j = omap_get(&s->st_json, omap_ptr(x));
  if (!j) omap_put(&s->st_json, omap_ptr(x), j = st_to_json(c->arena, x));
  return j;
}

void st91_init(Sched91 *s) {
  s->in->st_hash = st_hash;
  s->in->st_equal = st_equal;
  s->codec.st_decode = st_decode_canonical;
  s->codec.st_encode = st_encode_shared;
  omap_init(&s->st_add_memo, s->a);
  omap_init(&s->st_simplify_memo, s->a);
  omap_init(&s->st_from_shape_memo, s->a);
  omap_init(&s->st_json, s->a);
}
