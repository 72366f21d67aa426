/* test_v0_10_0_schedule.c — behaviour of the LazyBuffer -> UOp scheduler
 * (v0_10_lazybuf_uop/) on small hand-written captures (each checked against
 * tinygrad v0.10.0, or commit 2ca41d6 where the test says so): fusion of
 * elementwise ops, forced realizes with contiguous(), the memory planner
 * reusing a dead buffer, tinygrad's errors, bad input, a symbolic shape,
 * where 2ca41d6's kernel metadata comes from. */
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

#define CTX "\"context\": {\"FUSE_ARANGE\": 0, \"FUSE_CONV_BW\": 0, \"NO_MEMORY_PLANNER\": 0, \"BUF_LIMIT:METAL\": 32}"
#define ST4 "{\"views\": [{\"shape\": [4], \"strides\": [1], \"offset\": 0, \"mask\": null, \"contiguous\": true}]}"
#define ST0 "{\"views\": [{\"shape\": [], \"strides\": [], \"offset\": 0, \"mask\": null, \"contiguous\": true}]}"
#define ST4X "{\"views\": [{\"shape\": [4], \"strides\": [0], \"offset\": 0, \"mask\": null, \"contiguous\": false}]}"
#define BUF(size, alloc) "{\"device\": \"CLANG\", \"size\": " #size ", \"dtype\": \"float\", \"allocated\": " #alloc \
  ", \"base\": null, \"offset\": 0, \"options\": null, \"lb_refcount\": 1}"
#define LB(op, arg, srcs, buf, forced) "{\"device\": \"CLANG\", \"dtype\": \"float\", \"st\": " ST4 ", \"op\": \"Ops." op \
  "\", \"arg\": " arg ", \"srcs\": " srcs ", \"buffer\": " #buf ", \"realized\": false, \"forced_realize\": " #forced \
  ", \"metadata\": null}"

/* a = Tensor([1.,2,3,4]).realize(); b = (a+1).contiguous(); c = (b+1).contiguous()
 * d = (c+1).contiguous(); e = d+1; del b, c, d; e.schedule() */
static const char *chain_of_contiguous =
  "{\"name\": \"chain#0\", " CTX ", \"input\": {"
  "\"buffers\": [" BUF(4, true) ", " BUF(4, false) ", " BUF(4, false) ", " BUF(4, false) ", " BUF(4, false) ", " BUF(1, false) "],"
  "\"lazybuffers\": ["
  "{\"device\": \"CLANG\", \"dtype\": \"float\", \"st\": " ST4 ", \"op\": \"Ops.COPY\", \"arg\": 16, \"srcs\": null, \"buffer\": 0,"
  " \"realized\": true, \"forced_realize\": false, \"metadata\": null},"
  "{\"device\": \"CLANG\", \"dtype\": \"float\", \"st\": " ST0 ", \"op\": \"Ops.CONST\", \"arg\": 1.0, \"srcs\": [], \"buffer\": 5,"
  " \"realized\": false, \"forced_realize\": false, \"metadata\": null},"
  "{\"device\": \"CLANG\", \"dtype\": \"float\", \"st\": " ST4X ", \"base\": 1},"
  LB("ADD", "null", "[0, 2]", 1, true) ", " LB("ADD", "null", "[3, 2]", 2, true) ", " LB("ADD", "null", "[4, 2]", 3, true) ", "
  LB("ADD", "null", "[5, 2]", 4, false) "],"
  "\"outs\": [6],"
  "\"memory_planner_bufs\": [[1, false, 0], [0, true, 1], [2, false, 0], [3, false, 0], [4, false, 1]],"
  "\"memory_planner_allocator_offset\": {\"CLANG\": true}},"
  "\"expected\": null, \"error\": null}";

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

static TgVersion run_version = TG_0_10_0; /* the version run() gives its captures */

