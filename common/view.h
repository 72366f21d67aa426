/* view.h — tinygrad's View (shape/view.py) on sints (sint.h), in three
 * generations: 0.9.1, 0.10.0, 0.10.2 (TgVersion). A View is an immutable
 * value allocated in an Arena; functions never modify their inputs.
 *
 * Conventions (every function below):
 *  - `v` is the TgVersion whose Python code is mirrored; where versions differ
 *    the .c file asks v's named features (version.h), never compares versions.
 *  - Errors raise (error.h): a Python exception is error_raise with the
 *    exception's type and message, something this port does not model is
 *    error_unsupported; both unwind to the innermost error_protect. A NULL
 *    return is Python's `None` (for the functions whose Python version
 *    returns Optional[View]).
 *  - Arrays passed in are copied; arrays handed out live in the arena. */
#ifndef TSCHED_VIEW_H
#define TSCHED_VIEW_H
#include <stdbool.h>
#include <stdint.h>
#include "arena.h"
#include "sint.h"
#include "version.h"

/* One mask entry (begin, end): valid indices are begin <= i < end. Also used
 * for pad / shrink arguments, which are (before, after) / (begin, end) pairs. */
typedef struct SPair { sint b, e; } SPair;

typedef struct View {
  int ndim;
  const sint *shape;     /* ndim entries */
  const sint *strides;   /* ndim entries */
  sint offset;
  const SPair *mask;     /* ndim entries, or NULL for Python's mask=None */
  bool contiguous;
} View;

/* One entry of merge_dims: (merged size, stride, merged size without zero-stride dims). */
typedef struct MergedDim { sint size, stride, real; } MergedDim;

/* --- helpers from shape/view.py ------------------------------------------ */
/* canonicalize_strides: 0 where the dimension is 1. out has n entries. */
void canonicalize_strides(int n, const sint *shape, const sint *strides, sint *out);
/* strides_for_shape: row-major strides, canonicalized. out has n entries. */
void strides_for_shape(int n, const sint *shape, sint *out);
/* _merge_dims (0.9.1, 0.10.0) / merge_dims (0.10.2); returns the count written to out (<= n). */
int merge_dims(TgVersion v, int n, const sint *shape, const sint *strides, const SPair *mask, MergedDim *out);
/* un1d (0.9.1, 0.10.0) and unravel (0.10.2); out has n entries. */
void un1d(TgVersion v, int n, const sint *shape, sint offs, sint *out);
void unravel(int n, const sint *shape, sint offs, sint *out);

/* --- View ------------------------------------------------------------------ */
/* The dataclass constructor View(shape, strides, offset, mask, contiguous): no canonicalisation. */
const View *view_new(Arena *a, int ndim, const sint *shape, const sint *strides, sint offset,
                     const SPair *mask, bool contiguous);
/* View.create(shape, strides=None|strides, offset, mask=None|mask). strides == NULL means None
 * (like Python, an empty strides tuple is treated as None too). */
const View *view_create(Arena *a, TgVersion v, int ndim, const sint *shape, const sint *strides,
                        sint offset, const SPair *mask);
int64_t view_size(const View *vw);                      /* View.size(): symbolic dims by their max */
bool view_equal(const View *x, const View *y);         /* dataclass __eq__ */
bool view_is_symbolic(const View *vw);                  /* any symbolic shape, stride, offset or mask value */
uint64_t view_hash(const View *vw);                     /* consistent with view_equal */

const View *view_reshape(Arena *a, TgVersion v, const View *vw, int n, const sint *new_shape);
const View *view_permute(Arena *a, TgVersion v, const View *vw, int n, const int64_t *axis);
const View *view_expand(Arena *a, TgVersion v, const View *vw, int n, const sint *new_shape);
const View *view_pad(Arena *a, TgVersion v, const View *vw, int n, const SPair *arg);
const View *view_shrink(Arena *a, TgVersion v, const View *vw, int n, const SPair *arg);
/* View.stride (0.9.1, 0.10.0 only) */
const View *view_stride(Arena *a, TgVersion v, const View *vw, int n, const int64_t *mul);
/* View.flip (0.10.2 only) */
const View *view_flip(Arena *a, TgVersion v, const View *vw, int n, const bool *flip);
/* View.invert(out_shape): NULL (ok) when not invertible. */
const View *view_invert(Arena *a, TgVersion v, const View *vw, int n, const sint *out_shape);
/* View.minify() */
const View *view_minify(Arena *a, TgVersion v, const View *vw);
/* View.__add__: vm2 + vm1, the view vm1 applied on top of vm2; NULL (ok) when they cannot merge. */
const View *view_add(Arena *a, TgVersion v, const View *vm2, const View *vm1);

/* --- Python-style formatting, for exception messages ------------------------ */
/* repr of a tuple of sints: "()", "(3,)", "(2, Variable('i', 1, 10))"; of int64_ts. */
const char *py_repr_tuple(Arena *a, int n, const sint *xs);
const char *py_repr_ints(Arena *a, int n, const int64_t *xs);
/* repr(View): "View(shape=(...), strides=(...), offset=0, mask=None, contiguous=True)" */
const char *py_repr_view(Arena *a, const View *vw);
/* repr of a tuple of pairs: "((0, 1), (2, 3))". */
const char *py_repr_pairs(Arena *a, int n, const SPair *xs);
#endif
