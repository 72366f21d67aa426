/* kg.h — the state of one 0.10.2 scheduler run (one capture) and the UOp
 * methods of tinygrad 0.10.2's ops.py that the scheduler calls: `st`,
 * `shape`, `size`, `base`, `device`, `buf_uop`, `buffer`, `const_like`,
 * `view`, the movement ops, `alu`, `r`. Everything lives in one Arena.
 * A Python exception anywhere raises (common/error.h) to the entry point's
 * protected call. */
#ifndef KG_KG_H
#define KG_KG_H
#include <stdbool.h>
#include <stdint.h>
#include "capture.h"
#include "explain.h"
#include "graph.h"
#include "intern.h"
#include "omap.h"
#include "ops.h"
#include "rewrite.h"
#include "rewrite_trace.h"
#include "st.h"
#include "error.h"

/* The files the rule tables' and call sites' PyLocs name (tinygrad checkout paths) */
#define V0_10_2_SCHEDULE_PY "tinygrad/engine/schedule.py"
#define V0_10_2_OPS_PY "tinygrad/ops.py"
#define V0_10_2_SYMBOLIC_PY "tinygrad/codegen/symbolic.py"
#include "heap.h"
#include "uop.h"
#include "version.h"

/* A device Buffer (device.py Buffer): one of the capture's input buffers or
 * one the scheduler created. */
typedef struct Buf Buf;
struct Buf {
  int64_t input_index;      /* index in input.buffers, -1 when created here */
  const char *device;
  int64_t size;
  const DType *dtype;
  Buf *base;                /* NULL for a base buffer */
  int64_t offset;
  const JVal *options;      /* input buffers: their "options" JSON; NULL = None */
  const DType *image;       /* created buffers: BufferSpec(image=...) or NULL */
  bool allocated;           /* memory_planner: is_allocated() when it ran */
  bool plan_noopt;          /* memory_planner: in noopt_buffers */
  uint32_t plan_first;      /* memory_planner: first_appearance + 1 (0: none) */
  int64_t lb_refcount;      /* memory_planner: lb_refcount when it ran */
  bool planner_known;       /* listed in memory_planner_bufs */
  bool plan_encoded;        /* the memory plan's encoder saw it */
  uint32_t plan_last;       /* memory_planner: last_appearance + 1 */
  const char *ref;          /* BUFREF text once encoded ("new:K", "plan:K") */
  int64_t ref_index;        /* input index, or K */
  Buf *plan_to;             /* memory_planner: assigned[buf] (NULL: not there) */
};

/* A cache indexed by UOp.id (dense: creation order in the Interner): the
 * fast stand-in for a functools.cached_property. NULL = not computed. The
 * table is paged (ID_PAGE ids a page, made when the first id in it is put),
 * so a map holds memory for the ids it was given, and growing it copies
 * only the page directory. */
enum { ID_PAGE_BITS = 7, ID_PAGE = 1 << ID_PAGE_BITS };
typedef struct IdMap { void ***pages; size_t npages; } IdMap;

/* A small number by UOp id (0 = not there), paged the same way: 4 bytes an
 * id where an IdMap takes 8 (UOp.st and UOp.device as indexes). */
typedef struct IdIndex { uint32_t **pages; size_t npages; } IdIndex;

/* A set of UOps by id (a dict of UOp -> None that is never iterated), paged the same way. */
typedef struct IdSet { uint8_t **pages; size_t npages, len; } IdSet;

/* A list of UOps (list[UOp]), and an IdMap of them (dict of UOp -> list). */
typedef struct UList { const UOp **items; size_t n, cap; } UList;

/* The frames of an iterative walk over UOps, reused between walks. */
typedef struct WalkFrame { const UOp *u; uint32_t next; } WalkFrame;

typedef struct KG KG;
struct KG {
  Arena *a;
  /* the arena of what is only remembered to go faster (the cached
   * properties, the walks' buffers, mop_memo, the rewrite contexts' tables):
   * a scratch arena, freed before the result is encoded (v0_10_2_caches_drop) */
  Arena *caches;
  Interner *in;
  Codec codec;
  StCtx stc;
  const Capture *cap;
  const TgFeatures *f;  /* the capture's version's features (version.h) */
  OpGroups groups;      /* its ops.py GroupOp (ops.h op_in) */

