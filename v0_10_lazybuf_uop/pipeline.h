/* pipeline.h — the LazyBuffer -> UOp generation (tinygrad 0.10.0's
 * engine/schedule.py): the passes of create_schedule_with_vars in the order
 * it runs them, and the state one capture's scheduling shares between the
 * files of this folder.
 *
 *   pass                                   C                                file
 *   (the capture's input and context)      v0_10_decode_input               input.c
 *   to_uop: LazyBuffers -> big graph       v0_10_to_uop                     to_uop.c
 *   graph_rewrite(big_graph, do_realize)   v0_10_do_realize                 realize.c
 *   group_realizes                         v0_10_group_realizes             group.c
 *   graph_rewrite(big_graph, break_sched)  v0_10_break_sched                realize.c
 *   full_ast_rewrite, once per kernel      v0_10_full_ast_rewrite           ast.c
 *   ScheduleItem, the BFS                  v0_10_create_schedule_with_vars  schedule.c
 *   memory_planner (engine/memory.py)      v0_10_memory_planner             memory.c
 *   the replayer's entry, the result       v0_10_schedule_capture           entry.c
 *
 * Helpers: uops.c (ops.py UOp properties and constructors, GroupOp, can_pad,
 * sparents, repr), st.c (the ShapeTracker methods, on interned values),
 * scratch.c (the scratch arenas and id-indexed caches), explain.c (what
 * `tsched explain` is told).
 *
 * Exported symbols carry the prefix v0_10_ before the Python name they
 * mirror (v0_10_to_uop is schedule.py's to_uop); file-local functions are
 * static and keep the bare Python name. Errors are raised (common/error.h):
 * a Python exception tinygrad would raise, unsupported, or bad input, each
 * unwinding to the entry point's protected call. */
#ifndef TSCHED_V0_10_PIPELINE_H
#define TSCHED_V0_10_PIPELINE_H
#include <stdbool.h>
#include <stdint.h>
#include "error.h"
#include "explain.h"
#include "graph.h"
#include "omap.h"
#include "rewrite.h"
#include "rewrite_trace.h"
#include "scheduler.h"
#include "st.h"

/* The files the rule tables' and call sites' PyLocs name (tinygrad checkout paths) */
#define V0_10_SCHEDULE_PY "tinygrad/engine/schedule.py"
#define V0_10_OPS_PY "tinygrad/ops.py"
#include "version.h"

/* A device Buffer of input.buffers (device.py Buffer). dtype and options
 * can be overwritten by the image-dtype fallback of to_uop. */
typedef struct InBuf {
  const char *device;
  const Value *device_v;   /* device as an interned str (made on first use) */
  int64_t size;
  const DType *dtype;
  bool allocated;
  int64_t base;            /* index of the base Buffer, -1 for None */
  int64_t offset;
  const JVal *options;     /* NULL for None */
  int64_t lb_refcount;
  const DType *dtype0;     /* as recorded, for `mutations` */
  const JVal *options0;
} InBuf;

/* A LazyBuffer of input.lazybuffers (engine/lazy.py). */
typedef struct InLB {
  const char *device;
  const DType *dtype;      /* can be overwritten by the image fallback */
  const DType *dtype0;
  const Value *st;         /* V_ST */
  int64_t base;            /* view: index of its base LazyBuffer; -1 for a base */
  Op op;
  const Value *arg;
  bool has_srcs;           /* false once `srcs` was deleted (scheduled or realized) */
  size_t nsrcs;
  const int64_t *srcs;
  int64_t buffer;
  bool realized, forced_realize;
  const Value *metadata;   /* (str, caller) tuple, NULL for None */
  const UOp *var;          /* CONST of a bound Variable: its DEFINE_VAR, else NULL */
  int64_t var_val;         /* ... and the bound value */
} InLB;

/* Per-walk visited marks indexed by UOp id: a fresh epoch per walk instead of a hash set. */
typedef struct Marks {
  uint32_t *stamp;
  size_t cap;
  uint32_t epoch;
} Marks;

/* The stamps of UOp.sparents' walks, one per node id, in pages of
 * STAMP_PAGE ids made as the ids grow (an array regrown to the node count
 * left its old copies behind, as much again as the live one). */
enum { STAMP_PAGE_BITS = 10, STAMP_PAGE = 1 << STAMP_PAGE_BITS };
typedef struct Stamps {
  uint32_t **pages;
  size_t npages, cap;      /* pages made, directory slots */
  uint32_t epoch;
} Stamps;

