/* sint.c — the symbolic half of sint.h: Python's operators on `int | Node`
 * (0.9.1) and `int | UOp` (0.10.x), the current symbolic context, and the
 * contract's {"sym": EXPR} encoding.
 *
 * Each function switches on the kind of symbolic value of the context's
 * version (version.h `symbolic`): the SYM_NODE branch calls the Node engine
 * (symbolic_node.c), the SYM_UOP branch the UOp engine (symbolic_uop.c). The 0.10.x branches are kept together at the end of each
 * function, marked "0.10.x"; where the UOp engine has no operation yet they
 * are error_unsupported. Expression trees are shallow (a few dimensions and
 * views), so the walks here recurse, with a depth cap on decoding. */
#include "sint.h"
#include <string.h>
#include "symbolic.h"

/* ------------------------------------------------------------------ the current context */

typedef struct SymState {
  bool active;
  Arena *a;
  TgVersion v;
  SymNodeCtx node;     /* 0.9.1 */
  SymCtx *uop;         /* 0.10.x, made on first use */
} SymState;

static SymState cur;

void sym_begin(Arena *a, TgVersion v) {
  memset(&cur, 0, sizeof cur);
  cur.active = true;
  cur.a = a;
  cur.v = v;
  snode_ctx_init(&cur.node, a);
}

void sym_end(void) { memset(&cur, 0, sizeof cur); }
bool sym_active(void) { return cur.active; }
TgVersion sym_version(void) { return cur.v; }

/* which kind of symbolic value the context's version has (version.h) */
static TgSymbolic sym_kind(void) { return tg_features(cur.v)->symbolic; }

SymNodeCtx *sym_node_ctx(void) { return cur.active && sym_kind() == SYM_NODE ? &cur.node : NULL; }

SymCtx *sym_uop_ctx(void) {
  if (!cur.active || sym_kind() == SYM_NODE) return NULL;
  if (cur.uop == NULL) cur.uop = symctx_new(cur.a, cur.v);
  return cur.uop;
}

_Noreturn static sint unsupported_sint(const char *message) { error_unsupported("%s", message); }

sint sint_overflow(void) { error_unsupported("int64 overflow"); }

/* ------------------------------------------------------------------ 0.9.1 helpers */

/* Python's operators on int | Node are symbolic_node.c's snv_* (in the current context). */
static sint of_node(const SymNode *x) { sint r = {0, x}; return r; }
static const SymNode *node_of(sint x) { return (const SymNode *)x.sym; }

/* ------------------------------------------------------------------ 0.10.x helpers */

static sint of_uop(const SymUOp *x) { sint r = {0, x}; return r; }
static const SymUOp *uop_of(sint x) { return (const SymUOp *)x.sym; }

/* MathTrait.ufix: an int operand next to a UOp becomes the UOp's const_like(int). `like` is the other
 * operand (at least one of a and b is a UOp). */
static const SymUOp *ufix010(SymCtx *c, sint x, sint like) {
  return x.sym != NULL ? uop_of(x) : suop_const_like(c, uop_of(like), x.i);
}

/* Python's a OP b for a comparison OP, at least one operand a UOp, as the UOp MathTrait builds it. Python
 * reflects `int OP UOp` to the UOp's mirrored method (i < u is u.__gt__(i), i <= u is u.__ge__(i)), which
 * builds the same node as suop_OP(const(i), u); only != is symmetric: i != u is u.__ne__(i). */
static const SymUOp *cmp010(SintCmp op, sint a, sint b) {
  SymCtx *c = sym_uop_ctx();
  const SymUOp *x = ufix010(c, a, b), *y = ufix010(c, b, a);
  switch (op) {
    case SINT_LT: return suop_lt(c, x, y);
    case SINT_LE: return suop_le(c, x, y);
    case SINT_GT: return suop_gt(c, x, y);
    case SINT_GE: return suop_ge(c, x, y);
    case SINT_NE:
    default: return a.sym != NULL ? suop_ne(c, x, y) : suop_ne(c, y, x);
  }
}

/* bool(a OP b): UOp.__bool__, a ValueError when the comparison is not one value (in the context) */
static bool cmp_bool010(SintCmp op, sint a, sint b) { return suop_bool(sym_uop_ctx(), cmp010(op, a, b)); }

/* ------------------------------------------------------------------ arithmetic */

