/* st.h — the ShapeTracker operations the 0.9.1 scheduler uses, in one
 * place (st.c), on top of common/shapetracker.h.
 *
 * The scheduler holds ShapeTrackers as St91 handles: one per distinct
 * ShapeTracker (interned, so equal ShapeTrackers are the same handle and
 * can be compared and used as memo keys directly), carrying what the
 * scheduler asks of it again and again: size, contiguity, its simplified
 * form, from_shape of its shape, its JSON encoding. Only a memo miss runs
 * the common module's code. */
#ifndef TSCHED_V0_9_ST_H
#define TSCHED_V0_9_ST_H
#include <stdbool.h>
#include <stdint.h>
#include "intern.h"
#include "json.h"
#include "sint.h"
#include "error.h"
#include "value.h"
#include "view.h"

typedef struct Sched91 Sched91;

typedef struct St91 St91;
struct St91 {
  const ShapeTracker *st;       /* the canonical ShapeTracker */
  uint32_t id;                  /* 1, 2, ...: a small number for memo keys */
  int64_t size;                 /* st.size */
  bool contiguous;              /* st.contiguous */
  bool symbolic;                /* a Node anywhere in its views */
  const St91 *unbound;          /* st.unbind()[0], once asked */
  int nvars;                    /* st.unbind()[1]: (unbound Variable, value) pairs */
  const sint *vars;
  const int64_t *vals;
  const St91 *simplified;       /* st.simplify(), once asked */
  const St91 *from_shape;       /* ShapeTracker.from_shape(st.shape), once asked */
  JVal *json;                   /* the contract's encoding, once asked */
  const Value *value;           /* 197f8fd: as an arg (v_st), once asked */
  const UOp *uop;               /* 197f8fd: its UOps.SHAPETRACKER, once asked */
  const St91 *add_rhs, *add_sum;  /* the last `self + add_rhs` asked (before the memo table) */
  St91 *next;                   /* the intern table's chain */
};

/* Structure (shape/shapetracker.py properties) */
int v0_9_st_nviews(const St91 *st);
bool v0_9_st_view_masked(const St91 *st, int i);         /* views[i].mask is not None */
int v0_9_st_ndim(const St91 *st);                        /* len(shape) */
sint v0_9_st_shape(const St91 *st, int axis);            /* shape[axis] */
const sint *v0_9_st_shape_of(const St91 *st);            /* shape */
sint v0_9_st_prod_mask(const St91 *st);                  /* prod(y-x for x,y in views[-1].mask) */

/* The handle of a ShapeTracker (interning it). */
const St91 *v0_9_st_intern(Sched91 *s, const ShapeTracker *st);

/* Operations; the core's errors raise (error.h) to the entry point's protected call. */
const St91 *v0_9_st_add(Sched91 *s, const St91 *a, const St91 *b);  /* a + b */
const St91 *v0_9_st_simplify(Sched91 *s, const St91 *x);
const St91 *v0_9_st_from_shape(Sched91 *s, int ndim, const sint *shape);
const St91 *v0_9_st_from_shape_of(Sched91 *s, const St91 *x);  /* from_shape(x.shape) */
/* x.unbind(): the unbound ShapeTracker; its var_vals go into the scheduler's (Sched91.var_vals) */
const St91 *v0_9_st_unbind(Sched91 *s, const St91 *x);
/* x.var_vals: every Variable of x, each bound (AssertionError otherwise), into the scheduler's */
void v0_9_st_add_var_vals(Sched91 *s, const St91 *x);
/* x.shrink(mask_of.views[0].mask), for the assign check */
const St91 *v0_9_st_shrink_by_mask(Sched91 *s, const St91 *x, const St91 *mask_of);
/* st.unit_stride_axes(): writes a flag per axis. */
void v0_9_st_unit_stride_axes(Sched91 *s, const St91 *x, bool *unit);
/* Movement ops _recurse_reduceops makes (0.9.2): x.reshape(shape) (MERGE_VIEW from the capture),
 * x.permute(axis), x.pad(arg) */
const St91 *v0_9_st_reshape(Sched91 *s, const St91 *x, int n, const sint *shape);
const St91 *v0_9_st_permute(Sched91 *s, const St91 *x, int n, const int64_t *axis);
const St91 *v0_9_st_pad(Sched91 *s, const St91 *x, int n, const SPair *arg);
/* x as an arg: v_st(x), interned once per handle */
const Value *v0_9_st_value(Sched91 *s, const St91 *x);
/* ShapeTracker(views) */
const St91 *v0_9_st_of_views(Sched91 *s, int nviews, const View *const *views);
/* Install the ShapeTracker codec and interner hooks. */
void v0_9_st_init(Sched91 *s);
#endif
