/* ingraph.h — a capture's input graph (0.9.1/0.10.0 LazyBuffers, 0.10.2 the
 * tensor UOp GRAPH) tied to the kernels of its schedule: which kernel writes
 * each node's buffer, and in which kernel each node is computed. What can be
 * derived from the input and the output alone; `tsched dot` and `tsched
 * explain` draw on it. */
#ifndef TSCHED_INGRAPH_H
#define TSCHED_INGRAPH_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "capture.h"
#include "explain.h"
#include "json.h"

typedef struct InNode {
  const char *op;        /* as recorded ("BinaryOps.ADD", "Ops.ADD"); "VIEW" for a view LazyBuffer */
  bool is_view;          /* a 0.9.1/0.10.0 view LazyBuffer: src[0] is its base */
  bool is_movement;      /* a view LazyBuffer, or a 0.10.2 RESHAPE/EXPAND/PAD/SHRINK/PERMUTE/FLIP */
  size_t nsrc;
  size_t *src;
  const JVal *arg, *st;  /* st: 0.9.1/0.10.0 only */
  const char *dtype;
  long long buffer;      /* input.buffers index: LazyBuffer "buffer", 0.10.2 node_buffer; -1 */
  bool realized;         /* has data before the call (realized LazyBuffer, 0.10.2 BUFFER with a Buffer) */
  bool forced;           /* forced_realize (0.9.1/0.10.0) */
  bool is_out;           /* passed to the scheduler (outs, or a source of the 0.10.2 SINK) */
  long writer;           /* the kernel that stores this node, -1 */
  long kernel;           /* the kernel this node is computed in (its writer, or the one it is fused into), -1 */
  bool shared;           /* recomputed in another kernel too */
  long also;             /* the first such other kernel, -1 */
} InNode;

typedef struct InGraph {
  TgVersion v;
  size_t n;
  InNode *nodes;
  size_t *srcs;                 /* storage of every node's src */
  size_t *cons, *cons_start;    /* consumers of node i: cons[cons_start[i] .. cons_start[i+1]) */
  size_t nkernels;
} InGraph;

/* Builds the graph of c's input and ties it to `items` (the schedule array,
 * may be NULL) and `result` (for 0.10.2's becomes_map). False with err on a
 * malformed input. */
bool ingraph_build(InGraph *g, const Capture *c, const JVal *result, const JVal *items, char *err, size_t errlen);
void ingraph_free(InGraph *g);
/* Replaces the derived writers of the reported kernels by the reported nodes
 * (see explain_kernel) and recomputes which kernel computes each node. */
void ingraph_set_writers(InGraph *g, const ExplainKernel *kernels, size_t n);

/* prod(shape) of a recorded ShapeTracker's last view; -1 if symbolic/unknown. */
long long json_st_size(const JVal *st);
/* "(4, 5)" of a recorded ShapeTracker's last view into buf. */
const char *json_st_shape_text(const JVal *st, char *buf, size_t n);
#endif
