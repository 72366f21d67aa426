/* pyrepr.h — kernel ASTs printed the way each tinygrad version prints them,
 * straight from the contract's GRAPH encoding:
 *  - LazyOp versions (feature ast_is_lazyop: 0.9.1, 0.9.2): repr(si.ast), a
 *    tuple of LazyOp (ops.py LazyOp.__repr__, the dataclass reprs of
 *    MemBuffer, ConstBuffer, ShapeTracker, View);
 *  - UOp versions: repr(si.ast), UOp.__repr__ through ops.py pretty_print
 *    (indentation, "x1:=" for shared nodes); argstr prints str(arg) where
 *    the feature uop_argstr_str says so (0.10.0), else repr(arg) (0.10.2).
 * Iterative: no recursion on graph depth. */
#ifndef TSCHED_PYREPR_H
#define TSCHED_PYREPR_H
#include <stdbool.h>
#include "json.h"
#include "tools.h"
#include "version.h"

/* Appends repr(ast) of the GRAPH `g` to out. On a malformed graph returns
 * false and writes what is wrong into err. Stops early once `out` is over
 * its limit (out->over: the text is cut short). */
bool ast_repr(StrBuf *out, TgVersion v, const JVal *g, char *err, size_t errlen);

/* repr / str of one contract-encoded value as version v prints it. `op` is
 * the op whose arg it is (CAST args are dtypes), or NULL. */
void value_repr(StrBuf *out, TgVersion v, const JVal *x, bool as_str, const char *op);

/* The op name without its class: "BinaryOps.ADD" -> "ADD". */
const char *op_short(const char *op);
#endif
