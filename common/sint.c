/* sint.c — the symbolic half of sint.h: Python's operators on `int | Node`
 * (0.9.1) and `int | UOp` (0.10.x), the current symbolic context, and the
 * contract's {"sym": EXPR} encoding.
 *
 * Each function switches on the context's TgVersion: the 0.9.1 branch calls
 * the Node engine (symbolic_node.c), the 0.10.x branch the UOp engine
 * (symbolic_uop.c). The 0.10.x branches are kept together at the end of each
 * function, marked "0.10.x"; where the UOp engine has no operation yet they
 * report ST_UNSUPPORTED. Expression trees are shallow (a few dimensions and
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

static _Thread_local SymState cur;

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

SymNodeCtx *sym_node_ctx(void) { return cur.active && cur.v == TG_0_9_1 ? &cur.node : NULL; }

SymCtx *sym_uop_ctx(void) {
  if (!cur.active || cur.v == TG_0_9_1) return NULL;
  if (cur.uop == NULL) cur.uop = symctx_new(cur.a, cur.v);
  return cur.uop;
}

static StError *cur_error(void) {
  if (!cur.active) return NULL;
  if (cur.v == TG_0_9_1) return &cur.node.err;
  return cur.uop != NULL ? symctx_error(cur.uop) : NULL;
}

bool sym_failed(void) {
  StError *e = cur_error();
  return e != NULL && e->status != ST_OK;
}

bool sym_take_error(StError *err) {
  StError *e = cur_error();
  if (e == NULL || e->status == ST_OK) return false;
  if (err->status == ST_OK) *err = *e;
  st_error_clear(e);
  return true;
}

/* An error of the current context (the first one wins); without a context nothing records it. */
static void sym_set_error(StStatus kind, const char *type, const char *message) {
  StError *e = cur_error();
  if (e == NULL && cur.active && cur.v != TG_0_9_1) e = symctx_error(sym_uop_ctx());
  if (e == NULL || e->status != ST_OK) return;
  e->status = kind;
  e->type = type;
  e->message = message;
}

static sint unsupported_sint(const char *message) {
  sym_set_error(ST_UNSUPPORTED, "", message);
  return sint_int(0);
}

/* ------------------------------------------------------------------ 0.9.1 helpers */

/* Python's operators on int | Node are symbolic_node.c's snv_* (in the current context). */
static sint of_node(const SymNode *x) { sint r = {0, x}; return r; }
static const SymNode *node_of(sint x) { return (const SymNode *)x.sym; }

/* ------------------------------------------------------------------ 0.10.x helpers */

static sint of_uop(const SymUOp *x) { sint r = {0, x}; return r; }
static const SymUOp *uop_of(sint x) { return (const SymUOp *)x.sym; }

/* bool(x) of a UOp comparison: UOp.__bool__ needs a constant after simplification */
static bool uop_bool010(SymCtx *c, const SymUOp *x) {
  const SymUOp *sx = suop_simplify(c, x);
  if (suop_vmin(sx) == suop_vmax(sx)) return suop_vmin(sx) != 0;
  unsupported_sint("symbolic: bool() of a UOp that is not constant");
  return false;
}

/* ------------------------------------------------------------------ arithmetic */

/* a + b */
sint sint_add_sym(sint a, sint b) {
  switch (sym_version()) {
    case TG_0_9_1: return snv_add(sym_node_ctx(), a, b); /* Node.__add__ / __radd__: Node.sum([self, b]) */
    /* ---- 0.10.x */
    case TG_0_10_0:
    case TG_0_10_2:
    default: {
      SymCtx *c = sym_uop_ctx();
      if (a.sym != NULL && b.sym != NULL) return of_uop(suop_add(c, uop_of(a), uop_of(b)));
      if (a.sym != NULL) return of_uop(suop_add_int(c, uop_of(a), b.i));
      return of_uop(suop_radd_int(c, a.i, uop_of(b)));
    }
  }
}

