/* st.h — the ShapeTracker methods the LazyBuffer -> UOp scheduler uses
 * (shape/shapetracker.py, shape/view.py), on ShapeTrackers held as interned
 * values (V_ST), so that `st1 == st2` is pointer equality and a
 * ShapeTracker can key an OMap. Thin wrappers over common/shapetracker.h:
 * every call of the ShapeTracker core goes through this file, and
 * ShapeTracker + ShapeTracker is remembered per pair. What the core reports
 * (an AssertionError of View.create, ...) is raised (error.h). */
#ifndef TSCHED_V0_10_ST_H
#define TSCHED_V0_10_ST_H
#include <stdbool.h>
#include <stdint.h>
#include "shapetracker.h"
#include "value.h"

typedef struct Sched Sched;

/* Installs the ShapeTracker codec and hashing hooks on s->codec. */
void v0_10_st_init(Sched *s);
/* Frees the scratch arena the core's results are built in (at the end of a capture). */
void v0_10_st_release(Sched *s);

int v0_10_st_ndim(const Value *st);                  /* len(st.shape) */
const sint *v0_10_st_shape(const Value *st);         /* st.shape */
int64_t v0_10_st_size(const Value *st);              /* st.size */
bool v0_10_st_contiguous(const Value *st);           /* st.contiguous */
int v0_10_st_nviews(const Value *st);
const View *v0_10_st_view(const Value *st, int i);   /* st.views[i] */
bool v0_10_st_same_shape(const Value *a, const Value *b);

const Value *v0_10_st_from_shape(Sched *s, int n, const sint *shape);          /* ShapeTracker.from_shape */
const Value *v0_10_st_from_shape_of(Sched *s, const Value *st);                 /* ShapeTracker.from_shape(st.shape) */
/* ShapeTracker.from_shape(tuple(1 if i in axis else s for i,s in enumerate(st.shape))), axis a tuple of ints */
const Value *v0_10_st_from_reduced_shape(Sched *s, const Value *st, const Value *axis);
const Value *v0_10_st_from_views(Sched *s, int n, const View *const *views);   /* ShapeTracker(views) */
const Value *v0_10_st_add(Sched *s, const Value *a, const Value *b);           /* a + b */
const Value *v0_10_st_simplify(Sched *s, const Value *st);                     /* st.simplify() */
/* st.unbind(): the ShapeTracker with its Variables unbound; their values go into s->var_vals
 * (ScheduleContext.var_vals.update) */
const Value *v0_10_st_unbind(Sched *s, const Value *st);
const Value *v0_10_st_permute(Sched *s, const Value *st, int n, const int64_t *axis);
const Value *v0_10_st_reshape(Sched *s, const Value *st, int n, const sint *shape);     /* reads MERGE_VIEW */
const Value *v0_10_st_expand(Sched *s, const Value *st, int n, const sint *shape);
const Value *v0_10_st_shrink(Sched *s, const Value *st, int n, const SPair *arg);
/* st.unit_stride_axes(): writes the axes into out (ndim entries), returns the count. */
int v0_10_st_unit_stride_axes(Sched *s, const Value *st, int64_t *out);
/* View.create(shape, strides, offset, mask) */
const View *v0_10_view_create(Sched *s, int n, const sint *shape, const sint *strides, sint offset, const SPair *mask);
/* repr(ShapeTracker), for exception messages */
const char *v0_10_st_repr(Sched *s, const Value *st);
#endif
