/* symbolic_uop.c — 0.10.x's UOp index expressions, see symbolic.h.
 * Part 2: 0.10.x UOp expressions (ops.py UOp, _min_max, exec_alu).
 * Part 3: the UPat matcher and graph_rewrite.
 * Part 4: the rule helpers and rule lists of 0.10.0 and 0.10.2.
 * Part 5: simplify_valid / uop_given_valid. */
#include "symbolic.h"
#include "ops.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int64_t gcd64(int64_t x, int64_t y) { /* math.gcd: non-negative */
  if (x < 0) x = -x;
  if (y < 0) y = -y;
  while (y != 0) {
    int64_t t = x % y;
    x = y;
    y = t;
  }
  return x;
}

/* ============================================================ Part 2: 0.10.x UOp expressions */

enum { SYM_MAX_REWRITE_DEPTH = 2000 };
static const int64_t INT32_MIN_ = -2147483647LL - 1, INT32_MAX_ = 2147483647LL; /* dtypes.min/max(dtypes.int) */

typedef struct SymPM SymPM;

struct SymCtx {
  Arena *a;
  TgVersion v;
  const SymUOp **table;         /* hash-consing: open addressing */
  size_t cap, n;
  int depth;                    /* graph_rewrite recursion */
  const SymPM *symbolic, *flat; /* the version's PatternMatchers */
  /* graph_rewrite's replace maps, one per matcher, kept from call to call:
   * the rules read nothing but the node, so rewrite(n) is a function of n
   * and a later rewrite of a larger expression reuses its parts */
  struct Memo *memo_symbolic, *memo_flat;
  int op_value[SU_NOPS];        /* Ops.value of each op in the version's class Ops (tuplize order) */
};

static void build_matchers(SymCtx *c);

SymCtx *symctx_new(Arena *a, TgVersion v) {
  SymCtx *c = arena_alloc(a, sizeof *c);
  c->a = a;
  c->v = v;
  c->cap = 256;
  c->table = arena_array(a, c->cap, sizeof *c->table);
  /* the SymOps as the version's Ops: a0b4465 reordered the binary ops, so tuplize order follows it */
  static const Op as_op[SU_NOPS] = {OP_DEFINE_VAR, OP_CAST, OP_ADD,   OP_MUL,  OP_IDIV,  OP_MAX,  OP_MOD,   OP_CMPLT,
                                    OP_CMPNE,      OP_XOR,  OP_OR,    OP_AND,  OP_WHERE, OP_BIND, OP_RANGE, OP_CONST};
  bool all_found = true;
  for (int i = 0; i < SU_NOPS; i++) all_found &= (c->op_value[i] = op_value(as_op[i], v)) != 0;
  if (!all_found) /* a version without UOps (0.9.x) compares in SymOp order, which is 0.10.0's */
    for (int i = 0; i < SU_NOPS; i++) c->op_value[i] = i;
  build_matchers(c);
  return c;
}

/* Python raises `type(message)`, or the case is outside what this port models (error.h).
 * Nothing in this file protects a call, so a raise leaves every rewrite: depth restarts. */
_Noreturn static void su_raise(SymCtx *c, StatusKind kind, const char *type, const char *message) {
  c->depth = 0; /* every raise of this engine unwinds out of it */
  if (kind == ST_RAISED) error_raise(type, "%s", message);
  error_unsupported("%s", message);
}

/* Python ints do not overflow; int64 here can, and then the case is unsupported. */
static int64_t ck_add(SymCtx *c, int64_t x, int64_t y) {
  int64_t r;
  if (__builtin_add_overflow(x, y, &r)) {
    su_raise(c, ST_UNSUPPORTED, "", "symbolic: int64 overflow");
  }
  return r;
}

static int64_t ck_mul(SymCtx *c, int64_t x, int64_t y) {
  int64_t r;
  if (__builtin_mul_overflow(x, y, &r)) {
    su_raise(c, ST_UNSUPPORTED, "", "symbolic: int64 overflow");
  }
  return r;
}

static bool su_is_binary(SymOp op) { return op >= SU_ADD && op <= SU_AND; }
static bool su_is_commutative(SymOp op) {
  return op == SU_ADD || op == SU_MUL || op == SU_MAX || op == SU_CMPNE || op == SU_XOR || op == SU_AND || op == SU_OR;
}
static bool su_is_irreducible(SymOp op) { return op == SU_CONST || op == SU_DEFINE_VAR || op == SU_RANGE; }

static int64_t dtype_min(SymDType dt) { return dt == SDT_BOOL ? 0 : INT32_MIN_; }
static int64_t dtype_max(SymDType dt) { return dt == SDT_BOOL ? 1 : INT32_MAX_; }

static int64_t min64(int64_t x, int64_t y) { return x < y ? x : y; }
static int64_t max64(int64_t x, int64_t y) { return x > y ? x : y; }

/* UOp._min_max (ops.py), per version */
static void su_min_max(SymCtx *c, SymUOp *u) {
  int64_t lo = dtype_min(u->dtype), hi = dtype_max(u->dtype);
  if (su_is_binary(u->op)) {
    int64_t a0 = u->src[0]->vmin, a1 = u->src[0]->vmax, b0 = u->src[1]->vmin, b1 = u->src[1]->vmax;
    switch (u->op) {
      case SU_ADD: u->vmin = ck_add(c, a0, b0); u->vmax = ck_add(c, a1, b1); return;
      case SU_MUL: {
        int64_t p[4] = {ck_mul(c, a0, b0), ck_mul(c, a0, b1), ck_mul(c, a1, b0), ck_mul(c, a1, b1)};
        u->vmin = min64(min64(p[0], p[1]), min64(p[2], p[3]));
        u->vmax = max64(max64(p[0], p[1]), max64(p[2], p[3]));
        return;
      }
      case SU_MOD:
        if (b0 > 0) {
          if (tg_features(c->v)->min_max_sign_bounds && a0 < 0) { /* a negative dividend keeps its sign */
            u->vmin = -(b1 - 1);
            u->vmax = b1 - 1;
          } else {
            u->vmin = 0;
            u->vmax = b1 - 1;
          }
          return;
        }
        break;
      case SU_IDIV:
        if (b0 == b1) { /* min/max are equal in a CONST */
          if (b0 > 0) { u->vmin = py_floordiv(a0, b0); u->vmax = py_floordiv(a1, b0); return; }
          if (b0 < 0 && a0 >= 0) { u->vmin = -py_floordiv(a1, -b0); u->vmax = -py_floordiv(a0, -b0); return; }
        }
        if (tg_features(c->v)->min_max_sign_bounds) { /* sign-only bounds for any divisor */
          if ((a1 <= 0 && b0 < 0) || (a0 >= 0 && b0 > 0)) { u->vmin = 0; u->vmax = dtype_max(u->dtype); return; }
          if ((a1 <= 0 && b0 > 0) || (a0 >= 0 && b0 < 0)) { u->vmin = dtype_min(u->dtype); u->vmax = 0; return; }
        }
        break;
      case SU_AND:
        if (tg_features(c->v)->min_max_and_cast && b0 == b1 && a0 >= 0 && b0 >= 0) { /* AND with a non-negative const */
          u->vmin = min64(0, a0);
          u->vmax = min64(a1, b1);
          return;
        }
        break;
      case SU_MAX: u->vmin = max64(a0, b0); u->vmax = max64(a1, b1); return;
      case SU_CMPLT: u->vmin = a1 < b0; u->vmax = a0 < b1; return;
      case SU_CMPNE: u->vmin = (a1 < b0) || (b1 < a0); u->vmax = !(a0 == a1 && a1 == b0 && b0 == b1); return;
      default: break;
    }
    if (u->dtype == SDT_BOOL && u->op == SU_OR) { u->vmin = a0 ? a0 : b0; u->vmax = a1 ? a1 : b1; return; }
    if (u->dtype == SDT_BOOL && u->op == SU_AND) { u->vmin = a0 ? b0 : a0; u->vmax = a1 ? b1 : a1; return; }
  }
  if (u->op == SU_WHERE && u->dtype == SDT_INT) {
    u->vmin = min64(u->src[1]->vmin, u->src[2]->vmin);
    u->vmax = max64(u->src[1]->vmax, u->src[2]->vmax);
    return;
  }
  if (u->op == SU_DEFINE_VAR) { u->vmin = u->lo; u->vmax = u->hi; return; }
  if (u->op == SU_BIND) { u->vmin = u->src[0]->vmin; u->vmax = u->src[0]->vmax; return; } /* ignore the bound value */
  if (u->op == SU_RANGE) { u->vmin = u->src[0]->vmin; u->vmax = ck_add(c, u->src[1]->vmax, -1); return; }
  if (u->op == SU_CONST) { u->vmin = u->vmax = u->arg; return; }
  if (u->op == SU_CAST && tg_features(c->v)->min_max_and_cast) { /* the source's bounds, clipped to the dtype */
    u->vmin = max64(lo, u->src[0]->vmin);
    u->vmax = min64(u->src[0]->vmax, hi);
    return;
  }
  u->vmin = lo;
  u->vmax = hi;
}

static uint64_t su_hash(const SymUOp *p) {
  uint64_t h = 1469598103934665603ULL;
  uint64_t parts[8] = {(uint64_t)p->op, (uint64_t)p->dtype, (uint64_t)p->nsrc, (uint64_t)p->arg,
                       (uint64_t)p->lo, (uint64_t)p->hi, (uint64_t)(uintptr_t)p->src[0], (uint64_t)(uintptr_t)p->src[1]};
  for (int i = 0; i < 8; i++) h = (h ^ parts[i]) * 1099511628211ULL;
  h = (h ^ (uint64_t)(uintptr_t)p->src[2]) * 1099511628211ULL;
  for (const char *s = p->name; s && *s; s++) h = (h ^ (uint64_t)(unsigned char)*s) * 1099511628211ULL;
  return h;
}

static bool su_same_key(const SymUOp *x, const SymUOp *y) {
  if (x->op != y->op || x->dtype != y->dtype || x->nsrc != y->nsrc || x->arg != y->arg || x->lo != y->lo || x->hi != y->hi) return false;
  for (int i = 0; i < 3; i++)
    if (x->src[i] != y->src[i]) return false;
  if ((x->name == NULL) != (y->name == NULL)) return false;
  return x->name == NULL || strcmp(x->name, y->name) == 0;
}

static void su_table_grow(SymCtx *c) {
  size_t cap = c->cap * 2;
  const SymUOp **t = arena_array(c->a, cap, sizeof *t);
  for (size_t i = 0; i < c->cap; i++) {
    if (!c->table[i]) continue;
    size_t j = c->table[i]->hash & (cap - 1);
    while (t[j]) j = (j + 1) & (cap - 1);
    t[j] = c->table[i];
  }
  c->table = t;
  c->cap = cap;
}

/* UOpMetaClass.__call__: one node per (op, dtype, src, arg) */
static const SymUOp *su_intern(SymCtx *c, SymUOp proto) {
  proto.hash = su_hash(&proto);
  size_t i = proto.hash & (c->cap - 1);
  while (c->table[i]) {
    if (c->table[i]->hash == proto.hash && su_same_key(c->table[i], &proto)) return c->table[i];
    i = (i + 1) & (c->cap - 1);
  }
  SymUOp *u = arena_alloc(c->a, sizeof *u);
  *u = proto;
  su_min_max(c, u);
  c->table[i] = u;
  if (++c->n * 2 > c->cap) su_table_grow(c);
  return u;
}

static const SymUOp *su_node(SymCtx *c, SymOp op, SymDType dt, int nsrc, const SymUOp *s0, const SymUOp *s1, const SymUOp *s2,
                             int64_t arg) {
  SymUOp p;
  memset(&p, 0, sizeof p);
  p.op = op;
  p.dtype = dt;
  p.nsrc = nsrc;
  p.src[0] = s0;
  p.src[1] = s1;
  p.src[2] = s2;
  p.arg = arg;
  return su_intern(c, p);
}

/* UOp.const(dtype, b): dtypes.as_const makes bools bools */
const SymUOp *suop_const(SymCtx *c, SymDType dt, int64_t value) {
  return su_node(c, SU_CONST, dt, 0, NULL, NULL, NULL, dt == SDT_BOOL ? value != 0 : value);
}

static const SymUOp *su_variable_dt(SymCtx *c, const char *name, int64_t lo, int64_t hi, SymDType dt) {
  SymUOp p;
  memset(&p, 0, sizeof p);
  p.op = SU_DEFINE_VAR;
  p.dtype = dt;
  p.name = name;
  p.lo = lo;
  p.hi = hi;
  return su_intern(c, p);
}

const SymUOp *suop_variable(SymCtx *c, const char *name, int64_t lo, int64_t hi) { return su_variable_dt(c, name, lo, hi, SDT_INT); }

/* UOp.range(dtypes.int, 0, end, axis); the arg is (axis, False) in 0.10.0 and axis in 0.10.2 */
const SymUOp *suop_range(SymCtx *c, int64_t end, int64_t axis) {
  return su_node(c, SU_RANGE, SDT_INT, 2, suop_const(c, SDT_INT, 0), suop_const(c, SDT_INT, end), NULL, axis);
}

/* UOp.range(dtypes.int, 0, end, axis) with a UOp end (a symbolic dimension) */
const SymUOp *suop_range_to(SymCtx *c, const SymUOp *end, int64_t axis) {
  return su_node(c, SU_RANGE, SDT_INT, 2, suop_const(c, SDT_INT, 0), end, NULL, axis);
}

const SymUOp *suop_make(SymCtx *c, SymOp op, SymDType dt, int nsrc, const SymUOp *const *src, int64_t arg, const char *name,
                        int64_t lo, int64_t hi) {
  SymUOp p;
  memset(&p, 0, sizeof p);
  p.op = op;
  p.dtype = dt;
  p.nsrc = nsrc;
  for (int i = 0; i < nsrc && i < 3; i++) p.src[i] = src[i];
  p.arg = op == SU_CONST && dt == SDT_BOOL ? arg != 0 : arg;
  p.name = name;
  p.lo = lo;
  p.hi = hi;
  return su_intern(c, p);
}

int64_t suop_vmin(const SymUOp *x) { return x->vmin; }
int64_t suop_vmax(const SymUOp *x) { return x->vmax; }

/* UOp.alu: the dtype is the last source's, bool for comparisons */
const SymUOp *suop_alu(SymCtx *c, SymOp op, const SymUOp *x, const SymUOp *y) {
  SymDType dt = (op == SU_CMPLT || op == SU_CMPNE) ? SDT_BOOL : y->dtype;
  return su_node(c, op, dt, 2, x, y, NULL, 0);
}

/* x.const_like(b) */
static const SymUOp *su_like(SymCtx *c, const SymUOp *x, int64_t b) { return suop_const(c, x->dtype, b); }

