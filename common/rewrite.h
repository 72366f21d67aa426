/* rewrite.h — PatternMatcher and graph_rewrite (tinygrad/ops.py, 0.10.0 and
 * 0.10.2), iterative so that deep graphs cannot overflow the C stack.
 *
 * A PatternMatcher is an ordered list of rules. Each rule names the ops it
 * applies to (its UPat's op set; none means any op) and a C function that
 * does the matching by hand and returns the replacement, or NULL for "no
 * match / callback returned None". pm_rewrite tries the rules for u->op in
 * list order and returns the first non-NULL result, exactly as
 * PatternMatcher.rewrite does. A rule whose UPat can match several ways
 * (commutative sources) tries them in UPat's order inside its function.
 * Write the UPat it mirrors in a comment above each rule function. */
#ifndef TSCHED_REWRITE_H
#define TSCHED_REWRITE_H
#include <stdbool.h>
#include "intern.h"
#include "omap.h"
#include "uop.h"
#include "version.h"

typedef const UOp *(*RuleFn)(void *ctx, const UOp *u);

/* Where a piece of Python is, version by version: for each version that
 * has it, its file in the tinygrad checkout and its 1-based line ({NULL, 0}:
 * none). A rule's PyLoc is its UPat's `location` (ops.py get_location), a
 * rewrite call site's the line that called graph_rewrite; the trace compares
 * both with what tinygrad's tracker recorded (rewrite_trace.h). */
typedef struct PyLine {
  const char *file;              /* "tinygrad/engine/schedule.py" */
  int line;
} PyLine;
typedef struct PyLoc { PyLine in[TG_NVERSIONS]; } PyLoc;

/* The ops a row lists: its UPat's, at most view_right's
 * (*GroupOp.ALU, Ops.CAST, Ops.BITCAST, Ops.ASSIGN, Ops.CONTIGUOUS, Ops.STORE),
 * 28 ops in 0.10.0 and 29 in 0.10.2. */
enum { RULE_MAX_OPS = 32 };

typedef struct Rule {
  Op ops[RULE_MAX_OPS];  /* ops this rule applies to, OP_NONE-terminated; first OP_NONE = any op */
  RuleFn fn;
  const char *name;      /* for debugging: the Python rule it mirrors */
  PyLoc at;              /* the UPat's location */
} Rule;

typedef struct PatternMatcher {
  const Rule *rules;
  size_t nrules;
} PatternMatcher;

/* PatternMatcher.rewrite(u, ctx): first rule (in order) for u->op returning non-NULL. */
const UOp *pm_rewrite(const PatternMatcher *pm, void *ctx, const UOp *u);
/* Several matchers tried in order, as `pm1 + pm2` concatenates rule lists. */
const UOp *pm_rewrite_list(const PatternMatcher *const *pms, size_t npms, void *ctx, const UOp *u);

/* The rewrite state: RewriteContext. Its `replace` dict (node -> result) is
 * only ever looked up, never iterated, so it is a table indexed by UOp id
 * whose entries count only in pages stamped with this context's epoch: a
 * new context costs nothing however large the graph is. The tables (and the
 * walk's frame stack) come from a pool in the Interner and go back to it when
 * the context is released, so nested graph_rewrites get their own. */
typedef struct RewriteMemo RewriteMemo;
typedef struct PmIndex PmIndex;
enum { RC_MAX_PMS = 8 };
typedef struct RewriteContext {
  Interner *in;
  const PatternMatcher *const *pms;  /* concatenated in order */
  size_t npms;
  void *ctx;
  RewriteMemo *memo;
  const PmIndex *index;  /* PatternMatcher.pdict of the concatenated pms; NULL: none (scan) */
  bool gave_up;          /* a rewrite nested past Python's recursion limit (rewrite.c): nothing more is rewritten */
  struct RewriteTrace *trace; /* where matches are recorded (in->trace at init); NULL: not tracked */
} RewriteContext;

void rewrite_context_init(RewriteContext *rc, Interner *in, const PatternMatcher *const *pms, size_t npms, void *ctx);
/* Gives the context's tables back to the Interner's pool (rc is unusable after). */
void rewrite_context_release(RewriteContext *rc);
/* Forgets the pooled tables, when no context is in use: for a caller about
 * to free in->memo_arena, where it had them made. */
void rewrite_memos_forget(Interner *in);
/* After interner_compact_since(in, mark, ...) returned copy: rc's memo
 * forgets the ids from mark on and the results that were forgotten, and
 * follows the results that were copied. (A pooled context needs nothing:
 * its entries are of an older epoch.) */
void rewrite_context_compact(RewriteContext *rc, uint32_t mark, const UOp *const *copy);
/* RewriteContext.rewrite (0.10.0) / top_down_rewrite (0.10.2): sources first,
 * then the node, then the result again until nothing matches. */
const UOp *top_down_rewrite(RewriteContext *rc, const UOp *n);
/* RewriteContext.bottom_up_rewrite (0.10.2): the node until nothing matches,
 * then its sources. */
const UOp *bottom_up_rewrite(RewriteContext *rc, const UOp *n);

/* graph_rewrite(sink, pm, ctx, bottom_up) called from `at` (tracked in in->trace, when set). */
const UOp *graph_rewrite_at(const PyLoc *at, Interner *in, const UOp *sink, const PatternMatcher *const *pms, size_t npms,
                            void *ctx, bool bottom_up);
/* graph_rewrite under `Context(TRACK_MATCH_STATS=0)`: neither it nor what it nests is tracked. */
const UOp *graph_rewrite_untracked(Interner *in, const UOp *sink, const PatternMatcher *const *pms, size_t npms, void *ctx,
                                   bool bottom_up);
/* graph_rewrite from a call site that has no PyLoc (tracked at an unknown place). */
const UOp *graph_rewrite(Interner *in, const UOp *sink, const PatternMatcher *const *pms, size_t npms, void *ctx,
                         bool bottom_up);
/* graph_rewrite_map (0.10.2): {k: rewrite(k) for k in reversed(sink.toposort)}
 * sharing one RewriteContext; the result map is insertion-ordered like the dict. */
void graph_rewrite_map(Interner *in, const UOp *sink, const PatternMatcher *const *pms, size_t npms, void *ctx,
                       bool bottom_up, OMap *out);
#endif
