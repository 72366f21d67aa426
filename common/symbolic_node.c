/* symbolic_node.c — 0.9.1's Node algebra (shape/symbolic.py), see symbolic.h.
 * Expressions simplify while they are built (NumNode, Variable, MulNode,
 * DivNode, ModNode, LtNode, SumNode, AndNode). */
#include "symbolic.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ============================================================ Part 1: 0.9.1 Node algebra */

static const char *const SN_CLASS[] = {"NumNode", "Variable", "MulNode", "DivNode", "ModNode", "LtNode", "SumNode", "AndNode"};

void snode_ctx_init(SymNodeCtx *c, Arena *a) { c->a = a; }

/* Python raises `type(message)` (error.h) */
_Noreturn static void sn_raise(SymNodeCtx *c, const char *type, const char *message) {
  (void)c;
  error_raise(type, "%s", message);
}

/* outside what this port models */
_Noreturn static void sn_unsupported(SymNodeCtx *c, const char *message) {
  (void)c;
  error_unsupported("%s", message);
}

/* Python's +, -, * on ints, which never overflow: past int64 the case is
 * unsupported here (0 stands in for the result). */
static int64_t sn_add64(SymNodeCtx *c, int64_t x, int64_t y) {
  int64_t r;
  if (!__builtin_add_overflow(x, y, &r)) return r;
  sn_unsupported(c, "int64 overflow");
}
static int64_t sn_mul64(SymNodeCtx *c, int64_t x, int64_t y) {
  int64_t r;
  if (!__builtin_mul_overflow(x, y, &r)) return r;
  sn_unsupported(c, "int64 overflow");
}
static int64_t sn_sub64(SymNodeCtx *c, int64_t x, int64_t y) {
  int64_t r;
  if (!__builtin_sub_overflow(x, y, &r)) return r;
  sn_unsupported(c, "int64 overflow");
}
static int64_t sn_neg64(SymNodeCtx *c, int64_t x) { return sn_sub64(c, 0, x); }

/* Python's `%` and `//` on ints, raising ZeroDivisionError like Python. */
static int64_t sn_pymod(SymNodeCtx *c, int64_t x, int64_t y) {
  if (y == 0) {
    sn_raise(c, "ZeroDivisionError", "integer modulo by zero");
  }
  return py_mod(x, y);
}

static int64_t sn_pydiv(SymNodeCtx *c, int64_t x, int64_t y) {
  if (y == 0) {
    sn_raise(c, "ZeroDivisionError", "integer division or modulo by zero");
  }
  if (x == INT64_MIN && y == -1) return sn_neg64(c, x);
  return py_floordiv(x, y);
}

static int64_t gcd64(int64_t x, int64_t y) { /* math.gcd: non-negative (gcd(-2**63, 0) = 2**63 wraps) */
  uint64_t a = x < 0 ? 0 - (uint64_t)x : (uint64_t)x, b = y < 0 ? 0 - (uint64_t)y : (uint64_t)y;
  while (b != 0) {
    uint64_t t = a % b;
    a = b;
    b = t;
  }
  return (int64_t)a;
}

static SymNode *sn_alloc(SymNodeCtx *c, SymNodeKind kind) {
  SymNode *n = arena_alloc(c->a, sizeof *n);
  n->kind = kind;
  return n;
}

/* NumNode(num) */
const SymNode *snode_num(SymNodeCtx *c, int64_t b) {
  SymNode *n = sn_alloc(c, SN_NUM);
  n->b = n->min = n->max = b;
  return n;
}

/* ------------------------------------------------------------ int | Node values */

/* A Python `int | Node` is a sint here: sym is the SymNode, or NULL for the int. */
static sint sv_node(const SymNode *x) { sint r = {0, x}; return r; }
static const SymNode *sv_n(sint x) { return (const SymNode *)x.sym; }
/* a Node operand: NumNode(b) for an int (Node.__add__'s `NumNode(b) if isinstance(b, int) else b`) */
static const SymNode *sv_as_node(SymNodeCtx *c, sint x) { return x.sym != NULL ? sv_n(x) : snode_num(c, x.i); }
/* str(x): an int, or "<key>" for a Node (Node.__str__) */
static const char *sv_str(SymNodeCtx *c, sint x) {
  return x.sym == NULL ? arena_printf(c->a, "%lld", (long long)x.i) : arena_printf(c->a, "<%s>", snode_key(c, sv_n(x)));
}

sint snode_min(const SymNode *x) { return x->nmin != NULL ? sv_node(x->nmin) : sint_int(x->min); }
sint snode_max(const SymNode *x) { return x->nmax != NULL ? sv_node(x->nmax) : sint_int(x->max); }
static bool sn_int_bounds(const SymNode *x) { return x->nmin == NULL && x->nmax == NULL; }

static void sn_set_bounds(SymNode *x, sint lo, sint hi) { /* self.min, self.max = lo, hi */
  x->min = lo.i;
  x->nmin = sv_n(lo);
  x->max = hi.i;
  x->nmax = sv_n(hi);
}

/* x + y: Node.__add__: Node.sum([self, b]); int + Node is Node.__radd__: self+b */
sint snv_add(SymNodeCtx *c, sint x, sint y) {
  if (x.sym == NULL && y.sym == NULL) return sint_int(sn_add64(c, x.i, y.i));
  if (x.sym != NULL) return sv_node(snode_add(c, sv_n(x), sv_as_node(c, y)));
  return sv_node(snode_add(c, sv_n(y), snode_num(c, x.i)));
}

/* -x: Node.__neg__: self*-1 */
sint snv_neg(SymNodeCtx *c, sint x) { return x.sym == NULL ? sint_int(sn_neg64(c, x.i)) : sv_node(snode_mul(c, sv_n(x), -1)); }

/* x - y: Node.__sub__: self+-b; int - Node is Node.__rsub__: -self+b */
sint snv_sub(SymNodeCtx *c, sint x, sint y) {
  if (x.sym == NULL && y.sym == NULL) return sint_int(sn_sub64(c, x.i, y.i));
  if (x.sym != NULL) return snv_add(c, x, snv_neg(c, y));
  return snv_add(c, snv_neg(c, y), x);
}

/* x * y: the Node's class __mul__; int * Node is Node.__rmul__: self*b */
sint snv_mul(SymNodeCtx *c, sint x, sint y) {
  if (x.sym == NULL && y.sym == NULL) return sint_int(sn_mul64(c, x.i, y.i));
  const SymNode *n = x.sym != NULL ? sv_n(x) : sv_n(y);
  sint b = x.sym != NULL ? y : x;
  return sv_node(b.sym != NULL ? snode_mul_node(c, n, sv_n(b)) : snode_mul(c, n, b.i));
}

/* x // y: Node.__floordiv__; int // Node is Node.__rfloordiv__: NumNode(b) // self */
sint snv_floordiv(SymNodeCtx *c, sint x, sint y) {
  if (x.sym == NULL && y.sym == NULL) return sint_int(sn_pydiv(c, x.i, y.i));
  if (y.sym == NULL) return sv_node(snode_floordiv(c, sv_n(x), y.i));
  return sv_node(snode_floordiv_node(c, sv_as_node(c, x), sv_n(y)));
}

