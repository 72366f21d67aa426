/* st10.c — ShapeTracker (shape/shapetracker.py, v0.10.0) over common/view.h,
 * held as interned values: from_shape, __add__, simplify, permute, shrink,
 * unit_stride_axes, the JSON codec and repr. */
#include <string.h>
#include "sched.h"

struct ShapeTracker {
  int nviews;
  const View *const *views;
};

static uint64_t st_hash(const ShapeTracker *st) {
  uint64_t h = 0x51ed27u + (uint64_t)st->nviews;
  for (int i = 0; i < st->nviews; i++) h = (h ^ view_hash(st->views[i])) * 0x100000001b3ULL;
  return h;
}

static bool st_equal(const ShapeTracker *a, const ShapeTracker *b) {
  if (a->nviews != b->nviews) return false;
  for (int i = 0; i < a->nviews; i++)
    if (!view_equal(a->views[i], b->views[i])) return false;
  return true;
}

static const Value *intern_views(Sched *s, int n, const View *const *views) {
  ShapeTracker *st = arena_alloc(s->a, sizeof *st);
  const View **copy = arena_array(s->a, (size_t)n + 1, sizeof *copy);
  memcpy(copy, views, (size_t)n * sizeof *copy);
  st->nviews = n;
  st->views = copy;
  return v_st(s->in, st);
}

static const ShapeTracker *get(const Value *v) { return v->u.st; }

int st10_ndim(const Value *st) { return get(st)->views[get(st)->nviews - 1]->ndim; }
const sint *st10_shape(const Value *st) { return get(st)->views[get(st)->nviews - 1]->shape; }
sint st10_size(const Value *st) { return view_size(get(st)->views[get(st)->nviews - 1]); }
bool st10_contiguous(const Value *st) { return get(st)->nviews == 1 && get(st)->views[0]->contiguous; }
int st10_nviews(const Value *st) { return get(st)->nviews; }
const View *st10_view(const Value *st, int i) { return get(st)->views[i]; }
bool st10_same_shape(const Value *a, const Value *b) {
  int n = st10_ndim(a);
  return n == st10_ndim(b) && (n == 0 || memcmp(st10_shape(a), st10_shape(b), (size_t)n * sizeof(sint)) == 0);
}

static bool check(Sched *s, const StError *e) {
  if (e->status == ST_OK) return true;
  return sched_st_error(s, e);
}

const View *st10_view_create(Sched *s, int n, const sint *shape, const sint *strides, sint offset, const SPair *mask) {
  StError e;
  st_error_clear(&e);
  const View *v = view_create(s->a, TG_0_10_0, n, shape, strides, offset, mask, &e);
  return check(s, &e) ? v : NULL;
}

const Value *st10_from_shape(Sched *s, int n, const sint *shape) {
  const View *v = st10_view_create(s, n, shape, NULL, 0, NULL);
  return v ? intern_views(s, 1, &v) : NULL;
}

const Value *st10_from_views(Sched *s, int n, const View *const *views) { return intern_views(s, n, views); }

/* ShapeTracker.simplify: merge the last two views while View.__add__ can */
static int simplify_views(Sched *s, const View **views, int n) {
  while (n >= 2) {
    StError e;
    st_error_clear(&e);
    const View *merged = view_add(s->a, TG_0_10_0, views[n - 2], views[n - 1], &e);
    if (!check(s, &e)) return -1;
    if (!merged) break;
    views[n - 2] = merged;
    n--;
  }
  return n;
}

const Value *st10_simplify(Sched *s, const Value *st) {
  int n = get(st)->nviews;
  const View **views = arena_array(s->a, (size_t)n + 1, sizeof *views);
  memcpy(views, get(st)->views, (size_t)n * sizeof *views);
  int k = simplify_views(s, views, n);
  if (k < 0) return NULL;
  return k == n ? st : intern_views(s, k, views);
}

