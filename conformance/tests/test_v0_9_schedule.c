/* test_v0_9_schedule.c — behaviour of the 0.9.1 scheduler on small
 * hand-written LazyBuffer graphs: what fuses, what realizes, the kernel
 * order, the memory plan, the copy kernel, the errors tinygrad raises and
 * the inputs it refuses. */
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

/* ---- building captures ---- */

#define VIEW(shape, strides, contig) \
  "{\"views\":[{\"shape\":" shape ",\"strides\":" strides ",\"offset\":0,\"mask\":null,\"contiguous\":" contig "}]}"
#define ST_SCALAR VIEW("[]", "[]", "true")
#define ST_1 VIEW("[1]", "[0]", "true")
#define ST_4 VIEW("[4]", "[1]", "true")
#define ST_4_FROM_1 VIEW("[4]", "[0]", "false")
#define ST_4_FROM_SCALAR VIEW("[4]", "[0]", "false")
#define ST_22 VIEW("[2,2]", "[2,1]", "true")
#define ST_22_T VIEW("[2,2]", "[1,2]", "false")
#define ST_22_FROM_SCALAR VIEW("[2,2]", "[0,0]", "false")

#define BUF(dev, size, alloc, refc)                                                                       \
  "{\"device\":\"" dev "\",\"size\":" #size ",\"dtype\":\"float\",\"allocated\":" alloc ",\"base\":null," \
  "\"offset\":0,\"options\":null,\"lb_refcount\":" #refc "}"
#define BASE(dev, st, op, arg, srcs, buf, realized)                                                    \
  "{\"device\":\"" dev "\",\"dtype\":\"float\",\"st\":" st ",\"op\":\"" op "\",\"arg\":" arg ",\"srcs\":" \
  srcs ",\"buffer\":" #buf ",\"realized\":" realized ",\"forced_realize\":false,\"metadata\":null}"
#define INPUT_BASE(dev, st, buf) BASE(dev, st, "LoadOps.EMPTY", "null", "null", buf, "true")
#define VIEW_LB(st, base) "{\"device\":\"CLANG\",\"dtype\":\"float\",\"st\":" st ",\"base\":" #base "}"

#define CONTEXT(copy_kernel) "{\"MULTIOUTPUT\":1,\"USE_COPY_KERNEL\":" #copy_kernel ",\"NO_MEMORY_PLANNER\":0}"
#define INPUT(bufs, lbs, outs, planner)                                                                       \
  "{\"buffers\":[" bufs "],\"lazybuffers\":[" lbs "],\"outs\":" outs ",\"seen\":[],"                          \
  "\"set_orders\":{\"simple_pads\":[],\"parents_assigns\":[]},\"memory_planner_bufs\":" planner "}"

static JVal *parse(Arena *a, const char *text) {
  char err[128];
  JVal *v = json_parse_text(a, text, err, sizeof err);
  if (!v) fail_msg("test JSON does not parse: %s", err);
  return v;
}

/* `text` left unparsed, as `tsched replay` leaves a capture's input (J_RAW) */
static JVal *raw_text(Arena *a, const char *text) {
  size_t n = strlen(text);
  char *copy = arena_alloc(a, n + JSON_PADDING); /* zeroed */
  memcpy(copy, text, n);
  JVal *v = arena_alloc(a, sizeof *v);
  *v = (JVal){.kind = J_RAW, .n = (uint32_t)n, .u.s = copy};
  return v;
}

static JVal *schedule_input(Arena *a, const char *context, const JVal *input, Status *st) {
  Capture c = {.file = "test", .line = 1, .name = "test", .generation = TG_0_9_1, .generation_known = true};
  c.context = parse(a, context);
  c.input = input;
  memset(st, 0, sizeof *st);
  JVal *result = NULL;
  bool ok = v0_9_schedule_capture(&c, a, &result, st);
  return ok ? result : NULL;
}

/* Schedule `input` under `context`; returns the result (NULL on an error,
 * then st says why). The input is scheduled from its tree and from its
 * text: both must give the same result or the same error. */
