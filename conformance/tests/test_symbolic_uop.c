/* test_symbolic_uop.c — 0.10.x symbolic sints (common/symbolic_uop.c, Part 3b):
 * Variables, BIND, the MathTrait operators in both operand orders, smax/smin,
 * render, repr, vars, unbind, sym_infer, bool()/int(), against vectors recorded
 * from real tinygrad (conformance/vectors/sint-v0.10.*.jsonl.gz, written by
 * conformance/oracle/record_sint_vectors.py; format in docs/shapetracker.md),
 * plus hand-written cases that show the behaviour.
 *
 *   test_symbolic_uop [VECTOR_DIR]        (or env TSCHED_VECTORS; default conformance/vectors)
 *
 * The replay evaluates each case's TREE with Python's rules for sints: ints
 * stay ints, an int meeting a UOp becomes x.const_like(int) (symbolic.h lists
 * the mapping), comparisons of ints are Python bools. TSCHED_ST_VERBOSE=1
 * prints every failure (default: the first 20). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capture.h"
#include "protected.h"
#include "symbolic.h"
#include "uop_vector.h"

static const char *g_vector_dir = "conformance/vectors";
static int g_fail_print_limit = 20;

/* ================================================================ hand-written cases */

typedef struct Bind { SymCtx *c; const SymUOp *var; int64_t val; } Bind;
static void bind_call(void *ud) {
  Bind *b = ud;
  suop_bind(b->c, b->var, b->val);
}

/* a bound Variable keeps the variable's range; unbinding gives the DEFINE_VAR back */
static void bind_and_unbind_body(void *ud) {
  (void)ud;
  Arena a;
  arena_init(&a);
  SymCtx *c = symctx_new(&a, TG_0_10_0);
  const SymUOp *i = suop_variable(c, "i", 1, 10), *b = suop_bind(c, i, 3);
  assert_int_equal(b->op, SU_BIND);
  assert_int_equal(suop_vmin(b), 1);
  assert_int_equal(suop_vmax(b), 10);
  assert_ptr_equal(suop_bind(c, i, 3), b); /* hash-consed */
  const SymUOp *var;
  int64_t val;
  suop_unbind(c, b, &var, &val);
  assert_ptr_equal(var, i);
  assert_int_equal(val, 3);
  assert_ptr_equal(suop_const_uop(c, b), i); /* UOp.const(dtype, bind) */
  /* a shape i*3 with i bound, as View.unbind substitutes it */
  const SymUOp *s = suop_mul(c, b, suop_const_like(c, b, 3));
  assert_ptr_equal(suop_unbind_all(c, s), suop_mul(c, i, suop_const_like(c, i, 3)));
  assert_string_equal(suop_render(c, s, true), "(i*3)");
  Bind bad = {c, i, 11};
  Status st = attempt(bind_call, &bad);
  assert_int_equal(st.kind, ST_RAISED);
  assert_string_equal(st.msg, "bind 11 not in range [1, 10]");
  arena_free(&a);
}
static void bind_and_unbind(void **state) { (void)state; run_protected(bind_and_unbind_body); }

typedef struct BoolOf { SymCtx *c; const SymUOp *x; } BoolOf;
static void bool_call(void *ud) {
  BoolOf *b = ud;
  suop_bool(b->c, b->x);
}

/* int - UOp, UOp - int and UOp - UOp build different nodes, as MathTrait does */
static void operand_order_body(void *ud) {
  (void)ud;
  Arena a;
  arena_init(&a);
  SymCtx *c = symctx_new(&a, TG_0_10_0);
  const SymUOp *j = suop_variable(c, "j", 1, 10);
  const SymUOp *three = suop_const_like(c, j, 3);
  assert_string_equal(suop_render(c, suop_sub_int(c, j, 3), false), "(j+-3)");              /* j - 3 */
  assert_string_equal(suop_render(c, suop_sub(c, three, j), false), "(3+(j*-1))");          /* 3 - j */
  assert_string_equal(suop_render(c, suop_minimum_int(c, j, 3), false), "(max((j*-1), -3)*-1)"); /* j.minimum(3) */
  assert_string_equal(suop_render(c, suop_le(c, three, j), false), "((j<3)!=True)");        /* 3 <= j is j.__ge__(3) */
  assert_true(suop_bool(c, suop_gt(c, suop_const_like(c, j, 11), j)));                       /* bool(11 > j) */
  BoolOf lt = {c, suop_lt(c, j, suop_const_like(c, j, 5))};                                   /* bool(j < 5) raises */
  Status st = attempt(bool_call, &lt);
  assert_string_equal(st.type, "ValueError");
  assert_string_equal(st.msg, "eval failed to be a single number, range is False to True in (j<5)");
  arena_free(&a);
}
static void operand_order(void **state) { (void)state; run_protected(operand_order_body); }