/* A cached property of UOps (functools.cached_property): a value per UOp id,
 * NULL while not computed. Paged (IDC_PAGE ids a page, made when the first
 * id in it is put): a cache holds memory for the ids it was given, and
 * growing it copies only the page directory. */
enum { IDC_PAGE_BITS = 8, IDC_PAGE = 1 << IDC_PAGE_BITS };
typedef struct IdCache {
  const void ***pages;
  size_t npages;
  Arena *arena;            /* where its pages go; NULL: Sched.a */
} IdCache;

typedef struct ExplainState ExplainState;   /* explain.c */

/* An entry of input.set_orders.parents_assigns: the order the scheduler iterated
 * the assign_preloads of the item behind LazyBuffer `key`, as the items behind
 * LazyBuffers `members` (contract section 7) */
typedef struct SetOrder {
  int64_t key;
  const int64_t *members;
  size_t n;
} SetOrder;

/* A reusable stack of UOps (scratch memory of one function). */
typedef struct UStack {
  const UOp **items;
  size_t n, cap;
} UStack;

typedef struct Sched {
  Arena *a;                /* what the result needs: the interned UOps and values, the items */
  /* what is only remembered to go faster (the property caches, the st
   * memos, the walks' stacks and stamps, the rewrite contexts' tables): a
   * scratch arena freed when the schedule is made (Sched.a before and after),
   * renewed while prescheduling (v0_10_caches_renew) */
  Arena *caches;
  size_t caches_kernels;   /* the kernels prescheduled since the caches began */
  /* the big graph's bookkeeping (to_uop's frames, children, allbufs, group_realizes'
   * maps): a scratch arena from to_uop to the end of group_realizes (Sched.a otherwise) */
  Arena *graph;
  /* the temporaries of the pass under way: a scratch arena while prescheduling (Sched.a otherwise) */
  Arena *tmp;
  ScratchArenas scratch;   /* the scratch arenas over Sched.a (arena.h) */
  Interner *in;
  Codec codec;
  const Capture *cap;
  TgVersion v;             /* the capture's version, as common/ is asked for it */
  const TgFeatures *f;     /* its features (version.h, section v0_10_lazybuf_uop/) */
  OpGroups groups;         /* the capture's ops.py GroupOp (ops.h op_in) */
  /* context */
  bool fuse_arange, fuse_conv_bw, no_memory_planner;
  bool merge_view;         /* MERGE_VIEW (ShapeTracker.reshape in UOp.const_with_shape) */
  size_t nlimits;
  const char **limit_device;
  int64_t *limit_value;
  /* input */
  InBuf *bufs;
  size_t nbufs;
  InLB *lbs;
  size_t nlbs;
  const int64_t *outs;
  size_t nouts;
  const JVal *mp_bufs;     /* memory_planner_bufs, NULL when null */
  const JVal *mp_offset;   /* memory_planner_allocator_offset */
  SetOrder *pa_orders;     /* input.set_orders.parents_assigns */
  size_t npa_orders;
  /* to_uop */
  const UOp **cache;       /* per LazyBuffer */
  IdCache buffers;         /* BUFFER uop -> Buffer index + 1 */
  size_t nbuffers;         /* BUFFER uops made (the next one's num) */
  int64_t *lazybufs;       /* Buffer index -> LazyBuffer index + 1, 0: none */
  /* ScheduleContext */
  IdCache ubuf_metadata;   /* BUFFER uop -> metadata Value */
  IdCache ops_metadata;    /* metadata_of_ops: fused op -> metadata Value (break_sched's append_op) */
  OMap var_vals;           /* DEFINE_VAR uop -> Value (int) */
  OMap assigns;            /* set of BUFFER uops assigned to */
  OMap allbufs;            /* BUFFER uop -> its VIEW(BUFFER, op) node (iterated in order); Sched.graph */
  IdCache allbuf_of;       /* the same, for lookups; Sched.graph */
  IdCache children;        /* BUFFER uop -> OMap* (set of child BUFFER uops); looked up, never iterated; Sched.graph */
  /* caches of UOp properties (functools.cached_property in Python) */
  IdCache st_cache;        /* UOp -> V_ST Value, or the "None" marker */
  IdCache unsafe_cache;    /* UOp -> 1 + (has an UnsafePad op among sparents) */
  /* merge_views+view_left and merge_views+view_right read nothing but the
   * node, so rewrite(n) is a function of n: one RewriteContext each serves
   * every kernel and every apply_swizzle (ast.c); rc_self is their ctx */
  RewriteContext view_left_rc, view_right_rc;
  struct Sched *rc_self;
  IdCache reduce_free;     /* BUFFER uop -> 1: no REDUCE_AXIS at or above it, 2: some (group.c); Sched.graph */
  OMap st_add_cache;       /* st a -> OMap* (st b -> a + b) */
  OMap st_simplify_cache;  /* st -> st.simplify() */
  OMap st_unbound;         /* set of sts without Variables (st.unbind() is st, nothing to record) */
  OMap st_full_cache;      /* st -> ShapeTracker.from_shape(st.shape) */
  OMap st_reduce_cache;    /* st -> OMap* (axis tuple -> v0_10_st_from_reduced_shape) */
  OMap st_json_cache;      /* ShapeTracker -> its JSON encoding */
  Arena st_scratch;        /* where the ShapeTracker core builds its results (st.c) */
  /* scratch memory reused by the walks of uops.c */
  Stamps stamps;           /* v0_10_sparents' stamps */
  UStack st_stack, pad_stack, rf_stack, parents;
  Marks pad_marks;         /* can_pad(u, edges, visited)'s visited */
  void *to_uop_stack, *rg_stack;   /* to_uop's and recursive_group's frames, reused */
  size_t to_uop_cap, rg_cap;
  void *sparents_stack;
  size_t sparents_cap;
  /* common values */
  const char *last_device; /* the device of the last v0_10_device_value that made a str */
  const Value *last_device_v;
  const Value *none;
  const DType *void_dt, *bool_dt;
  /* `tsched explain` (explain.c): NULL unless someone listens */
  Explain *ex;
  ExplainState *xp;
} Sched;

