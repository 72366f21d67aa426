/* version.h — the tinygrad versions tsched models, as rows of one table.
 *
 * A version is a row of tg_versions[] (version.c): its name (the capture's
 * `generation` string), the tinygrad commit it stands for, its generation
 * (which scheduler folder replays it) and its features. A feature is one
 * named field per behaviour that differs between versions, declared below
 * with a one-line citation of the Python that differs. Code asks for a
 * feature — tg_features(v)->view_reshape_resolves — and never compares
 * version numbers: only version.c knows which version has what, so adding a
 * version is adding a row (Lua's LUA_COMPAT_* switches are the model, at run
 * time). */
#ifndef TSCHED_VERSION_H
#define TSCHED_VERSION_H
#include <stdbool.h>

/* In commit order. The order means nothing to code: ask for a feature. */
typedef enum {
  TG_0_9_1,          /* tag v0.9.1 */
  TG_0_9_2,          /* tag v0.9.2 */
  TG_0_9_2_197F8FD,  /* 197f8fd986, 2024-09-26, "early uop globals with Buffer" */
  TG_0_10_0,         /* tag v0.10.0 */
  TG_0_10_0_2CA41D6, /* 2ca41d6a44, 2024-11-25, "ops metadata map try 2, early fuse" */
  TG_0_10_1,         /* tag v0.10.1 */
  TG_0_10_2,         /* tag v0.10.2 */
  TG_0_10_2_A0B4465, /* a0b4465412, 2025-04-01, "bring GroupOp.Meta back" */
  TG_NVERSIONS
} TgVersion;

/* The scheduler designs, one folder each (docs/generations.md). */
typedef enum {
  GEN_NONE,          /* a version tsched names but has no scheduler for yet */
  GEN_LAZYOP,        /* v0_9_lazyop/: LazyBuffer graph, LazyOp or early UOp ASTs */
  GEN_LAZYBUF_UOP,   /* v0_10_lazybuf_uop/: LazyBuffer -> UOp big graph with PRELOAD */
  GEN_KERNEL_GRAPH,  /* v0_10_2_kernel_graph/: tensor UOp graph -> KERNEL/ASSIGN */
} TgGeneration;

/* Symbolic values (sint's symbolic half, common/sint.h). */
typedef enum {
  SYM_NODE,          /* shape/symbolic.py Node classes (0.9.x) */
  SYM_UOP,           /* UOp expressions, ops.py / uop/ (0.10.x) */
} TgSymbolic;

/* repr(PtrDType) (dtype.py) */
typedef enum {
  PTR_REPR_SIZED,        /* f"{base}.ptr({size}, local=True)" (0.10.1 on) */
  PTR_REPR_DOT,          /* f"ptr.{base}" (0.9.1) */
  PTR_REPR_METHOD,       /* f"{base}.ptr(local=True)" (0.10.0) */
  PTR_REPR_CLASS,        /* f"PtrDType({base})", f"PtrDType({base}, local=True)" (0.9.2+197f8fd) */
} TgPtrRepr;

/* which spelling and numbering of the ops (ops.py / ops.h tables in common/ops.c) */
typedef enum {
  OPS_UOPS_0102,         /* class Ops of 0.10.2 */
  OPS_LAZYOP_CLASSES,    /* UnaryOps / BinaryOps / ... / LoadOps of 0.9.1, numbered per class */
  OPS_UOPS_0100,         /* class Ops of 0.10.0 */
  OPS_LAZYOP_CLASSES_092, /* the op classes of 0.9.2 (ops.py) */
  OPS_UOPS_0102_A0B4465, /* class Ops of a0b4465 (REDUCE, PTRCAT, CUSTOMI, IGNORE; MUL first of the binary ops) */
  OPS_UOPS_197F8FD,      /* 197f8fd: the LazyBuffer op classes (ReduceOps.PROD, BinaryOps.SUB) and class UOps */
} TgOpsTable;