/* a + b */
sint sint_add_sym(sint a, sint b) {
  switch (sym_kind()) {
    case SYM_NODE: return snv_add(sym_node_ctx(), a, b); /* Node.__add__ / __radd__: Node.sum([self, b]) */
    /* ---- 0.10.x */
    case SYM_UOP:
    default: {
      SymCtx *c = sym_uop_ctx(); /* MathTrait.add: self.alu(ADD, ufix(x)); __radd__: ufix(x).alu(ADD, self) */
      return of_uop(suop_add(c, ufix010(c, a, b), ufix010(c, b, a)));
    }
  }
}

/* a - b */
sint sint_sub_sym(sint a, sint b) {
  switch (sym_kind()) {
    case SYM_NODE: return snv_sub(sym_node_ctx(), a, b); /* Node.__sub__: self+-b; Node.__rsub__: -self+b */
    /* ---- 0.10.x: MathTrait.sub: self.alu(ADD, -x) / ufix(x).alu(ADD, -self) */
    case SYM_UOP:
    default: {
      SymCtx *c = sym_uop_ctx();
      if (b.sym == NULL) return of_uop(suop_sub_int(c, uop_of(a), b.i)); /* u - i: u + const(-i) */
      return of_uop(suop_sub(c, ufix010(c, a, b), uop_of(b)));          /* u - v, i - u: x + (v * -1) */
    }
  }
}

/* a * b */
sint sint_mul_sym(sint a, sint b) {
  switch (sym_kind()) {
    case SYM_NODE: return snv_mul(sym_node_ctx(), a, b); /* x.__mul__(b) by class; int * Node is Node.__rmul__: self*b */
    /* ---- 0.10.x */
    case SYM_UOP:
    default: {
      SymCtx *c = sym_uop_ctx(); /* MathTrait.mul / __rmul__ */
      return of_uop(suop_mul(c, ufix010(c, a, b), ufix010(c, b, a)));
    }
  }
}

/* a // b */
sint sint_floordiv_sym(sint a, sint b) {
  switch (sym_kind()) {
    case SYM_NODE: return snv_floordiv(sym_node_ctx(), a, b); /* Node.__floordiv__; int // Node is Node.__rfloordiv__ */
    /* ---- 0.10.x */
    case SYM_UOP:
    default: { /* MathTrait.idiv / __rfloordiv__: building the node never raises, simplifying it may */
      SymCtx *c = sym_uop_ctx();
      return of_uop(suop_idiv(c, ufix010(c, a, b), ufix010(c, b, a)));
    }
  }
}

/* a % b */
sint sint_mod_sym(sint a, sint b) {
  switch (sym_kind()) {
    case SYM_NODE: return snv_mod(sym_node_ctx(), a, b); /* Node.__mod__; int % Node is Node.__rmod__ */
    /* ---- 0.10.x */
    case SYM_UOP:
    default: { /* MathTrait.__mod__ / __rmod__ */
      SymCtx *c = sym_uop_ctx();
      return of_uop(suop_mod(c, ufix010(c, a, b), ufix010(c, b, a)));
    }
  }
}

/* ------------------------------------------------------------------ comparisons */

/* a == b */
bool sint_eq_sym(sint a, sint b) {
  switch (sym_kind()) {
    case SYM_NODE: return snv_eq(sym_node_ctx(), a, b); /* NumNode.__eq__ / Node.__eq__; an int equals only a NumNode */
    /* ---- 0.10.x: UOps are hash-consed and never equal to an int */
    case SYM_UOP:
    default: return a.sym == b.sym && a.sym != NULL;
  }
}

/* bool(a < b) */
bool sint_lt_sym(sint a, sint b) {
  switch (sym_kind()) {
    case SYM_NODE: return snv_lt(sym_node_ctx(), a, b); /* Node.__lt__; int < Node is Node.__gt__: (-self) < (-b) */
    /* ---- 0.10.x */
    case SYM_UOP:
    default: return cmp_bool010(SINT_LT, a, b);
  }
}

/* bool(a <= b) */
bool sint_le_sym(sint a, sint b) {
  switch (sym_kind()) {
    case SYM_NODE: return snv_le(sym_node_ctx(), a, b); /* Node.__le__: self < (b+1); int <= Node is Node.__ge__ */
    /* ---- 0.10.x */
    case SYM_UOP:
    default: return cmp_bool010(SINT_LE, a, b);
  }
}

