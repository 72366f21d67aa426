/* test_shapetracker.c — the View/ShapeTracker module against vectors recorded
 * from real tinygrad (conformance/vectors/st-v*.jsonl.gz, written by
 * conformance/oracle/record_st_vectors.py; format in docs/shapetracker.md),
 * plus a few hand-written cases that show the behaviour.
 *
 *   test_shapetracker [VECTOR_DIR]        (or env TSCHED_VECTORS; default conformance/vectors)
 *
 * Every case is replayed: the start ShapeTracker, the movement ops (or the
 * exception tinygrad raised, by type and message), then every recorded
 * result. A case passes when everything matches, is unsupported when the
 * module reports something it does not model (symbolic values, an unported
 * rewrite rule) and nothing mismatches, and fails otherwise. Any failure
 * fails the test; the counts per version are printed.
 * TSCHED_ST_VERBOSE=1 prints every failure (default: the first 20), =2 also names the
 * unsupported cases. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "compare.h"
#include "protected.h"
#include "shapetracker.h"
#include "symbolic.h"
#include "uop_vector.h"

static const char *g_vector_dir = "conformance/vectors";

/* ================================================================ hand-written cases */

static sint S(int64_t x) { return sint_int(x); }

static const ShapeTracker *from_shape(Arena *a, TgVersion v, int n, const sint *shape) {
  const ShapeTracker *st = st_from_shape(a, v, n, shape);
  assert_non_null(st);
  return st;
}

typedef struct Shrink { Arena *a; TgVersion v; const ShapeTracker *st; int n; const SPair *arg; } Shrink;
static void shrink_call(void *ud) {
  Shrink *x = ud;
  st_shrink(x->a, x->v, x->st, x->n, x->arg);
}

/* pad then reshape keeps one view with a mask (test_shapetracker.py test_pad_reshape) */
static void reshape_with_mask_body(void *ud) {
  (void)ud;
  for (int v = 0; v < TG_NVERSIONS; v++) {
    Arena a;
    arena_init(&a);
    const sint shape[1] = {S(4)}, new_shape[2] = {S(4), S(2)};
    const SPair pad[1] = {{S(2), S(2)}};
    const ShapeTracker *st = st_pad(&a, (TgVersion)v, from_shape(&a, (TgVersion)v, 1, shape), 1, pad);
    st = st_reshape(&a, (TgVersion)v, st, 2, new_shape, true);
    assert_non_null(st);
    assert_int_equal(st->nviews, 1);
    const View *vw = st->views[0];
    assert_non_null(vw->mask);
    assert_int_equal(vw->mask[0].b.i, 1); /* rows 1..2 hold the data */
    assert_int_equal(vw->mask[0].e.i, 3);
    assert_int_equal(vw->strides[0].i, 2);
    assert_int_equal(vw->strides[1].i, 1);
    assert_int_equal(vw->offset.i, -2);
    arena_free(&a);
  }
}

/* pad then shrink back removes the mask (test_pad_shrink_removes_mask) */
static void pad_then_shrink_body(void *ud) {
  (void)ud;
  for (int v = 0; v < TG_NVERSIONS; v++) {
    Arena a;
    arena_init(&a);
    const sint shape[2] = {S(10), S(10)};
    const SPair pad[2] = {{S(0), S(2)}, {S(0), S(2)}}, shrink[2] = {{S(0), S(10)}, {S(0), S(10)}}, shrink2[2] = {{S(0), S(10)}, {S(0), S(11)}};
    const ShapeTracker *padded = st_pad(&a, (TgVersion)v, from_shape(&a, (TgVersion)v, 2, shape), 2, pad);
    const ShapeTracker *st = st_shrink(&a, (TgVersion)v, padded, 2, shrink);
    assert_non_null(st);
    assert_null(st->views[0]->mask);
    assert_true(st_contiguous(st));
    st = st_shrink(&a, (TgVersion)v, padded, 2, shrink2);
    assert_non_null(st->views[0]->mask);
    /* an out-of-range shrink raises the same AssertionError as tinygrad */
    const SPair bad[2] = {{S(0), S(13)}, {S(0), S(10)}};
    Shrink call = {&a, (TgVersion)v, padded, 2, bad};
    Status err = attempt(shrink_call, &call);
    assert_int_equal(err.kind, ST_RAISED);
    assert_string_equal(err.type, "AssertionError");
    assert_string_equal(err.msg, "invalid shrink ((0, 13), (0, 10)) for (12, 12)");
    arena_free(&a);
  }
}

/* permute + flip/stride is inverted back to the base shape */
static void invert_permute_flip_body(void *ud) {
  (void)ud;
  for (int v = 0; v < TG_NVERSIONS; v++) {
    Arena a;
    arena_init(&a);
    const sint shape[2] = {S(3), S(4)};
    const int64_t perm[2] = {1, 0}, mul[2] = {1, -1};
    const bool flip[2] = {false, true};
    const ShapeTracker *st = st_permute(&a, (TgVersion)v, from_shape(&a, (TgVersion)v, 2, shape), 2, perm);
    st = tg_features((TgVersion)v)->view_has_flip ? st_flip(&a, (TgVersion)v, st, 2, flip) : st_stride(&a, (TgVersion)v, st, 2, mul);
    assert_non_null(st);
    const ShapeTracker *inv = st_invert(&a, (TgVersion)v, st, 2, shape, true);
    assert_non_null(inv);
    /* applying st on top of its inverse gives back the identity */
    const ShapeTracker *id = st_add(&a, (TgVersion)v, inv, st);
    assert_non_null(id);
    assert_int_equal(id->nviews, 1);
    /* an expand cannot be inverted */
    const sint one[2] = {S(3), S(1)}, wide[2] = {S(3), S(5)};
    const ShapeTracker *ex = st_expand(&a, (TgVersion)v, from_shape(&a, (TgVersion)v, 2, one), 2, wide);
    assert_null(st_invert(&a, (TgVersion)v, ex, 2, one, true));
    arena_free(&a);
  }
}