static JVal *schedule(Arena *a, const char *context, const char *input, Status *st) {
  Status from_text;
  JVal *got = schedule_input(a, context, parse(a, input), st);
  JVal *got_text = schedule_input(a, context, raw_text(a, input), &from_text);
  assert_int_equal(st->kind, from_text.kind);
  assert_string_equal(st->msg, from_text.msg);
  if (got) {
    assert_non_null(got_text);
    char *x = json_to_string(got, NULL), *y = json_to_string(got_text, NULL);
    assert_string_equal(x, y);
    free(x), free(y);
  }
  return got;
}

/* The result must equal `expected` (the contract's comparator). */
static void assert_schedule(Arena *a, JVal *got, const char *expected) {
  assert_non_null(got);
  char why[1024] = "";
  if (!compare_expected(a, TG_0_9_1, parse(a, expected), got, why, sizeof why)) fail_msg("%s", why);
}

#define NO_PLAN "\"var_vals\":[],\"memory_plan\":null,\"memory_plan_buffers\":null," \
                "\"mutations\":{\"lazybuffers\":[],\"buffers\":[]}"
#define MEMBUF(i, st) "{\"MemBuffer\":[" #i ",\"float\"," st "]}"

/* ---- fusion ---- */

static void elementwise_ops_fuse_into_one_kernel(void **state) {
  (void)state;
  Arena a;
  arena_init(&a);
  Status st;
  /* c = (a + b) * a: one kernel reading a and b */
  JVal *got = schedule(&a, CONTEXT(0),
                       INPUT(BUF("CLANG", 4, "true", 1) "," BUF("CLANG", 4, "true", 1) "," BUF("CLANG", 4, "false", 1)
                             "," BUF("CLANG", 4, "false", 1),
                             INPUT_BASE("CLANG", ST_4, 0) "," INPUT_BASE("CLANG", ST_4, 1) ","
                             BASE("CLANG", ST_4, "BinaryOps.ADD", "null", "[0,1]", 2, "false") ","
                             BASE("CLANG", ST_4, "BinaryOps.MUL", "null", "[2,0]", 3, "false"),
                             "[3]", "null"),
                       &st);
  assert_schedule(&a, got,
                  "{\"schedule\":[{\"ast\":{\"nodes\":["
                  "[\"BufferOps.LOAD\",null," MEMBUF(1, ST_4) ",[]],"
                  "[\"BufferOps.LOAD\",null," MEMBUF(2, ST_4) ",[]],"
                  "[\"BinaryOps.ADD\",null,null,[0,1]],"
                  "[\"BinaryOps.MUL\",null,null,[2,0]],"
                  "[\"BufferOps.STORE\",null," MEMBUF(0, ST_4) ",[3]]],\"roots\":[4]},"
                  "\"bufs\":[3,0,1],\"metadata\":[]}]," NO_PLAN "}");
  arena_free(&a);
}

static void a_reduce_fuses_with_its_elementwise_child(void **state) {
  (void)state;
  Arena a;
  arena_init(&a);
  Status st;
  /* exp2(sum(a)): the STORE uses the reduce's output shape */
  JVal *got = schedule(&a, CONTEXT(0),
                       INPUT(BUF("CLANG", 4, "true", 1) "," BUF("CLANG", 1, "false", 1) "," BUF("CLANG", 1, "false", 1),
                             INPUT_BASE("CLANG", ST_4, 0) ","
                             BASE("CLANG", ST_1, "ReduceOps.SUM", "[0]", "[0]", 1, "false") ","
                             BASE("CLANG", ST_1, "UnaryOps.EXP2", "null", "[1]", 2, "false"),
                             "[2]", "null"),
                       &st);
  assert_schedule(&a, got,
                  "{\"schedule\":[{\"ast\":{\"nodes\":["
                  "[\"BufferOps.LOAD\",null," MEMBUF(1, ST_4) ",[]],"
                  "[\"ReduceOps.SUM\",null,[0],[0]],"
                  "[\"UnaryOps.EXP2\",null,null,[1]],"
                  "[\"BufferOps.STORE\",null," MEMBUF(0, ST_1) ",[2]]],\"roots\":[3]},"
                  "\"bufs\":[2,0],\"metadata\":[]}]," NO_PLAN "}");
  arena_free(&a);
}