/* x % y: Node.__mod__; int % Node is Node.__rmod__: NumNode(b) % self */
sint snv_mod(SymNodeCtx *c, sint x, sint y) {
  if (x.sym == NULL && y.sym == NULL) return sint_int(sn_pymod(c, x.i, y.i));
  if (y.sym == NULL) return sv_node(snode_mod(c, sv_n(x), y.i));
  return sv_node(snode_mod_node(c, sv_as_node(c, x), sv_n(y)));
}

/* x == y: NumNode.__eq__ compares its value, Node.__eq__ keys; a Node other than a NumNode never equals an int */
bool snv_eq(SymNodeCtx *c, sint x, sint y) {
  if (x.sym == NULL && y.sym == NULL) return x.i == y.i;
  if (x.sym == NULL) return snode_eq_int(sv_n(y), x.i);
  if (y.sym == NULL) return snode_eq_int(sv_n(x), y.i);
  return snode_eq(c, sv_n(x), sv_n(y));
}

bool snv_truthy(SymNodeCtx *c, sint x) { return x.sym == NULL ? x.i != 0 : snode_truthy(c, sv_n(x)); }

/* LtNode.get_bounds, b an int or a Node */
static void sn_lt_bounds(SymNodeCtx *c, const SymNode *a, sint b, int64_t *lo, int64_t *hi) {
  if (b.sym == NULL ? snode_eq_int(a, b.i) : snode_eq(c, a, sv_n(b))) { /* self.a == self.b */
    *lo = *hi = 0;
  } else if (snv_lt(c, snode_max(a), b.sym == NULL ? b : snode_min(sv_n(b)))) {
    *lo = *hi = 1;
  } else if (snv_ge(c, snode_min(a), b.sym == NULL ? b : snode_max(sv_n(b)))) {
    *lo = *hi = 0;
  } else {
    *lo = 0;
    *hi = 1;
  }
}

/* bool(a < b) for a Node a: Node.__lt__ is create_node(LtNode(self, b)), then Node.__bool__ */
static bool sn_lt_truthy(SymNodeCtx *c, const SymNode *a, sint b) {
  int64_t lo, hi;
  sn_lt_bounds(c, a, b, &lo, &hi);
  return !(lo == 0 && hi == 0);
}

/* x < y; int < Node is Node.__gt__: (-self) < (-b) */
bool snv_lt(SymNodeCtx *c, sint x, sint y) {
  if (x.sym == NULL && y.sym == NULL) return x.i < y.i;
  if (x.sym != NULL) return sn_lt_truthy(c, sv_n(x), y);
  return sn_lt_truthy(c, snode_mul(c, sv_n(y), -1), sint_int(-x.i));
}

/* x <= y: Node.__le__: self < (b+1); int <= Node is Node.__ge__: (-self) < (-b+1) */
bool snv_le(SymNodeCtx *c, sint x, sint y) {
  if (x.sym == NULL && y.sym == NULL) return x.i <= y.i;
  if (x.sym != NULL) return sn_lt_truthy(c, sv_n(x), snv_add(c, y, sint_int(1)));
  return sn_lt_truthy(c, snode_mul(c, sv_n(y), -1), sint_int(sn_add64(c, sn_neg64(c, x.i), 1)));
}

/* x > y: Node.__gt__: (-self) < (-b); int > Node is Node.__lt__ */
bool snv_gt(SymNodeCtx *c, sint x, sint y) {
  if (x.sym == NULL && y.sym == NULL) return x.i > y.i;
  if (x.sym != NULL) return sn_lt_truthy(c, snode_mul(c, sv_n(x), -1), snv_neg(c, y));
  return sn_lt_truthy(c, sv_n(y), x);
}

/* x >= y: Node.__ge__: (-self) < (-b+1); int >= Node is Node.__le__: self < (b+1) */
bool snv_ge(SymNodeCtx *c, sint x, sint y) {
  if (x.sym == NULL && y.sym == NULL) return x.i >= y.i;
  if (x.sym != NULL) return sn_lt_truthy(c, snode_mul(c, sv_n(x), -1), snv_add(c, snv_neg(c, y), sint_int(1)));
  return sn_lt_truthy(c, sv_n(y), sint_int(sn_add64(c, x.i, 1)));
}

/* ------------------------------------------------------------ leaves */

/* Variable.__new__ / __init__ */
const SymNode *snode_var(SymNodeCtx *c, const char *expr, int64_t min, int64_t max) {
  if (!(min >= 0 && min <= max)) {
    sn_raise(c, "AssertionError",
             arena_printf(c->a, "invalid Variable expr='%s' nmin=%lld nmax=%lld", expr, (long long)min, (long long)max));
  }
  if (min == max) return snode_num(c, min);
  SymNode *n = sn_alloc(c, SN_VAR);
  n->expr = expr;
  n->min = min;
  n->max = max;
  return n;
}

/* Variable.__new__ / __init__ with an nmax that may be a Node (`Variable(f"idx{i}", 0, s-1)` of a symbolic s) */
const SymNode *snode_var_sint(SymNodeCtx *c, const char *expr, int64_t min, sint max) {
  if (max.sym == NULL) return snode_var(c, expr, min, max.i);
  if (!(min >= 0 && snv_le(c, sint_int(min), max))) { /* assert nmin >= 0 and nmin <= nmax */
    sn_raise(c, "AssertionError",
             arena_printf(c->a, "invalid Variable expr='%s' nmin=%lld nmax=%s", expr, (long long)min, snode_repr(c, sv_n(max))));
  }
  if (snv_eq(c, sint_int(min), max)) return snode_num(c, min);
  SymNode *n = sn_alloc(c, SN_VAR);
  n->expr = expr;
  n->min = min;
  n->nmax = sv_n(max);
  return n;
}

/* Variable(expr, min, max).bind(val) */
const SymNode *snode_var_bound(SymNodeCtx *c, const char *expr, int64_t min, int64_t max, int64_t val) {
  const SymNode *x = snode_var(c, expr, min, max);
  if (x->kind != SN_VAR) return x; /* NumNode.bind(val) asserts b == val */
  if (!(min <= val && val <= max)) {
    sn_raise(c, "AssertionError", arena_printf(c->a, "cannot bind %lld to %s", (long long)val, snode_repr(c, x)));
  }
  SymNode *n = (SymNode *)x;
  n->bound = true;
  n->val = val;
  return n;
}

/* Node.__bool__: not (self.max == self.min == 0) */
bool snode_truthy(SymNodeCtx *c, const SymNode *x) {
  if (sn_int_bounds(x)) return !(x->max == x->min && x->min == 0);
  return !(snv_eq(c, snode_max(x), snode_min(x)) && snv_eq(c, snode_min(x), sint_int(0)));
}

/* NumNode.__eq__ / Node.__eq__ with an int: only a NumNode equals an int */
bool snode_eq_int(const SymNode *x, int64_t b) { return x->kind == SN_NUM && x->b == b; }

