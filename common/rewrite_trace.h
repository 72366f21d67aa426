/* rewrite_trace.h — the rewrite steps a C scheduler takes, recorded as
 * tinygrad's own tracker records them with TRACK_MATCH_STATS=2 (ops.py
 * TrackedRewriteContext in 0.10.0, TrackedGraphRewrite from 0.10.1): each
 * tracked graph_rewrite call (its caller's PyLoc, the sink it was given,
 * bottom_up) and each rule that fired (the node before, the node after, the
 * rule). As in tinygrad a match belongs to the call started last, also when
 * that call was a nested one that has returned.
 *
 * A scheduler records into in->trace (the Interner it schedules with) when
 * the replayer's ResultSink asks for a trace (scheduler.h), and hands the
 * steps over as one tsched-trace/1 line (docs/capture-format.md "Trace
 * files"), the format the oracle records, so the two compare node by node. */
#ifndef TSCHED_REWRITE_TRACE_H
#define TSCHED_REWRITE_TRACE_H
#include "graph.h"
#include "rewrite.h"

typedef struct RewriteStep { const UOp *before, *after; const Rule *rule; } RewriteStep;
typedef struct RewriteCall {
  const PyLoc *at;    /* NULL: a call site without a location */
  const UOp *sink;
  bool bottom_up;
  size_t first;       /* its steps: first .. the next call's first */
} RewriteCall;

typedef struct RewriteTrace {
  Arena *a;
  TgVersion v;        /* whose line numbers are written */
  RewriteCall *calls;
  size_t ncalls, calls_cap;
  RewriteStep *steps;
  size_t nsteps, steps_cap;
} RewriteTrace;

void rewrite_trace_init(RewriteTrace *t, Arena *a, TgVersion v);
/* ops.py graph_rewrite: tracked_ctxs[-1].append(TrackedGraphRewrite(loc, sink, bottom_up)) */
void rewrite_trace_call(RewriteTrace *t, const PyLoc *at, const UOp *sink, bool bottom_up);
/* TrackedPatternMatcher.rewrite: tracked_ctxs[-1][-1].matches.append((uop, ret, p)) */
void rewrite_trace_step(RewriteTrace *t, const UOp *before, const UOp *after, const Rule *rule);

/* Is a trace asked for (the replayer's sink has a `trace` entry)? */
bool rewrite_trace_wanted(void);
/* What a generation adds to the encoding: more nodes the GRAPH must hold
 * (0.10.2: the KERNELs' ASTs), and a pass over the encoded nodes that
 * rewrites their args as the trace names them (c->enc_order[i] is node i). */
typedef struct TraceEncoding {
  const UOp *const *extra;
  size_t nextra;
  void (*patch)(void *ctx, Codec *c, JVal *nodes);
  void *ctx;
} TraceEncoding;
/* The trace as a tsched-trace/1 object in c->out, for capture `name` of
 * version `generation`; its GRAPH encodes the nodes with c (how: NULL, or
 * what the generation adds). */
JVal *rewrite_trace_json(const RewriteTrace *t, Codec *c, const char *generation, const char *name, const TraceEncoding *how);
/* Hands the trace to the replayer's sink (rewrite_trace_json), when it asked for one. */
void rewrite_trace_emit(const RewriteTrace *t, Codec *c, const char *generation, const char *name, const TraceEncoding *how);
#endif