/* Schedules one capture given as JSON text, with `edit` applied to the text first. */
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
  r->cap.generation = run_version;
  r->cap.root = root;
  r->cap.context = json_get(root, "context");
  r->cap.input = json_get(root, "input");
  memset(&r->st, 0, sizeof r->st);
  r->ok = v0_10_schedule_capture(&r->cap, &r->arena, &r->result, &r->st);
  /* the input read from its text, as `tsched replay` reads it, schedules the same */
  size_t n = strlen(edited);
  char *padded = arena_alloc(&r->arena, n + JSON_PADDING), err[128];
  memcpy(padded, edited, n);
  JVal *raw_root = json_parse_capture(&r->arena, padded, n, JSON_RAW_INPUT, err, sizeof err);
  assert_non_null(raw_root);
  Capture from_text = r->cap;
  from_text.input = json_get(raw_root, "input");
  assert_int_equal(from_text.input->kind, J_RAW);
  Status st = {0};
  JVal *result = NULL;
  assert_int_equal(v0_10_schedule_capture(&from_text, &r->arena, &result, &st), r->ok);
  assert_int_equal(st.kind, r->st.kind);
  assert_string_equal(st.msg, r->st.msg);
  if (r->ok) {
    char *x = json_to_string(r->result, NULL), *y = json_to_string(result, NULL);
    assert_string_equal(x, y);
    free(x), free(y);
  }
}

static bool json_is(Arena *a, const JVal *v, const char *text) { return v && json_equal(v, parse(a, text)); }

static void contiguous_chain_gives_one_kernel_per_realize(void **state) {
  (void)state;
  Run r;
  run(&r, chain_of_contiguous, NULL, NULL);
  assert_true(r.ok);
  const JVal *sched = json_get(r.result, "schedule");
  assert_int_equal(sched->n, 4);
  /* each kernel stores one buffer and loads the one before it */
  assert_true(json_is(&r.arena, json_get(sched->u.arr[0], "bufs"), "[1, 0]"));
  assert_true(json_is(&r.arena, json_get(sched->u.arr[3], "bufs"), "[4, 3]"));
  const JVal *ast = json_get(sched->u.arr[0], "ast"), *nodes = json_get(ast, "nodes");
  const JVal *root = nodes->u.arr[json_get(ast, "roots")->u.arr[0]->u.i];
  assert_string_equal(root->u.arr[0]->u.s, "Ops.SINK");
  arena_free(&r.arena);
}

static void memory_planner_reuses_a_dead_buffer(void **state) {
  (void)state;
  Run r;
  run(&r, chain_of_contiguous, NULL, NULL);
  assert_true(r.ok);
  /* buffer 3 (d) is born after buffer 1 (b) died: it takes b's memory */
  assert_true(json_is(&r.arena, json_get(r.result, "memory_plan"), "[[3, 1]]"));
  assert_true(json_is(&r.arena, json_get(r.result, "memory_plan_buffers"), "[]"));
  arena_free(&r.arena);
  /* NO_MEMORY_PLANNER: the planner runs and replaces nothing */
  run(&r, chain_of_contiguous, "\"NO_MEMORY_PLANNER\": 0", "\"NO_MEMORY_PLANNER\": 1");
  assert_true(r.ok);
  assert_true(json_is(&r.arena, json_get(r.result, "memory_plan"), "[]"));
  arena_free(&r.arena);
}

static void without_forced_realizes_everything_fuses(void **state) {
  (void)state;
  Run r;
  /* b, c and d not contiguous(): e = a+1+1+1+1 is one kernel */
  char *t = malloc(strlen(chain_of_contiguous) + 1);
  assert_non_null(t);
  strcpy(t, chain_of_contiguous);
  for (char *p; (p = strstr(t, "\"forced_realize\": true"));) memcpy(p, "\"forced_realize\":false", 22);
  run(&r, t, NULL, NULL);
  free(t);
  assert_true(r.ok);
  assert_int_equal(json_get(r.result, "schedule")->n, 1);
  assert_true(json_is(&r.arena, json_get(json_get(r.result, "schedule")->u.arr[0], "bufs"), "[4, 0]"));
  arena_free(&r.arena);
}

