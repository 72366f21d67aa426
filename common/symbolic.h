/* symbolic.h — tinygrad's integer index simplifier, as its View / ShapeTracker
 * code uses it (View.__add__ to merge views, ShapeTracker.real_strides).
 *
 * Two engines, one per generation of tinygrad's symbolic code:
 *
 *  - 0.9.1, shape/symbolic.py: `Node` algebra. Expressions simplify while
 *    they are built (NumNode, Variable, MulNode, DivNode, ModNode, LtNode,
 *    SumNode, AndNode); equality and hashing go through the rendered `key`.
 *    Here: SymNode, built with snode_* functions in a SymNodeCtx.
 *
 *  - 0.10.0 (ops.py) and 0.10.2 (ops.py + codegen/symbolic.py): `UOp`
 *    expressions, hash-consed, simplified by graph_rewrite with the
 *    version's `symbolic` / `symbolic_flat` PatternMatcher, plus
 *    `simplify_valid` and `uop_given_valid`. Here: SymUOp, built with suop_*
 *    functions in a SymCtx. The rules are written as UPat data interpreted
 *    by a small matcher that follows UPat.match exactly (commutative
 *    permutations, repeated names, rule order), each with the Python rule in
 *    a comment. Only int and bool scalars exist here; rules that can only
 *    fire on floats, vectors, WHERE, RECIP, POW, BITCAST nodes (which index
 *    expressions never contain) are left out and listed in docs/shapetracker.md.
 *
 * Errors raise (error.h) where Python raises: the exception tinygrad would
 * raise, or error_unsupported for a case such as int64 overflow; they unwind
 * to the innermost error_protect. Python `//` and `%` semantics are kept
 * (floor for Node and UOp bounds, C-style truncation where tinygrad's
 * exec_alu uses it). Recursion is over expression trees, whose size is
 * bounded by the number of dimensions and views; rewriting depth is capped. */
#ifndef TSCHED_SYMBOLIC_H
#define TSCHED_SYMBOLIC_H
#include <stdbool.h>
#include <stdint.h>
#include "arena.h"
#include "sint.h"
#include "version.h"

/* ====================================================== 0.9.1: Node algebra */

typedef enum { SN_NUM, SN_VAR, SN_MUL, SN_DIV, SN_MOD, SN_LT, SN_SUM, SN_AND } SymNodeKind;

typedef struct SymNode SymNode;
struct SymNode {
  SymNodeKind kind;
  int64_t min, max;                 /* the bounds, when they are ints */
  /* 0.9.1's min/max may be Nodes (Variable(f"idx{i}", 0, s-1) with a symbolic s, and what is built
   * from it): then nmin / nmax is that Node and the int field is unused. Read bounds with
   * snode_min / snode_max, or check these are NULL before reading min / max. */
  const SymNode *nmin, *nmax;
  int64_t b;                        /* NumNode: the value; Mul/Div/Mod/Lt: the int operand b */
  const SymNode *a;                 /* Mul/Div/Mod/Lt: the node operand a */
  const SymNode *bn;                /* Mul/Lt: the operand b when it is a Node (then `b` is unused), else NULL */
  const char *expr;                 /* Variable: its name */
  bool bound;                       /* Variable: _val is not None */
  int64_t val;                      /* Variable: _val, when bound */
  int n;                            /* Sum/And: number of nodes */
  const SymNode *const *nodes;      /* Sum/And: the nodes, in order */
  const char *key;                  /* Node.key (render(ctx="DEBUG")), filled on first use */
};

typedef struct SymNodeCtx {
  Arena *a;
} SymNodeCtx;

void snode_ctx_init(SymNodeCtx *c, Arena *a);
const SymNode *snode_num(SymNodeCtx *c, int64_t b);                                      /* NumNode(b) */
const SymNode *snode_var(SymNodeCtx *c, const char *expr, int64_t min, int64_t max);     /* Variable(expr, min, max) */
const SymNode *snode_var_sint(SymNodeCtx *c, const char *expr, int64_t min, sint max);    /* Variable(expr, min, max), max an int or a Node */
const SymNode *snode_var_bound(SymNodeCtx *c, const char *expr, int64_t min, int64_t max, int64_t val); /* Variable(...).bind(val) */
/* The class constructor itself, no simplification (decoding recorded nodes): MulNode(a, b|bn),
 * DivNode(a, b), ModNode(a, b), LtNode(a, b|bn) with get_bounds; SumNode / AndNode of nodes. */
const SymNode *snode_raw(SymNodeCtx *c, SymNodeKind kind, const SymNode *a, int64_t b, const SymNode *bn, int n,
                         const SymNode *const *nodes);