/* a - b */
sint sint_sub_sym(sint a, sint b) {
  switch (sym_version()) {
    case TG_0_9_1: return snv_sub(sym_node_ctx(), a, b); /* Node.__sub__: self+-b; Node.__rsub__: -self+b */
    /* ---- 0.10.x: MathTrait.sub: self.alu(ADD, -x) / ufix(x).alu(ADD, -self) */
    case TG_0_10_0:
    case TG_0_10_2:
    default: {
      SymCtx *c = sym_uop_ctx();
      if (a.sym != NULL && b.sym == NULL) return of_uop(suop_add_int(c, uop_of(a), -b.i));
      if (a.sym != NULL) return of_uop(suop_add(c, uop_of(a), suop_mul_int(c, uop_of(b), -1)));
      return of_uop(suop_radd_int(c, a.i, suop_mul_int(c, uop_of(b), -1)));
    }
  }
}

/* a * b */
sint sint_mul_sym(sint a, sint b) {
  switch (sym_version()) {
    case TG_0_9_1: return snv_mul(sym_node_ctx(), a, b); /* x.__mul__(b) by class; int * Node is Node.__rmul__: self*b */
    /* ---- 0.10.x */
    case TG_0_10_0:
    case TG_0_10_2:
    default: {
      SymCtx *c = sym_uop_ctx();
      if (a.sym != NULL && b.sym != NULL) return of_uop(suop_mul(c, uop_of(a), uop_of(b)));
      if (a.sym != NULL) return of_uop(suop_mul_int(c, uop_of(a), b.i));
      return of_uop(suop_alu(c, SU_MUL, suop_const(c, SDT_INT, a.i), uop_of(b)));  /* __rmul__: ufix(x).alu(MUL, self) */
    }
  }
}

/* a // b */
sint sint_floordiv_sym(sint a, sint b) {
  switch (sym_version()) {
    case TG_0_9_1: return snv_floordiv(sym_node_ctx(), a, b); /* Node.__floordiv__; int // Node is Node.__rfloordiv__ */
    /* ---- 0.10.x */
    case TG_0_10_0:
    case TG_0_10_2:
    default:
      if (a.sym != NULL && b.sym == NULL) {
        if (b.i == 0) return unsupported_sint("symbolic: UOp // 0");
        return of_uop(suop_idiv_int(sym_uop_ctx(), uop_of(a), b.i));
      }
      return unsupported_sint("symbolic: // with a UOp divisor");
  }
}

/* a % b */
sint sint_mod_sym(sint a, sint b) {
  switch (sym_version()) {
    case TG_0_9_1: return snv_mod(sym_node_ctx(), a, b); /* Node.__mod__; int % Node is Node.__rmod__ */
    /* ---- 0.10.x */
    case TG_0_10_0:
    case TG_0_10_2:
    default:
      if (a.sym != NULL && b.sym == NULL) {
        if (b.i == 0) return unsupported_sint("symbolic: UOp % 0");
        return of_uop(suop_mod_int(sym_uop_ctx(), uop_of(a), b.i));
      }
      return unsupported_sint("symbolic: % with a UOp divisor");
  }
}

/* ------------------------------------------------------------------ comparisons */

/* a == b */
bool sint_eq_sym(sint a, sint b) {
  switch (sym_version()) {
    case TG_0_9_1: return snv_eq(sym_node_ctx(), a, b); /* NumNode.__eq__ / Node.__eq__; an int equals only a NumNode */
    /* ---- 0.10.x: UOps are hash-consed and never equal to an int */
    case TG_0_10_0:
    case TG_0_10_2:
    default: return a.sym == b.sym && a.sym != NULL;
  }
}