/* bool(a > b) */
bool sint_gt_sym(sint a, sint b) {
  switch (sym_kind()) {
    case SYM_NODE: return snv_gt(sym_node_ctx(), a, b); /* Node.__gt__: (-self) < (-b); int > Node is Node.__lt__ */
    /* ---- 0.10.x */
    case SYM_UOP:
    default: return cmp_bool010(SINT_GT, a, b);
  }
}

/* bool(a >= b) */
bool sint_ge_sym(sint a, sint b) {
  switch (sym_kind()) {
    case SYM_NODE: return snv_ge(sym_node_ctx(), a, b); /* Node.__ge__: (-self) < (-b+1); int >= Node is Node.__le__ */
    /* ---- 0.10.x */
    case SYM_UOP:
    default: return cmp_bool010(SINT_GE, a, b);
  }
}

bool sint_truthy(sint x) {
  if (x.sym == NULL) return x.i != 0;
  switch (sym_kind()) {
    case SYM_NODE: return snode_truthy(sym_node_ctx(), node_of(x));  /* Node.__bool__ */
    /* ---- 0.10.x */
    case SYM_UOP:
    default: return suop_bool(sym_uop_ctx(), uop_of(x)); /* UOp.__bool__ (an int UOp: AssertionError) */
  }
}

bool sint_resolve_lt(sint a, sint b, bool dflt) {
  if (a.sym == NULL && b.sym == NULL) return a.i < b.i;
  switch (sym_kind()) {
    case SYM_NODE: return sint_lt_sym(a, b);
    /* ---- 0.10.x: resolve(a < b, dflt) */
    case SYM_UOP:
    default: return suop_resolve(sym_uop_ctx(), cmp010(SINT_LT, a, b), dflt);
  }
}

bool sint_cmp(SintCmp op, sint a, sint b) {
  switch (op) {
    case SINT_LT: return sint_lt(a, b);
    case SINT_LE: return sint_le(a, b);
    case SINT_GT: return sint_gt(a, b);
    case SINT_GE: return sint_ge(a, b);
    case SINT_NE:
    default:
      if (a.sym == NULL && b.sym == NULL) return a.i != b.i;
      switch (sym_kind()) {
        case SYM_NODE: return !sint_eq_sym(a, b); /* Node defines __eq__ only */
        /* ---- 0.10.x: UOp.__ne__ builds CMPNE; bool() evaluates it */
        case SYM_UOP:
        default: return cmp_bool010(SINT_NE, a, b);
      }
  }
}

bool sint_resolve(SintCmp op, sint a, sint b, bool dflt) {
  if (a.sym == NULL && b.sym == NULL) return sint_cmp(op, a, b);
  switch (sym_kind()) {
    case SYM_NODE: return sint_cmp(op, a, b);
    /* ---- 0.10.x: resolve(a OP b, dflt) */
    case SYM_UOP:
    default: return suop_resolve(sym_uop_ctx(), cmp010(op, a, b), dflt);
  }
}

sint sint_ssimplify(sint x) {
  if (x.sym == NULL || sym_kind() == SYM_NODE) return x;
  const SymUOp *s = suop_simplify(sym_uop_ctx(), uop_of(x)); /* ---- 0.10.x: UOp.ssimplify */
  return s->op == SU_CONST ? sint_int(s->arg) : of_uop(s);
}

/* _suop(lst, uop_fxn, python_fxn) (0.10.x): the UOps in order, then python_fxn of the ints */
static sint suop_reduce010(int n, const sint *xs, bool is_max) {
  SymCtx *c = sym_uop_ctx();
  const SymUOp *acc = NULL;
  bool have_num = false;
  int64_t num = 0;
  for (int k = 0; k < n; k++) {
    if (xs[k].sym == NULL) {
      if (!have_num || (is_max ? xs[k].i > num : xs[k].i < num)) num = xs[k].i, have_num = true;
    } else if (acc == NULL) {
      acc = uop_of(xs[k]);
    } else {
      acc = is_max ? suop_maximum(c, acc, uop_of(xs[k])) : suop_minimum(c, acc, uop_of(xs[k]));
    }
  }
  if (acc == NULL) return sint_int(num);
  if (have_num) acc = is_max ? suop_maximum(c, acc, suop_const_like(c, acc, num)) : suop_minimum_int(c, acc, num);
  return sint_ssimplify(of_uop(acc));
}