static void self_operand_of_augmented_assign_must_be_contiguous(void **state) {
  (void)state;
  /* a = Tensor(...).realize(); a += a.T (test_assign.test_permuted_assignment) */
  static const char *text =
    "{\"name\": \"assign#0\", " CTX ", \"input\": {"
    "\"buffers\": [" BUF(4, true) ", " BUF(4, true) ", " BUF(4, false) "],"
    "\"lazybuffers\": ["
    "{\"device\": \"CLANG\", \"dtype\": \"float\", \"st\": {\"views\": [{\"shape\": [4], \"strides\": [1], \"offset\": 0, \"mask\": null, \"contiguous\": true}]},"
    " \"op\": \"Ops.COPY\", \"arg\": 16, \"srcs\": null, \"buffer\": 0, \"realized\": true, \"forced_realize\": true, \"metadata\": null},"
    "{\"device\": \"CLANG\", \"dtype\": \"float\", \"st\": {\"views\": [{\"shape\": [2, 2], \"strides\": [1, 2], \"offset\": 0, \"mask\": null, \"contiguous\": false}]}, \"base\": 0},"
    "{\"device\": \"CLANG\", \"dtype\": \"float\", \"st\": {\"views\": [{\"shape\": [4], \"strides\": [1], \"offset\": 0, \"mask\": null, \"contiguous\": true}]},"
    " \"op\": \"Ops.COPY\", \"arg\": 16, \"srcs\": null, \"buffer\": 1, \"realized\": true, \"forced_realize\": true, \"metadata\": null},"
    "{\"device\": \"CLANG\", \"dtype\": \"float\", \"st\": {\"views\": [{\"shape\": [2, 2], \"strides\": [2, 1], \"offset\": 0, \"mask\": null, \"contiguous\": true}]}, \"base\": 2},"
    "{\"device\": \"CLANG\", \"dtype\": \"float\", \"st\": {\"views\": [{\"shape\": [2, 2], \"strides\": [2, 1], \"offset\": 0, \"mask\": null, \"contiguous\": true}]},"
    " \"op\": \"Ops.ADD\", \"arg\": null, \"srcs\": [1, 3], \"buffer\": 2, \"realized\": false, \"forced_realize\": false, \"metadata\": null},"
    "{\"device\": \"CLANG\", \"dtype\": \"float\", \"st\": {\"views\": [{\"shape\": [2, 2], \"strides\": [2, 1], \"offset\": 0, \"mask\": null, \"contiguous\": true}]},"
    " \"op\": \"Ops.ASSIGN\", \"arg\": [{\"views\": [{\"shape\": [2, 2], \"strides\": [1, 2], \"offset\": 0, \"mask\": null, \"contiguous\": false}]}],"
    " \"srcs\": [0, 4], \"buffer\": 0, \"realized\": false, \"forced_realize\": false, \"metadata\": null}],"
    "\"outs\": [5], \"memory_planner_bufs\": null, \"memory_planner_allocator_offset\": {}},"
    "\"expected\": null, \"error\": null}";
  Run r;
  run(&r, text, NULL, NULL);
  assert_false(r.ok);
  assert_int_equal(r.st.kind, ST_RAISED);
  assert_string_equal(r.st.type, "RuntimeError");
  assert_non_null(strstr(r.st.msg, "self operand of augmented assign must be contiguous."));
  arena_free(&r.arena);
}

static void a_dangling_source_is_bad_input(void **state) {
  (void)state;
  Run r;
  run(&r, chain_of_contiguous, "\"srcs\": [3, 2]", "\"srcs\": [9, 2]");
  assert_false(r.ok);
  assert_int_equal(r.st.kind, ST_BAD_INPUT);
  assert_non_null(strstr(r.st.msg, "input.lazybuffers[4]"));
  arena_free(&r.arena);
  run(&r, chain_of_contiguous, "\"FUSE_ARANGE\": 0, ", "");
  assert_int_equal(r.st.kind, ST_BAD_INPUT);
  assert_non_null(strstr(r.st.msg, "FUSE_ARANGE"));
  arena_free(&r.arena);
}

