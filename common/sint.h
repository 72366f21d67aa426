/* sint.h — tinygrad's `sint`: an int or a symbolic value, and Python's
 * integer `//` and `%` (floor division, remainder with the divisor's sign).
 *
 * tinygrad's sint is `int | Node` (0.9.1, shape/symbolic.py) or `int | UOp`
 * (0.10.x, ops.py). Here a sint is a small struct: `sym == NULL` means the
 * plain int `i`; otherwise `sym` is a `const SymNode *` (0.9.1: a Node,
 * NumNode included — `{"sym": 3}` is a NumNode, which `isinstance(x, int)`
 * and `all_int` tell apart from the int 3) or a `const SymUOp *` (0.10.x: a
 * UOp — `{"sym": 3}` is a CONST UOp). Which one is decided by the version of
 * the current symbolic context (below).
 *
 * Arithmetic: sint_add/sub/mul/floordiv/mod/neg and the comparisons are
 * Python's operators on sints. When both operands are ints they run inline
 * (int-only shapes cost what int64_t cost); otherwise they call the `_sym`
 * slow path in sint.c, which switches on the version's kind of symbolic value
 * (version.h `symbolic`): Nodes (0.9.x) go to the Node engine
 * (symbolic_node.c, snode_*), UOps (0.10.x) to the UOp engine (symbolic_uop.c,
 * suop_*). A case an engine cannot do yet is error_unsupported.
 *
 * The symbolic context: symbolic values live in one context per capture
 * (the 0.9.1 SymNodeCtx or the 0.10.x SymCtx with its hash-consing table).
 * View and ShapeTracker functions take `(Arena *, TgVersion, ...)` only, so
 * the context is one global, current while a capture runs: a generation's entry point calls
 * sym_begin(arena, version) before decoding a capture and sym_end() when the
 * capture is done. sym_node_ctx() / sym_uop_ctx() return the current
 * context (NULL when none, or of the other version). Errors raise
 * (error.h): the exception tinygrad would raise (error_raise), a case this
 * port does not model (error_unsupported: int64 overflow, an unported
 * rule), a malformed capture (error_bad_input), each unwinding to the
 * innermost error_protect. Without a current context no symbolic value can
 * exist: decoding one is unsupported. */
#ifndef TSCHED_SINT_H
#define TSCHED_SINT_H
#include <stdbool.h>
#include <stdint.h>
#include "arena.h"
#include "error.h"
#include "json.h"
#include "version.h"

/* Python's a // b (floor division). b != 0. INT64_MIN // -1 (2**63, beyond
 * int64) is left to the caller: sint_floordiv checks it. */
static inline int64_t py_floordiv(int64_t a, int64_t b) {
  if (b == -1) return a == INT64_MIN ? a : -a;
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;
  return q;
}