/* Node.render for ctx "DEBUG" (the key) and "REPR" */
static const char *sn_render(SymNodeCtx *c, const SymNode *x, bool repr) {
  if (!repr && x->key != NULL) return x->key;
  if (!(x->kind == SN_VAR || x->kind == SN_NUM || !snv_eq(c, snode_min(x), snode_max(x)))) sn_raise(c, "AssertionError", "");
  const char *s = "";
  switch (x->kind) {
    case SN_NUM: s = repr ? arena_printf(c->a, "NumNode(%lld)", (long long)x->b) : arena_printf(c->a, "%lld", (long long)x->b); break;
    case SN_VAR:
      if (!sn_int_bounds(x)) { /* a Node bound formats as str(Node): "<key>" */
        const char *lo = sv_str(c, snode_min(x)), *hi = sv_str(c, snode_max(x));
        const char *val = x->bound ? arena_printf(c->a, repr ? ".bind(%lld)" : "=%lld", (long long)x->val) : "";
        s = repr ? arena_printf(c->a, "Variable('%s', %s, %s)%s", x->expr, lo, hi, val) : arena_printf(c->a, "%s[%s-%s%s]", x->expr, lo, hi, val);
      } else if (x->bound)
        s = repr ? arena_printf(c->a, "Variable('%s', %lld, %lld).bind(%lld)", x->expr, (long long)x->min, (long long)x->max, (long long)x->val)
                 : arena_printf(c->a, "%s[%lld-%lld=%lld]", x->expr, (long long)x->min, (long long)x->max, (long long)x->val);
      else
        s = repr ? arena_printf(c->a, "Variable('%s', %lld, %lld)", x->expr, (long long)x->min, (long long)x->max)
                 : arena_printf(c->a, "%s[%lld-%lld]", x->expr, (long long)x->min, (long long)x->max);
      break;
    case SN_MUL:
      if (x->bn == NULL) s = arena_printf(c->a, "(%s*%lld)", sn_render(c, x->a, repr), (long long)x->b);
      else if (x->a->kind == SN_VAR && x->bn->kind == SN_VAR && x->a->expr[0] && x->bn->expr[0] && strcmp(x->bn->expr, x->a->expr) < 0)
        s = arena_printf(c->a, "(%s*%s)", sn_render(c, x->bn, repr), sn_render(c, x->a, repr)); /* render_mulnode */
      else s = arena_printf(c->a, "(%s*%s)", sn_render(c, x->a, repr), sn_render(c, x->bn, repr));
      break;
    case SN_DIV: s = arena_printf(c->a, "(%s//%lld)", sn_render(c, x->a, repr), (long long)x->b); break;
    case SN_MOD: s = arena_printf(c->a, "(%s%%%lld)", sn_render(c, x->a, repr), (long long)x->b); break;
    case SN_LT:
      if (x->bn == NULL) s = arena_printf(c->a, "(%s<%lld)", sn_render(c, x->a, repr), (long long)x->b);
      else s = arena_printf(c->a, "(%s<%s)", sn_render(c, x->a, repr), sn_render(c, x->bn, repr));
      break;
    case SN_SUM:
    case SN_AND: {
      /* "(" + sep.join(sorted(renders)) + ")" */
      const char *sep = x->kind == SN_SUM ? "+" : " and ";
      const char **parts = arena_array(c->a, (size_t)(x->n > 0 ? x->n : 1), sizeof *parts);
      size_t len = 3;
      for (int i = 0; i < x->n; i++) {
        parts[i] = sn_render(c, x->nodes[i], repr);
        len += strlen(parts[i]) + strlen(sep);
      }
      for (int i = 1; i < x->n; i++) { /* insertion sort by strcmp (Python str order for ASCII) */
        const char *p = parts[i];
        int j = i - 1;
        while (j >= 0 && strcmp(parts[j], p) > 0) {
          parts[j + 1] = parts[j];
          j--;
        }
        parts[j + 1] = p;
      }
      char *buf = arena_alloc(c->a, len);
      strcpy(buf, "(");
      for (int i = 0; i < x->n; i++) {
        if (i) strcat(buf, sep);
        strcat(buf, parts[i]);
      }
      strcat(buf, ")");
      s = buf;
      break;
    }
  }
  if (!repr) ((SymNode *)x)->key = s; /* Node.key is a cached_property */
  return s;
}

const char *snode_key(SymNodeCtx *c, const SymNode *x) { return sn_render(c, x, false); }
const char *snode_repr(SymNodeCtx *c, const SymNode *x) { return sn_render(c, x, true); }

/* Node.__eq__ between nodes: NumNode compares its value, everything else its key */
bool snode_eq(SymNodeCtx *c, const SymNode *x, const SymNode *y) {
  if (x == y) return true;
  if (x->kind == SN_NUM || y->kind == SN_NUM) return x->kind == SN_NUM && y->kind == SN_NUM && x->b == y->b;
  /* two Variables: "expr[min-max]" (min >= 0) is equal exactly when expr, min and max are */
  if (x->kind == SN_VAR && y->kind == SN_VAR && sn_int_bounds(x) && sn_int_bounds(y))
    return x->min == y->min && x->max == y->max && x->bound == y->bound && (!x->bound || x->val == y->val) &&
           strcmp(x->expr, y->expr) == 0;
  return strcmp(snode_key(c, x), snode_key(c, y)) == 0;
}

/* OpNode.get_bounds for each class. Bounds are ints or Nodes, computed with Python's operators. */

/* MulNode.get_bounds */
static void sn_bounds_mul(SymNodeCtx *c, SymNode *n) {
  sint amin = snode_min(n->a), amax = snode_max(n->a);
  if (!snv_ge(c, amin, sint_int(0))) sn_raise(c, "AssertionError", "");
  if (n->bn == NULL) {
    sint b = sint_int(n->b);
    if (n->b >= 0) sn_set_bounds(n, snv_mul(c, amin, b), snv_mul(c, amax, b));
    else sn_set_bounds(n, snv_mul(c, amax, b), snv_mul(c, amin, b));
  } else { /* a Node b */
    sint bmin = snode_min(n->bn), bmax = snode_max(n->bn);
    if (snv_ge(c, bmin, sint_int(0))) sn_set_bounds(n, snv_mul(c, amin, bmin), snv_mul(c, amax, bmax));
    else sn_set_bounds(n, snv_mul(c, amax, bmin), snv_mul(c, amin, bmax));
  }
}

static const SymNode *sn_new_mul(SymNodeCtx *c, const SymNode *a, int64_t b) { /* MulNode(a, b) */
  SymNode *n = sn_alloc(c, SN_MUL);
  n->a = a;
  n->b = b;
  sn_bounds_mul(c, n);
  return n;
}