/* sum(a) expanded back to a's shape and added to a: the expand realizes the sum. */
#define EXPAND_GRAPH(planner)                                                                                    \
  INPUT(BUF("CLANG", 4, "true", 1) "," BUF("CLANG", 1, "false", 0) "," BUF("CLANG", 4, "false", 1),             \
        INPUT_BASE("CLANG", ST_4, 0) "," BASE("CLANG", ST_1, "ReduceOps.SUM", "[0]", "[0]", 1, "false") "," \
        VIEW_LB(ST_4_FROM_1, 1) "," BASE("CLANG", ST_4, "BinaryOps.ADD", "null", "[2,0]", 2, "false"),      \
        "[3]", planner)
#define EXPAND_KERNELS                                                                                           \
  "{\"ast\":{\"nodes\":[[\"BufferOps.LOAD\",null," MEMBUF(1, ST_4) ",[]],[\"ReduceOps.SUM\",null,[0],[0]],"    \
  "[\"BufferOps.STORE\",null," MEMBUF(0, ST_1) ",[1]]],\"roots\":[2]},\"bufs\":[1,0],\"metadata\":[]},"       \
  "{\"ast\":{\"nodes\":[[\"BufferOps.LOAD\",null," MEMBUF(1, ST_4_FROM_1) ",[]],"                              \
  "[\"BufferOps.LOAD\",null," MEMBUF(2, ST_4) ",[]],[\"BinaryOps.ADD\",null,null,[0,1]],"                    \
  "[\"BufferOps.STORE\",null," MEMBUF(0, ST_4) ",[2]]],\"roots\":[3]},\"bufs\":[2,1,0],\"metadata\":[]}"

static void an_expand_realizes_its_base_first(void **state) {
  (void)state;
  Arena a;
  arena_init(&a);
  Status st;
  JVal *got = schedule(&a, CONTEXT(0), EXPAND_GRAPH("null"), &st);
  assert_schedule(&a, got, "{\"schedule\":[" EXPAND_KERNELS "]," NO_PLAN "}");
  arena_free(&a);
}

/* exp2(sum(a)) and log2(sum(a)): both children pair with the reduce; under
 * MULTIOUTPUT they are one kernel with two STOREs, else two kernels. */
#define TWO_CHILDREN(multi)                                                                                      \
  "{\"MULTIOUTPUT\":" #multi ",\"USE_COPY_KERNEL\":0,\"NO_MEMORY_PLANNER\":0}",                              \
      INPUT(BUF("CLANG", 4, "true", 1) "," BUF("CLANG", 1, "false", 1) "," BUF("CLANG", 1, "false", 1) ","      \
            BUF("CLANG", 1, "false", 1),                                                                         \
            INPUT_BASE("CLANG", ST_4, 0) "," BASE("CLANG", ST_1, "ReduceOps.SUM", "[0]", "[0]", 1, "false") "," \
            BASE("CLANG", ST_1, "UnaryOps.EXP2", "null", "[1]", 2, "false") ","                                 \
            BASE("CLANG", ST_1, "UnaryOps.LOG2", "null", "[1]", 3, "false"),                                    \
            "[2,3]", "null")
#define SUM_OF_INPUT(i) "[\"BufferOps.LOAD\",null," MEMBUF(i, ST_4) ",[]],[\"ReduceOps.SUM\",null,[0],[0]],"

static void children_of_a_reduce_share_its_kernel_under_multioutput(void **state) {
  (void)state;
  Arena a;
  arena_init(&a);
  Status st;
  JVal *got = schedule(&a, TWO_CHILDREN(1), &st);
  assert_schedule(&a, got,
                  "{\"schedule\":[{\"ast\":{\"nodes\":[" SUM_OF_INPUT(2)
                  "[\"UnaryOps.EXP2\",null,null,[1]],[\"BufferOps.STORE\",null," MEMBUF(0, ST_1) ",[2]],"
                  "[\"UnaryOps.LOG2\",null,null,[1]],[\"BufferOps.STORE\",null," MEMBUF(1, ST_1) ",[4]]],"
                  "\"roots\":[3,5]},\"bufs\":[2,3,0],\"metadata\":[]}]," NO_PLAN "}");
  got = schedule(&a, TWO_CHILDREN(0), &st);
  assert_schedule(&a, got,
                  "{\"schedule\":[{\"ast\":{\"nodes\":[" SUM_OF_INPUT(1)
                  "[\"UnaryOps.EXP2\",null,null,[1]],[\"BufferOps.STORE\",null," MEMBUF(0, ST_1) ",[2]]],"
                  "\"roots\":[3]},\"bufs\":[2,0],\"metadata\":[]},"
                  "{\"ast\":{\"nodes\":[" SUM_OF_INPUT(1)
                  "[\"UnaryOps.LOG2\",null,null,[1]],[\"BufferOps.STORE\",null," MEMBUF(0, ST_1) ",[2]]],"
                  "\"roots\":[3]},\"bufs\":[3,0],\"metadata\":[]}]," NO_PLAN "}");
  arena_free(&a);
}

