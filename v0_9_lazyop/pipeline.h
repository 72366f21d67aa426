/* pipeline.h — the LazyOp generation (tinygrad 0.9.1, 0.9.2 and
 * 0.9.2+197f8fd engine/schedule.py): the passes of create_schedule_with_vars
 * in the order it runs them, and the state one capture's scheduling shares
 * between the files of this folder.
 *
 *   pass                                        C                               file
 *   (the capture's input and context)           v0_9_decode_input               decode.c
 *   _graph_schedule: _recurse_lb, _is_padding_okay,
 *     _recursive_group, the prescheduling       v0_9_graph_schedule             graph_schedule.c
 *   _schedule_group / _lower_lazybuffer (0.9.2),
 *     _recursive_lazyop / _recursive_uop        v0_9_schedule_group             lazyop.c
 *   _recurse_reduceops (0.9.2)                  v0_9_reduce_info                reduceops.c
 *   full_ast_rewrite (197f8fd)                  v0_9_full_ast_rewrite           uop_ast.c
 *   create_schedule_with_vars: the BFS          v0_9_create_schedule_with_vars  create_schedule.c
 *   memory_planner (realize.py's in 0.9.2)      v0_9_memory_planner             memory_planner.c
 *   the replayer's entry, the result            v0_9_schedule_capture           entry.c, encode.c
 *
 * Helpers: st.c (the ShapeTracker methods on interned StHandles). Everything
 * lives in the capture's Arena.
 *
 * Exported symbols carry the prefix v0_9_ before the Python name they mirror
 * (v0_9_graph_schedule is schedule.py's _graph_schedule); file-local
 * functions are static and keep the bare Python name. Errors are raised
 * (common/error.h): a Python exception tinygrad would raise, unsupported, or
 * bad input, each unwinding to entry.c's protected call; no function here
 * returns a failure. */
#ifndef TSCHED_V0_9_PIPELINE_H
#define TSCHED_V0_9_PIPELINE_H
#include <stdbool.h>
#include <stdint.h>
#include "capture.h"
#include "explain.h"
#include "graph.h"
#include "intern.h"
#include "omap.h"
#include "error.h"
#include "uop.h"
#include "version.h"
#include "st.h"

/* The file the PyLocs of this folder cite (rewrite.h), in every version's checkout. */
#define V0_9_SCHEDULE_PY "tinygrad/engine/schedule.py"

/* device.py Buffer: one entry of input.buffers. dtype and options are
 * mutable: the image-dtype fallback of _graph_schedule rewrites them. */
typedef struct DeviceBuffer DeviceBuffer;
typedef struct LazyBuffer LazyBuffer;
struct DeviceBuffer {
  int index;                 /* position in input.buffers */
  const char *device;        /* interned: equal devices are equal pointers */
  int64_t size, offset;
  const DType *dtype, *orig_dtype;  /* now / at call time */
  DeviceBuffer *base;        /* Buffer._base, NULL for a base buffer */
  const JVal *options;       /* as recorded (null or an object) */
  bool options_cleared;      /* the fallback set options = None */
  bool allocated;            /* is_allocated() at call time */
  int64_t lb_refcount;
  int64_t buf_max;           /* 197f8fd: Device[device].renderer.buf_max, 0 for None */
  uint32_t bufs_mark;        /* 197f8fd: == Sched.item_epoch: bufs_index is ctx.bufs.index(self) in this kernel */
  int bufs_index;
  const struct PlannerBufState *planner;  /* its memory_planner_bufs entry, NULL if none */
};

typedef struct LBScheduleItem LBScheduleItem;

/* A growable list of LazyBuffers (Python list). */
typedef struct LbList { LazyBuffer **items; int n; size_t cap; } LbList;
static inline void v0_9_lblist_push(Arena *a, LbList *l, LazyBuffer *x);

/* lazy.py LazyBuffer. A view has base != self and only device, dtype, st;
 * a base has the op, arg, srcs and its Buffer. */
