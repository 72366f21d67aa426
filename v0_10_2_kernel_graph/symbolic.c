/* symbolic.c — `symbolic_simple` of tinygrad 0.10.2 (codegen/symbolic.py),
 * the generic folding rules the scheduler's `sym` matcher starts with, and
 * `exec_alu` (ops.py python_alu) for constant folding with Python number
 * semantics (ints and floats kept apart, floor/trunc division as written).
 *
 * Each rule function mirrors one UPat; commutative UPats (src given as a
 * list) try the permutations in itertools.permutations order, and the
 * first match whose callback is not None wins, as PatternMatcher does. */
#include <math.h>
#include <string.h>
#include "passes.h"

/* ---------------------------------------------------------------- matching helpers */

static bool is_cvar(const UOp *u) { return u->op == OP_CONST || u->op == OP_VCONST; }

/* UPat.const(None, v): a CONST whose arg == v (Python ==: an int above
 * int64 equals no small v) */
static bool const_is(const UOp *u, int64_t v) { return u->op == OP_CONST && value_eq_int(u->arg, v); }

/* UPat dtype match: dtype or its scalar */
static bool dtype_matches(const UOp *u, const DType *d) { return u->dtype == d || u->dtype->scalar == d; }
static bool is_bool(const UOp *u) { return dtype_matches(u, dt_bool); }
static bool is_ints_dtype(const UOp *u) { return dtype_is_int(u->dtype); }

/* ---------------------------------------------------------------- exec_alu */

/* Python ints are computed on in 128 bits (PyInt, value.h); a result
 * beyond them is reported unsupported, never wrapped. */
static double num_f(const Value *v) { return value_to_double(v); }
/* an int or bool operand as an int */
static PyInt num_i(const Value *v) { return value_pyint(v); }
static bool any_float(const Value *a, const Value *b) { return a->kind == V_FLOAT || b->kind == V_FLOAT; }

static _Noreturn void beyond_128_bits(KG *k) {
  (void)k;
  error_unsupported("constant folding beyond 128 bits (Python big ints)");
}

static PyInt checked_add(KG *k, PyInt a, PyInt b) {
  PyInt r;
  if (__builtin_add_overflow(a, b, &r)) beyond_128_bits(k);
  return r;
}
static PyInt checked_sub(KG *k, PyInt a, PyInt b) {
  PyInt r;
  if (__builtin_sub_overflow(a, b, &r)) beyond_128_bits(k);
  return r;
}
static PyInt checked_mul(KG *k, PyInt a, PyInt b) {
  PyInt r;
  if (__builtin_mul_overflow(a, b, &r)) beyond_128_bits(k);
  return r;
}
static PyInt checked_neg(KG *k, PyInt a) {
  if (a == PYINT_MIN) beyond_128_bits(k);
  return -a;
}
static PyInt checked_abs(KG *k, PyInt a) { return a < 0 ? checked_neg(k, a) : a; }

/* int(x) of a number (MOD's operands) */
static PyInt py_int(KG *k, const Value *v) {
  if (v->kind != V_FLOAT) return num_i(v);
  double f = v->u.f;
  if (isnan(f)) error_raise("ValueError", "cannot convert float NaN to integer");
  if (isinf(f)) error_raise("OverflowError", "cannot convert float infinity to integer");
  if (!(f >= -0x1p127 && f < 0x1p127)) beyond_128_bits(k);
  return (PyInt)f;
}

/* pow(x, y) of ints, y >= 0 */
static const Value *int_pow(KG *k, PyInt base, PyInt e) {
  if (base == 0 || base == 1) return v_int(k->in, e == 0 ? 1 : (int64_t)base);
  if (base == -1) return v_int(k->in, e % 2 ? -1 : 1);
  PyInt r = 1;
  for (; e > 0; e--) r = checked_mul(k, r, base); /* |base| >= 2: beyond 128 bits within 127 steps */
  return v_pyint(k->in, r);
}

static const Value *py_pow(KG *k, const Value *a, const Value *b) {
  /* ops.py safe_pow */
  if (!any_float(a, b) && num_i(b) >= 0) return int_pow(k, num_i(a), num_i(b));
  double x = num_f(a), y = num_f(b);
  if (x == 0.0 && y < 0) return v_float(k->in, INFINITY);                  /* ZeroDivisionError */
  if (x < 0 && y != floor(y)) return v_float(k->in, NAN);                  /* complex result */
  double r = pow(x, y);
  if (isinf(r) && !isinf(x) && !isinf(y)) return v_float(k->in, x > 0 ? INFINITY : -INFINITY); /* OverflowError */
  return v_float(k->in, r);
}

/* Python's `a ** b` for numbers with b an int (0.10.1 simplify_reduceop's `ret **= prshape`) */
const Value *v0_10_2_py_int_power(KG *k, const Value *a, const Value *b) {
  if (!value_is_number(a) || !value_is_int(b)) error_unsupported("folding a non-number constant");
  if (a->kind != V_FLOAT && num_i(b) >= 0) return int_pow(k, num_i(a), num_i(b));
  double x = num_f(a), y = num_f(b);
  if (x == 0.0 && y < 0) error_raise("ZeroDivisionError", "0.0 cannot be raised to a negative power");
  double r = pow(x, y);
  if (isinf(r) && !isinf(x)) error_raise("OverflowError", "(34, 'Numerical result out of range')");
  return v_float(k->in, r);
}