/* expand then reshape needs two views; simplify cannot merge them, a permuted reshape can */
static void merge_views_body(void *ud) {
  (void)ud;
  for (int v = 0; v < TG_NVERSIONS; v++) {
    Arena a;
    arena_init(&a);
    const sint shape[2] = {S(1), S(10)}, wide[2] = {S(10), S(10)}, flat[1] = {S(100)};
    const ShapeTracker *st = st_expand(&a, (TgVersion)v, from_shape(&a, (TgVersion)v, 2, shape), 2, wide);
    st = st_reshape(&a, (TgVersion)v, st, 1, flat, true);
    assert_int_equal(st->nviews, 2);
    assert_int_equal(st_simplify(&a, (TgVersion)v, st)->nviews, 2);
    sint rs[1];
    bool none[1];
    st_real_strides(&a, (TgVersion)v, st, false, rs, none);
    assert_true(none[0]); /* idx0 % 10: no single stride */
    /* View.__add__: a permute on top of a reshape folds into one view */
    const sint s2[2] = {S(4), S(6)}, s3[3] = {S(2), S(2), S(6)};
    const int64_t p3[3] = {2, 0, 1};
    const ShapeTracker *base = from_shape(&a, (TgVersion)v, 2, s2);
    const ShapeTracker *rhs = st_permute(&a, (TgVersion)v, from_shape(&a, (TgVersion)v, 3, s3), 3, p3);
    const ShapeTracker *sum = st_add(&a, (TgVersion)v, base, rhs);
    assert_int_equal(sum->nviews, 1);
    assert_int_equal(sum->views[0]->strides[0].i, 1);
    assert_int_equal(sum->views[0]->strides[1].i, 12);
    assert_int_equal(sum->views[0]->strides[2].i, 6);
    arena_free(&a);
  }
}

/* Python's // and % on negatives, which tinygrad's index math relies on */
static void python_floor_division(void **state) {
  (void)state;
  assert_int_equal(py_floordiv(-7, 2), -4);
  assert_int_equal(py_mod(-7, 2), 1);
  assert_int_equal(py_floordiv(7, -2), -4);
  assert_int_equal(py_mod(7, -2), -1);
  assert_int_equal(py_floordiv(-6, 3), -2);
  assert_int_equal(py_mod(-6, 3), 0);
}

/* a symbolic value is reported, never computed */
static void symbolic_is_unsupported_body(void *ud) {
  (void)ud;
  Arena a;
  arena_init(&a);
  const char *text = "{\"views\": [{\"shape\": [{\"sym\": {\"var\": \"i\", \"min\": 1, \"max\": 10}}, 3], \"strides\": [3, 1],"
                     " \"offset\": 0, \"mask\": null, \"contiguous\": true}]}";
  size_t n = strlen(text);
  char *buf = arena_alloc(&a, n + JSON_PADDING);
  memcpy(buf, text, n);
  char msg[128];
  JVal *j = json_parse(&a, buf, n, msg, sizeof msg);
  assert_non_null(j);
  Status err;
  assert_null(st_decode_status(&a, j, &err)); /* st_from_json as a protected call */
  assert_int_equal(err.kind, ST_UNSUPPORTED);
  assert_string_equal(err.msg, "symbolic shape: unsupported");
  arena_free(&a);
}

/* st_to_json(st) is the JSON text `want` */
static bool st_json_is(Arena *a, const ShapeTracker *st, const char *want) {
  char msg[128];
  JVal *w = json_parse_text(a, want, msg, sizeof msg);
  return st != NULL && w != NULL && json_equal(st_to_json(a, st), w);
}

/* 0.10.0 on a bound Variable i (checked against tinygrad 0.10.0): x[:, :i] of a (3, 10) tracker is a (3, i)
 * view with strides (10, 1); unbind gives i's DEFINE_VAR and its value; a pad moves the mask onto i+1; a
 * reshape to (3*(i+2),) cannot merge into the masked view and adds one */
static void symbolic_views_0_10_0_body(void *ud) {
  (void)ud;
  Arena a;
  arena_init(&a);
  sym_begin(&a, TG_0_10_0);
#define VAR_I "{\"var\": \"i\", \"min\": 1, \"max\": 10, \"val\": 4}"
  char msg[128];
  sint i = sint_from_json(&a, json_parse_text(&a, "{\"sym\": " VAR_I "}", msg, sizeof msg));
  const sint shape[2] = {sint_int(3), sint_int(10)};
  const SPair arg[2] = {{sint_int(0), sint_int(3)}, {sint_int(0), i}};
  const ShapeTracker *st = st_shrink(&a, TG_0_10_0, st_from_shape(&a, TG_0_10_0, 2, shape), 2, arg);
  assert_true(st_json_is(&a, st, "{\"views\": [{\"shape\": [3, {\"sym\": " VAR_I "}], \"strides\": [10, 1], \"offset\": 0, \"mask\": null,"
                                  " \"contiguous\": false}]}"));
  sint vars[4];
  int64_t vals[4];
  int nvars = 0;
  const ShapeTracker *unbound = st_unbind(&a, TG_0_10_0, st, vars, vals, 4, &nvars);
  assert_true(st_json_is(&a, unbound, "{\"views\": [{\"shape\": [3, {\"sym\": {\"var\": \"i\", \"min\": 1, \"max\": 10}}],"
                                      " \"strides\": [10, 1], \"offset\": 0, \"mask\": null, \"contiguous\": false}]}"));
  assert_int_equal(nvars, 1);
  assert_int_equal(vals[0], 4);
  sint strides[2];
  bool none[2];
  st_real_strides(&a, TG_0_10_0, st, false, strides, none);
  assert_true(!none[0] && !none[1] && strides[0].i == 10 && strides[1].i == 1);
  const SPair pad[2] = {{sint_int(0), sint_int(0)}, {sint_int(1), sint_int(1)}};
  const ShapeTracker *padded = st_pad(&a, TG_0_10_0, st, 2, pad);
#define I_PLUS(n) "{\"sym\": {\"op\": \"ADD\", \"src\": [" VAR_I ", " #n "]}}"
#define PADDED "{\"shape\": [3, " I_PLUS(2) "], \"strides\": [10, 1], \"offset\": -1, \"mask\": [[0, 3], [1, " I_PLUS(1) "]], \"contiguous\": false}"
  assert_true(st_json_is(&a, padded, "{\"views\": [" PADDED "]}"));
  sint flat = sint_mul(sint_int(3), sint_add(i, sint_int(2))); /* 3*(i+2) */
  const ShapeTracker *r = st_reshape(&a, TG_0_10_0, padded, 1, &flat, true);
  assert_true(st_json_is(&a, r, "{\"views\": [" PADDED ", {\"shape\": [{\"sym\": {\"op\": \"MUL\", \"src\": [{\"op\": \"ADD\", \"src\": ["
                                  VAR_I ", 2]}, 3]}}], \"strides\": [1], \"offset\": 0, \"mask\": null, \"contiguous\": true}]}"));
#undef PADDED
#undef I_PLUS
#undef VAR_I
  sym_end();
  arena_free(&a);
}

