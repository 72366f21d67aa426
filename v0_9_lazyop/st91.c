/* st91.c — the ShapeTracker operations of the 0.9.1 scheduler (st91.h):
 * shape/shapetracker.py's __add__, simplify, from_shape, shrink,
 * unit_stride_axes over common/view.h's View, with canonical (interned)
 * results and memo tables for __add__ and simplify (Python lru_caches
 * View.__add__). */
#include <stddef.h>
#include <string.h>
#include "sched91.h"
#include "view.h"

/* shape/shapetracker.py ShapeTracker: a tuple of Views. */
struct ShapeTracker {
  int nviews;
  const View *const *views;
};

static const View *last_view(const ShapeTracker *st) { return st->views[st->nviews - 1]; }

int st91_nviews(const ShapeTracker *st) { return st->nviews; }
bool st91_view_masked(const ShapeTracker *st, int i) { return st->views[i]->mask != NULL; }
int st91_ndim(const ShapeTracker *st) { return last_view(st)->ndim; }
int64_t st91_shape(const ShapeTracker *st, int axis) { return last_view(st)->shape[axis]; }
int64_t st91_size(const ShapeTracker *st) { return view_size(last_view(st)); }
int64_t st91_prod_shape(const ShapeTracker *st) { return view_size(last_view(st)); }
bool st91_contiguous(const ShapeTracker *st) { return st->nviews == 1 && st->views[0]->contiguous; }

int64_t st91_prod_mask(const ShapeTracker *st) {
  const View *v = last_view(st);
  int64_t p = 1;
  for (int i = 0; i < v->ndim; i++) p *= v->mask[i].e - v->mask[i].b;
  return p;
}

/* ---------------------------------------------------------------- hashing, interning */

static uint64_t st_hash(const ShapeTracker *st) {
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ (uint64_t)st->nviews;
  for (int i = 0; i < st->nviews; i++) h = (h ^ view_hash(st->views[i])) * 0xff51afd7ed558ccdULL;
  return h;
}

static bool st_equal(const ShapeTracker *a, const ShapeTracker *b) {
  if (a->nviews != b->nviews) return false;
  for (int i = 0; i < a->nviews; i++)
    if (!view_equal(a->views[i], b->views[i])) return false;
  return true;
}

const ShapeTracker *st91_canonical(Sched91 *s, const ShapeTracker *st) { return v_st(s->in, st)->u.st; }

static const ShapeTracker *make_st(Sched91 *s, int n, const View *const *views) {
  ShapeTracker *st = arena_alloc(s->a, sizeof *st);
  const View **vs = arena_array(s->a, (size_t)n, sizeof *vs);
  memcpy(vs, views, (size_t)n * sizeof *vs);
  st->nviews = n;
  st->views = vs;
  return st91_canonical(s, st);
}

static bool from_err(StError *e, Status *st) {
  if (e->status == ST_RAISED) return status_raise(st, e->type, "%s", e->message);
  return status_unsupported(st, "%s", e->message);
}

/* ---------------------------------------------------------------- operations */

/* ShapeTracker.simplify: merge the last two views while View.__add__ can. */
const ShapeTracker *st91_simplify(Sched91 *s, const ShapeTracker *x, Status *st) {
  const ShapeTracker *memo = omap_get(&s->st_simplify_memo, omap_ptr(x));
  if (memo) return memo;
  const ShapeTracker *cur = x;
  while (cur->nviews >= 2) {
    StError e;
    st_error_clear(&e);
    const View *merged = view_add(s->a, TG_0_9_1, cur->views[cur->nviews - 2], cur->views[cur->nviews - 1], &e);
    if (e.status != ST_OK) return from_err(&e, st), NULL;
    if (!merged) break;
    const View **vs = arena_array(s->a, (size_t)cur->nviews - 1, sizeof *vs);
    memcpy(vs, cur->views, (size_t)(cur->nviews - 2) * sizeof *vs);
    vs[cur->nviews - 2] = merged;
    cur = make_st(s, cur->nviews - 1, vs);
  }
  omap_put(&s->st_simplify_memo, omap_ptr(x), (void *)cur);
  return cur;
}