/* ops.py exec_alu(op, dtype, operands, truncate_output=False) for scalars */
const Value *v0_10_2_exec_alu(KG *k, Op op, const Value *const *x, uint32_t n) {
  Interner *in = k->in;
  const Value *a = x[0], *b = n > 1 ? x[1] : NULL;
  for (uint32_t i = 0; i < n; i++)
    if (!value_is_number(x[i])) error_unsupported("folding a non-number constant");
  switch (op) {
    case OP_NEG:
      if (a->kind == V_FLOAT) return v_float(in, -a->u.f);
      return v_pyint(k->in, checked_neg(k, num_i(a)));
    case OP_LOG2: {
      double f = num_f(a);
      return v_float(in, f > 0 ? log2(f) : f == 0 ? -INFINITY : NAN);
    }
    case OP_EXP2: {
      if (a->kind != V_FLOAT) { /* safe_exp2: 2 ** x */
        PyInt e = num_i(a);
        if (e >= 127) beyond_128_bits(k);
        return e >= 0 ? v_pyint(k->in, (PyInt)1 << e) : v_float(in, exp2((double)e));
      }
      return v_float(in, exp2(a->u.f));
    }
    case OP_SQRT: {
      double f = num_f(a);
      return v_float(in, f >= 0 ? sqrt(f) : NAN);
    }
    case OP_RECIP: {
      double f = num_f(a);
      return v_float(in, f != 0 ? 1.0 / f : copysign(INFINITY, f));
    }
    case OP_SIN: {
      double f = num_f(a);
      return v_float(in, isinf(f) ? NAN : sin(f));
    }
    case OP_POW: return py_pow(k, a, b);
    case OP_ADD:
      if (any_float(a, b)) return v_float(in, num_f(a) + num_f(b));
      return v_pyint(k->in, checked_add(k, num_i(a), num_i(b)));
    case OP_SUB:
      if (any_float(a, b)) return v_float(in, num_f(a) - num_f(b));
      return v_pyint(k->in, checked_sub(k, num_i(a), num_i(b)));
    case OP_MUL:
      if (any_float(a, b)) return v_float(in, num_f(a) * num_f(b));
      return v_pyint(k->in, checked_mul(k, num_i(a), num_i(b)));
    case OP_CMPNE:
      if (any_float(a, b)) return v_bool(in, num_f(a) != num_f(b));
      return v_bool(in, num_i(a) != num_i(b));
    case OP_CMPLT:
      if (any_float(a, b)) return v_bool(in, num_f(a) < num_f(b));
      return v_bool(in, num_i(a) < num_i(b));
    case OP_MAX: { /* max(x, y) returns x unless y > x */
      bool gt = any_float(a, b) ? num_f(b) > num_f(a) : num_i(b) > num_i(a);
      return gt ? b : a;
    }
    case OP_XOR: case OP_OR: case OP_AND: {
      if (any_float(a, b)) error_raise("TypeError", "unsupported operand type(s)");
      PyInt p = num_i(a), q = num_i(b), r = op == OP_XOR ? (p ^ q) : op == OP_OR ? (p | q) : (p & q);
      if (a->kind == V_BOOL && b->kind == V_BOOL) return v_bool(in, r != 0);
      return v_pyint(k->in, r); /* two's complement, as Python's ints */
    }
    case OP_SHL: case OP_SHR: {
      if (any_float(a, b)) error_raise("TypeError", "unsupported operand type(s)");
      PyInt p = num_i(a), q = num_i(b);
      if (q < 0) error_raise("ValueError", "negative shift count");
      if (op == OP_SHR) return v_pyint(k->in, q >= 127 ? (p < 0 ? -1 : 0) : p >> q);
      if (p == 0) return v_int(in, 0);
      if (q >= 127) beyond_128_bits(k);
      return v_pyint(k->in, checked_mul(k, p, (PyInt)1 << q));
    }
    case OP_IDIV: { /* abs(x)//abs(y)*(1,-1)[x*y<0] if y != 0 else 0 */
      if (any_float(a, b)) {
        double p = num_f(a), q = num_f(b);
        if (q == 0) return v_int(in, 0);
        double r = floor(fabs(p) / fabs(q));
        return v_float(in, p * q < 0 ? -r : r);
      }
      PyInt p = num_i(a), q = num_i(b);
      if (q == 0) return v_int(in, 0);
      PyInt r = checked_abs(k, p) / checked_abs(k, q);
      return v_pyint(k->in, (p < 0) != (q < 0) && p != 0 ? -r : r);
    }
    case OP_MOD: { /* abs(int(x))%abs(int(y))*(1,-1)[x<0] */
      PyInt p = py_int(k, a), q = py_int(k, b);
      if (q == 0) error_raise("ZeroDivisionError", "integer modulo by zero");
      PyInt r = checked_abs(k, p) % checked_abs(k, q);
      return v_pyint(k->in, num_f(a) < 0 ? -r : r);
    }
    case OP_WHERE: return value_truthy(a) ? b : x[2];
    case OP_MULACC: {
      const Value *ab[2] = {a, b};
      const Value *p = v0_10_2_exec_alu(k, OP_MUL, ab, 2);
      const Value *pc[2] = {p, x[2]};
      return v0_10_2_exec_alu(k, OP_ADD, pc, 2);
    }
    default: error_unsupported("constant folding of %s", op_name(op, k->cap->generation));
  }
}

/* ---------------------------------------------------------------- symbolic_simple */