/* the contract's ST encoding both ways; equal trackers hash alike */
static void json_round_trip_body(void *ud) {
  (void)ud;
  Arena a;
  arena_init(&a);
  const char *text = "{\"views\": [{\"shape\": [2, 3], \"strides\": [3, 1], \"offset\": -1, \"mask\": [[0, 2], [1, 3]], "
                     "\"contiguous\": false}, {\"shape\": [6], \"strides\": [1], \"offset\": 0, \"mask\": null, \"contiguous\": true}]}";
  size_t n = strlen(text);
  char *buf = arena_alloc(&a, n + JSON_PADDING);
  memcpy(buf, text, n);
  char msg[128];
  JVal *j = json_parse(&a, buf, n, msg, sizeof msg);
  const ShapeTracker *st = st_from_json(&a, j);
  assert_non_null(st);
  char *back = json_to_string(st_to_json(&a, st), NULL);
  assert_string_equal(back, text);
  free(back);
  const ShapeTracker *again = st_from_json(&a, j);
  assert_true(st != again && st_equal(st, again));
  assert_true(st_hash(st) == st_hash(again));
  const sint shape[1] = {S(6)};
  assert_false(st_equal(st, from_shape(&a, TG_0_10_2, 1, shape)));
  arena_free(&a);
}

/* 0.9.1's Node algebra simplifies while building, as tinygrad does */
static void node_algebra_body(void *ud) {
  (void)ud;
  Arena a;
  arena_init(&a);
  SymNodeCtx c;
  snode_ctx_init(&c, &a);
  const SymNode *x = snode_var(&c, "x", 0, 9);
  /* expected keys printed by tinygrad 0.9.1 */
  const SymNode *e = snode_floordiv(&c, snode_add_int(&c, snode_mul(&c, x, 4), 3), 2);
  assert_string_equal(snode_key(&c, e), "((x[0-9]*2)+1)");
  assert_string_equal(snode_key(&c, snode_mod(&c, e, 2)), "1");
  assert_string_equal(snode_key(&c, snode_floordiv(&c, snode_add_int(&c, snode_mul(&c, x, 4), 3), 4)), "x[0-9]");
  assert_string_equal(snode_key(&c, snode_floordiv(&c, snode_add_int(&c, snode_mul(&c, x, 3), 5), 2)), "((((x[0-9]*3)+1)//2)+2)");
  const SymNode *g = snode_mod(&c, snode_floordiv(&c, snode_add_int(&c, snode_mul(&c, x, 6), 4), 4), 3);
  assert_string_equal(snode_key(&c, g), "((((x[0-9]*3)//2)+1)%3)");
  assert_string_equal(snode_key(&c, snode_floordiv(&c, snode_add_int(&c, x, 3), 2)), "(((1+x[0-9])//2)+1)");
  arena_free(&a);
}

/* the cases as cmocka tests */
static void reshape_with_mask(void **state) { (void)state; run_protected(reshape_with_mask_body); }
static void pad_then_shrink(void **state) { (void)state; run_protected(pad_then_shrink_body); }
static void invert_permute_flip(void **state) { (void)state; run_protected(invert_permute_flip_body); }
static void merge_views(void **state) { (void)state; run_protected(merge_views_body); }
static void symbolic_is_unsupported(void **state) { (void)state; run_protected(symbolic_is_unsupported_body); }
static void symbolic_views_0_10_0(void **state) { (void)state; run_protected(symbolic_views_0_10_0_body); }
static void json_round_trip(void **state) { (void)state; run_protected(json_round_trip_body); }
static void node_algebra(void **state) { (void)state; run_protected(node_algebra_body); }

/* ================================================================ vector replay */

typedef enum { R_PASS, R_UNSUPPORTED, R_FAIL } Result;

typedef struct Replay {
  TgVersion v;
  Arena *a;
  const char *name;
  bool merge_view;       /* the case's MERGE_VIEW */
  Result result;
  char why[512];         /* first mismatch */
  int printed;
} Replay;

static int g_fail_print_limit = 20;
static void unsupported(Replay *r);

static void mismatch(Replay *r, const char *fmt, ...) {
  if (r->result == R_FAIL) return;
  r->result = R_FAIL;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->why, sizeof r->why, fmt, ap);
  va_end(ap);
}

static void unsupported(Replay *r) {
  if (r->result == R_PASS) r->result = R_UNSUPPORTED;
}

static int g_verbose;

static const JVal *get(const JVal *o, const char *k) { return o ? json_get(o, k) : NULL; }

static char *dump(const JVal *j) {
  if (j == NULL) {
    char *s = malloc(16);
    strcpy(s, "(missing)");
    return s;
  }
  return json_to_string(j, NULL);
}

/* our error vs the recorded {"type", "message"} (RecursionError: the type is enough) */
static void check_error(Replay *r, const char *what, const Status *err, const JVal *expected) {
  const JVal *type = get(expected, "type"), *msg = get(expected, "message");
  if (err->kind == ST_UNSUPPORTED) return unsupported(r);
  if (err->kind != ST_RAISED) return mismatch(r, "%s: expected %s(%s), got no error", what, type ? type->u.s : "?", msg ? msg->u.s : "?");
  if (type && strcmp(type->u.s, err->type) != 0)
    return mismatch(r, "%s: expected %s(%s), got %s(%s)", what, type->u.s, msg ? msg->u.s : "", err->type, err->msg);
  if (type && strcmp(type->u.s, "RecursionError") == 0) return;
  if (msg && strcmp(msg->u.s, err->msg) != 0)
    return mismatch(r, "%s: expected %s(%s), got message %s", what, type ? type->u.s : "?", msg->u.s, err->msg);
}

/* the common shape of a result: {"ok": X} or {"error": {...}}, against what our protected call gave (err);
 * returns the "ok" value or NULL */
static bool result_ok(Replay *r, const char *what, const JVal *res, const Status *err, const JVal **ok) {
  const JVal *e = get(res, "error");
  *ok = get(res, "ok");
  if (e != NULL) {
    if (err->kind == ST_OK) mismatch(r, "%s: tinygrad raised, we did not", what);
    else check_error(r, what, err, e);
    return false;
  }
  if (err->kind != ST_OK) {
    if (err->kind == ST_UNSUPPORTED) unsupported(r);
    else mismatch(r, "%s: unexpected %s(%s)", what, err->type, err->msg);
    return false;
  }
  return true;
}