struct LazyBuffer {
  /* the fields every walk reads come first (one cache line) */
  LazyBuffer *base;          /* self for a base */
  LazyBuffer **srcs;         /* base only; NULL once scheduled/realized (Python deletes the attribute) */
  const StHandle *st;
  int nsrcs;
  Op op;                     /* base only */
  bool realized;             /* realized is not None */
  bool forced_realize;
  /* _graph_schedule's dicts and sets keyed by LazyBuffer, kept on the key */
  bool in_realizes, in_allbufs, in_simple_pads, in_seen;
  int index;                 /* position in input.lazybuffers (post-order) */
  int nreaders;              /* bases whose sources name this base: room kept in children */
  LbList children;            /* children[self]: an ordered dict */
  const char *device;        /* interned */
  const DType *dtype;        /* mutable (image fallback) */
  const DType *orig_dtype;   /* at call time, for `mutations` */
  const Value *arg;          /* base only */
  sint arg_var;              /* a CONST bound to a Variable: that Variable (arg is its {"sym"} value) */
  DeviceBuffer *buffer;      /* base only */
  LazyBuffer *reduce_for_op;  /* reduce_for_op[self], or NULL */
  LazyBuffer *assign;         /* assign_targets[self], or NULL */
  LBScheduleItem *target;     /* schedule_targets[self]: the item computing it, or NULL */
  LbList *output_group;       /* output_groups[self], or NULL */
  uint32_t group_mark;        /* == Sched.group_epoch: in the group being built */
  uint32_t desc_mark;         /* _get_isolated_children: in `descendants` (0.9.2) */
  const char *metadata;       /* str(lazybuffer.metadata), or NULL */
  const char *metadata_caller;  /* its caller (Metadata compares name, caller and backward) */
  uint32_t visit_mark;        /* == Sched.group_epoch: _recursive_group walked (self, visit_st) */
  const StHandle *visit_st;
  uint32_t search_mark;       /* == Sched.search_epoch: reached by the current search */
  /* _schedule_group's per-kernel state, valid while item_mark == Sched.item_epoch */
  uint32_t item_mark;
  int out_index, in_index;    /* outputs.index(self), inputs.index(self); -1 when absent */
  LazyBuffer *item_assign;    /* this kernel's assign_targets[self] */
  const StHandle *memo_st;        /* one memo entry of _recursive_lazyop(self, memo_st) */
  const UOp *memo_op;
  /* one entry of _recurse_reduceops' cache (0.9.2), valid while rr_mark is that walk's search epoch */
  uint32_t rr_mark;
  int rr_result;
  const StHandle *rr_st;
};

/* One decoded capture input, plus the context flags the scheduler reads. */
typedef struct Input {
  DeviceBuffer *buffers; int nbuffers;
  LazyBuffer *lbs; int nlbs;
  LazyBuffer **outs; int nouts;
  LazyBuffer **seen; int nseen;
  LazyBuffer **simple_pads_order; int nsimple_pads_order;   /* set_orders.simple_pads */
  OMap parents_assigns_order;   /* key LazyBuffer* -> LbList* (set_orders.parents_assigns) */
  /* memory_planner_bufs: NULL when the planner did not run */
  bool planner_ran;
  bool multioutput, use_copy_kernel, no_memory_planner;
  bool fuse_arange, fuse_conv_bw;   /* 0.9.2 */
  bool ast_rewrite;                 /* AST_REWRITE (197f8fd) */
  bool merge_view; /* MERGE_VIEW, read by ShapeTracker.reshape (0.9.2; 1 for 0.9.1, which never reshapes) */
  const JVal *allocator_offset;     /* memory_planner_allocator_offset (0.9.2), or NULL */
} Input;

typedef struct PlannerBufState { bool allocated; int64_t lb_refcount; } PlannerBufState;  /* DeviceBuffer.planner */


/* _LBScheduleItem (0.9.1), LBScheduleItem (0.9.2) */
struct LBScheduleItem {
  const UOp **ast; int nast;          /* roots: STOREs, or one CUSTOM/COPY/EMPTY/VIEW node; 0.9.2: one KERNEL or EXT */
  LazyBuffer **outputs; int noutputs;
  LbList inputs;
  const char **metadata; int nmetadata;   /* 0.9.2: str() of each Metadata */
};