/* repr is tinygrad's pretty_print: shared nodes are named x<N>:= once and referenced after */
static void repr_names_shared_nodes_body(void *ud) {
  (void)ud;
  Arena a;
  arena_init(&a);
  SymCtx *c = symctx_new(&a, TG_0_10_0);
  const SymUOp *j = suop_variable(c, "j", 1, 10), *jj = suop_add(c, j, j);
  assert_string_equal(suop_repr(c, suop_mul(c, jj, jj)),
                      "UOp(Ops.MUL, dtypes.int, arg=None, src=(\n"
                      "  x0:=UOp(Ops.ADD, dtypes.int, arg=None, src=(\n"
                      "    x1:=UOp(Ops.DEFINE_VAR, dtypes.int, arg=('j', 1, 10), src=()),\n"
                      "     x1,)),\n"
                      "   x0,))");
  arena_free(&a);
}
static void repr_names_shared_nodes(void **state) { (void)state; run_protected(repr_names_shared_nodes_body); }

typedef struct Infer { SymCtx *c; const SymUOp *x; int n; const SymUOp *const *vars; const int64_t *vals; } Infer;
static void infer_call(void *ud) {
  Infer *f = ud;
  suop_sym_infer(f->c, f->x, f->n, f->vars, f->vals);
}

/* sym_infer evaluates the rendered expression with Python's // and %, by variable name */
static void sym_infer_python_semantics_body(void *ud) {
  (void)ud;
  Arena a;
  arena_init(&a);
  SymCtx *c = symctx_new(&a, TG_0_10_0);
  const SymUOp *i = suop_variable(c, "i", -10, 10);
  const SymUOp *x = suop_add(c, suop_idiv(c, i, suop_const_like(c, i, 4)), suop_mod(c, i, suop_const_like(c, i, 3)));
  const SymUOp *vars[1] = {i};
  int64_t vals[1] = {-7};
  assert_int_equal(suop_sym_infer(c, x, 1, vars, vals), -2 + 2); /* -7//4 + -7%3 in Python */
  Infer missing = {c, x, 0, vars, vals};
  Status st = attempt(infer_call, &missing);
  assert_string_equal(st.type, "TypeError");
  assert_string_equal(st.msg, "<lambda>() missing 1 required positional argument: 'i'");
  arena_free(&a);
}
static void sym_infer_python_semantics(void **state) { (void)state; run_protected(sym_infer_python_semantics_body); }

/* ================================================================ vectors */

typedef enum { R_PASS, R_FAIL, R_UNSUPPORTED } Result;

typedef struct Replay {
  Arena *a;
  SymCtx *c;
  TgVersion v;
  Result result;
  char why[512];
} Replay;

static void mismatch(Replay *r, const char *fmt, ...) {
  if (r->result == R_FAIL) return;
  r->result = R_FAIL;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->why, sizeof r->why, fmt, ap);
  va_end(ap);
}

static const JVal *get(const JVal *o, const char *k) { return json_get(o, k); }

/* a Python value of the computation: an int, a bool, or a UOp */
typedef enum { PV_INT, PV_BOOL, PV_UOP } PvKind;
typedef struct Pv { PvKind kind; int64_t i; const SymUOp *u; } Pv;

static Pv pv_int(int64_t i) { return (Pv){PV_INT, i, NULL}; }
static Pv pv_bool(bool b) { return (Pv){PV_BOOL, b, NULL}; }
static Pv pv_uop(const SymUOp *u) { return (Pv){PV_UOP, 0, u}; }

/* Python-level errors of the int side (ZeroDivisionError, AttributeError) */
_Noreturn static void py_raise(Replay *r, const char *type, const char *message) {
  (void)r;
  error_raise(type, "%s", message);
}

/* ufix: an int next to a UOp u becomes u.const_like(int) */
static const SymUOp *ufix(Replay *r, Pv x, const SymUOp *like) { return x.kind == PV_UOP ? x.u : suop_const_like(r->c, like, x.i); }

