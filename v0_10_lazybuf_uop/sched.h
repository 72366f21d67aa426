/* sched.h — generation 0.10.0 (tinygrad v0.10.0, engine/schedule.py):
 * the state one capture's scheduling shares between the files of this folder.
 *
 *   input.c     decoding the capture's `input` (LazyBuffers, Buffers, context)
 *   uops.c      UOp helpers of ops.py: st, base, buf_uop, view, sparents, repr
 *   st10.c      the ShapeTracker operations the scheduler uses
 *   to_uop.c    to_uop: the big graph of VIEW(BUFFER, op) nodes
 *   realize.c   do_realize / realize_view / break_sched
 *   group.c     group_realizes, recursive_group, get_isolated_children
 *   ast.c       full_ast_rewrite: lazy, multioutput, view_left, view_right, to_si
 *   schedule.c  create_schedule_with_vars: prescheduling and the BFS
 *   memory.c    engine/memory.py memory_planner
 *   entry.c     the replayer's entry point and the result encoding
 *
 * Every generation links into one library, so the functions shared between
 * these files carry the prefix v100_ before the tinygrad name they mirror
 * (v100_to_uop is schedule.py's to_uop); file-local functions are static
 * and keep the bare tinygrad name (realize, uval, recursive_group...). */
#ifndef TSCHED_V0_10_SCHED_H
#define TSCHED_V0_10_SCHED_H
#include <stdbool.h>
#include <stdint.h>
#include "explain.h"
#include "graph.h"
#include "omap.h"
#include "rewrite.h"
#include "scheduler.h"
#include "st10.h"

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

typedef struct Explain100 Explain100;   /* explain.c */

/* A reusable stack of UOps (scratch memory of one function). */
typedef struct UStack {
  const UOp **items;
  size_t n, cap;
} UStack;

typedef struct V100Scratch V100Scratch;   /* uops.c */

typedef struct Sched {
  Arena *a;                /* what the result needs: the interned UOps and values, the items */
  /* what is only remembered to go faster (the property caches, the st
   * memos, the walks' stacks and stamps, the rewrite contexts' tables): a
   * scratch arena freed when the schedule is made (Sched.a before and after),
   * renewed while prescheduling (v100_caches_renew) */
  Arena *caches;
  size_t caches_kernels;   /* the kernels prescheduled since the caches began */
  /* the big graph's bookkeeping (to_uop's frames, children, allbufs, group_realizes'
   * maps): a scratch arena from to_uop to the end of group_realizes (Sched.a otherwise) */
  Arena *graph;
  /* the temporaries of the pass under way: a scratch arena while prescheduling (Sched.a otherwise) */
  Arena *tmp;
  V100Scratch *scratch_open, *scratch_spare;   /* scratch arenas open, and their spare headers */
  Interner *in;
  Codec codec;
  Status *st;
  const Capture *cap;
  bool failed;             /* st holds why; rules return NULL from then on */
  /* context */
  bool fuse_arange, fuse_conv_bw, no_memory_planner;
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
  /* to_uop */
  const UOp **cache;       /* per LazyBuffer */
  IdCache buffers;         /* BUFFER uop -> Buffer index + 1 */
  size_t nbuffers;         /* BUFFER uops made (the next one's num) */
  int64_t *lazybufs;       /* Buffer index -> LazyBuffer index + 1, 0: none */
  /* ScheduleContext */
  IdCache ubuf_metadata;   /* BUFFER uop -> metadata Value */
  OMap var_vals;           /* DEFINE_VAR uop -> Value (int) */
  OMap assigns;            /* set of BUFFER uops assigned to */
  OMap allbufs;            /* BUFFER uop -> its VIEW(BUFFER, op) node (iterated in order); Sched.graph */
  IdCache allbuf_of;       /* the same, for lookups; Sched.graph */
  IdCache children;        /* BUFFER uop -> OMap* (set of child BUFFER uops); looked up, never iterated; Sched.graph */
  /* caches of UOp properties (functools.cached_property in Python) */
  IdCache st_cache;        /* UOp -> V_ST Value, or &st_none */
  IdCache unsafe_cache;    /* UOp -> 1 + (has an UnsafePad op among sparents) */
  /* merge_views+view_left and merge_views+view_right read nothing but the
   * node, so rewrite(n) is a function of n: one RewriteContext each serves
   * every kernel and every apply_swizzle (ast.c); rc_self is their ctx */
  RewriteContext view_left_rc, view_right_rc;
  Sched *rc_self;
  IdCache reduce_free;     /* BUFFER uop -> 1: no REDUCE_AXIS at or above it, 2: some (group.c); Sched.graph */
  OMap st_add_cache;       /* st a -> OMap* (st b -> a + b) */
  OMap st_simplify_cache;  /* st -> st.simplify() */
  OMap st_unbound;         /* set of sts without Variables (st.unbind() is st, nothing to record) */
  OMap st_full_cache;      /* st -> ShapeTracker.from_shape(st.shape) */
  OMap st_reduce_cache;    /* st -> OMap* (axis tuple -> st10_from_reduced_shape) */
  OMap st_json_cache;      /* ShapeTracker -> its JSON encoding */
  Arena st_scratch;        /* where the ShapeTracker core builds its results (st10.c) */
  /* scratch memory reused by the walks of uops.c */
  Stamps stamps;           /* v100_uop_sparents' stamps */
  UStack st_stack, pad_stack, rf_stack, parents;
  void *to_uop_stack, *rg_stack;   /* to_uop's and recursive_group's frames, reused */
  size_t to_uop_cap, rg_cap;
  void *sparents_stack;
  size_t sparents_cap;
  /* common values */
  const char *last_device; /* the device of the last v100_device_value that made a str */
  const Value *last_device_v;
  const Value *none;
  const DType *void_dt, *bool_dt;
  /* `tsched explain` (explain.c): NULL unless someone listens */
  Explain *ex;
  Explain100 *xp;
} Sched;