const SymNode *snode_add(SymNodeCtx *c, const SymNode *x, const SymNode *y);              /* x + y */
const SymNode *snode_add_int(SymNodeCtx *c, const SymNode *x, int64_t b);                 /* x + b */
const SymNode *snode_mul(SymNodeCtx *c, const SymNode *x, int64_t b);                     /* x * b */
const SymNode *snode_floordiv(SymNodeCtx *c, const SymNode *x, int64_t b);                /* x // b */
const SymNode *snode_mod(SymNodeCtx *c, const SymNode *x, int64_t b);                     /* x % b */
const SymNode *snode_sum(SymNodeCtx *c, int n, const SymNode *const *nodes);              /* Node.sum */
const SymNode *snode_mul_node(SymNodeCtx *c, const SymNode *x, const SymNode *y);         /* x * y */
const SymNode *snode_floordiv_node(SymNodeCtx *c, const SymNode *x, const SymNode *y);    /* x // y */
const SymNode *snode_mod_node(SymNodeCtx *c, const SymNode *x, const SymNode *y);         /* x % y */
bool snode_lt_node_truthy(SymNodeCtx *c, const SymNode *x, const SymNode *y);             /* bool(x < y), Node.__lt__ with a Node */
bool snode_eq_int(const SymNode *x, int64_t b);                                           /* x == b */
/* x.substitute(...) with every bound Variable replaced by its unbound form (Node.unbind()[0]) */
const SymNode *snode_unbind(SymNodeCtx *c, const SymNode *x);
/* sym_infer(x, {v: v.val}) for x's Variables, each bound; AssertionError otherwise */
int64_t snode_infer_bound(SymNodeCtx *c, const SymNode *x);
const SymNode *snode_ands(SymNodeCtx *c, int n, const SymNode *const *nodes);             /* Node.ands */
const SymNode *create_lt_node(SymNodeCtx *c, const SymNode *lhs, sint b);   /* b an int or a Node */
const SymNode *create_ge_node(SymNodeCtx *c, const SymNode *lhs, sint b);
bool snode_truthy(SymNodeCtx *c, const SymNode *x);           /* Node.__bool__ */
bool snode_lt_truthy(SymNodeCtx *c, const SymNode *x, int64_t b); /* bool(x < b), Node.__lt__ with an int */
bool snode_eq(SymNodeCtx *c, const SymNode *x, const SymNode *y);   /* Node.__eq__ between two nodes */
const char *snode_key(SymNodeCtx *c, const SymNode *x);       /* render(ctx="DEBUG") */
const char *snode_repr(SymNodeCtx *c, const SymNode *x);      /* repr(): render(ctx="REPR") */
/* x.vars(): distinct Variables in first-seen order into out[0..cap); returns the count. */
int snode_vars(SymNodeCtx *c, const SymNode *x, const SymNode **out, int cap);

/* x.min / x.max: an int, or the Node Python holds there */
sint snode_min(const SymNode *x);
sint snode_max(const SymNode *x);

/* Python's operators on `int | Node` values, held in sints whose sym is a SymNode: Node.__add__ /
 * __radd__, __sub__ / __rsub__, __mul__ / __rmul__ (dispatched on the class), __floordiv__ /
 * __rfloordiv__, __mod__ / __rmod__, __neg__; comparisons go through Node.__lt__ (and __le__, __gt__,
 * __ge__ with their reflections for int OP Node) and Node.__bool__; == is NumNode.__eq__ /
 * Node.__eq__ (a Node other than a NumNode never equals an int). The sint layer's 0.9.1 operators
 * are these in the current context; the Node engine uses them for bounds that may be Nodes. */
sint snv_add(SymNodeCtx *c, sint x, sint y);
sint snv_sub(SymNodeCtx *c, sint x, sint y);
sint snv_mul(SymNodeCtx *c, sint x, sint y);
sint snv_floordiv(SymNodeCtx *c, sint x, sint y);
sint snv_mod(SymNodeCtx *c, sint x, sint y);
sint snv_neg(SymNodeCtx *c, sint x);
bool snv_eq(SymNodeCtx *c, sint x, sint y);
bool snv_lt(SymNodeCtx *c, sint x, sint y);
bool snv_le(SymNodeCtx *c, sint x, sint y);
bool snv_gt(SymNodeCtx *c, sint x, sint y);
bool snv_ge(SymNodeCtx *c, sint x, sint y);
bool snv_truthy(SymNodeCtx *c, sint x);

/* ====================================================== 0.10.x: UOp symbolic */

/* The ops index expressions use, in the order of tinygrad's Ops values (the
 * same relative order in 0.10.0 and 0.10.2; UOp.tuplize compares by it). */
typedef enum {
  SU_DEFINE_VAR, SU_CAST, SU_ADD, SU_MUL, SU_IDIV, SU_MAX, SU_MOD, SU_CMPLT, SU_CMPNE,
  SU_XOR, SU_OR, SU_AND, SU_WHERE, SU_BIND, SU_RANGE, SU_CONST, SU_NOPS
} SymOp;