/* ssimplify: a CONST becomes its int (or bool) */
static Pv ssimplify(Replay *r, const SymUOp *u) {
  const SymUOp *s = suop_simplify(r->c, u);
  if (s->op != SU_CONST) return pv_uop(s);
  return s->dtype == SDT_BOOL ? pv_bool(s->arg != 0) : pv_int(s->arg);
}

static Pv py_int_binop(Replay *r, const char *op, int64_t x, int64_t y) {
  if (strcmp(op, "add") == 0) return pv_int(x + y);
  if (strcmp(op, "sub") == 0) return pv_int(x - y);
  if (strcmp(op, "mul") == 0) return pv_int(x * y);
  if (strcmp(op, "floordiv") == 0 || strcmp(op, "mod") == 0) {
    if (y == 0) py_raise(r, "ZeroDivisionError", op[0] == 'f' ? "integer division or modulo by zero" : "integer modulo by zero");
    return pv_int(op[0] == 'f' ? py_floordiv(x, y) : py_mod(x, y));
  }
  if (strcmp(op, "lt") == 0) return pv_bool(x < y);
  if (strcmp(op, "gt") == 0) return pv_bool(x > y);
  if (strcmp(op, "le") == 0) return pv_bool(x <= y);
  if (strcmp(op, "ge") == 0) return pv_bool(x >= y);
  if (strcmp(op, "ne") == 0) return pv_bool(x != y);
  /* maximum/minimum are methods of UOp */
  py_raise(r, "AttributeError", arena_printf(r->a, "'int' object has no attribute '%s'", op));
}

/* a OP b where at least one is a UOp, in Python's operand order (symbolic.h) */
static Pv py_uop_binop(Replay *r, const char *op, Pv x, Pv y) {
  SymCtx *c = r->c;
  const SymUOp *like = x.kind == PV_UOP ? x.u : y.u;
  const SymUOp *a = ufix(r, x, like), *b = ufix(r, y, like);
  if (strcmp(op, "add") == 0) return pv_uop(suop_add(c, a, b));
  if (strcmp(op, "sub") == 0) return pv_uop(y.kind == PV_UOP ? suop_sub(c, a, y.u) : suop_sub_int(c, x.u, y.i));
  if (strcmp(op, "mul") == 0) return pv_uop(suop_mul(c, a, b));
  if (strcmp(op, "floordiv") == 0) return pv_uop(suop_idiv(c, a, b));
  if (strcmp(op, "mod") == 0) return pv_uop(suop_mod(c, a, b));
  if (strcmp(op, "lt") == 0) return pv_uop(suop_lt(c, a, b));
  if (strcmp(op, "gt") == 0) return pv_uop(suop_gt(c, a, b));
  if (strcmp(op, "le") == 0) return pv_uop(suop_le(c, a, b));
  if (strcmp(op, "ge") == 0) return pv_uop(suop_ge(c, a, b));
  if (strcmp(op, "ne") == 0) return pv_uop(x.kind == PV_UOP ? suop_ne(c, a, b) : suop_ne(c, b, a)); /* i != u is u.__ne__(i) */
  if (x.kind != PV_UOP) py_raise(r, "AttributeError", arena_printf(r->a, "'int' object has no attribute '%s'", op));
  if (strcmp(op, "maximum") == 0) return pv_uop(suop_maximum(c, a, b));
  return pv_uop(y.kind == PV_UOP ? suop_minimum(c, a, b) : suop_minimum_int(c, a, y.i)); /* "minimum" */
}

/* smax / smin: reduce(UOp.maximum, uops + [max(ints)]).ssimplify(), or max(ints) */
static Pv py_smax(Replay *r, bool is_max, int n, const Pv *xs) {
  const SymUOp *acc = NULL;
  bool have_num = false;
  int64_t num = 0;
  for (int k = 0; k < n; k++) {
    if (xs[k].kind == PV_UOP) acc = acc == NULL ? xs[k].u : (is_max ? suop_maximum(r->c, acc, xs[k].u) : suop_minimum(r->c, acc, xs[k].u));
    else if (!have_num || (is_max ? xs[k].i > num : xs[k].i < num)) num = xs[k].i, have_num = true;
  }
  if (acc == NULL) return pv_int(num);
  if (have_num) acc = is_max ? suop_maximum(r->c, acc, suop_const_like(r->c, acc, num)) : suop_minimum_int(r->c, acc, num);
  return ssimplify(r, acc);
}

