/* reduceops.c — tinygrad 0.9.2 engine/schedule.py _recurse_reduceops,
 * _permute_reduce and the "pad all reduceops to the max of each dimension"
 * step of _lower_lazybuffer: before a kernel's AST is built, the movement
 * ops between its reduces are pushed into the reduces' input ShapeTrackers
 * (reduce_info: (reduce, st) -> (input_st, axis)), a reduce of a reduce of
 * the same op merges into one, and the reduce inputs are padded to one
 * shape. Python's recursion is a loop over an explicit stack. */
#include <string.h>
#include "pipeline.h"
#include "shapetracker.h"
#include "symbolic.h"
#include "view.h"

enum { NO_REDUCE = -1 };   /* Python's None */

const ReduceInfo *v0_9_reduce_info_get(const ReduceInfos *ri, const LazyBuffer *buf, const StHandle *st) {
  void *v;
  if (!omap_find(&ri->index, v0_9_st_memo_key(buf, st), &v)) return NULL;
  return &ri->items[(intptr_t)v - 1];
}

/* reduce_info[(buf, st)] = (input_st, axis): a dict, so a key set again keeps its place */
static int reduce_info_put(Sched *s, ReduceInfos *ri, LazyBuffer *buf, const StHandle *st, const StHandle *input_st,
    int naxis, const int64_t *axis) {
  uint64_t key = v0_9_st_memo_key(buf, st);
  void *v;
  int k;
  if (omap_find(&ri->index, key, &v)) {
    k = (int)(intptr_t)v - 1;
  } else {
    ri->items = arena_grow(s->a, ri->items, (size_t)ri->n, &ri->cap, sizeof *ri->items);
    k = ri->n++;
    omap_put(&ri->index, key, (void *)(intptr_t)(k + 1));
  }
  ri->items[k] = (ReduceInfo){buf, st, input_st, naxis, axis};
  return k;
}

static bool has_axis(int naxis, const int64_t *axis, int64_t i) {
  for (int k = 0; k < naxis; k++)
    if (axis[k] == i) return true;
  return false;
}

/* ops.py reduce_st: tuple(1 if i in axis else s for i,s in enumerate(st.shape)) into out */
static void reduce_shape(const StHandle *input_st, int naxis, const int64_t *axis, sint *out) {
  for (int i = 0; i < v0_9_st_ndim(input_st); i++)
    out[i] = has_axis(naxis, axis, i) ? sint_int(1) : v0_9_st_shape(input_st, i);
}

const StHandle *v0_9_reduce_st(Sched *s, const StHandle *input_st, int naxis, const int64_t *axis) {
  int n = v0_9_st_ndim(input_st);
  sint *shape = arena_array(s->a, n ? (size_t)n : 1, sizeof *shape);
  reduce_shape(input_st, naxis, axis, shape);
  return v0_9_st_from_shape(s, n, shape);
}

static const StHandle *reshape_to_reduce(
    Sched *s, const StHandle *x, const StHandle *input_st, int naxis, const int64_t *axis) {
  int n = v0_9_st_ndim(input_st);
  sint *shape = arena_array(s->a, n ? (size_t)n : 1, sizeof *shape);
  reduce_shape(input_st, naxis, axis, shape);
  return v0_9_st_reshape(s, x, n, shape);
}

/* _permute_reduce: input_st.permute(the other axes, then axis) */
static const StHandle *permute_reduce(Sched *s, const StHandle *input_st, int naxis, const int64_t *axis) {
  int n = v0_9_st_ndim(input_st), k = 0;
  int64_t *perm = arena_array(s->a, n ? (size_t)n : 1, sizeof *perm);
  for (int i = 0; i < n; i++)
    if (!has_axis(naxis, axis, i)) perm[k++] = i;
  for (int i = 0; i < naxis && k < n; i++) perm[k++] = axis[i];
  return v0_9_st_permute(s, input_st, n, perm);
}

/* "push the movementop to the input": the reduce's non-contiguous output
 * view `view` moves onto its input; *axis becomes the last naxis axes. */
