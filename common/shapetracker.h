/* shapetracker.h — tinygrad's ShapeTracker (shape/shapetracker.py) on sints, 0.9.1 / 0.10.0 / 0.10.2: a tuple of Views (view.h), the movement
 * ops, simplify / __add__ / invert, real_strides and unit_stride_axes (which
 * go through the version's index simplifier, symbolic.h), equality, hashing
 * and the capture contract's ST encoding ({"views": [VIEW, ...]}).
 *
 * Conventions are view.h's: immutable values in an Arena, `v` picks the
 * version, errors raise (error.h: tinygrad's exception, unsupported, bad
 * input for malformed JSON); a NULL result is Python's None. */
#ifndef TSCHED_SHAPETRACKER_H
#define TSCHED_SHAPETRACKER_H
#include <stdbool.h>
#include <stdint.h>
#include "arena.h"
#include "json.h"
#include "sint.h"
#include "status.h"
#include "version.h"
#include "view.h"

typedef struct ShapeTracker ShapeTracker;
struct ShapeTracker {
  int nviews;                   /* >= 1 */
  uint32_t index;               /* 0, or what its owner numbers it (0.10.2: its interned index) */
  const View *const *views;
};

/* ShapeTracker(views): copies the array of pointers (the views are shared) */
const ShapeTracker *st_new(Arena *a, int nviews, const View *const *views);
/* ShapeTracker.from_shape */
const ShapeTracker *st_from_shape(Arena *a, TgVersion v, int n, const sint *shape);

static inline const View *st_last(const ShapeTracker *st) { return st->views[st->nviews - 1]; }
static inline int st_ndim(const ShapeTracker *st) { return st_last(st)->ndim; }
static inline const sint *st_shape(const ShapeTracker *st) { return st_last(st)->shape; }
int64_t st_size(const ShapeTracker *st);           /* .size: views[-1].size() */
bool st_contiguous(const ShapeTracker *st);        /* .contiguous */
bool st_consecutive(const ShapeTracker *st);       /* .consecutive */

/* movement ops: each returns a new ShapeTracker */
/* merge_view: getenv("MERGE_VIEW", 1) as the capture's context recorded it */
const ShapeTracker *st_reshape(Arena *a, TgVersion v, const ShapeTracker *st, int n, const sint *new_shape, bool merge_view);
const ShapeTracker *st_permute(Arena *a, TgVersion v, const ShapeTracker *st, int n, const int64_t *axis);
const ShapeTracker *st_expand(Arena *a, TgVersion v, const ShapeTracker *st, int n, const sint *new_shape);
const ShapeTracker *st_pad(Arena *a, TgVersion v, const ShapeTracker *st, int n, const SPair *arg);
const ShapeTracker *st_shrink(Arena *a, TgVersion v, const ShapeTracker *st, int n, const SPair *arg);
const ShapeTracker *st_stride(Arena *a, TgVersion v, const ShapeTracker *st, int n, const int64_t *mul); /* 0.9.1, 0.10.0 */
const ShapeTracker *st_flip(Arena *a, TgVersion v, const ShapeTracker *st, int n, const bool *flip);     /* 0.10.2 */

/* ShapeTracker.simplify: merge the last two views while View.__add__ allows */
const ShapeTracker *st_simplify(Arena *a, TgVersion v, const ShapeTracker *st);
/* ShapeTracker.__add__: st + other, one view of other at a time */
const ShapeTracker *st_add(Arena *a, TgVersion v, const ShapeTracker *st, const ShapeTracker *other);
/* ShapeTracker.invert(out_shape); NULL (ok) when not invertible. It ends with a reshape, which
 * reads MERGE_VIEW like st_reshape. */
const ShapeTracker *st_invert(Arena *a, TgVersion v, const ShapeTracker *st, int n, const sint *out_shape, bool merge_view);

/* ShapeTracker.real_strides(ignore_valid): out[i] is the stride of dimension i, or None
 * where is_none[i] (both arrays have st_ndim(st) entries). */
void st_real_strides(Arena *a, TgVersion v, const ShapeTracker *st, bool ignore_valid, sint *out, bool *is_none);
/* ShapeTracker.unit_stride_axes(ignore_valid): the axes whose real stride is 1, into axes
 * (st_ndim(st) entries); returns the count. */
int st_unit_stride_axes(Arena *a, TgVersion v, const ShapeTracker *st, bool ignore_valid, int *axes);

/* The Variables of a ShapeTracker: ShapeTracker.vars() (0.9.1), distinct, in first-seen order
 * (Python iterates a set; only an error message could tell the orders apart). Returns the
 * count; more than cap is unsupported. */
int st_vars(const ShapeTracker *st, sint *out, int cap);
/* ShapeTracker.unbind() (View.unbind per view): the ShapeTracker with each bound Variable
 * replaced by its unbound form, and the (unbound Variable, value) pairs into vars/vals
 * (cap entries; *nvars set). A view without symbolic values is kept as it is. An unbound
 * Variable raises AssertionError (0.9.1: `v.val`; 0.10.x: UOp.unbind's "can't unbind ..."). */
const ShapeTracker *st_unbind(Arena *a, TgVersion v, const ShapeTracker *st, sint *vars, int64_t *vals, int cap, int *nvars);

/* dataclass equality and a consistent hash (sint_eq / sint_hash: a symbolic value compares by its
 * version's rules, in the current symbolic context) */
bool st_equal(const ShapeTracker *x, const ShapeTracker *y);
uint64_t st_hash(const ShapeTracker *st);

/* The contract's encoding (capture-format.md section 2). A {"sym": ...} is decoded into the
 * current symbolic context (sint.h); without one it is unsupported ("symbolic shape:
 * unsupported"); malformed JSON is bad input. */
const View *view_from_json(Arena *a, const JVal *j);
const ShapeTracker *st_from_json(Arena *a, const JVal *j);
JVal *view_to_json(Arena *a, const View *vw);
JVal *st_to_json(Arena *a, const ShapeTracker *st);
/* The same decoder as a protected call reporting through a Status (for graph.h's Codec):
 * NULL and *status filled when it raised. */
const ShapeTracker *st_decode_status(Arena *a, const JVal *j, Status *status);
#endif