/* ShapeTracker.__add__: "one view at a time = better simplification" */
const ShapeTracker *st91_add(Sched91 *s, const ShapeTracker *a, const ShapeTracker *b, Status *st) {
  uint64_t key = ((uint64_t)st_id91(s, a) << 32) | st_id91(s, b);
  const ShapeTracker *memo = omap_get(&s->st_add_memo, key);
  if (memo) return memo;
  const ShapeTracker *ret = a;
  for (int i = 0; i < b->nviews; i++) {
    const View **vs = arena_array(s->a, (size_t)ret->nviews + 1, sizeof *vs);
    memcpy(vs, ret->views, (size_t)ret->nviews * sizeof *vs);
    vs[ret->nviews] = b->views[i];
    if (!(ret = st91_simplify(s, make_st(s, ret->nviews + 1, vs), st))) return NULL;
  }
  omap_put(&s->st_add_memo, key, (void *)ret);
  return ret;
}

const ShapeTracker *st91_from_shape(Sched91 *s, int ndim, const int64_t *shape, Status *st) {
  StError e;
  st_error_clear(&e);
  const View *v = view_create(s->a, TG_0_9_1, ndim, shape, NULL, 0, NULL, &e);
  if (!v) return from_err(&e, st), NULL;
  return make_st(s, 1, &v);
}

const ShapeTracker *st91_from_shape_of(Sched91 *s, const ShapeTracker *x, Status *st) {
  const ShapeTracker *memo = omap_get(&s->st_from_shape_memo, omap_ptr(x));
  if (memo) return memo;
  const View *v = last_view(x);
  if ((memo = st91_from_shape(s, v->ndim, v->shape, st))) omap_put(&s->st_from_shape_memo, omap_ptr(x), (void *)memo);
  return memo;
}

/* x.shrink(mask_of.views[0].mask): shrinks the last view */
const ShapeTracker *st91_shrink_by_mask(Sched91 *s, const ShapeTracker *x, const ShapeTracker *mask_of, Status *st) {
  StError e;
  st_error_clear(&e);
  const View *m = mask_of->views[0], *lv = last_view(x);
  const View *v = view_shrink(s->a, TG_0_9_1, lv, m->ndim, m->mask, &e);
  if (!v) return from_err(&e, st), NULL;
  const View **vs = arena_array(s->a, (size_t)x->nviews, sizeof *vs);
  memcpy(vs, x->views, (size_t)x->nviews * sizeof *vs);
  vs[x->nviews - 1] = v;
  return make_st(s, x->nviews, vs);
}

/* ShapeTracker.unit_stride_axes: axes whose real stride is 1. real_strides
 * of one unmasked view is its strides; other cases need the symbolic index
 * expression (not ported here yet). */
bool st91_unit_stride_axes(Sched91 *s, const ShapeTracker *x, bool *unit, Status *st) {
  (void)s;
  const View *v = last_view(x);
  if (x->nviews != 1 || v->mask)
    return status_unsupported(st, "ShapeTracker.real_strides of a multi-view or masked ShapeTracker (image dtype check)");
  for (int i = 0; i < v->ndim; i++) unit[i] = v->strides[i] == 1;
  return true;
}

/* ---------------------------------------------------------------- JSON codec */

static bool sint_from_json(const JVal *j, sint *out, Status *st) {
  if (j->kind == J_INT) { *out = j->u.i; return true; }
  if (j->kind == J_OBJ && json_get(j, "sym")) return status_unsupported(st, "symbolic shape: unsupported");
  return status_bad_input(st, "ShapeTracker: a shape, stride, offset or mask entry is not an int");
}

static bool sints_from_json(Arena *a, const JVal *j, int n, sint **out, Status *st) {
  if (!j || j->kind != J_ARR || (int)j->n != n) return status_bad_input(st, "ShapeTracker: view arrays disagree in length");
  *out = arena_array(a, n ? (size_t)n : 1, sizeof **out);
  for (int i = 0; i < n; i++)
    if (!sint_from_json(j->u.arr[i], &(*out)[i], st)) return false;
  return true;
}

