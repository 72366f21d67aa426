/* test_v0_10_2_schedule.c — behaviour of generation 0.10.2's scheduler on
 * small captures (each recorded from tinygrad v0.10.2): two unrealized
 * buffers added in one kernel with its becomes_map, the error of a permuted
 * augmented assign, constant folding (also of a uint64 constant above
 * int64), a shape bound to a Variable, bad input, sizes past int64, and
 * a0b4465's TLSF allocator. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compare.h"
#include "conformance/schedulers.h"
#include "v0_10_2_kernel_graph/tlsf.h"

#define CTX "\"context\": {\"FUSE_ARANGE\": 0, \"FUSE_CONV_BW\": 0, \"DONT_REALIZE_EXPAND\": 0, \"SPLIT_REDUCEOP\": 1, " \
  "\"REDUCEOP_SPLIT_THRESHOLD\": 32768, \"REDUCEOP_SPLIT_SIZE\": 22, \"MERGE_VIEW\": 1, \"NO_MEMORY_PLANNER\": 0, \"TRACEMETA\": 1}"
#define ST0 "{\"views\": [{\"shape\": [], \"strides\": [], \"offset\": 0, \"mask\": null, \"contiguous\": true}]}"
#define BUF40000 "{\"device\": \"CPU\", \"size\": 40000, \"dtype\": \"float\", \"allocated\": true, \"base\": null, " \
  "\"offset\": 0, \"options\": null, \"lb_refcount\": 1}"

/* a = Tensor.empty(1, 1); b = Tensor.empty(1, 1); (a + b).realize() */
static const char *add_two_empty =
  "{\"name\": \"add#0\", " CTX ", \"input\": {\"buffers\": [], \"graph\": {\"nodes\": ["
  "[\"Ops.DEVICE\", \"void\", \"CPU\", []], [\"Ops.UNIQUE\", \"void\", \"u:0\", []], [\"Ops.BUFFER\", \"float\", 1, [0, 1]],"
  "[\"Ops.RESHAPE\", \"float\", [1, 1], [2]], [\"Ops.UNIQUE\", \"void\", \"u:1\", []], [\"Ops.BUFFER\", \"float\", 1, [0, 4]],"
  "[\"Ops.RESHAPE\", \"float\", [1, 1], [5]], [\"Ops.ADD\", \"float\", null, [3, 6]], [\"Ops.SINK\", \"void\", null, [7]]],"
  " \"roots\": [8]}, \"node_buffer\": [], \"metadata\": [[7, \"__add__\"], [8, \"realize\"]],"
  " \"memory_planner_bufs\": [[\"new:0\", false, 1], [\"new:1\", false, 0], [\"new:2\", false, 0]],"
  " \"memory_planner_allocator_offset\": {\"CPU\": false}}}";

/* a = Tensor.ones(200, 200).contiguous().realize(); b = ...; a.assign(a.T + b) */
static const char *permuted_assign =
  "{\"name\": \"assign#2\", " CTX ", \"input\": {\"buffers\": [" BUF40000 ", " BUF40000 "], \"graph\": {\"nodes\": ["
  "[\"Ops.DEVICE\", \"void\", \"CPU\", []], [\"Ops.UNIQUE\", \"void\", 0, []], [\"Ops.BUFFER\", \"float\", 40000, [0, 1]],"
  "[\"Ops.RESHAPE\", \"float\", [200, 200], [2]], [\"Ops.PERMUTE\", \"float\", [1, 0], [3]],"
  "[\"Ops.UNIQUE\", \"void\", 1, []], [\"Ops.BUFFER\", \"float\", 40000, [0, 5]], [\"Ops.RESHAPE\", \"float\", [200, 200], [6]],"
  "[\"Ops.ADD\", \"float\", null, [4, 7]], [\"Ops.ASSIGN\", \"float\", null, [4, 8]], [\"Ops.SINK\", \"void\", null, [9]]],"
  " \"roots\": [10]}, \"node_buffer\": [[2, 0], [6, 1]], \"metadata\": [], \"memory_planner_bufs\": null}}";