static void compare_views(Replay *r, const char *what, const JVal *expected_views, const ShapeTracker *got) {
  if (expected_views == NULL || expected_views->kind == J_NULL) {
    if (got != NULL) {
      char *g = dump(st_to_json(r->a, got));
      mismatch(r, "%s: expected None, got %s", what, g);
      free(g);
    }
    return;
  }
  if (got == NULL) return mismatch(r, "%s: expected views, got None", what);
  JVal *wrap = json_obj(r->a);
  json_set(r->a, wrap, "views", (JVal *)expected_views);
  Status err;
  const ShapeTracker *want = st_decode_status(r->a, wrap, &err);
  if (want == NULL) return mismatch(r, "%s: cannot read the expected views (%s)", what, err.msg);
  if (!st_equal(want, got)) {
    char *w = dump(wrap), *g = dump(st_to_json(r->a, got));
    mismatch(r, "%s:\n      expected %s\n      got      %s", what, w, g);
    free(w);
    free(g);
  }
}

static void compare_view(Replay *r, const char *what, const JVal *expected, const View *got) {
  JVal *arr = json_arr(r->a);
  json_push(r->a, arr, (JVal *)expected);
  compare_views(r, what, arr, got ? st_new(r->a, 1, &got) : NULL);
}

/* ---------------------------------------------------------------- decoding the case's input */

/* one sint: an int, or a {"sym"} decoded into the current symbolic context; false when it cannot be */
typedef struct SintOf { Arena *a; const JVal *j; sint x; } SintOf;
static void sint_of_call(void *ud) {
  SintOf *d = ud;
  d->x = sint_from_json(d->a, d->j);
}

static bool sint_of(const JVal *j, sint *out, Arena *a) {
  SintOf d = {a, j, {0, NULL}};
  if (attempt(sint_of_call, &d).kind != ST_OK) return false;
  *out = d.x;
  return true;
}

static bool ints_of(const JVal *j, int *n, sint **out, Arena *a) {
  if (!j || j->kind != J_ARR) return false;
  *n = (int)j->n;
  *out = arena_array(a, j->n + 1, sizeof **out);
  for (size_t i = 0; i < j->n; i++)
    if (!sint_of(j->u.arr[i], &(*out)[i], a)) return false;
  return true;
}

static bool pairs_of(const JVal *j, int *n, SPair **out, Arena *a) {
  if (!j || j->kind != J_ARR) return false;
  *n = (int)j->n;
  *out = arena_array(a, j->n + 1, sizeof **out);
  for (size_t i = 0; i < j->n; i++) {
    const JVal *p = j->u.arr[i];
    if (p->kind != J_ARR || p->n != 2 || !sint_of(p->u.arr[0], &(*out)[i].b, a) || !sint_of(p->u.arr[1], &(*out)[i].e, a)) return false;
  }
  return true;
}

static bool bools_of(const JVal *j, int *n, bool **out, Arena *a) {
  if (!j || j->kind != J_ARR) return false;
  *n = (int)j->n;
  *out = arena_array(a, j->n + 1, sizeof **out);
  for (size_t i = 0; i < j->n; i++) { /* Python truthiness: flip((0, 1)) works too */
    if (j->u.arr[i]->kind == J_BOOL) (*out)[i] = j->u.arr[i]->u.b;
    else if (j->u.arr[i]->kind == J_INT) (*out)[i] = j->u.arr[i]->u.i != 0;
    else return false;
  }
  return true;
}

/* start: {"shape"} | {"create": [[shape, strides|null, offset, mask|null], ...]} | {"views"} */
static const ShapeTracker *build_start(Replay *r, const JVal *start) {
  Arena *a = r->a;
  const JVal *j;
  if ((j = get(start, "shape")) != NULL) {
    int n;
    sint *shape;
    if (!ints_of(j, &n, &shape, a)) error_unsupported("start shape is not all ints");
    return st_from_shape(a, r->v, n, shape);
  }
  if ((j = get(start, "create")) != NULL) {
    const View **views = arena_array(a, j->n + 1, sizeof *views);
    for (size_t k = 0; k < j->n; k++) {
      const JVal *args = j->u.arr[k];
      int n, ns = 0, nm = 0;
      sint *shape, *strides = NULL;
      SPair *mask = NULL;
      const JVal *off = args->u.arr[2];
      if (!ints_of(args->u.arr[0], &n, &shape, a)) error_unsupported("symbolic shape: unsupported");
      if (args->u.arr[1]->kind != J_NULL && !ints_of(args->u.arr[1], &ns, &strides, a)) error_unsupported("symbolic shape: unsupported");
      if (args->u.arr[3]->kind != J_NULL && !pairs_of(args->u.arr[3], &nm, &mask, a)) error_unsupported("symbolic shape: unsupported");
      sint offset;
      if (!sint_of(off, &offset, a)) error_unsupported("symbolic shape: unsupported");
      if ((strides && ns != n) || (mask && nm != n)) error_unsupported("View.create with arguments of different lengths");
      views[k] = view_create(a, r->v, n, shape, strides, offset, mask);
    }
    return st_new(a, (int)j->n, views);
  }
  return st_from_json(a, start);
}

/* one movement op */
static const ShapeTracker *apply_op(Replay *r, const ShapeTracker *st, const JVal *op, bool merge_view) {
  Arena *a = r->a;
  const char *name = op->u.arr[0]->u.s;
  const JVal *arg = op->u.arr[1];
  int n;
  sint *xs;
  SPair *ps;
  bool *bs;
  if (strcmp(name, "reshape") == 0 || strcmp(name, "expand") == 0 || strcmp(name, "permute") == 0 || strcmp(name, "stride") == 0) {
    if (!ints_of(arg, &n, &xs, a)) error_unsupported("symbolic shape: unsupported");
    if (name[0] == 'r') return st_reshape(a, r->v, st, n, xs, merge_view);
    if (name[0] == 'e') return st_expand(a, r->v, st, n, xs);
    int64_t *ints = arena_array(a, (size_t)n + 1, sizeof *ints);
    for (int i = 0; i < n; i++) {
      if (!sint_is_int(xs[i])) error_unsupported("a symbolic permute or stride argument");
      ints[i] = xs[i].i;
    }
    if (name[0] == 'p') return st_permute(a, r->v, st, n, ints);
    return st_stride(a, r->v, st, n, ints);
  }
  if (strcmp(name, "pad") == 0 || strcmp(name, "shrink") == 0) {
    if (!pairs_of(arg, &n, &ps, a)) error_unsupported("symbolic shape: unsupported");
    return name[0] == 'p' ? st_pad(a, r->v, st, n, ps) : st_shrink(a, r->v, st, n, ps);
  }
  if (strcmp(name, "flip") == 0) {
    if (!bools_of(arg, &n, &bs, a)) error_unsupported("flip argument is not bools");
    return st_flip(a, r->v, st, n, bs);
  }
  error_unsupported("unknown movement op");
}