/* ShapeTracker.__add__: one view at a time = better simplification */
static const Value *st_add(Sched *s, const Value *a, const Value *b) {
  int na = get(a)->nviews, nb = get(b)->nviews, n = na;
  const View **views = arena_array(s->a, (size_t)(na + nb) + 1, sizeof *views);
  memcpy(views, get(a)->views, (size_t)na * sizeof *views);
  for (int i = 0; i < nb; i++) {
    views[n++] = get(b)->views[i];
    if ((n = simplify_views(s, views, n)) < 0) return NULL;
  }
  return intern_views(s, n, views);
}

/* st_add, remembered per pair (a pure function of two interned values) */
const Value *st10_add(Sched *s, const Value *a, const Value *b) {
  const Value *pair[2] = {a, b};
  uint64_t key = omap_ptr(v_tuple(s->in, 2, pair));
  const Value *r = omap_get(&s->st_add_cache, key);
  if (!r && (r = st_add(s, a, b))) omap_put(&s->st_add_cache, key, (void *)r);
  return r;
}

/* a movement op on the last view */
static const Value *with_last(Sched *s, const Value *st, const View *last) {
  int n = get(st)->nviews;
  const View **views = arena_array(s->a, (size_t)n + 1, sizeof *views);
  memcpy(views, get(st)->views, (size_t)n * sizeof *views);
  views[n - 1] = last;
  return intern_views(s, n, views);
}

const Value *st10_permute(Sched *s, const Value *st, int n, const int64_t *axis) {
  StError e;
  st_error_clear(&e);
  const View *v = view_permute(s->a, TG_0_10_0, get(st)->views[get(st)->nviews - 1], n, axis, &e);
  return check(s, &e) ? with_last(s, st, v) : NULL;
}

const Value *st10_shrink(Sched *s, const Value *st, int n, const SPair *arg) {
  StError e;
  st_error_clear(&e);
  const View *v = view_shrink(s->a, TG_0_10_0, get(st)->views[get(st)->nviews - 1], n, arg, &e);
  return check(s, &e) ? with_last(s, st, v) : NULL;
}

/* unit_stride_axes(): [i for i,st in enumerate(self.real_strides()) if st == 1] */
int st10_unit_stride_axes(Sched *s, const Value *st, int64_t *out) {
  const View *v = get(st)->views[0];
  if (get(st)->nviews != 1 || v->mask) {
    sched_unsupported(s, "real_strides of a ShapeTracker with a mask or several views (image dtype)");
    return -1;
  }
  int k = 0;
  for (int i = 0; i < v->ndim; i++)
    if (v->strides[i] == 1) out[k++] = i;
  return k;
}

/* ---- repr ---- */

static const char *view_repr(Sched *s, const View *v) {
  return arena_printf(s->a, "View(shape=%s, strides=%s, offset=%lld, mask=%s, contiguous=%s)",
                      py_repr_tuple(s->a, v->ndim, v->shape), py_repr_tuple(s->a, v->ndim, v->strides),
                      (long long)v->offset, v->mask ? py_repr_pairs(s->a, v->ndim, v->mask) : "None",
                      v->contiguous ? "True" : "False");
}

const char *st10_repr(Sched *s, const Value *st) {
  const char *acc = "ShapeTracker(views=(";
  for (int i = 0; i < get(st)->nviews; i++) acc = arena_printf(s->a, "%s%s%s", acc, i ? ", " : "", view_repr(s, get(st)->views[i]));
  return arena_printf(s->a, "%s%s))", acc, get(st)->nviews == 1 ? "," : "");
}

/* ---- JSON codec: {"views": [{"shape", "strides", "offset", "mask", "contiguous"}]} ---- */

static Sched *codec_sched; /* the Sched being decoded (one capture at a time) */

static bool sint_of(const JVal *j, sint *out, Status *st, const char *where) {
  if (j->kind == J_INT) { *out = j->u.i; return true; }
  if (j->kind == J_OBJ && json_get(j, "sym")) return status_unsupported(st, "%s: symbolic shape: unsupported", where);
  return status_bad_input(st, "%s: a ShapeTracker value must be an int", where);
}