/* (Tensor(2.0) + Tensor(3.0)).realize(): folds to a CONST, nothing to run */
static const char *const_add =
  "{\"name\": \"const#0\", " CTX ", \"input\": {\"buffers\": [], \"graph\": {\"nodes\": ["
  "[\"Ops.DEVICE\", \"void\", \"CPU\", []], [\"Ops.VIEW\", \"void\", " ST0 ", [0]], [\"Ops.CONST\", \"float\", 2.0, [1]],"
  "[\"Ops.CONST\", \"float\", 3.0, [1]], [\"Ops.ADD\", \"float\", null, [2, 3]], [\"Ops.SINK\", \"void\", null, [4]]],"
  " \"roots\": [5]}, \"node_buffer\": [], \"metadata\": [], \"memory_planner_bufs\": []}}";

/* (Tensor(2**64-1, dtype=dtypes.uint64) // Tensor(1, dtype=dtypes.uint64)).realize(): a Python int above
 * int64 as a CONST arg; the test puts other ops and constants in place of IDIV and 1 */
static const char *u64_max_idiv_one =
  "{\"name\": \"u64#0\", " CTX ", \"input\": {\"buffers\": [], \"graph\": {\"nodes\": ["
  "[\"Ops.DEVICE\", \"void\", \"CPU\", []], [\"Ops.VIEW\", \"void\", " ST0 ", [0]],"
  "[\"Ops.CONST\", \"ulong\", 18446744073709551615, [1]], [\"Ops.CONST\", \"ulong\", 1, [1]],"
  "[\"Ops.IDIV\", \"ulong\", null, [2, 3]], [\"Ops.SINK\", \"void\", null, [4]]],"
  " \"roots\": [5]}, \"node_buffer\": [], \"metadata\": [], \"memory_planner_bufs\": []}}";

/* a = Tensor.empty(3, 3).realize(); i = Variable("i", 1, 10).bind(3); a.reshape(3, i).half().realize() */
#define SYM_I "{\"sym\": {\"var\": \"i\", \"min\": 1, \"max\": 10, \"val\": 3}}"
static const char *cast_bound_shape =
  "{\"name\": \"sym_elementwise#9\", " CTX ", \"input\": {\"buffers\": [{\"device\": \"CPU\", \"size\": 9, \"dtype\": \"float\","
  " \"allocated\": true, \"base\": null, \"offset\": 0, \"options\": null, \"lb_refcount\": 1}], \"graph\": {\"nodes\": ["
  "[\"Ops.DEVICE\", \"void\", \"CPU\", []], [\"Ops.UNIQUE\", \"void\", 0, []], [\"Ops.BUFFER\", \"float\", 9, [0, 1]],"
  "[\"Ops.RESHAPE\", \"float\", [3, 3], [2]], [\"Ops.RESHAPE\", \"float\", [3, " SYM_I "], [3]],"
  "[\"Ops.CAST\", \"half\", null, [4]], [\"Ops.SINK\", \"void\", null, [5]]], \"roots\": [6]},"
  " \"node_buffer\": [[2, 0]], \"metadata\": [[5, \"cast\"]], \"memory_planner_bufs\": null}}";

typedef struct Run {
  Arena arena;
  Capture cap;
  Status st;
  JVal *result;
  bool ok;
} Run;

static JVal *parse(Arena *a, const char *text) {
  char err[128];
  JVal *v = json_parse_text(a, text, err, sizeof err);
  if (!v) fprintf(stderr, "test capture does not parse: %s\n", err);
  return v;
}