/* ---- the image-dtype fallback ---- */

#define IMG "imagef((1, 3, 5))"
#define ST_1x15 VIEW("[1,15]", "[0,1]", "true")
#define ST_1x15_FROM_SCALAR VIEW("[1,15]", "[0,0]", "false")
#define IMG_BUF(size)                                                                                             \
  "{\"device\":\"CLANG\",\"size\":" #size ",\"dtype\":\"" IMG "\",\"allocated\":false,\"base\":null,\"offset\":0," \
  "\"options\":{\"image\":\"" IMG "\",\"uncached\":false,\"cpu_access\":false,\"host\":false,\"nolru\":false,"  \
  "\"external_ptr\":false},\"lb_refcount\":1}"
#define IMG_BASE(st, op, arg, srcs, buf)                                                                       \
  "{\"device\":\"CLANG\",\"dtype\":\"" IMG "\",\"st\":" st ",\"op\":\"" op "\",\"arg\":" arg ",\"srcs\":" srcs \
  ",\"buffer\":" #buf ",\"realized\":false,\"forced_realize\":false,\"metadata\":null}"

static void an_image_that_cannot_be_an_image_becomes_float(void **state) {
  (void)state;
  Arena a;
  arena_init(&a);
  Status st;
  /* x.cast(imagef((1, 3, 5))) * 2: shape (1, 15) has no unit-stride axis divisible by 4, so the
   * output LazyBuffer and its Buffer become float and the Buffer loses its image options */
  JVal *got = schedule(&a, CONTEXT(0),
                       INPUT(BUF("CLANG", 15, "true", 1) "," IMG_BUF(1) "," IMG_BUF(15) "," IMG_BUF(15),
                             INPUT_BASE("CLANG", ST_1x15, 0) ","
                             IMG_BASE(ST_1x15, "UnaryOps.CAST", "\"" IMG "\"", "[0]", 2) ","
                             IMG_BASE(ST_SCALAR, "LoadOps.CONST", "2.0", "[]", 1) ","
                             "{\"device\":\"CLANG\",\"dtype\":\"" IMG "\",\"st\":" ST_1x15_FROM_SCALAR ",\"base\":2},"
                             IMG_BASE(ST_1x15, "BinaryOps.MUL", "null", "[1,3]", 3),
                             "[4]", "null"),
                       &st);
  assert_schedule(&a, got,
                  "{\"schedule\":[{\"ast\":{\"nodes\":["
                  "[\"BufferOps.LOAD\",null," MEMBUF(1, ST_1x15) ",[]],"
                  "[\"UnaryOps.CAST\",null,\"" IMG "\",[0]],"
                  "[\"BufferOps.CONST\",null,{\"ConstBuffer\":[2.0,\"" IMG "\"," ST_1x15_FROM_SCALAR "]},[]],"
                  "[\"BinaryOps.MUL\",null,null,[1,2]],"
                  "[\"BufferOps.STORE\",null," MEMBUF(0, ST_1x15) ",[3]]],\"roots\":[4]},"
                  "\"bufs\":[3,0],\"metadata\":[]}],\"var_vals\":[],\"memory_plan\":null,\"memory_plan_buffers\":null,"
                  "\"mutations\":{\"lazybuffers\":[[4,\"float\"]],\"buffers\":[[3,\"float\",null]]}}");
  arena_free(&a);
}