typedef enum { SDT_BOOL, SDT_INT } SymDType;   /* dtypes.bool, dtypes.int (int32) */

typedef struct SymUOp SymUOp;
struct SymUOp {
  SymOp op;
  SymDType dtype;
  int nsrc;
  const SymUOp *src[3];
  int64_t arg;                 /* CONST: the value (bool as 0/1); RANGE: the axis */
  const char *name;            /* DEFINE_VAR: arg (name, lo, hi) */
  int64_t lo, hi;
  int64_t vmin, vmax;          /* UOp._min_max of the context's version */
  uint64_t hash;
};

typedef struct SymCtx SymCtx;

SymCtx *symctx_new(Arena *a, TgVersion v);

const SymUOp *suop_const(SymCtx *c, SymDType dt, int64_t value);              /* UOp.const */
const SymUOp *suop_variable(SymCtx *c, const char *name, int64_t lo, int64_t hi); /* UOp.variable */
const SymUOp *suop_range(SymCtx *c, int64_t end, int64_t axis);                /* UOp.range(int, 0, end, axis) */
const SymUOp *suop_range_to(SymCtx *c, const SymUOp *end, int64_t axis);       /* ... with a UOp end */
/* UOp(op, dtype, src, arg) for any op here (hash-consed like every node); arg is the CONST value or
 * RANGE axis, name/lo/hi the DEFINE_VAR arg. For decoding recorded expressions. */
const SymUOp *suop_make(SymCtx *c, SymOp op, SymDType dt, int nsrc, const SymUOp *const *src, int64_t arg, const char *name,
                        int64_t lo, int64_t hi);
/* Python operators on UOps (MathTrait): a OP b, a OP int, int OP a. */
const SymUOp *suop_alu(SymCtx *c, SymOp op, const SymUOp *x, const SymUOp *y);
const SymUOp *suop_add(SymCtx *c, const SymUOp *x, const SymUOp *y);
const SymUOp *suop_add_int(SymCtx *c, const SymUOp *x, int64_t b);
const SymUOp *suop_radd_int(SymCtx *c, int64_t b, const SymUOp *x);
const SymUOp *suop_mul(SymCtx *c, const SymUOp *x, const SymUOp *y);
const SymUOp *suop_mul_int(SymCtx *c, const SymUOp *x, int64_t b);
const SymUOp *suop_idiv_int(SymCtx *c, const SymUOp *x, int64_t b);
const SymUOp *suop_mod_int(SymCtx *c, const SymUOp *x, int64_t b);
const SymUOp *suop_lt_int(SymCtx *c, const SymUOp *x, int64_t b);             /* x < b */
const SymUOp *suop_ge_int(SymCtx *c, const SymUOp *x, int64_t b);             /* x >= b: (x < b).logical_not() */
const SymUOp *suop_ne_int(SymCtx *c, const SymUOp *x, int64_t b);             /* x != b */
int64_t suop_vmin(const SymUOp *x);
int64_t suop_vmax(const SymUOp *x);

/* resolve(x, default): simplify, then vmin == vmax ? bool(vmin) : default */
bool suop_resolve(SymCtx *c, const SymUOp *x, bool dflt);
const SymUOp *suop_simplify(SymCtx *c, const SymUOp *x);      /* graph_rewrite(x, symbolic) */
const SymUOp *suop_rewrite_flat(SymCtx *c, const SymUOp *x);  /* graph_rewrite(x, symbolic_flat) */
/* simplify_valid(valid); NULL is Python's None (nothing changed). */
const SymUOp *sym_simplify_valid(SymCtx *c, const SymUOp *valid);
/* uop_given_valid(valid, uop); NULL is Python's None (valid is never true). */
const SymUOp *sym_uop_given_valid(SymCtx *c, const SymUOp *valid, const SymUOp *uop);
/* split_uop(x, sep) into out (arena array); returns the count. */
int suop_split(SymCtx *c, const SymUOp *x, SymOp sep, const SymUOp ***out);
/* x.toposort / x.sparents: all nodes of x (x included), sources first. */
int suop_toposort(SymCtx *c, const SymUOp *x, const SymUOp ***out);