/* (UPat.var("x") + 0, lambda x: x) */
static const UOp *symbolic_simple_add_zero(void *c, const UOp *u) {
  (void)c;
  if (u->nsrc != 2) return NULL;
  if (const_is(u->src[1], 0)) return u->src[0];
  if (const_is(u->src[0], 0)) return u->src[1];
  return NULL;
}

/* (UPat.var("x") * 1, lambda x: x) */
static const UOp *symbolic_simple_mul_one(void *c, const UOp *u) {
  (void)c;
  if (u->nsrc != 2) return NULL;
  if (const_is(u->src[1], 1)) return u->src[0];
  if (const_is(u->src[0], 1)) return u->src[1];
  return NULL;
}

/* (UPat.var("x") // UPat.var("x"), lambda x: x.const_like(1)) */
static const UOp *symbolic_simple_idiv_self(void *c, const UOp *u) {
  if (u->nsrc != 2 || u->src[0] != u->src[1]) return NULL;
  return v0_10_2_uop_const_like(c, u->src[0], v0_10_2_value_int(c, 1));
}

/* (UPat.var("x") // 1, lambda x: x) */
static const UOp *symbolic_simple_idiv_one(void *c, const UOp *u) {
  (void)c;
  return u->nsrc == 2 && const_is(u->src[1], 1) ? u->src[0] : NULL;
}

/* (UPat.var("x") // -1, lambda x: -x) */
static const UOp *symbolic_simple_idiv_neg_one(void *c, const UOp *u) {
  return u->nsrc == 2 && const_is(u->src[1], -1) ? v0_10_2_uop_neg(c, u->src[0]) : NULL;
}

/* (UPat.var("x") / UPat.var("x"), lambda x: x.const_like(1)): MUL[x, RECIP(x)] */
static const UOp *symbolic_simple_div_self(void *c, const UOp *u) {
  if (u->nsrc != 2) return NULL;
  for (int p = 0; p < 2; p++) {
    const UOp *x = u->src[p], *rc = u->src[1 - p];
    if (rc->op == OP_RECIP && rc->nsrc == 1 && rc->src[0] == x)
      return v0_10_2_uop_const_like(c, x, v0_10_2_value_int(c, 1));
  }
  return NULL;
}

/* ((UPat.var("x") * UPat.var("x2")) / UPat.var("x2"), lambda x,x2: x): MUL[MUL[x, x2], RECIP(x2)] */
static const UOp *symbolic_simple_mul_div_cancel(void *c, const UOp *u) {
  (void)c;
  if (u->nsrc != 2) return NULL;
  for (int p = 0; p < 2; p++) {
    const UOp *m = u->src[p], *rc = u->src[1 - p];
    if (m->op != OP_MUL || m->nsrc != 2 || rc->op != OP_RECIP || rc->nsrc != 1) continue;
    if (m->src[1] == rc->src[0]) return m->src[0];
    if (m->src[0] == rc->src[0]) return m->src[1];
  }
  return NULL;
}

/* ((UPat.var() % UPat.var("y")).named("base") % UPat.var("y"), lambda base,y: base) */
static const UOp *symbolic_simple_mod_mod(void *c, const UOp *u) {
  (void)c;
  if (u->nsrc != 2) return NULL;
  const UOp *base = u->src[0];
  return base->op == OP_MOD && base->nsrc == 2 && base->src[1] == u->src[1] ? base : NULL;
}

/* (x%c)+(x//c)*c -> x: ADD[MOD(x,c), MUL[IDIV(x,c), c]] */
static const UOp *symbolic_simple_mod_div_recombine(void *c, const UOp *u) {
  (void)c;
  if (u->nsrc != 2) return NULL;
  for (int p = 0; p < 2; p++) {
    const UOp *md = u->src[p], *ml = u->src[1 - p];
    if (md->op != OP_MOD || md->nsrc != 2 || !is_cvar(md->src[1]) || ml->op != OP_MUL || ml->nsrc != 2) continue;
    const UOp *x = md->src[0], *cc = md->src[1];
    for (int q = 0; q < 2; q++) {
      const UOp *dv = ml->src[q], *c2 = ml->src[1 - q];
      if (c2 == cc && dv->op == OP_IDIV && dv->nsrc == 2 && dv->src[0] == x && dv->src[1] == cc) return x;
    }
  }
  return NULL;
}

/* (x//c1)*c3 + x%c1*c2 -> x*c2 if c1*c2==c3: ADD[MUL[IDIV(x,c1), c3], MUL[MOD(x,c1), c2]] */
static const UOp *symbolic_simple_div_mod_mul(void *c, const UOp *u) {
  if (u->nsrc != 2) return NULL;
  for (int p = 0; p < 2; p++) {
    const UOp *a = u->src[p], *b = u->src[1 - p];
    if (a->op != OP_MUL || a->nsrc != 2 || b->op != OP_MUL || b->nsrc != 2) continue;
    for (int q = 0; q < 2; q++) {
      const UOp *dv = a->src[q], *c3 = a->src[1 - q];
      if (dv->op != OP_IDIV || dv->nsrc != 2 || !is_cvar(dv->src[1]) || !is_cvar(c3)) continue;
      const UOp *x = dv->src[0], *c1 = dv->src[1];
      for (int r = 0; r < 2; r++) {
        const UOp *md = b->src[r], *c2 = b->src[1 - r];
        if (md->op != OP_MOD || md->nsrc != 2 || md->src[0] != x || md->src[1] != c1 || !is_cvar(c2)) continue;
        if (c1->op != OP_CONST || c2->op != OP_CONST || c3->op != OP_CONST) error_unsupported("VCONST folding");
        const Value *m[2] = {c1->arg, c2->arg};
        const Value *prod = v0_10_2_exec_alu(c, OP_MUL, m, 2), *pe[2] = {prod, c3->arg};
        if (value_truthy(v0_10_2_exec_alu(c, OP_CMPNE, pe, 2))) continue;
        return v0_10_2_uop_alu2(c, OP_MUL, x, c2);
      }
    }
  }
  return NULL;
}