  /* context flags, as recorded */
  int64_t fuse_arange, fuse_conv_bw, dont_realize_expand, split_reduceop, split_threshold, split_size,
      no_memory_planner;
  int64_t dont_group_reduces, cast_after_expand;   /* a0b4465's (0 where a version has none) */

  /* cached properties of UOps */
  IdIndex st_cache;    /* UOp -> 2 + its ST's index in stc (v0_10_2_st_at), 1: None */
  IdIndex dev_cache;   /* UOp -> 2 + its device's index in devices, 1: None */
  const char **devices; size_t ndevices, devices_cap; /* the device strings seen, in k->a */
  WalkFrame *walk;     /* scratch stack of v0_10_2_uop_st / v0_10_2_uop_device */
  size_t walk_cap;
  /* walk.c: visited stamps by UOp id, and the toposort's stack and result */
  uint32_t *marks, epoch;
  size_t marks_cap;
  WalkFrame *topo_stack;
  size_t topo_stack_cap;
  const UOp **topo;
  size_t topo_cap;
  /* kernel.c: the source lists of append_to_kernel's steps */
  const UOp **append_bufs[2];
  size_t append_caps[2];
  OMap zero_consts;    /* CONST with +0.0 arg -> the node Python's cache holds for 0.0 == -0.0 */

  /* ops.py `buffers` and `all_metadata` */
  OMap buffers;        /* BUFFER UOp -> Buf* */
  Buf **inbufs;
  size_t ninbufs;
  IdMap all_metadata;  /* input UOp -> Metadata Value (str, caller, backward) */
  const Value *kernel_tag;  /* "Kernel", the first item of a KERNEL's arg */
  OMap ptr_dtypes;     /* dtype_ptr memo: (dtype, size) -> [dtype, size, ptr dtype] */
  OMap mop_memo;       /* uops.c: (st, movement op, arg) -> st */
  OMap st_json;        /* decode.c: ShapeTracker -> its JSON */
  OMap sym_values;     /* uops.c v0_10_2_value_sint: symbolic UOp (sint.sym) -> its V_SYM Value */
  OMap sym_sints;      /* uops.c get_sint: V_SYM Value -> sint* */
  uint64_t unique_count;
  const char *last_device;        /* uops.c device_uop: the DEVICE UOp of the last device string asked for */
  const UOp *last_device_uop;

  /* per-pass contexts read by the rule functions */
  void *pass;
  /* the scratch arenas over k->a (arena.h: arena_scratch_begin(&k->scratch)) */
  ScratchArenas scratch;
  /* kernel.c: the pure passes of schedule_uop, one RewriteContext each for
   * the whole schedule (NULL outside it) */
  struct KernelPasses *kpasses;
  /* `tsched explain` (explain.c): NULL unless someone listens */
  Explain *ex;
  struct Explain102 *xp;
};



static inline void *v0_10_2_idmap_get(const IdMap *m, const UOp *u) {
  size_t p = u->id >> ID_PAGE_BITS;
  return p < m->npages && m->pages[p] ? m->pages[p][u->id & (ID_PAGE - 1)] : NULL;
}
void v0_10_2_idmap_put(Arena *a, IdMap *m, const UOp *u, void *val);
static inline uint32_t v0_10_2_idindex_get(const IdIndex *m, const UOp *u) {
  size_t p = u->id >> ID_PAGE_BITS;
  return p < m->npages && m->pages[p] ? m->pages[p][u->id & (ID_PAGE - 1)] : 0;
}
static inline bool v0_10_2_idset_has(const IdSet *s, const UOp *u) {
  size_t p = u->id >> ID_PAGE_BITS;
  return p < s->npages && s->pages[p] && s->pages[p][u->id & (ID_PAGE - 1)];
}
void v0_10_2_idset_add(Arena *a, IdSet *s, const UOp *u);
bool v0_10_2_idset_del(IdSet *s, const UOp *u);   /* false when u was not there */
void v0_10_2_ulist_push(Arena *a, UList *l, const UOp *u);
/* m[key], created empty when missing (defaultdict(list)[key]) */
UList *v0_10_2_ulist_of(Arena *a, IdMap *m, const UOp *key);