/* --- 0.10.x symbolic sints: what ops.py does with a sint that is a UOp.
 *
 * Python operators between a UOp and an int go through MathTrait, which turns
 * the int into x.const_like(int) (ufix) of the UOp operand's dtype; the
 * sint layer does that with suop_const_like and then calls the functions below
 * on two UOps, in Python's operand order:
 *   u OP i    -> suop_OP(u, const_like(u, i))        (add mul idiv mod maximum lt gt ge le)
 *   i OP u    -> suop_OP(const_like(u, i), u)        (__radd__, __rmul__, __rfloordiv__, __rmod__;
 *                                                      i < u is u.__gt__(i), i <= u is u.__ge__(i), ...:
 *                                                      the same nodes as the suop_OP call)
 *   u - i     -> suop_sub_int(u, i)                  (u + const(-i); u - v and i - u are suop_sub)
 *   u != i    -> suop_ne(u, const_like(u, i)), and i != u gives the SAME node (u.__ne__(i))
 *   u == i, i == u, u == v: Python's identity (UOp has no __eq__): never a UOp
 *   u.minimum(i) -> suop_minimum_int(u, i)           (-(-u).maximum(-i) with Python's -i)
 * BIND is UOp.bind: a DEFINE_VAR with its value; _min_max ignores the value. */
const char *suop_op_name(SymOp op);                          /* "ADD", "BIND", ... */
bool suop_op_from_name(const char *name, SymOp *op);
const SymUOp *suop_const_like(SymCtx *c, const SymUOp *x, int64_t b);   /* x.const_like(b) */
const SymUOp *suop_const_uop(SymCtx *c, const SymUOp *b);               /* UOp.const(dtype, b) of a UOp b: unbinds a BIND */
const SymUOp *suop_neg(SymCtx *c, const SymUOp *x);                      /* -x: x*-1 (bool: logical_not) */
const SymUOp *suop_sub(SymCtx *c, const SymUOp *x, const SymUOp *y);    /* x + (-y) */
const SymUOp *suop_sub_int(SymCtx *c, const SymUOp *x, int64_t b);      /* x + const(-b) */
const SymUOp *suop_idiv(SymCtx *c, const SymUOp *x, const SymUOp *y);
const SymUOp *suop_mod(SymCtx *c, const SymUOp *x, const SymUOp *y);
const SymUOp *suop_maximum(SymCtx *c, const SymUOp *x, const SymUOp *y);
const SymUOp *suop_minimum(SymCtx *c, const SymUOp *x, const SymUOp *y);
const SymUOp *suop_minimum_int(SymCtx *c, const SymUOp *x, int64_t b);
const SymUOp *suop_lt(SymCtx *c, const SymUOp *x, const SymUOp *y);     /* x < y: CMPLT(x, y) */
const SymUOp *suop_gt(SymCtx *c, const SymUOp *x, const SymUOp *y);     /* x > y: CMPLT(y, x) */
const SymUOp *suop_ne(SymCtx *c, const SymUOp *x, const SymUOp *y);     /* x != y: CMPNE(x, y) */
const SymUOp *suop_ge(SymCtx *c, const SymUOp *x, const SymUOp *y);     /* x.lt(y).logical_not() */
const SymUOp *suop_le(SymCtx *c, const SymUOp *x, const SymUOp *y);     /* x.gt(y).logical_not() */
const SymUOp *suop_eq(SymCtx *c, const SymUOp *x, const SymUOp *y);     /* x.eq(y): x.ne(y).logical_not() */
const SymUOp *suop_logical_not(SymCtx *c, const SymUOp *x);             /* x.ne(True) */
const SymUOp *suop_bind(SymCtx *c, const SymUOp *var, int64_t val);     /* var.bind(val), AssertionError as tinygrad */
void suop_unbind(SymCtx *c, const SymUOp *x, const SymUOp **var, int64_t *val); /* x.unbind(): AssertionError unless a BIND */
/* x.sparents (0.10.0) / x.toposort (0.10.2), in the version's order, x included. */
int suop_sparents(SymCtx *c, const SymUOp *x, const SymUOp ***out);
/* x.vars(): BINDs of DEFINE_VARs, then the unbound DEFINE_VARs (Python's set has no fixed order). */
int suop_vars(SymCtx *c, const SymUOp *x, const SymUOp ***out);
/* x.substitute({from[i]: to[i]}): graph_rewrite top-down (0.10.0) or bottom-up (0.10.2). */
const SymUOp *suop_substitute(SymCtx *c, const SymUOp *x, int n, const SymUOp *const *from, const SymUOp *const *to);
/* x with every bound variable replaced by its DEFINE_VAR (View.unbind's substitute). */
const SymUOp *suop_unbind_all(SymCtx *c, const SymUOp *x);
/* sym_infer(x, var_vals): vars[i] (DEFINE_VAR or BIND, matched by name) has value vals[i]. */
int64_t suop_sym_infer(SymCtx *c, const SymUOp *x, int n, const SymUOp *const *vars, const int64_t *vals);
bool suop_bool(SymCtx *c, const SymUOp *x);     /* bool(x): UOp._eval, ValueError when not a single value */
int64_t suop_int(SymCtx *c, const SymUOp *x);   /* int(x) */
const char *suop_render(SymCtx *c, const SymUOp *x, bool simplify);   /* x.render(simplify) */
const char *suop_repr(SymCtx *c, const SymUOp *x);                    /* repr(x): pretty_print */
#endif