static const SymNode *sn_new_div(SymNodeCtx *c, const SymNode *a, int64_t b) { /* DivNode(a, b) */
  SymNode *n = sn_alloc(c, SN_DIV);
  n->a = a;
  n->b = b;
  sint amin = snode_min(a), amax = snode_max(a), sb = sint_int(b);
  if (!snv_ge(c, amin, sint_int(0))) sn_raise(c, "AssertionError", "");
  sn_set_bounds(n, snv_floordiv(c, amin, sb), snv_floordiv(c, amax, sb));
  return n;
}

static const SymNode *sn_new_mod(SymNodeCtx *c, const SymNode *a, int64_t b) { /* ModNode(a, b) */
  SymNode *n = sn_alloc(c, SN_MOD);
  n->a = a;
  n->b = b;
  sint amin = snode_min(a), amax = snode_max(a), sb = sint_int(b);
  if (!snv_ge(c, amin, sint_int(0))) sn_raise(c, "AssertionError", "");
  /* self.a.max - self.a.min >= self.b or (self.a.min != self.a.max and self.a.min%self.b >= self.a.max%self.b) */
  if (snv_ge(c, snv_sub(c, amax, amin), sb) ||
      (!snv_eq(c, amin, amax) && snv_ge(c, snv_mod(c, amin, sb), snv_mod(c, amax, sb))))
    sn_set_bounds(n, sint_int(0), sint_int(b - 1));
  else sn_set_bounds(n, snv_mod(c, amin, sb), snv_mod(c, amax, sb));
  return n;
}

/* LtNode(a, b) with b an int or a Node */
static const SymNode *sn_new_lt(SymNodeCtx *c, const SymNode *a, sint b) {
  SymNode *n = sn_alloc(c, SN_LT);
  n->a = a;
  n->b = b.i;
  n->bn = sv_n(b);
  sn_lt_bounds(c, a, b, &n->min, &n->max);
  return n;
}

bool snode_lt_node_truthy(SymNodeCtx *c, const SymNode *x, const SymNode *y) { return sn_lt_truthy(c, x, sv_node(y)); }
bool snode_lt_truthy(SymNodeCtx *c, const SymNode *x, int64_t b) { return sn_lt_truthy(c, x, sint_int(b)); }

static const SymNode *sn_new_red(SymNodeCtx *c, SymNodeKind kind, int n, const SymNode *const *nodes) { /* SumNode/AndNode */
  SymNode *r = sn_alloc(c, kind);
  const SymNode **copy = arena_array(c->a, (size_t)(n > 0 ? n : 1), sizeof *copy);
  if (n > 0) memcpy(copy, nodes, sizeof *copy * (size_t)n);
  r->n = n;
  r->nodes = copy;
  sint lo = sint_int(0), hi = sint_int(0);
  if (kind == SN_SUM) { /* sum([x.min for x in self.nodes]), sum([x.max for x in self.nodes]) */
    for (int i = 0; i < n; i++) lo = snv_add(c, lo, snode_min(nodes[i]));
    for (int i = 0; i < n; i++) hi = snv_add(c, hi, snode_max(nodes[i]));
  } else { /* AndNode: min([x.min ...]), max([x.max ...]): the first unless a later one compares less / greater */
    for (int i = 0; i < n; i++)
      if (i == 0 || snv_lt(c, snode_min(nodes[i]), lo)) lo = snode_min(nodes[i]);
    for (int i = 0; i < n; i++)
      if (i == 0 || snv_gt(c, snode_max(nodes[i]), hi)) hi = snode_max(nodes[i]);
  }
  sn_set_bounds(r, lo, hi);
  return r;
}

/* create_node: a node whose bounds meet is a NumNode */
static const SymNode *create_node(SymNodeCtx *c, const SymNode *ret) {
  sint lo = snode_min(ret), hi = snode_max(ret);
  if (!snv_le(c, lo, hi))
    sn_raise(c, "AssertionError",
             arena_printf(c->a, "min greater than max! %s %s when creating <class 'tinygrad.shape.symbolic.%s'> <%s>",
                          sv_str(c, lo), sv_str(c, hi), SN_CLASS[ret->kind], snode_key(c, ret)));
  if (snv_eq(c, lo, hi)) {
    if (lo.sym != NULL) { /* NumNode(ret.min) of a Node */
      sn_raise(c, "AssertionError", arena_printf(c->a, "%s is not an int", sv_str(c, lo)));
    }
    return snode_num(c, lo.i);
  }
  return ret;
}

/* A growable list of nodes. */
typedef struct NodeList { const SymNode **items; int n, cap; } NodeList;

static void nl_push(SymNodeCtx *c, NodeList *l, const SymNode *x) {
  if (l->n == l->cap) {
    int cap = l->cap ? l->cap * 2 : 8;
    const SymNode **bigger = arena_array(c->a, (size_t)cap, sizeof *bigger);
    if (l->n) memcpy(bigger, l->items, sizeof *bigger * (size_t)l->n);
    l->items = bigger;
    l->cap = cap;
  }
  l->items[l->n++] = x;
}

/* SumNode.flat_components */
static void sn_flat_components(SymNodeCtx *c, const SymNode *sum, NodeList *out) {
  for (int i = 0; i < sum->n; i++) {
    if (sum->nodes[i]->kind == SN_SUM) sn_flat_components(c, sum->nodes[i], out);
    else nl_push(c, out, sum->nodes[i]);
  }
}

/* Node.sum */
const SymNode *snode_sum(SymNodeCtx *c, int n, const SymNode *const *nodes_in) {
  NodeList nodes = {0};
  for (int i = 0; i < n; i++)
    if (snv_truthy(c, snode_max(nodes_in[i])) || snv_truthy(c, snode_min(nodes_in[i]))) nl_push(c, &nodes, nodes_in[i]); /* x.max or x.min */
  if (nodes.n == 0) return snode_num(c, 0);
  if (nodes.n == 1) return nodes.items[0];
  NodeList flat = {0};
  sn_flat_components(c, sn_new_red(c, SN_SUM, nodes.n, nodes.items), &flat);
  /* mul_groups: a dict from node (by key) to summed coefficient, in insertion order */
  const SymNode **keys = arena_array(c->a, (size_t)flat.n, sizeof *keys);
  int64_t *coef = arena_array(c->a, (size_t)flat.n, sizeof *coef);
  const SymNode **coefn = arena_array(c->a, (size_t)flat.n, sizeof *coefn); /* a Node coefficient, or NULL */
  int ngroups = 0;
  int64_t num_node_sum = 0;
  for (int i = 0; i < flat.n; i++) {
    const SymNode *node = flat.items[i];
    if (node->kind == SN_NUM) {
      num_node_sum = sn_add64(c, num_node_sum, node->b);
      continue;
    }
    const SymNode *key = node->kind == SN_MUL ? node->a : node;
    int g = 0;
    while (g < ngroups && !snode_eq(c, keys[g], key)) g++;
    if (g == ngroups) {
      keys[ngroups] = key;
      coefn[ngroups] = NULL;
      coef[ngroups++] = 0;
    }
    /* mul_groups.get(node.a, 0) + node.b: an int or a Node on either side */
    if (node->kind == SN_MUL && node->bn != NULL) {
      coefn[g] = coefn[g] != NULL ? snode_add(c, coefn[g], node->bn) : snode_add_int(c, node->bn, coef[g]);
    } else {
      int64_t add = node->kind == SN_MUL ? node->b : 1;
      if (coefn[g] != NULL) coefn[g] = snode_add_int(c, coefn[g], add);
      else coef[g] = sn_add64(c, coef[g], add);
    }
  }
  NodeList new_nodes = {0};
  for (int g = 0; g < ngroups; g++) {
    if (coefn[g] != NULL) { /* `b_sum != 0`, `b_sum != 1`: a Node equals an int only as a NumNode */
      if (snode_eq_int(coefn[g], 0)) continue;
      nl_push(c, &new_nodes, snode_eq_int(coefn[g], 1) ? keys[g] : snode_raw(c, SN_MUL, keys[g], 0, coefn[g], 0, NULL));
      continue;
    }
    if (coef[g] == 0) continue;
    nl_push(c, &new_nodes, coef[g] != 1 ? sn_new_mul(c, keys[g], coef[g]) : keys[g]);
  }
  if (num_node_sum != 0) nl_push(c, &new_nodes, snode_num(c, num_node_sum));
  if (new_nodes.n > 1) return create_node(c, sn_new_red(c, SN_SUM, new_nodes.n, new_nodes.items));
  return new_nodes.n == 1 ? new_nodes.items[0] : snode_num(c, 0);
}