static Pv eval_tree(Replay *r, const JVal *t) {
  const char *k = t->u.arr[0]->u.s;
  SymCtx *c = r->c;
  if (strcmp(k, "int") == 0) return pv_int(t->u.arr[1]->u.i);
  if (strcmp(k, "const") == 0) return pv_uop(suop_const(c, SDT_INT, t->u.arr[1]->u.i));
  if (strcmp(k, "var") == 0 || strcmp(k, "bind") == 0) {
    const SymUOp *v = suop_variable(c, t->u.arr[1]->u.s, t->u.arr[2]->u.i, t->u.arr[3]->u.i);
    return pv_uop(strcmp(k, "bind") == 0 ? suop_bind(c, v, t->u.arr[4]->u.i) : v);
  }
  if (strcmp(k, "neg") == 0) {
    Pv x = eval_tree(r, t->u.arr[1]);
    return x.kind == PV_UOP ? pv_uop(suop_neg(c, x.u)) : pv_int(-x.i);
  }
  if (strcmp(k, "smax") == 0 || strcmp(k, "smin") == 0) {
    Pv xs[8];
    int n = (int)t->n - 1;
    for (int i = 0; i < n && i < 8; i++) xs[i] = eval_tree(r, t->u.arr[i + 1]);
    return py_smax(r, k[2] == 'a', n, xs);
  }
  Pv x = eval_tree(r, t->u.arr[1]), y = eval_tree(r, t->u.arr[2]);
  if (x.kind != PV_UOP && y.kind != PV_UOP) return py_int_binop(r, k, x.i, y.i);
  return py_uop_binop(r, k, x, y);
}

static void check_value(Replay *r, const char *what, const JVal *want, Pv got) {
  const JVal *x;
  if ((x = get(want, "int")) != NULL) {
    if (got.kind != PV_INT || got.i != x->u.i) mismatch(r, "%s: expected int %lld", what, (long long)x->u.i);
  } else if ((x = get(want, "bool")) != NULL) {
    if (got.kind != PV_BOOL || got.i != x->u.b) mismatch(r, "%s: expected bool %d", what, x->u.b);
  } else if (got.kind != PV_UOP || decode_uop(r->c, get(want, "uop")) != got.u) {
    mismatch(r, "%s: expected another UOp, got %s", what, got.kind == PV_UOP ? suop_render(r->c, got.u, false) : "an int");
  }
}

/* One computation of a case, run as a protected call (what it raises is in the Status). */
typedef enum { C_EVAL, C_SIMPLIFY, C_SSIMPLIFY, C_RENDER, C_RENDER_RAW, C_REPR, C_VARS, C_UNBIND, C_SYM_INFER, C_BOOL, C_INT,
               C_RESOLVE } CalcKind;
typedef struct Calc {
  Replay *r;
  CalcKind kind;
  const JVal *tree;            /* C_EVAL */
  const SymUOp *u;             /* the others: of this UOp */
  int n;                       /* C_SYM_INFER: var_vals */
  const SymUOp *const *vars;
  const int64_t *vals;
  Pv pv;                       /* C_EVAL, C_SSIMPLIFY */
  const SymUOp *uop;           /* C_SIMPLIFY, C_UNBIND */
  const SymUOp **list;         /* C_VARS */
  const char *str;             /* C_RENDER, C_RENDER_RAW, C_REPR */
  int64_t i;                   /* C_VARS: the count; C_SYM_INFER, C_INT */
  bool b1, b2;                 /* C_BOOL; C_RESOLVE: resolve(u, True), resolve(u, False) */
} Calc;

static void calc(void *ud) {
  Calc *k = ud;
  SymCtx *c = k->r->c;
  switch (k->kind) {
    case C_EVAL: k->pv = eval_tree(k->r, k->tree); break;
    case C_SIMPLIFY: k->uop = suop_simplify(c, k->u); break;
    case C_SSIMPLIFY: k->pv = ssimplify(k->r, k->u); break;
    case C_RENDER: k->str = suop_render(c, k->u, true); break;
    case C_RENDER_RAW: k->str = suop_render(c, k->u, false); break;
    case C_REPR: k->str = suop_repr(c, k->u); break;
    case C_VARS: k->i = suop_vars(c, k->u, &k->list); break;
    case C_UNBIND: k->uop = suop_unbind_all(c, k->u); break;
    case C_SYM_INFER: k->i = suop_sym_infer(c, k->u, k->n, k->vars, k->vals); break;
    case C_BOOL: k->b1 = suop_bool(c, k->u); break;
    case C_INT: k->i = suop_int(c, k->u); break;
    case C_RESOLVE:
      k->b1 = suop_resolve(c, k->u, true);
      k->b2 = suop_resolve(c, k->u, false);
      break;
  }
}