/* failing: set st, remember it, return false / NULL */
bool v100_sched_raise(Sched *s, const char *type, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 3, 4)))
#endif
  ;
bool v100_sched_unsupported(Sched *s, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;
bool v100_sched_bad_input(Sched *s, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;
/* Takes over an StError of the ShapeTracker core. */
bool v100_sched_st_error(Sched *s, const StError *e);
/* After sint operations of the scheduler itself (sint.h): false, with s failed, when the capture's
 * symbolic context holds an error (a ValueError of UOp.__bool__, ...). */
bool v100_sym_ok(Sched *s);

/* ---- input.c ---- */
bool v100_decode_input(Sched *s);
/* UOp.variable(name, lo, hi): the DEFINE_VAR of the big graph and of var_vals */
const UOp *v100_define_var(Sched *s, const char *name, size_t len, int64_t lo, int64_t hi);

/* A Buffer's device as an interned str, made once per device (a capture has one or two) */
const Value *v100_device_value(Sched *s, InBuf *b);

/* ---- uops.c: scratch arenas ---- */
/* the size the chunks of Sched.a and of the scratch arenas stop growing at
 * while scheduling: past it they take up the chunks freed arenas gave back */
enum { V100_MAX_CHUNK = 1 << 20 };
/* the bytes of temporaries prescheduling lets its scratch arena grow to before it is emptied */
enum { V100_TMP_BYTES = 16 * 1024 };
/* While prescheduling, Sched.caches is forgotten (between two kernels) once
 * it has grown past V100_CACHES_PER_LB bytes a LazyBuffer of the input
 * (within V100_CACHES_MIN..V100_CACHES_MAX) and served V100_CACHES_KERNELS
 * kernels at least: what the rewrites, UOp.st and the walks remember grows
 * with every node id made (~30-40 bytes an id), most of it of no use to
 * later kernels; a budget in proportion to the input keeps the mid-size
 * captures' caches as small a part of their peak as the big ones'. */
enum { V100_CACHES_PER_LB = 320, V100_CACHES_MIN = 64 * 1024, V100_CACHES_MAX = 2048 * 1024, V100_CACHES_KERNELS = 32 };
/* the bytes of prescheduling's nodes it lets grow before it forgets those
 * no item needs (schedule.c): 48 a LazyBuffer, within 16-32 KiB (a batch
 * costs the shared memos' pages, which grow with the capture) */
enum { V100_NODES_PER_LB = 48, V100_NODES_MIN = 16 * 1024, V100_NODES_MAX = 32 * 1024 };
/* About the bytes an arena handed out (its chunks but the free part of the
 * newest; what an older chunk could not fit counts too) */
static inline size_t v100_arena_used(const Arena *a) { return a->chunk_bytes - (size_t)(a->end - a->cur); }
/* A scratch arena for a pass's temporaries, freed by v100_scratch_end;
 * when it ends, Sched.a goes on in the chunks it gave back. */
Arena *v100_scratch_begin(Sched *s);
void v100_scratch_end(Sched *s, Arena *scratch);
void v100_scratch_end_all(Sched *s);        /* every one still open (a failure unwinds) */
void v100_caches_begin(Sched *s);           /* Sched.caches: a scratch arena */
void v100_caches_drop(Sched *s);            /* forget what it remembered, free it */
void v100_caches_renew(Sched *s);           /* after a kernel: dropped and begun anew when due */
void v100_graph_begin(Sched *s);            /* Sched.graph: a scratch arena */
void v100_graph_end(Sched *s);              /* allbufs, children... forgotten, Sched.graph freed */

/* ---- uops.c: UOp properties and constructors of ops.py ---- */
void v100_marks_begin(Sched *s, Marks *m);
bool v100_marks_set(Sched *s, Marks *m, const UOp *u);   /* true when u was not marked yet */
void v100_ustack_grow(Sched *s, UStack *st);
static inline void v100_ustack_push(Sched *s, UStack *st, const UOp *u) {
  if (st->n == st->cap) v100_ustack_grow(s, st);
  st->items[st->n++] = u;
}
static inline const void *v100_idcache_get(const IdCache *c, const UOp *u) {
  size_t p = u->id >> IDC_PAGE_BITS;
  return p < c->npages && c->pages[p] ? c->pages[p][u->id & (IDC_PAGE - 1)] : NULL;
}
void v100_idcache_grow(Sched *s, IdCache *c, const UOp *u);
/* c's entries of the ids from mark on emptied (their nodes were forgotten, the ids are given again) */
void v100_idcache_forget_since(IdCache *c, uint32_t mark);
static inline void v100_idcache_put(Sched *s, IdCache *c, const UOp *u, const void *v) {
  size_t p = u->id >> IDC_PAGE_BITS;
  if (p >= c->npages || !c->pages[p]) v100_idcache_grow(s, c, u);
  c->pages[p][u->id & (IDC_PAGE - 1)] = v;
}
bool v100_op_in_alu(Op op);        /* GroupOp.ALU */
bool v100_op_in_meta(Op op);       /* GroupOp.Meta */
bool v100_op_in_buffer(Op op);     /* GroupOp.Buffer */
bool v100_op_in_unsafe_pad(Op op); /* GroupOp.UnsafePad */
const UOp *v100_u_base(const UOp *u);                 /* UOp.base */
bool v100_is_scheduled(const UOp *u);                 /* schedule.py is_scheduled */
const UOp *v100_buf_uop(Sched *s, const UOp *u);      /* UOp.buf_uop (asserts) */
bool v100_is_contiguous_base(const UOp *u);           /* UOp.is_contiguous_base */
const Value *v100_uop_st(Sched *s, const UOp *u);     /* UOp.st: V_ST, NULL for None (or on error: s->failed) */
const Value *v100_st_arg(Sched *s, const UOp *u);     /* UOp.st_arg */
const Value *v100_axis_arg(const UOp *u);             /* UOp.axis_arg: tuple of ints */
bool v100_axis_arg_valid(const Value *arg);
const UOp *v100_st_to_uop(Sched *s, const Value *st); /* ShapeTracker.to_uop */
const UOp *v100_uop_view(Sched *s, const UOp *u, const Value *st);  /* UOp.view */
const UOp *v100_uop_const(Sched *s, const DType *dt, const Value *v); /* UOp.const (as_const) */
const Value *v100_as_const(Sched *s, const Value *v, const DType *dt); /* dtypes.as_const */
const UOp *v100_uop_r(Sched *s, const UOp *u, const Value *op, const Value *axis); /* UOp.r */
const UOp *v100_uop_replace_src(Sched *s, const UOp *u, uint32_t n, const UOp *const *src);
bool v100_can_pad(Sched *s, const UOp *u);            /* ops.py can_pad */
/* UOp.sparents in Python's order (parents dict, then self). The list is
 * scratch memory: valid until the next call. */
size_t v100_uop_sparents(Sched *s, const UOp *u, const UOp ***out);
/* The first line of repr(UOp), for exception messages. */
const char *v100_uop_repr_line(Sched *s, const UOp *u);
const char *v100_value_repr(Sched *s, const Value *v);  /* Python str() of an arg */

/* ---- to_uop.c ---- */
const UOp *v100_to_uop(Sched *s, int64_t lb);

/* ---- realize.c ---- */
void v100_do_realize(Sched *s, const UOp *big_graph, OMap *realizes);
void v100_break_sched(Sched *s, const UOp *big_graph, OMap *realizes);

/* ---- group.c ---- */
/* A store group: the BUFFER uops of one kernel, in order. */
typedef struct StoreGroup {
  const UOp **bufs;
  size_t n;
} StoreGroup;
/* Returns the store groups (in s->a). */
size_t v100_group_realizes(Sched *s, OMap *realizes, StoreGroup **groups);

/* ---- ast.c ---- */
typedef struct SiCtx {      /* ScheduleItemContext */
  OMap sts;                 /* set of ShapeTracker values */
  const UOp **bufs;
  size_t nbufs, capbufs;
  const UOp **preloads;     /* assign_preloads */
  size_t npreloads, cappreloads;
} SiCtx;
/* What the sparents of a kernel's small graph `pre` say about the checks of
 * full_ast_rewrite: the rewrites make no ASSIGN and no LOAD (only PRELOADs),
 * so without an ASSIGN in pre there is no augmented assign to check, and
 * without a LOAD of an assigned buffer no PRELOAD/LOAD run can mix. */
typedef struct PreFacts {
  bool has_assign;          /* an ASSIGN among pre.sparents */
  bool loads_assigned;      /* a LOAD of a buffer in ctx.assigns among pre.sparents */
} PreFacts;
const UOp *v100_full_ast_rewrite(Sched *s, const UOp *pre, const PreFacts *facts, SiCtx *sictx);

/* ---- schedule.c ---- */
typedef struct SchedItem {
  const UOp *ast;
  int64_t *bufs;            /* Buffer indices */
  size_t nbufs;
  const Value **metadata;   /* (str, caller) tuples, set order irrelevant */
  size_t nmetadata;
  int64_t *preloads;        /* Buffer indices of assign_preloads */
  size_t npreloads;
} SchedItem;
bool v100_create_schedule_with_vars(Sched *s, SchedItem **items, size_t *nitems);

/* ---- explain.c: what `tsched explain` is told (only while s->ex listens) ---- */
/* After to_uop: s->ex = explain_active(), and the maps to LazyBuffer indices. */
void v100_explain_begin(Sched *s, const int64_t *outs, size_t nouts);
/* Before realize(ctx, b, ...) adds b to realizes, per do_realize rule. */
void v100_explain_meta(Sched *s, const OMap *realizes, const UOp *b, const UOp *to_store);
void v100_explain_view(Sched *s, const OMap *realizes, const UOp *b, const UOp *base, const UOp *view, ExplainReason why);
void v100_explain_copy_src(Sched *s, const OMap *realizes, const UOp *b, const UOp *root);
/* group_realizes' `realizes[tr] = tr` for reduce r (why: what stopped r from fusing) */
void v100_explain_reduce(Sched *s, const OMap *realizes, const UOp *tr, const UOp *r, const char *why);
const char *v100_explain_node(Sched *s, const UOp *b);   /* "node 7 SUM": b's LazyBuffer */
/* With the final realizes: the LazyBuffers each kernel computes. */
void v100_explain_fuses(Sched *s, const OMap *realizes);
int64_t v100_explain_lb_of_buffer(Sched *s, int64_t buf);   /* the LazyBuffer computing a Buffer, -1 */

/* ---- memory.c ---- */
typedef struct MemPlan {
  bool ran;                 /* false: memory_plan null */
  JVal *plan, *plan_buffers;
} MemPlan;
bool v100_memory_planner(Sched *s, const SchedItem *items, size_t nitems, MemPlan *out);
#endif