/* which GroupOp sets (ops.py class GroupOp; 0.9.x: UNSAFE_PAD_OPS), common/ops.c op_groups_init */
typedef enum {
  GROUP_OPS_0_9,         /* ops.py UNSAFE_PAD_OPS = {RECIP, LOG2, EXP2, IDIV}, no GroupOp */
  GROUP_OPS_0_10_0,      /* GroupOp: Meta {COPY, EMPTY, BUFFER_VIEW}, Buffer {LOAD, PRELOAD, STORE, VALID} */
  GROUP_OPS_0_10_1,      /* + Movement, Buffer + {CONST, DEFINE_VAR}, no Meta */
  GROUP_OPS_0_10_2,      /* Binary and UnsafePad + POW, Buffer - PRELOAD */
  GROUP_OPS_0_10_2_A0B4465, /* + Meta {COPY, BUFFER_VIEW} */
} TgGroupOps;

/* How common/compare.c compares one field of a result (TgField). */
typedef enum {
  CMP_EQUAL,        /* equal JSON values (both absent is equal) */
  CMP_SORTED,       /* equal as sorted lists: the Python built the tuple from a set */
  CMP_GRAPH,        /* a GRAPH, structurally (node numbering free) */
  CMP_BECOMES_MAP,  /* [node, GRAPH] entries, in order, each GRAPH structurally */
  CMP_LIST,         /* a list compared entry by entry (entries the reader left as text parsed) */
  CMP_IF_RECORDED,  /* equal JSON values where the capture records one (not absent, not null) */
  CMP_IF_REPORTED,  /* equal JSON values where the replayer reports one */
} TgCompare;

/* One field a version's result (or each of its schedule items) holds. A
 * list of them ends with {NULL}; compare.c walks it in order, so the first
 * field that differs is the one reported. */
typedef struct TgField {
  const char *key;
  TgCompare how;
} TgField;

/* One field per behaviour that differs, grouped by the code that asks.
 * Each cites the Python whose difference it names. common/'s View and
 * symbolic features are read for the version a generation hands to common/
 * (its View code: 0.9.1, 0.10.0 or 0.10.2); the other rows of a generation
 * carry the same values. */