/* ---- input.c ---- */
void v0_10_decode_input(Sched *s);
/* UOp.variable(name, lo, hi): the DEFINE_VAR of the big graph and of var_vals */
const UOp *v0_10_variable(Sched *s, const char *name, size_t len, int64_t lo, int64_t hi);
/* A Buffer's device as an interned str, made once per device (a capture has one or two) */
const Value *v0_10_device_value(Sched *s, InBuf *b);

/* ---- scratch.c: scratch arenas, marks, stacks, id caches ---- */
/* the size the chunks of Sched.a and of the scratch arenas stop growing at
 * while scheduling: past it they take up the chunks freed arenas gave back */
enum { V0_10_MAX_CHUNK = 1 << 20 };
/* the bytes of temporaries prescheduling lets its scratch arena grow to before it is emptied */
enum { V0_10_TMP_BYTES = 16 * 1024 };
/* While prescheduling, Sched.caches is forgotten (between two kernels) once
 * it has grown past V0_10_CACHES_PER_LB bytes a LazyBuffer of the input
 * (within V0_10_CACHES_MIN..V0_10_CACHES_MAX) and served V0_10_CACHES_KERNELS
 * kernels at least: what the rewrites, UOp.st and the walks remember grows
 * with every node id made (~30-40 bytes an id), most of it of no use to
 * later kernels; a budget in proportion to the input keeps the mid-size
 * captures' caches as small a part of their peak as the big ones'. */
enum { V0_10_CACHES_PER_LB = 320, V0_10_CACHES_MIN = 64 * 1024, V0_10_CACHES_MAX = 2048 * 1024, V0_10_CACHES_KERNELS = 32 };
/* the bytes of prescheduling's nodes it lets grow before it forgets those
 * no item needs (schedule.c): 48 a LazyBuffer, within 16-32 KiB (a batch
 * costs the shared memos' pages, which grow with the capture) */
enum { V0_10_NODES_PER_LB = 48, V0_10_NODES_MIN = 16 * 1024, V0_10_NODES_MAX = 32 * 1024 };
/* About the bytes an arena handed out (its chunks but the free part of the
 * newest; what an older chunk could not fit counts too) */
static inline size_t v0_10_arena_used(const Arena *a) { return a->chunk_bytes - (size_t)(a->end - a->cur); }
/* Scratch arenas for a pass's temporaries: arena_scratch_begin(&s->scratch)
 * and arena_scratch_end (arena.h); Sched.a goes on in the chunks they give back. */