static Status run_calc(Replay *r, Calc *k, CalcKind kind, const SymUOp *u) {
  k->r = r;
  k->kind = kind;
  k->u = u;
  return attempt(calc, k);
}

/* R(x): {"error": {type, message}} must match what the computation raised (e); {"ok": ...} is checked by the caller */
static const JVal *check_r(Replay *r, const char *what, const JVal *res, const Status *e) {
  const JVal *err = get(res, "error");
  if (err != NULL) {
    if (e->kind == ST_UNSUPPORTED) r->result = r->result == R_FAIL ? R_FAIL : R_UNSUPPORTED;
    else if (e->kind != ST_RAISED) mismatch(r, "%s: tinygrad raised %s, we did not", what, get(err, "type")->u.s);
    else if (strcmp(e->type, get(err, "type")->u.s) != 0 || strcmp(e->msg, get(err, "message")->u.s) != 0)
      mismatch(r, "%s: expected %s(%s), got %s(%s)", what, get(err, "type")->u.s, get(err, "message")->u.s, e->type, e->msg);
    return NULL;
  }
  if (e->kind == ST_UNSUPPORTED) {
    if (r->result != R_FAIL) r->result = R_UNSUPPORTED;
    return NULL;
  }
  if (e->kind != ST_OK) {
    mismatch(r, "%s: unexpected %s(%s)", what, e->type, e->msg);
    return NULL;
  }
  return get(res, "ok");
}

static const Status OK_STATUS = {ST_OK, "", ""};

static void check_str(Replay *r, const char *what, const JVal *res, CalcKind kind, const SymUOp *u) {
  Calc k = {0};
  Status e = run_calc(r, &k, kind, u);
  const JVal *ok = check_r(r, what, res, &e);
  if (ok != NULL && strcmp(ok->u.s, k.str) != 0) mismatch(r, "%s: expected %s, got %s", what, ok->u.s, k.str);
}

static void check_uop(Replay *r, const char *what, const JVal *res, CalcKind kind, const SymUOp *u) {
  Calc k = {0};
  Status e = run_calc(r, &k, kind, u);
  const JVal *ok = check_r(r, what, res, &e);
  if (ok != NULL && decode_uop(r->c, ok) != k.uop) mismatch(r, "%s: differs, got %s", what, suop_render(r->c, k.uop, false));
}

static void check_vars(Replay *r, const JVal *want, const SymUOp *u) {
  Calc k = {0};
  Status e = run_calc(r, &k, C_VARS, u);
  if (e.kind != ST_OK) return mismatch(r, "vars: unexpected %s(%s)", e.type, e.msg);
  int n = (int)k.i;
  if ((int)want->n != n) return mismatch(r, "vars: expected %u, got %d", want->n, n);
  for (uint32_t i = 0; i < want->n; i++) {
    const SymUOp *w = decode_uop(r->c, want->u.arr[i]);
    bool found = false;
    for (int j = 0; j < n; j++) found = found || k.list[j] == w;
    if (!found) return mismatch(r, "vars: %u-th expected variable missing", i);
  }
}

