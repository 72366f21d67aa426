/* passes.h — the PatternMatchers of tinygrad 0.10.2's scheduler and the
 * functions of engine/schedule.py built on them. Rule functions get the KG
 * as their ctx; a pass that needs more (Python's `ctx=`) hangs it on
 * KG.pass. */
#ifndef KG_PASSES_H
#define KG_PASSES_H
#include "kg.h"

/* symbolic.c: codegen/symbolic.py symbolic_simple, ops.py exec_alu */
extern const PatternMatcher v0_10_2_pm_symbolic_simple;
const Value *v0_10_2_exec_alu(KG *k, Op op, const Value *const *x, uint32_t n);
const Value *v0_10_2_py_int_power(KG *k, const Value *a, const Value *b);   /* Python's a ** b, b an int */

/* tensor_rules.c: ops.py merge_views, schedule.py remove_movement_ops and sym */
extern const PatternMatcher v0_10_2_pm_merge_views, v0_10_2_pm_remove_movement_ops, v0_10_2_pm_sym;
/* a0b4465: schedule.py replace_contiguous (ctx: ContigCtx), and reorder_view (reorder_view.c) */
extern const PatternMatcher v0_10_2_pm_replace_contiguous, v0_10_2_pm_reorder_view;
/* ops.py view_left (without merge_views: list {&v0_10_2_pm_merge_views, &v0_10_2_pm_view_left}) */
extern const PatternMatcher v0_10_2_pm_view_left;
/* The `ctx` of remove_movement_ops+sym: found_contiguous's dict. */
typedef struct ContigCtx { OMap contig; } ContigCtx;
/* graph_rewrite(u, merge_views+view_left) (kernel.c) */
const UOp *v0_10_2_apply_swizzle(KG *k, const UOp *u);
/* graph_rewrite(ast, ...) at `at` with the rules of a shared pass context: in it, or in a fresh one while traced */
const UOp *v0_10_2_pass_rewrite(KG *k, const PyLoc *at, RewriteContext *shared, const UOp *ast);
/* Can u of image dtype dt be an image (its size and a unit-stride axis divisible by 4)? */
bool v0_10_2_can_be_image(KG *k, const UOp *u, const DType *dt);
/* UOp.valid(st) */
const UOp *v0_10_2_uop_valid(KG *k, const UOp *x, const ST *st);

/* group.c: group_realizes and its matchers */
typedef struct GrouperContext {
  OMap assigns;    /* buffer UOp -> ASSIGN */
  IdSet realizes;  /* dict of UOp -> None, never iterated */
  IdMap children;  /* UOp -> UList* of children (a dict of UOp -> None: a child is added once) */
  Arena *tmp;      /* group_realizes' scratch arena: assigns, children and the walks' state */
} GrouperContext;
/* ops.py can_pad: False when an unsafe-pad op is reachable from u without
 * passing an edge (0.10.2: a realized UOp; 0.10.1: the VIEW(BUFFER, op) of a
 * realized BUFFER) */
bool v0_10_2_can_pad(
    const KG *k, Arena *tmp, const UOp *u, bool (*is_edge)(const UOp *x, const void *edges), const void *edges);
/* recursive_group's cache.setdefault((tr, st)) (cache: tr -> OMap of st, in a); true when it was there */
bool v0_10_2_group_cache_seen(Arena *a, OMap *cache, const UOp *tr, const ST *st);
/* group_realizes(sink) -> ctx.realizes (in k->a); the GrouperContext is
 * initialised here, and its assigns and children are gone when it returns. */
void v0_10_2_group_realizes(KG *k, const UOp *sink, GrouperContext *ctx);

/* kernel.c: create_kernels and schedule_uop */
typedef struct KernelContext {
  const IdSet *realizes;
  IdMap ops_metadata;  /* UOp -> Metadata Value */
} KernelContext;
extern const PatternMatcher v0_10_2_pm_create_kernels;

typedef struct ScheduleItem {
  const UOp *ast;
  Buf **bufs;
  size_t nbufs;
  const Value *metadata;   /* tuple of Metadata Values */
} ScheduleItem;
/* var_vals: DEFINE_VAR UOp -> int (stored as intptr_t via a Value*) */
void v0_10_2_schedule_uop(
    KG *k, Arena *tmp, const UOp *sink, OMap *var_vals, ScheduleItem *out); /* temporaries in tmp */
/* kernel_ast.c: a0b4465 fix_kernel_ast(k, var_vals) and the ScheduleItem made of it (temporaries in tmp) */
void v0_10_2_fix_kernel_ast(KG *k, Arena *tmp, const UOp *kern, OMap *var_vals, ScheduleItem *out);
/* Around the schedule_uop calls of one schedule: the rewrite contexts the
 * kernels share (see kernel.c). */
void v0_10_2_kernel_passes_begin(KG *k);
void v0_10_2_kernel_passes_end(KG *k);

/* explain.c: what `tsched explain` is told (only while k->ex listens). Each
 * call names the input nodes that became the simplified UOp; a UOp already
 * in realizes is not reported again (the first insert decides). */
typedef struct Explain102 Explain102;
void v0_10_2_explain_realize(KG *k, const IdSet *realizes, const UOp *u, ExplainReason why, const char *detail);
void v0_10_2_explain_always(KG *k, const IdSet *realizes, const UOp *tr);   /* ASSIGN/CONTIGUOUS/COPY/BUFFER_VIEW */
void v0_10_2_explain_view(KG *k, const IdSet *realizes, const UOp *src, const UOp *view, ExplainReason why);
void v0_10_2_explain_copy_src(KG *k, const IdSet *realizes, const UOp *tr, const UOp *copy);
/* `ctx.realizes[tr] = None` for reduce r (why: what stopped r from fusing) */
void v0_10_2_explain_reduce(KG *k, const IdSet *realizes, const UOp *tr, const UOp *r, const char *why);
const char *v0_10_2_explain_name(KG *k, const UOp *u);   /* "node 7 ADD": the first input node that became u */
/* group_realizes' reasons: realized `node` read through st cannot take a reduce of rsize
 * (other: the reduce whose kernel it is in already); child `child` (through `via`, or NULL) stops the group */
const char *v0_10_2_explain_realized_child_why(KG *k, const char *node, const ST *st, int64_t rsize, const char *other);
const char *v0_10_2_explain_unfusable_child_why(KG *k, const char *child, const char *via, bool is_reduce);
/* "its kernel would store node 5 ADD and node 9 MUL (can only have one output)", each key of group named by name */
const char *v0_10_2_explain_several_outputs_why(KG *k, const OMap *group, const char *(*name)(KG *k, const UOp *u));
/* With the final realizes: the input nodes each KERNEL computes. */
void v0_10_2_explain_fuses(KG *k, const UOp *sink, const IdSet *realizes);
/* The schedule's ASSIGNs in order: which input nodes each item stores. */
void v0_10_2_explain_kernels(KG *k, const UOp *const *assigns, size_t n);

/* substitute(u, dict) */
const UOp *v0_10_2_uop_substitute(KG *k, const UOp *u, OMap *dvars);
#endif
