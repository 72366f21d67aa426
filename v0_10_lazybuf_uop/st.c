/* st.c — ShapeTracker (shape/shapetracker.py) over common/view.h, held as
 * interned values: from_shape, __add__, simplify, permute, shrink,
 * unit_stride_axes, the JSON codec and repr. */
#include <stddef.h>
#include <string.h>
#include "pipeline.h"
#include "shapetracker.h"
#include "symbolic.h"

/* The ShapeTracker core builds its results in s->st_scratch: most of them
 * equal a ShapeTracker interned already, and only a new one is copied into
 * s->a. The scratch arena is emptied once it has grown past ST_SCRATCH_BYTES,
 * when an operation has its interned result (so nothing points into it). */
enum { ST_SCRATCH_BYTES = 16 * 1024 };

void v0_10_st_release(Sched *s) {
  arena_free(&s->st_scratch);
  arena_init(&s->st_scratch);
}

/* a copy of st and of its views in a */
static const ShapeTracker *st_copy(Arena *a, const ShapeTracker *st) {
  const View *views[st->nviews];
  for (int i = 0; i < st->nviews; i++) {
    const View *v = st->views[i];
    views[i] = view_new(a, v->ndim, v->shape, v->strides, v->offset, v->mask, v->contiguous);
  }
  return st_new(a, st->nviews, views);
}

/* the interned value of a result of the core, which may live in the scratch arena */
static const Value *intern_st(Sched *s, const ShapeTracker *raw) {
  size_t known = s->in->nvalues;
  const Value *v = v_st(s->in, raw);
  /* a new value took raw itself: it gets a copy of the same value (same hash) in s->a */
  if (s->in->nvalues != known) ((Value *)v)->u.st = st_copy(s->a, raw);
  if (v0_10_arena_used(&s->st_scratch) > ST_SCRATCH_BYTES) v0_10_st_release(s);
  return v;
}

static const Value *intern_views(Sched *s, int n, const View *const *views) {
  return intern_st(s, st_new(&s->st_scratch, n, views));
}

static const ShapeTracker *get(const Value *v) { return v->u.st; }

int v0_10_st_ndim(const Value *st) { return get(st)->views[get(st)->nviews - 1]->ndim; }
const sint *v0_10_st_shape(const Value *st) { return get(st)->views[get(st)->nviews - 1]->shape; }
int64_t v0_10_st_size(const Value *st) { return view_size(get(st)->views[get(st)->nviews - 1]); }
bool v0_10_st_contiguous(const Value *st) { return get(st)->nviews == 1 && get(st)->views[0]->contiguous; }
int v0_10_st_nviews(const Value *st) { return get(st)->nviews; }
const View *v0_10_st_view(const Value *st, int i) { return get(st)->views[i]; }
bool v0_10_st_same_shape(const Value *a, const Value *b) {
  int n = v0_10_st_ndim(a);
  if (n != v0_10_st_ndim(b)) return false;
  for (int i = 0; i < n; i++)
    if (sint_ne(v0_10_st_shape(a)[i], v0_10_st_shape(b)[i])) return false;
  return true;
}

const View *v0_10_view_create(Sched *s, int n, const sint *shape, const sint *strides, sint offset, const SPair *mask) {
  const View *v = view_create(&s->st_scratch, s->v, n, shape, strides, offset, mask);
  return v;
}

const Value *v0_10_st_from_shape(Sched *s, int n, const sint *shape) {
  const ShapeTracker *r = st_from_shape(&s->st_scratch, s->v, n, shape);
  return intern_st(s, r);
}

/* ShapeTracker.from_shape(st.shape), remembered per ShapeTracker */
const Value *v0_10_st_from_shape_of(Sched *s, const Value *st) {
  const Value *r = omap_get(&s->st_full_cache, omap_ptr(st));
  if (r) return r;
  r = v0_10_st_from_shape(s, v0_10_st_ndim(st), v0_10_st_shape(st));
  omap_put(&s->st_full_cache, omap_ptr(st), (void *)r);
  return r;
}

/* the memo of a function of two interned values (a, b): outer[a], a map by b (made on first use) */
static OMap *memo_by_second(Sched *s, OMap *outer, const Value *a) {
  OMap *by_b = omap_get(outer, omap_ptr(a));
  if (!by_b) {
    by_b = arena_alloc(s->caches, sizeof *by_b);
    omap_init(by_b, s->caches);
    omap_put(outer, omap_ptr(a), by_b);
  }
  return by_b;
}

/* the same, remembered per (st, axis) */
const Value *v0_10_st_from_reduced_shape(Sched *s, const Value *st, const Value *axis) {
  OMap *by_axis = memo_by_second(s, &s->st_reduce_cache, st);
  const Value *r = omap_get(by_axis, omap_ptr(axis));
  if (r) return r;
  int n = v0_10_st_ndim(st);
  sint *shape = arena_array(&s->st_scratch, (size_t)n + 1, sizeof *shape);
  memcpy(shape, v0_10_st_shape(st), (size_t)n * sizeof *shape);
  for (size_t k = 0; k < axis->u.tuple.n; k++) {
    int64_t ax = axis->u.tuple.items[k]->u.i;
    if (ax >= 0 && ax < n) shape[ax] = sint_int(1);
  }
  r = v0_10_st_from_shape(s, n, shape);
  omap_put(by_axis, omap_ptr(axis), (void *)r);
  return r;
}