const StHandle *v0_9_push_view_to_input(
    Sched *s, const StHandle *input_st, const StHandle *view, int naxis, const int64_t **axis) {
  const StHandle *tmp = permute_reduce(s, input_st, naxis, *axis);
  int tn = v0_9_st_ndim(tmp);
  if (naxis == 0 || naxis > tn) error_unsupported("a reduce over no axes or more axes than its input has");
  const sint *rshape = v0_9_st_shape_of(tmp) + (tn - naxis);
  sint prshape = sint_prod(naxis, rshape);
  sint *rstrides = arena_array(s->a, (size_t)naxis, sizeof *rstrides);
  strides_for_shape(naxis, rshape, rstrides);
  int nv = v0_9_st_nviews(view);
  const View **views = arena_array(s->a, (size_t)nv, sizeof *views);
  for (int k = 0; k < nv; k++) {
    const View *v = view->st->views[k];
    int n = v->ndim + naxis;
    sint *shape = arena_array(s->a, (size_t)n, sizeof *shape), *strides = arena_array(s->a, (size_t)n, sizeof *strides);
    SPair *mask = v->mask ? arena_array(s->a, (size_t)n, sizeof *mask) : NULL;
    for (int i = 0; i < n; i++) {
      bool mine = i < v->ndim;
      shape[i] = mine ? v->shape[i] : rshape[i - v->ndim];
      strides[i] = mine ? sint_mul(v->strides[i], prshape) : rstrides[i - v->ndim];
      if (mask) mask[i] = mine ? v->mask[i] : (SPair){sint_int(0), rshape[i - v->ndim]};
    }
    views[k] = view_create(s->a, s->v, n, shape, strides, sint_mul(v->offset, prshape), mask);
  }
  const StHandle *pushed = v0_9_st_add(s, tmp, v0_9_st_of_views(s, nv, views));
  int n = v0_9_st_ndim(pushed);
  int64_t *new_axis = arena_array(s->a, (size_t)naxis, sizeof *new_axis);
  for (int i = 0; i < naxis; i++) new_axis[i] = n - naxis + i;
  *axis = new_axis;
  return pushed;
}

/* The reduce's axis: its arg, a tuple of ints */
void v0_9_reduce_axis(Sched *s, const LazyBuffer *buf, int *naxis, const int64_t **axis) {
  const Value *arg = buf->arg;
  if (arg->kind != V_TUPLE) error_bad_input("lazybuffers[%d]: a reduce's arg must be a tuple of axes", buf->index);
  int64_t *out = arena_array(s->a, arg->u.tuple.n ? arg->u.tuple.n : 1, sizeof *out);
  for (size_t i = 0; i < arg->u.tuple.n; i++) {
    const Value *x = arg->u.tuple.items[i];
    if (x->kind != V_INT || x->u.i < 0 || x->u.i >= v0_9_st_ndim(buf->srcs[0]->st))
      error_bad_input("lazybuffers[%d]: a reduce's arg must be a tuple of axes of its source", buf->index);
    out[i] = x->u.i;
  }
  *naxis = (int)arg->u.tuple.n;
  *axis = out;
}

typedef struct RFrame {
  LazyBuffer *buf;            /* a base */
  const StHandle *st, *input_st;
  int next;                   /* the next source to walk */
  int top;                    /* top_reduce: the last source's result that was not None */
} RFrame;

typedef struct RWalk {
  Sched *s;
  ReduceInfos *ri;
  uint32_t out_mark;          /* search_mark of the group's outputs */
  OMap cache;                 /* (base, st) -> result + 2 (1: None), past each base's first entry (rr_st) */
  size_t depth;               /* frames on s->rr_stack */
} RWalk;

static RFrame *rr_frames(RWalk *w) { return w->s->rr_stack; }