sint sint_smax(int n, const sint *xs) { return suop_reduce010(n, xs, true); }
sint sint_smin(int n, const sint *xs) { return suop_reduce010(n, xs, false); }

/* ------------------------------------------------------------------ helpers over tuples */

sint sint_prod(int n, const sint *xs) {
  sint p = sint_int(1);
  for (int i = 0; i < n; i++) p = sint_mul(p, xs[i]);
  return p;
}

bool sint_all_int(int n, const sint *xs) {
  for (int i = 0; i < n; i++)
    if (xs[i].sym != NULL) return false;
  return true;
}

int64_t sint_max_int(sint x) {
  if (x.sym == NULL) return x.i;
  switch (sym_kind()) {
    case SYM_NODE: /* View.size: `assert isinstance(ret, int)` */
      if (node_of(x)->nmax != NULL) unsupported_sint("symbolic: View.size of a dimension whose max is a Node");
      return node_of(x)->max;
    /* ---- 0.10.x */
    case SYM_UOP:
    default: return suop_vmax(uop_of(x));
  }
}

static uint64_t hash_str(const char *s) {
  uint64_t h = 1469598103934665603ULL;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211ULL;
  return h;
}

uint64_t sint_hash(sint x) {
  if (x.sym == NULL) return (uint64_t)x.i;
  switch (sym_kind()) {
    case SYM_NODE: { /* hash(NumNode) == hash(int); other Nodes hash their key */
      const SymNode *n = node_of(x);
      return n->kind == SN_NUM ? (uint64_t)n->b : hash_str(snode_key(sym_node_ctx(), n));
    }
    /* ---- 0.10.x: hash-consed */
    case SYM_UOP:
    default: return uop_of(x)->hash;
  }
}

int64_t sint_infer_bound(sint x) {
  if (x.sym == NULL) return x.i;
  switch (sym_kind()) {
    case SYM_NODE: return snode_infer_bound(sym_node_ctx(), node_of(x));
    /* ---- 0.10.x */
    case SYM_UOP:
    default: { /* sym_infer(x, dict([v.unbind() for v in x.vars()])) (View.reshape): every Variable bound */
      SymCtx *c = sym_uop_ctx();
      const SymUOp **vars;
      int n = suop_vars(c, uop_of(x), &vars);
      int64_t *vals = arena_array(cur.a, (size_t)n + 1, sizeof *vals);
      const SymUOp **unbound = arena_array(cur.a, (size_t)n + 1, sizeof *unbound);
      for (int k = 0; k < n; k++)
        suop_unbind(c, vars[k], &unbound[k], &vals[k]);
      return suop_sym_infer(c, uop_of(x), n, unbound, vals);
    }
  }
}

sint sint_unbind(sint x) {
  if (x.sym == NULL) return x;
  switch (sym_kind()) {
    case SYM_NODE: return of_node(snode_unbind(sym_node_ctx(), node_of(x)));
    /* ---- 0.10.x */
    case SYM_UOP:
    default: return of_uop(suop_unbind_all(sym_uop_ctx(), uop_of(x))); /* x.substitute({bind: var}) */
  }
}

void sint_vars(sint x, sint *out, int *n, int cap) {
  if (x.sym == NULL) return;
  switch (sym_kind()) {
    case SYM_NODE: {
      SymNodeCtx *c = sym_node_ctx();
      const SymNode *vs[64];
      int nv = snode_vars(c, node_of(x), vs, 64);
      if (nv > 64) {
        unsupported_sint("symbolic: more than 64 variables");
        return;
      }
      for (int k = 0; k < nv; k++) {
        int j = 0;
        while (j < *n && !snode_eq(c, node_of(out[j]), vs[k])) j++;
        if (j == *n && *n < cap) out[(*n)++] = of_node(vs[k]);
        else if (j == *n) unsupported_sint("symbolic: too many variables");
      }
      return;
    }
    /* ---- 0.10.x */
    case SYM_UOP:
    default: { /* x.vars(): BINDs and unbound DEFINE_VARs, distinct nodes */
      const SymUOp **vs;
      int nv = suop_vars(sym_uop_ctx(), uop_of(x), &vs);
      for (int k = 0; k < nv; k++) {
        int j = 0;
        while (j < *n && out[j].sym != vs[k]) j++;
        if (j == *n && *n < cap) out[(*n)++] = of_uop(vs[k]);
        else if (j == *n) unsupported_sint("symbolic: too many variables");
      }
      return;
    }
  }
}