/* bool(a < b) */
bool sint_lt_sym(sint a, sint b) {
  switch (sym_version()) {
    case TG_0_9_1: return snv_lt(sym_node_ctx(), a, b); /* Node.__lt__; int < Node is Node.__gt__: (-self) < (-b) */
    /* ---- 0.10.x */
    case TG_0_10_0:
    case TG_0_10_2:
    default: {
      SymCtx *c = sym_uop_ctx();
      if (a.sym != NULL && b.sym == NULL) return uop_bool010(c, suop_lt_int(c, uop_of(a), b.i));
      unsupported_sint("symbolic: UOp comparison with a UOp right side");
      return false;
    }
  }
}

/* bool(a <= b) */
bool sint_le_sym(sint a, sint b) {
  switch (sym_version()) {
    case TG_0_9_1: return snv_le(sym_node_ctx(), a, b); /* Node.__le__: self < (b+1); int <= Node is Node.__ge__ */
    /* ---- 0.10.x */
    case TG_0_10_0:
    case TG_0_10_2:
    default: return sint_lt_sym(a, sint_add(b, sint_int(1)));
  }
}

/* bool(a > b) */
bool sint_gt_sym(sint a, sint b) {
  switch (sym_version()) {
    case TG_0_9_1: return snv_gt(sym_node_ctx(), a, b); /* Node.__gt__: (-self) < (-b); int > Node is Node.__lt__ */
    /* ---- 0.10.x */
    case TG_0_10_0:
    case TG_0_10_2:
    default: return sint_lt_sym(b, a);
  }
}

/* bool(a >= b) */
bool sint_ge_sym(sint a, sint b) {
  switch (sym_version()) {
    case TG_0_9_1: return snv_ge(sym_node_ctx(), a, b); /* Node.__ge__: (-self) < (-b+1); int >= Node is Node.__le__ */
    /* ---- 0.10.x */
    case TG_0_10_0:
    case TG_0_10_2:
    default: return sint_le_sym(b, a);
  }
}

bool sint_truthy(sint x) {
  if (x.sym == NULL) return x.i != 0;
  switch (sym_version()) {
    case TG_0_9_1: return snode_truthy(sym_node_ctx(), node_of(x));  /* Node.__bool__ */
    /* ---- 0.10.x */
    case TG_0_10_0:
    case TG_0_10_2:
    default: return uop_bool010(sym_uop_ctx(), uop_of(x));
  }
}

bool sint_resolve_lt(sint a, sint b, bool dflt) {
  if (a.sym == NULL && b.sym == NULL) return a.i < b.i;
  switch (sym_version()) {
    case TG_0_9_1: return sint_lt_sym(a, b);
    /* ---- 0.10.x: resolve(a < b, dflt) */
    case TG_0_10_0:
    case TG_0_10_2:
    default: {
      SymCtx *c = sym_uop_ctx();
      if (a.sym != NULL && b.sym == NULL) return suop_resolve(c, suop_lt_int(c, uop_of(a), b.i), dflt);
      unsupported_sint("symbolic: resolve of a UOp comparison with a UOp right side");
      return dflt;
    }
  }
}

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
  switch (sym_version()) {
    case TG_0_9_1: /* View.size: `assert isinstance(ret, int)` */
      if (node_of(x)->nmax != NULL) unsupported_sint("symbolic: View.size of a dimension whose max is a Node");
      return node_of(x)->max;
    /* ---- 0.10.x */
    case TG_0_10_0:
    case TG_0_10_2:
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
  switch (sym_version()) {
    case TG_0_9_1: { /* hash(NumNode) == hash(int); other Nodes hash their key */
      const SymNode *n = node_of(x);
      return n->kind == SN_NUM ? (uint64_t)n->b : hash_str(snode_key(sym_node_ctx(), n));
    }
    /* ---- 0.10.x: hash-consed */
    case TG_0_10_0:
    case TG_0_10_2:
    default: return uop_of(x)->hash;
  }
}