/* a = Tensor.rand(3, 10).realize(); i = Variable("i", 1, 10).bind(4); a[:, :i].sum(1).schedule()
 * (workloads.symbolic_shapes#1): the kernel reads a through a view of shape (3, i), unbound in the AST,
 * and i's value comes back in var_vals */
static void a_bound_variable_is_unbound_into_var_vals(void **state) {
  (void)state;
#define VAR_I "{\"var\": \"i\", \"min\": 1, \"max\": 10, \"val\": 4}"
  static const char *text =
    "{\"name\": \"symbolic#1\", " CTX ", \"input\": {"
    "\"buffers\": [" BUF(30, true) ", " BUF(3, false) "],"
    "\"lazybuffers\": ["
    "{\"device\": \"CLANG\", \"dtype\": \"float\", \"st\": {\"views\": [{\"shape\": [3, 10], \"strides\": [10, 1], \"offset\": 0,"
    " \"mask\": null, \"contiguous\": true}]}, \"op\": \"Ops.COPY\", \"arg\": 120, \"srcs\": null, \"buffer\": 0, \"realized\": true,"
    " \"forced_realize\": true, \"metadata\": null},"
    "{\"device\": \"CLANG\", \"dtype\": \"float\", \"st\": {\"views\": [{\"shape\": [3, {\"sym\": " VAR_I "}], \"strides\": [10, 1],"
    " \"offset\": 0, \"mask\": null, \"contiguous\": false}]}, \"base\": 0},"
    "{\"device\": \"CLANG\", \"dtype\": \"float\", \"st\": {\"views\": [{\"shape\": [3, 1], \"strides\": [1, 0], \"offset\": 0,"
    " \"mask\": null, \"contiguous\": true}]}, \"op\": \"Ops.REDUCE_AXIS\", \"arg\": [\"Ops.ADD\", [1]], \"srcs\": [1], \"buffer\": 1,"
    " \"realized\": false, \"forced_realize\": false, \"metadata\": null},"
    "{\"device\": \"CLANG\", \"dtype\": \"float\", \"st\": {\"views\": [{\"shape\": [3], \"strides\": [1], \"offset\": 0,"
    " \"mask\": null, \"contiguous\": true}]}, \"base\": 2}],"
    "\"outs\": [3], \"memory_planner_bufs\": null, \"memory_planner_allocator_offset\": {}},"
    "\"expected\": null, \"error\": null}";
#undef VAR_I
  Run r;
  run(&r, text, NULL, NULL);
  assert_true(r.ok);
  const JVal *sched = json_get(r.result, "schedule");
  assert_int_equal(sched->n, 1);
  const JVal *nodes = json_get(json_get(sched->u.arr[0], "ast"), "nodes");
  assert_true(json_is(&r.arena, nodes->u.arr[3],
                      "[\"Ops.VIEW\", \"void\", {\"views\": [{\"shape\": [3, {\"sym\": {\"var\": \"i\", \"min\": 1, \"max\": 10}}],"
                      " \"strides\": [10, 1], \"offset\": 0, \"mask\": null, \"contiguous\": false}]}, []]"));
  assert_true(json_is(&r.arena, json_get(r.result, "var_vals"), "[[{\"var\": \"i\", \"min\": 1, \"max\": 10}, 4]]"));
  arena_free(&r.arena);
  /* a value outside the Variable's range: UOp.bind's assertion, the input is not a possible capture */
  run(&r, text, "\"val\": 4", "\"val\": 11");
  assert_false(r.ok);
  assert_int_equal(r.st.kind, ST_BAD_INPUT);
  arena_free(&r.arena);
}

/* a = Tensor([1.,2,3,4]).realize(); b = a + 1; c = b * 1; c.schedule(), with the
 * LazyBuffers' metadata (__add__, __mul__) */