/* The reduce part of _recurse_reduceops, once the sources are walked: the result or NO_REDUCE. */
static int finish_reduce(RWalk *w, RFrame *f) {
  Sched *s = w->s;
  LazyBuffer *buf = f->buf;
  const StHandle *input_st = f->input_st, *view = f->st;
  int naxis = 0;
  const int64_t *axis = NULL;
  v0_9_reduce_axis(s, buf, &naxis, &axis);
  if (!view->contiguous) {
    input_st = v0_9_push_view_to_input(s, input_st, view, naxis, &axis);
  } else if (f->top != NO_REDUCE) {
    ReduceInfo top = w->ri->items[f->top];
    LazyBuffer *src = buf->srcs[0];
    if (src != src->base && src->base == top.buf && buf->op == top.buf->op) {
      /* merge this reduce with its parent */
      const StHandle *new_st = v0_9_st_add(s, top.st, view);
      int n = naxis + top.naxis;
      int64_t *new_axis = arena_array(s->a, (size_t)n, sizeof *new_axis);
      memcpy(new_axis, axis, (size_t)naxis * sizeof *axis);
      memcpy(new_axis + naxis, top.axis, (size_t)top.naxis * sizeof *axis);
      const StHandle *key_st = reshape_to_reduce(s, new_st, top.input_st, n, new_axis);
      reduce_info_put(s, w->ri, top.buf, key_st, top.input_st, n, new_axis);
      return NO_REDUCE;
    }
    /* reshape this reduceop based on the top reduce */
    int n = v0_9_st_ndim(top.input_st);
    sint *shape = arena_array(s->a, n ? (size_t)n : 1, sizeof *shape);
    reduce_shape(top.input_st, top.naxis, top.axis, shape);
    input_st = v0_9_st_reshape(s, input_st, n, shape);
  }
  view = reshape_to_reduce(s, view, input_st, naxis, axis);
  return reduce_info_put(s, w->ri, buf, view, input_st, naxis, axis);
}

/* `(buf, st) in cache`: the base's own entry, then the map */
static bool cache_get(RWalk *w, LazyBuffer *base, const StHandle *st, int *result) {
  if (base->rr_mark != w->out_mark) return false;
  if (base->rr_st == st) {
    *result = base->rr_result;
    return true;
  }
  void *v;
  if (!omap_find(&w->cache, v0_9_st_memo_key(base, st), &v)) return false;
  *result = (int)(intptr_t)v - 2;
  return true;
}

static void cache_put(RWalk *w, LazyBuffer *base, const StHandle *st, int result) {
  if (base->rr_mark != w->out_mark) {
    base->rr_mark = w->out_mark;
    base->rr_st = st;
    base->rr_result = result;
  } else if (base->rr_st == st) {
    base->rr_result = result;
  } else {
    omap_put(&w->cache, v0_9_st_memo_key(base, st), (void *)(intptr_t)(result + 2));
  }
}

/* Calling _recurse_reduceops(buf, st): *result is the answer, or a frame was pushed (*pushed). */
static void rr_enter(RWalk *w, LazyBuffer *buf, const StHandle *view, int *result, bool *pushed) {
  Sched *s = w->s;
  *pushed = false;
  *result = NO_REDUCE;
  LazyBuffer *base = buf->base;
  if (base->realized || (base->in_realizes && base->search_mark != w->out_mark)) return;
  if (buf != base) view = v0_9_st_add(s, buf->st, view);
  if (cache_get(w, base, view, result)) return;
  const StHandle *input_st = view;
  if (v0_9_is_reduceop(base->op)) input_st = v0_9_st_from_shape_of(s, base->srcs[0]->st);
  v0_9_py_recursion_check(w->depth + 1);
  s->rr_stack = arena_grow(s->a, s->rr_stack, w->depth, &s->rr_stack_cap, sizeof(RFrame));
  rr_frames(w)[w->depth++] = (RFrame){base, view, input_st, 0, NO_REDUCE};
  *pushed = true;
}