/* ---- scratch arenas (uops.c) ---- */
/* The chunk size k->a and the scratch arenas stop growing at: they take up
 * the chunks other arenas gave back before touching new memory. */
enum { KG_MAX_CHUNK = 1 << 20 };
/* A pass's temporaries go in a scratch arena (arena_scratch_begin(&k->scratch),
 * arena_scratch_end; arena.h). Nothing that outlives the pass may point into
 * it: UOps, Values and ShapeTrackers (interned) and k's caches live in k->a.
 * A Python exception unwinding to the entry point frees the ones still open
 * and the walks' buffers (v0_10_2_scratch_end_all). */
void v0_10_2_scratch_end_all(KG *k);
/* k->caches from a scratch arena (kg_init), and freed, the caches emptied,
 * when the schedule is made (no walk, no rewrite context in use) */
void v0_10_2_caches_begin(KG *k);
void v0_10_2_caches_drop(KG *k);

/* ---- walks (walk.c) ---- */
/* A new visited set for v0_10_2_mark, which marks u and says whether it already was. */
void v0_10_2_marks_begin(KG *k);
bool v0_10_2_mark_grow(KG *k, const UOp *u);
static inline bool v0_10_2_mark(KG *k, const UOp *u) {
  if (u->id >= k->marks_cap) return v0_10_2_mark_grow(k, u);
  if (k->marks[u->id] == k->epoch) return true;
  k->marks[u->id] = k->epoch;
  return false;
}
/* UOp.toposort of root. *out is k's buffer, valid until the next toposort
 * (a caller iterating it must not start another one). */
size_t v0_10_2_toposort(KG *k, const UOp *root, const UOp ***out);
/* The toposort up to and including the first node for which stop holds. */
size_t v0_10_2_toposort_until(
    KG *k, const UOp *root, bool (*stop)(KG *, const UOp *, void *), void *ctx, const UOp ***out);
/* any(x.op is op for x in root.toposort) */
bool v0_10_2_contains_op(KG *k, const UOp *root, Op op);

/* ---- values ---- */
const Value *v0_10_2_value_int(KG *k, int64_t i);
const Value *v0_10_2_value_ints(KG *k, uint32_t n, const int64_t *v);      /* tuple of ints */
const Value *v0_10_2_value_sint(KG *k, sint x);                            /* an int, or a symbolic value */
const Value *v0_10_2_value_sints(KG *k, uint32_t n, const sint *v);        /* tuple of sints */
const Value *v0_10_2_value_st(KG *k, const ST *s);
const ST *v0_10_2_value_get_st(const Value *v);                            /* NULL unless V_ST */
/* dtypes.as_const(b, dtype) for a scalar Value b (int, float, bool). */
const Value *v0_10_2_as_const(KG *k, const Value *b, const DType *dt);

/* ---- UOp construction ---- */
const UOp *v0_10_2_uop(KG *k, Op op, const DType *dt, const Value *arg, uint32_t n, const UOp *const *src);
const UOp *v0_10_2_uop1(KG *k, Op op, const DType *dt, const Value *arg, const UOp *a);
const UOp *v0_10_2_uop2(KG *k, Op op, const DType *dt, const Value *arg, const UOp *a, const UOp *b);
const UOp *v0_10_2_uop3(KG *k, Op op, const DType *dt, const Value *arg, const UOp *a, const UOp *b, const UOp *c);
const UOp *v0_10_2_replace_src(KG *k, const UOp *u, uint32_t n, const UOp *const *src);
const UOp *v0_10_2_replace_dtype(KG *k, const UOp *u, const DType *dt);
const UOp *v0_10_2_replace_arg(KG *k, const UOp *u, const Value *arg);
const UOp *v0_10_2_replace_op(KG *k, const UOp *u, Op op);
/* Register decoded CONST nodes with a float zero arg (see zero_consts). */
void v0_10_2_note_const(KG *k, const UOp *u);