const char *sint_repr(Arena *a, sint x) {
  if (x.sym == NULL) return arena_printf(a, "%lld", (long long)x.i);
  switch (sym_kind()) {
    case SYM_NODE: return snode_repr(sym_node_ctx(), node_of(x));
    /* ---- 0.10.x */
    case SYM_UOP:
    default: return suop_repr(sym_uop_ctx(), uop_of(x)); /* pretty_print */
  }
}

const char *sint_str(Arena *a, sint x) {
  if (x.sym == NULL) return arena_printf(a, "%lld", (long long)x.i);
  switch (sym_kind()) {
    case SYM_NODE: return arena_printf(a, "<%s>", snode_key(sym_node_ctx(), node_of(x)));  /* Node.__str__ */
    /* ---- 0.10.x */
    case SYM_UOP:
    default: return suop_repr(sym_uop_ctx(), uop_of(x)); /* UOp has no __str__: its repr */
  }
}

/* ------------------------------------------------------------------ JSON */

enum { SYM_MAX_DEPTH = 64 };

static bool int_field(const JVal *o, const char *key, int64_t *out) {
  const JVal *v = json_get(o, key);
  if (v == NULL || v->kind != J_INT) return false;
  *out = v->u.i;
  return true;
}

/* {"var": name, "min": int, "max": int, "val"?: int} fields */
static void var_fields(const JVal *j, const char **name, int64_t *mn, int64_t *mx, bool *bound, int64_t *val) {
  const JVal *nm = json_get(j, "var"), *v = json_get(j, "val");
  if (nm == NULL || nm->kind != J_STR) error_bad_input("symbolic: a Variable needs a name");
  if (!int_field(j, "min", mn) || !int_field(j, "max", mx)) {
    const JVal *jm = json_get(j, "max");
    if (jm != NULL && jm->kind == J_OBJ) error_unsupported("symbolic: a Variable with a symbolic max");
    error_bad_input("symbolic: a Variable needs int min and max");
  }
  *name = nm->u.s;
  *bound = v != NULL && v->kind != J_NULL;
  if (*bound && v->kind != J_INT) error_bad_input("symbolic: a Variable's val must be an int");
  *val = *bound ? v->u.i : 0;
}

static bool op_name_is(const JVal *op, const char *name) { return strcmp(op->u.s, name) == 0; }

/* EXPR -> Node (0.9.1). `operand` is true for the b of MUL/DIV/MOD/LT, where an int is the int b. */
static const SymNode *node_from_expr(SymNodeCtx *c, const JVal *j, int depth) {
  if (depth > SYM_MAX_DEPTH) error_bad_input("symbolic: expression nested too deeply");
  if (j->kind == J_INT) return snode_num(c, j->u.i);
  if (j->kind != J_OBJ) error_bad_input("symbolic: EXPR must be an int or an object");
  if (json_get(j, "var") != NULL) {
    const char *name;
    int64_t mn, mx, val;
    bool bound;
    var_fields(j, &name, &mn, &mx, &bound, &val);
    const char *copy = arena_printf(c->a, "%s", name);
    return bound ? snode_var_bound(c, copy, mn, mx, val) : snode_var(c, copy, mn, mx);
  }
  const JVal *op = json_get(j, "op"), *src = json_get(j, "src");
  if (op == NULL || op->kind != J_STR || src == NULL || src->kind != J_ARR) error_bad_input("symbolic: EXPR needs op and src");
  int n = (int)src->n;
  if (op_name_is(op, "SUM") || op_name_is(op, "AND")) {
    const SymNode **nodes = arena_array(c->a, (size_t)(n > 0 ? n : 1), sizeof *nodes);
    for (int k = 0; k < n; k++)
      nodes[k] = node_from_expr(c, src->u.arr[k], depth + 1);
    return snode_raw(c, op_name_is(op, "SUM") ? SN_SUM : SN_AND, NULL, 0, NULL, n, nodes);
  }
  SymNodeKind kind;
  if (op_name_is(op, "MUL")) kind = SN_MUL;
  else if (op_name_is(op, "DIV")) kind = SN_DIV;
  else if (op_name_is(op, "MOD")) kind = SN_MOD;
  else if (op_name_is(op, "LT")) kind = SN_LT;
  else error_bad_input("symbolic: unknown 0.9.1 node op");
  if (n != 2) error_bad_input("symbolic: a binary node needs two sources");
  const SymNode *a = node_from_expr(c, src->u.arr[0], depth + 1), *bn = NULL;
  const JVal *jb = src->u.arr[1];
  if (jb->kind != J_INT) {
    if (kind == SN_DIV || kind == SN_MOD) error_unsupported("symbolic: a DivNode/ModNode with a Node b");
    bn = node_from_expr(c, jb, depth + 1);
  }
  return snode_raw(c, kind, a, jb->kind == J_INT ? jb->u.i : 0, bn, 0, NULL);
}