/* engine/schedule.py _recurse_reduceops (0.9.2) from one output */
static void recurse_reduceops(RWalk *w, LazyBuffer *out) {
  int result;
  bool pushed;
  rr_enter(w, out, out->st, &result, &pushed);
  while (w->depth) {
    RFrame *f = &rr_frames(w)[w->depth - 1];
    if (f->next < f->buf->nsrcs) {
      rr_enter(w, f->buf->srcs[f->next++], f->input_st, &result, &pushed);
      if (!pushed && result != NO_REDUCE) f->top = result;
      continue;
    }
    RFrame done = *f;
    result = v0_9_is_reduceop(done.buf->op) ? finish_reduce(w, &done) : done.top;
    cache_put(w, done.buf, done.st, result);
    w->depth--;
    if (w->depth && result != NO_REDUCE) rr_frames(w)[w->depth - 1].top = result;
  }
}

/* "pad all reduceops to the max of each dimension" */
static void pad_reduceops(Sched *s, ReduceInfos *ri) {
  if (ri->n < 2) return;
  int ndim = v0_9_st_ndim(ri->items[0].input_st);   /* zip(*shapes) stops at the shortest */
  for (int k = 1; k < ri->n; k++)
    if (v0_9_st_ndim(ri->items[k].input_st) < ndim) ndim = v0_9_st_ndim(ri->items[k].input_st);
  int64_t *maxes = arena_array(s->a, ndim ? (size_t)ndim : 1, sizeof *maxes);
  bool *skip = arena_array(s->a, ndim ? (size_t)ndim : 1, sizeof *skip);
  sint *dims = arena_array(s->a, (size_t)ri->n, sizeof *dims);
  for (int i = 0; i < ndim; i++) {  /* shape_dims[i] = sorted(dedup(dims)), from the shapes before any padding */
    int n = 0;
    bool symbolic = false;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (int k = 0; k < ri->n; k++) {
      sint d = v0_9_st_shape(ri->items[k].input_st, i);
      bool again = false;   /* dedup: Node.__eq__ compares keys */
      for (int j = 0; j < n && !again; j++) again = sint_eq(dims[j], d);
      if (again) continue;
      dims[n++] = d;
      symbolic = symbolic || d.sym;
      if (!d.sym && d.i < lo) lo = d.i;
      if (!d.sym && d.i > hi) hi = d.i;
    }
    if (n > 1 && symbolic) error_unsupported("symbolic: the padding of reduces to one shape sorts unequal symbolic dims");
    skip[i] = n == 1 || (n == 2 && lo == 1);
    maxes[i] = hi;
  }
  for (int i = 0; i < ndim; i++) {
    if (skip[i]) continue;
    for (int k = 0; k < ri->n; k++) {
      ReduceInfo *x = &ri->items[k];
      sint d = v0_9_st_shape(x->input_st, i);   /* never symbolic: a symbolic axis has one dim, skipped */
      if (d.i <= 1 || d.i == maxes[i]) continue;
      SPair *arg = arena_array(s->a, (size_t)i + 1, sizeof *arg);
      for (int j = 0; j < i; j++) arg[j] = (SPair){sint_int(0), sint_int(0)};
      arg[i] = (SPair){sint_int(0), sint_int(maxes[i] - d.i)};
      x->input_st = v0_9_st_pad(s, x->input_st, i + 1, arg);
    }
  }
}

/* _lower_lazybuffer (0.9.2): "push through all movementops between reduceops", then the padding. */
void v0_9_reduce_info(Sched *s, LazyBuffer **outs, int nouts, ReduceInfos *ri) {
  *ri = (ReduceInfos){.items = s->ri_items, .cap = s->ri_items_cap};   /* the last kernel's, emptied */
  omap_init(&ri->index, s->a);
  RWalk w = {.s = s, .ri = ri, .out_mark = ++s->search_epoch};
  omap_init(&w.cache, s->a);
  for (int i = 0; i < nouts; i++) outs[i]->search_mark = w.out_mark;
  for (int i = 0; i < nouts; i++)
    recurse_reduceops(&w, outs[i]);
  s->ri_items = ri->items, s->ri_items_cap = ri->cap;
  return pad_reduceops(s, ri);
}