int64_t sint_infer_bound(sint x) {
  if (x.sym == NULL) return x.i;
  switch (sym_version()) {
    case TG_0_9_1: return snode_infer_bound(sym_node_ctx(), node_of(x));
    /* ---- 0.10.x */
    case TG_0_10_0:
    case TG_0_10_2:
    default: unsupported_sint("symbolic: sym_infer of a UOp"); return 0;
  }
}

sint sint_unbind(sint x) {
  if (x.sym == NULL) return x;
  switch (sym_version()) {
    case TG_0_9_1: return of_node(snode_unbind(sym_node_ctx(), node_of(x)));
    /* ---- 0.10.x */
    case TG_0_10_0:
    case TG_0_10_2:
    default: return unsupported_sint("symbolic: unbind of a UOp");
  }
}

void sint_vars(sint x, sint *out, int *n, int cap) {
  if (x.sym == NULL) return;
  switch (sym_version()) {
    case TG_0_9_1: {
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
    case TG_0_10_0:
    case TG_0_10_2:
    default: unsupported_sint("symbolic: vars of a UOp"); return;
  }
}

const char *sint_repr(Arena *a, sint x) {
  if (x.sym == NULL) return arena_printf(a, "%lld", (long long)x.i);
  switch (sym_version()) {
    case TG_0_9_1: return snode_repr(sym_node_ctx(), node_of(x));
    /* ---- 0.10.x */
    case TG_0_10_0:
    case TG_0_10_2:
    default: unsupported_sint("symbolic: repr of a UOp"); return "<UOp>";
  }
}

const char *sint_str(Arena *a, sint x) {
  if (x.sym == NULL) return arena_printf(a, "%lld", (long long)x.i);
  switch (sym_version()) {
    case TG_0_9_1: return arena_printf(a, "<%s>", snode_key(sym_node_ctx(), node_of(x)));  /* Node.__str__ */
    /* ---- 0.10.x */
    case TG_0_10_0:
    case TG_0_10_2:
    default: unsupported_sint("symbolic: str of a UOp"); return "<UOp>";
  }
}

/* ------------------------------------------------------------------ JSON */

enum { SYM_MAX_DEPTH = 64 };

/* Sets err; returns NULL (use `!= NULL` where a bool is wanted). */
static void *bad_input(StError *err, const char *message) {
  err->status = ST_BAD_INPUT;
  err->type = "";
  err->message = message;
  return NULL;
}

static void *unsupported(StError *err, const char *message) {
  err->status = ST_UNSUPPORTED;
  err->type = "";
  err->message = message;
  return NULL;
}

static bool int_field(const JVal *o, const char *key, int64_t *out) {
  const JVal *v = json_get(o, key);
  if (v == NULL || v->kind != J_INT) return false;
  *out = v->u.i;
  return true;
}

/* {"var": name, "min": int, "max": int, "val"?: int} fields */
static bool var_fields(const JVal *j, const char **name, int64_t *mn, int64_t *mx, bool *bound, int64_t *val, StError *err) {
  const JVal *nm = json_get(j, "var"), *v = json_get(j, "val");
  if (nm == NULL || nm->kind != J_STR) return bad_input(err, "symbolic: a Variable needs a name") != NULL;
  if (!int_field(j, "min", mn) || !int_field(j, "max", mx)) {
    const JVal *jm = json_get(j, "max");
    if (jm != NULL && jm->kind == J_OBJ) return unsupported(err, "symbolic: a Variable with a symbolic max") != NULL;
    return bad_input(err, "symbolic: a Variable needs int min and max") != NULL;
  }
  *name = nm->u.s;
  *bound = v != NULL && v->kind != J_NULL;
  if (*bound && v->kind != J_INT) return bad_input(err, "symbolic: a Variable's val must be an int") != NULL;
  *val = *bound ? v->u.i : 0;
  return true;
}

static bool op_name_is(const JVal *op, const char *name) { return strcmp(op->u.s, name) == 0; }

/* EXPR -> Node (0.9.1). `operand` is true for the b of MUL/DIV/MOD/LT, where an int is the int b. */
static const SymNode *node_from_expr(SymNodeCtx *c, const JVal *j, int depth, StError *err) {
  if (depth > SYM_MAX_DEPTH) return bad_input(err, "symbolic: expression nested too deeply");
  if (j->kind == J_INT) return snode_num(c, j->u.i);
  if (j->kind != J_OBJ) return bad_input(err, "symbolic: EXPR must be an int or an object");
  if (json_get(j, "var") != NULL) {
    const char *name;
    int64_t mn, mx, val;
    bool bound;
    if (!var_fields(j, &name, &mn, &mx, &bound, &val, err)) return NULL;
    const char *copy = arena_printf(c->a, "%s", name);
    return bound ? snode_var_bound(c, copy, mn, mx, val) : snode_var(c, copy, mn, mx);
  }
  const JVal *op = json_get(j, "op"), *src = json_get(j, "src");
  if (op == NULL || op->kind != J_STR || src == NULL || src->kind != J_ARR) return bad_input(err, "symbolic: EXPR needs op and src");
  int n = (int)src->n;
  if (op_name_is(op, "SUM") || op_name_is(op, "AND")) {
    const SymNode **nodes = arena_array(c->a, (size_t)(n > 0 ? n : 1), sizeof *nodes);
    for (int k = 0; k < n; k++)
      if ((nodes[k] = node_from_expr(c, src->u.arr[k], depth + 1, err)) == NULL) return NULL;
    return snode_raw(c, op_name_is(op, "SUM") ? SN_SUM : SN_AND, NULL, 0, NULL, n, nodes);
  }
  SymNodeKind kind;
  if (op_name_is(op, "MUL")) kind = SN_MUL;
  else if (op_name_is(op, "DIV")) kind = SN_DIV;
  else if (op_name_is(op, "MOD")) kind = SN_MOD;
  else if (op_name_is(op, "LT")) kind = SN_LT;
  else return bad_input(err, "symbolic: unknown 0.9.1 node op");
  if (n != 2) return bad_input(err, "symbolic: a binary node needs two sources");
  const SymNode *a = node_from_expr(c, src->u.arr[0], depth + 1, err), *bn = NULL;
  if (a == NULL) return NULL;
  const JVal *jb = src->u.arr[1];
  if (jb->kind != J_INT) {
    if (kind == SN_DIV || kind == SN_MOD) return unsupported(err, "symbolic: a DivNode/ModNode with a Node b");
    if ((bn = node_from_expr(c, jb, depth + 1, err)) == NULL) return NULL;
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

static bool sym_op_of(const char *name, SymOp *out) {
  static const struct { const char *name; SymOp op; } ops[] = {
      {"CAST", SU_CAST}, {"ADD", SU_ADD},     {"MUL", SU_MUL},     {"IDIV", SU_IDIV}, {"MAX", SU_MAX},
      {"MOD", SU_MOD},   {"CMPLT", SU_CMPLT}, {"CMPNE", SU_CMPNE}, {"XOR", SU_XOR},   {"OR", SU_OR},
      {"AND", SU_AND},   {"WHERE", SU_WHERE}, {"RANGE", SU_RANGE}};
  for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
    if (strcmp(ops[k].name, name) == 0) {
      *out = ops[k].op;
      return true;
    }
  return false;
}

static const SymUOp *uop_from_expr(SymCtx *c, Arena *a, const JVal *j, int depth, StError *err) {
  if (depth > SYM_MAX_DEPTH) return bad_input(err, "symbolic: expression nested too deeply");
  if (j->kind == J_INT) return suop_const(c, SDT_INT, j->u.i);
  if (j->kind == J_BOOL) return suop_const(c, SDT_BOOL, j->u.b);
  if (j->kind != J_OBJ) return unsupported(err, "symbolic: a UOp constant that is not an int");
  if (json_get(j, "var") != NULL) {
    const char *name;
    int64_t mn, mx, val;
    bool bound;
    if (!var_fields(j, &name, &mn, &mx, &bound, &val, err)) return NULL;
    if (bound) return unsupported(err, "symbolic: a bound Variable (BIND) in 0.10.x");
    return suop_variable(c, arena_printf(a, "%s", name), mn, mx);
  }
  const JVal *op = json_get(j, "op"), *src = json_get(j, "src"), *arg = json_get(j, "arg");
  SymOp sop;
  if (op == NULL || op->kind != J_STR || src == NULL || src->kind != J_ARR) return bad_input(err, "symbolic: EXPR needs op and src");
  if (json_get(j, "dtype") != NULL) return unsupported(err, "symbolic: a UOp of a dtype other than int or bool");
  if (!sym_op_of(op->u.s, &sop) || src->n > 3) return unsupported(err, "symbolic: a UOp op the index engine does not model");
  const SymUOp *srcs[3] = {NULL, NULL, NULL};
  for (uint32_t k = 0; k < src->n; k++)
    if ((srcs[k] = uop_from_expr(c, a, src->u.arr[k], depth + 1, err)) == NULL) return NULL;
  SymDType dt = SDT_INT;
  if (sop == SU_CMPLT || sop == SU_CMPNE) dt = SDT_BOOL;
  else if ((sop == SU_AND || sop == SU_OR || sop == SU_XOR) && src->n > 0) dt = srcs[0]->dtype;
  else if (sop == SU_WHERE && src->n > 1) dt = srcs[1]->dtype;
  int64_t iarg = 0;
  if (arg != NULL && arg->kind == J_INT) iarg = arg->u.i;
  else if (arg != NULL && arg->kind != J_NULL) return unsupported(err, "symbolic: a UOp arg the index engine does not model");
  const SymUOp *u = suop_make(c, sop, dt, (int)src->n, srcs, iarg, NULL, 0, 0);
  if (symctx_error(c)->status != ST_OK) {
    *err = *symctx_error(c);
    return NULL;
  }
  return u;
}

bool sint_from_json(Arena *a, const JVal *j, sint *out, StError *err) {
  if (j != NULL && j->kind == J_INT) {
    *out = sint_int(j->u.i);
    return true;
  }
  if (j != NULL && j->kind == J_UINT) return unsupported(err, "shape value above int64") != NULL;
  const JVal *e = j != NULL && j->kind == J_OBJ && j->n == 1 ? json_get(j, "sym") : NULL;
  if (e == NULL) return bad_input(err, "ShapeTracker: expected an int or {\"sym\": ...}") != NULL;
  if (!cur.active) return unsupported(err, "symbolic shape: unsupported") != NULL;
  (void)a;
  switch (cur.v) {
    case TG_0_9_1: {
      const SymNode *x = node_from_expr(&cur.node, e, 0, err);
      if (x == NULL) return false;
      if (sym_take_error(err)) return false;
      *out = of_node(x);
      return true;
    }
    /* ---- 0.10.x */
    case TG_0_10_0:
    case TG_0_10_2:
    default: {
      const SymUOp *x = uop_from_expr(sym_uop_ctx(), cur.a, e, 0, err);
      if (x == NULL) return false;
      *out = of_uop(x);
      return true;
    }
  }
}

JVal *sint_to_json(Arena *a, sint x) {
  if (x.sym == NULL) return json_int(a, x.i);
  JVal *o = json_obj(a);
  switch (sym_version()) {
    case TG_0_9_1: json_set(a, o, "sym", expr_from_node(a, node_of(x))); break;
    /* ---- 0.10.x: not written yet */
    case TG_0_10_0:
    case TG_0_10_2:
    default: unsupported_sint("symbolic: encoding a UOp"); json_set(a, o, "sym", json_null(a)); break;
  }
  return o;
}
