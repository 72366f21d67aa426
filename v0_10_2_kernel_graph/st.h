/* st.h — the ShapeTracker of tinygrad 0.10.2 as the scheduler uses it: the
 * core module (common/shapetracker.h, common/view.h) with three additions:
 * every ShapeTracker handed out is interned, so two are equal (Python ==)
 * exactly when their pointers are; View.__add__ results are memoised like
 * Python's lru_cache. Errors (a Python exception, an unsupported case)
 * raise (common/error.h). */
#ifndef KG_ST_H
#define KG_ST_H
#include <stdbool.h>
#include <stdint.h>
#include "arena.h"
#include "omap.h"
#include "shapetracker.h"

enum { ST_MAXDIM = 32 };
typedef ShapeTracker ST;

typedef struct StCtx {
  Arena *arena;                 /* the interned Views and ShapeTrackers, the memos */
  /* where the core module builds its results: what is new is copied into
   * `arena` when it is interned, so this holds only garbage once an
   * operation returns, and is emptied when it has grown (kst_sweep) */
  Arena scratch;
  TgVersion v;                  /* the capture's version, for the core module */
  bool merge_view;              /* MERGE_VIEW (ShapeTracker.reshape, invert) */
  const View **vtab; size_t nv, vcap;   /* interned Views */
  const ST **stab; size_t ns, scap;     /* interned ShapeTrackers */
  const ST **by_index; size_t by_index_cap; /* the interned ones by their index (ST.index), ns of them */
  OMap add_memo;                /* ST a -> OMap (ST b -> a + b) */
  OMap view_add_memo;           /* View vm2 -> OMap (View vm1 -> vm2 + vm1) */
  OMap shape_memo;              /* hash of a shape -> from_shape(shape) */
} StCtx;

void v0_10_2_st_init(StCtx *c, Arena *a, TgVersion v, bool merge_view);
/* Frees the scratch arena (at the end of a capture, or when an exception unwound). */
void v0_10_2_st_release(StCtx *c);
/* The arena a caller builds a ShapeTracker in before v0_10_2_st_canon interns it. */
Arena *v0_10_2_st_scratch(StCtx *c);

/* ---- sint: an int or a symbolic UOp, as tinygrad 0.10.2's Python operators
 * treat `int | UOp`. UOps are hash-consed, so Python's `==` on them (not
 * overridden: identity) is pointer equality; `!=`, `<`, `>=` build UOps that
 * `resolve` or `bool` decide. */
bool v0_10_2_sint_is_int(sint x);                                     /* isinstance(x, int) */
int64_t v0_10_2_sint_int(sint x);                                     /* the int (v0_10_2_sint_is_int(x)) */
sint v0_10_2_sint_of(int64_t i);                                      /* the int i */
bool v0_10_2_sint_eq_int(sint a, int64_t b);                          /* a == b for an int b (a UOp never is) */
bool v0_10_2_sint_all_int(uint32_t n, const sint *xs);                /* helpers.all_int */
bool v0_10_2_sint_shapes_eq(uint32_t na, const sint *a, uint32_t nb, const sint *b);   /* tuple == */
sint v0_10_2_sint_sub(StCtx *c, sint a, sint b);                      /* a - b */
sint v0_10_2_sint_mul(StCtx *c, sint a, sint b);                      /* a * b */
sint v0_10_2_sint_floordiv(StCtx *c, sint a, sint b);                 /* a // b */
sint v0_10_2_sint_prod(StCtx *c, uint32_t n, const sint *xs);         /* helpers.prod: reduce(operator.mul, xs, 1) */
bool v0_10_2_sint_resolve_lt(StCtx *c, sint a, sint b, bool dflt);    /* resolve(a < b, dflt) */
bool v0_10_2_sint_resolve_ge(StCtx *c, sint a, sint b, bool dflt);    /* resolve(a >= b, dflt) */
bool v0_10_2_sint_resolve_ne(StCtx *c, sint a, sint b, bool dflt);    /* resolve(a != b, dflt) */
bool v0_10_2_sint_bool_ne(StCtx *c, sint a, sint b); /* bool(a != b): ValueError when a UOp cannot decide */
const char *v0_10_2_sint_repr(StCtx *c, sint x);                      /* repr(x) (a UOp: the first line of its repr) */
/* int products of int shapes (callers check v0_10_2_sint_all_int) */
int64_t v0_10_2_shape_prod(uint32_t n, const sint *shape);
/* Python tuple repr of sints, "(1, 2)", "(3,)", "()", into buf. */
const char *v0_10_2_fmt_tuple(StCtx *c, char *buf, size_t size, uint32_t n, const sint *v);