/* ---- properties ---- */
const ST *v0_10_2_uop_st(KG *k, const UOp *u);                 /* UOp.st, NULL for None */
const ST *v0_10_2_uop_st_unwrap(KG *k, const UOp *u);          /* unwrap(u.st) */
const sint *v0_10_2_uop_shape(KG *k, const UOp *u, uint32_t *n);
int64_t v0_10_2_uop_size(KG *k, const UOp *u);
const UOp *v0_10_2_uop_base(const KG *k, const UOp *u);
const char *v0_10_2_uop_device(KG *k, const UOp *u);           /* UOp._device, NULL for None */
const UOp *v0_10_2_uop_buf_uop(KG *k, const UOp *u);
Buf *v0_10_2_uop_buffer(KG *k, const UOp *u);                   /* UOp.buffer (creates the Buffer) */
Buf *v0_10_2_uop_buffer_get(KG *k, const UOp *u);               /* buffers.get(u) */
Buf *v0_10_2_buffer_view(KG *k, Buf *src, int64_t size, const DType *dt, int64_t offset);   /* Buffer.view (kernel.c) */
const Value *v0_10_2_uop_metadata(KG *k, const UOp *u);         /* all_metadata.get(u) (input nodes) */
/* dtype.ptr(size), memoised (the core interns pointer dtypes in a list) */
const DType *v0_10_2_dtype_ptr(KG *k, const DType *dt, int64_t size);
/* A KERNEL's arg Kernel(ast, metadata) (kernel.c) */
const Value *v0_10_2_kernel_arg(KG *k, const UOp *ast, const Value *metadata);
const UOp *v0_10_2_kernel_arg_ast(KG *k, const UOp *kernel);
const Value *v0_10_2_kernel_arg_metadata(const UOp *kernel);
/* REDUCE_AXIS arg: the Op and the axis tuple */
Op v0_10_2_reduce_op_of(const KG *k, const UOp *r);
uint32_t v0_10_2_axis_arg(const UOp *r, int64_t *out);

/* ---- methods building UOps ---- */
const UOp *v0_10_2_st_to_uop(KG *k, const ST *s);                  /* ShapeTracker.to_uop */
const UOp *v0_10_2_uop_view(KG *k, const UOp *u, const ST *s);     /* UOp.view */
const UOp *v0_10_2_uop_const(KG *k, const DType *dt, const Value *b);
const UOp *v0_10_2_uop_const_like(KG *k, const UOp *u, const Value *b);
const UOp *v0_10_2_uop_reshape(KG *k, const UOp *u, uint32_t n, const sint *shape);
const UOp *v0_10_2_uop_shrink(KG *k, const UOp *u, const SPair *arg);
const UOp *v0_10_2_uop_alu(KG *k, Op op, uint32_t n, const UOp *const *src);
const UOp *v0_10_2_uop_alu2(KG *k, Op op, const UOp *a, const UOp *b);
const UOp *v0_10_2_uop_binop_const(
    KG *k, Op op, const UOp *a, const Value *b, bool reverse); /* a OP b with b a Python number */
const UOp *v0_10_2_uop_neg(KG *k, const UOp *u);
const UOp *v0_10_2_uop_cast(KG *k, const UOp *u, const DType *dt);
const UOp *v0_10_2_uop_r(KG *k, const UOp *u, Op op, uint32_t naxis, const int64_t *axis);
const UOp *v0_10_2_split_reduce(KG *k, const UOp *u, Op op, uint32_t naxis, const int64_t *axis); /* NULL: not split */
const UOp *v0_10_2_uop_sink(KG *k, uint32_t n, const UOp *const *src);
const UOp *v0_10_2_new_buffer(KG *k, const char *device, int64_t size, const DType *dt);

/* ---- repr ---- */
/* First line of repr(u), as ops.py pretty_print writes it. */
const char *v0_10_2_uop_repr_line(KG *k, const UOp *u);
/* Python repr of a Value (floats as repr(float)). */
const char *v0_10_2_py_repr(KG *k, const Value *v);
#endif