/* The state of one scheduler call. */
typedef struct Sched {
  TgVersion v;          /* the capture's version */
  const TgFeatures *f;  /* its features (version.h) */
  OpGroups groups;      /* its op sets (common/ops.c): UNSAFE_PAD_OPS */
  Arena *a;
  Interner *in;
  Codec codec;
  Input *inp;
  /* _graph_schedule: the dicts in insertion order (membership is on the LazyBuffers) */
  LbList realizes, allbufs, simple_pads;   /* realizes: a deleted entry has in_realizes false (0.9.2) */
  LbList double_reduces;                   /* 0.9.2 */
  uint32_t group_epoch, search_epoch, item_epoch;
  /* scratch stacks, reused by every walk (a walk pops what it pushes) */
  void *lb_stack; size_t lb_stack_cap;      /* recurse_lb's frames */
  void *lop_stack; size_t lop_stack_cap;    /* recursive_lazyop's frames */
  void *rr_stack; size_t rr_stack_cap;      /* _recurse_reduceops' frames (reduceops.c) */
  void *ri_items; size_t ri_items_cap;      /* the kernel's reduce_info items (reduceops.c) */
  const UOp **lop_srcs; size_t lop_srcs_cap; /* the sources built so far by recursive_lazyop's frames */
  OMap prescheduled;    /* key LazyBuffer* -> LBScheduleItem*, ordered */
  const Value *op_args[OP_COUNT];   /* 197f8fd: str(op) as an arg, once interned */
  /* 197f8fd, untraced: the DEFINE_GLOBAL numbered i, by i, for the dtype last asked (lazyop.c) */
  struct DefineGlobal { const DType *dtype; const UOp *uop; } *define_globals; size_t define_globals_cap;
  const StHandle **uop_sts; size_t nuop_sts, uop_sts_cap;   /* 197f8fd: UOp.st by UOp id (uop_ast.c) */
  /* `tsched explain` (common/explain.h): NULL unless someone listens */
  Explain *ex;
  OMap pad_views;       /* with ex: base LazyBuffer* -> the first view that put it in simple_pads */
  /* st.c */
  OMap st_handles;      /* ShapeTracker* -> StHandle* */
  OMap st_canon;        /* st_hash -> StHandle* chain: the intern table */
  OMap st_add_memo;     /* (a->id, b->id) -> a + b */
  OMap st_from_shape_memo;  /* hash of an int shape -> FromShape chain: from_shape(shape) */
  OMap st_reshape_memo;     /* (x->id, shape_of->id) -> x.reshape(shape_of.shape) */
  uint32_t nst;         /* handles made so far */
  /* var_vals of create_schedule_with_vars: unbound Variable -> value */
  struct VarVal { sint var; int64_t val; } *var_vals; int nvar_vals; size_t var_cap;
} Sched;

/* The result of create_schedule_with_vars + memory_planner. */
typedef struct ScheduleItem {
  const UOp **ast; int nast;
  DeviceBuffer **bufs; int nbufs;
  const char **metadata; int nmetadata;
} ScheduleItem;

typedef struct PlanBuffer PlanBuffer;   /* memory_planner.c */

typedef struct Schedule {
  ScheduleItem *items; int nitems;
  /* memory_planner: for every DeviceBuffer index, its replacement or NULL */
  bool planned;
  PlanBuffer **assigned;
  /* 0.9.2 (interval_memory_planner): common/memory_planner.h's assigned and new Buffers */
  int64_t *interval_assigned;
  struct PlanNewBuf *news; size_t nnew;
} Schedule;

/* decode.c */
void v0_9_decode_input(Sched *s, const Capture *c, Input *inp);
static inline bool v0_9_is_loadop(Op op) {
  return op == OP_EMPTY || op == OP_LOADOPS_CONST || op == OP_COPY || op == OP_CONTIGUOUS || op == OP_CUSTOM ||
         op == OP_ASSIGN || op == OP_VIEW;
}
static inline bool v0_9_is_reduceop(Op op) {
  return op == OP_REDUCE_SUM || op == OP_REDUCE_MAX || op == OP_REDUCE_PROD;
}

/* graph_schedule.c: _graph_schedule up to and including the prescheduling. */
void v0_9_graph_schedule(Sched *s);

/* lazyop.c: _schedule_group (0.9.1) or _lower_lazybuffer (0.9.2) */
void v0_9_schedule_group(Sched *s, LazyBuffer **outs, int nouts, LBScheduleItem *out);

/* lazyop.c (197f8fd): the UOp _recursive_uop makes for a ShapeTracker */
const UOp *v0_9_st_to_uop(Sched *s, const StHandle *x);
/* uop_ast.c (197f8fd): full_ast_rewrite: reduceop_fusor (has_reduce: the sink has a REDUCE_AXIS),
 * then, when traced, enumerate_bufs */