typedef struct TgFeatures {
  /* ---- common/ ---- */
  TgSymbolic symbolic;   /* shape/symbolic.py Node (0.9.x) vs UOp arithmetic (ops.py) */
  /* what a result holds, field by field (common/compare.c walks these; version.c declares them) */
  const TgField *result_fields; /* schedule.py create_schedule_with_vars' return value, the memory plan, the mutations */
  const TgField *item_fields;   /* schedule.py class ScheduleItem */
  /* common/dtype.c, common/ops.c, common/graph.c */
  TgPtrRepr ptr_repr;          /* dtype.py PtrDType.__repr__ */
  bool vec_repr_underscore;    /* dtype.py DType.__repr__: dtypes._float4, vs dtypes.float.vec(4) */
  TgOpsTable ops_table;        /* ops.py class Ops (0.10.x) / ops.py UnaryOps ... LoadOps (0.9.x) */
  bool ops_values_global;      /* ops.py FastEnum (197f8fd): auto() numbers on across all the op classes, vs from 1 in each */
  TgGroupOps group_ops;        /* ops.py class GroupOp (0.10.x) / UNSAFE_PAD_OPS (0.9.x) */
  /* common/sint.c, common/symbolic_uop.c: UOp index expressions */
  bool range_arg_axis_flag;    /* ops.py UOp.range: arg=(idx, False), vs arg=idx */
  bool min_max_sign_bounds;    /* ops.py UOp._min_max: MOD of a negative dividend, IDIV by any divisor get sign-only bounds */
  bool idiv_by_zero_is_zero;   /* ops.py python_alu[IDIV]: x//0 is 0, vs x*math.inf (const_like raises) */
  bool uop_toposort;           /* ops.py UOp.toposort (post-order, self included), vs UOp.sparents / parents */
  bool substitute_bottom_up;   /* ops.py UOp.substitute: graph_rewrite(..., bottom_up=True), vs top-down */
  bool cmp_upat_bool;          /* ops.py UPat.alu: a comparison matches dtypes.bool, vs any dtype */
  bool false_via_const_like;   /* symbolic x<x: x.const_like(False).cast(dtypes.bool), vs UOp.const(dtypes.bool, False) */
  bool lt_folding_typeerror;   /* lt_folding: `None < int` TypeError, vs `None.lt` AttributeError */
  bool symbolic_in_codegen;    /* codegen/symbolic.py symbolic_simple + symbolic, vs ops.py's */
  bool parse_valid_int_only;   /* parse_valid: `X < c` only for an int X */
  bool flip_any_dtype;         /* ops.py symbolic "COMMUTATIVE flipping": UPat(GroupOp.Commutative) of any dtype (0.10.1), vs codegen/symbolic.py's ints only */
  bool mod_folding_bounds;     /* ops.py mod_folding: terms as (factor%c, e), the mod dropped when their bounds stay in [0, c) (0.10.0+2ca41d6) */
  bool given_valid_fills_bounds; /* codegen/symbolic.py uop_given_valid: missing bounds from vmin/vmax, v0 == v1 substitutes the const (0.10.2+a0b4465) */
  bool min_max_and_cast;       /* ops.py _min_max: AND with a non-negative const, CAST clipped to its dtype (0.10.2+a0b4465) */
  bool const_last_any_order;   /* codegen/symbolic.py "move add/mul consts to end": (UPat.var("x")+UPat.cvar("c1"))+y, c1 either side, vs UPat(Ops.ADD, src=(x, c1)) */
  /* common/view.c, common/shapetracker.c: View, ShapeTracker */
  bool view_compares_resolve;  /* shape/view.py: symbolic values compared through resolve() / all_int guards, vs Node comparisons */
  bool view_checks_resolve;    /* View.reshape / __add__: resolve(x >= 0), resolve(b >= e, False), vs plain comparisons */
  bool view_create_checks_resolve; /* View.create: all(resolve(s >= 0) ...) (0.10.0, 0.10.1: "this resolve shouldn't be needed"), vs all(s >= 0 ...) */
  bool view_create_rejects_negative; /* View.create: ValueError on a negative dimension */
  bool view_create_ssimplify;  /* View.create: offset and shape ssimplify()'d ("simplify as we go") */
  bool merge_dims_real_through_zero; /* merge_dims: the real size keeps counting through zero strides, vs _merge_dims resets it */
  bool reshape_mask_empty_all; /* _reshape_mask: any empty mask dimension makes the whole mask empty (up front) */
  bool reshape_mask_invalid_met; /* _reshape_mask: an empty mask dimension met in the loop returns all-invalid */
  bool reshape_mask_rewritten; /* _reshape_mask: `==` then `>`, old_dim % next_stride first, empty ranges combine, no leading-1s check */
  bool reshape_mask_none_full; /* View.reshape: _reshape_mask(None) is ((0, s), ...), vs no mask */
  bool reshape_strides_by_mask;  /* View.reshape: strides canonicalized by the new mask's extents */
  bool reshape_negative_value_error; /* View.reshape: ValueError on a negative dimension, vs AssertionError */
  bool reshape_size_check_first; /* View.reshape: the size check before the 0-in-shape case */
  bool reshape_size_of_bound_vals; /* View.reshape: only an all-int shape is checked, against Variables' bound values */
  bool reshape_loop_rewritten; /* View.reshape: r_strides.append(new_stride * acc) over merge_dims, vs strides.append(new_stride) */
  bool reshape_loop_resolve;   /* View.reshape's stride loop: resolve() around each comparison, vs Node comparisons */
  bool stride_by_ceildiv;      /* View.stride: helpers.ceildiv(s, abs(m)) = -(s // -abs(m)), vs (s + (abs(m)-1)) // abs(m) */
  bool resize_smax_smin;       /* View.__unsafe_resize: smax/smin on the mask, vs max/min */
  bool resize_drops_full_mask; /* View.__unsafe_resize: a mask equal to (0, y-x) everywhere is dropped, the shape ssimplify()'d */
  bool resize_numnode_to_int;  /* View.__unsafe_resize: `s.b if isinstance(s, NumNode) else s` */
  bool pad_message_shape_arg;  /* View.pad: assert message "self.shape=..., arg=...", vs "invalid pad ..." */
  bool expand_check_first;     /* View.expand: one shape check, before the 0-size case */
  bool expand_needs_stride0;   /* View.expand: a size-1 dimension also needs stride 0 */
  bool view_has_stride;        /* View.stride exists, and invert strides by -1 */
  bool view_has_flip;          /* View.flip exists, and invert flips */
  bool add_unravel;            /* View.__add__: unravel(vm2.shape, offset), vs un1d */
  bool add_mask_ints_only;     /* View.__add__: projecting vm2's mask needs all_int([o, b, e]) and int s1, newe[d1] */
  bool add_empty_mask_invalid; /* View.__add__: an empty vm1 mask gives an all-invalid view */
  bool add_shrink_unchanged_none; /* View.__add__: None when vm1.shrink(vm1.mask) changed nothing */
  bool add_vm1_symbolic_none_first; /* View.__add__: `if not all_int(vm1.shape): return None` before the terms */
  bool add_vm1_symbolic_none;  /* View.__add__: the same check after the terms */
  bool add_merge_in_context;   /* View.__add__ / real_strides: in the capture's symbolic context always, vs only when symbolic */
  bool add_retries_always;     /* View.__add__: reshaped vm2 + vm1 retried even when the reshape changed nothing */
  /* ---- v0_9_lazyop/ ---- */
  bool simple_pads_dict;          /* schedule.py _recurse_lb: simple_pads a dict (image-to-image casts join it), children of unrealized bases, assign_targets, double_reduces, vs an id()-ordered set */
  bool isolated_children;         /* schedule.py _get_isolated_children and `forced_realize or not group`, vs the rc_parents / rc_children loops of _graph_schedule */
  bool fuse_arange_conv_bw;       /* schedule.py _graph_schedule: FUSE_ARANGE's reduce_of_const and FUSE_CONV_BW's double_reduces */
  bool lower_lazybuffer;          /* schedule.py _lower_lazybuffer: LazyOp(MetaOps.KERNEL, stores) / MetaOps.EXT, metadata, one cache, vs _schedule_group's STOREs */
  bool recurse_reduceops;         /* schedule.py _recurse_reduceops: reduce_info pushes views through reduces and pads them, vs "ReduceOps late fusion must be contiguous" */
  bool queue_in_degree_order;     /* schedule.py create_schedule_with_vars: the first queue in in_degree's key order, vs prescheduled's */
  bool interval_memory_planner;   /* realize.py _internal_memory_planner(noopt_buffers): free segments per key, vs the LRU local_cache */
  bool lower_to_uops;             /* schedule.py (197f8fd) _recursive_uop: a UOps.SINK of STOREs (DEFINE_GLOBAL, SHAPETRACKER, VALID/WHERE consts, SWIZZLE), UOps.EXT, vs LazyOps */
  bool reduceop_fusor;            /* schedule.py (197f8fd) full_ast_rewrite: reduceop_fusor (swizzles through reduces, merge_double_reduce) and enumerate_bufs under AST_REWRITE */
  bool buf_max;                   /* schedule.py (197f8fd) create_schedule_with_vars: RuntimeError when len(si.bufs) >= the renderer's buf_max (context BUF_MAX:<device>) */
  /* ---- v0_10_lazybuf_uop/ ---- */
  bool uop_base_keeps_buffer_view;   /* ops.py UOp.base: a VIEW of a BUFFER is its own base, vs src[0] of any 1-src VIEW */
  bool buf_uop_of_buffer;            /* ops.py UOp.buf_uop: a BUFFER is its own buf_uop, vs an AssertionError */
  bool uop_view_contiguous_to_base;  /* ops.py UOp.view: base when st is contiguous and base.st == st, else a VIEW, vs self when self.st == st */
  bool can_pad_stops_at_realizes;    /* ops.py can_pad(u, edges, visited): stops at realized buffers, vs not any UnsafePad in u.sparents */
  bool outs_base_realized;           /* schedule.py create_schedule_with_vars: outs filtered by x.base.realized, vs x.realized */
  bool outs_realized_by_sink;        /* schedule.py do_realize: a SINK rule realizes the outputs, vs forced_realize set on each out */
  bool realize_records_op;           /* schedule.py realize / break_sched append_kernel: realizes[b] = to_store, break_sched stores and loads, vs realize's STORE + LOAD */
  bool consts_in_break_sched;        /* schedule.py to_uop / generate_valid: a CONST gets a BUFFER, const_with_shape in break_sched, vs VALID.where in to_uop */
  bool to_uop_keeps_cast_arg;        /* schedule.py to_uop: UOp(buf.op, ..., buf.arg), vs None for CAST and BITCAST */
  bool fold_img_cast;                /* schedule.py do_realize: fold_img_cast after realize_view, vs the image-cast lambda before it */
  bool fuse_arange_of_const;         /* schedule.py group_realizes: FUSE_ARANGE when uval(r.src[0].base) is a CONST, vs .base is a WHERE */
  bool swizzle_r_axis_after_shape;   /* schedule.py swizzle_r: new_axis = range(len(st.shape), +len(axis)), vs from permute_reduce(new_input_st) */
  bool metadata_of_ops;              /* schedule.py full_ast_rewrite: outputs' metadata + ops_metadata of ops lazy keeps, vs ubuf_metadata of sparents */
  bool assign_adj;                   /* schedule.py full_ast_rewrite: assign_adj (append_load, check_preload, frozenset assign_preloads), vs the sparents run check and a tuple */
  bool buf_limit_in_full_ast_rewrite;  /* schedule.py full_ast_rewrite: BUF_LIMIT of si_ctx.bufs[0]'s device, vs the BFS's check of si.outputs[0] */
  bool srcs_deleted_when_prescheduled; /* schedule.py create_schedule_with_vars: del lazybufs[u].srcs after full_ast_rewrite, vs in the BFS */
  /* ---- v0_10_2_kernel_graph/ ---- */
  /* (0.10.1's, false in 0.10.2 and later) */
  bool buffer_arg_num_size;       /* ops.py UOp.new_buffer: BUFFER(DEVICE) arg (num, size), not BUFFER(DEVICE, UNIQUE) arg size */
  bool preload_scheduler;         /* schedule.py create_schedule_with_vars: add_buffers, break_sched with PRELOAD, a BFS over ScheduleItems (not create_kernels) */
  bool sym_folds_reduce_of_const; /* schedule.py sym: simplify_reduceop (a reduce of a CONST), not simplify_stride0_reduce */
  bool sym_drops_realized_sink_srcs; /* schedule.py sym: "remove CONST/BIND/BUFFER from SINK" */
  bool sym_image_cast_under_view; /* schedule.py sym: VIEW(CAST(VIEW(CONTIGUOUS))) folds, not CAST(VIEW(CONTIGUOUS)) */
  bool images_fixed_in_add_buffers; /* schedule.py add_buffers makes can't-be-images not images (no such rule in sym) */
  bool disk_views_in_do_realize;  /* schedule.py do_realize create_subbuffer (no BUFFER_VIEW on DISK rule in sym) */
  bool symbolic_no_bitcast_or_pow;    /* ops.py symbolic_simple: CAST folds only (no BITCAST noop, fold_bitcast or pow rules) */
  bool buf_uop_through_view;      /* ops.py UOp.buf_uop: a VIEW base is allowed (VIEW(BUFFER, op) of add_buffers) */
  bool merge_views_needs_st;      /* ops.py merge_views: a contiguous VIEW goes only when `x.st is not None` (not: x is no DEVICE) */
  /* (0.10.2+a0b4465's, false before it) */
  bool tensor_map_reorder_view;   /* schedule.py create_schedule_with_vars: merge_views+sym+reorder_view+replace_contiguous, not remove_movement_ops+sym */
  bool merge_views_movement;      /* ops.py merge_views: movement ops -> x.view(mop.st), masked-to-0 VIEW -> CONST, VIEW on LOAD/STORE/VALID merges */
  bool view_left_unsafe_pad;      /* ops.py view_left: masked VIEW of an unsafe pad op -> contiguous().view, no VIEW(CONST) -> VALID or buffer rule */
  bool sym_split_reduceop;        /* schedule.py sym split_reduceop (ops.py UOp.r splits no more) */
  bool sym_sink_keeps_bases;      /* schedule.py sym: SINK srcs -> dedup(s.base for s not CONST/BIND) */
  bool sym_disk_buffer_view_arg;  /* schedule.py sym: BUFFER_VIEW(x.base) arg (size, offset), reshaped, not replace(op=BUFFER_VIEW) */
  bool dont_push_views;           /* schedule.py do_realize: DONT_PUSH_VIEWS, GroupOp.Meta, unsafe pads realized first in realize_before_view */
  bool create_kernels_assign_reshape; /* schedule.py create_kernel: ASSIGN(BUFFER|BUFFER_VIEW, KERNEL(x.sink())).reshape(x.shape) */
  bool fix_kernel_ast;            /* schedule.py fix_kernel_ast + add_buffer_ops (kernel_ast.c), not schedule_uop */
  bool ops_metadata_of_tensors;   /* schedule.py ops_metadata: v -> k.metadata for every non-CONST/DEVICE tensor; becomes_map via kernel_map */
  bool uop_cast_always;           /* ops.py UOp.cast/bitcast: always a CAST, not self when the dtype is the same */
  bool kernel_st_of_size;         /* ops.py UOp.st: KERNEL from_shape((ast.size,)), BUFFER_VIEW from_shape((size,)), size arg[0] */
  bool unique_label_at_call;      /* capture-format 7: a UNIQUE "u:K" at call time keeps it in becomes_map (Tensor.empty inputs); .buffer is asked in the call */
  bool planner_tlsf;              /* engine/memory.py _internal_memory_planner: TLSFAllocator suballocation where allocator._offset */
  /* ---- conformance/tools/ ---- */
  bool ast_is_lazyop;              /* ops.py: si.ast is a LazyOp (LazyOp.__repr__) vs a UOp (UOp.__repr__, pretty_print) */
  bool lazyop_pretty_print;        /* ops.py LazyOp.__repr__: pretty_print(self, 'LazyOp({x.op}, arg={x.arg}, src=(%s))') of one root, vs the dataclass repr of a tuple */
  bool uop_argstr_str;             /* ops.py UOp.argstr: self.arg, printed with str(), vs repr(self.arg) */
  bool schedule_input_tensor_uops; /* engine/schedule.py create_schedule_with_vars(big_sink: UOp) vs (outs: LazyBuffers) */
} TgFeatures;

typedef struct TgVersionInfo {
  const char *name;        /* the capture's `generation`: "0.10.2+a0b4465" */
  const char *commit;      /* the tinygrad tag or commit */
  TgGeneration generation; /* GEN_NONE until tsched has its scheduler */
  TgFeatures f;
} TgVersionInfo;

extern const TgVersionInfo tg_versions[TG_NVERSIONS];

/* "0.9.1" -> TG_0_9_1 ...; returns -1 for a name that is no version here. */
int tg_version_parse(const char *s);
const char *tg_version_name(TgVersion v);
static inline const TgFeatures *tg_features(TgVersion v) { return &tg_versions[v].f; }
static inline TgGeneration tg_generation(TgVersion v) { return tg_versions[v].generation; }
/* Does the scheduler of v call graph_rewrite, so that tinygrad's tracker (TRACK_MATCH_STATS=2) records its steps?
 * Every UOp generation; of the LazyBuffer generation, the versions with full_ast_rewrite (197f8fd). */
static inline bool tg_has_rewrite_tracker(TgVersion v) {
  return tg_generation(v) != GEN_LAZYOP || tg_features(v)->reduceop_fusor;
}
#endif