/* ---- memory planner ---- */

static void the_memory_planner_replaces_buffers_nobody_holds(void **state) {
  (void)state;
  Arena a;
  arena_init(&a);
  Status st;
  /* the sum's buffer has lb_refcount 0 and is not allocated: it becomes plan:0 */
  JVal *got = schedule(&a, CONTEXT(0), EXPAND_GRAPH("[[1,false,0],[0,true,1],[2,false,1]]"), &st);
  assert_schedule(&a, got,
                  "{\"schedule\":[" EXPAND_KERNELS "],\"var_vals\":[],\"memory_plan\":[[1,\"plan:0\"]],"
                  "\"memory_plan_buffers\":[{\"device\":\"CLANG\",\"size\":1,\"dtype\":\"float\",\"base\":null,"
                  "\"offset\":0,\"options\":null}],\"mutations\":{\"lazybuffers\":[],\"buffers\":[]}}");
  arena_free(&a);
}

/* ---- single-op kernels ---- */

#define COPY_GRAPH                                                                          \
  INPUT(BUF("CLANG:1", 4, "true", 1) "," BUF("CLANG", 4, "false", 1),                     \
        INPUT_BASE("CLANG:1", ST_4, 0) "," BASE("CLANG", ST_4, "LoadOps.COPY", "16", "[0]", 1, "false"), \
        "[1]", "null")

static void a_copy_is_its_own_kernel_or_a_copy_kernel(void **state) {
  (void)state;
  Arena a;
  arena_init(&a);
  Status st;
  JVal *got = schedule(&a, CONTEXT(0), COPY_GRAPH, &st);
  assert_schedule(&a, got,
                  "{\"schedule\":[{\"ast\":{\"nodes\":[[\"LoadOps.COPY\",null,16,[]]],\"roots\":[0]},"
                  "\"bufs\":[1,0],\"metadata\":[]}]," NO_PLAN "}");
  /* USE_COPY_KERNEL: CLANG:1 -> CLANG is the same device kind, so a uchar load/store kernel */
  got = schedule(&a, CONTEXT(1), COPY_GRAPH, &st);
#define ST_16 VIEW("[16]", "[1]", "true")
  assert_schedule(&a, got,
                  "{\"schedule\":[{\"ast\":{\"nodes\":[[\"BufferOps.LOAD\",null,{\"MemBuffer\":[1,\"uchar\"," ST_16
                  "]},[]],[\"BufferOps.STORE\",null,{\"MemBuffer\":[0,\"uchar\"," ST_16 "]},[0]]],\"roots\":[1]},"
                  "\"bufs\":[1,0],\"metadata\":[]}]," NO_PLAN "}");
  arena_free(&a);
}

/* ---- errors tinygrad raises ---- */

/* Scheduling `input` raises `type` with a message starting with `message`. */
static void expect_raise(const char *input, const char *type, const char *message) {
  Arena a;
  arena_init(&a);
  Status st;
  assert_null(schedule(&a, CONTEXT(0), input, &st));
  assert_int_equal(st.kind, ST_RAISED);
  assert_string_equal(st.type, type);
  if (strncmp(st.msg, message, strlen(message)) != 0) fail_msg("\"%s\" does not start with \"%s\"", st.msg, message);
  arena_free(&a);
}

static void assigning_through_a_transpose_of_itself_raises(void **state) {
  (void)state;
  /* t += t.T + 1: the target is read through a non-contiguous view */
  expect_raise(INPUT(BUF("CLANG", 4, "true", 2) "," BUF("CLANG", 1, "false", 1) "," BUF("CLANG", 4, "false", 1),
               INPUT_BASE("CLANG", ST_22, 0) "," VIEW_LB(ST_22_T, 0) ","
               BASE("CLANG", ST_SCALAR, "LoadOps.CONST", "1.0", "[]", 1, "false") ","
               VIEW_LB(ST_22_FROM_SCALAR, 2) ","
               BASE("CLANG", ST_22, "BinaryOps.ADD", "null", "[1,3]", 2, "false") ","
               BASE("CLANG", ST_22, "LoadOps.ASSIGN", "[]", "[4,0]", 0, "false"),
               "[5]", "null"),
               "RuntimeError", "self operand of augmented assign must be contiguous.\n");
}

