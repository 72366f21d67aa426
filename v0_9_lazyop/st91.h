/* st91.h — the ShapeTracker operations the 0.9.1 scheduler uses, in one
 * place (st91.c), on top of common/shapetracker.h. Every ShapeTracker the
 * scheduler holds is canonical: structurally equal ShapeTrackers are the
 * same pointer, so they can be compared and used as memo keys directly. */
#ifndef TSCHED_ST91_H
#define TSCHED_ST91_H
#include <stdbool.h>
#include <stdint.h>
#include "intern.h"
#include "status.h"
#include "value.h"

typedef struct Sched91 Sched91;

/* Structure (shape/shapetracker.py properties) */
int st91_nviews(const ShapeTracker *st);
bool st91_view_masked(const ShapeTracker *st, int i);         /* views[i].mask is not None */
int st91_ndim(const ShapeTracker *st);                        /* len(shape) */
int64_t st91_shape(const ShapeTracker *st, int axis);         /* shape[axis] */
int64_t st91_size(const ShapeTracker *st);                    /* st.size */
int64_t st91_prod_shape(const ShapeTracker *st);              /* prod(st.shape) */
int64_t st91_prod_mask(const ShapeTracker *st);               /* prod(y-x for x,y in views[-1].mask) */
bool st91_contiguous(const ShapeTracker *st);                 /* st.contiguous */

/* Operations; NULL with st set on an error (a raised exception or unsupported). */
const ShapeTracker *st91_canonical(Sched91 *s, const ShapeTracker *st);
const ShapeTracker *st91_add(Sched91 *s, const ShapeTracker *a, const ShapeTracker *b, Status *st);  /* a + b */
const ShapeTracker *st91_simplify(Sched91 *s, const ShapeTracker *x, Status *st);
const ShapeTracker *st91_from_shape(Sched91 *s, int ndim, const int64_t *shape, Status *st);
const ShapeTracker *st91_from_shape_of(Sched91 *s, const ShapeTracker *x, Status *st);  /* from_shape(x.shape) */
/* st.shrink(views[0].mask) for the assign check */
const ShapeTracker *st91_shrink_by_mask(Sched91 *s, const ShapeTracker *x, const ShapeTracker *mask_of, Status *st);
/* st.unit_stride_axes(): writes a flag per axis. */
bool st91_unit_stride_axes(Sched91 *s, const ShapeTracker *x, bool *unit, Status *st);
/* Install the ShapeTracker codec and interner hooks. */
void st91_init(Sched91 *s);
#endif
