/* trace.h — recorded rewrite steps (`tsched-trace/1`, docs/capture-format.md
 * "Trace files"): per capture, every graph_rewrite call tinygrad made inside
 * create_schedule_with_vars (its caller's file:line) and every rule that
 * fired in it (the UPat's file:line and Python text, the node before and the
 * node after, indices into the trace's GRAPH). Read by `tsched trace`. */
#ifndef TSCHED_TRACE_H
#define TSCHED_TRACE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arena.h"
#include "capture.h"
#include "json.h"
#include "scheduler.h"

typedef struct TraceRule {
  const char *file;   /* in the tinygrad checkout: "tinygrad/engine/schedule.py" */
  long line;
  const char *text;   /* the source line, stripped (UPat.printable()) */
} TraceRule;

typedef struct TraceStep { size_t before, after, rule; } TraceStep;

typedef struct TraceRewrite {
  const char *file;   /* the graph_rewrite call's caller */
  long line;
  const char *name;   /* graph_rewrite(name=...) or NULL */
  bool bottom_up;
  size_t sink;
  TraceStep *steps;
  size_t nsteps;
} TraceRewrite;

typedef struct TraceNode {
  const char *op;      /* "Ops.ADD" */
  const char *dtype;
  const JVal *arg;
  size_t *src, nsrc;
} TraceNode;

typedef struct Trace {
  const char *name, *generation;
  const char *file;    /* the trace file, for messages */
  size_t line;
  TraceNode *nodes;
  size_t nnodes;
  TraceRule *rules;
  size_t nrules;
  TraceRewrite *rewrites;
  size_t nrewrites;
} Trace;

/* Checks and reads one trace line (its JSON tree `root`) into t, allocated
 * in a; false with a message naming the place on a malformed one. */
bool trace_read(Arena *a, const JVal *root, Trace *t, char *err, size_t errlen);

/* Every trace of a file, in file order. */
typedef struct TraceFile {
  Arena arena;
  Trace *traces;
  size_t n;
} TraceFile;
/* Reads a .trace.jsonl(.gz) file; false with err (file and line named). */
bool trace_file_load(TraceFile *f, const char *path, char *err, size_t errlen);
void trace_file_free(TraceFile *f);
/* The trace of capture `name`, or NULL. */
const Trace *trace_find(const TraceFile *f, const char *name);

/* The companion trace file of a corpus file: DIR/x.jsonl.gz ->
 * DIR/../traces/BASENAME(DIR)/x.trace.jsonl.gz (conformance/corpus ->
 * conformance/traces/corpus); a path that already names a trace file is
 * itself. Written into buf. */
const char *trace_companion(const char *capture_path, char *buf, size_t n);
/* Does the path name a trace file (".trace.jsonl" in its name)? */
bool trace_is_trace_path(const char *path);

/* A structural key per node (malloc'd, t->nnodes entries): nodes equal as
 * subgraphs get equal keys, in one trace and across traces. */
uint64_t *trace_node_keys(const Trace *t);
/* The key of one node [op, dtype, arg, srcs] from its sources' keys. */
uint64_t trace_node_key(const char *op, const char *dtype, const JVal *arg, const uint64_t *srckeys, size_t nsrc);

/* The same steps? Compares the C scheduler's trace `got` with the recorded
 * `want` call by call and step by step: each call's location, bottom_up
 * and sink, each step's rule location and its nodes before and after
 * (structurally). With cut_short (tinygrad stopped with RecursionError,
 * which a replayer need not reproduce) `got` may go on where `want` ends.
 * False with the first difference in why. */
bool trace_same(const Trace *want, const Trace *got, bool cut_short, char *why, size_t whylen);

/* Runs the capture's C scheduler with its rewrite steps traced and reads
 * them into t (allocated in a). False with err when the scheduler does not
 * trace (its generation records no steps) or could not run the capture. */
bool trace_compute(const Capture *c, Arena *a, Trace *t, char *err, size_t errlen);

/* The steps tinygrad's tracker records, from the C scheduler's ResultSink
 * (scheduler.h `trace`): its entry read into *t in the sink's arena. */
struct TraceCatch {
  Arena *a;
  Trace *t;
  bool caught;
  char err[256];
};
typedef struct TraceCatch TraceCatch;
void trace_catch(ResultSink *s, size_t k, const JVal *entry, Arena *scratch);

/* A node in a few words: "VIEW float (4, 10)", "CONST float -1.0". */
void trace_describe(const char *op, const char *dtype, const JVal *arg, char *buf, size_t n);
/* The same with the node's number first: "12 VIEW float (4, 10)". */
void trace_node_text(const Trace *t, size_t i, char *buf, size_t n);
/* "schedule.py:77": the last path component and the line. */
const char *trace_loc_text(const char *file, long line, char *buf, size_t n);
#endif
