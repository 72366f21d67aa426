/* st.h — the ShapeTracker of tinygrad 0.10.2 as the scheduler uses it: the
 * core module (common/shapetracker.h, common/view.h) with three additions:
 * every ShapeTracker handed out is interned, so two are equal (Python ==)
 * exactly when their pointers are; View.__add__ results are memoised like
 * Python's lru_cache; and errors (a Python exception, an unsupported case)
 * unwind through the Thrower instead of being returned. */
#ifndef KG_ST_H
#define KG_ST_H
#include <stdbool.h>
#include <stdint.h>
#include "arena.h"
#include "omap.h"
#include "shapetracker.h"
#include "throw.h"

enum { ST_MAXDIM = 32 };
typedef ShapeTracker ST;

typedef struct StCtx {
  Arena *arena;
  Thrower *thr;
  bool merge_view;              /* MERGE_VIEW (ShapeTracker.reshape, invert) */
  const View **vtab; size_t nv, vcap;   /* interned Views */
  const ST **stab; size_t ns, scap;     /* interned ShapeTrackers */
  OMap add_memo;                /* ST a -> OMap (ST b -> a + b) */
  OMap view_add_memo;           /* View vm2 -> OMap (View vm1 -> vm2 + vm1) */
  OMap shape_memo;              /* hash of a shape -> from_shape(shape) */
  OMap int_shape_memo;          /* View -> its shape as int64_t */
} StCtx;

void kst_init(StCtx *c, Arena *a, Thrower *thr, bool merge_view);

int64_t shape_prod(uint32_t n, const int64_t *shape);
/* Python tuple repr of ints, "(1, 2)", "(3,)", "()", into buf. */
const char *fmt_tuple(char *buf, size_t size, uint32_t n, const int64_t *v);

/* View.create */
const View *kview_create(StCtx *c, uint32_t n, const int64_t *shape, const int64_t *strides, int64_t offset, const SPair *mask);
/* ShapeTracker(views), interned */
const ST *kst_new(StCtx *c, uint32_t nviews, const View *const *views);
/* the interned ShapeTracker equal to s (s itself may come from anywhere) */
const ST *kst_canon(StCtx *c, const ST *s);
const ST *kst_from_shape(StCtx *c, uint32_t n, const int64_t *shape);
const ST *kst_scalar(StCtx *c);   /* ShapeTracker.from_shape(()) */
const ST *kst_add(StCtx *c, const ST *a, const ST *b);              /* a + b */
const ST *kst_simplify(StCtx *c, const ST *s);
const ST *kst_invert(StCtx *c, const ST *s, uint32_t n, const int64_t *out_shape);   /* NULL: None */
const ST *kst_reshape(StCtx *c, const ST *s, uint32_t n, const int64_t *new_shape);
const ST *kst_pad(StCtx *c, const ST *s, const SPair *arg);
const ST *kst_shrink(StCtx *c, const ST *s, const SPair *arg);
const ST *kst_expand(StCtx *c, const ST *s, uint32_t n, const int64_t *new_shape);
const ST *kst_permute(StCtx *c, const ST *s, const int64_t *axis);
const ST *kst_flip(StCtx *c, const ST *s, const bool *arg);
/* ShapeTracker.reduce(axis): the shape with the axes set to 1 (out has ndim entries) */
void kst_reduce_shape(const ST *s, uint32_t naxis, const int64_t *axis, int64_t *out);
/* ShapeTracker.real_strides(ignore_valid); has[i] false means None */
void kst_real_strides(StCtx *c, const ST *s, bool ignore_valid, int64_t *out, bool *has);
static inline uint32_t kst_ndim(const ST *s) { return (uint32_t)st_ndim(s); }
/* st.shape as ints (0.10.2 shapes here are ints: a symbolic capture is reported unsupported when decoded) */
const int64_t *kst_shape(StCtx *c, const ST *s);
/* sints <-> ints for the core calls */
void kst_sints(uint32_t n, const int64_t *xs, sint *out);
void kst_ints(uint32_t n, const sint *xs, int64_t *out);
#endif