const UOp *v0_9_full_ast_rewrite(Sched *s, const UOp *sink, bool has_reduce);
/* uop_ast.c (197f8fd): a traced DEFINE_GLOBAL's arg, the Buffer itself (before enumerate_bufs) */
const Value *v0_9_buffer_arg(Sched *s, const DeviceBuffer *b);
/* uop_ast.c (197f8fd): the rewrite steps of the capture as a trace line, when the replayer asked */
void v0_9_trace_emit(Sched *s, const struct RewriteTrace *t, const Capture *c);
/* reduceops.c: a reduce's arg as its axes (bad input unless a tuple of axes of its source) */
void v0_9_reduce_axis(Sched *s, const LazyBuffer *buf, int *naxis, const int64_t **axis);
/* reduceops.c: push_swizzle_up_through_reduce's / _recurse_reduceops' new input ShapeTracker for a
 * view on a reduce; *axis becomes the last naxis axes */
const StHandle *v0_9_push_view_to_input(
    Sched *s, const StHandle *input_st, const StHandle *view, int naxis, const int64_t **axis);

/* reduceops.c: _recurse_reduceops and the padding of _lower_lazybuffer (0.9.2) */
typedef struct ReduceInfo {
  LazyBuffer *buf; const StHandle *st;   /* the key (buf, st) */
  const StHandle *input_st;              /* the value (input_st, axis) */
  int naxis; const int64_t *axis;
} ReduceInfo;
typedef struct ReduceInfos {
  ReduceInfo *items;
  int n;
  size_t cap;
  OMap index;
} ReduceInfos; /* a dict, in insertion order */
void v0_9_reduce_info(Sched *s, LazyBuffer **outs, int nouts, ReduceInfos *ri);
const ReduceInfo *v0_9_reduce_info_get(const ReduceInfos *ri, const LazyBuffer *buf, const StHandle *st);
/* reduce_st(input_st, axis): input_st's shape with 1 on the axes, as a ShapeTracker from_shape */
const StHandle *v0_9_reduce_st(Sched *s, const StHandle *input_st, int naxis, const int64_t *axis);

/* create_schedule.c: the dependency graph and its BFS */
void v0_9_create_schedule_with_vars(Sched *s, Schedule *out);

/* memory_planner.c */
void v0_9_memory_planner(Sched *s, Schedule *sched);
JVal *v0_9_encode_memory_plan(Sched *s, const Schedule *sched, JVal **plan_buffers);

/* var_vals[var] = val (a Variable bound to two values is outside what is modelled) */
void v0_9_var_vals_put(Sched *s, sint var, int64_t val);

/* encode.c */
JVal *v0_9_encode_result(Sched *s, const Schedule *sched);
JVal *v0_9_encode_image_options(Sched *s, const DType *image);

/* tinygrad 0.9.1 walks the graph with Python recursion under
 * sys.setrecursionlimit(10000). A walk that would nest `frames` Python
 * frames close to that limit may end in RecursionError there, depending on
 * how deep the caller already was: such a capture is reported unsupported
 * (raises, error.h) rather than guessed. */
enum { V0_9_PY_RECURSION_LIMIT = 10000, V0_9_PY_CALLER_FRAMES = 300 };
_Noreturn void v0_9_py_recursion_unsupported(size_t frames);
static inline void v0_9_py_recursion_check(size_t frames) {
  if (frames + V0_9_PY_CALLER_FRAMES >= V0_9_PY_RECURSION_LIMIT) v0_9_py_recursion_unsupported(frames);
}

/* repr() of a LazyBuffer (lazy.py LazyBuffer.__repr__), for messages */
const char *v0_9_lazybuffer_repr(Sched *s, const LazyBuffer *b);
/* The scheduler's own spelling of op: "LoadOps.COPY" (0.9.1), "MetaOps.COPY" (0.9.2) */
static inline const char *v0_9_op_name(const Sched *s, Op op) { return op_name(op, s->v); }

/* Small helpers (growable arrays are common/arena.h's arena_grow / arena_reserve) */
static inline void v0_9_lblist_push(Arena *a, LbList *l, LazyBuffer *x) {
  l->items = arena_grow(a, l->items, (size_t)l->n, &l->cap, sizeof *l->items);
  l->items[l->n++] = x;
}
/* A (LazyBuffer, ShapeTracker) pair as one 64-bit memo key. */
static inline uint64_t v0_9_st_memo_key(const LazyBuffer *lb, const StHandle *st) {
  return ((uint64_t)(uint32_t)lb->index << 32) | st->id;
}
#endif