const Value *v0_10_st_from_views(Sched *s, int n, const View *const *views) { return intern_views(s, n, views); }

/* ShapeTracker.simplify, remembered per ShapeTracker */
const Value *v0_10_st_simplify(Sched *s, const Value *st) {
  const Value *r = omap_get(&s->st_simplify_cache, omap_ptr(st));
  if (r) return r;
  const ShapeTracker *simple = st_simplify(&s->st_scratch, s->v, get(st));
  r = intern_st(s, simple);
  omap_put(&s->st_simplify_cache, omap_ptr(st), (void *)r);
  return r;
}

const Value *v0_10_st_unbind(Sched *s, const Value *st) {
  if (omap_has(&s->st_unbound, omap_ptr(st))) return st;
  enum { CAP = 64 };
  sint vars[CAP];
  int64_t vals[CAP];
  int n = 0;
  const ShapeTracker *r = st_unbind(&s->st_scratch, s->v, get(st), vars, vals, CAP, &n);
  for (int k = 0; k < n; k++) {
    const SymUOp *var = vars[k].sym;
    const UOp *u = v0_10_variable(s, var->name, strlen(var->name), var->lo, var->hi);
    omap_put(&s->var_vals, omap_ptr(u), (void *)v_int(s->in, vals[k]));
  }
  if (n == 0 && r == get(st)) omap_put(&s->st_unbound, omap_ptr(st), (void *)1);
  return r == get(st) ? st : intern_st(s, r);
}

/* st_add, remembered per pair (a pure function of two interned values): by a, then by b */
const Value *v0_10_st_add(Sched *s, const Value *a, const Value *b) {
  OMap *by_b = memo_by_second(s, &s->st_add_cache, a);
  const Value *r = omap_get(by_b, omap_ptr(b));
  if (r) return r;
  const ShapeTracker *sum = st_add(&s->st_scratch, s->v, get(a), get(b));
  r = intern_st(s, sum);
  omap_put(by_b, omap_ptr(b), (void *)r);
  return r;
}

const Value *v0_10_st_permute(Sched *s, const Value *st, int n, const int64_t *axis) {
  const ShapeTracker *r = st_permute(&s->st_scratch, s->v, get(st), n, axis);
  return intern_st(s, r);
}

const Value *v0_10_st_reshape(Sched *s, const Value *st, int n, const sint *shape) {
  const ShapeTracker *r = st_reshape(&s->st_scratch, s->v, get(st), n, shape, s->merge_view);
  return intern_st(s, r);
}

const Value *v0_10_st_expand(Sched *s, const Value *st, int n, const sint *shape) {
  const ShapeTracker *r = st_expand(&s->st_scratch, s->v, get(st), n, shape);
  return intern_st(s, r);
}

const Value *v0_10_st_shrink(Sched *s, const Value *st, int n, const SPair *arg) {
  const ShapeTracker *r = st_shrink(&s->st_scratch, s->v, get(st), n, arg);
  return intern_st(s, r);
}

/* ShapeTracker.unit_stride_axes() */
int v0_10_st_unit_stride_axes(Sched *s, const Value *st, int64_t *out) {
  int n = v0_10_st_ndim(st);
  int *axes = arena_array(&s->st_scratch, (size_t)n + 1, sizeof *axes);
  int k = st_unit_stride_axes(&s->st_scratch, s->v, get(st), false, axes);
  for (int i = 0; i < k; i++) out[i] = axes[i];
  return k;
}

/* ---- repr ---- */

static const char *view_repr(Sched *s, const View *v) { return py_repr_view(s->a, v); }

const char *v0_10_st_repr(Sched *s, const Value *st) {
  const char *acc = "ShapeTracker(views=(";
  for (int i = 0; i < get(st)->nviews; i++) acc = arena_printf(s->a, "%s%s%s", acc, i ? ", " : "", view_repr(s, get(st)->views[i]));
  return arena_printf(s->a, "%s%s))", acc, get(st)->nviews == 1 ? "," : "");
}

/* ---- JSON codec: the ShapeTracker module's, values interned ---- */

/* decoded in the scratch arena: the interned ShapeTracker (in s->a) is what the value holds */
static const ShapeTracker *codec_decode(Codec *c, const JVal *j, Status *st) {
  Sched *s = (Sched *)((char *)c - offsetof(Sched, codec));
  const ShapeTracker *raw = st_decode_status(&s->st_scratch, j, st);
  return raw ? intern_st(s, raw)->u.st : NULL;
}
/* the encoding of an interned ShapeTracker is built once and shared (JSON results are never modified) */
static JVal *codec_encode(Codec *c, const ShapeTracker *st) {
  Sched *s = (Sched *)((char *)c - offsetof(Sched, codec));
  JVal *j = omap_get(&s->st_json_cache, omap_ptr(st));
  if (!j) {
    j = st_to_json(c->arena, st);
    omap_put(&s->st_json_cache, omap_ptr(st), j);
  }
  return j;
}

void v0_10_st_init(Sched *s) {
  s->in->st_hash = st_hash;
  s->in->st_equal = st_equal;
  s->codec.st_decode = codec_decode;
  s->codec.st_encode = codec_encode;
}
