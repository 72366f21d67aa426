/* schedule.h — create_schedule_with_vars and memory_planner of tinygrad
 * 0.10.2 (schedule.c, memory.c), and the capture codec around them
 * (decode.c, encode.c). */
#ifndef KG_SCHEDULE_H
#define KG_SCHEDULE_H
#include "passes.h"

typedef struct SchedResult {
  ScheduleItem *items;
  size_t n;
  OMap var_vals;      /* DEFINE_VAR UOp -> Value (its int) */
  OMap becomes_map;   /* input UOp -> UOp */
} SchedResult;

/* schedule.py create_schedule_with_vars(big_sink) */
void v0_10_2_create_schedule_with_vars(KG *k, const UOp *big_sink, SchedResult *res);

/* memory.py memory_planner: plan[i] is the Buf that replaces bufs of
 * item i (same length), or NULL when the planner is off (NO_MEMORY_PLANNER). */
typedef struct MemoryPlan { Buf ***bufs; bool ran; } MemoryPlan;
void v0_10_2_memory_planner(KG *k, const SchedResult *res, const JVal *allocator_offset, MemoryPlan *plan);

/* decode.c: the capture's input (section 4) -> big_sink; fills k's buffers
 * and metadata; *node_index maps input UOps to their first node index. */
/* An entry of input.memory_planner_bufs, [BUFREF, allocated, lb_refcount]:
 * the BUFREF as an input buffer's index or the K of "new:K" (else neither) */
typedef enum { PLANNER_REF_NONE, PLANNER_REF_INPUT, PLANNER_REF_NEW } PlannerRefKind;
typedef struct PlannerBuf {
  PlannerRefKind kind;
  bool allocated;
  int64_t input;        /* PLANNER_REF_INPUT */
  size_t new_k;         /* PLANNER_REF_NEW */
  int64_t lb_refcount;
} PlannerBuf;

typedef struct Input {
  const UOp *big_sink;
  const UOp **nodes;
  size_t nnodes;
  IdMap node_index;    /* UOp -> index + 1 of its first node */
  size_t unique_labels; /* "u:K" labels used by the input */
  bool has_planner_bufs;          /* input.memory_planner_bufs is an array */
  PlannerBuf *planner_bufs;       /* its entries, up to the first malformed one */
  size_t nplanner_bufs, planner_bad; /* planner_bad: 1 + the index of a malformed entry, or 0 */
  const JVal *allocator_offset;
} Input;
void v0_10_2_codec_init(KG *k);   /* the Codec with this module's ShapeTracker codec */
void v0_10_2_decode_input(KG *k, const JVal *input, Input *in);
/* The same from the input's text (raw, J_RAW), the graph's nodes read
 * without their tree (graph_decode_text), the other members as trees in
 * `tree`: false, with nothing decoded but UOps, when the text is not as
 * the recorder writes it (v0_10_2_decode_input on the tree decides). */
bool v0_10_2_decode_input_text(KG *k, const JVal *raw, Arena *tree, Input *in);

/* explain.c: k->ex = explain_active(); with a listener, keep the input's node numbering */
void v0_10_2_explain_begin(KG *k, const Input *input);
/* With a listener: which input nodes became each simplified UOp, and the SINK's sources */
void v0_10_2_explain_tensor_map(KG *k, const OMap *tensor_map, const UOp *sink);

/* encode.c: the `expected` object */
JVal *v0_10_2_encode_result(KG *k, const Input *in, const SchedResult *res);
/* The rewrite steps t as a trace line handed to the replayer's sink (rewrite_trace.h), UNIQUEs and
 * KERNEL args written as the oracle writes them (after v0_10_2_encode_result named the new Buffers) */
void v0_10_2_trace_emit(KG *k, const RewriteTrace *t);
#endif