const SymUOp *suop_add(SymCtx *c, const SymUOp *x, const SymUOp *y) { return suop_alu(c, SU_ADD, x, y); }
const SymUOp *suop_mul(SymCtx *c, const SymUOp *x, const SymUOp *y) { return suop_alu(c, SU_MUL, x, y); }
const SymUOp *suop_add_int(SymCtx *c, const SymUOp *x, int64_t b) { return suop_alu(c, SU_ADD, x, su_like(c, x, b)); }
const SymUOp *suop_radd_int(SymCtx *c, int64_t b, const SymUOp *x) { return suop_alu(c, SU_ADD, su_like(c, x, b), x); }
const SymUOp *suop_mul_int(SymCtx *c, const SymUOp *x, int64_t b) { return suop_alu(c, SU_MUL, x, su_like(c, x, b)); }
const SymUOp *suop_idiv_int(SymCtx *c, const SymUOp *x, int64_t b) { return suop_alu(c, SU_IDIV, x, su_like(c, x, b)); }
const SymUOp *suop_mod_int(SymCtx *c, const SymUOp *x, int64_t b) { return suop_alu(c, SU_MOD, x, su_like(c, x, b)); }
const SymUOp *suop_lt_int(SymCtx *c, const SymUOp *x, int64_t b) { return suop_alu(c, SU_CMPLT, x, su_like(c, x, b)); }
const SymUOp *suop_ne_int(SymCtx *c, const SymUOp *x, int64_t b) { return suop_alu(c, SU_CMPNE, x, su_like(c, x, b)); }

static const SymUOp *su_rmul_int(SymCtx *c, int64_t b, const SymUOp *x) { return suop_alu(c, SU_MUL, su_like(c, x, b), x); }

/* logical_not: x.ne(True) */
static const SymUOp *su_not(SymCtx *c, const SymUOp *x) { return suop_alu(c, SU_CMPNE, x, su_like(c, x, 1)); }

const SymUOp *suop_ge_int(SymCtx *c, const SymUOp *x, int64_t b) { return su_not(c, suop_lt_int(c, x, b)); }

/* -x: MathTrait.neg */
static const SymUOp *su_neg(SymCtx *c, const SymUOp *x) { return x->dtype == SDT_BOOL ? su_not(c, x) : suop_mul_int(c, x, -1); }

/* x - y: x + (-y) */
static const SymUOp *su_sub(SymCtx *c, const SymUOp *x, const SymUOp *y) { return suop_add(c, x, su_neg(c, y)); }

/* x.cast(dtype) in 0.10.2 (a no-op when the dtype is already right) */
static const SymUOp *su_cast(SymCtx *c, const SymUOp *x, SymDType dt) {
  if (x->dtype == dt) return x;
  return su_node(c, SU_CAST, dt, 1, x, NULL, NULL, 0);
}

/* UOp.replace(src=...) */
static const SymUOp *su_with_src(SymCtx *c, const SymUOp *u, const SymUOp *const *src) {
  SymUOp p = *u;
  for (int i = 0; i < u->nsrc; i++) p.src[i] = src[i];
  return su_intern(c, p);
}

/* UOp.tuplize comparison: (op.value, arg, dtype, tuple(src tuplize)) compared like Python tuples */
static int su_cmp(const SymCtx *c, const SymUOp *x, const SymUOp *y) {
  if (x == y) return 0;
  if (x->op != y->op) return c->op_value[x->op] < c->op_value[y->op] ? -1 : 1;
  if (x->op == SU_DEFINE_VAR) {
    int s = strcmp(x->name, y->name);
    if (s != 0) return s < 0 ? -1 : 1;
    if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
    if (x->hi != y->hi) return x->hi < y->hi ? -1 : 1;
  } else if (x->arg != y->arg) {
    return x->arg < y->arg ? -1 : 1;
  }
  if (x->dtype != y->dtype) return x->dtype < y->dtype ? -1 : 1;
  for (int i = 0; i < x->nsrc && i < y->nsrc; i++) {
    int s = su_cmp(c, x->src[i], y->src[i]);
    if (s != 0) return s;
  }
  return x->nsrc == y->nsrc ? 0 : (x->nsrc < y->nsrc ? -1 : 1);
}

/* exec_alu(op, dtype, operands, truncate_output=False), then a.const_like(result) */
static const SymUOp *su_fold_consts(SymCtx *c, const SymUOp *a) {
  int64_t x = a->src[0]->arg, y = a->nsrc > 1 ? a->src[1]->arg : 0, r = 0;
  switch (a->op) {
    case SU_ADD: r = ck_add(c, x, y); break;
    case SU_MUL: r = ck_mul(c, x, y); break;
    case SU_IDIV:
      if (y == 0) {
        if (tg_features(c->v)->idiv_by_zero_is_zero) { r = 0; break; } /* x // 0 is 0 */
        /* else x*math.inf, which const_like cannot turn into an int */
        if (x == 0) su_raise(c, ST_RAISED, "ValueError", "cannot convert float NaN to integer");
        else su_raise(c, ST_RAISED, "OverflowError", "cannot convert float infinity to integer");
        return a;
      }
      r = (x < 0 ? -x : x) / (y < 0 ? -y : y);
      if ((x < 0) != (y < 0) && x != 0) r = -r; /* (1,-1)[x*y<0] */
      break;
    case SU_MOD:
      if (y == 0) {
        su_raise(c, ST_RAISED, "ZeroDivisionError", "integer modulo by zero");
      }
      r = (x < 0 ? -x : x) % (y < 0 ? -y : y);
      if (x < 0) r = -r;
      break;
    case SU_MAX: r = max64(x, y); break;
    case SU_CMPLT: r = x < y; break;
    case SU_CMPNE: r = x != y; break;
    case SU_XOR: r = x ^ y; break;
    case SU_OR: r = x | y; break;
    case SU_AND: r = x & y; break;
    case SU_WHERE: r = x ? y : a->src[2]->arg; break;
    default: su_raise(c, ST_UNSUPPORTED, "", "symbolic: constant folding of an unported op"); return a;
  }
  return su_like(c, a, r);
}

/* split_uop(x, sep) */
typedef struct UList { const SymUOp **items; int n, cap; } UList;

static void ul_push(SymCtx *c, UList *l, const SymUOp *x) {
  if (l->n == l->cap) {
    int cap = l->cap ? l->cap * 2 : 8;
    const SymUOp **bigger = arena_array(c->a, (size_t)cap, sizeof *bigger);
    if (l->n) memcpy(bigger, l->items, sizeof *bigger * (size_t)l->n);
    l->items = bigger;
    l->cap = cap;
  }
  l->items[l->n++] = x;
}

static void su_split_into(SymCtx *c, const SymUOp *x, SymOp sep, UList *out) {
  if (x->op == sep) {
    for (int i = 0; i < x->nsrc; i++) su_split_into(c, x->src[i], sep, out);
  } else {
    ul_push(c, out, x);
  }
}

int suop_split(SymCtx *c, const SymUOp *x, SymOp sep, const SymUOp ***out) {
  UList l = {0};
  su_split_into(c, x, sep, &l);
  *out = l.items;
  return l.n;
}

static void su_topo_rec(SymCtx *c, const SymUOp *x, UList *out) {
  for (int i = 0; i < out->n; i++)
    if (out->items[i] == x) return;
  for (int i = 0; i < x->nsrc; i++) su_topo_rec(c, x->src[i], out);
  ul_push(c, out, x);
}

int suop_toposort(SymCtx *c, const SymUOp *x, const SymUOp ***out) {
  UList l = {0};
  su_topo_rec(c, x, &l);
  *out = l.items;
  return l.n;
}

/* `y in x.toposort` (with_self) or `y in x.parents` (without) */
static bool su_contains(SymCtx *c, const SymUOp *x, const SymUOp *y, bool with_self) {
  const SymUOp **all;
  int n = suop_toposort(c, x, &all);
  for (int i = 0; i < n; i++)
    if (all[i] == y && (with_self || all[i] != x)) return true;
  return false;
}

/* UOp.const_factor */
static int64_t su_const_factor(const SymUOp *u) {
  if (u->op == SU_CONST) return u->arg;
  if (u->op == SU_ADD) return gcd64(su_const_factor(u->src[0]), su_const_factor(u->src[1]));
  if (u->op == SU_MUL) {
    if (u->src[0]->op == SU_CONST) return u->src[0]->arg;
    if (u->src[1]->op == SU_CONST) return u->src[1]->arg;
  }
  return 1;
}

/* UOp.divides; NULL is Python's None */
static const SymUOp *su_divides(SymCtx *c, const SymUOp *u, int64_t v) {
  if (v == 1) return u;
  if (u->op == SU_CONST) {
    if (v == 0) {
      su_raise(c, ST_RAISED, "ZeroDivisionError", "integer modulo by zero");
    }
    return py_mod(u->arg, v) == 0 ? su_like(c, u, py_floordiv(u->arg, v)) : NULL;
  }
  if (u->op == SU_ADD) {
    const SymUOp *d0 = su_divides(c, u->src[0], v);
    if (d0 == NULL) return NULL;
    const SymUOp *d1 = su_divides(c, u->src[1], v);
    return d1 != NULL ? suop_add(c, d0, d1) : NULL;
  }
  if (u->op == SU_MUL) {
    const SymUOp *d0 = su_divides(c, u->src[0], v);
    if (d0 != NULL) return suop_mul(c, d0, u->src[1]);
    const SymUOp *d1 = su_divides(c, u->src[1], v);
    if (d1 != NULL) return suop_mul(c, u->src[0], d1);
  }
  return NULL;
}

/* functools.reduce(operator.add, items) */
static const SymUOp *su_sum(SymCtx *c, int n, const SymUOp *const *items) {
  const SymUOp *acc = items[0];
  for (int i = 1; i < n; i++) acc = suop_add(c, acc, items[i]);
  return acc;
}

/* ============================================================ Part 3: UPat matcher, graph_rewrite */

/* The names rules bind (UPat name=...). */
enum { NM_x, NM_y, NM_x2, NM_c, NM_c0, NM_c1, NM_c2, NM_c3, NM_a, NM_d, NM_base, NM_root, NM_f, NM_divs, NM_COUNT };

typedef enum { SRC_NONE, SRC_TUPLE, SRC_LIST, SRC_REPEAT } SrcKind;

typedef struct UPat UPat;
struct UPat {
  uint32_t ops;          /* bit per SymOp; 0 = any op */
  uint8_t dts;           /* bit per SymDType; 0 = any dtype */
  bool has_arg;
  int64_t arg;
  int name;              /* NM_* or -1 */
  SrcKind kind;
  int nsrc;
  const UPat *src[3];
  int allowed_len;       /* -1 = any */
  bool all_same;         /* SRC_LIST whose elements are one UPat object: no permutations */
};

typedef struct Store { const SymUOp *v[NM_COUNT]; } Store;

/* UPat.match returns the list of all matches and PatternMatcher.rewrite calls the rule on each
 * in order until one returns a UOp. Matching has no side effects, so the same order is produced
 * here lazily: each complete match is handed to a continuation, which stops the search by
 * returning true. */
typedef struct Cont Cont;
typedef bool (*ContFn)(const Cont *k, const Store *st);
struct Cont {
  ContFn fn;
  const UPat *const *seq;   /* seq_step: the source patterns (in this permutation's order) */
  int len, i;               /* seq_step: how many, and the next one to match */
  const SymUOp *u;          /* seq_step: the node whose sources are matched */
  const Cont *next;         /* seq_step: what follows the last source */
  void *data;               /* the final continuation's state */
};

static bool upat_match(const UPat *p, const SymUOp *u, Store st, const Cont *k);

/* match u.src[i:] against seq[i:], then continue with k->next */
static bool seq_step(const Cont *k, const Store *st) {
  if (k->i == k->len) return k->next->fn(k->next, st);
  Cont step = *k;
  step.i = k->i + 1;
  return upat_match(k->seq[k->i], k->u->src[k->i], *st, &step);
}

/* UPat.match */
static bool upat_match(const UPat *p, const SymUOp *u, Store st, const Cont *k) {
  if (p->ops != 0 && !(p->ops & (1u << u->op))) return false;
  if (p->name >= 0) {
    if (st.v[p->name] == NULL) st.v[p->name] = u;
    else if (st.v[p->name] != u) return false;
  }
  if (p->dts != 0 && !(p->dts & (1u << u->dtype))) return false;
  if (p->has_arg && !(u->op == SU_CONST && u->arg == p->arg)) return false;
  if (p->allowed_len != -1 && u->nsrc != p->allowed_len) return false;
  if (p->kind == SRC_NONE) return k->fn(k, &st);
  /* a list of sources is tried in every order (itertools.permutations), unless all are one UPat */
  int nperm = (p->kind == SRC_LIST && !p->all_same) ? 2 : 1;
  for (int perm = 0; perm < nperm; perm++) {
    const UPat *seq[3];
    int len = p->kind == SRC_REPEAT ? u->nsrc : (p->nsrc < u->nsrc ? p->nsrc : u->nsrc); /* zip() */
    for (int i = 0; i < len; i++) seq[i] = p->kind == SRC_REPEAT ? p->src[0] : p->src[perm == 0 ? i : p->nsrc - 1 - i];
    Cont step = {seq_step, seq, len, 0, u, k, NULL};
    if (seq_step(&step, &st)) return true;
  }
  return false;
}

typedef const SymUOp *(*SymRuleFn)(SymCtx *c, const Store *m);

typedef struct SymRule { const UPat *pat; SymRuleFn fn; } SymRule;

enum { SYM_MAX_RULES = 80 };
struct SymPM { SymRule rules[SYM_MAX_RULES]; int n; };

/* the final continuation: call the rule's callback; stop at a result */
typedef struct RuleCall { SymCtx *c; SymRuleFn fn; const SymUOp *ret; } RuleCall;

static bool call_rule(const Cont *k, const Store *st) {
  RuleCall *rc = k->data;
  rc->ret = rc->fn(rc->c, st);
  return rc->ret != NULL;
}

/* PatternMatcher.rewrite: the first rule (in order) whose callback returns a UOp */
static const SymUOp *pm_rewrite_sym(SymCtx *c, const SymPM *pm, const SymUOp *u) {
  for (int r = 0; r < pm->n; r++) {
    const UPat *p = pm->rules[r].pat;
    if (p->ops != 0 && !(p->ops & (1u << u->op))) continue;
    RuleCall rc = {c, pm->rules[r].fn, NULL};
    Cont done = {call_rule, NULL, 0, 0, NULL, NULL, &rc};
    Store empty;
    memset(&empty, 0, sizeof empty);
    upat_match(p, u, empty, &done);
    if (rc.ret != NULL) return rc.ret;
  }
  return NULL;
}

/* RewriteContext.replace: a map from node to its rewrite */
typedef struct Memo { const SymUOp **keys, **vals; size_t cap, n; } Memo;

static const SymUOp *memo_get(const Memo *m, const SymUOp *k) {
  size_t i = (k->hash) & (m->cap - 1);
  while (m->keys[i]) {
    if (m->keys[i] == k) return m->vals[i];
    i = (i + 1) & (m->cap - 1);
  }
  return NULL;
}