/* Node.__add__: Node.sum([self, b]) */
const SymNode *snode_add(SymNodeCtx *c, const SymNode *x, const SymNode *y) {
  const SymNode *pair[2] = {x, y};
  return snode_sum(c, 2, pair);
}

const SymNode *snode_add_int(SymNodeCtx *c, const SymNode *x, int64_t b) { return snode_add(c, x, snode_num(c, b)); }

/* x * b, dispatching like Python: NumNode.__mul__, MulNode.__mul__, SumNode.__mul__, Node.__mul__ */
const SymNode *snode_mul(SymNodeCtx *c, const SymNode *x, int64_t b) {
  switch (x->kind) {
    case SN_NUM: return snode_num(c, sn_mul64(c, x->b, b));
    case SN_MUL: /* two muls in one mul: self.a*(self.b*b) */
      if (x->bn != NULL) return snode_mul_node(c, x->a, snode_mul(c, x->bn, b));
      return snode_mul(c, x->a, sn_mul64(c, x->b, b));
    case SN_SUM: {                                    /* distribute mul into sum */
      const SymNode **parts = arena_array(c->a, (size_t)x->n, sizeof *parts);
      for (int i = 0; i < x->n; i++) parts[i] = snode_mul(c, x->nodes[i], b);
      return snode_sum(c, x->n, parts);
    }
    default:
      if (b == 0) return snode_num(c, 0);
      if (b == 1) return x;
      return create_node(c, sn_new_mul(c, x, b));
  }
}

enum { FA_DEFAULT = -1 }; /* factoring_allowed: the class's default */

static const SymNode *sn_floordiv(SymNodeCtx *c, const SymNode *x, int64_t b, int fa);

/* Node.__floordiv__ with an int b */
static const SymNode *sn_floordiv_generic(SymNodeCtx *c, const SymNode *x, int64_t b, bool fa) {
  if (!(b != 0)) {
    sn_raise(c, "AssertionError", "");
  }
  if (b < 0) return sn_floordiv(c, snode_mul(c, x, -1), -b, fa);
  if (b == 1) return x;
  /* the numerator of div is not allowed to be negative */
  if (snv_lt(c, snode_min(x), sint_int(0))) {
    sint offset = snv_floordiv(c, snode_min(x), sint_int(b));
    /* factor out an "offset" to make the numerator positive. don't allowing factoring again:
     * (self + -offset*b).__floordiv__(b, factoring_allowed=False) + offset */
    sint shifted = snv_add(c, sv_node(x), snv_mul(c, snv_neg(c, offset), sint_int(b)));
    return sv_n(snv_add(c, sv_node(sn_floordiv(c, sv_as_node(c, shifted), b, false)), offset));
  }
  return create_node(c, sn_new_div(c, x, b));
}

/* SumNode.__floordiv__ with an int b */
static const SymNode *sn_floordiv_sum(SymNodeCtx *c, const SymNode *x, int64_t b, bool fa) {
  if (b == 1) return x;
  if (!fa) return sn_floordiv_generic(c, x, b, fa);
  NodeList flat = {0}, fully_divided = {0}, rest = {0};
  sn_flat_components(c, x, &flat);
  int64_t g = b, divisor = 1;
  for (int i = 0; i < flat.n; i++) {
    const SymNode *y = flat.items[i];
    if (y->kind == SN_MUL && y->bn != NULL) { /* x.b a Node: `x.b % b == 0`, else _gcd = 1 */
      if (snode_eq_int(snode_mod(c, y->bn, b), 0)) {
        nl_push(c, &fully_divided, sn_floordiv(c, y, b, FA_DEFAULT));
      } else {
        nl_push(c, &rest, y);
        g = 1;
      }
    } else if (y->kind == SN_NUM || y->kind == SN_MUL) {
      if (sn_pymod(c, y->b, b) == 0) {
        nl_push(c, &fully_divided, sn_floordiv(c, y, b, FA_DEFAULT));
      } else {
        int64_t div;
        if (y->kind == SN_NUM && (div = sn_pydiv(c, y->b, b)) != 0) {
          nl_push(c, &fully_divided, snode_num(c, div));
          y = snode_num(c, sn_sub64(c, y->b, sn_mul64(c, b, div)));
        }
        nl_push(c, &rest, y);
        g = gcd64(g, y->b);
        if (y->kind == SN_MUL && divisor == 1 && sn_pymod(c, b, y->b) == 0) divisor = y->b;
      }
    } else {
      nl_push(c, &rest, y);
      g = 1;
    }
  }
  const SymNode *fd = snode_sum(c, fully_divided.n, fully_divided.items), *rs = snode_sum(c, rest.n, rest.items);
  if (g > 1) return snode_add(c, fd, sn_floordiv(c, sn_floordiv(c, rs, g, FA_DEFAULT), sn_pydiv(c, b, g), FA_DEFAULT));
  if (divisor > 1)
    return snode_add(c, fd, sn_floordiv(c, sn_floordiv(c, rs, divisor, FA_DEFAULT), sn_pydiv(c, b, divisor), FA_DEFAULT));
  return snode_add(c, fd, sn_floordiv_generic(c, rs, b, true));
}

static const SymNode *sn_floordiv_generic_node(SymNodeCtx *c, const SymNode *x, const SymNode *y, bool fa);

/* a MulNode's b: an int or a Node */
static sint sn_mul_b(const SymNode *x) { return x->bn != NULL ? sv_node(x->bn) : sint_int(x->b); }