/* (UPat.var("x", dtype=dtypes.bool) & UPat.cvar("c", vec=False), lambda x,c: x if c.arg else c) and the OR twin */
static const UOp *bool_with_const(void *c, const UOp *u, bool is_and) {
  (void)c;
  if (u->nsrc != 2) return NULL;
  for (int p = 0; p < 2; p++) {
    const UOp *x = u->src[p], *cc = u->src[1 - p];
    if (!is_bool(x) || cc->op != OP_CONST) continue;
    bool t = value_truthy(cc->arg);
    return is_and ? (t ? x : cc) : (t ? cc : x);
  }
  return NULL;
}
static const UOp *symbolic_simple_bool_and_const(void *c, const UOp *u) { return bool_with_const(c, u, true); }
static const UOp *symbolic_simple_bool_or_const(void *c, const UOp *u) { return bool_with_const(c, u, false); }

/* (UPat(GroupOp.Idempotent, src=(UPat.var("x"), UPat.var("x"))), lambda x: x) */
static const UOp *symbolic_simple_idempotent(void *c, const UOp *u) {
  (void)c;
  return u->nsrc == 2 && u->src[0] == u->src[1] ? u->src[0] : NULL;
}

/* CONST of dtype bool equal to v (UPat.const(dtypes.bool, v)) */
static bool bool_const_is(const UOp *u, bool v) { return u->op == OP_CONST && is_bool(u) && value_eq_int(u->arg, v); }

/* x.logical_not().logical_not() -> x: CMPNE[CMPNE[x:bool, True], True] */
static const UOp *symbolic_simple_not_not(void *c, const UOp *u) {
  (void)c;
  if (u->nsrc != 2 || !is_bool(u)) return NULL;
  for (int p = 0; p < 2; p++) {
    const UOp *in = u->src[p], *t = u->src[1 - p];
    if (!bool_const_is(t, true) || in->op != OP_CMPNE || in->nsrc != 2 || !is_bool(in)) continue;
    for (int q = 0; q < 2; q++) {
      const UOp *x = in->src[q], *t2 = in->src[1 - q];
      if (is_bool(x) && bool_const_is(t2, true)) return x;
    }
  }
  return NULL;
}

/* x.where(True, False) -> x for bool x */
static const UOp *symbolic_simple_where_bool(void *c, const UOp *u) {
  (void)c;
  if (u->nsrc != 3 || !is_bool(u->src[0])) return NULL;
  return bool_const_is(u->src[1], true) && bool_const_is(u->src[2], false) ? u->src[0] : NULL;
}

/* x.const_like(False).cast(dtypes.bool.vec(x.dtype.count)) */
static const UOp *false_like(KG *k, const UOp *x) {
  const DType *bd = x->dtype->count > 1 ? dtype_vec(dt_bool, x->dtype->count) : dt_bool;
  return v0_10_2_uop_cast(k, v0_10_2_uop_const_like(k, x, v_bool(k->in, false)), bd);
}

/* (UPat.var("x") < UPat.var("x"), ...) */
static const UOp *symbolic_simple_lt_self(void *c, const UOp *u) {
  if (u->nsrc != 2 || u->src[0] != u->src[1] || !is_bool(u)) return NULL;
  return false_like(c, u->src[0]);
}

/* (UPat.var("x", dtype=dtypes.ints) != UPat.var("x", dtype=dtypes.ints), ...) */
static const UOp *symbolic_simple_ne_self(void *c, const UOp *u) {
  if (u->nsrc != 2 || u->src[0] != u->src[1] || !is_bool(u) || !is_ints_dtype(u->src[0])) return NULL;
  return false_like(c, u->src[0]);
}

/* (UPat.var("x") * 0, lambda x: x.const_like(nan if x.arg is nan/inf float else 0)) */
static const UOp *symbolic_simple_mul_zero(void *c, const UOp *u) {
  KG *k = c;
  if (u->nsrc != 2) return NULL;
  for (int p = 0; p < 2; p++) {
    const UOp *x = u->src[p], *z = u->src[1 - p];
    if (!const_is(z, 0)) continue;
    bool nan = x->arg->kind == V_FLOAT && (isnan(x->arg->u.f) || isinf(x->arg->u.f));
    return v0_10_2_uop_const_like(k, x, nan ? v_float(k->in, NAN) : v0_10_2_value_int(k, 0));
  }
  return NULL;
}

/* (UPat(GroupOp.ALU, name="a", src=UPat((Ops.VCONST, Ops.CONST))), constant folding) */
static const UOp *symbolic_simple_const_fold(void *c, const UOp *u) {
  KG *k = c;
  if (!op_in(&k->groups, GROUP_ALU, u->op) || u->op == OP_THREEFRY || u->nsrc == 0) return NULL;
  const Value *args[3];
  for (uint32_t i = 0; i < u->nsrc; i++) {
    if (!is_cvar(u->src[i])) return NULL;
    if (u->src[i]->op == OP_VCONST) error_unsupported("VCONST folding");
    args[i] = u->src[i]->arg;
  }
  if (u->dtype->count > 1) error_unsupported("vector constant folding");
  return v0_10_2_uop_const_like(k, u, v0_10_2_exec_alu(k, u->op, args, u->nsrc));
}