static void memo_put(SymCtx *c, Memo *m, const SymUOp *k, const SymUOp *v) {
  if ((m->n + 1) * 2 > m->cap) {
    Memo bigger = {arena_array(c->a, m->cap * 2, sizeof *m->keys), arena_array(c->a, m->cap * 2, sizeof *m->vals), m->cap * 2, 0};
    for (size_t i = 0; i < m->cap; i++)
      if (m->keys[i]) memo_put(c, &bigger, m->keys[i], m->vals[i]);
    *m = bigger;
  }
  size_t i = (k->hash) & (m->cap - 1);
  while (m->keys[i] && m->keys[i] != k) i = (i + 1) & (m->cap - 1);
  if (!m->keys[i]) m->n++;
  m->keys[i] = k;
  m->vals[i] = v;
}

/* one more level of a recursive rewrite; Python's RecursionError past the cap */
static void su_depth_enter(SymCtx *c) {
  if (++c->depth > SYM_MAX_REWRITE_DEPTH) su_raise(c, ST_RAISED, "RecursionError", "maximum recursion depth exceeded");
}

/* RewriteContext.rewrite (0.10.0) / top_down_rewrite (0.10.2) */
static const SymUOp *rewrite_rec(SymCtx *c, const SymPM *pm, Memo *m, const SymUOp *n) {
  const SymUOp *rn = memo_get(m, n);
  if (rn != NULL) return rn;
  su_depth_enter(c);
  const SymUOp *new_src[3] = {NULL, NULL, NULL};
  bool same = true;
  for (int i = 0; i < n->nsrc; i++) {
    new_src[i] = rewrite_rec(c, pm, m, n->src[i]);
    same = same && new_src[i] == n->src[i];
  }
  const SymUOp *new_n = same ? pm_rewrite_sym(c, pm, n) : su_with_src(c, n, new_src);
  const SymUOp *ret = new_n == NULL ? n : rewrite_rec(c, pm, m, new_n);
  memo_put(c, m, n, ret);
  c->depth--;
  return ret;
}

static const SymUOp *graph_rewrite_sym(SymCtx *c, const SymUOp *x, const SymPM *pm) {
  Memo **m = pm == c->symbolic ? &c->memo_symbolic : &c->memo_flat;
  if (!*m) {
    *m = arena_alloc(c->a, sizeof **m);
    **m = (Memo){arena_array(c->a, 64, sizeof *(*m)->keys), arena_array(c->a, 64, sizeof *(*m)->vals), 64, 0};
  }
  return rewrite_rec(c, pm, *m, x);
}

const SymUOp *suop_simplify(SymCtx *c, const SymUOp *x) { return graph_rewrite_sym(c, x, c->symbolic); }
const SymUOp *suop_rewrite_flat(SymCtx *c, const SymUOp *x) { return graph_rewrite_sym(c, x, c->flat); }

/* resolve(x, default) */
bool suop_resolve(SymCtx *c, const SymUOp *x, bool dflt) {
  const SymUOp *sx = suop_simplify(c, x);
  return sx->vmin == sx->vmax ? sx->vmin != 0 : dflt;
}

/* x.substitute({from: to}) */
static const SymUOp *su_substitute_rec(SymCtx *c, Memo *m, const SymUOp *x, const SymUOp *from, const SymUOp *to) {
  if (x == from) return to;
  const SymUOp *done = memo_get(m, x);
  if (done != NULL) return done;
  const SymUOp *src[3] = {NULL, NULL, NULL};
  bool same = true;
  for (int i = 0; i < x->nsrc; i++) {
    src[i] = su_substitute_rec(c, m, x->src[i], from, to);
    same = same && src[i] == x->src[i];
  }
  const SymUOp *ret = same ? x : su_with_src(c, x, src);
  memo_put(c, m, x, ret);
  return ret;
}

static const SymUOp *su_substitute(SymCtx *c, const SymUOp *x, const SymUOp *from, const SymUOp *to) {
  Memo m = {arena_array(c->a, 64, sizeof *m.keys), arena_array(c->a, 64, sizeof *m.vals), 64, 0};
  return su_substitute_rec(c, &m, x, from, to);
}

/* ============================================================ Part 3b: symbolic sints (ops.py) */

/* Ops names as str(Ops.X) spells them without the prefix; one per SymOp. */
static const char *const SU_OP_NAMES[SU_NOPS] = {"DEFINE_VAR", "CAST", "ADD", "MUL", "IDIV", "MAX", "MOD", "CMPLT", "CMPNE",
                                                 "XOR", "OR", "AND", "WHERE", "BIND", "RANGE", "CONST"};

const char *suop_op_name(SymOp op) { return op < SU_NOPS ? SU_OP_NAMES[op] : "?"; }

bool suop_op_from_name(const char *name, SymOp *op) {
  for (int i = 0; i < SU_NOPS; i++)
    if (strcmp(SU_OP_NAMES[i], name) == 0) {
      *op = (SymOp)i;
      return true;
    }
  return false;
}

const SymUOp *suop_const_like(SymCtx *c, const SymUOp *x, int64_t b) { return su_like(c, x, b); }

/* MathTrait methods on two UOps (an int operand is made a UOp by the caller with ufix, see symbolic.h) */
const SymUOp *suop_neg(SymCtx *c, const SymUOp *x) { return su_neg(c, x); }
const SymUOp *suop_sub(SymCtx *c, const SymUOp *x, const SymUOp *y) { return su_sub(c, x, y); }
const SymUOp *suop_sub_int(SymCtx *c, const SymUOp *x, int64_t b) { return suop_add(c, x, su_like(c, x, -b)); }
const SymUOp *suop_idiv(SymCtx *c, const SymUOp *x, const SymUOp *y) { return suop_alu(c, SU_IDIV, x, y); }
const SymUOp *suop_mod(SymCtx *c, const SymUOp *x, const SymUOp *y) { return suop_alu(c, SU_MOD, x, y); }
const SymUOp *suop_maximum(SymCtx *c, const SymUOp *x, const SymUOp *y) { return suop_alu(c, SU_MAX, x, y); }
/* x.minimum(y): -(-x).maximum(-y) */
const SymUOp *suop_minimum(SymCtx *c, const SymUOp *x, const SymUOp *y) {
  return su_neg(c, suop_maximum(c, su_neg(c, x), su_neg(c, y)));
}
/* x.minimum(b) for an int b: -(-x).maximum(-b), where -b is Python's */
const SymUOp *suop_minimum_int(SymCtx *c, const SymUOp *x, int64_t b) {
  const SymUOp *nx = su_neg(c, x);
  return su_neg(c, suop_maximum(c, nx, su_like(c, nx, -b)));
}
const SymUOp *suop_lt(SymCtx *c, const SymUOp *x, const SymUOp *y) { return suop_alu(c, SU_CMPLT, x, y); }
const SymUOp *suop_gt(SymCtx *c, const SymUOp *x, const SymUOp *y) { return suop_alu(c, SU_CMPLT, y, x); }
const SymUOp *suop_ne(SymCtx *c, const SymUOp *x, const SymUOp *y) { return suop_alu(c, SU_CMPNE, x, y); }
const SymUOp *suop_ge(SymCtx *c, const SymUOp *x, const SymUOp *y) { return su_not(c, suop_lt(c, x, y)); }
const SymUOp *suop_le(SymCtx *c, const SymUOp *x, const SymUOp *y) { return su_not(c, suop_gt(c, x, y)); }
const SymUOp *suop_eq(SymCtx *c, const SymUOp *x, const SymUOp *y) { return su_not(c, suop_ne(c, x, y)); }
const SymUOp *suop_logical_not(SymCtx *c, const SymUOp *x) { return su_not(c, x); }

/* UOp.bind(val) */
const SymUOp *suop_bind(SymCtx *c, const SymUOp *var, int64_t val) {
  if (var->op != SU_DEFINE_VAR) {
    su_raise(c, ST_RAISED, "AssertionError", arena_printf(c->a, "op is Ops.%s, need DEFINE_VAR", suop_op_name(var->op)));
  }
  if (!(var->lo <= val && val <= var->hi)) {
    su_raise(c, ST_RAISED, "AssertionError",
             arena_printf(c->a, "bind %lld not in range [%lld, %lld]", (long long)val, (long long)var->lo, (long long)var->hi));
  }
  return su_node(c, SU_BIND, var->dtype, 2, var, su_like(c, var, val), NULL, 0);
}

static bool su_is_bound_var(const SymUOp *x) {
  return x->op == SU_BIND && x->src[0]->op == SU_DEFINE_VAR && x->src[1]->op == SU_CONST;
}

/* UOp.unbind(): (the DEFINE_VAR, its value) */
void suop_unbind(SymCtx *c, const SymUOp *x, const SymUOp **var, int64_t *val) {
  if (!su_is_bound_var(x)) su_raise(c, ST_RAISED, "AssertionError", arena_printf(c->a, "can't unbind %s", suop_repr(c, x)));
  *var = x->src[0];
  *val = x->src[1]->arg;
}

/* UOp.const(dtype, b) for a UOp b: b.unbind()[0] if b is a BIND, else b */
const SymUOp *suop_const_uop(SymCtx *c, const SymUOp *b) {
  if (b->op != SU_BIND) return b;
  const SymUOp *var = b;
  int64_t val;
  suop_unbind(c, b, &var, &val);
  return var;
}

/* x.parents (0.10.0): {**{s: None for s in src}, **{k: None for s in src for k in s.parents}}, an ordered set.
 * x.sparents is that plus x. Memoized per call: parents of a node are computed once. */
typedef struct ParentsMemo { Memo idx; UList *lists; int n, cap; } ParentsMemo;

static void ul_add_unique(SymCtx *c, UList *l, const SymUOp *x) {
  for (int i = 0; i < l->n; i++)
    if (l->items[i] == x) return;
  ul_push(c, l, x);
}

static const UList *su_parents_memo(SymCtx *c, ParentsMemo *pm, const SymUOp *x) {
  const SymUOp *slot = memo_get(&pm->idx, x);
  if (slot != NULL) return &pm->lists[(intptr_t)slot->arg];
  UList l = {0};
  for (int i = 0; i < x->nsrc; i++) ul_add_unique(c, &l, x->src[i]);
  for (int i = 0; i < x->nsrc; i++) {
    const UList *sp = su_parents_memo(c, pm, x->src[i]);
    for (int k = 0; k < sp->n; k++) ul_add_unique(c, &l, sp->items[k]);
  }
  if (pm->n == pm->cap) {
    int cap = pm->cap ? pm->cap * 2 : 16;
    UList *bigger = arena_array(c->a, (size_t)cap, sizeof *bigger);
    if (pm->n) memcpy(bigger, pm->lists, sizeof *bigger * (size_t)pm->n);
    pm->lists = bigger;
    pm->cap = cap;
  }
  pm->lists[pm->n] = l;
  /* the memo maps a node to a fake CONST whose arg is the list index (never interned) */
  SymUOp *tag = arena_alloc(c->a, sizeof *tag);
  tag->arg = pm->n;
  memo_put(c, &pm->idx, x, tag);
  return &pm->lists[pm->n++];
}

/* x.sparents (0.10.0) or x.toposort (0.10.2): every node of x once, x included. The order is the version's:
 * sparents lists sources before their parents and x last; toposort is a post-order. */
int suop_sparents(SymCtx *c, const SymUOp *x, const SymUOp ***out) {
  if (tg_features(c->v)->uop_toposort) return suop_toposort(c, x, out);
  ParentsMemo pm;
  memset(&pm, 0, sizeof pm);
  pm.idx = (Memo){arena_array(c->a, 64, sizeof *pm.idx.keys), arena_array(c->a, 64, sizeof *pm.idx.vals), 64, 0};
  const UList *p = su_parents_memo(c, &pm, x);
  UList l = {0};
  for (int i = 0; i < p->n; i++) ul_push(c, &l, p->items[i]);
  ul_push(c, &l, x);
  *out = l.items;
  return l.n;
}

/* x.vars(): the bound variables (BIND of a DEFINE_VAR) and the DEFINE_VARs that are not bound in x.
 * Python returns a set (ordered by id); here they come in sparents (0.10.0) / toposort (0.10.2) order,
 * BINDs first, so that a caller that needs an order sorts them itself. */
int suop_vars(SymCtx *c, const SymUOp *x, const SymUOp ***out) {
  const SymUOp **all;
  int n = suop_sparents(c, x, &all);
  UList l = {0};
  for (int i = 0; i < n; i++)
    if (all[i]->op == SU_BIND && all[i]->src[0]->op == SU_DEFINE_VAR) ul_push(c, &l, all[i]);
  int nbound = l.n;
  for (int i = 0; i < n; i++) {
    if (all[i]->op != SU_DEFINE_VAR) continue;
    bool bound = false;
    for (int k = 0; k < nbound; k++) bound = bound || l.items[k]->src[0] == all[i];
    if (!bound) ul_push(c, &l, all[i]);
  }
  *out = l.items;
  return l.n;
}

/* x.substitute(dvars): graph_rewrite with _substitute (ctx.get(x)): 0.10.0 rewrites top-down
 * (sources first, then the node), 0.10.2 bottom-up (the node first, then its sources). */
typedef struct SubstMap { int n; const SymUOp *const *from, *const *to; Memo done; } SubstMap;

static const SymUOp *subst_get(const SubstMap *s, const SymUOp *x) {
  const SymUOp *r = NULL;
  for (int i = 0; i < s->n; i++) /* a dict: the last of equal keys wins */
    if (s->from[i] == x) r = s->to[i];
  return r;
}

/* n with each source substituted by fn: n itself when no source changed */
static const SymUOp *subst_sources(SymCtx *c, SubstMap *s, const SymUOp *n,
                                   const SymUOp *(*fn)(SymCtx *, SubstMap *, const SymUOp *)) {
  const SymUOp *src[3] = {NULL, NULL, NULL};
  bool same = true;
  for (int i = 0; i < n->nsrc; i++) {
    src[i] = fn(c, s, n->src[i]);
    same = same && src[i] == n->src[i];
  }
  return same ? n : su_with_src(c, n, src);
}

static const SymUOp *subst_top_down(SymCtx *c, SubstMap *s, const SymUOp *n) {
  const SymUOp *rn = memo_get(&s->done, n);
  if (rn != NULL) return rn;
  su_depth_enter(c);
  const SymUOp *new_src = subst_sources(c, s, n, subst_top_down);
  const SymUOp *new_n = new_src == n ? subst_get(s, n) : new_src;
  const SymUOp *ret = new_n == NULL ? n : subst_top_down(c, s, new_n);
  memo_put(c, &s->done, n, ret);
  c->depth--;
  return ret;
}

static const SymUOp *subst_bottom_up(SymCtx *c, SubstMap *s, const SymUOp *n) {
  const SymUOp *rn = memo_get(&s->done, n);
  if (rn != NULL) return rn;
  su_depth_enter(c);
  const SymUOp *last = n, *next;
  int guard = 0;
  while ((next = subst_get(s, last)) != NULL) { /* a cycle in dvars loops forever in Python */
    last = next;
    if (++guard > SYM_MAX_REWRITE_DEPTH) {
      su_raise(c, ST_RAISED, "RecursionError", "maximum recursion depth exceeded");
    }
  }
  const SymUOp *new_src = subst_sources(c, s, last, subst_bottom_up);
  const SymUOp *ret = new_src == last ? last : subst_bottom_up(c, s, new_src);
  memo_put(c, &s->done, n, ret);
  c->depth--;
  return ret;
}