static void assigning_to_an_unrealized_buffer_raises(void **state) {
  (void)state;
  /* the target of the ASSIGN is a CONTIGUOUS not realized yet (lazy.py never builds this) */
  expect_raise(INPUT(BUF("CLANG", 4, "true", 1) "," BUF("CLANG", 4, "false", 2) "," BUF("CLANG", 4, "false", 1),
               INPUT_BASE("CLANG", ST_4, 0) ","
               BASE("CLANG", ST_4, "LoadOps.CONTIGUOUS", "null", "[0]", 1, "false") ","
               BASE("CLANG", ST_4, "UnaryOps.EXP2", "null", "[0]", 2, "false") ","
               BASE("CLANG", ST_4, "LoadOps.ASSIGN", "[]", "[2,1]", 1, "false"),
               "[3]", "null"),
               "AssertionError", "assign must be already realized to schedule <LB CLANG (4,) float (<LoadOps.CONTIGUOUS: 4>, None)>");
}

static void crossed_assigns_are_a_cycle(void **state) {
  (void)state;
  /* a += b; b += a + 9 (test_assign.test_crossunder_assign): each kernel must run before the other */
  expect_raise(INPUT(BUF("CLANG", 4, "true", 2) "," BUF("CLANG", 4, "true", 2) "," BUF("CLANG", 4, "false", 1)
               "," BUF("CLANG", 1, "false", 1) "," BUF("CLANG", 4, "false", 1) "," BUF("CLANG", 4, "false", 1),
               BASE("CLANG", ST_4, "LoadOps.CONTIGUOUS", "null", "null", 0, "true") ","
               BASE("CLANG", ST_4, "LoadOps.CONTIGUOUS", "null", "null", 1, "true") ","
               BASE("CLANG", ST_4, "BinaryOps.ADD", "null", "[0,1]", 2, "false") ","
               BASE("CLANG", ST_4, "LoadOps.ASSIGN", "[]", "[2,0]", 0, "false") ","
               BASE("CLANG", ST_SCALAR, "LoadOps.CONST", "9.0", "[]", 3, "false") ","
               VIEW_LB(ST_4_FROM_SCALAR, 4) ","
               BASE("CLANG", ST_4, "BinaryOps.ADD", "null", "[0,5]", 4, "false") ","
               BASE("CLANG", ST_4, "BinaryOps.ADD", "null", "[1,6]", 5, "false") ","
               BASE("CLANG", ST_4, "LoadOps.ASSIGN", "[]", "[7,1]", 1, "false"),
               "[3,8]", "null"),
               "RuntimeError", "cycle detected in graph, prescheduled 2 but only scheduled 0");
}

/* ---- inputs it refuses ---- */

static void expect_bad_input(const char *input, const char *needle) {
  Arena a;
  arena_init(&a);
  Status st;
  assert_null(schedule(&a, CONTEXT(0), input, &st));
  assert_int_equal(st.kind, ST_BAD_INPUT);
  if (!strstr(st.msg, needle)) fail_msg("\"%s\" does not say \"%s\"", st.msg, needle);
  arena_free(&a);
}

static void malformed_graphs_are_bad_input(void **state) {
  (void)state;
  /* a source index past the end */
  expect_bad_input(INPUT(BUF("CLANG", 4, "true", 1),
                         BASE("CLANG", ST_4, "UnaryOps.EXP2", "null", "[7]", 0, "false"), "[0]", "null"),
                   "dangling index");
  /* a source that is not earlier in post-order */
  expect_bad_input(INPUT(BUF("CLANG", 4, "true", 1) "," BUF("CLANG", 4, "true", 1),
                         BASE("CLANG", ST_4, "UnaryOps.EXP2", "null", "[1]", 0, "false") "," INPUT_BASE("CLANG", ST_4, 1),
                         "[0]", "null"),
                   "not earlier in post-order");
  /* a buffer of absurd size */
  expect_bad_input(INPUT(BUF("CLANG", 99999999999999999, "true", 1), INPUT_BASE("CLANG", ST_4, 0), "[0]", "null"),
                   "absurd size");
  /* an out that does not exist */
  expect_bad_input(INPUT(BUF("CLANG", 4, "true", 1), INPUT_BASE("CLANG", ST_4, 0), "[3]", "null"), "outs");
  /* a buffer op that a LazyBuffer cannot have */
  expect_bad_input(INPUT(BUF("CLANG", 4, "true", 1), BASE("CLANG", ST_4, "BufferOps.LOAD", "null", "null", 0, "true"),
                         "[0]", "null"),
                   "not a LazyBuffer op");
}

