/* st.h — View and ShapeTracker of tinygrad 0.10.2 (shape/view.py,
 * shape/shapetracker.py) for shapes made of ints. Views and ShapeTrackers
 * are interned in a StCtx, so two are equal (Python ==) exactly when their
 * pointers are. Functions returning NULL mean Python's None ("can't"). A
 * Python exception (ValueError, AssertionError) unwinds through the Thrower.
 *
 * Symbolic shapes are not modelled here: the 0.10.2 entry point reports
 * captures with symbolic values as unsupported before scheduling. */
#ifndef KG_ST_H
#define KG_ST_H
#include <stdbool.h>
#include <stdint.h>
#include "arena.h"
#include "throw.h"

enum { ST_MAXDIM = 32 };

typedef struct View {
  uint32_t ndim;
  const int64_t *shape, *strides;
  int64_t offset;
  const int64_t *mask;   /* NULL (None), or ndim (begin, end) pairs */
  bool contiguous;
  uint64_t hash;
} View;

typedef struct ST {
  uint32_t nviews;
  const View *const *views;
  uint64_t hash;
} ST;

typedef struct StCtx {
  Arena *arena;
  Thrower *thr;
  bool merge_view;              /* MERGE_VIEW (ShapeTracker.reshape) */
  const View **vtab; size_t nv, vcap;
  const ST **stab; size_t ns, scap;
} StCtx;

void st_ctx_init(StCtx *c, Arena *a, Thrower *thr, bool merge_view);

/* view.py */
int64_t shape_prod(uint32_t n, const int64_t *shape);
void strides_for_shape(uint32_t n, const int64_t *shape, int64_t *out);
/* the View dataclass itself, fields as given (decoding recorded views) */
const View *view_raw(StCtx *c, uint32_t n, const int64_t *shape, const int64_t *strides, int64_t offset, const int64_t *mask,
                     bool contiguous);
const View *view_create(StCtx *c, uint32_t n, const int64_t *shape, const int64_t *strides, int64_t offset,
                        const int64_t *mask);
int64_t view_size(const View *v);
const View *view_reshape(StCtx *c, const View *v, uint32_t n, const int64_t *new_shape);
const View *view_pad(StCtx *c, const View *v, const int64_t *arg);      /* arg: ndim (before, after) pairs */
const View *view_shrink(StCtx *c, const View *v, const int64_t *arg);   /* arg: ndim (begin, end) pairs */
const View *view_expand(StCtx *c, const View *v, uint32_t n, const int64_t *new_shape);
const View *view_permute(StCtx *c, const View *v, const int64_t *axis);
const View *view_flip(StCtx *c, const View *v, const bool *arg);
const View *view_add(StCtx *c, const View *vm2, const View *vm1);       /* vm2 + vm1 */
const View *view_invert(StCtx *c, const View *v, uint32_t n, const int64_t *out_shape);
const View *view_minify(StCtx *c, const View *v);

/* shapetracker.py */
const ST *st_new(StCtx *c, uint32_t nviews, const View *const *views);
const ST *st_from_shape(StCtx *c, uint32_t n, const int64_t *shape);
static inline const View *st_last(const ST *s) { return s->views[s->nviews - 1]; }
static inline uint32_t st_ndim(const ST *s) { return st_last(s)->ndim; }
static inline const int64_t *st_shape(const ST *s) { return st_last(s)->shape; }
static inline bool st_contiguous(const ST *s) { return s->nviews == 1 && s->views[0]->contiguous; }
static inline int64_t st_size(const ST *s) { return view_size(st_last(s)); }
const ST *st_add(StCtx *c, const ST *a, const ST *b);
const ST *st_simplify(StCtx *c, const ST *s);
const ST *st_invert(StCtx *c, const ST *s, uint32_t n, const int64_t *out_shape);
const ST *st_reshape(StCtx *c, const ST *s, uint32_t n, const int64_t *new_shape);
const ST *st_pad(StCtx *c, const ST *s, const int64_t *arg);
const ST *st_shrink(StCtx *c, const ST *s, const int64_t *arg);
const ST *st_expand(StCtx *c, const ST *s, uint32_t n, const int64_t *new_shape);
const ST *st_permute(StCtx *c, const ST *s, const int64_t *axis);
const ST *st_flip(StCtx *c, const ST *s, const bool *arg);
/* ShapeTracker.reduce: the shape with the axes set to 1 (out has ndim entries). */
void st_reduce_shape(const ST *s, uint32_t naxis, const int64_t *axis, int64_t *out);
/* ShapeTracker.real_strides(ignore_valid). has[i] false means None. Returns
 * false when the general (multi-view or masked) case is needed and not
 * modelled yet. */
bool st_real_strides(StCtx *c, const ST *s, bool ignore_valid, int64_t *out, bool *has);

/* Python tuple repr of ints, "(1, 2)", "(3,)", "()", into buf. */
const char *fmt_tuple(char *buf, size_t size, uint32_t n, const int64_t *v);
#endif