const SymUOp *suop_substitute(SymCtx *c, const SymUOp *x, int n, const SymUOp *const *from, const SymUOp *const *to) {
  SubstMap s = {n, from, to, {arena_array(c->a, 64, sizeof *s.done.keys), arena_array(c->a, 64, sizeof *s.done.vals), 64, 0}};
  return tg_features(c->v)->substitute_bottom_up ? subst_bottom_up(c, &s, x) : subst_top_down(c, &s, x);
}

/* x.substitute({bind: var for each bound variable of x}): what View.unbind does to each sint */
const SymUOp *suop_unbind_all(SymCtx *c, const SymUOp *x) {
  const SymUOp **vars;
  int n = suop_vars(c, x, &vars);
  const SymUOp **from = arena_array(c->a, (size_t)n + 1, sizeof *from), **to = arena_array(c->a, (size_t)n + 1, sizeof *to);
  int k = 0;
  for (int i = 0; i < n; i++) {
    if (vars[i]->op != SU_BIND) continue;
    from[k] = vars[i];
    to[k++] = vars[i]->src[0];
  }
  return k == 0 ? x : suop_substitute(c, x, k, from, to);
}

/* --- render and repr (the text of tinygrad's error messages) */

/* Python's repr of a str: single quotes unless the text has one and no double quote */
static const char *py_str_repr(Arena *a, const char *s) {
  bool dq = strchr(s, '\'') != NULL && strchr(s, '"') == NULL;
  size_t n = strlen(s);
  char *out = arena_alloc(a, n * 4 + 3), *p = out;
  *p++ = dq ? '"' : '\'';
  for (const char *q = s; *q; q++) {
    unsigned char ch = (unsigned char)*q;
    if (ch == '\\' || (ch == '\'' && !dq)) { *p++ = '\\'; *p++ = (char)ch; }
    else if (ch == '\n') { *p++ = '\\'; *p++ = 'n'; }
    else if (ch == '\t') { *p++ = '\\'; *p++ = 't'; }
    else if (ch == '\r') { *p++ = '\\'; *p++ = 'r'; }
    else if (ch < 0x20 || ch == 0x7f) p += sprintf(p, "\\x%02x", ch);
    else *p++ = (char)ch;
  }
  *p++ = dq ? '"' : '\'';
  *p = 0;
  return out;
}

/* str(x.arg) of a CONST: Python's int or bool */
static const char *su_const_str(SymCtx *c, const SymUOp *x) {
  if (x->dtype == SDT_BOOL) return x->arg ? "True" : "False";
  return arena_printf(c->a, "%lld", (long long)x->arg);
}

/* graph_rewrite(x, renderer): NULL when a node has no renderer rule (then tinygrad prints str(ret)) */
static const char *su_render_rec(SymCtx *c, Memo *m, const SymUOp *x) {
  const SymUOp *done = memo_get(m, x);
  if (done != NULL) return done->name;
  const char *s[3] = {NULL, NULL, NULL};
  for (int i = 0; i < x->nsrc; i++)
    if ((s[i] = su_render_rec(c, m, x->src[i])) == NULL) return NULL;
  const char *r = NULL;
  switch (x->op) {
    case SU_DEFINE_VAR: r = x->name; break;
    case SU_RANGE: r = arena_printf(c->a, "ridx%lld", (long long)x->arg); break;
    case SU_CONST: r = su_const_str(c, x); break;
    case SU_BIND: r = s[0]; break;
    case SU_MAX: r = arena_printf(c->a, "max(%s, %s)", s[0], s[1]); break;
    case SU_WHERE: r = arena_printf(c->a, "(%s if %s else %s)", s[1], s[0], s[2]); break;
    case SU_ADD: case SU_MUL: case SU_IDIV: case SU_MOD: case SU_CMPLT: case SU_CMPNE: case SU_XOR: case SU_OR: case SU_AND: {
      static const char *const syms[SU_NOPS] = {[SU_ADD] = "+", [SU_MUL] = "*", [SU_IDIV] = "//", [SU_MOD] = "%", [SU_CMPLT] = "<",
                                                [SU_CMPNE] = "!=", [SU_XOR] = "^", [SU_OR] = "|", [SU_AND] = "&"};
      r = arena_printf(c->a, "(%s%s%s)", s[0], syms[x->op], s[1]);
      break;
    }
    default: return NULL; /* CAST: no renderer rule */
  }
  SymUOp *tag = arena_alloc(c->a, sizeof *tag); /* the memo keeps the text in a never-interned node */
  tag->name = r;
  memo_put(c, m, x, tag);
  return r;
}

/* x.render(simplify) */
const char *suop_render(SymCtx *c, const SymUOp *x, bool simplify) {
  const SymUOp *y = simplify ? suop_simplify(c, x) : x;
  Memo m = {arena_array(c->a, 64, sizeof *m.keys), arena_array(c->a, 64, sizeof *m.vals), 64, 0};
  const char *r = su_render_rec(c, &m, y);
  if (r == NULL) {
    su_raise(c, ST_UNSUPPORTED, "", "symbolic: render of a node without a renderer rule");
  }
  return r;
}

/* pretty_print's first pass: number every node by first discovery and count its uses */
typedef struct PPInfo { const SymUOp **nodes; int *idx, *count; bool *printed; int n, cap; } PPInfo;

static int pp_find(const PPInfo *p, const SymUOp *x) {
  for (int i = 0; i < p->n; i++)
    if (p->nodes[i] == x) return i;
  return -1;
}

static int pp_add(SymCtx *c, PPInfo *p, const SymUOp *x, int idx) {
  if (p->n == p->cap) {
    int cap = p->cap ? p->cap * 2 : 16;
    const SymUOp **nodes = arena_array(c->a, (size_t)cap, sizeof *nodes);
    int *ix = arena_array(c->a, (size_t)cap, sizeof *ix), *cnt = arena_array(c->a, (size_t)cap, sizeof *cnt);
    bool *pr = arena_array(c->a, (size_t)cap, sizeof *pr);
    if (p->n) {
      memcpy(nodes, p->nodes, sizeof *nodes * (size_t)p->n);
      memcpy(ix, p->idx, sizeof *ix * (size_t)p->n);
      memcpy(cnt, p->count, sizeof *cnt * (size_t)p->n);
      memcpy(pr, p->printed, sizeof *pr * (size_t)p->n);
    }
    p->nodes = nodes, p->idx = ix, p->count = cnt, p->printed = pr, p->cap = cap;
  }
  p->nodes[p->n] = x;
  p->idx[p->n] = idx;
  p->count[p->n] = 0;
  p->printed[p->n] = false;
  return p->n++;
}

static void pp_dfs(SymCtx *c, PPInfo *p, const SymUOp *x) {
  for (int i = 0; i < x->nsrc; i++) {
    int k = pp_find(p, x->src[i]);
    if (k < 0) k = pp_add(c, p, x->src[i], p->n); /* cache.setdefault(s, [len(cache), 0, False]) */
    if (++p->count[k] == 1) pp_dfs(c, p, x->src[i]);
  }
}

/* str(x.arg) as UOp.argstr prints it inside the repr */
static const char *su_arg_str(SymCtx *c, const SymUOp *x) {
  switch (x->op) {
    case SU_CONST: return su_const_str(c, x);
    case SU_DEFINE_VAR: return arena_printf(c->a, "(%s, %lld, %lld)", py_str_repr(c->a, x->name), (long long)x->lo, (long long)x->hi);
    case SU_RANGE: /* (axis, False) or axis */
      if (!tg_features(c->v)->range_arg_axis_flag) return arena_printf(c->a, "%lld", (long long)x->arg);
      return arena_printf(c->a, "(%lld, False)", (long long)x->arg);
    default: return "None";
  }
}

static const char *pp_rec(SymCtx *c, PPInfo *p, const SymUOp *x, int d) {
  int k = pp_find(p, x);
  if (k < 0) k = pp_add(c, p, x, 0); /* cache.setdefault(x, [0, 0, False]) */
  if (p->printed[k]) return arena_printf(c->a, "%*s x%d", d, "", p->idx[k]);
  p->printed[k] = true;
  const char *srcs = "";
  for (int i = 0; i < x->nsrc; i++) srcs = arena_printf(c->a, "%s\n%s,", srcs, pp_rec(c, p, x->src[i], d + 2));
  const char *label = p->count[k] > 1 ? arena_printf(c->a, "x%d:=", p->idx[k]) : "";
  return arena_printf(c->a, "%*s%sUOp(Ops.%s, dtypes.%s, arg=%s, src=(%s))", d, "", label, suop_op_name(x->op),
                      x->dtype == SDT_BOOL ? "bool" : "int", su_arg_str(c, x), srcs);
}

/* repr(x): pretty_print(x, ...) */
const char *suop_repr(SymCtx *c, const SymUOp *x) {
  PPInfo p;
  memset(&p, 0, sizeof p);
  pp_dfs(c, &p, x);
  return pp_rec(c, &p, x, 0);
}

/* --- evaluation */

/* UOp._eval(dtypes, type): simplify, then the single value or ValueError */
static int64_t su_eval(SymCtx *c, const SymUOp *x, SymDType want) {
  if (x->dtype != want) {
    su_raise(c, ST_RAISED, "AssertionError", arena_printf(c->a, "eval with wrong dtype %s", suop_repr(c, x)));
  }
  const SymUOp *sx = suop_simplify(c, x);
  if (sx->vmin != sx->vmax) {
    const char *lo = want == SDT_BOOL ? (sx->vmin ? "True" : "False") : arena_printf(c->a, "%lld", (long long)sx->vmin);
    const char *hi = want == SDT_BOOL ? (sx->vmax ? "True" : "False") : arena_printf(c->a, "%lld", (long long)sx->vmax);
    const char *text = suop_render(c, sx, true);
    su_raise(c, ST_RAISED, "ValueError", arena_printf(c->a, "eval failed to be a single number, range is %s to %s in %s", lo, hi, text));
  }
  return sx->vmin;
}

bool suop_bool(SymCtx *c, const SymUOp *x) { return su_eval(c, x, SDT_BOOL) != 0; }
int64_t suop_int(SymCtx *c, const SymUOp *x) { return su_eval(c, x, SDT_INT); }

/* the rendered expression evaluated by Python (ints and bools, Python's // and %) */
static int64_t py_eval_node(SymCtx *c, const SymUOp *x, int n, const char *const *names, const int64_t *vals) {
  switch (x->op) {
    case SU_CONST: return x->arg;
    case SU_DEFINE_VAR:
    case SU_BIND: {
      const char *name = x->op == SU_BIND ? x->src[0]->name : x->name;
      for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0) return vals[i];
      return 0; /* not reached: sym_infer checked that every variable has a value */
    }
    case SU_WHERE: {
      int64_t cond = py_eval_node(c, x->src[0], n, names, vals);
      return py_eval_node(c, x->src[cond ? 1 : 2], n, names, vals);
    }
    default: break;
  }
  if (!su_is_binary(x->op)) {
    su_raise(c, ST_UNSUPPORTED, "", "symbolic: sym_infer of a node without a renderer rule");
  }
  int64_t a = py_eval_node(c, x->src[0], n, names, vals), b = py_eval_node(c, x->src[1], n, names, vals);
  switch (x->op) {
    case SU_ADD: return ck_add(c, a, b);
    case SU_MUL: return ck_mul(c, a, b);
    case SU_IDIV:
    case SU_MOD:
      if (b == 0) {
        su_raise(c, ST_RAISED, "ZeroDivisionError", x->op == SU_IDIV ? "integer division or modulo by zero" : "integer modulo by zero");
      }
      if (a == INT64_MIN && b == -1) {
        su_raise(c, ST_UNSUPPORTED, "", "symbolic: int64 overflow");
      }
      return x->op == SU_IDIV ? py_floordiv(a, b) : py_mod(a, b);
    case SU_MAX: return max64(a, b);
    case SU_CMPLT: return a < b;
    case SU_CMPNE: return a != b;
    case SU_XOR: return a ^ b;
    case SU_OR: return a | b;
    case SU_AND: return a & b;
    default: return 0;
  }
}

/* CPython's "f() missing N required positional arguments: 'a', 'b' and 'c'" */
static const char *missing_args_message(SymCtx *c, int n, const char *const *quoted) {
  const char *list = quoted[0];
  for (int i = 1; i < n; i++) list = arena_printf(c->a, "%s%s%s", list, i == n - 1 ? (n > 2 ? ", and " : " and ") : ", ", quoted[i]);
  return arena_printf(c->a, "<lambda>() missing %d required positional argument%s: %s", n, n > 1 ? "s" : "", list);
}

/* sym_infer(x, var_vals): eval(render(simplify(x))) with var_vals given by variable name (a later
 * entry of the same name wins, as in the dict comprehension) */
int64_t suop_sym_infer(SymCtx *c, const SymUOp *x, int n, const SymUOp *const *vars, const int64_t *vals) {
  const SymUOp *sx = suop_simplify(c, x);
  const char **names = arena_array(c->a, (size_t)n + 1, sizeof *names);
  for (int i = 0; i < n; i++) names[i] = vars[i]->op == SU_BIND ? vars[i]->src[0]->name : vars[i]->name;
  /* varnames: the DEFINE_VARs of sparents / toposort; a missing one is a TypeError of the lambda */
  const SymUOp **all;
  int na = suop_sparents(c, sx, &all);
  const char **missing = arena_array(c->a, (size_t)na, sizeof *missing);
  int nmissing = 0;
  for (int i = 0; i < na; i++) {
    if (all[i]->op != SU_DEFINE_VAR) continue;
    for (int k = 0; k < i; k++)
      if (all[k]->op == SU_DEFINE_VAR && strcmp(all[k]->name, all[i]->name) == 0) {
        su_raise(c, ST_UNSUPPORTED, "", "symbolic: sym_infer of two variables with one name (a SyntaxError in tinygrad)");
      }
    bool found = false;
    for (int k = 0; k < n && !found; k++) found = strcmp(names[k], all[i]->name) == 0;
    if (!found) missing[nmissing++] = py_str_repr(c->a, all[i]->name);
  }
  if (nmissing > 0) {
    su_raise(c, ST_RAISED, "TypeError", missing_args_message(c, nmissing, missing));
  }
  return py_eval_node(c, sx, n, names, vals);
}

/* ============================================================ Part 4: rules */

/* --- UPat construction, mirroring UPat's constructor and operators. Patterns live for the
 * whole process in one arena, built once per version. */

static Arena g_pat_arena;
static bool g_pat_arena_ready;

#define OPBIT(op) (1u << (op))
enum { DT_ANY = 0, DT_BOOL = 1u << SDT_BOOL, DT_INTS = 1u << SDT_INT };

static UPat *upat_alloc(void) {
  if (!g_pat_arena_ready) {
    arena_init(&g_pat_arena);
    g_pat_arena_ready = true;
  }
  UPat *p = arena_alloc(&g_pat_arena, sizeof *p);
  p->name = -1;
  p->allowed_len = -1;
  return p;
}