static void check_results(Replay *r, const JVal *res, const SymUOp *u) {
  SymCtx *c = r->c;
  const JVal *x, *ok;
  Calc k = {0};
  Status e;
  if ((ok = check_r(r, "bounds", get(res, "bounds"), &OK_STATUS)) != NULL) {
    int64_t lo = ok->u.arr[0]->kind == J_BOOL ? ok->u.arr[0]->u.b : ok->u.arr[0]->u.i;
    int64_t hi = ok->u.arr[1]->kind == J_BOOL ? ok->u.arr[1]->u.b : ok->u.arr[1]->u.i;
    if (lo != suop_vmin(u) || hi != suop_vmax(u))
      mismatch(r, "bounds: expected [%lld, %lld], got [%lld, %lld]", (long long)lo, (long long)hi, (long long)suop_vmin(u),
               (long long)suop_vmax(u));
  }
  check_uop(r, "simplify", get(res, "simplify"), C_SIMPLIFY, u);
  e = run_calc(r, &k, C_SSIMPLIFY, u);
  if ((ok = check_r(r, "ssimplify", get(res, "ssimplify"), &e)) != NULL) check_value(r, "ssimplify", ok, k.pv);
  check_str(r, "render", get(res, "render"), C_RENDER, u);
  check_str(r, "render_raw", get(res, "render_raw"), C_RENDER_RAW, u);
  e = run_calc(r, &k, C_REPR, u);
  if (e.kind != ST_OK) mismatch(r, "repr: unexpected %s(%s)", e.type, e.msg);
  else if (strcmp(get(res, "repr")->u.s, k.str) != 0) mismatch(r, "repr: expected\n%s\ngot\n%s", get(res, "repr")->u.s, k.str);
  check_vars(r, get(res, "vars"), u);
  check_uop(r, "unbind", get(res, "unbind"), C_UNBIND, u);
  const JVal *vv = get(res, "var_vals");
  const SymUOp **vars = arena_array(r->a, vv->n + 1, sizeof *vars);
  int64_t *vals = arena_array(r->a, vv->n + 1, sizeof *vals);
  for (uint32_t i = 0; i < vv->n; i++) {
    const JVal *v = vv->u.arr[i];
    vars[i] = suop_variable(c, v->u.arr[0]->u.s, v->u.arr[1]->u.i, v->u.arr[2]->u.i);
    vals[i] = v->u.arr[3]->u.i;
  }
  k.n = (int)vv->n;
  k.vars = vars;
  k.vals = vals;
  e = run_calc(r, &k, C_SYM_INFER, u);
  if ((ok = check_r(r, "sym_infer", get(res, "sym_infer"), &e)) != NULL) {
    int64_t want = ok->kind == J_BOOL ? ok->u.b : ok->u.i;
    if (want != k.i) mismatch(r, "sym_infer: expected %lld, got %lld", (long long)want, (long long)k.i);
  }
  if ((x = get(res, "bool")) != NULL) {
    e = run_calc(r, &k, C_BOOL, u);
    if ((ok = check_r(r, "bool", x, &e)) != NULL && ok->u.b != k.b1) mismatch(r, "bool: expected %d", ok->u.b);
  }
  if ((x = get(res, "int")) != NULL) {
    e = run_calc(r, &k, C_INT, u);
    if ((ok = check_r(r, "int", x, &e)) != NULL && ok->u.i != k.i) mismatch(r, "int: expected %lld", (long long)ok->u.i);
  }
  if ((x = get(res, "resolve")) != NULL) {
    e = run_calc(r, &k, C_RESOLVE, u);
    if ((ok = check_r(r, "resolve", x, &e)) != NULL && (ok->u.arr[0]->u.b != k.b1 || ok->u.arr[1]->u.b != k.b2))
      mismatch(r, "resolve: expected [%d, %d], got [%d, %d]", ok->u.arr[0]->u.b, ok->u.arr[1]->u.b, k.b1, k.b2);
  }
}

static Result replay_case(Replay *r, const JVal *cs) {
  r->result = R_PASS;
  r->why[0] = '\0';
  r->c = symctx_new(r->a, r->v);
  Calc k = {.tree = get(cs, "tree")};
  Status e = run_calc(r, &k, C_EVAL, NULL);
  Pv got = k.pv;
  const JVal *error = get(cs, "error");
  if (e.kind == ST_UNSUPPORTED) return R_UNSUPPORTED;
  if (error != NULL) {
    if (e.kind != ST_RAISED) mismatch(r, "tinygrad raised %s(%s), we did not", get(error, "type")->u.s, get(error, "message")->u.s);
    else if (strcmp(e.type, get(error, "type")->u.s) != 0 || strcmp(e.msg, get(error, "message")->u.s) != 0)
      mismatch(r, "expected %s(%s), got %s(%s)", get(error, "type")->u.s, get(error, "message")->u.s, e.type, e.msg);
    return r->result;
  }
  if (e.kind != ST_OK) {
    mismatch(r, "unexpected %s(%s)", e.type, e.msg);
    return r->result;
  }
  check_value(r, "value", get(cs, "value"), got);
  const JVal *res = get(cs, "results");
  if (res != NULL && got.kind == PV_UOP) check_results(r, res, got.u);
  return r->result;
}