/* Schedules one capture given as JSON text, with the first `from` replaced by `to`. */
static void run(Run *r, const char *text, const char *from, const char *to) {
  arena_init(&r->arena);
  char *edited = arena_alloc(&r->arena, strlen(text) + (to ? strlen(to) : 0) + 1);
  const char *at = from ? strstr(text, from) : NULL;
  if (at) sprintf(edited, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
  else strcpy(edited, text);
  JVal *root = parse(&r->arena, edited);
  assert_non_null(root);
  memset(&r->cap, 0, sizeof r->cap);
  r->cap.name = "test";
  r->cap.generation = TG_0_10_2;
  r->cap.root = root;
  r->cap.context = json_get(root, "context");
  r->cap.input = json_get(root, "input");
  memset(&r->st, 0, sizeof r->st);
  r->ok = v0_10_2_schedule_capture(&r->cap, &r->arena, &r->result, &r->st);
}

static void assert_json(Run *r, const JVal *got, const char *expected) {
  JVal *want = parse(&r->arena, expected);
  assert_non_null(want);
  if (!json_equal(want, got)) {
    char *s = json_to_string(got, NULL);
    fprintf(stderr, "expected %s\n     got %s\n", expected, s);
    free(s);
    fail();
  }
}

static void add_of_two_buffers_is_one_kernel(void **state) {
  (void)state;
  Run r;
  run(&r, add_two_empty, NULL, NULL);
  assert_true(r.ok);
  const JVal *sched = json_get(r.result, "schedule");
  assert_int_equal(sched->n, 1);
  assert_json(&r, json_get(sched->u.arr[0], "bufs"), "[\"new:0\", \"new:1\", \"new:2\"]");
  assert_json(&r, json_get(sched->u.arr[0], "metadata"), "[\"__add__\"]");
  /* the ADD (node 7) becomes the new output buffer, reshaped */
  assert_json(&r, json_get(r.result, "becomes_map"),
              "[[7, {\"nodes\": [[\"Ops.DEVICE\", \"void\", \"CPU\", []], [\"Ops.UNIQUE\", \"void\", \"new:0\", []],"
              " [\"Ops.BUFFER\", \"float\", 1, [0, 1]], [\"Ops.RESHAPE\", \"float\", [1, 1], [2]]], \"roots\": [3]}]]");
  assert_int_equal(json_get(r.result, "new_buffers")->n, 3);
  assert_json(&r, json_get(r.result, "memory_plan"), "[]");
  arena_free(&r.arena);
}

static void the_ast_stores_the_sum_of_two_loads(void **state) {
  (void)state;
  Run r;
  run(&r, add_two_empty, NULL, NULL);
  assert_true(r.ok);
  const JVal *nodes = json_get(json_get(json_get(r.result, "schedule")->u.arr[0], "ast"), "nodes");
  int loads = 0, stores = 0, adds = 0;
  for (size_t i = 0; i < nodes->n; i++) {
    const char *op = nodes->u.arr[i]->u.arr[0]->u.s;
    loads += strcmp(op, "Ops.LOAD") == 0;
    stores += strcmp(op, "Ops.STORE") == 0;
    adds += strcmp(op, "Ops.ADD") == 0;
  }
  assert_int_equal(loads, 2);
  assert_int_equal(stores, 1);
  assert_int_equal(adds, 1);
  assert_string_equal(nodes->u.arr[nodes->n - 1]->u.arr[0]->u.s, "Ops.SINK");
  arena_free(&r.arena);
}

static void permuted_augmented_assign_raises(void **state) {
  (void)state;
  Run r;
  run(&r, permuted_assign, NULL, NULL);
  assert_false(r.ok);
  assert_int_equal(r.st.kind, ST_RAISED);
  assert_string_equal(r.st.type, "RuntimeError");
  assert_true(strncmp(r.st.msg, "self operand of augmented assign must be contiguous.\n", 53) == 0);
  arena_free(&r.arena);
}

static void constants_fold_and_nothing_runs(void **state) {
  (void)state;
  Run r;
  run(&r, const_add, NULL, NULL);
  assert_true(r.ok);
  assert_int_equal(json_get(r.result, "schedule")->n, 0);
  /* ADD (node 4) becomes CONST 5.0 on its device */
  const JVal *bm = json_get(r.result, "becomes_map");
  assert_int_equal(bm->n, 1);
  const JVal *g = bm->u.arr[0]->u.arr[1], *nodes = json_get(g, "nodes");
  const JVal *root = nodes->u.arr[json_get(g, "roots")->u.arr[0]->u.i];
  assert_string_equal(root->u.arr[0]->u.s, "Ops.CONST");
  assert_json(&r, root->u.arr[2], "5.0");
  arena_free(&r.arena);
}

/* The arg of the CONST node 4 becomes (the capture folds to one constant). */
static void assert_folds_to(Run *r, const char *arg) {
  assert_true(r->ok);
  const JVal *bm = json_get(r->result, "becomes_map");
  assert_int_equal(bm->n, 1);
  assert_int_equal(bm->u.arr[0]->u.arr[0]->u.i, 4);
  const JVal *g = bm->u.arr[0]->u.arr[1], *nodes = json_get(g, "nodes");
  const JVal *root = nodes->u.arr[json_get(g, "roots")->u.arr[0]->u.i];
  assert_string_equal(root->u.arr[0]->u.s, "Ops.CONST");
  assert_json(r, root->u.arr[2], arg);
}

/* 2**64-1 OP c folded by 0.10.2's sym rules as Python computes it (results checked against tinygrad 0.10.2's
 * exec_alu, which does not truncate here): results outside int64 stay exact, one beyond 128 bits is
 * unsupported, never wrapped */
static void a_uint64_constant_above_int64_folds_like_a_python_int(void **state) {
  (void)state;
  static const struct { const char *op, *c, *arg; } cases[] = {
    {"IDIV", "1", "18446744073709551615"},   /* x//1 -> x */
    {"MUL", "1", "18446744073709551615"},    /* x*1 -> x */
    {"ADD", "0", "18446744073709551615"},    /* x+0 -> x */
    {"MUL", "0", "0"},                       /* x*0 -> 0 */
    {"ADD", "-1", "18446744073709551614"},   /* exec_alu from here on */
    {"IDIV", "2", "9223372036854775807"},
    {"MOD", "10", "5"},
    {"XOR", "1", "18446744073709551614"},
    {"AND", "-2", "18446744073709551614"},
    {"SHR", "60", "15"},
    {"MAX", "7", "18446744073709551615"},
    {"ADD", "1", "18446744073709551616"},    /* 2**64: no uint64 wrap */
    {"MUL", "2", "36893488147419103230"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char op[64], c[64], *text = malloc(strlen(u64_max_idiv_one) + 64);
    snprintf(op, sizeof op, "\"Ops.%s\", \"ulong\", null", cases[i].op);
    snprintf(c, sizeof c, "\"ulong\", %s, [1]]", cases[i].c);
    const char *one = "\"ulong\", 1, [1]]", *at = strstr(u64_max_idiv_one, one);
    sprintf(text, "%.*s%s%s", (int)(at - u64_max_idiv_one), u64_max_idiv_one, c, at + strlen(one));
    Run r;
    run(&r, text, "\"Ops.IDIV\", \"ulong\", null", op);
    free(text);
    if (!r.ok) fprintf(stderr, "%s %s: %s\n", cases[i].op, cases[i].c, r.st.msg);
    assert_folds_to(&r, cases[i].arg);
    arena_free(&r.arena);
  }
  /* (2**64-1)**2 needs 129 bits */
  Run r;
  run(&r, u64_max_idiv_one, "[\"Ops.IDIV\", \"ulong\", null, [2, 3]]", "[\"Ops.MUL\", \"ulong\", null, [2, 2]]");
  assert_false(r.ok);
  assert_int_equal(r.st.kind, ST_UNSUPPORTED);
  arena_free(&r.arena);
  /* BITCAST to long packs it as 'Q' and unpacks 'q': -1 */
  run(&r, u64_max_idiv_one, "[\"Ops.IDIV\", \"ulong\", null, [2, 3]]", "[\"Ops.BITCAST\", \"long\", null, [2]]");
  assert_folds_to(&r, "-1");
  arena_free(&r.arena);
  /* CAST to double: float(2**64-1) */
  run(&r, u64_max_idiv_one, "[\"Ops.IDIV\", \"ulong\", null, [2, 3]]", "[\"Ops.CAST\", \"double\", null, [2]]");
  assert_folds_to(&r, "1.8446744073709552e+19");
  arena_free(&r.arena);
}

static void a_bound_shape_unbinds_into_var_vals(void **state) {
  (void)state;
  Run r;
  run(&r, cast_bound_shape, NULL, NULL);
  assert_true(r.ok);
  const JVal *sched = json_get(r.result, "schedule");
  assert_int_equal(sched->n, 1);
  /* the kernel indexes with the unbound Variable (strides are not simplified: 1*i); the output
   * buffer is sized by its max, 3*10 */
  const JVal *nodes = json_get(json_get(sched->u.arr[0], "ast"), "nodes");
  assert_json(&r, nodes->u.arr[0], "[\"Ops.DEFINE_GLOBAL\", \"half.ptr(30)\", 0, []]");
  assert_json(&r, nodes->u.arr[1],
              "[\"Ops.VIEW\", \"void\", {\"views\": [{\"shape\": [3, {\"sym\": {\"var\": \"i\", \"min\": 1, \"max\": 10}}],"
              " \"strides\": [{\"sym\": {\"op\": \"MUL\", \"src\": [1, {\"var\": \"i\", \"min\": 1, \"max\": 10}]}}, 1],"
              " \"offset\": 0, \"mask\": null, \"contiguous\": true}]}, []]");
  /* its value goes to var_vals */
  assert_json(&r, json_get(r.result, "var_vals"), "[[{\"var\": \"i\", \"min\": 1, \"max\": 10}, 3]]");
  /* the tensor becomes the new buffer reshaped to its shape, the Variable still bound */
  assert_json(&r, json_get(r.result, "becomes_map"),
              "[[5, {\"nodes\": [[\"Ops.DEVICE\", \"void\", \"CPU\", []], [\"Ops.UNIQUE\", \"void\", \"new:0\", []],"
              " [\"Ops.BUFFER\", \"half\", 30, [0, 1]], [\"Ops.RESHAPE\", \"half\", [3, " SYM_I "], [2]]], \"roots\": [3]}]]");
  arena_free(&r.arena);
}

static void bad_input_names_the_place(void **state) {
  (void)state;
  Run r;
  run(&r, add_two_empty, "[3, 6]", "[3, 60]"); /* a source index past the node */
  assert_false(r.ok);
  assert_int_equal(r.st.kind, ST_BAD_INPUT);
  assert_non_null(strstr(r.st.msg, "node 7"));
  arena_free(&r.arena);
  run(&r, permuted_assign, "\"node_buffer\": [[2, 0]", "\"node_buffer\": [[3, 0]"); /* not a BUFFER node */
  assert_false(r.ok);
  assert_int_equal(r.st.kind, ST_BAD_INPUT);
  assert_non_null(strstr(r.st.msg, "node_buffer"));
  arena_free(&r.arena);
  run(&r, add_two_empty, "\"roots\": [8]", "\"roots\": [7]"); /* the root must be the big sink */
  assert_false(r.ok);
  assert_int_equal(r.st.kind, ST_BAD_INPUT);
  arena_free(&r.arena);
  run(&r, add_two_empty, "[\"new:1\", false, 0]", "[\"new:1\", 0, 0]"); /* reported when the plan is encoded */
  assert_false(r.ok);
  assert_int_equal(r.st.kind, ST_BAD_INPUT);
  assert_string_equal(r.st.msg, "input.memory_planner_bufs[1] must be [BUFREF, bool, int]");
  arena_free(&r.arena);
}

/* Python ints have no bounds; an input whose sizes go past int64 is
 * unsupported here, never undefined behaviour. */
static void sizes_beyond_int64_are_unsupported(void **state) {
  (void)state;
  Run r;
  run(&r, add_two_empty, "[\"Ops.RESHAPE\", \"float\", [1, 1], [5]]",
      "[\"Ops.EXPAND\", \"float\", [4, 9223372036854775807], [3]]"); /* a view of 4 * (2**63 - 1) elements */
  assert_false(r.ok);
  assert_int_equal(r.st.kind, ST_UNSUPPORTED);
  assert_non_null(strstr(r.st.msg, "int64 overflow"));
  arena_free(&r.arena);
}

/* Every UOp has a dtype (only 0.9.1's LazyOps are written with null). */
static void a_node_without_dtype_is_bad_input(void **state) {
  (void)state;
  Run r;
  run(&r, add_two_empty, "[\"Ops.ADD\", \"float\", null, [3, 6]]", "[\"Ops.ADD\", null, null, [3, 6]]");
  assert_false(r.ok);
  assert_int_equal(r.st.kind, ST_BAD_INPUT);
  assert_non_null(strstr(r.st.msg, "node 7"));
  arena_free(&r.arena);
}

/* a0b4465's TLSFAllocator(1 << 44, block_size=0x1000, lv2_cnt=32): the
 * offsets Python's runtime/support/allocator.py gives for the same requests
 * (a freed block is reused, neighbours merge, a big request goes past them) */
static void tlsf_gives_pythons_offsets(void **state) {
  (void)state;
  Arena a;
  arena_init(&a);
  Tlsf t;
  v0_10_2_tlsf_init(&t, &a, (int64_t)1 << 44, 0x1000, 32);
  int64_t starts[16];
  int n = 0;
  starts[n++] = v0_10_2_tlsf_alloc(&t, 0x1000);
  starts[n++] = v0_10_2_tlsf_alloc(&t, 0x3000);
  starts[n++] = v0_10_2_tlsf_alloc(&t, 0x1000);
  v0_10_2_tlsf_free(&t, starts[1]);
  starts[n++] = v0_10_2_tlsf_alloc(&t, 0x2000);
  starts[n++] = v0_10_2_tlsf_alloc(&t, 0x1000);
  v0_10_2_tlsf_free(&t, starts[0]);
  v0_10_2_tlsf_free(&t, starts[2]);
  starts[n++] = v0_10_2_tlsf_alloc(&t, 0x5000);
  v0_10_2_tlsf_free(&t, starts[4]);
  starts[n++] = v0_10_2_tlsf_alloc(&t, 0x1000);
  starts[n++] = v0_10_2_tlsf_alloc(&t, 0x10000);
  const int64_t want[8] = {0, 4096, 16384, 4096, 12288, 16384, 0, 36864};
  for (int i = 0; i < 8; i++) assert_int_equal(starts[i], want[i]);
  arena_free(&a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(add_of_two_buffers_is_one_kernel),
    cmocka_unit_test(the_ast_stores_the_sum_of_two_loads),
    cmocka_unit_test(permuted_augmented_assign_raises),
    cmocka_unit_test(constants_fold_and_nothing_runs),
    cmocka_unit_test(a_uint64_constant_above_int64_folds_like_a_python_int),
    cmocka_unit_test(a_bound_shape_unbinds_into_var_vals),
    cmocka_unit_test(bad_input_names_the_place),
    cmocka_unit_test(sizes_beyond_int64_are_unsupported),
    cmocka_unit_test(a_node_without_dtype_is_bad_input),
    cmocka_unit_test(tlsf_gives_pythons_offsets),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