/* UPat(op, dtype, src, arg, name): src given as kind + up to 3 patterns */
static const UPat *upat(uint32_t ops, uint8_t dts, int name, SrcKind kind, int n, const UPat *s0, const UPat *s1, const UPat *s2) {
  UPat *p = upat_alloc();
  p->ops = ops;
  p->dts = dts;
  p->name = name;
  p->kind = kind;
  p->nsrc = n;
  p->src[0] = s0;
  p->src[1] = s1;
  p->src[2] = s2;
  p->allowed_len = (kind == SRC_TUPLE || kind == SRC_LIST) ? n : -1;
  p->all_same = kind == SRC_LIST && n == 2 && s0 == s1;
  return p;
}

/* UPat.var(name, dtype) and UPat.cvar(name, dtype, vec) are lru_cached: the same arguments give the
 * same object, which decides UPat's all_same (no permutations). */
static const UPat *g_var_cache[NM_COUNT + 1][4];
static const UPat *g_cvar_cache[NM_COUNT + 1][4][2];

static const UPat *upat_var(int name, uint8_t dts) {
  const UPat **slot = &g_var_cache[name + 1][dts];
  if (*slot == NULL) *slot = upat(0, dts, name, SRC_NONE, 0, NULL, NULL, NULL);
  return *slot;
}

static const UPat *upat_cvar(int name, uint8_t dts, bool vec) {
  const UPat **slot = &g_cvar_cache[name + 1][dts][vec];
  if (*slot == NULL) *slot = upat(OPBIT(SU_CONST), dts, name, SRC_NONE, 0, NULL, NULL, NULL);
  return *slot;
}

/* UPat.const(dtype, b) */
static const UPat *upat_const(uint8_t dts, int64_t b) {
  UPat *p = upat_alloc();
  p->ops = OPBIT(SU_CONST);
  p->dts = dts;
  p->has_arg = true;
  p->arg = b;
  return p;
}

/* p.named(name) */
static const UPat *upat_named(const UPat *p, int name) {
  UPat *q = upat_alloc();
  *q = *p;
  q->name = name;
  return q;
}

/* UPat.alu(op, *src): commutative ops take their sources as a list (all orders) */
static const UPat *upat_alu(TgVersion v, SymOp op, const UPat *x, const UPat *y) {
  uint8_t dts = y->dts;
  if (op == SU_CMPLT || op == SU_CMPNE) dts = tg_features(v)->cmp_upat_bool ? DT_BOOL : DT_ANY;
  return upat(OPBIT(op), dts, -1, su_is_commutative(op) ? SRC_LIST : SRC_TUPLE, 2, x, y, NULL);
}

/* x OP int (ufix makes the int a UPat.const of x's dtype) and int OP x */
static const UPat *upat_alu_i(TgVersion v, SymOp op, const UPat *x, int64_t b) { return upat_alu(v, op, x, upat_const(x->dts, b)); }
static const UPat *upat_ralu_i(TgVersion v, SymOp op, int64_t b, const UPat *x) { return upat_alu(v, op, upat_const(x->dts, b), x); }

/* --- rule callbacks. Each names the Python rule it mirrors; m->v[NM_*] are the bound names. */

#define M(name) (m->v[NM_##name])

/* x+0 -> x, x*1 -> x, x//1 -> x, (x%y)%y -> base... */
static const SymUOp *r_x(SymCtx *c, const Store *m) { (void)c; return M(x); }
static const SymUOp *r_base(SymCtx *c, const Store *m) { (void)c; return M(base); }
/* x//x -> 1 */
static const SymUOp *r_one(SymCtx *c, const Store *m) { return su_like(c, M(x), 1); }
/* x//-1 -> -x */
static const SymUOp *r_neg_x(SymCtx *c, const Store *m) { return su_neg(c, M(x)); }
/* (x//c1)*c3+x%c1*c2 -> x*c2 if c1*c2==c3 (0.10.2) */
static const SymUOp *r_divmod_recombine(SymCtx *c, const Store *m) {
  return ck_mul(c, M(c1)->arg, M(c2)->arg) == M(c3)->arg ? suop_mul(c, M(x), M(c2)) : NULL;
}
/* bool x & c -> x if c.arg else c */
static const SymUOp *r_and_const(SymCtx *c, const Store *m) { (void)c; return M(c)->arg ? M(x) : M(c); }
/* bool x | c -> c if c.arg else x */
static const SymUOp *r_or_const(SymCtx *c, const Store *m) { (void)c; return M(c)->arg ? M(c) : M(x); }
/* x < x -> False: UOp.const(bool, False), or x.const_like(False).cast(bool) */
static const SymUOp *r_false(SymCtx *c, const Store *m) {
  if (tg_features(c->v)->false_via_const_like) return su_cast(c, su_like(c, M(x), 0), SDT_BOOL);
  return suop_const(c, SDT_BOOL, 0);
}
/* x*0 -> 0 */
static const SymUOp *r_zero(SymCtx *c, const Store *m) { return su_like(c, M(x), 0); }
/* ALU of consts -> const (exec_alu) */
static const SymUOp *r_const_fold(SymCtx *c, const Store *m) { return su_fold_consts(c, M(a)); }
/* bool MUL is AND, bool ADD/MAX is OR */
static const SymUOp *r_bool_and(SymCtx *c, const Store *m) { return suop_alu(c, SU_AND, M(x), M(y)); }
static const SymUOp *r_bool_or(SymCtx *c, const Store *m) { return suop_alu(c, SU_OR, M(x), M(y)); }
/* CAST(const) -> root.const_like(c.arg) */
static const SymUOp *r_cast_const(SymCtx *c, const Store *m) { return su_like(c, M(root), M(c)->arg); }
/* CAST to its own dtype -> its source */
static const SymUOp *r_cast_noop(SymCtx *c, const Store *m) { (void)c; return M(root)->dtype == M(root)->src[0]->dtype ? M(root)->src[0] : NULL; }
/* commutative flipping: x.replace(src=x.src[::-1]) if x.src[1].tuplize < x.src[0].tuplize */
static const SymUOp *r_flip(SymCtx *c, const Store *m) {
  const SymUOp *x = M(x);
  if (su_cmp(c, x->src[1], x->src[0]) >= 0) return NULL;
  const SymUOp *src[3] = {x->src[1], x->src[0], NULL};
  return su_with_src(c, x, src);
}
/* (x + y) + x*c -> (x + x*c) + y  (0.10.0) */
static const SymUOp *r_group_like(SymCtx *c, const Store *m) { return suop_add(c, suop_add(c, M(x), suop_mul(c, M(x), M(c))), M(y)); }
/* x*c0 + x*c1 -> x*(c0+c1) */
static const SymUOp *r_combine(SymCtx *c, const Store *m) { return suop_mul(c, M(x), suop_add(c, M(c0), M(c1))); }
/* (y + x*c0) + x*c1 -> y + x*(c0+c1)  (0.10.2) */
static const SymUOp *r_combine_y(SymCtx *c, const Store *m) { return suop_add(c, M(y), suop_mul(c, M(x), suop_add(c, M(c0), M(c1)))); }
/* x + x*c -> x*(c+1) */
static const SymUOp *r_x_xc(SymCtx *c, const Store *m) { return suop_mul(c, M(x), suop_add_int(c, M(c), 1)); }
/* (y + x) + x*c -> y + x*(c+1)  (0.10.2) */
static const SymUOp *r_x_xc_y(SymCtx *c, const Store *m) { return suop_add(c, M(y), suop_mul(c, M(x), suop_add_int(c, M(c), 1))); }
/* x + x -> x*2 */
static const SymUOp *r_x_x(SymCtx *c, const Store *m) { return suop_mul_int(c, M(x), 2); }
/* (y + x) + x -> y + x*2  (0.10.2) */
static const SymUOp *r_x_x_y(SymCtx *c, const Store *m) { return suop_add(c, M(y), suop_mul_int(c, M(x), 2)); }
/* -1*(x+c) -> (-x)+(-c), and symbolic_flat's -1*(x+y) -> (-x)+(-y) */
static const SymUOp *r_neg_sum_c(SymCtx *c, const Store *m) { return suop_add(c, su_neg(c, M(x)), su_neg(c, M(c))); }
static const SymUOp *r_neg_sum_y(SymCtx *c, const Store *m) { return suop_add(c, su_neg(c, M(x)), su_neg(c, M(y))); }
/* ALU min==max -> CONST */
static const SymUOp *r_minmax_const(SymCtx *c, const Store *m) { return M(x)->vmin == M(x)->vmax ? su_like(c, M(x), M(x)->vmin) : NULL; }
/* max folding */
static const SymUOp *r_max_fold(SymCtx *c, const Store *m) {
  (void)c;
  if (M(x)->vmin >= M(y)->vmax) return M(x);
  if (M(x)->vmax <= M(y)->vmin) return M(y);
  return NULL;
}
/* max_var_const (0.10.0) */
static const SymUOp *r_max_var_const(SymCtx *c, const Store *m) {
  const SymUOp *x = M(x), *c1 = M(c1), *c2 = M(c2);
  if (x->vmin >= 0) return suop_mul(c, x, c1->arg >= c2->arg ? c1 : c2);
  if (x->vmax <= 0) return suop_mul(c, x, c1->arg >= c2->arg ? c2 : c1);
  return NULL;
}
/* two stage ALU folding: (x op c1) op c2 -> x op (c1 op c2); f is the outer node */
static const SymUOp *r_two_stage(SymCtx *c, const Store *m) {
  SymOp op = M(f)->op;
  return suop_alu(c, op, M(x), suop_alu(c, op, M(c1), M(c2)));
}
/* 0.10.0 spells the same rules with x+(c1+c2), x*(c1*c2), x&(c1&c2), x|(c1|c2) and no name f */
static const SymUOp *r_two_stage_add(SymCtx *c, const Store *m) { return suop_add(c, M(x), suop_add(c, M(c1), M(c2))); }
static const SymUOp *r_two_stage_mul(SymCtx *c, const Store *m) { return suop_mul(c, M(x), suop_mul(c, M(c1), M(c2))); }
static const SymUOp *r_two_stage_and(SymCtx *c, const Store *m) { return suop_alu(c, SU_AND, M(x), suop_alu(c, SU_AND, M(c1), M(c2))); }
static const SymUOp *r_two_stage_or(SymCtx *c, const Store *m) { return suop_alu(c, SU_OR, M(x), suop_alu(c, SU_OR, M(c1), M(c2))); }
/* c0 + x < c1 -> x < c1 - c0 */
static const SymUOp *r_lt_sub(SymCtx *c, const Store *m) { return suop_alu(c, SU_CMPLT, M(x), su_sub(c, M(c1), M(c0))); }
/* (x//c1)//c2 -> x//(c1*c2) */
static const SymUOp *r_div_div(SymCtx *c, const Store *m) { return suop_alu(c, SU_IDIV, M(x), suop_mul(c, M(c1), M(c2))); }
/* c0*x<c1 for positive int c0,c1: x < ceil(c1/c0) */
static const SymUOp *r_lt_mul_pos(SymCtx *c, const Store *m) {
  int64_t c0 = M(c0)->arg, c1 = M(c1)->arg;
  if (!(c0 > 0 && c1 > 0)) return NULL;
  return suop_lt_int(c, M(x), -py_floordiv(-c1, c0));
}
/* c0*x<c1 for negative int c0 and non-positive c1: (-x) < -(floor(-c1/-c0)) */
static const SymUOp *r_lt_mul_neg(SymCtx *c, const Store *m) {
  int64_t c0 = M(c0)->arg, c1 = M(c1)->arg;
  if (!(c0 < 0 && c0 != -1 && c1 <= 0)) return NULL;
  return suop_lt_int(c, su_neg(c, M(x)), -py_floordiv(-c1, -c0));
}
/* x//c0<c1 for positive int c0: x < c1*c0 */
static const SymUOp *r_lt_div(SymCtx *c, const Store *m) {
  if (!(M(c0)->arg > 0)) return NULL;
  return suop_lt_int(c, M(x), ck_mul(c, M(c1)->arg, M(c0)->arg));
}
/* mul add lt (0.10.0): (c0*x + x2) < c1 -> x < c1//c0 */
static const SymUOp *r_lt_mul_add(SymCtx *c, const Store *m) {
  int64_t c0 = M(c0)->arg, c1 = M(c1)->arg;
  if (c0 == 0) {
    su_raise(c, ST_RAISED, "ZeroDivisionError", "integer modulo by zero");
  }
  if (!(py_mod(c1, c0) == 0 && c0 > M(x2)->vmax && M(x2)->vmin >= 0)) return NULL;
  return suop_alu(c, SU_CMPLT, M(x), suop_alu(c, SU_IDIV, M(c1), M(c0)));
}
/* (x + c1) + y -> (x + y) + c1 ;  (x * c1) * y -> (x * y) * c1 */
static const SymUOp *r_add_const_last(SymCtx *c, const Store *m) { return suop_add(c, suop_add(c, M(x), M(y)), M(c1)); }
static const SymUOp *r_mul_const_last(SymCtx *c, const Store *m) { return suop_mul(c, suop_mul(c, M(x), M(y)), M(c1)); }

/* fold_unrolled_divs: (x//4+(x+1)//4+(x+2)//4+(x+3)//4 -> x */
static const SymUOp *r_fold_unrolled_divs(SymCtx *c, const Store *m) {
  const SymUOp **chain;
  int n = suop_split(c, M(divs), SU_ADD, &chain);
  bool have_den = false;
  int64_t denominator = 0;
  const SymUOp *ans = NULL;
  int64_t *seen = arena_array(c->a, (size_t)n + 1, sizeof *seen);
  int nseen = 0;
  for (int i = 0; i < n; i++) {
    const SymUOp *u = chain[i];
    if (!(u->op == SU_IDIV && u->src[1]->op == SU_CONST)) return NULL;
    if (!have_den) {
      denominator = u->src[1]->arg;
      have_den = true;
    }
    if (denominator != u->src[1]->arg) return NULL;
    const SymUOp *s0 = u->src[0];
    if (s0->op == SU_ADD && s0->src[1]->op == SU_CONST) { /* assumed CONST is the last of an ADD */
      seen[nseen++] = s0->src[1]->arg;
      s0 = s0->src[0];
    } else {
      seen[nseen++] = 0;
    }
    if (ans == NULL) ans = s0;
    if (ans != s0) return NULL;
  }
  if (!have_den || ans == NULL) return NULL;
  if (denominator - nseen > 100000) return NULL; /* sorted(seen) cannot equal range(denominator) then */
  int64_t extra = denominator - nseen > 0 ? denominator - nseen : 0;
  int64_t *all = arena_array(c->a, (size_t)(nseen + extra + 1), sizeof *all);
  memcpy(all, seen, sizeof *all * (size_t)nseen);
  int nall = nseen;
  /* the first (denominator-len(seen_const)) terms may have been folded to 0 already */
  for (int64_t i = 0; i < extra; i++)
    if (0 <= ans->vmin && ans->vmax + i < denominator) all[nall++] = i;
  if (nall != denominator) return NULL;
  for (int i = 1; i < nall; i++) { /* sorted(seen_const) == list(range(denominator)) */
    int64_t x = all[i];
    int j = i - 1;
    while (j >= 0 && all[j] > x) {
      all[j + 1] = all[j];
      j--;
    }
    all[j + 1] = x;
  }
  for (int i = 0; i < nall; i++)
    if (all[i] != i) return NULL;
  return ans;
}

