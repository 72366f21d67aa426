/* st.h — the ShapeTracker operations the 0.9.1 scheduler uses, in one
 * place (st.c), on top of common/shapetracker.h.
 *
 * The scheduler holds ShapeTrackers as StHandles: one per distinct
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

typedef struct Sched Sched;

typedef struct StHandle StHandle;
struct StHandle {
  const ShapeTracker *st;       /* the canonical ShapeTracker */
  uint32_t id;                  /* 1, 2, ...: a small number for memo keys */
  int64_t size;                 /* st.size */
  bool contiguous;              /* st.contiguous */
  bool symbolic;                /* a Node anywhere in its views */
  const StHandle *unbound;          /* st.unbind()[0], once asked */
  int nvars;                    /* st.unbind()[1]: (unbound Variable, value) pairs */
  const sint *vars;
  const int64_t *vals;
  const StHandle *simplified;       /* st.simplify(), once asked */
  const StHandle *from_shape;       /* ShapeTracker.from_shape(st.shape), once asked */
  JVal *json;                   /* the contract's encoding, once asked */
  const Value *value;           /* 197f8fd: as an arg (v_st), once asked */
  const UOp *uop;               /* 197f8fd: its UOps.SHAPETRACKER, once asked */
  const StHandle *add_rhs, *add_sum;  /* the last `self + add_rhs` asked (before the memo table) */
  StHandle *next;                   /* the intern table's chain */
};

/* Structure (shape/shapetracker.py properties) */
int v0_9_st_nviews(const StHandle *st);
bool v0_9_st_view_masked(const StHandle *st, int i);         /* views[i].mask is not None */
int v0_9_st_ndim(const StHandle *st);                        /* len(shape) */
sint v0_9_st_shape(const StHandle *st, int axis);            /* shape[axis] */
const sint *v0_9_st_shape_of(const StHandle *st);            /* shape */
sint v0_9_st_prod_mask(const StHandle *st);                  /* prod(y-x for x,y in views[-1].mask) */

/* The handle of a ShapeTracker (interning it). */
const StHandle *v0_9_st_intern(Sched *s, const ShapeTracker *st);

/* Operations; the core's errors raise (error.h) to the entry point's protected call. */
const StHandle *v0_9_st_add(Sched *s, const StHandle *a, const StHandle *b);  /* a + b */
const StHandle *v0_9_st_simplify(Sched *s, const StHandle *x);
const StHandle *v0_9_st_from_shape(Sched *s, int ndim, const sint *shape);
const StHandle *v0_9_st_from_shape_of(Sched *s, const StHandle *x);  /* from_shape(x.shape) */
/* x.unbind(): the unbound ShapeTracker; its var_vals go into the scheduler's (Sched.var_vals) */
const StHandle *v0_9_st_unbind(Sched *s, const StHandle *x);
/* x.var_vals: every Variable of x, each bound (AssertionError otherwise), into the scheduler's */
void v0_9_st_add_var_vals(Sched *s, const StHandle *x);
/* x.shrink(mask_of.views[0].mask), for the assign check */
const StHandle *v0_9_st_shrink_by_mask(Sched *s, const StHandle *x, const StHandle *mask_of);
/* st.unit_stride_axes(): writes a flag per axis. */
void v0_9_st_unit_stride_axes(Sched *s, const StHandle *x, bool *unit);
/* Movement ops _recurse_reduceops makes (0.9.2): x.reshape(shape) (MERGE_VIEW from the capture),
 * x.permute(axis), x.pad(arg) */
const StHandle *v0_9_st_reshape(Sched *s, const StHandle *x, int n, const sint *shape);
const StHandle *v0_9_st_reshape_as(Sched *s, const StHandle *x, const StHandle *shape_of);  /* x.reshape(shape_of.shape) */
const StHandle *v0_9_st_permute(Sched *s, const StHandle *x, int n, const int64_t *axis);
const StHandle *v0_9_st_pad(Sched *s, const StHandle *x, int n, const SPair *arg);
/* x as an arg: v_st(x), interned once per handle */
const Value *v0_9_st_value(Sched *s, const StHandle *x);
/* ShapeTracker(views) */
const StHandle *v0_9_st_of_views(Sched *s, int nviews, const View *const *views);
/* Install the ShapeTracker codec and interner hooks. */
void v0_9_st_init(Sched *s);
#endif