/* MulNode.__floordiv__(b, factoring_allowed=False), b an int or a Node; self.b an int or a Node */
static const SymNode *sn_mul_floordiv(SymNodeCtx *c, const SymNode *x, sint b, int fa) {
  sint xb = sn_mul_b(x), a = sv_node(x->a);
  if (snv_eq(c, snv_mod(c, xb, b), sint_int(0))) return sv_n(snv_mul(c, a, snv_floordiv(c, xb, b))); /* self.a*(self.b//b) */
  if (snv_eq(c, snv_mod(c, b, xb), sint_int(0)) && snv_gt(c, xb, sint_int(0)))
    return sv_n(snv_floordiv(c, a, snv_floordiv(c, b, xb))); /* self.a//(b//self.b) */
  bool f = fa == FA_DEFAULT ? false : fa;
  return b.sym == NULL ? sn_floordiv_generic(c, x, b.i, f) : sn_floordiv_generic_node(c, x, sv_n(b), f);
}

/* x.__floordiv__(b, factoring_allowed) dispatched on x's class; fa == FA_DEFAULT uses the class default */
static const SymNode *sn_floordiv(SymNodeCtx *c, const SymNode *x, int64_t b, int fa) {
  switch (x->kind) {
    case SN_MUL: return sn_mul_floordiv(c, x, sint_int(b), fa);
    case SN_DIV: /* DivNode.__floordiv__: two divs is one div */
      return sn_floordiv(c, x->a, sn_mul64(c, x->b, b), FA_DEFAULT);
    case SN_MOD: /* ModNode.__floordiv__(b, factoring_allowed=True) */
      if (sn_pymod(c, x->b, b) == 0) return snode_mod(c, sn_floordiv(c, x->a, b, FA_DEFAULT), sn_pydiv(c, x->b, b));
      return sn_floordiv_generic(c, x, b, fa == FA_DEFAULT ? true : fa);
    case SN_SUM: return sn_floordiv_sum(c, x, b, fa == FA_DEFAULT ? true : fa);
    default: return sn_floordiv_generic(c, x, b, fa == FA_DEFAULT ? true : fa);
  }
}

const SymNode *snode_floordiv(SymNodeCtx *c, const SymNode *x, int64_t b) { return sn_floordiv(c, x, b, FA_DEFAULT); }

/* Node.__mod__ with an int b */
static const SymNode *sn_mod_generic(SymNodeCtx *c, const SymNode *x, int64_t b) {
  if (!(b > 0)) {
    sn_raise(c, "AssertionError", "");
  }
  if (b == 1) return snode_num(c, 0);
  if (!sn_int_bounds(x)) return create_node(c, sn_new_mod(c, x, b)); /* isinstance(self.max, int) and isinstance(self.min, int) */
  if (x->min >= 0 && x->max < b) return x;
  if (py_floordiv(x->min, b) == py_floordiv(x->max, b)) return snode_add_int(c, x, sn_neg64(c, sn_mul64(c, b, py_floordiv(x->min, b))));
  if (x->min < 0) return snode_mod(c, snode_add_int(c, x, -(py_floordiv(x->min, b) * b)), b);
  return create_node(c, sn_new_mod(c, x, b));
}

/* x % b dispatched on x's class */
const SymNode *snode_mod(SymNodeCtx *c, const SymNode *x, int64_t b) {
  switch (x->kind) {
    case SN_MUL: /* MulNode.__mod__: Node.__mod__(self.a * (self.b%b), b) */
      return sn_mod_generic(c, sv_as_node(c, snv_mul(c, sv_node(x->a), snv_mod(c, sn_mul_b(x), sint_int(b)))), b);
    case SN_MOD: /* ModNode.__mod__ */
      if (sn_pymod(c, x->b, b) == 0) return snode_mod(c, x->a, b);
      return sn_mod_generic(c, x, b);
    case SN_SUM: { /* SumNode.__mod__ */
      const SymNode **parts = arena_array(c->a, (size_t)x->n, sizeof *parts);
      for (int i = 0; i < x->n; i++) {
        const SymNode *y = x->nodes[i];
        parts[i] = (y->kind == SN_NUM || y->kind == SN_MUL) ? snode_mod(c, y, b) : y;
      }
      return sn_mod_generic(c, snode_sum(c, x->n, parts), b);
    }
    default: return sn_mod_generic(c, x, b);
  }
}

/* Node.ands */
const SymNode *snode_ands(SymNodeCtx *c, int n, const SymNode *const *nodes) {
  if (n == 0) return snode_num(c, 1);
  if (n == 1) return nodes[0];
  for (int i = 0; i < n; i++)
    if (!snode_truthy(c, nodes[i])) return snode_num(c, 0);
  NodeList keep = {0}; /* filter 1s */
  for (int i = 0; i < n; i++)
    if (!snv_eq(c, snode_min(nodes[i]), snode_max(nodes[i]))) nl_push(c, &keep, nodes[i]);
  if (keep.n > 1) return create_node(c, sn_new_red(c, SN_AND, keep.n, keep.items));
  return keep.n == 1 ? keep.items[0] : snode_num(c, 1);
}

static const SymNode *create_lt_node_int(SymNodeCtx *c, const SymNode *lhs, int64_t b);

/* create_lt_node (shape/symbolic.py); a Node b (NumNode included: not an int) is always create_node(LtNode(lhs, b)) */
const SymNode *create_lt_node(SymNodeCtx *c, const SymNode *lhs, sint b) {
  if (b.sym != NULL) return create_node(c, sn_new_lt(c, lhs, b));
  return create_lt_node_int(c, lhs, b.i);
}

/* create_lt_node with an int b */
static const SymNode *create_lt_node_int(SymNodeCtx *c, const SymNode *lhs, int64_t b) {
  if (lhs->kind == SN_SUM) {
    NodeList new_sum = {0};
    for (int i = 0; i < lhs->n; i++) {
      if (lhs->nodes[i]->kind == SN_NUM) b -= lhs->nodes[i]->b;
      else nl_push(c, &new_sum, lhs->nodes[i]);
    }
    lhs = snode_sum(c, new_sum.n, new_sum.items);
    NodeList nodes = {0}, muls = {0}, others = {0};
    if (lhs->kind == SN_SUM)
      for (int i = 0; i < lhs->n; i++) nl_push(c, &nodes, lhs->nodes[i]);
    else nl_push(c, &nodes, lhs);
    for (int i = 0; i < nodes.n; i++)
      if (nodes.items[i]->kind == SN_MUL && nodes.items[i]->bn != NULL) {
        sn_raise(c, "AssertionError", "not supported");
      }
    for (int i = 0; i < nodes.n; i++) {
      const SymNode *x = nodes.items[i];
      bool is_mul = x->kind == SN_MUL && x->b > 0 && snv_ge(c, snode_max(x), sint_int(b));
      nl_push(c, is_mul ? &muls : &others, x);
    }
    if (muls.n > 0) {
      int64_t mul_gcd = b;
      for (int i = 0; i < muls.n; i++) mul_gcd = gcd64(mul_gcd, muls.items[i]->b);
      const SymNode *all_others = snode_sum(c, others.n, others.items);
      if (snv_ge(c, snode_min(all_others), sint_int(0)) && snv_lt(c, snode_max(all_others), sint_int(mul_gcd))) {
        const SymNode **divided = arena_array(c->a, (size_t)muls.n, sizeof *divided);
        for (int i = 0; i < muls.n; i++) divided[i] = sn_floordiv(c, muls.items[i], mul_gcd, FA_DEFAULT);
        lhs = snode_sum(c, muls.n, divided);
        b = sn_pydiv(c, b, mul_gcd);
      }
    }
    return lhs->kind == SN_SUM ? create_node(c, sn_new_lt(c, lhs, sint_int(b))) : create_lt_node_int(c, lhs, b);
  }
  if (lhs->kind == SN_MUL) {
    if (lhs->bn != NULL || lhs->b == -1) return create_node(c, sn_new_lt(c, lhs, sint_int(b)));
    int64_t sgn = lhs->b > 0 ? 1 : -1, ab = lhs->b > 0 ? lhs->b : -lhs->b;
    return create_node(c, sn_new_lt(c, snode_mul(c, lhs->a, sgn), sint_int(py_floordiv(b + ab - 1, ab))));
  }
  return create_node(c, sn_new_lt(c, lhs, sint_int(b)));
}