/* Read from its text, an input decodes as its tree does, however its JSON
 * is spelled; a text with more than one fault gets the tree's verdict. */
static void an_input_reads_the_same_from_its_text(void **state) {
  (void)state;
  Arena a;
  arena_init(&a);
  Status st;
  const char *plain = INPUT(BUF("CLANG", 4, "true", 1), INPUT_BASE("CLANG", ST_4, 0), "[0]", "null");
  JVal *want = schedule(&a, CONTEXT(0), plain, &st);
  assert_non_null(want);
  const char *spelled[] = {
    /* spaces, an escaped key, the members in another order, a member no version reads */
    "{ \"lazybuffers\" : [ {\"dtype\":\"float\",\"device\":\"CLANG\",\"st\":" ST_4 ",\"op\":\"LoadOps.EMPTY\","
    "\"arg\":null,\"srcs\":null,\"buffer\":0,\"realized\":true,\"forced_realize\":false,\"metadata\":null,"
    "\"note\":[1,{\"x\":2}]} ] , \"outs\":[0],\"seen\":[],"
    "\"set_orders\":{\"simple_pads\":[],\"parents_assigns\":[]},\"memory_planner_bufs\":null,"
    "\"buff\\u0065rs\":[" BUF("CLANG", 4, "true", 1) "]}",
  };
  for (size_t i = 0; i < sizeof spelled / sizeof *spelled; i++) {
    char *x = json_to_string(want, NULL), *y = json_to_string(schedule(&a, CONTEXT(0), spelled[i], &st), NULL);
    assert_string_equal(x, y);
    free(x), free(y);
  }
  /* a dangling source first, then text that is not JSON: the text's fault is named */
  const char *two_faults = "{\"buffers\":[" BUF("CLANG", 4, "true", 1) "],\"lazybuffers\":["
                           BASE("CLANG", ST_4, "UnaryOps.EXP2", "null", "[7]", 0, "false") "],\"outs\":[0,]}";
  assert_null(schedule_input(&a, CONTEXT(0), raw_text(&a, two_faults), &st));
  assert_int_equal(st.kind, ST_BAD_INPUT);
  if (!strstr(st.msg, "malformed JSON")) fail_msg("\"%s\" does not name the JSON", st.msg);
  /* a key twice in an entry */
  const char *twice = INPUT(BUF("CLANG", 4, "true", 1),
                            "{\"device\":\"CLANG\",\"device\":\"CLANG\",\"dtype\":\"float\",\"st\":" ST_4 ",\"base\":0}",
                            "[0]", "null");
  assert_null(schedule_input(&a, CONTEXT(0), raw_text(&a, twice), &st));
  if (!strstr(st.msg, "appears twice")) fail_msg("\"%s\" does not name the key twice", st.msg);
  arena_free(&a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(elementwise_ops_fuse_into_one_kernel),
    cmocka_unit_test(a_reduce_fuses_with_its_elementwise_child),
    cmocka_unit_test(an_expand_realizes_its_base_first),
    cmocka_unit_test(children_of_a_reduce_share_its_kernel_under_multioutput),
    cmocka_unit_test(an_image_that_cannot_be_an_image_becomes_float),
    cmocka_unit_test(the_memory_planner_replaces_buffers_nobody_holds),
    cmocka_unit_test(a_copy_is_its_own_kernel_or_a_copy_kernel),
    cmocka_unit_test(assigning_through_a_transpose_of_itself_raises),
    cmocka_unit_test(assigning_to_an_unrealized_buffer_raises),
    cmocka_unit_test(crossed_assigns_are_a_cycle),
    cmocka_unit_test(malformed_graphs_are_bad_input),
    cmocka_unit_test(an_input_reads_the_same_from_its_text),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