typedef struct Counts { int pass, unsupported, fail, cases; } Counts;

static Counts replay_file(TgVersion v, const char *path) {
  Counts k = {0, 0, 0, 0};
  CaptureReader rd;
  Status st = {0};
  if (!capture_reader_open(&rd, path, &st)) {
    fprintf(stderr, "cannot read %s\n", path);
    k.fail = 1;
    return k;
  }
  size_t pos = 0;
  int line = 0, printed = 0;
  while (pos < rd.len) {
    size_t end = pos;
    while (end < rd.len && rd.data[end] != '\n') end++;
    line++;
    if (line > 1 && end > pos) { /* line 1 is the header */
      Arena a;
      arena_init(&a);
      char msg[256];
      char *buf = arena_alloc(&a, end - pos + JSON_PADDING);
      memcpy(buf, rd.data + pos, end - pos);
      const JVal *c = json_parse(&a, buf, end - pos, msg, sizeof msg);
      Replay r = {.a = &a, .v = v};
      Result res = c != NULL ? replay_case(&r, c) : R_FAIL;
      k.cases++;
      if (res == R_PASS) k.pass++;
      else if (res == R_UNSUPPORTED) k.unsupported++;
      else {
        k.fail++;
        if (printed++ < g_fail_print_limit) {
          const JVal *name = c ? json_get(c, "name") : NULL;
          fprintf(stderr, "  FAIL %s line %d %s: %s\n", tg_version_name(v), line, name ? name->u.s : "?", c ? r.why : msg);
        }
      }
      arena_free(&a);
    }
    pos = end + 1;
  }
  capture_reader_close(&rd);
  return k;
}

static void replay_version(TgVersion v) {
  char path[1024];
  snprintf(path, sizeof path, "%s/sint-v%s.jsonl.gz", g_vector_dir, tg_version_name(v));
  Counts k = replay_file(v, path);
  printf("sint vectors %-6s: %d cases: %d pass, %d fail, %d unsupported\n", tg_version_name(v), k.cases, k.pass, k.fail,
         k.unsupported);
  fflush(stdout);
  assert_true(k.cases > 0);
  assert_int_equal(k.fail, 0);
}

static void sint_vectors_0_10_0(void **state) { (void)state; replay_version(TG_0_10_0); }
static void sint_vectors_0_10_2(void **state) { (void)state; replay_version(TG_0_10_2); }
static void sint_vectors_0_10_0_2ca41d6(void **state) { (void)state; replay_version(TG_0_10_0_2CA41D6); }
static void sint_vectors_0_10_1(void **state) { (void)state; replay_version(TG_0_10_1); }
static void sint_vectors_0_10_2_a0b4465(void **state) { (void)state; replay_version(TG_0_10_2_A0B4465); }

/* `test_symbolic_uop DIR VERSION`: only that version's sint file of DIR,
 * whether or not CTest replays it; exit 1 if a case differs or none is read. */
static int replay_one_version(const char *name) {
  int v = tg_version_parse(name);
  if (v < 0) return fprintf(stderr, "test_symbolic_uop: unknown version %s\n", name), 2;
  char path[1024];
  snprintf(path, sizeof path, "%s/sint-v%s.jsonl.gz", g_vector_dir, name);
  Counts k = replay_file((TgVersion)v, path);
  printf("sint vectors %-6s: %d cases: %d pass, %d fail, %d unsupported\n", name, k.cases, k.pass, k.fail, k.unsupported);
  return k.cases == 0 || k.fail > 0;
}

int main(int argc, char **argv) {
  if (argc > 1) g_vector_dir = argv[1];
  else if (getenv("TSCHED_VECTORS")) g_vector_dir = getenv("TSCHED_VECTORS");
  if (getenv("TSCHED_ST_VERBOSE")) g_fail_print_limit = 1 << 30;
  if (argc > 2) return replay_one_version(argv[2]);
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(bind_and_unbind),           cmocka_unit_test(operand_order),
    cmocka_unit_test(repr_names_shared_nodes),   cmocka_unit_test(sym_infer_python_semantics),
    cmocka_unit_test(sint_vectors_0_10_0),       cmocka_unit_test(sint_vectors_0_10_2),
    cmocka_unit_test(sint_vectors_0_10_0_2ca41d6),
    cmocka_unit_test(sint_vectors_0_10_1),
    cmocka_unit_test(sint_vectors_0_10_2_a0b4465),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