/* create_ge_node: create_lt_node(-lhs, -b+1) */
const SymNode *create_ge_node(SymNodeCtx *c, const SymNode *lhs, sint b) {
  return create_lt_node(c, snode_mul(c, lhs, -1), snv_add(c, snv_neg(c, b), sint_int(1)));
}

/* Node.vars(): the Variables, each once (by key), in first-seen order */
static int sn_vars_rec(SymNodeCtx *c, const SymNode *x, const SymNode **out, int cap, int cnt) {
  switch (x->kind) {
    case SN_NUM: return cnt;
    case SN_VAR:
      for (int i = 0; i < cnt && i < cap; i++)
        if (snode_eq(c, out[i], x)) return cnt;
      if (cnt < cap) out[cnt] = x;
      return cnt + 1;
    case SN_SUM:
    case SN_AND:
      for (int i = 0; i < x->n; i++) cnt = sn_vars_rec(c, x->nodes[i], out, cap, cnt);
      return cnt;
    default:
      cnt = sn_vars_rec(c, x->a, out, cap, cnt);
      return x->bn != NULL ? sn_vars_rec(c, x->bn, out, cap, cnt) : cnt;
  }
}

int snode_vars(SymNodeCtx *c, const SymNode *x, const SymNode **out, int cap) { return sn_vars_rec(c, x, out, cap, 0); }


/* ------------------------------------------------------------ Node operands, constructors, substitute */

/* The class constructor without simplification (OpNode.__init__ / RedNode.__init__ with get_bounds). */
const SymNode *snode_raw(SymNodeCtx *c, SymNodeKind kind, const SymNode *a, int64_t b, const SymNode *bn, int n,
                         const SymNode *const *nodes) {
  switch (kind) {
    case SN_MUL: {
      SymNode *x = sn_alloc(c, SN_MUL);
      x->a = a;
      x->b = b;
      x->bn = bn;
      sn_bounds_mul(c, x);
      return x;
    }
    case SN_DIV: return sn_new_div(c, a, b);
    case SN_MOD: return sn_new_mod(c, a, b);
    case SN_LT: return sn_new_lt(c, a, bn != NULL ? sv_node(bn) : sint_int(b));
    case SN_SUM:
    case SN_AND: return sn_new_red(c, kind, n, nodes);
    default: sn_unsupported(c, "symbolic: snode_raw of a leaf"); return snode_num(c, 0);
  }
}

/* x * y with a Node y, dispatched like Python: NumNode.__mul__, MulNode.__mul__, SumNode.__mul__, Node.__mul__ */
const SymNode *snode_mul_node(SymNodeCtx *c, const SymNode *x, const SymNode *y) {
  switch (x->kind) {
    case SN_NUM: return snode_mul(c, y, x->b); /* b*self.b */
    case SN_MUL: /* self.a*(self.b*b): int*Node is b*int */
      return snode_mul_node(c, x->a, x->bn != NULL ? snode_mul_node(c, x->bn, y) : snode_mul(c, y, x->b));
    case SN_SUM: {
      const SymNode **parts = arena_array(c->a, (size_t)x->n, sizeof *parts);
      for (int i = 0; i < x->n; i++) parts[i] = snode_mul_node(c, x->nodes[i], y);
      return snode_sum(c, x->n, parts);
    }
    default:
      if (snode_eq_int(y, 0)) return snode_num(c, 0);
      if (snode_eq_int(y, 1)) return x;
      if (y->kind == SN_NUM) return create_node(c, snode_raw(c, SN_MUL, x, y->b, NULL, 0, NULL));
      return create_node(c, snode_raw(c, SN_MUL, x, 0, y, 0, NULL));
  }
}

/* (b - self).min > 0 and self.min >= 0 */
static bool sn_b_minus_self_positive(SymNodeCtx *c, const SymNode *x, const SymNode *y) {
  return snv_gt(c, snode_min(snode_add(c, y, snode_mul(c, x, -1))), sint_int(0)) && snv_ge(c, snode_min(x), sint_int(0));
}

/* Node.__floordiv__ with a Node b (the base class, whatever x's class) */
static const SymNode *sn_floordiv_generic_node(SymNodeCtx *c, const SymNode *x, const SymNode *y, bool fa) {
  if (y->kind == SN_NUM) return sn_floordiv(c, x, y->b, fa); /* self.__floordiv__(b.b, factoring_allowed) */
  if (snode_eq(c, x, y)) return snode_num(c, 1);
  if (sn_b_minus_self_positive(c, x, y)) return snode_num(c, 0); /* b - self simplifies the node */
  sn_raise(c, "RuntimeError", arena_printf(c->a, "not supported: <%s> // <%s>", snode_key(c, x), snode_key(c, y)));
}

/* SumNode.__floordiv__ with a Node b */
static const SymNode *sn_sum_floordiv_node(SymNodeCtx *c, const SymNode *x, const SymNode *y) {
  if (snode_eq(c, x, y)) return snode_num(c, 1);
  NodeList flat = {0}, fully_divided = {0}, rest = {0};
  sn_flat_components(c, x, &flat);
  for (int i = 0; i < flat.n; i++) {
    const SymNode *z = flat.items[i];
    if (snode_eq_int(snode_mod_node(c, z, y), 0)) nl_push(c, &fully_divided, snode_floordiv_node(c, z, y)); /* x % b == 0 */
    else nl_push(c, &rest, z);
  }
  const SymNode *sum_fully_divided = create_node(c, sn_new_red(c, SN_SUM, fully_divided.n, fully_divided.items));
  if (!snode_eq_int(sum_fully_divided, 0)) /* sum_fully_divided + create_node(SumNode(rest)) // b */
    return snode_add(c, sum_fully_divided, snode_floordiv_node(c, create_node(c, sn_new_red(c, SN_SUM, rest.n, rest.items)), y));
  return sn_floordiv_generic_node(c, x, y, false);
}