/* lt_folding(x, c) */
static const SymUOp *lt_folding(SymCtx *c, const SymUOp *x, int64_t cst) {
  const SymUOp **terms;
  int n = suop_split(c, x, SU_ADD, &terms);
  UList np = {0};
  int64_t pmin = 0, pmax = 0, d = cst;
  for (int i = 0; i < n; i++) {
    if (su_const_factor(terms[i]) == 1) {
      pmin = ck_add(c, pmin, terms[i]->vmin);
      pmax = ck_add(c, pmax, terms[i]->vmax);
    } else {
      ul_push(c, &np, terms[i]);
    }
  }
  if (np.n == 0) return NULL;
  for (int i = 0; i < np.n; i++) d = gcd64(d, su_const_factor(np.items[i]));
  if (!(d > 1 && 0 <= pmin && pmax < d)) return NULL;
  const SymUOp *div = su_divides(c, su_sum(c, np.n, np.items), d);
  if (div == NULL) {
    if (tg_features(c->v)->lt_folding_typeerror) su_raise(c, ST_RAISED, "TypeError", "'<' not supported between instances of 'NoneType' and 'int'");
    else su_raise(c, ST_RAISED, "AttributeError", "'NoneType' object has no attribute 'lt'");
    return NULL;
  }
  return suop_lt_int(c, div, py_floordiv(cst, d));
}
/* generic lt folding: x < c -> lt_folding(x, c.arg) if 0 < c.arg */
static const SymUOp *r_lt_folding(SymCtx *c, const Store *m) { return 0 < M(c)->arg ? lt_folding(c, M(x), M(c)->arg) : NULL; }

/* canonicalize_simplex(X) */
static const SymUOp *canonicalize_simplex(SymCtx *c, const SymUOp *x) {
  const SymUOp **terms;
  int n = suop_split(c, x, SU_ADD, &terms);
  bool changed = false;
  UList ret = {0};
  for (int i = 0; i < n; i++) {
    const SymUOp *u = terms[i];
    if (u->op == SU_MUL && u->src[1]->op == SU_CONST && u->src[1]->arg > 0) { /* assumed the const is the last src of MUL */
      changed = true;
      u = u->src[0];
    }
    if (!(su_is_irreducible(u->op) && u->vmin >= 0)) return NULL;
    ul_push(c, &ret, u);
  }
  return changed ? su_sum(c, ret.n, ret.items) : NULL;
}
/* not x < 1 -> X > 0: (x<1).ne(True) -> (newx<1).ne(True) */
static const SymUOp *r_simplex(SymCtx *c, const Store *m) {
  const SymUOp *newx = canonicalize_simplex(c, M(x));
  return newx != NULL ? su_not(c, suop_lt_int(c, newx, 1)) : NULL;
}

/* mod_folding(x, c) (0.10.0) */
static const SymUOp *mod_folding(SymCtx *c, const SymUOp *x, int64_t cst) {
  /* simple cancel mod case */
  if (0 < cst && 0 <= x->vmin && py_floordiv(x->vmin, cst) == py_floordiv(x->vmax, cst))
    return suop_add_int(c, x, -(py_floordiv(x->vmin, cst) * cst));
  const SymUOp **terms;
  int n = suop_split(c, x, SU_ADD, &terms);
  UList remainder = {0};
  bool changed = false;
  for (int i = 0; i < n; i++) {
    const SymUOp *u = terms[i];
    int64_t factor = su_const_factor(u);
    if (py_mod(factor, cst) != factor) {
      const SymUOp *divides = su_divides(c, u, factor);
      if (divides == NULL) {
        su_raise(c, ST_UNSUPPORTED, "", "symbolic: mod_folding found no divisor");
      }
      ul_push(c, &remainder, suop_mul_int(c, divides, py_mod(factor, cst)));
      changed = true;
    } else if (u->op == SU_MOD && u->src[1]->op == SU_CONST && py_mod(u->src[1]->arg, cst) == 0) {
      ul_push(c, &remainder, u->src[0]);
      changed = true;
    } else {
      ul_push(c, &remainder, u);
    }
  }
  if (!changed) return NULL;
  return remainder.n ? suop_mod_int(c, su_sum(c, remainder.n, remainder.items), cst) : su_like(c, x, 0);
}

/* mod_folding(x, c) (0.10.0+2ca41d6): each term kept as (factor % c, e),
 * with the mod removed when the terms' bounds stay inside [0, c) */
typedef struct ModTerm { int64_t f; const SymUOp *e; } ModTerm;

/* functools.reduce(lambda r, t: r + min(t[0], t[0]-c, key=abs)*(t[1]-t[1].vmin), terms, x.const_like(offset)) */
static const SymUOp *mod_terms_shifted(SymCtx *c, const SymUOp *x, const ModTerm *t, int n, int64_t offset, int64_t cst) {
  const SymUOp *r = su_like(c, x, offset);
  for (int i = 0; i < n; i++) {
    int64_t k = llabs(t[i].f) <= llabs(t[i].f - cst) ? t[i].f : t[i].f - cst;
    r = suop_add(c, r, su_rmul_int(c, k, suop_sub_int(c, t[i].e, t[i].e->vmin)));
  }
  return r;
}

/* the "cases like (3+3x[0-3])%4 -> 3-x[0-3]" loop: true when it ends without a break */
static bool mod_terms_in_range(SymCtx *c, const ModTerm *t, int n, int64_t offset, int64_t cst) {
  int64_t lbound = offset, ubound = offset;
  for (int i = 0; i < n; i++) {
    int64_t span = ck_add(c, t[i].e->vmax, -t[i].e->vmin);
    if (t[i].f > py_floordiv(cst, 2)) {
      if ((lbound = ck_add(c, lbound, ck_mul(c, t[i].f - cst, span))) < 0) return false;
    } else if ((ubound = ck_add(c, ubound, ck_mul(c, t[i].f, span))) >= cst) return false;
  }
  return true;
}

static const SymUOp *mod_folding_bounds(SymCtx *c, const SymUOp *x, int64_t cst) {
  if (0 < cst && 0 <= x->vmin && py_floordiv(x->vmin, cst) == py_floordiv(x->vmax, cst)) /* simple cancel mod case */
    return suop_add_int(c, x, -(py_floordiv(x->vmin, cst) * cst));
  const SymUOp **split;
  int n = suop_split(c, x, SU_ADD, &split), nt = 0;
  ModTerm *terms = arena_array(c->a, (size_t)n + 1, sizeof *terms);
  int64_t rem_const = 0, offset = 0;
  bool changed = false;
  for (int i = 0; i < n; i++) {
    const SymUOp *u = split[i];
    int64_t factor = su_const_factor(u), new_factor = py_mod(factor, cst);
    const SymUOp *e = su_divides(c, u, factor);
    if (new_factor != factor) changed = true;
    else if (u->op == SU_MOD && u->src[1]->op == SU_CONST && py_mod(u->src[1]->arg, cst) == 0) e = u->src[0], changed = true;
    if (e == NULL) su_raise(c, ST_RAISED, "AttributeError", "'NoneType' object has no attribute 'vmin'");
    offset = ck_add(c, offset, ck_mul(c, new_factor, e->vmin));
    if (u->op == SU_CONST) rem_const = ck_add(c, rem_const, new_factor);
    else terms[nt++] = (ModTerm){new_factor, e};
  }
  if (nt == 1 && ck_add(c, terms[0].e->vmax, -terms[0].e->vmin) == 1) { /* (x[4-5] + 3) % 4 -> -3*x[4-5]+15 */
    int64_t k = py_mod(ck_add(c, offset, terms[0].f), cst) - py_mod(offset, cst);
    const SymUOp *e = terms[0].e;
    return suop_add_int(c, su_rmul_int(c, k, suop_sub_int(c, e, e->vmin)), py_mod(offset, cst));
  }
  offset = py_mod(offset, cst);
  if (mod_terms_in_range(c, terms, nt, offset, cst)) return mod_terms_shifted(c, x, terms, nt, offset, cst);
  if (!changed) return NULL;
  const SymUOp *r = su_like(c, x, rem_const);
  for (int i = 0; i < nt; i++) r = suop_add(c, r, su_rmul_int(c, terms[i].f, terms[i].e));
  return suop_mod_int(c, r, cst);
}

static const SymUOp *r_mod_folding(SymCtx *c, const Store *m) {
  if (!(0 < M(c)->arg)) return NULL;
  return tg_features(c->v)->mod_folding_bounds ? mod_folding_bounds(c, M(x), M(c)->arg) : mod_folding(c, M(x), M(c)->arg);
}

/* div_folding(x, c) (0.10.0); `x // c` on a None raises TypeError in Python */
static const SymUOp *div_folding(SymCtx *c, const SymUOp *x, int64_t cst) {
  /* simple cancel div case */
  if (0 <= x->vmin && x->vmax < cst) return su_like(c, x, 0);
  const SymUOp **terms;
  int n = suop_split(c, x, SU_ADD, &terms);
  UList quotient = {0}, remainder = {0};
  int64_t rem_const = 0, g = cst, divisor = 1;
  bool changed = false;
  for (int i = 0; i < n; i++) {
    const SymUOp *u = terms[i];
    int64_t factor;
    if (u->op == SU_CONST) { /* add all const together first */
      if (rem_const != 0) changed = true;
      rem_const += u->arg;
    } else if (py_mod(factor = su_const_factor(u), cst) == 0) {
      if (factor != 0) {
        const SymUOp *d = su_divides(c, u, cst);
        if (d == NULL) {
          su_raise(c, ST_UNSUPPORTED, "", "symbolic: div_folding found no divisor");
        }
        ul_push(c, &quotient, d);
      }
      changed = true;
    } else {
      /* divisor is the smallest common divisor of all MULs */
      if (u->op == SU_MUL && factor > 1 && py_mod(cst, factor) == 0 && (divisor == 1 || divisor > factor)) divisor = factor;
      ul_push(c, &remainder, u);
      g = gcd64(g, factor);
    }
  }
  /* handle the const */
  if (py_mod(rem_const, cst) != rem_const) {
    changed = true;
    ul_push(c, &quotient, su_like(c, x, py_floordiv(rem_const, cst)));
    rem_const = py_mod(rem_const, cst);
  }
  if (rem_const != 0) ul_push(c, &remainder, su_like(c, x, rem_const));
  /* x // c -> quotient + (remainder // div) // (c // div) */
  int64_t div = g > 1 ? g : divisor;
  if (!changed) {
    if (!(1 < div && div < cst)) return NULL;
    const SymUOp *newx = div_folding(c, x, div);
    return newx != NULL ? suop_idiv_int(c, newx, py_floordiv(cst, div)) : NULL;
  }
  const SymUOp *rem = remainder.n ? su_sum(c, remainder.n, remainder.items) : NULL;
  const SymUOp *quo = quotient.n ? su_sum(c, quotient.n, quotient.items) : NULL;
  const SymUOp *rem_div = NULL;
  if (rem != NULL) {
    const SymUOp *folded = div_folding(c, rem, div);
    if (folded == NULL) {
      su_raise(c, ST_RAISED, "TypeError", "unsupported operand type(s) for //: 'NoneType' and 'int'");
    }
    rem_div = suop_idiv_int(c, folded, py_floordiv(cst, div));
  }
  if (quo == NULL) return rem == NULL ? su_like(c, x, 0) : rem_div;
  return rem == NULL ? quo : suop_add(c, rem_div, quo);
}
static const SymUOp *r_div_folding(SymCtx *c, const Store *m) { return 0 < M(c)->arg ? div_folding(c, M(x), M(c)->arg) : NULL; }