/* bool MUL is AND, ADD/MAX is OR */
static const UOp *bool_binop(void *c, const UOp *u, Op to) {
  if (u->nsrc != 2 || !is_bool(u->src[0]) || !is_bool(u->src[1])) return NULL;
  return v0_10_2_uop_alu2(c, to, u->src[0], u->src[1]);
}
static const UOp *symbolic_simple_bool_mul(void *c, const UOp *u) { return bool_binop(c, u, OP_AND); }
static const UOp *symbolic_simple_bool_add_max(void *c, const UOp *u) { return bool_binop(c, u, OP_OR); }

/* (UPat(Ops.CAST, name="root", src=UPat.cvar("c")), lambda root, c: root.const_like(c.arg)) */
static const UOp *symbolic_simple_cast_const(void *c, const UOp *u) {
  if (u->nsrc == 0) return NULL;
  for (uint32_t i = 0; i < u->nsrc; i++)
    if (!is_cvar(u->src[i]) || u->src[i] != u->src[0]) return NULL;
  if (u->src[0]->op == OP_VCONST) error_unsupported("VCONST folding");
  return v0_10_2_uop_const_like(c, u, u->src[0]->arg);
}

/* (UPat((Ops.CAST, Ops.BITCAST), name="root"), lambda root: root.src[0] if root.dtype == root.src[0].dtype else None)
 * (0.10.1: UPat(Ops.CAST, name="root")) */
static const UOp *symbolic_simple_cast_noop(void *c, const UOp *u) {
  KG *k = c;
  if (u->op == OP_BITCAST && k->f->symbolic_no_bitcast_or_pow) return NULL;
  return u->nsrc >= 1 && u->dtype == u->src[0]->dtype ? u->src[0] : NULL;
}

/* struct.pack("e", x): CPython's PyFloat_Pack2 (round half to even) */
static uint16_t pack_half(KG *k, double x) {
  (void)k;
  unsigned sign = signbit(x) ? 1 : 0;
  int e;
  unsigned bits;
  if (x == 0.0) return (uint16_t)(sign << 15);
  if (isinf(x)) return (uint16_t)((sign << 15) | (0x1fu << 10));
  if (isnan(x)) return (uint16_t)((sign << 15) | (0x1fu << 10) | 512u);
  double f = frexp(fabs(x), &e) * 2.0;
  e--;
  if (e >= 16) error_raise("OverflowError", "float too large to pack with e format");
  if (e < -25) f = 0.0, e = 0;
  else if (e < -14) f = ldexp(f, 14 + e), e = 0;
  else e += 15, f -= 1.0;
  f *= 1024.0;
  bits = (unsigned)f;
  if (f - bits > 0.5 || (f - bits == 0.5 && bits % 2 == 1)) {
    if (++bits == 1024) {
      bits = 0;
      if (++e == 31) error_raise("OverflowError", "float too large to pack with e format");
    }
  }
  return (uint16_t)((sign << 15) | ((unsigned)e << 10) | bits);
}

/* struct.unpack("e", ...) */
static double unpack_half(uint16_t h) {
  int e = (h >> 10) & 0x1f;
  double f = h & 0x3ff, sign = (h >> 15) ? -1.0 : 1.0;
  if (e == 0x1f) return f == 0 ? sign * INFINITY : NAN;
  if (e == 0) return sign * ldexp(f, -24);
  return sign * ldexp(f + 1024.0, e - 25);
}

/* struct.pack's error for an int outside an int format's range (CPython's native formats) */
static _Noreturn void struct_range_error(KG *k, char fmt, PyInt x) {
  (void)k;
  const char *m = "argument out of range";
  switch (fmt) {
    case 'b': m = "byte format requires -128 <= number <= 127"; break;
    case 'B': m = "ubyte format requires 0 <= number <= 255"; break;
    case 'h': m = "short format requires -32768 <= number <= 32767"; break;
    case 'H': m = "ushort format requires 0 <= number <= 65535"; break;
    case 'i': m = "'i' format requires -2147483648 <= number <= 2147483647"; break;
    case 'I': if (x >= 0) m = "'I' format requires 0 <= number <= 4294967295"; break;
    default: break;
  }
  error_raise("struct.error", "%s", m);
}

/* struct.pack(fmt, v) for an int format of `size` bytes, little endian */
static void pack_int(KG *k, char fmt, int size, const Value *v, unsigned char *bytes) {
  if (v->kind == V_FLOAT) error_raise("struct.error", "required argument is not an integer");
  bool is_signed = fmt == 'b' || fmt == 'h' || fmt == 'i' || fmt == 'q';
  PyInt x = num_i(v), top = (PyInt)1 << (8 * size - (is_signed ? 1 : 0));
  if (is_signed ? (x < -top || x >= top) : (x < 0 || x >= top)) struct_range_error(k, fmt, x);
  uint64_t u = (uint64_t)x; /* the low 64 bits, two's complement */
  memcpy(bytes, &u, (size_t)size);
}