static const char *metadata_chain =
  "{\"name\": \"metadata#0\", \"context\": {\"FUSE_ARANGE\": 0, \"FUSE_CONV_BW\": 0, \"NO_MEMORY_PLANNER\": 0,"
  " \"BUF_LIMIT:METAL\": 32, \"MERGE_VIEW\": 1}, \"input\": {"
  "\"buffers\": [" BUF(4, true) ", " BUF(4, false) ", " BUF(4, false) ", " BUF(1, false) "],"
  "\"lazybuffers\": ["
  "{\"device\": \"CLANG\", \"dtype\": \"float\", \"st\": " ST4 ", \"op\": \"Ops.COPY\", \"arg\": 16, \"srcs\": null, \"buffer\": 0,"
  " \"realized\": true, \"forced_realize\": false, \"metadata\": null},"
  "{\"device\": \"CLANG\", \"dtype\": \"float\", \"st\": " ST0 ", \"op\": \"Ops.CONST\", \"arg\": 1.0, \"srcs\": [], \"buffer\": 3,"
  " \"realized\": false, \"forced_realize\": false, \"metadata\": null},"
  "{\"device\": \"CLANG\", \"dtype\": \"float\", \"st\": " ST4X ", \"base\": 1},"
  "{\"device\": \"CLANG\", \"dtype\": \"float\", \"st\": " ST4 ", \"op\": \"Ops.ADD\", \"arg\": null, \"srcs\": [0, 2], \"buffer\": 1,"
  " \"realized\": false, \"forced_realize\": false, \"metadata\": \"__add__\"},"
  "{\"device\": \"CLANG\", \"dtype\": \"float\", \"st\": " ST4 ", \"op\": \"Ops.MUL\", \"arg\": null, \"srcs\": [3, 2], \"buffer\": 2,"
  " \"realized\": false, \"forced_realize\": false, \"metadata\": \"__mul__\"}],"
  "\"outs\": [4], \"memory_planner_bufs\": null, \"memory_planner_allocator_offset\": {}},"
  "\"expected\": null, \"error\": null}";

/* One kernel computes c. Its metadata in 0.10.0: every fused buffer's
 * (__add__ and __mul__). In 2ca41d6 (metadata_of_ops): the output's, and
 * the ops_metadata of the ops `lazy` meets unchanged; the ADD reads the
 * realized a, whose VIEW(BUFFER) lazy turns into a LOAD, so the ADD is a new
 * node and its __add__ is lost: tinygrad at 2ca41d6 says ['__mul__'] too. */
static void kernel_metadata_per_version(void **state) {
  (void)state;
  Run r;
  run(&r, metadata_chain, NULL, NULL);
  assert_true(r.ok);
  const JVal *sched = json_get(r.result, "schedule");
  assert_int_equal(sched->n, 1);
  assert_true(json_is(&r.arena, json_get(sched->u.arr[0], "metadata"), "[\"__add__\", \"__mul__\"]"));
  arena_free(&r.arena);
  run_version = TG_0_10_0_2CA41D6;
  run(&r, metadata_chain, NULL, NULL);
  run_version = TG_0_10_0;
  assert_true(r.ok);
  sched = json_get(r.result, "schedule");
  assert_int_equal(sched->n, 1);
  assert_true(json_is(&r.arena, json_get(sched->u.arr[0], "metadata"), "[\"__mul__\"]"));
  arena_free(&r.arena);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(contiguous_chain_gives_one_kernel_per_realize),
    cmocka_unit_test(memory_planner_reuses_a_dead_buffer),
    cmocka_unit_test(without_forced_realizes_everything_fuses),
    cmocka_unit_test(self_operand_of_augmented_assign_must_be_contiguous),
    cmocka_unit_test(a_dangling_source_is_bad_input),
    cmocka_unit_test(a_bound_variable_is_unbound_into_var_vals),
    cmocka_unit_test(kernel_metadata_per_version),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