/* the start and the movement ops of a case, as a protected call: `at` is the op running (-1: the start) */
typedef struct Ops { Replay *r; const JVal *start, *ops; bool merge_view; const ShapeTracker *st; int at; } Ops;
static void run_ops(void *ud) {
  Ops *o = ud;
  o->at = -1;
  o->st = build_start(o->r, o->start);
  for (size_t i = 0; o->ops && i < o->ops->n; i++) {
    o->at = (int)i;
    o->st = apply_op(o->r, o->st, o->ops->u.arr[i], o->merge_view);
  }
}

/* ---------------------------------------------------------------- the results */

/* one query of the results, as a protected call */
typedef enum { Q_REAL_STRIDES, Q_UNIT_AXES, Q_SIMPLIFY, Q_INVERT, Q_MINIFY, Q_ADD } QueryKind;
typedef struct Query {
  Replay *r;
  QueryKind kind;
  const ShapeTracker *st;
  bool iv;                     /* ignore_valid */
  int n;                       /* Q_INVERT: out_shape */
  const sint *out_shape;
  const View *view;            /* Q_MINIFY */
  const JVal *rhs;             /* Q_ADD: {"views": ...} */
  sint *strides;               /* Q_REAL_STRIDES */
  bool *none;
  int *axes;                   /* Q_UNIT_AXES */
  int cnt;
  const ShapeTracker *res;     /* Q_SIMPLIFY, Q_INVERT, Q_ADD */
  const View *res_view;        /* Q_MINIFY */
} Query;

static void query(void *ud) {
  Query *q = ud;
  Arena *a = q->r->a;
  TgVersion v = q->r->v;
  switch (q->kind) {
    case Q_REAL_STRIDES: st_real_strides(a, v, q->st, q->iv, q->strides, q->none); break;
    case Q_UNIT_AXES: q->cnt = st_unit_stride_axes(a, v, q->st, q->iv, q->axes); break;
    case Q_SIMPLIFY: q->res = st_simplify(a, v, q->st); break;
    case Q_INVERT: q->res = st_invert(a, v, q->st, q->n, q->out_shape, q->r->merge_view); break;
    case Q_MINIFY: q->res_view = view_minify(a, v, q->view); break;
    case Q_ADD: q->res = st_add(a, v, q->st, st_from_json(a, q->rhs)); break;
  }
}

static void check_strides(Replay *r, const char *what, const JVal *res, const ShapeTracker *st, bool iv) {
  int n = st_ndim(st);
  sint out[n + 1];
  bool none[n + 1];
  Query q = {.r = r, .kind = Q_REAL_STRIDES, .st = st, .iv = iv, .strides = out, .none = none};
  Status err = attempt(query, &q);
  const JVal *ok;
  if (!result_ok(r, what, res, &err, &ok)) return;
  if (!ok || ok->kind != J_ARR || (int)ok->n != n) return mismatch(r, "%s: malformed expectation", what);
  for (int i = 0; i < n; i++) {
    const JVal *e = ok->u.arr[i];
    bool e_none = e->kind == J_NULL;
    sint want = sint_int(0);
    if (!e_none && !sint_of(e, &want, r->a)) return unsupported(r); /* a symbolic stride outside the context */
    if (e_none != none[i] || (!e_none && !sint_eq(want, out[i]))) {
      char *w = dump(ok);
      mismatch(r, "%s: expected %s, got %s at axis %d (%lld)", what, w, none[i] ? "None" : "an int", i, (long long)out[i].i);
      free(w);
      return;
    }
  }
}

static void check_unit_axes(Replay *r, const char *what, const JVal *res, const ShapeTracker *st, bool iv) {
  int axes[st_ndim(st) + 1];
  Query q = {.r = r, .kind = Q_UNIT_AXES, .st = st, .iv = iv, .axes = axes};
  Status err = attempt(query, &q);
  const JVal *ok;
  if (!result_ok(r, what, res, &err, &ok)) return;
  bool same = ok && ok->kind == J_ARR && (int)ok->n == q.cnt;
  for (int i = 0; same && i < q.cnt; i++) same = ok->u.arr[i]->u.i == axes[i];
  if (!same) mismatch(r, "%s: %d axes differ", what, q.cnt);
}

static void check_results(Replay *r, const JVal *res, const ShapeTracker *st) {
  Arena *a = r->a;
  Status err;
  const JVal *x, *ok;
  if ((x = get(res, "size")) != NULL) {
    ok = get(x, "ok");
    if (ok && ok->kind == J_INT && ok->u.i != st_size(st)) mismatch(r, "size: expected %lld got %lld", (long long)ok->u.i, (long long)st_size(st));
  }
  if ((x = get(res, "contiguous")) != NULL && x->u.b != st_contiguous(st)) mismatch(r, "contiguous differs");
  if ((x = get(res, "consecutive")) != NULL && x->u.b != st_consecutive(st)) mismatch(r, "consecutive differs");
  if ((x = get(res, "simplify")) != NULL) {
    Query q = {.r = r, .kind = Q_SIMPLIFY, .st = st};
    err = attempt(query, &q);
    if (result_ok(r, "simplify", x, &err, &ok)) compare_views(r, "simplify", ok, q.res);
  }
  if ((x = get(res, "invert")) != NULL) {
    int n;
    sint *out_shape;
    if (!ints_of(get(x, "out_shape"), &n, &out_shape, a)) {
      unsupported(r);
    } else {
      Query q = {.r = r, .kind = Q_INVERT, .st = st, .n = n, .out_shape = out_shape};
      err = attempt(query, &q);
      if (result_ok(r, "invert", x, &err, &ok)) compare_views(r, "invert", ok, q.res);
    }
  }
  if ((x = get(res, "real_strides")) != NULL) check_strides(r, "real_strides", x, st, false);
  if ((x = get(res, "real_strides_iv")) != NULL) check_strides(r, "real_strides(ignore_valid=True)", x, st, true);
  if ((x = get(res, "unit_stride_axes")) != NULL) check_unit_axes(r, "unit_stride_axes", x, st, false);
  if ((x = get(res, "unit_stride_axes_iv")) != NULL) check_unit_axes(r, "unit_stride_axes(ignore_valid=True)", x, st, true);
  if ((x = get(res, "minify")) != NULL) {
    for (int i = 0; i < st->nviews && i < (int)x->n; i++) {
      Query q = {.r = r, .kind = Q_MINIFY, .view = st->views[i]};
      err = attempt(query, &q);
      if (result_ok(r, "minify", x->u.arr[i], &err, &ok)) compare_view(r, "minify", ok, q.res_view);
    }
  }
  if ((x = get(res, "add")) != NULL) {
    JVal *wrap = json_obj(a);
    json_set(a, wrap, "views", (JVal *)get(x, "rhs"));
    Status bad;
    if (st_decode_status(a, wrap, &bad) == NULL) return unsupported(r);
    Query q = {.r = r, .kind = Q_ADD, .st = st, .rhs = wrap};
    err = attempt(query, &q);
    if (result_ok(r, "__add__", x, &err, &ok)) compare_views(r, "__add__", ok, q.res);
  }
}