/* Node -> EXPR (0.9.1) */
static JVal *expr_from_node(Arena *a, const SymNode *x) {
  static const char *const names[] = {"", "", "MUL", "DIV", "MOD", "LT", "SUM", "AND"};
  if (x->kind == SN_NUM) return json_int(a, x->b);
  JVal *o = json_obj(a), *src = json_arr(a);
  if (x->kind == SN_VAR) {
    if (x->nmin != NULL || x->nmax != NULL) unsupported_sint("symbolic: encoding a Variable whose bound is a Node");
    json_set(a, o, "var", json_str(a, x->expr));
    json_set(a, o, "min", json_int(a, x->min));
    json_set(a, o, "max", json_int(a, x->max));
    if (x->bound) json_set(a, o, "val", json_int(a, x->val));
    return o;
  }
  json_set(a, o, "op", json_str(a, names[x->kind]));
  if (x->kind == SN_SUM || x->kind == SN_AND) {
    for (int k = 0; k < x->n; k++) json_push(a, src, expr_from_node(a, x->nodes[k]));
  } else {
    json_push(a, src, expr_from_node(a, x->a));
    json_push(a, src, x->bn != NULL ? expr_from_node(a, x->bn) : json_int(a, x->b));
  }
  json_set(a, o, "src", src);
  return o;
}

/* ---- 0.10.x: EXPR -> UOp */

/* EXPR -> UOp (0.10.x): an int (or bool) inside an expression is a CONST; a var is a DEFINE_VAR, BIND of it
 * and a CONST when it has a val; an op node is UOp(op, dtype, src, arg) with UOp.alu's dtype (bool for
 * comparisons, else the last source's) unless it names one. */
/* how many sources an index expression's op takes (CAST 1, WHERE 3, BIND and RANGE 2, the binary ops 2) */
static int expr_arity(SymOp op) { return op == SU_CAST ? 1 : op == SU_WHERE ? 3 : 2; }

static const SymUOp *uop_from_expr(SymCtx *c, Arena *a, const JVal *j, int depth) {
  if (depth > SYM_MAX_DEPTH) error_bad_input("symbolic: expression nested too deeply");
  if (j->kind == J_INT) return suop_const(c, SDT_INT, j->u.i);
  if (j->kind == J_BOOL) return suop_const(c, SDT_BOOL, j->u.b);
  if (j->kind != J_OBJ) error_unsupported("symbolic: a UOp constant that is not an int");
  if (json_get(j, "var") != NULL) {
    const char *name;
    int64_t mn, mx, val;
    bool bound;
    var_fields(j, &name, &mn, &mx, &bound, &val);
    if (bound && !(mn <= val && val <= mx)) error_bad_input("symbolic: a Variable's val outside [min, max] (UOp.bind asserts)");
    const SymUOp *var = suop_variable(c, arena_printf(a, "%s", name), mn, mx);
    return bound ? suop_bind(c, var, val) : var;
  }
  const JVal *op = json_get(j, "op"), *src = json_get(j, "src"), *arg = json_get(j, "arg"), *dt = json_get(j, "dtype");
  SymOp sop;
  if (op == NULL || op->kind != J_STR || src == NULL || src->kind != J_ARR) error_bad_input("symbolic: EXPR needs op and src");
  if (dt != NULL && !(dt->kind == J_STR && (strcmp(dt->u.s, "int") == 0 || strcmp(dt->u.s, "bool") == 0)))
    error_unsupported("symbolic: a UOp of a dtype other than int or bool");
  if (!suop_op_from_name(op->u.s, &sop) || sop == SU_CONST || sop == SU_DEFINE_VAR)
    error_unsupported("symbolic: a UOp op the index engine does not model");
  if (src->n != (size_t)expr_arity(sop)) error_bad_input("symbolic: EXPR with the wrong number of sources for its op");
  const SymUOp *srcs[3] = {NULL, NULL, NULL};
  for (uint32_t k = 0; k < src->n; k++)
    srcs[k] = uop_from_expr(c, a, src->u.arr[k], depth + 1);
  SymDType dtype = (sop == SU_CMPLT || sop == SU_CMPNE) ? SDT_BOOL : srcs[src->n - 1]->dtype;
  if (dt != NULL) dtype = strcmp(dt->u.s, "bool") == 0 ? SDT_BOOL : SDT_INT;
  int64_t iarg = 0; /* RANGE: the axis; 0.10.0 writes its (axis, False) */
  if (arg != NULL && arg->kind == J_ARR && arg->n == 2 && arg->u.arr[0]->kind == J_INT) iarg = arg->u.arr[0]->u.i;
  else if (arg != NULL && arg->kind == J_INT) iarg = arg->u.i;
  else if (arg != NULL && arg->kind != J_NULL) error_unsupported("symbolic: a UOp arg the index engine does not model");
  return suop_make(c, sop, dtype, (int)src->n, srcs, iarg, NULL, 0, 0);
}

