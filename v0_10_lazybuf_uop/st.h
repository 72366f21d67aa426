/* st10.h — the ShapeTracker operations generation 0.10.0's scheduler uses
 * (shape/shapetracker.py, shape/view.py of v0.10.0), on ShapeTrackers held
 * as interned values (V_ST), so that `st1 == st2` is pointer equality and a
 * ShapeTracker can key an OMap. Thin wrappers over common/shapetracker.h:
 * every call of the ShapeTracker core goes through this file, and
 * ShapeTracker + ShapeTracker is remembered per pair.
 *
 * Fallible functions return NULL with the reason in s->st (s->failed set). */
#ifndef TSCHED_V0_10_ST10_H
#define TSCHED_V0_10_ST10_H
#include <stdbool.h>
#include <stdint.h>
#include "shapetracker.h"
#include "value.h"

typedef struct Sched Sched;

/* Installs the ShapeTracker codec and hashing hooks for 0.10.0 on s->codec. */
void st10_init(Sched *s);
/* Frees the scratch arena the core's results are built in (at the end of a capture). */
void st10_release(Sched *s);

int st10_ndim(const Value *st);                  /* len(st.shape) */
const sint *st10_shape(const Value *st);         /* st.shape */
int64_t st10_size(const Value *st);              /* st.size */
bool st10_contiguous(const Value *st);           /* st.contiguous */
int st10_nviews(const Value *st);
const View *st10_view(const Value *st, int i);  /* st.views[i] */
bool st10_same_shape(const Value *a, const Value *b);

const Value *st10_from_shape(Sched *s, int n, const sint *shape);          /* ShapeTracker.from_shape */
const Value *st10_from_shape_of(Sched *s, const Value *st);                 /* ShapeTracker.from_shape(st.shape) */
/* ShapeTracker.from_shape(tuple(1 if i in axis else s for i,s in enumerate(st.shape))), axis a tuple of ints */
const Value *st10_from_reduced_shape(Sched *s, const Value *st, const Value *axis);
const Value *st10_from_views(Sched *s, int n, const View *const *views);   /* ShapeTracker(views) */
const Value *st10_add(Sched *s, const Value *a, const Value *b);           /* a + b */
const Value *st10_simplify(Sched *s, const Value *st);                     /* st.simplify() */
/* st.unbind(): the ShapeTracker with its Variables unbound; their values go into s->var_vals
 * (ScheduleContext.var_vals.update) */
const Value *st10_unbind(Sched *s, const Value *st);
const Value *st10_permute(Sched *s, const Value *st, int n, const int64_t *axis);
const Value *st10_shrink(Sched *s, const Value *st, int n, const SPair *arg);
/* st.unit_stride_axes(): writes the axes into out (ndim entries), returns the count, -1 on failure. */
int st10_unit_stride_axes(Sched *s, const Value *st, int64_t *out);
/* View.create(shape, strides, offset, mask) */
const View *st10_view_create(Sched *s, int n, const sint *shape, const sint *strides, sint offset, const SPair *mask);
/* repr(ShapeTracker), for exception messages */
const char *st10_repr(Sched *s, const Value *st);
#endif