static Result replay_case_in(Replay *r, const JVal *c);

/* A case runs in a symbolic context (sint.h: Nodes / UOps), so symbolic values decode and compute. */
static Result replay_case(Replay *r, const JVal *c) {
  sym_begin(r->a, r->v);
  Result res = replay_case_in(r, c);
  sym_end();
  return res;
}

static Result replay_case_in(Replay *r, const JVal *c) {
  r->result = R_PASS;
  r->why[0] = '\0';
  const JVal *start = get(c, "start"), *ops = get(c, "ops"), *error = get(c, "error"), *mv = get(c, "merge_view");
  bool merge_view = !(mv && mv->kind == J_INT && mv->u.i == 0);
  r->merge_view = merge_view;
  Ops o = {.r = r, .start = start, .ops = ops, .merge_view = merge_view};
  Status err = attempt(run_ops, &o);
  const ShapeTracker *st = o.st;
  int at = o.at;
  if (err.kind != ST_OK) {
    if (err.kind == ST_UNSUPPORTED) return R_UNSUPPORTED;
    if (error == NULL) {
      mismatch(r, "op %d raised %s(%s), tinygrad did not", at, err.type, err.msg);
      return r->result;
    }
    const JVal *e_at = get(error, "at");
    if (e_at && e_at->u.i != at) mismatch(r, "raised at op %d, tinygrad at %lld", at, (long long)e_at->u.i);
    check_error(r, "movement op", &err, error);
    return r->result;
  }
  if (error != NULL) {
    mismatch(r, "tinygrad raised %s(%s), we did not", get(error, "type")->u.s, get(error, "message")->u.s);
    return r->result;
  }
  compare_views(r, "st", get(get(c, "st"), "views"), st);
  if (r->result == R_FAIL) return r->result;
  check_results(r, get(c, "results"), st);
  return r->result;
}

/* ---------------------------------------------------------------- reading a .jsonl(.gz) */

static char *read_gz(const char *path, size_t *len) {
  gzFile f = gzopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 20, n = 0;
  char *buf = malloc(cap);
  int got;
  while ((got = gzread(f, buf + n, (unsigned)(cap - n))) > 0) {
    n += (size_t)got;
    if (cap - n < (1 << 16)) buf = realloc(buf, cap *= 2);
  }
  gzclose(f);
  *len = n;
  return buf;
}

typedef struct Counts { int pass, unsupported, fail, cases; } Counts;

typedef Result (*CaseFn)(Replay *r, const JVal *c);

static Counts replay_file(TgVersion v, const char *path, CaseFn replay) {
  Counts k = {0, 0, 0, 0};
  size_t len;
  char *data = read_gz(path, &len);
  if (data == NULL) {
    fprintf(stderr, "cannot read %s\n", path);
    k.fail = 1;
    return k;
  }
  Replay r = {.v = v};
  size_t pos = 0;
  int line = 0;
  while (pos < len) {
    size_t end = pos;
    while (end < len && data[end] != '\n') end++;
    line++;
    if (line > 1 && end > pos) { /* line 1 is the header */
      Arena a;
      arena_init(&a);
      char *buf = arena_alloc(&a, end - pos + JSON_PADDING);
      memcpy(buf, data + pos, end - pos);
      char msg[256];
      const JVal *c = json_parse(&a, buf, end - pos, msg, sizeof msg);
      r.a = &a;
      Result res;
      if (c == NULL) {
        snprintf(r.why, sizeof r.why, "bad JSON: %s", msg);
        res = R_FAIL;
      } else {
        res = replay(&r, c);
      }
      k.cases++;
      if (res == R_PASS) k.pass++;
      else if (res == R_UNSUPPORTED) {
        k.unsupported++;
        const JVal *name = c ? json_get(c, "name") : NULL;
        if (g_verbose >= 2) fprintf(stderr, "  unsupported %s line %d %s\n", tg_version_name(v), line, name ? name->u.s : "?");
      }
      else {
        k.fail++;
        if (r.printed++ < g_fail_print_limit) {
          const JVal *name = c ? json_get(c, "name") : NULL;
          fprintf(stderr, "  FAIL %s line %d %s: %s\n", tg_version_name(v), line, name ? name->u.s : "?", r.why);
        }
      }
      arena_free(&a);
    }
    pos = end + 1;
  }
  free(data);
  return k;
}

static Result replay_sym_case(Replay *r, const JVal *cs);

static void replay_version_file(TgVersion v, const char *prefix, CaseFn fn) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s-v%s.jsonl.gz", g_vector_dir, prefix, tg_version_name(v));
  Counts k = replay_file(v, path, fn);
  printf("%s vectors %-6s: %d cases: %d pass, %d fail, %d unsupported\n", prefix, tg_version_name(v), k.cases, k.pass, k.fail,
         k.unsupported);
  fflush(stdout);
  assert_true(k.cases > 0);
  assert_int_equal(k.fail, 0);
}

/* ================================================================ symbolic vectors (sym-v*.jsonl.gz) */

/* TREE -> 0.9.1 Node, with the operators record_st_vectors.py's build_tree uses */
static const SymNode *build_node(SymNodeCtx *c, const JVal *t) {
  const char *k = t->u.arr[0]->u.s;
  if (strcmp(k, "var") == 0) return snode_var(c, t->u.arr[1]->u.s, t->u.arr[2]->u.i, t->u.arr[3]->u.i);
  if (strcmp(k, "const") == 0) return snode_num(c, t->u.arr[1]->u.i);
  const SymNode *x = build_node(c, t->u.arr[1]);
  if (strcmp(k, "add") == 0) return snode_add(c, x, build_node(c, t->u.arr[2]));
  if (strcmp(k, "and") == 0) {
    const SymNode *both[2] = {x, build_node(c, t->u.arr[2])};
    return snode_ands(c, 2, both);
  }
  int64_t b = t->u.arr[2]->u.i;
  if (strcmp(k, "mul") == 0) return snode_mul(c, x, b);
  if (strcmp(k, "idiv") == 0) return snode_floordiv(c, x, b);
  if (strcmp(k, "mod") == 0) return snode_mod(c, x, b);
  if (strcmp(k, "lt") == 0) return create_lt_node(c, x, sint_int(b));
  return create_ge_node(c, x, sint_int(b)); /* "ge" */
}