/* Python's a % b (result has the sign of b). b != 0. */
static inline int64_t py_mod(int64_t a, int64_t b) {
  if (b == -1) return 0; /* INT64_MIN % -1 traps in C */
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

/* ------------------------------------------------------------------ the value */

typedef struct sint {
  int64_t i;          /* the int, when sym == NULL */
  const void *sym;    /* NULL, or the SymNode (0.9.1) / SymUOp (0.10.x) */
} sint;

static inline sint sint_int(int64_t i) { sint r = {i, NULL}; return r; }   /* an int */
static inline bool sint_is_int(sint x) { return x.sym == NULL; }            /* isinstance(x, int) */

/* ------------------------------------------------------------------ the current context */

typedef struct SymNodeCtx SymNodeCtx;
typedef struct SymCtx SymCtx;

void sym_begin(Arena *a, TgVersion v);   /* a new context for one capture, current until sym_end */
void sym_end(void);                      /* no current context */
bool sym_active(void);
TgVersion sym_version(void);
SymNodeCtx *sym_node_ctx(void);          /* the 0.9.1 context, or NULL */
SymCtx *sym_uop_ctx(void);               /* the 0.10.x context, or NULL */

/* ------------------------------------------------------------------ Python operators */

sint sint_add_sym(sint a, sint b);
sint sint_sub_sym(sint a, sint b);
sint sint_mul_sym(sint a, sint b);
sint sint_floordiv_sym(sint a, sint b);
sint sint_mod_sym(sint a, sint b);
bool sint_eq_sym(sint a, sint b);
bool sint_lt_sym(sint a, sint b);
bool sint_le_sym(sint a, sint b);
bool sint_gt_sym(sint a, sint b);
bool sint_ge_sym(sint a, sint b);

/* a + b, a - b, a * b, -a */
/* On ints these are Python's, which never overflow: a result beyond int64
 * is unsupported here (sint_overflow raises it). */
_Noreturn sint sint_overflow(void);
static inline sint sint_add(sint a, sint b) {
  int64_t r;
  if (a.sym || b.sym) return sint_add_sym(a, b);
  return __builtin_add_overflow(a.i, b.i, &r) ? sint_overflow() : sint_int(r);
}
static inline sint sint_sub(sint a, sint b) {
  int64_t r;
  if (a.sym || b.sym) return sint_sub_sym(a, b);
  return __builtin_sub_overflow(a.i, b.i, &r) ? sint_overflow() : sint_int(r);
}
static inline sint sint_mul(sint a, sint b) {
  int64_t r;
  if (a.sym || b.sym) return sint_mul_sym(a, b);
  return __builtin_mul_overflow(a.i, b.i, &r) ? sint_overflow() : sint_int(r);
}
static inline sint sint_neg(sint a) {
  if (a.sym) return sint_mul_sym(a, sint_int(-1));
  return a.i == INT64_MIN ? sint_overflow() : sint_int(-a.i);
}
/* a // b and a % b (b != 0 when both are ints, as at every call site) */
static inline sint sint_floordiv(sint a, sint b) {
  if (a.sym || b.sym) return sint_floordiv_sym(a, b);
  return a.i == INT64_MIN && b.i == -1 ? sint_overflow() : sint_int(py_floordiv(a.i, b.i));
}
static inline sint sint_mod(sint a, sint b) { return !a.sym && !b.sym ? sint_int(py_mod(a.i, b.i)) : sint_mod_sym(a, b); }
/* Python `a == b` (0.9.1: NumNode(n) == n; 0.10.x: a UOp is never equal to an int), `a != b` */
static inline bool sint_eq(sint a, sint b) { return !a.sym && !b.sym ? a.i == b.i : sint_eq_sym(a, b); }
static inline bool sint_ne(sint a, sint b) { return !sint_eq(a, b); }
/* bool(a < b), bool(a <= b), bool(a > b), bool(a >= b) with Python's operator dispatch
 * (0.9.1: Node.__lt__/__le__/__gt__/__ge__ and their reflections, then Node.__bool__;
 * 0.10.x: UOp.__bool__, unsupported unless the comparison simplifies to a constant) */
static inline bool sint_lt(sint a, sint b) { return !a.sym && !b.sym ? a.i < b.i : sint_lt_sym(a, b); }
static inline bool sint_le(sint a, sint b) { return !a.sym && !b.sym ? a.i <= b.i : sint_le_sym(a, b); }
static inline bool sint_gt(sint a, sint b) { return !a.sym && !b.sym ? a.i > b.i : sint_gt_sym(a, b); }
static inline bool sint_ge(sint a, sint b) { return !a.sym && !b.sym ? a.i >= b.i : sint_ge_sym(a, b); }
/* Python's builtin max(a, b) / min(a, b): the first unless the second compares greater / less */
static inline sint sint_max(sint a, sint b) { return sint_gt(b, a) ? b : a; }
static inline sint sint_min(sint a, sint b) { return sint_lt(b, a) ? b : a; }
/* bool(x) */
bool sint_truthy(sint x);
/* resolve(a < b, dflt) (0.10.x); 0.9.1: bool(a < b) */
bool sint_resolve_lt(sint a, sint b, bool dflt);

/* ---- 0.10.x sint helpers (ops.py): comparisons as UOps, resolve, smax/smin, ssimplify. On ints they are
 * Python's int operators; 0.9.1 has no resolve (its callers compare Nodes directly). */
typedef enum { SINT_LT, SINT_LE, SINT_GT, SINT_GE, SINT_NE } SintCmp;
/* bool(a OP b): 0.10.x UOp.__bool__ of the comparison UOp (ValueError when it is not one value);
 * 0.9.1: the Node comparisons above, and != as `not ==`. */
bool sint_cmp(SintCmp op, sint a, sint b);
/* resolve(a OP b, dflt) (0.10.x; on ints the comparison itself) */
bool sint_resolve(SintCmp op, sint a, sint b, bool dflt);
/* smax(xs) / smin(xs) (0.10.x): max/min of the ints, or reduce(UOp.maximum/minimum, uops + [max(ints)]).ssimplify() */
sint sint_smax(int n, const sint *xs);
sint sint_smin(int n, const sint *xs);
/* ssimplify(x) (0.10.x): x.simplify(), the int when it is a CONST */
sint sint_ssimplify(sint x);

/* prod(xs): helpers.prod, from the int 1 */
sint sint_prod(int n, const sint *xs);
/* all_int(xs) */
bool sint_all_int(int n, const sint *xs);
/* The int an upper bound stands for: x itself, or x.max (0.9.1 Node) / x.vmax (0.10.x UOp),
 * as View.size() takes it. */
int64_t sint_max_int(sint x);
/* A hash consistent with sint_eq. */
uint64_t sint_hash(sint x);

/* sym_infer(x, var_vals) with each Variable's bound value (the `val` its capture carried);
 * raises (or is unsupported) when a Variable is not bound. */
int64_t sint_infer_bound(sint x);
/* Node.unbind / substitute: x with each bound Variable replaced by its unbound form. */
sint sint_unbind(sint x);
/* x.vars(): the distinct Variables of x, appended to out[*n..cap) when not there (by equality). */
void sint_vars(sint x, sint *out, int *n, int cap);

/* repr(x) / str(x), for exception messages */
const char *sint_repr(Arena *a, sint x);
const char *sint_str(Arena *a, sint x);

/* The contract's encoding: an int, or {"sym": EXPR} decoded into the current context.
 * Without a current context (or for what the context cannot hold) a {"sym"} is
 * unsupported ("symbolic shape: unsupported"); malformed JSON is bad input. */
sint sint_from_json(Arena *a, const JVal *j);
JVal *sint_to_json(Arena *a, sint x);   /* an int is a shared, read-only JVal when small (json_int_shared) */
#endif
