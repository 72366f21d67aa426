/* kernel_rules.h — the matchers of schedule_uop (kernel_rules.c). */
#ifndef KG_KERNEL_RULES_H
#define KG_KERNEL_RULES_H
#include "passes.h"

/* add_buffer_ops' ctx: the kernel's BUFFER UOps in order (`bufs`) */
typedef struct BufList {
  const UOp **items;
  size_t n, cap;
  OMap index;   /* UOp -> position + 1 */
  Arena *arena; /* of items and index */
} BufList;
/* `if x not in ctx: ctx.append(x)`; returns ctx.index(x) */
size_t v0_10_2_buflist_index(BufList *l, const UOp *x);

/* The rewrite contexts schedule_uop's pure passes share over one schedule (kernel.c):
 * unbind_vars+view_left, view_right, fix_kernel_ops, apply_swizzle's view_left */
typedef struct KernelPasses { RewriteContext left, right, fix, swizzle; } KernelPasses;

extern const PatternMatcher v0_10_2_pm_add_buffer_ops, v0_10_2_pm_unbind_vars, v0_10_2_pm_view_right,
    v0_10_2_pm_fix_kernel_ops;

/* rules of fix_kernel_ops that 0.10.1's to_si has too (schedule_items.c); v0_10_2_append_st_vars's ctx is var_vals */
const UOp *v0_10_2_append_st_vars(void *c, const UOp *x);
const UOp *v0_10_2_fix_kernel_ops_remove_contiguous(void *c, const UOp *u);
const UOp *v0_10_2_fix_kernel_ops_remove_assign(void *c, const UOp *u);
const UOp *v0_10_2_fix_kernel_ops_view_device(void *c, const UOp *view);
const UOp *v0_10_2_fix_kernel_ops_no_image(void *c, const UOp *x);
/* add_buffer_ops' SINK rules a0b4465 keeps (kernel_ast.c): SINK(COPY|BUFFER_VIEW) -> the op, SINK(x) -> a contiguous STORE */
const UOp *v0_10_2_add_buffer_ops_sink_meta(void *c, const UOp *s);
const UOp *v0_10_2_add_buffer_ops_sink_store(void *c, const UOp *s);
/* UOp(DEFINE_VAR, int, arg=(name, min, max)) of a ShapeTracker's variable */
const UOp *v0_10_2_define_var_uop(KG *k, sint var);
/* schedule.py swizzle_r: REDUCE r of src seen through st, swizzled (a0b4465 swizzle_reduceop too) */
const UOp *v0_10_2_swizzle_r(KG *k, const UOp *r, const UOp *src, const ST *st);
/* check_load_st's test of the view of a load of the buffer a kernel assigns to (raises when not fine) */
void v0_10_2_check_assign_load_st(KG *k, const ST *st);
#endif