void v0_10_scratch_end_all(Sched *s);        /* every one still open (after a raise too) */
void v0_10_caches_begin(Sched *s);           /* Sched.caches: a scratch arena */
void v0_10_caches_drop(Sched *s);            /* forget what it remembered, free it */
void v0_10_caches_renew(Sched *s);           /* after a kernel: dropped and begun anew when due */
void v0_10_graph_begin(Sched *s);            /* Sched.graph: a scratch arena */
void v0_10_graph_end(Sched *s);              /* allbufs, children... forgotten, Sched.graph freed */
void v0_10_marks_begin(Marks *m);
bool v0_10_marks_set(Sched *s, Marks *m, const UOp *u);   /* true when u was not marked yet */
static inline void v0_10_ustack_push(Sched *s, UStack *st, const UOp *u) {
  st->items = arena_grow(s->caches, st->items, st->n, &st->cap, sizeof *st->items);
  st->items[st->n++] = u;
}
static inline const void *v0_10_idcache_get(const IdCache *c, const UOp *u) {
  size_t p = u->id >> IDC_PAGE_BITS;
  return p < c->npages && c->pages[p] ? c->pages[p][u->id & (IDC_PAGE - 1)] : NULL;
}
void v0_10_idcache_grow(Sched *s, IdCache *c, const UOp *u);
/* c's entries of the ids from mark on emptied (their nodes were forgotten, the ids are given again) */
void v0_10_idcache_forget_since(IdCache *c, uint32_t mark);
static inline void v0_10_idcache_put(Sched *s, IdCache *c, const UOp *u, const void *v) {
  size_t p = u->id >> IDC_PAGE_BITS;
  if (p >= c->npages || !c->pages[p]) v0_10_idcache_grow(s, c, u);
  c->pages[p][u->id & (IDC_PAGE - 1)] = v;
}

/* ---- uops.c: UOp properties and constructors of ops.py ---- */
const UOp *v0_10_uop_base(const Sched *s, const UOp *u); /* UOp.base */
bool v0_10_is_scheduled(const UOp *u);                   /* schedule.py is_scheduled */
const UOp *v0_10_buf_uop(Sched *s, const UOp *u);        /* UOp.buf_uop (asserts) */
bool v0_10_is_contiguous_base(const Sched *s, const UOp *u); /* UOp.is_contiguous_base */
const Value *v0_10_uop_st(Sched *s, const UOp *u);       /* UOp.st: V_ST, NULL for None */
const Value *v0_10_st_arg(Sched *s, const UOp *u);       /* UOp.st_arg */
const Value *v0_10_axis_arg(const UOp *u);               /* UOp.axis_arg: tuple of ints */
bool v0_10_axis_arg_valid(const Value *arg);
const UOp *v0_10_st_to_uop(Sched *s, const Value *st);   /* ShapeTracker.to_uop */
const UOp *v0_10_uop_view(Sched *s, const UOp *u, const Value *st);    /* UOp.view */
const UOp *v0_10_uop_const(Sched *s, const DType *dt, const Value *v); /* UOp.const (as_const) */
const Value *v0_10_as_const(Sched *s, const Value *v, const DType *dt); /* dtypes.as_const */
const UOp *v0_10_uop_r(Sched *s, const UOp *u, const Value *op, const Value *axis); /* UOp.r */
const UOp *v0_10_uop_replace(Sched *s, const UOp *u, uint32_t n, const UOp *const *src); /* UOp.replace(src=...) */
/* ops.py can_pad(u) / can_pad(u, edges, set()): edges, realizes, is only read by the latter */
bool v0_10_can_pad(Sched *s, const UOp *u, const OMap *edges);
/* UOp.const_with_shape(dtype, val, shape), c being UOp.const(dtype, val) */
const UOp *v0_10_const_with_shape(Sched *s, const UOp *c, int n, const sint *shape);
/* UOp.sparents in Python's order (parents dict, then self). The list is
 * scratch memory: valid until the next call. */
size_t v0_10_sparents(Sched *s, const UOp *u, const UOp ***out);
/* The first line of repr(UOp), for exception messages. */
const char *v0_10_uop_repr(Sched *s, const UOp *u);
const char *v0_10_value_repr(Sched *s, const Value *v);  /* Python str() of an arg */

/* ---- to_uop.c ---- */
const UOp *v0_10_to_uop(Sched *s, int64_t lb);
/* ScheduleContext.lazybufs[ubuf]: the LazyBuffer whose VIEW(BUFFER, op) has BUFFER uop ubuf, or NULL */
const InLB *v0_10_lazybuf_of(const Sched *s, const UOp *ubuf);