/* UOp -> EXPR (0.10.x) */
static JVal *expr_from_uop(Arena *a, TgVersion v, const SymUOp *x) {
  if (x->op == SU_CONST) return x->dtype == SDT_BOOL ? json_bool(a, x->arg != 0) : json_int(a, x->arg);
  JVal *o = json_obj(a);
  const SymUOp *var = x->op == SU_BIND && x->src[0]->op == SU_DEFINE_VAR && x->src[1]->op == SU_CONST ? x->src[0] : NULL;
  if (x->op == SU_DEFINE_VAR || var != NULL) {
    const SymUOp *d = var != NULL ? var : x;
    json_set(a, o, "var", json_str(a, d->name));
    json_set(a, o, "min", json_int(a, d->lo));
    json_set(a, o, "max", json_int(a, d->hi));
    if (var != NULL) json_set(a, o, "val", json_int(a, x->src[1]->arg));
    return o;
  }
  JVal *src = json_arr(a);
  json_set(a, o, "op", json_str(a, suop_op_name(x->op)));
  for (int k = 0; k < x->nsrc; k++) json_push(a, src, expr_from_uop(a, v, x->src[k]));
  json_set(a, o, "src", src);
  if (x->op == SU_RANGE) { /* arg: (axis, False) or axis */
    JVal *arg = json_int(a, x->arg);
    if (tg_features(v)->range_arg_axis_flag) {
      arg = json_arr(a);
      json_push(a, arg, json_int(a, x->arg));
      json_push(a, arg, json_bool(a, false));
    }
    json_set(a, o, "arg", arg);
  }
  return o;
}

sint sint_from_json(Arena *a, const JVal *j) {
  if (j != NULL && j->kind == J_INT) return sint_int(j->u.i);
  if (j != NULL && j->kind == J_UINT) error_unsupported("shape value above int64");
  const JVal *e = j != NULL && j->kind == J_OBJ && j->n == 1 ? json_get(j, "sym") : NULL;
  if (e == NULL) error_bad_input("ShapeTracker: expected an int or {\"sym\": ...}");
  if (!cur.active) error_unsupported("symbolic shape: unsupported");
  (void)a;
  switch (sym_kind()) {
    case SYM_NODE: return of_node(node_from_expr(&cur.node, e, 0));
    /* ---- 0.10.x */
    case SYM_UOP:
    default: return of_uop(uop_from_expr(sym_uop_ctx(), cur.a, e, 0));
  }
}

JVal *sint_to_json(Arena *a, sint x) {
  if (x.sym == NULL) return json_int_shared(a, x.i);
  JVal *o = json_obj(a);
  switch (sym_kind()) {
    case SYM_NODE: json_set(a, o, "sym", expr_from_node(a, node_of(x))); break;
    /* ---- 0.10.x */
    case SYM_UOP:
    default: json_set(a, o, "sym", expr_from_uop(a, sym_version(), uop_of(x))); break;
  }
  return o;
}
