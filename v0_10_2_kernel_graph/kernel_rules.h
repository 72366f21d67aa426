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
size_t buflist_index(BufList *l, const UOp *x);

extern const PatternMatcher pm_add_buffer_ops, pm_unbind_vars, pm_view_right, pm_fix_kernel_ops, pm_substitute;
#endif