static bool sints_of(Arena *a, const JVal *arr, int n, sint **out, Status *st, const char *where) {
  if (!arr || arr->kind != J_ARR || (int)arr->n != n) return status_bad_input(st, "%s: bad ShapeTracker array", where);
  *out = arena_array(a, (size_t)n + 1, sizeof **out);
  for (int i = 0; i < n; i++)
    if (!sint_of(arr->u.arr[i], &(*out)[i], st, where)) return false;
  return true;
}

static const View *decode_view(Arena *a, const JVal *j, Status *st) {
  const char *where = "ShapeTracker view";
  const JVal *shape = json_get(j, "shape"), *mask = json_get(j, "mask"), *off = json_get(j, "offset"),
             *contig = json_get(j, "contiguous");
  if (j->kind != J_OBJ || !shape || shape->kind != J_ARR || !mask || !off || !contig || contig->kind != J_BOOL)
    return status_bad_input(st, "%s: missing fields", where), NULL;
  int n = (int)shape->n;
  sint *sh = NULL, *strides = NULL, offset = 0;
  if (!sints_of(a, shape, n, &sh, st, where) || !sints_of(a, json_get(j, "strides"), n, &strides, st, where) ||
      !sint_of(off, &offset, st, where))
    return NULL;
  SPair *m = NULL;
  if (mask->kind != J_NULL) {
    if (mask->kind != J_ARR || (int)mask->n != n) return status_bad_input(st, "%s: bad mask", where), NULL;
    m = arena_array(a, (size_t)n + 1, sizeof *m);
    for (int i = 0; i < n; i++) {
      const JVal *p = mask->u.arr[i];
      if (p->kind != J_ARR || p->n != 2 || !sint_of(p->u.arr[0], &m[i].b, st, where) || !sint_of(p->u.arr[1], &m[i].e, st, where))
        return st->kind ? NULL : (status_bad_input(st, "%s: bad mask pair", where), NULL);
    }
  }
  return view_new(a, n, sh, strides, offset, m, contig->u.b);
}

static const ShapeTracker *st_decode(Codec *c, const JVal *j, Status *st) {
  const JVal *views = json_get(j, "views");
  if (!views || views->kind != J_ARR || views->n == 0) return status_bad_input(st, "ShapeTracker: needs a non-empty \"views\""), NULL;
  const View **vs = arena_array(c->arena, views->n + 1, sizeof *vs);
  for (size_t i = 0; i < views->n; i++)
    if (!(vs[i] = decode_view(c->arena, views->u.arr[i], st))) return NULL;
  return get(intern_views(codec_sched, (int)views->n, vs));
}

static JVal *sints_json(Arena *a, int n, const sint *xs) {
  JVal *arr = json_arr(a);
  for (int i = 0; i < n; i++) json_push(a, arr, json_int(a, xs[i]));
  return arr;
}

static JVal *st_encode(Codec *c, const ShapeTracker *st) {
  Arena *a = c->arena;
  JVal *o = json_obj(a), *views = json_arr(a);
  for (int i = 0; i < st->nviews; i++) {
    const View *v = st->views[i];
    JVal *jv = json_obj(a), *mask = json_null(a);
    if (v->mask) {
      mask = json_arr(a);
      for (int k = 0; k < v->ndim; k++) {
        JVal *p = json_arr(a);
        json_push(a, p, json_int(a, v->mask[k].b));
        json_push(a, p, json_int(a, v->mask[k].e));
        json_push(a, mask, p);
      }
    }
    json_set(a, jv, "shape", sints_json(a, v->ndim, v->shape));
    json_set(a, jv, "strides", sints_json(a, v->ndim, v->strides));
    json_set(a, jv, "offset", json_int(a, v->offset));
    json_set(a, jv, "mask", mask);
    json_set(a, jv, "contiguous", json_bool(a, v->contiguous));
    json_push(a, views, jv);
  }
  json_set(a, o, "views", views);
  return o;
}

void st10_init(Sched *s) {
  codec_sched = s;
  s->in->st_hash = st_hash;
  s->in->st_equal = st_equal;
  s->codec.st_decode = st_decode;
  s->codec.st_encode = st_encode;
}