/* TREE -> 0.10.x UOp, built with the Python operators */
static const SymUOp *build_uop(SymCtx *c, const JVal *t) {
  const char *k = t->u.arr[0]->u.s;
  if (strcmp(k, "var") == 0) return suop_variable(c, t->u.arr[1]->u.s, t->u.arr[2]->u.i, t->u.arr[3]->u.i);
  if (strcmp(k, "range") == 0) return suop_range(c, t->u.arr[2]->u.i, t->u.arr[1]->u.i);
  if (strcmp(k, "const") == 0) return suop_const(c, SDT_INT, t->u.arr[1]->u.i);
  const SymUOp *x = build_uop(c, t->u.arr[1]);
  if (strcmp(k, "add") == 0) return suop_add(c, x, build_uop(c, t->u.arr[2]));
  if (strcmp(k, "and") == 0) return suop_mul(c, x, build_uop(c, t->u.arr[2]));
  int64_t b = t->u.arr[2]->u.i;
  if (strcmp(k, "mul") == 0) return suop_mul_int(c, x, b);
  if (strcmp(k, "idiv") == 0) return suop_idiv_int(c, x, b);
  if (strcmp(k, "mod") == 0) return suop_mod_int(c, x, b);
  if (strcmp(k, "lt") == 0) return suop_lt_int(c, x, b);
  return suop_ge_int(c, x, b); /* "ge" */
}

/* One step of a symbolic case, as a protected call. The steps share one context and
 * run in order; once one raised, the later ones are not run and every later check
 * sees that first error (as tinygrad's recorder saw the exception of the shared
 * computation). */
typedef enum { SY_NODE, SY_EXPR, SY_SIMPLIFY, SY_FLAT, SY_VALID, SY_SIMPLIFY_VALID, SY_GIVEN_VALID } SymStepKind;
typedef struct SymStep {
  SymStepKind kind;
  SymNodeCtx *nc;              /* SY_NODE: 0.9.1 */
  SymCtx *c;                   /* the others: 0.10.x */
  const JVal *tree;            /* SY_NODE, SY_EXPR, SY_VALID */
  const SymUOp *x, *y;         /* the inputs */
  const SymNode *node;         /* SY_NODE: the Node and its key */
  const char *key;
  const SymUOp *out;
} SymStep;

static void sym_step(void *ud) {
  SymStep *k = ud;
  switch (k->kind) {
    case SY_NODE:
      k->node = build_node(k->nc, k->tree);
      k->key = snode_key(k->nc, k->node);
      break;
    case SY_EXPR: k->out = build_uop(k->c, k->tree); break;
    case SY_SIMPLIFY: k->out = suop_simplify(k->c, k->x); break;
    case SY_FLAT: k->out = suop_rewrite_flat(k->c, k->x); break;
    case SY_VALID: k->out = suop_rewrite_flat(k->c, build_uop(k->c, k->tree)); break;
    case SY_SIMPLIFY_VALID: k->out = sym_simplify_valid(k->c, k->x); break;
    case SY_GIVEN_VALID: k->out = sym_uop_given_valid(k->c, k->x, k->y); break;
  }
}

/* runs the step unless an earlier one raised (*err then stays that error); returns its result */
static const SymUOp *sym_run(Status *err, SymCtx *c, SymStepKind kind, const JVal *tree, const SymUOp *x, const SymUOp *y) {
  if (err->kind != ST_OK) return NULL;
  SymStep k = {.kind = kind, .c = c, .tree = tree, .x = x, .y = y};
  *err = attempt(sym_step, &k);
  return err->kind == ST_OK ? k.out : NULL;
}

static void check_uop_result(Replay *r, SymCtx *c, const Status *err, const char *what, const JVal *res, const SymUOp *got) {
  const JVal *e = get(res, "error");
  if (e != NULL) return err->kind != ST_OK ? check_error(r, what, err, e) : mismatch(r, "%s: tinygrad raised, we did not", what);
  if (err->kind == ST_UNSUPPORTED) return unsupported(r);
  if (err->kind != ST_OK) return mismatch(r, "%s: unexpected %s(%s)", what, err->type, err->msg);
  const JVal *ok = get(res, "ok");
  if (ok == NULL || ok->kind == J_NULL) {
    if (got != NULL) mismatch(r, "%s: expected None", what);
    return;
  }
  const SymUOp *want = decode_uop(c, ok);
  if (want == NULL) return unsupported(r);
  if (want != got) {
    char *w = dump(ok);
    mismatch(r, "%s: differs, expected %s", what, w);
    free(w);
  }
}

static Result replay_sym_case(Replay *r, const JVal *cs) {
  r->result = R_PASS;
  r->why[0] = '\0';
  const JVal *expr = get(cs, "expr"), *valid = get(cs, "valid"), *res = get(cs, "results");
  if (tg_features(r->v)->symbolic == SYM_NODE) {
    const char *keys[2] = {"expr", "valid"};
    const JVal *trees[2] = {expr, valid};
    for (int i = 0; i < 2; i++) {
      const JVal *x = get(res, keys[i]);
      if (x == NULL) continue;
      SymNodeCtx c;
      snode_ctx_init(&c, r->a);
      SymStep k = {.kind = SY_NODE, .nc = &c, .tree = trees[i]};
      Status err = attempt(sym_step, &k);
      const SymNode *n = k.node;
      const char *key = err.kind == ST_OK ? k.key : "";
      const JVal *ok = get(x, "ok");
      if (get(x, "error") != NULL) {
        if (err.kind == ST_OK) mismatch(r, "%s: tinygrad raised, we gave %s", keys[i], key);
        else check_error(r, keys[i], &err, get(x, "error"));
      } else if (err.kind != ST_OK) {
        mismatch(r, "%s: unexpected %s(%s)", keys[i], err.type, err.msg);
      } else if (strcmp(get(ok, "key")->u.s, key) != 0 || get(ok, "min")->u.i != n->min || get(ok, "max")->u.i != n->max) {
        mismatch(r, "%s: expected %s [%lld, %lld], got %s [%lld, %lld]", keys[i], get(ok, "key")->u.s, (long long)get(ok, "min")->u.i,
                 (long long)get(ok, "max")->u.i, key, (long long)n->min, (long long)n->max);
      }
    }
    return r->result;
  }
  SymCtx *c = symctx_new(r->a, r->v);
  Status err = {ST_OK, "", ""};
  const SymUOp *raw = sym_run(&err, c, SY_EXPR, expr, NULL, NULL);
  const JVal *x;
  if (raw != NULL && (x = get(res, "bounds")) != NULL && (x = get(x, "ok")) != NULL &&
      (x->u.arr[0]->u.i != suop_vmin(raw) || x->u.arr[1]->u.i != suop_vmax(raw)))
    mismatch(r, "bounds: expected [%lld, %lld] got [%lld, %lld]", (long long)x->u.arr[0]->u.i, (long long)x->u.arr[1]->u.i,
             (long long)suop_vmin(raw), (long long)suop_vmax(raw));
  if ((x = get(res, "simplify")) != NULL) {
    const SymUOp *simple = sym_run(&err, c, SY_SIMPLIFY, NULL, raw, NULL);
    check_uop_result(r, c, &err, "simplify", x, simple);
  }
  const SymUOp *flat = sym_run(&err, c, SY_FLAT, NULL, raw, NULL);
  if ((x = get(res, "flat")) != NULL) check_uop_result(r, c, &err, "symbolic_flat", x, flat);
  if (valid != NULL && valid->kind != J_NULL) {
    const SymUOp *v = sym_run(&err, c, SY_VALID, valid, NULL, NULL);
    const SymUOp *nv = sym_run(&err, c, SY_SIMPLIFY_VALID, NULL, v, NULL);
    if ((x = get(res, "simplify_valid")) != NULL) check_uop_result(r, c, &err, "simplify_valid", x, nv);
    if (nv != NULL) v = nv;
    if ((x = get(res, "uop_given_valid")) != NULL)
      check_uop_result(r, c, &err, "uop_given_valid", x, sym_run(&err, c, SY_GIVEN_VALID, NULL, v, flat));
  }
  return r->result;
}

