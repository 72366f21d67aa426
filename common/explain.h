/* explain.h — a generation tells *why* it scheduled as it did: why each
 * buffer was realized and which input nodes were fused into which kernel,
 * in one vocabulary for 0.9.1, 0.10.0 and 0.10.2. `tsched explain` reads it.
 *
 * How a generation reports (see docs/explain.md):
 *   Explain *ex = explain_active();            // NULL unless someone listens
 *   explain_realize(ex, node, WHY_EXPAND, "expanded from (4, 1) to (4, 5)");
 *   explain_fuse(ex, node, output_node);
 *   explain_kernel(ex, kernel_index, output_node);     // optional
 * Every call is a no-op when ex is NULL, so a generation calls them
 * unconditionally and pays nothing during `tsched replay`.
 *
 * `node` is always an index into the capture's input: `input.lazybuffers`
 * (0.9.1, 0.10.0) or `input.graph.nodes` (0.10.2). `output_node` is the
 * node (same numbering) whose buffer the kernel stores: the kernel is named by
 * what it writes, because realize decisions come before kernels are numbered. */
#ifndef TSCHED_EXPLAIN_H
#define TSCHED_EXPLAIN_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
  WHY_NONE = 0,
  WHY_OUTPUT,           /* passed to the scheduler: in `outs` / a SINK source */
  WHY_FORCED,           /* forced_realize, CONTIGUOUS: the user asked for a buffer */
  WHY_META_OP,          /* COPY, EMPTY, CUSTOM, BUFFER_VIEW, VIEW: always a kernel of its own */
  WHY_ASSIGN,           /* an ASSIGN (writes into an existing buffer) */
  WHY_COPY_SOURCE,      /* the source of a COPY / BUFFER_VIEW / VIEW must be a buffer */
  WHY_EXPAND,           /* read through a view that expands it: realized before the expand */
  WHY_UNSAFE_PAD,       /* read through a pad, and padding it is unsafe (an op not 0 at 0) */
  WHY_REDUCE,           /* a reduce that could not fuse into its consumers (detail: why) */
  WHY_REDUCE_CHILD,     /* the contiguous consumer a forced reduce was chased down to */
  WHY_MULTI_OUTPUT,     /* grouped with a reduce as one more output of its kernel */
  WHY_OTHER,            /* anything else: the detail says what */
  WHY_COUNT
} ExplainReason;

/* Short name ("expand") and one-line text ("read through an expanding view"). */
const char *explain_reason_name(ExplainReason r);
const char *explain_reason_text(ExplainReason r);

typedef struct ExplainRealize {
  uint32_t node;
  ExplainReason reason;
  char *detail;          /* may be NULL */
} ExplainRealize;

typedef struct ExplainFuse { uint32_t node, into; } ExplainFuse;
typedef struct ExplainKernel { uint32_t kernel, node; } ExplainKernel;

typedef struct Explain {
  ExplainRealize *realizes; size_t nrealizes, realizes_cap;
  ExplainFuse *fuses; size_t nfuses, fuses_cap;
  ExplainKernel *kernels; size_t nkernels, kernels_cap;
} Explain;

void explain_init(Explain *ex);
void explain_free(Explain *ex);

/* Generation side. */
Explain *explain_active(void);
void explain_realize(Explain *ex, uint32_t node, ExplainReason reason, const char *detail);
void explain_fuse(Explain *ex, uint32_t node, uint32_t output_node);
/* Schedule item `kernel` (its index in the returned schedule) stores input
 * node `node`. Optional: without it the tools find the node by the buffer it
 * writes, which fails for 0.10.2 intermediates no tensor maps to. */
void explain_kernel(Explain *ex, uint32_t kernel, uint32_t node);

/* Listener side: make ex the active recorder around one scheduler call
 * (explain_begin(ex); fn(c, a, &result, &st); explain_end();). */
void explain_begin(Explain *ex);
void explain_end(void);
#endif