/* (UPat(Ops.BITCAST, name="root", src=(UPat.cvar("c"),)), fold_bitcast) */
static const UOp *fold_bitcast(void *c, const UOp *u) {
  KG *k = c;
  if (k->f->symbolic_no_bitcast_or_pow) return NULL; /* not in 0.10.1 */
  if (u->nsrc != 1 || !is_cvar(u->src[0])) return NULL;
  const UOp *cc = u->src[0];
  char from = cc->dtype->scalar->fmt, to = u->dtype->scalar->fmt;
  if (!from || !to) return NULL;
  if (cc->op == OP_VCONST || u->dtype->count != 1) error_unsupported("vector bitcast folding");
  unsigned char bytes[8] = {0};
  const Value *v = cc->arg;
  int fsz = cc->dtype->scalar->itemsize, tsz = u->dtype->scalar->itemsize;
  if (fsz != tsz) error_raise("struct.error", "unpack requires a buffer of %d bytes", tsz);
  /* struct.pack(from_fmt, v) */
  if (from == 'f' || from == 'd' || from == 'e') {
    double f = num_f(v);
    if (from == 'd') memcpy(bytes, &f, 8);
    else if (from == 'f') {
      float g = (float)f;
      if (isinf(g) && !isinf(f)) error_raise("OverflowError", "float too large to pack with f format");
      memcpy(bytes, &g, 4);
    }
    else { uint16_t h = pack_half(k, f); memcpy(bytes, &h, 2); }
  } else if (from == '?') bytes[0] = value_truthy(v);
  else pack_int(k, from, fsz, v, bytes);
  /* struct.unpack(to_fmt, ...) */
  const Value *out;
  if (to == 'd') { double f; memcpy(&f, bytes, 8); out = v_float(k->in, f); }
  else if (to == 'f') { float g; memcpy(&g, bytes, 4); out = v_float(k->in, g); }
  else if (to == 'e') { uint16_t h; memcpy(&h, bytes, 2); out = v_float(k->in, unpack_half(h)); }
  else if (to == '?') out = v_bool(k->in, bytes[0] != 0);
  else {
    uint64_t u = 0;
    memcpy(&u, bytes, (size_t)tsz);
    bool is_signed = to == 'b' || to == 'h' || to == 'i' || to == 'q';
    int sh = 64 - 8 * tsz;
    if (is_signed) out = v_int(k->in, (int64_t)(u << sh) >> sh);
    else out = v_pyint(k->in, u);
  }
  return v0_10_2_uop_const_like(k, u, out);
}

/* Python `f == v` for a float f and a number v: an int is compared exactly */
static bool float_eq_num(double f, const Value *v) {
  if (v->kind == V_FLOAT) return f == v->u.f;
  return f == floor(f) && fabs(f) < 0x1p127 && (PyInt)f == num_i(v);
}

/* simplify_pow(x, c) for (UPat.var("x").alu(Ops.POW, UPat.cvar("c", vec=False)), simplify_pow) */
static const UOp *simplify_pow(void *c, const UOp *u) {
  KG *k = c;
  if (k->f->symbolic_no_bitcast_or_pow) return NULL; /* not in 0.10.1 (no Ops.POW) */
  if (u->nsrc != 2 || u->src[1]->op != OP_CONST) return NULL;
  const UOp *x = u->src[0], *cc = u->src[1];
  const Value *a = cc->arg;
  double f = num_f(a);
  if (f < 0) { /* x.reciprocal().pow(-c) */
    const UOp *rc = v0_10_2_uop1(k, OP_RECIP, x->dtype, NULL, x);
    return v0_10_2_uop_alu2(k, OP_POW, rc, v0_10_2_uop_neg(k, cc));
  }
  if (f == 0) return v0_10_2_uop_const_like(k, x, v0_10_2_value_int(k, 1));
  /* int(c.arg-0.5)+0.5 == c.arg */
  const Value *half = v_float(k->in, 0.5), *ah[2] = {a, half};
  const Value *am = v0_10_2_exec_alu(k, OP_SUB, ah, 2);
  if (float_eq_num(trunc(num_f(am)) + 0.5, a)) {
    const UOp *p = v0_10_2_uop_alu2(k, OP_POW, x, v0_10_2_uop_const_like(k, cc, am));
    return v0_10_2_uop_alu2(k, OP_MUL, p, v0_10_2_uop1(k, OP_SQRT, x->dtype, NULL, x));
  }
  if (trunc(f) == f) { /* (y := x.pow(c.const_like(c.arg//2))) * y * (x if c.arg%2 == 1 else 1) */
    const Value *q, *odd;
    if (a->kind == V_FLOAT) q = v_float(k->in, floor(f / 2)), odd = v_bool(k->in, fmod(f, 2) == 1);
    else q = v_pyint(k->in, num_i(a) >> 1), odd = v_bool(k->in, (num_i(a) & 1) == 1);
    const UOp *y = v0_10_2_uop_alu2(k, OP_POW, x, v0_10_2_uop_const_like(k, cc, q));
    const UOp *yy = v0_10_2_uop_alu2(k, OP_MUL, y, y);
    return odd->u.b ? v0_10_2_uop_alu2(k, OP_MUL, yy, x)
                    : v0_10_2_uop_binop_const(k, OP_MUL, yy, v0_10_2_value_int(k, 1), false);
  }
  return NULL;
}

/* (UPat.cvar("c", vec=False).alu(Ops.POW, UPat.var("x")),
 *  lambda c,x: c if c.arg == 1 else (x*math.log2(c.arg)).exp2() if c.arg > 0 else None) */