static void vectors_0_9_1(void **state) { (void)state; replay_version_file(TG_0_9_1, "st", replay_case); }
static void vectors_0_10_0(void **state) { (void)state; replay_version_file(TG_0_10_0, "st", replay_case); }
static void vectors_0_10_2(void **state) { (void)state; replay_version_file(TG_0_10_2, "st", replay_case); }
static void sym_vectors_0_9_1(void **state) { (void)state; replay_version_file(TG_0_9_1, "sym", replay_sym_case); }
static void sym_vectors_0_10_0(void **state) { (void)state; replay_version_file(TG_0_10_0, "sym", replay_sym_case); }
static void sym_vectors_0_10_2(void **state) { (void)state; replay_version_file(TG_0_10_2, "sym", replay_sym_case); }
static void vectors_0_9_2(void **state) { (void)state; replay_version_file(TG_0_9_2, "st", replay_case); }
static void sym_vectors_0_9_2(void **state) { (void)state; replay_version_file(TG_0_9_2, "sym", replay_sym_case); }
static void sym_vectors_0_9_2_197f8fd(void **state) { (void)state; replay_version_file(TG_0_9_2_197F8FD, "sym", replay_sym_case); }
static void vectors_0_10_0_2ca41d6(void **state) { (void)state; replay_version_file(TG_0_10_0_2CA41D6, "st", replay_case); }
static void sym_vectors_0_10_0_2ca41d6(void **state) { (void)state; replay_version_file(TG_0_10_0_2CA41D6, "sym", replay_sym_case); }
static void vectors_0_10_1(void **state) { (void)state; replay_version_file(TG_0_10_1, "st", replay_case); }
static void sym_vectors_0_10_1(void **state) { (void)state; replay_version_file(TG_0_10_1, "sym", replay_sym_case); }
static void vectors_0_10_2_a0b4465(void **state) { (void)state; replay_version_file(TG_0_10_2_A0B4465, "st", replay_case); }
static void sym_vectors_0_10_2_a0b4465(void **state) { (void)state; replay_version_file(TG_0_10_2_A0B4465, "sym", replay_sym_case); }

/* `test_shapetracker DIR VERSION`: only that version's st and sym files of
 * DIR, whether or not CTest replays them (a version being added); exit 1 if
 * one differs or is missing. */
static int replay_one_version(const char *name) {
  int v = tg_version_parse(name);
  if (v < 0) return fprintf(stderr, "test_shapetracker: unknown version %s\n", name), 2;
  int bad = 0;
  const char *prefixes[] = {"st", "sym"};
  CaseFn fns[] = {replay_case, replay_sym_case};
  for (int i = 0; i < 2; i++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s-v%s.jsonl.gz", g_vector_dir, prefixes[i], name);
    Counts k = replay_file((TgVersion)v, path, fns[i]);
    printf("%s vectors %-6s: %d cases: %d pass, %d fail, %d unsupported\n", prefixes[i], name, k.cases, k.pass, k.fail,
           k.unsupported);
    bad |= k.cases == 0 || k.fail > 0;
  }
  return bad;
}

int main(int argc, char **argv) {
  if (argc > 1) g_vector_dir = argv[1];
  else if (getenv("TSCHED_VECTORS")) g_vector_dir = getenv("TSCHED_VECTORS");
  if (getenv("TSCHED_ST_VERBOSE")) {
    g_fail_print_limit = 1 << 30;
    g_verbose = atoi(getenv("TSCHED_ST_VERBOSE"));
  }
  if (argc > 2) return replay_one_version(argv[2]);
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(reshape_with_mask),     cmocka_unit_test(pad_then_shrink), cmocka_unit_test(invert_permute_flip),
    cmocka_unit_test(merge_views),           cmocka_unit_test(python_floor_division), cmocka_unit_test(symbolic_is_unsupported),
    cmocka_unit_test(symbolic_views_0_10_0),
    cmocka_unit_test(node_algebra),          cmocka_unit_test(json_round_trip), cmocka_unit_test(vectors_0_9_1),   cmocka_unit_test(vectors_0_10_0),
    cmocka_unit_test(vectors_0_10_2),        cmocka_unit_test(sym_vectors_0_9_1), cmocka_unit_test(sym_vectors_0_10_0),
    cmocka_unit_test(sym_vectors_0_10_2),
    cmocka_unit_test(vectors_0_9_2),
    cmocka_unit_test(sym_vectors_0_9_2),     cmocka_unit_test(sym_vectors_0_9_2_197f8fd),
    cmocka_unit_test(vectors_0_10_0_2ca41d6), cmocka_unit_test(sym_vectors_0_10_0_2ca41d6),
    cmocka_unit_test(vectors_0_10_1),        cmocka_unit_test(sym_vectors_0_10_1),
    cmocka_unit_test(vectors_0_10_2_a0b4465), cmocka_unit_test(sym_vectors_0_10_2_a0b4465),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