/* ---- realize.c ---- */
/* returns the big graph break_sched rewrites */
const UOp *v0_10_do_realize(Sched *s, const UOp *big_graph, OMap *realizes);
void v0_10_break_sched(Sched *s, const UOp *big_graph, OMap *realizes);

/* ---- group.c ---- */
/* A store group: the BUFFER uops of one kernel, in order. */
typedef struct StoreGroup {
  const UOp **bufs;
  size_t n;
} StoreGroup;
/* Returns the store groups (in s->a). */
size_t v0_10_group_realizes(Sched *s, OMap *realizes, StoreGroup **groups);

/* ---- ast.c ---- */
/* assign_adj's list of one assigned buffer: the LOADs and PRELOADs of it a kernel makes */
typedef struct AdjLoads {
  const UOp **items;
  size_t n, cap;
  bool mixed;               /* not all_same([x.op for x in adj_loads]) */
  bool preload;             /* any(x.op is Ops.PRELOAD for x in ops) */
} AdjLoads;
typedef struct SiCtx {      /* ScheduleItemContext */
  OMap sts;                 /* set of ShapeTracker values */
  const UOp **bufs;
  size_t nbufs, capbufs;
  const UOp **preloads;     /* assign_preloads: a tuple in walk order, or (assign_adj) the frozenset in assign_adj's order */
  size_t npreloads, cappreloads;
  OMap metadata;            /* metadata_of_ops: the set of metadata Values */
  OMap assign_adj;          /* assign_adj: BUFFER uop -> AdjLoads* */
} SiCtx;
/* What the sparents of a kernel's small graph `pre` say about the checks of
 * full_ast_rewrite: the rewrites make no ASSIGN and no LOAD (only PRELOADs),
 * so without an ASSIGN in pre there is no augmented assign to check, and
 * without a LOAD of an assigned buffer no PRELOAD/LOAD run can mix. */
typedef struct PreFacts {
  bool has_assign;          /* an ASSIGN among pre.sparents */
  bool loads_assigned;      /* a LOAD of a buffer in ctx.assigns among pre.sparents */
} PreFacts;
const UOp *v0_10_full_ast_rewrite(Sched *s, const UOp *pre, const PreFacts *facts, SiCtx *sictx);

/* ---- schedule.c ---- */
typedef struct SchedItem {
  const UOp *ast;
  int64_t *bufs;            /* Buffer indices */
  size_t nbufs;
  const Value **metadata;   /* (str, caller) tuples, set order irrelevant */
  size_t nmetadata;
  int64_t *preloads;        /* Buffer indices of assign_preloads */
  size_t npreloads;
  int64_t lb;               /* the LazyBuffer behind its first output (set_orders name items by it) */
} SchedItem;
size_t v0_10_create_schedule_with_vars(Sched *s, SchedItem **items);

/* ---- explain.c: what `tsched explain` is told (only while s->ex listens) ---- */
/* After to_uop: s->ex = explain_active(), and the maps to LazyBuffer indices. */
void v0_10_explain_begin(Sched *s, const int64_t *outs, size_t nouts);
/* Before realize(ctx, b, ...) adds b to realizes, per do_realize rule. */
void v0_10_explain_meta(Sched *s, const OMap *realizes, const UOp *b, const UOp *to_store);
void v0_10_explain_view(Sched *s, const OMap *realizes, const UOp *b, const UOp *base, const UOp *view, ExplainReason why);
void v0_10_explain_copy_src(Sched *s, const OMap *realizes, const UOp *b, const UOp *root);
/* group_realizes' `realizes[tr] = tr` for reduce r (why: what stopped r from fusing) */
void v0_10_explain_reduce(Sched *s, const OMap *realizes, const UOp *tr, const UOp *r, const char *why);
const char *v0_10_explain_node(Sched *s, const UOp *b);   /* "node 7 SUM": b's LazyBuffer */
/* With the final realizes: the LazyBuffers each kernel computes. */
void v0_10_explain_fuses(Sched *s, const OMap *realizes);
int64_t v0_10_explain_lb_of_buffer(Sched *s, int64_t buf);   /* the LazyBuffer computing a Buffer, -1 */

/* ---- memory.c ---- */
typedef struct MemPlan {
  bool ran;                 /* false: memory_plan null */
  JVal *plan, *plan_buffers;
} MemPlan;
bool v0_10_memory_planner(Sched *s, const SchedItem *items, size_t nitems, MemPlan *out);
#endif