static const UOp *symbolic_simple_const_pow(void *c, const UOp *u) {
  KG *k = c;
  if (k->f->symbolic_no_bitcast_or_pow) return NULL; /* not in 0.10.1 (no Ops.POW) */
  if (u->nsrc != 2 || u->src[0]->op != OP_CONST) return NULL;
  const UOp *cc = u->src[0], *x = u->src[1];
  double f = num_f(cc->arg);
  if (value_eq_int(cc->arg, 1)) return cc;
  if (!(f > 0)) return NULL;
  const UOp *m = v0_10_2_uop_binop_const(k, OP_MUL, x, v_float(k->in, log2(f)), false);
  return v0_10_2_uop1(k, OP_EXP2, m->dtype, NULL, m);
}

static const Rule symbolic_simple_rules[] = {
  {{OP_ADD}, symbolic_simple_add_zero, "x+0", {{[TG_0_10_1] = {V0_10_2_OPS_PY, 1117}, [TG_0_10_2] = {V0_10_2_SYMBOLIC_PY, 26}, [TG_0_10_2_A0B4465] = {V0_10_2_SYMBOLIC_PY, 26}}}},
  {{OP_MUL}, symbolic_simple_mul_one, "x*1", {{[TG_0_10_1] = {V0_10_2_OPS_PY, 1118}, [TG_0_10_2] = {V0_10_2_SYMBOLIC_PY, 27}, [TG_0_10_2_A0B4465] = {V0_10_2_SYMBOLIC_PY, 27}}}},
  {{OP_IDIV}, symbolic_simple_idiv_self, "x//x", {{[TG_0_10_1] = {V0_10_2_OPS_PY, 1119}, [TG_0_10_2] = {V0_10_2_SYMBOLIC_PY, 28}, [TG_0_10_2_A0B4465] = {V0_10_2_SYMBOLIC_PY, 28}}}},
  {{OP_IDIV}, symbolic_simple_idiv_one, "x//1", {{[TG_0_10_1] = {V0_10_2_OPS_PY, 1120}, [TG_0_10_2] = {V0_10_2_SYMBOLIC_PY, 29}, [TG_0_10_2_A0B4465] = {V0_10_2_SYMBOLIC_PY, 29}}}},
  {{OP_IDIV}, symbolic_simple_idiv_neg_one, "x//-1", {{[TG_0_10_1] = {V0_10_2_OPS_PY, 1121}, [TG_0_10_2] = {V0_10_2_SYMBOLIC_PY, 30}, [TG_0_10_2_A0B4465] = {V0_10_2_SYMBOLIC_PY, 30}}}},
  {{OP_MUL}, symbolic_simple_div_self, "x/x", {{[TG_0_10_1] = {V0_10_2_OPS_PY, 1122}, [TG_0_10_2] = {V0_10_2_SYMBOLIC_PY, 31}, [TG_0_10_2_A0B4465] = {V0_10_2_SYMBOLIC_PY, 31}}}},
  {{OP_MUL}, symbolic_simple_mul_div_cancel, "(x*x2)/x2", {{[TG_0_10_1] = {V0_10_2_OPS_PY, 1123}, [TG_0_10_2] = {V0_10_2_SYMBOLIC_PY, 32}, [TG_0_10_2_A0B4465] = {V0_10_2_SYMBOLIC_PY, 32}}}},
  {{OP_MOD}, symbolic_simple_mod_mod, "(x%y)%y", {{[TG_0_10_1] = {V0_10_2_OPS_PY, 1124}, [TG_0_10_2] = {V0_10_2_SYMBOLIC_PY, 33}, [TG_0_10_2_A0B4465] = {V0_10_2_SYMBOLIC_PY, 33}}}},
  {{OP_ADD}, symbolic_simple_mod_div_recombine, "(x%c)+(x//c)*c", {{[TG_0_10_1] = {V0_10_2_OPS_PY, 1125}, [TG_0_10_2] = {V0_10_2_SYMBOLIC_PY, 34}, [TG_0_10_2_A0B4465] = {V0_10_2_SYMBOLIC_PY, 34}}}},
  {{OP_ADD}, symbolic_simple_div_mod_mul, "(x//c1)*c3+x%c1*c2", {{[TG_0_10_1] = {V0_10_2_OPS_PY, 1126}, [TG_0_10_2] = {V0_10_2_SYMBOLIC_PY, 35}, [TG_0_10_2_A0B4465] = {V0_10_2_SYMBOLIC_PY, 35}}}},
  {{OP_AND}, symbolic_simple_bool_and_const, "x&c", {{[TG_0_10_1] = {V0_10_2_OPS_PY, 1128}, [TG_0_10_2] = {V0_10_2_SYMBOLIC_PY, 37}, [TG_0_10_2_A0B4465] = {V0_10_2_SYMBOLIC_PY, 37}}}},
  {{OP_OR}, symbolic_simple_bool_or_const, "x|c", {{[TG_0_10_1] = {V0_10_2_OPS_PY, 1129}, [TG_0_10_2] = {V0_10_2_SYMBOLIC_PY, 38}, [TG_0_10_2_A0B4465] = {V0_10_2_SYMBOLIC_PY, 38}}}},
  {{OP_OR, OP_AND, OP_MAX}, symbolic_simple_idempotent, "idempotent", {{[TG_0_10_1] = {V0_10_2_OPS_PY, 1130}, [TG_0_10_2] = {V0_10_2_SYMBOLIC_PY, 39}, [TG_0_10_2_A0B4465] = {V0_10_2_SYMBOLIC_PY, 39}}}},
  {{OP_CMPNE}, symbolic_simple_not_not, "not not x", {{[TG_0_10_1] = {V0_10_2_OPS_PY, 1131}, [TG_0_10_2] = {V0_10_2_SYMBOLIC_PY, 40}, [TG_0_10_2_A0B4465] = {V0_10_2_SYMBOLIC_PY, 40}}}},
  {{OP_WHERE}, symbolic_simple_where_bool, "x.where(True, False)", {{[TG_0_10_1] = {V0_10_2_OPS_PY, 1132}, [TG_0_10_2] = {V0_10_2_SYMBOLIC_PY, 41}, [TG_0_10_2_A0B4465] = {V0_10_2_SYMBOLIC_PY, 41}}}},
  {{OP_CMPLT}, symbolic_simple_lt_self, "x<x", {{[TG_0_10_1] = {V0_10_2_OPS_PY, 1134}, [TG_0_10_2] = {V0_10_2_SYMBOLIC_PY, 43}, [TG_0_10_2_A0B4465] = {V0_10_2_SYMBOLIC_PY, 43}}}},
  {{OP_CMPNE}, symbolic_simple_ne_self, "x!=x", {{[TG_0_10_1] = {V0_10_2_OPS_PY, 1135}, [TG_0_10_2] = {V0_10_2_SYMBOLIC_PY, 44}, [TG_0_10_2_A0B4465] = {V0_10_2_SYMBOLIC_PY, 44}}}},
  {{OP_MUL}, symbolic_simple_mul_zero, "x*0", {{[TG_0_10_1] = {V0_10_2_OPS_PY, 1140}, [TG_0_10_2] = {V0_10_2_SYMBOLIC_PY, 49}, [TG_0_10_2_A0B4465] = {V0_10_2_SYMBOLIC_PY, 49}}}},
  {{OP_EXP2, OP_LOG2, OP_SIN, OP_SQRT, OP_RECIP, OP_NEG, OP_ADD, OP_MUL, OP_IDIV, OP_MAX, OP_MOD, OP_CMPLT, OP_CMPNE,
    OP_XOR, OP_SHL, OP_SHR, OP_OR, OP_AND, OP_THREEFRY, OP_SUB, OP_FDIV, OP_POW, OP_WHERE, OP_MULACC},
   symbolic_simple_const_fold, "constant folding", {{[TG_0_10_1] = {V0_10_2_OPS_PY, 1143}, [TG_0_10_2] = {V0_10_2_SYMBOLIC_PY, 52}, [TG_0_10_2_A0B4465] = {V0_10_2_SYMBOLIC_PY, 52}}}},
  {{OP_MUL}, symbolic_simple_bool_mul, "bool MUL is AND", {{[TG_0_10_1] = {V0_10_2_OPS_PY, 1146}, [TG_0_10_2] = {V0_10_2_SYMBOLIC_PY, 55}, [TG_0_10_2_A0B4465] = {V0_10_2_SYMBOLIC_PY, 55}}}},
  {{OP_ADD}, symbolic_simple_bool_add_max, "bool ADD is OR", {{[TG_0_10_1] = {V0_10_2_OPS_PY, 1147}, [TG_0_10_2] = {V0_10_2_SYMBOLIC_PY, 56}, [TG_0_10_2_A0B4465] = {V0_10_2_SYMBOLIC_PY, 56}}}},
  {{OP_MAX}, symbolic_simple_bool_add_max, "bool MAX is OR", {{[TG_0_10_1] = {V0_10_2_OPS_PY, 1148}, [TG_0_10_2] = {V0_10_2_SYMBOLIC_PY, 57}, [TG_0_10_2_A0B4465] = {V0_10_2_SYMBOLIC_PY, 57}}}},
  {{OP_CAST}, symbolic_simple_cast_const, "CAST(CONST)", {{[TG_0_10_1] = {V0_10_2_OPS_PY, 1150}, [TG_0_10_2] = {V0_10_2_SYMBOLIC_PY, 59}, [TG_0_10_2_A0B4465] = {V0_10_2_SYMBOLIC_PY, 59}}}},
  {{OP_CAST, OP_BITCAST}, symbolic_simple_cast_noop, "CAST to same dtype", {{[TG_0_10_1] = {V0_10_2_OPS_PY, 1151}, [TG_0_10_2] = {V0_10_2_SYMBOLIC_PY, 60}, [TG_0_10_2_A0B4465] = {V0_10_2_SYMBOLIC_PY, 60}}}},
  {{OP_BITCAST}, fold_bitcast, "fold_bitcast", {{[TG_0_10_2] = {V0_10_2_SYMBOLIC_PY, 61}, [TG_0_10_2_A0B4465] = {V0_10_2_SYMBOLIC_PY, 61}}}},
  {{OP_POW}, simplify_pow, "simplify_pow", {{[TG_0_10_2] = {V0_10_2_SYMBOLIC_PY, 63}, [TG_0_10_2_A0B4465] = {V0_10_2_SYMBOLIC_PY, 63}}}},
  {{OP_POW}, symbolic_simple_const_pow, "c ** x", {{[TG_0_10_2] = {V0_10_2_SYMBOLIC_PY, 65}, [TG_0_10_2_A0B4465] = {V0_10_2_SYMBOLIC_PY, 65}}}},
};

const PatternMatcher v0_10_2_pm_symbolic_simple = {
    symbolic_simple_rules, sizeof symbolic_simple_rules / sizeof *symbolic_simple_rules};