/* div_and_mod_folding(x, y, which, split_rem=False) (0.10.2) */
static const SymUOp *div_and_mod_folding(SymCtx *c, const SymUOp *x, const SymUOp *y, SymOp which) {
  /* simple cancel div/mod case */
  if (y->vmin != 0 && y->vmax != 0) {
    int64_t q = py_floordiv(x->vmin, y->vmin);
    if (q == py_floordiv(x->vmin, y->vmax) && q == py_floordiv(x->vmax, y->vmin) && q == py_floordiv(x->vmax, y->vmax))
      return which == SU_MOD ? su_sub(c, x, su_rmul_int(c, q, y)) : su_like(c, x, q);
  }
  if (y->op != SU_CONST || y->arg <= 0) return NULL;
  int64_t cst = y->arg;
  const SymUOp **terms;
  int n = suop_split(c, x, SU_ADD, &terms);
  const SymUOp **svars = arena_array(c->a, (size_t)n, sizeof *svars);
  int64_t *factors = arena_array(c->a, (size_t)n, sizeof *factors), *quotients = arena_array(c->a, (size_t)n, sizeof *quotients);
  int64_t *remainders = arena_array(c->a, (size_t)n, sizeof *remainders);
  int nv = 0;
  int64_t g = cst, div = 1, cnst = 0, offset = 0;
  bool changed = false;
  for (int i = 0; i < n; i++) {
    const SymUOp *u = terms[i];
    if (u->op == SU_MOD && which == SU_MOD && u->src[1]->op == SU_CONST && py_mod(u->src[1]->arg, cst) == 0) {
      u = u->src[0];
      changed = true;
    }
    int64_t f = su_const_factor(u);
    const SymUOp *v = su_divides(c, u, f);
    if (v == NULL) {
      su_raise(c, ST_RAISED, "AttributeError", "'NoneType' object has no attribute 'vmin'");
    }
    int64_t q = py_floordiv(f, cst), r = py_mod(f, cst);
    if (r == 0 || ((which == SU_MOD || u->op == SU_CONST) && r != f)) changed = true;
    offset = ck_add(c, offset, ck_mul(c, r, v->vmin));
    if (u->op == SU_CONST) {
      cnst += f;
    } else { /* div is the smallest common divisor of all terms */
      if (f > 1 && py_mod(cst, f) == 0 && (div == 1 || div > f)) div = f;
      g = gcd64(r, g);
      factors[nv] = f;
      svars[nv] = v;
      quotients[nv] = q;
      remainders[nv++] = r;
    }
  }
  offset = py_mod(offset, cst);
  int64_t lbound = offset, ubound = offset;
  /* we can fold if the expression has only one non-constant term and this term can only take on two values */
  if (nv == 1 && svars[0]->vmax - svars[0]->vmin == 1) {
    const SymUOp *v = svars[0];
    int64_t r = py_mod(offset + remainders[0], cst) - py_mod(offset, cst);
    offset -= r * v->vmin;
    if (which == SU_MOD) return suop_add_int(c, su_rmul_int(c, r, v), offset);
    return suop_add_int(c, su_rmul_int(c, py_floordiv(factors[0] - r, cst), v), py_floordiv(cnst - offset, cst));
  }
  /* a//c = (a-a%c)/c, if we can fold a%c, we can fold a//c */
  bool broke = false;
  for (int i = 0; i < nv; i++) {
    int64_t r = remainders[i], span = svars[i]->vmax - svars[i]->vmin;
    if (r > py_floordiv(cst, 2)) {
      r = r - cst;
      if ((lbound = lbound + r * span) < 0) { broke = true; break; }
    } else if ((ubound = ubound + r * span) >= cst) {
      broke = true;
      break;
    }
    offset -= r * svars[i]->vmin; /* determine what the new offset would be */
  }
  if (!broke) { /* vmin/vmax of the remainder is between 0 and c, we can remove the mod/div */
    const SymUOp *acc = su_like(c, x, which == SU_MOD ? offset : py_floordiv(cnst - offset, cst));
    for (int i = 0; i < nv; i++) {
      int64_t r = remainders[i], alt = r - cst;
      r = (alt < 0 ? -alt : alt) < (r < 0 ? -r : r) ? alt : r; /* min(r, r-c, key=abs) */
      acc = suop_add(c, acc, su_rmul_int(c, which == SU_MOD ? r : py_floordiv(factors[i] - r, cst), svars[i]));
    }
    return acc;
  }
  if (g != 1) changed = true;
  if (!changed) {
    if (which == SU_IDIV && 1 < div && div < cst) {
      const SymUOp *newx = div_and_mod_folding(c, x, suop_const(c, SDT_INT, div), SU_IDIV);
      if (newx != NULL) return suop_idiv_int(c, newx, py_floordiv(cst, div));
    }
    return NULL;
  }
  const SymUOp *quo = su_like(c, x, py_floordiv(cnst, cst)), *rem = su_like(c, x, py_floordiv(py_mod(cnst, cst), g));
  for (int i = 0; i < nv; i++) {
    if (which == SU_IDIV && remainders[i] != 0) {
      rem = suop_add(c, rem, su_rmul_int(c, py_floordiv(factors[i], g), svars[i]));
    } else {
      rem = suop_add(c, rem, su_rmul_int(c, py_floordiv(remainders[i], g), svars[i]));
      quo = suop_add(c, quo, su_rmul_int(c, quotients[i], svars[i]));
    }
  }
  if (which == SU_MOD) return suop_add_int(c, su_rmul_int(c, g, suop_mod_int(c, rem, py_floordiv(cst, g))), py_mod(cnst, g));
  return suop_add(c, suop_idiv_int(c, rem, py_floordiv(cst, g)), quo);
}
static const SymUOp *r_idiv_fold(SymCtx *c, const Store *m) { return div_and_mod_folding(c, M(x), M(y), SU_IDIV); }
static const SymUOp *r_mod_fold(SymCtx *c, const Store *m) { return div_and_mod_folding(c, M(x), M(y), SU_MOD); }
/* (x//c+a)//d -> (x+a*c)//(c*d)  (0.10.2) */
static const SymUOp *r_div_add_div(SymCtx *c, const Store *m) {
  return suop_alu(c, SU_IDIV, suop_add(c, M(x), suop_mul(c, M(a), M(c))), suop_mul(c, M(c), M(d)));
}
/* (x+y)*c -> x*c+y*c (symbolic_flat) */
static const SymUOp *r_distribute(SymCtx *c, const Store *m) { return suop_add(c, suop_mul(c, M(x), M(c)), suop_mul(c, M(y), M(c))); }

#undef M

/* --- the rule lists */

static void pm_add(SymPM *pm, const UPat *p, SymRuleFn fn) {
  if (pm->n == SYM_MAX_RULES) abort(); /* a programming error: raise SYM_MAX_RULES */
  pm->rules[pm->n++] = (SymRule){p, fn};
}

static const uint32_t ALU_OPS = OPBIT(SU_ADD) | OPBIT(SU_MUL) | OPBIT(SU_IDIV) | OPBIT(SU_MAX) | OPBIT(SU_MOD) | OPBIT(SU_CMPLT) |
                                OPBIT(SU_CMPNE) | OPBIT(SU_XOR) | OPBIT(SU_OR) | OPBIT(SU_AND) | OPBIT(SU_WHERE);
static const uint32_t COMMUTATIVE_OPS = OPBIT(SU_ADD) | OPBIT(SU_MUL) | OPBIT(SU_MAX) | OPBIT(SU_CMPNE) | OPBIT(SU_XOR) |
                                        OPBIT(SU_AND) | OPBIT(SU_OR);

/* symbolic_simple (ops.py 0.10.0 / codegen/symbolic.py 0.10.2) */
static void add_symbolic_simple(TgVersion v, SymPM *pm) {
  const UPat *x = upat_var(NM_x, DT_ANY), *y = upat_var(NM_y, DT_ANY);
  const UPat *c = upat_cvar(NM_c, DT_ANY, true), *c1 = upat_cvar(NM_c1, DT_ANY, true);
  const UPat *xb = upat_var(NM_x, DT_BOOL), *yb = upat_var(NM_y, DT_BOOL);
  pm_add(pm, upat_alu_i(v, SU_ADD, x, 0), r_x);                       /* x+0 -> x */
  pm_add(pm, upat_alu_i(v, SU_MUL, x, 1), r_x);                       /* x*1 -> x */
  pm_add(pm, upat_alu(v, SU_IDIV, x, x), r_one);                      /* x//x -> 1 */
  pm_add(pm, upat_alu_i(v, SU_IDIV, x, 1), r_x);                      /* x//1 -> x */
  pm_add(pm, upat_alu_i(v, SU_IDIV, x, -1), r_neg_x);                 /* x//-1 -> -x */
  /* (x/x -> 1 and (x*x2)/x2 -> x need RECIP nodes: left out) */
  /* (x%y)%y -> x%y */
  pm_add(pm, upat_alu(v, SU_MOD, upat_named(upat_alu(v, SU_MOD, upat_var(-1, DT_ANY), y), NM_base), y), r_base);
  /* (x%c)+(x//c)*c = x */
  pm_add(pm, upat_alu(v, SU_ADD, upat_alu(v, SU_MOD, x, c), upat_alu(v, SU_MUL, upat_alu(v, SU_IDIV, x, c), c)), r_x);
  if (tg_features(v)->symbolic_in_codegen) { /* (x%c1)*c2+(x//c1)*c3 = x*c2 if c1*c2==c3 */
    const UPat *c2 = upat_cvar(NM_c2, DT_ANY, true), *c3 = upat_cvar(NM_c3, DT_ANY, true);
    pm_add(pm, upat_alu(v, SU_ADD, upat_alu(v, SU_MUL, upat_alu(v, SU_IDIV, x, c1), c3),
                        upat_alu(v, SU_MUL, upat_alu(v, SU_MOD, x, c1), c2)), r_divmod_recombine);
  }
  const UPat *cs = upat_cvar(NM_c, DT_ANY, false);
  pm_add(pm, upat_alu(v, SU_AND, xb, cs), r_and_const);               /* bool x & c */
  pm_add(pm, upat_alu(v, SU_OR, xb, cs), r_or_const);                 /* bool x | c */
  if (tg_features(v)->symbolic_in_codegen) { /* one Idempotent rule for OR, AND, MAX */
    pm_add(pm, upat(OPBIT(SU_OR) | OPBIT(SU_AND) | OPBIT(SU_MAX), DT_ANY, -1, SRC_TUPLE, 2, x, x, NULL), r_x);
  } else { /* ops.py: x.maximum(x), x & x, x | x */
    pm_add(pm, upat_alu(v, SU_MAX, x, x), r_x);
    pm_add(pm, upat_alu(v, SU_AND, x, x), r_x);
    pm_add(pm, upat_alu(v, SU_OR, x, x), r_x);
  }
  /* x.logical_not().logical_not() -> x */
  const UPat *not_x = upat_alu_i(v, SU_CMPNE, xb, 1);
  pm_add(pm, upat_alu_i(v, SU_CMPNE, not_x, 1), r_x);
  /* (x.where(True, False) -> x: needs WHERE: left out) */
  pm_add(pm, upat_alu(v, SU_CMPLT, x, x), r_false);                  /* x < x -> False */
  const UPat *xi = upat_var(NM_x, DT_INTS);
  pm_add(pm, upat_alu(v, SU_CMPNE, xi, xi), r_false);                 /* x != x -> False (ints) */
  pm_add(pm, upat_alu_i(v, SU_MUL, x, 0), r_zero);                    /* x*0 -> 0 */
  /* constant folding */
  pm_add(pm, upat(ALU_OPS, DT_ANY, NM_a, SRC_REPEAT, 1, upat(OPBIT(SU_CONST), DT_ANY, -1, SRC_NONE, 0, NULL, NULL, NULL), NULL, NULL),
         r_const_fold);
  /* bool MUL is AND, ADD/MAX is OR */
  pm_add(pm, upat_alu(v, SU_MUL, xb, yb), r_bool_and);
  pm_add(pm, upat_alu(v, SU_ADD, xb, yb), r_bool_or);
  pm_add(pm, upat_alu(v, SU_MAX, xb, yb), r_bool_or);
  /* cast */
  pm_add(pm, upat(OPBIT(SU_CAST), DT_ANY, NM_root, SRC_REPEAT, 1, upat_cvar(NM_c, DT_ANY, true), NULL, NULL), r_cast_const);
  pm_add(pm, upat(OPBIT(SU_CAST), DT_ANY, NM_root, SRC_NONE, 0, NULL, NULL, NULL), r_cast_noop);
  /* (bitcast and pow rules of 0.10.2: no BITCAST/POW nodes here) */
}

/* the rest of `symbolic` in ops.py (0.10.0) */
static void add_symbolic_0100(TgVersion v, SymPM *pm) {
  const UPat *x = upat_var(NM_x, DT_ANY), *y = upat_var(NM_y, DT_ANY), *x2 = upat_var(NM_x2, DT_ANY);
  const UPat *c = upat_cvar(NM_c, DT_ANY, true), *c0 = upat_cvar(NM_c0, DT_ANY, true), *c1 = upat_cvar(NM_c1, DT_ANY, true),
             *c2 = upat_cvar(NM_c2, DT_ANY, true);
  pm_add(pm, upat(COMMUTATIVE_OPS, DT_ANY, NM_x, SRC_NONE, 0, NULL, NULL, NULL), r_flip);             /* commutative flipping */
  pm_add(pm, upat_alu(v, SU_ADD, upat_alu(v, SU_ADD, x, y), upat_alu(v, SU_MUL, x, c)), r_group_like); /* group like */
  pm_add(pm, upat_alu(v, SU_OR, x, upat_alu(v, SU_AND, x, upat_var(-1, DT_ANY))), r_x);                /* x|(x&y) -> x */
  pm_add(pm, upat_alu(v, SU_ADD, upat_alu(v, SU_MUL, x, c0), upat_alu(v, SU_MUL, x, c1)), r_combine);  /* x*c0+x*c1 */
  pm_add(pm, upat_alu(v, SU_ADD, x, upat_alu(v, SU_MUL, x, c)), r_x_xc);                               /* x+x*c */
  pm_add(pm, upat_alu(v, SU_ADD, x, x), r_x_x);                                                        /* x+x -> x*2 */
  /* ((x/x2)/x3: RECIP, left out) */
  pm_add(pm, upat_ralu_i(v, SU_MUL, -1, upat_alu(v, SU_ADD, x, c)), r_neg_sum_c);                      /* -(x+c) */
  /* (where rules: no WHERE nodes here) */
  pm_add(pm, upat(ALU_OPS, DT_ANY, NM_x, SRC_NONE, 0, NULL, NULL, NULL), r_minmax_const);             /* ALU min==max */
  pm_add(pm, upat_alu(v, SU_MAX, x, y), r_max_fold);                                                   /* max folding */
  pm_add(pm, upat_alu(v, SU_MAX, upat_alu(v, SU_MUL, x, c1), upat_alu(v, SU_MUL, x, c2)), r_max_var_const);
  /* two stage ALU folding */
  pm_add(pm, upat_alu(v, SU_ADD, upat_alu(v, SU_ADD, x, c1), c2), r_two_stage_add);
  pm_add(pm, upat_alu(v, SU_MUL, upat_alu(v, SU_MUL, x, c1), c2), r_two_stage_mul);
  pm_add(pm, upat_alu(v, SU_AND, upat_alu(v, SU_AND, x, c1), c2), r_two_stage_and);
  pm_add(pm, upat_alu(v, SU_OR, upat_alu(v, SU_OR, x, c1), c2), r_two_stage_or);
  pm_add(pm, upat_alu(v, SU_CMPLT, upat_alu(v, SU_ADD, c0, x), c1), r_lt_sub);                         /* c0 + x < c1 */
  pm_add(pm, upat_alu(v, SU_IDIV, upat_alu(v, SU_IDIV, x, c1), c2), r_div_div);                        /* (x//c1)//c2 */
  /* lt */
  const UPat *c0s = upat_cvar(NM_c0, DT_ANY, false), *c1s = upat_cvar(NM_c1, DT_ANY, false), *xi = upat_var(NM_x, DT_INTS);
  pm_add(pm, upat_alu(v, SU_CMPLT, upat_alu(v, SU_MUL, c0s, xi), c1s), r_lt_mul_pos);
  pm_add(pm, upat_alu(v, SU_CMPLT, upat_alu(v, SU_MUL, c0s, xi), c1s), r_lt_mul_neg);
  pm_add(pm, upat_alu(v, SU_CMPLT, upat_alu(v, SU_IDIV, xi, c0s), c1s), r_lt_div);
  pm_add(pm, upat_alu(v, SU_CMPLT, upat_alu(v, SU_ADD, upat_alu(v, SU_MUL, c0s, x), x2), c1s), r_lt_mul_add); /* mul add lt */
  /* move add/mul consts to end */
  pm_add(pm, upat_alu(v, SU_ADD, upat(OPBIT(SU_ADD), DT_ANY, -1, SRC_TUPLE, 2, x, c1, NULL), y), r_add_const_last);
  pm_add(pm, upat_alu(v, SU_MUL, upat(OPBIT(SU_MUL), DT_ANY, -1, SRC_TUPLE, 2, x, c1, NULL), y), r_mul_const_last);
  /* rules from symbolic */
  pm_add(pm, upat(OPBIT(SU_ADD), DT_ANY, NM_divs, SRC_LIST, 2, upat(0, DT_ANY, -1, SRC_NONE, 0, NULL, NULL, NULL),
                  upat(OPBIT(SU_IDIV), DT_ANY, -1, SRC_NONE, 0, NULL, NULL, NULL), NULL), r_fold_unrolled_divs);
  pm_add(pm, upat_alu(v, SU_CMPLT, xi, upat_cvar(NM_c, DT_ANY, false)), r_lt_folding);                 /* generic lt folding */
  pm_add(pm, upat_alu_i(v, SU_CMPNE, upat_alu_i(v, SU_CMPLT, xi, 1), 1), r_simplex);                   /* canonicalize simplex */
  pm_add(pm, upat_alu(v, SU_IDIV, xi, upat_cvar(NM_c, DT_ANY, false)), r_div_folding);                 /* div folding */
  pm_add(pm, upat_alu(v, SU_MOD, x, upat_cvar(NM_c, DT_ANY, false)), r_mod_folding);                   /* mod folding */
}