/* View.create */
const View *v0_10_2_view_create(
    StCtx *c, uint32_t n, const sint *shape, const sint *strides, sint offset, const SPair *mask);
/* ShapeTracker(views), interned */
/* s's index among the interned ShapeTrackers (interned first when it is not) */
uint32_t v0_10_2_st_index(StCtx *c, const ST *s);
static inline const ST *v0_10_2_st_at(const StCtx *c, uint32_t index) { return c->by_index[index]; }
const ST *v0_10_2_st_new(StCtx *c, uint32_t nviews, const View *const *views);
/* the interned ShapeTracker equal to s (s itself may come from anywhere, v0_10_2_st_scratch too) */
const ST *v0_10_2_st_canon(StCtx *c, const ST *s);
const ST *v0_10_2_st_from_shape(StCtx *c, uint32_t n, const sint *shape);
int64_t v0_10_2_st_size(const ST *s);     /* .size: views[-1].size(), an int (a UOp counts as its vmax) */
const ST *v0_10_2_st_scalar(StCtx *c);   /* ShapeTracker.from_shape(()) */
const ST *v0_10_2_st_add(StCtx *c, const ST *a, const ST *b);              /* a + b */
const ST *v0_10_2_st_simplify(StCtx *c, const ST *s);
const ST *v0_10_2_st_invert(StCtx *c, const ST *s, uint32_t n, const sint *out_shape);   /* NULL: None */
const ST *v0_10_2_st_reshape(StCtx *c, const ST *s, uint32_t n, const sint *new_shape);
const ST *v0_10_2_st_pad(StCtx *c, const ST *s, const SPair *arg);
const ST *v0_10_2_st_shrink(StCtx *c, const ST *s, const SPair *arg);
const ST *v0_10_2_st_expand(StCtx *c, const ST *s, uint32_t n, const sint *new_shape);
const ST *v0_10_2_st_permute(StCtx *c, const ST *s, const int64_t *axis);
const ST *v0_10_2_st_flip(StCtx *c, const ST *s, const bool *arg);
/* ShapeTracker.unbind() when ShapeTracker.vars() holds a BIND, else s itself: each BIND
 * replaced by its DEFINE_VAR (View.unbind, View.create again), and the bound variables
 * (DEFINE_VAR sints) with their values appended to vars/vals (*n of cap, no repeats). */
const ST *v0_10_2_st_unbind_binds(StCtx *c, const ST *s, sint *vars, int64_t *vals, int *n, int cap);
/* A DEFINE_VAR sint's arg (name, min, max) */
void v0_10_2_sint_var_arg(sint var, const char **name, int64_t *lo, int64_t *hi);
/* ShapeTracker.reduce(axis): the shape with the axes set to 1 (out has ndim entries) */
void v0_10_2_st_reduce_shape(const ST *s, uint32_t naxis, const int64_t *axis, sint *out);
/* ShapeTracker.real_strides(ignore_valid); has[i] false means None */
void v0_10_2_st_real_strides(StCtx *c, const ST *s, bool ignore_valid, sint *out, bool *has);
static inline uint32_t v0_10_2_st_ndim(const ST *s) { return (uint32_t)st_ndim(s); }
#endif