static const View *view_from_json(Arena *a, const JVal *j, Status *st) {
  const JVal *shape = json_get(j, "shape"), *mask = json_get(j, "mask"), *off = json_get(j, "offset"),
             *contig = json_get(j, "contiguous");
  if (j->kind != J_OBJ || !shape || shape->kind != J_ARR || !off || !contig || contig->kind != J_BOOL)
    return status_bad_input(st, "ShapeTracker: a view needs shape, strides, offset, mask, contiguous"), NULL;
  if (shape->n > 64) return status_bad_input(st, "ShapeTracker: absurdly many dimensions"), NULL;
  int n = (int)shape->n;
  sint *sh, *strides, offset = 0;
  if (!sints_from_json(a, shape, n, &sh, st) || !sints_from_json(a, json_get(j, "strides"), n, &strides, st) ||
      !sint_from_json(off, &offset, st))
    return NULL;
  for (int i = 0; i < n; i++)
    if (sh[i] < 0 || sh[i] > ((int64_t)1 << 40)) return status_bad_input(st, "ShapeTracker: absurd dimension"), NULL;
  SPair *m = NULL;
  if (mask && mask->kind != J_NULL) {
    if (mask->kind != J_ARR || (int)mask->n != n) return status_bad_input(st, "ShapeTracker: bad mask"), NULL;
    m = arena_array(a, n ? (size_t)n : 1, sizeof *m);
    for (int i = 0; i < n; i++) {
      sint *pair;
      if (!sints_from_json(a, mask->u.arr[i], 2, &pair, st)) return NULL;
      m[i] = (SPair){pair[0], pair[1]};
    }
  }
  return view_new(a, n, sh, strides, offset, m, contig->u.b);
}

static const ShapeTracker *st_decode(Codec *c, const JVal *j, Status *st) {
  const JVal *views = json_get(j, "views");
  if (!views || views->kind != J_ARR || views->n == 0 || views->n > 1024)
    return status_bad_input(st, "ShapeTracker: \"views\" must be a non-empty array"), NULL;
  ShapeTracker *x = arena_alloc(c->arena, sizeof *x);
  const View **vs = arena_array(c->arena, views->n, sizeof *vs);
  for (size_t i = 0; i < views->n; i++)
    if (!(vs[i] = view_from_json(c->arena, views->u.arr[i], st))) return NULL;
  x->nviews = (int)views->n;
  x->views = vs;
  return v_st(c->in, x)->u.st;
}

static JVal *ints_json(Arena *a, int n, const sint *xs) {
  JVal *arr = json_arr(a);
  for (int i = 0; i < n; i++) json_push(a, arr, json_int(a, xs[i]));
  return arr;
}

static JVal *st_encode_uncached(Codec *c, const ShapeTracker *x) {
  Arena *a = c->arena;
  JVal *views = json_arr(a), *o = json_obj(a);
  for (int i = 0; i < x->nviews; i++) {
    const View *v = x->views[i];
    JVal *vj = json_obj(a), *mask = json_null(a);
    json_set(a, vj, "shape", ints_json(a, v->ndim, v->shape));
    json_set(a, vj, "strides", ints_json(a, v->ndim, v->strides));
    json_set(a, vj, "offset", json_int(a, v->offset));
    if (v->mask) {
      mask = json_arr(a);
      for (int k = 0; k < v->ndim; k++) {
        sint pair[2] = {v->mask[k].b, v->mask[k].e};
        json_push(a, mask, ints_json(a, 2, pair));
      }
    }
    json_set(a, vj, "mask", mask);
    json_set(a, vj, "contiguous", json_bool(a, v->contiguous));
    json_push(a, views, vj);
  }
  json_set(a, o, "views", views);
  return o;
}

/* Encoded ShapeTrackers are shared: the same canonical ShapeTracker is one
 * JVal tree however often the result mentions it (JVals are immutable). */
static JVal *st_encode(Codec *c, const ShapeTracker *x) {
  Sched91 *s = (Sched91 *)((char *)c - offsetof(Sched91, codec));
  x = st91_canonical(s, x);
  JVal *j = omap_get(&s->st_json, omap_ptr(x));
  if (!j) omap_put(&s->st_json, omap_ptr(x), j = st_encode_uncached(c, x));
  return j;
}

void st91_init(Sched91 *s) {
  s->in->st_hash = st_hash;
  s->in->st_equal = st_equal;
  s->codec.st_decode = st_decode;
  s->codec.st_encode = st_encode;
  omap_init(&s->st_add_memo, s->a);
  omap_init(&s->st_simplify_memo, s->a);
  omap_init(&s->st_from_shape_memo, s->a);
  omap_init(&s->st_json, s->a);
}