/* the rest of `symbolic` in codegen/symbolic.py (0.10.2) */
static void add_symbolic_0102(TgVersion v, SymPM *pm) {
  const UPat *x = upat_var(NM_x, DT_ANY), *y = upat_var(NM_y, DT_ANY);
  const UPat *c = upat_cvar(NM_c, DT_ANY, true), *c0 = upat_cvar(NM_c0, DT_ANY, true), *c1 = upat_cvar(NM_c1, DT_ANY, true),
             *c2 = upat_cvar(NM_c2, DT_ANY, true);
  /* commutative flipping (only for ints; 0.10.1's ops.py: any dtype) */
  uint8_t flip = tg_features(v)->flip_any_dtype ? DT_ANY : DT_INTS;
  pm_add(pm, upat(COMMUTATIVE_OPS, flip, NM_x, SRC_NONE, 0, NULL, NULL, NULL), r_flip);
  pm_add(pm, upat_alu(v, SU_OR, x, upat_alu(v, SU_AND, x, upat_var(-1, DT_ANY))), r_x);                /* x|(x&y) -> x */
  /* combine terms */
  pm_add(pm, upat_alu(v, SU_ADD, upat_alu(v, SU_MUL, x, c0), upat_alu(v, SU_MUL, x, c1)), r_combine);
  pm_add(pm, upat_alu(v, SU_ADD, upat_alu(v, SU_ADD, y, upat_alu(v, SU_MUL, x, c0)), upat_alu(v, SU_MUL, x, c1)), r_combine_y);
  pm_add(pm, upat_alu(v, SU_ADD, x, upat_alu(v, SU_MUL, x, c)), r_x_xc);
  pm_add(pm, upat_alu(v, SU_ADD, upat_alu(v, SU_ADD, y, x), upat_alu(v, SU_MUL, x, c)), r_x_xc_y);
  pm_add(pm, upat_alu(v, SU_ADD, x, x), r_x_x);
  pm_add(pm, upat_alu(v, SU_ADD, upat_alu(v, SU_ADD, y, x), x), r_x_x_y);
  /* ((x/x2)/x3: RECIP, left out) */
  pm_add(pm, upat_ralu_i(v, SU_MUL, -1, upat_alu(v, SU_ADD, x, c)), r_neg_sum_c);                      /* -(x+c) */
  /* (where rules: no WHERE nodes here) */
  pm_add(pm, upat(ALU_OPS, DT_ANY, NM_x, SRC_NONE, 0, NULL, NULL, NULL), r_minmax_const);             /* ALU min==max */
  pm_add(pm, upat_alu(v, SU_MAX, x, y), r_max_fold);                                                   /* max folding */
  /* two stage ALU folding, for op in GroupOp.Associative (set order: ADD, MUL, MAX, OR, AND) */
  const SymOp assoc[5] = {SU_ADD, SU_MUL, SU_MAX, SU_OR, SU_AND};
  for (int i = 0; i < 5; i++)
    pm_add(pm, upat_named(upat_alu(v, assoc[i], upat_alu(v, assoc[i], x, c1), c2), NM_f), r_two_stage);
  pm_add(pm, upat_alu(v, SU_CMPLT, upat_alu(v, SU_ADD, c0, x), c1), r_lt_sub);                         /* c0 + x < c1 */
  pm_add(pm, upat_alu(v, SU_IDIV, upat_alu(v, SU_IDIV, x, c1), c2), r_div_div);                        /* (x//c1)//c2 */
  /* lt */
  const UPat *c0s = upat_cvar(NM_c0, DT_ANY, false), *c1s = upat_cvar(NM_c1, DT_ANY, false), *xi = upat_var(NM_x, DT_INTS);
  pm_add(pm, upat_alu(v, SU_CMPLT, upat_alu(v, SU_MUL, c0s, xi), c1s), r_lt_mul_pos);
  pm_add(pm, upat_alu(v, SU_CMPLT, upat_alu(v, SU_MUL, c0s, xi), c1s), r_lt_mul_neg);
  pm_add(pm, upat_alu(v, SU_CMPLT, upat_alu(v, SU_IDIV, xi, c0s), c1s), r_lt_div);
  /* move add/mul consts to end: (x+c1)+y, (x*c1)*y; the inner pattern's sources in either order where
   * the rule is written with UPat.__add__ (a0b4465), in this order where with src=(x, c1) (0.10.2) */
  SrcKind inner = tg_features(v)->const_last_any_order ? SRC_LIST : SRC_TUPLE;
  pm_add(pm, upat_alu(v, SU_ADD, upat(OPBIT(SU_ADD), DT_ANY, -1, inner, 2, x, c1, NULL), y), r_add_const_last);
  pm_add(pm, upat_alu(v, SU_MUL, upat(OPBIT(SU_MUL), DT_ANY, -1, inner, 2, x, c1, NULL), y), r_mul_const_last);
  /* rules from symbolic */
  pm_add(pm, upat(OPBIT(SU_ADD), DT_ANY, NM_divs, SRC_LIST, 2, upat(0, DT_ANY, -1, SRC_NONE, 0, NULL, NULL, NULL),
                  upat(OPBIT(SU_IDIV), DT_ANY, -1, SRC_NONE, 0, NULL, NULL, NULL), NULL), r_fold_unrolled_divs);
  pm_add(pm, upat_alu(v, SU_CMPLT, xi, upat_cvar(NM_c, DT_ANY, false)), r_lt_folding);                 /* generic lt folding */
  pm_add(pm, upat_alu_i(v, SU_CMPNE, upat_alu_i(v, SU_CMPLT, xi, 1), 1), r_simplex);                   /* canonicalize simplex */
  /* div folding */
  const UPat *a = upat_cvar(NM_a, DT_ANY, true), *d = upat_cvar(NM_d, DT_ANY, true);
  pm_add(pm, upat_alu(v, SU_IDIV, upat_alu(v, SU_ADD, upat_alu(v, SU_IDIV, x, c), a), d), r_div_add_div);
  pm_add(pm, upat_alu(v, SU_IDIV, xi, y), r_idiv_fold);
  pm_add(pm, upat_alu(v, SU_MOD, x, y), r_mod_fold);                                                   /* mod folding */
}

/* symbolic_flat = symbolic + these two */
static void add_symbolic_flat(TgVersion v, SymPM *pm) {
  const UPat *x = upat_var(NM_x, DT_ANY), *y = upat_var(NM_y, DT_ANY);
  pm_add(pm, upat_ralu_i(v, SU_MUL, -1, upat_alu(v, SU_ADD, x, y)), r_neg_sum_y);                      /* -(x+y) */
  pm_add(pm, upat_alu(v, SU_MUL, upat_alu(v, SU_ADD, upat_var(NM_x, DT_INTS), y), upat_cvar(NM_c, DT_ANY, true)), r_distribute);
}

static SymPM g_symbolic[TG_NVERSIONS], g_flat[TG_NVERSIONS];
static bool g_built[TG_NVERSIONS];

static void build_matchers(SymCtx *c) {
  TgVersion v = c->v; /* the matchers of v's features, built once per version */
  if (!g_built[v]) {
    SymPM *pm = &g_symbolic[v];
    add_symbolic_simple(v, pm);
    if (tg_features(v)->symbolic_in_codegen) add_symbolic_0102(v, pm);
    else add_symbolic_0100(v, pm);
    g_flat[v] = *pm;
    add_symbolic_flat(v, &g_flat[v]);
    g_built[v] = true;
  }
  c->symbolic = &g_symbolic[v];
  c->flat = &g_flat[v];
}

/* ============================================================ Part 5: valid simplification */

/* parse_valid: X <= c gives (X, true, c), X >= c gives (X, false, c); false when unparsable (ValueError) */
static bool parse_valid(SymCtx *c, const SymUOp *valid, const SymUOp **expr, bool *is_upper, int64_t *cst) {
  /* (X < c).ne(True) -> X >= c */
  if (valid->op == SU_CMPNE && valid->src[1]->op == SU_CONST && valid->src[1]->arg == 1 && valid->src[0]->op == SU_CMPLT &&
      valid->src[0]->src[1]->op == SU_CONST) {
    *expr = valid->src[0]->src[0];
    *is_upper = false;
    *cst = valid->src[0]->src[1]->arg;
    return true;
  }
  /* X < c -> X <= c-1 (0.10.2 also checks that X is an int) */
  if (valid->op == SU_CMPLT && valid->src[1]->op == SU_CONST && (!tg_features(c->v)->parse_valid_int_only || valid->src[0]->dtype == SDT_INT)) {
    *expr = valid->src[0];
    *is_upper = true;
    *cst = valid->src[1]->arg - 1;
    return true;
  }
  return false;
}

/* uop.substitute({X:newX}).simplify().substitute({newX:X}).simplify() */
static const SymUOp *simplify_with(SymCtx *c, const SymUOp *uop, const SymUOp *x, const SymUOp *newx) {
  const SymUOp *u = suop_simplify(c, su_substitute(c, uop, x, newx));
  return suop_simplify(c, su_substitute(c, u, newx, x));
}

/* uop_given_valid (0.10.0 ops.py, 0.10.2 codegen/symbolic.py) */
const SymUOp *sym_uop_given_valid(SymCtx *c, const SymUOp *valid, const SymUOp *uop) {
  /* first, parse valid into {expr: (lower_bound, upper_bound)}, a dict in insertion order */
  const SymUOp **stmts;
  int n = suop_split(c, valid, SU_AND, &stmts);
  const SymUOp **exprs = arena_array(c->a, (size_t)n, sizeof *exprs);
  int64_t *bound = arena_array(c->a, (size_t)n * 2, sizeof *bound);
  bool *has = arena_array(c->a, (size_t)n * 2, sizeof *has);
  int nexpr = 0;
  for (int i = 0; i < n; i++) {
    const SymUOp *expr;
    bool is_upper;
    int64_t cst;
    if (!parse_valid(c, stmts[i], &expr, &is_upper, &cst)) return uop; /* give up if we cannot parse the valid */
    int k = 0;
    while (k < nexpr && exprs[k] != expr) k++;
    if (k == nexpr) exprs[nexpr++] = expr;
    bound[2 * k + is_upper] = cst;
    has[2 * k + is_upper] = true;
  }
  /* simplify uop given that valid is True */
  for (int k = 0; k < nexpr; k++) {
    const SymUOp *expr = exprs[k];
    bool has_lo = has[2 * k], has_hi = has[2 * k + 1];
    int64_t lo = bound[2 * k], hi = bound[2 * k + 1];
    if (tg_features(c->v)->given_valid_fills_bounds) { /* v0, v1 = (expr.vmin if v[0] is None else v[0], ...) */
      if (!has_lo) lo = expr->vmin;
      if (!has_hi) hi = expr->vmax;
      has_lo = has_hi = true;
      if (lo == hi) { /* whole node became a const */
        uop = suop_simplify(c, su_substitute(c, uop, expr, su_like(c, expr, lo)));
        continue;
      }
    }
    /* some expr has lower bound > upper bound -> valid is an empty set and we return None */
    if (has_lo && has_hi && lo > hi) return NULL;
    /* candidates: sets of (X, newX); a candidate rewrites uop when all its items give the same result */
    const SymUOp **xs[2], **nxs[2];
    int ncand = 0, len[2] = {0, 0};
    if (expr->op == SU_ADD && has_lo && lo == 1) {
      const SymUOp **parts;
      int np = suop_split(c, expr, SU_ADD, &parts);
      bool all_irreducible = true;
      for (int i = 0; i < np; i++) all_irreducible = all_irreducible && su_is_irreducible(parts[i]->op);
      if (all_irreducible) { /* the constraint is a simplex: X0 + X1 + ... > 0 */
        xs[ncand] = parts;
        nxs[ncand] = arena_array(c->a, (size_t)np, sizeof **nxs);
        for (int i = 0; i < np; i++) nxs[ncand][i] = su_variable_dt(c, "fake", 1, parts[i]->vmax, parts[i]->dtype);
        len[ncand++] = np;
      }
    }
    if (su_contains(c, uop, expr, true)) { /* try checking the whole clause */
      xs[ncand] = arena_array(c->a, 1, sizeof **xs);
      nxs[ncand] = arena_array(c->a, 1, sizeof **nxs);
      xs[ncand][0] = expr;
      nxs[ncand][0] = su_variable_dt(c, "fake", has_lo ? lo : expr->vmin, has_hi ? hi : expr->vmax, expr->dtype);
      len[ncand++] = 1;
    }
    for (int ci = 0; ci < ncand; ci++) {
      const SymUOp *first = NULL;
      bool all_same = true;
      for (int i = 0; i < len[ci]; i++) {
        const SymUOp *nu = simplify_with(c, uop, xs[ci][i], nxs[ci][i]);
        if (i == 0) first = nu;
        else all_same = all_same && nu == first;
      }
      if (all_same && first != NULL) uop = first;
    }
  }
  return uop;
}

/* _valid_priority: valids that are in other valids' parents go first */
static int valid_priority(SymCtx *c, const SymUOp *v, int n, const SymUOp *const *valids) {
  const SymUOp *expr;
  bool is_upper;
  int64_t cst;
  if (!parse_valid(c, v, &expr, &is_upper, &cst)) return 0;
  int p = 0;
  for (int i = 0; i < n; i++) /* `in other.parents`, or `in other.toposort` (self included) */
    if (su_contains(c, valids[i], expr, tg_features(c->v)->uop_toposort)) p--;
  return p;
}

/* simplify_valid */
const SymUOp *sym_simplify_valid(SymCtx *c, const SymUOp *valid) {
  const SymUOp **valids;
  int n = suop_split(c, valid, SU_AND, &valids);
  int *prio = arena_array(c->a, (size_t)n, sizeof *prio);
  int *order = arena_array(c->a, (size_t)n, sizeof *order);
  for (int i = 0; i < n; i++) {
    prio[i] = valid_priority(c, valids[i], n, valids);
    order[i] = i;
  }
  for (int i = 1; i < n; i++) { /* sorted(..., key=priority) is stable */
    int x = order[i], j = i - 1;
    while (j >= 0 && prio[order[j]] > prio[x]) {
      order[j + 1] = order[j];
      j--;
    }
    order[j + 1] = x;
  }
  const SymUOp **ret = arena_array(c->a, (size_t)n, sizeof *ret);
  bool something_changed = false;
  for (int i = 0; i < n; i++) {
    const SymUOp *stmt = valids[order[i]], *newstmt = NULL;
    if (i > 0) {
      const SymUOp *acc = ret[0];
      for (int k = 1; k < i; k++) acc = suop_alu(c, SU_AND, acc, ret[k]);
      newstmt = sym_uop_given_valid(c, acc, stmt);
    }
    ret[i] = newstmt != NULL ? newstmt : stmt;
    if (ret[i] != stmt) something_changed = true;
  }
  if (!something_changed) return NULL;
  const SymUOp *acc = ret[0];
  for (int k = 1; k < n; k++) acc = suop_alu(c, SU_AND, acc, ret[k]);
  return acc;
}