/* x // y with a Node y, dispatched on x's class */
const SymNode *snode_floordiv_node(SymNodeCtx *c, const SymNode *x, const SymNode *y) {
  switch (x->kind) {
    case SN_MUL: return sn_mul_floordiv(c, x, sv_node(y), FA_DEFAULT);
    case SN_DIV: return snode_floordiv_node(c, x->a, snode_mul(c, y, x->b)); /* DivNode: self.a//(self.b*b) */
    case SN_MOD: /* ModNode: (self.a//b) % (self.b//b) if self.b % b == 0 else Node.__floordiv__(self, b, True) */
      if (snv_eq(c, snv_mod(c, sint_int(x->b), sv_node(y)), sint_int(0)))
        return sv_as_node(c, snv_mod(c, sv_node(snode_floordiv_node(c, x->a, y)), snv_floordiv(c, sint_int(x->b), sv_node(y))));
      return sn_floordiv_generic_node(c, x, y, true);
    case SN_SUM: return sn_sum_floordiv_node(c, x, y);
    default: return sn_floordiv_generic_node(c, x, y, true);
  }
}

/* Node.__mod__ with a Node b (the base class, whatever x's class) */
static const SymNode *sn_mod_generic_node(SymNodeCtx *c, const SymNode *x, const SymNode *y) {
  if (y->kind == SN_NUM) return snode_mod(c, x, y->b); /* self % b.b */
  if (snode_eq(c, x, y)) return snode_num(c, 0);
  if (sn_b_minus_self_positive(c, x, y)) return x; /* b - self simplifies the node */
  sn_raise(c, "RuntimeError", arena_printf(c->a, "not supported: <%s> %% <%s>", snode_key(c, x), snode_key(c, y)));
}

/* x % y with a Node y, dispatched on x's class */
const SymNode *snode_mod_node(SymNodeCtx *c, const SymNode *x, const SymNode *y) {
  switch (x->kind) {
    case SN_MUL: /* MulNode: Node.__mod__(self.a * (self.b%b), b) */
      return sn_mod_generic_node(c, sv_as_node(c, snv_mul(c, sv_node(x->a), snv_mod(c, sn_mul_b(x), sv_node(y)))), y);
    case SN_SUM: { /* SumNode.__mod__ */
      if (snode_eq(c, x, y)) return snode_num(c, 0);
      if (snv_gt(c, snode_min(snode_add(c, y, snode_mul(c, x, -1))), sint_int(0))) return x; /* (b - self).min > 0 */
      const SymNode **parts = arena_array(c->a, (size_t)(x->n > 0 ? x->n : 1), sizeof *parts);
      for (int i = 0; i < x->n; i++) {
        const SymNode *z = x->nodes[i];
        parts[i] = (z->kind == SN_NUM || z->kind == SN_MUL) ? snode_mod_node(c, z, y) : z;
      }
      return sn_mod_generic_node(c, snode_sum(c, x->n, parts), y);
    }
    default: return sn_mod_generic_node(c, x, y); /* ModNode.__mod__ with a Node b is Node.__mod__ too */
  }
}

/* x.substitute({v: v.unbind()[0]}) for the bound Variables v of x (Node.unbind) */
const SymNode *snode_unbind(SymNodeCtx *c, const SymNode *x) {
  switch (x->kind) {
    case SN_NUM: return x;
    case SN_VAR: return x->bound ? snode_var_sint(c, x->expr, x->min, snode_max(x)) : x; /* Variable(self.expr, self.min, self.max) */
    case SN_MUL: /* self.a.substitute(var_vals) * (self.b if int else self.b.substitute(var_vals)) */
      return x->bn != NULL ? snode_mul_node(c, snode_unbind(c, x->a), snode_unbind(c, x->bn)) : snode_mul(c, snode_unbind(c, x->a), x->b);
    case SN_DIV: return snode_floordiv(c, snode_unbind(c, x->a), x->b);
    case SN_MOD: return snode_mod(c, snode_unbind(c, x->a), x->b);
    case SN_LT: /* create_lt_node(self.a.substitute(var_vals), self.b if int else self.b.substitute(var_vals)) */
      return create_lt_node(c, snode_unbind(c, x->a), x->bn != NULL ? sv_node(snode_unbind(c, x->bn)) : sint_int(x->b));
    case SN_SUM: {
      const SymNode **parts = arena_array(c->a, (size_t)(x->n > 0 ? x->n : 1), sizeof *parts);
      for (int i = 0; i < x->n; i++) parts[i] = snode_unbind(c, x->nodes[i]);
      return snode_sum(c, x->n, parts);
    }
    case SN_AND: {
      const SymNode **parts = arena_array(c->a, (size_t)(x->n > 0 ? x->n : 1), sizeof *parts);
      for (int i = 0; i < x->n; i++) {
        parts[i] = snode_unbind(c, x->nodes[i]);
        if (!snode_truthy(c, parts[i])) return snode_num(c, 0);
      }
      return snode_ands(c, x->n, parts);
    }
  }
  return x;
}

/* x.substitute({v: NumNode(v.val)}) */
static const SymNode *sn_subst_vals(SymNodeCtx *c, const SymNode *x) {
  switch (x->kind) {
    case SN_NUM: return x;
    case SN_VAR:
      if (!x->bound) {
        sn_raise(c, "AssertionError", arena_printf(c->a, "Variable isn't bound, can't access val of <%s>", snode_key(c, x)));
      }
      return snode_num(c, x->val);
    case SN_MUL:
      return x->bn != NULL ? snode_mul_node(c, sn_subst_vals(c, x->a), sn_subst_vals(c, x->bn)) : snode_mul(c, sn_subst_vals(c, x->a), x->b);
    case SN_DIV: return snode_floordiv(c, sn_subst_vals(c, x->a), x->b);
    case SN_MOD: return snode_mod(c, sn_subst_vals(c, x->a), x->b);
    case SN_LT: /* create_lt_node(self.a.substitute(var_vals), self.b if int else self.b.substitute(var_vals)) */
      return create_lt_node(c, sn_subst_vals(c, x->a), x->bn != NULL ? sv_node(sn_subst_vals(c, x->bn)) : sint_int(x->b));
    case SN_SUM:
    case SN_AND: {
      const SymNode **parts = arena_array(c->a, (size_t)(x->n > 0 ? x->n : 1), sizeof *parts);
      for (int i = 0; i < x->n; i++) parts[i] = sn_subst_vals(c, x->nodes[i]);
      return x->kind == SN_SUM ? snode_sum(c, x->n, parts) : snode_ands(c, x->n, parts);
    }
  }
  return x;
}

int64_t snode_infer_bound(SymNodeCtx *c, const SymNode *x) {
  const SymNode *r = sn_subst_vals(c, x);
  if (r->kind != SN_NUM) {
    sn_raise(c, "AssertionError", arena_printf(c->a, "sym_infer didn't produce NumNode from %s", snode_repr(c, x)));
  }
  return r->b;
}
