/* test_replay.c — the replayer's verdicts when the schedule is compared item
 * by item while it is encoded (a ScheduleCompare as the ResultSink): a
 * wrong expected item fails with the first difference, the message the
 * whole-tree comparison (compare_expected) gives; the item count is still
 * checked; expected items the reader left as text (J_RAW) are parsed on
 * the way (and so are 0.10.2's becomes_map and new_buffers entries, which
 * are compared entry by entry while encoded too). Captures: the first one with three or more schedule items of
 * each conformance/tests/tools/vX-sample.jsonl.gz (argv[1] is that folder). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compare.h"
#include "replay.h"
#include "conformance/schedulers.h"

static const char *tools_dir;

/* A capture of generation `v` with 3+ schedule items that passes, its line
 * parsed into a (the reader r stays open: the capture points into it). */
static Capture load(CaptureReader *r, Arena *a, const char *v) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s-sample.jsonl.gz", tools_dir, v);
  Status st;
  if (!capture_reader_open(r, path, &st)) fail_msg("%s", st.msg);
  Capture c;
  while (capture_reader_next(r, a, &c, &st)) {
    const JVal *s = json_get(c.expected, "schedule");
    if (st.kind != ST_OK || !s || s->kind != J_ARR || s->n < 3) continue;
    Outcome o;
    replay_capture(&c, a, &o);
    assert_int_equal(o.kind, OUT_PASS);
    return c;
  }
  fail_msg("%s has no capture with 3 schedule items", path);
  return c;
}

/* A fresh, changeable copy of v */
static JVal *copy(Arena *a, const JVal *v) {
  char err[128], *text = json_to_string(v, NULL);
  JVal *j = json_parse_text(a, text, err, sizeof err);
  free(text);
  assert_non_null(j);
  return j;
}

/* c's expected object with schedule item k replaced by `item` (NULL: left
 * out, with the items after it), or with `extra` appended */
static JVal *expected_with(Arena *a, const Capture *c, size_t k, const JVal *item, const JVal *extra) {
  JVal *e = json_obj(a), *items = json_arr(a);
  const JVal *s = json_get(c->expected, "schedule");
  for (size_t i = 0; i < s->n; i++) {
    if (i == k && !item) break;
    json_push(a, items, (JVal *)(i == k ? item : s->u.arr[i]));
  }
  if (extra) json_push(a, items, (JVal *)extra);
  for (size_t i = 0; i < c->expected->n; i++) {
    const JMember *m = &c->expected->u.obj[i];
    json_set(a, e, m->key, strcmp(m->key, "schedule") == 0 ? items : m->val);
  }
  return e;
}

/* v as a J_RAW value: its text in a buffer with the parser's padding */
static JVal *raw(Arena *a, const JVal *v) {
  size_t n;
  char *text = json_to_string(v, &n);
  char *buf = arena_alloc(a, n + JSON_PADDING);
  memcpy(buf, text, n);
  free(text);
  JVal *j = arena_alloc(a, sizeof *j);
  *j = (JVal){.kind = J_RAW, .n = (uint32_t)n, .u.s = buf};
  return j;
}

/* The replayer's verdict on c against `expected` (sink path), and the
 * whole-tree comparison's message for the same result (no sink). */
static OutcomeKind verdicts(Arena *a, const Capture *c, const JVal *expected, char *sunk, char *whole, size_t len) {
  Capture changed = *c;
  changed.expected = expected;
  Outcome o;
  replay_capture(&changed, a, &o);
  snprintf(sunk, len, "%s", o.why);
  JVal *result = NULL;
  Status st = {0};
  assert_null(result_sink());
  assert_true(scheduler_for(c->generation)(c, a, &result, &st));
  assert_non_null(json_get(result, "schedule"));
  whole[0] = 0;
  compare_expected(a, c->generation, expected, result, whole, len);
  return o.kind;
}

/* item 1 with its AST's last node given another op */
static JVal *wrong_ast(Arena *a, const Capture *c) {
  JVal *item = copy(a, json_get(c->expected, "schedule")->u.arr[1]);
  const JVal *nodes = json_get(json_get(item, "ast"), "nodes");
  JVal *last = nodes->u.arr[nodes->n - 1];
  last->u.arr[0] = json_str(a, "NOT_AN_OP");
  return item;
}

static void check_generation(const char *v) {
  CaptureReader r;
  Arena a;
  arena_init(&a);
  Capture c = load(&r, &a, v);
  const JVal *s = json_get(c.expected, "schedule");
  char sunk[2048], whole[2048];

  /* a wrong AST in item 1: the same first difference both ways */
  JVal *bad = wrong_ast(&a, &c);
  assert_int_equal(verdicts(&a, &c, expected_with(&a, &c, 1, bad, NULL), sunk, whole, sizeof sunk), OUT_FAIL);
  assert_string_equal(sunk, whole);
  assert_non_null(strstr(sunk, "schedule item 1 ast: "));
  assert_non_null(strstr(sunk, "NOT_AN_OP"));

  /* the same item left as text by the reader */
  char raw_why[2048];
  assert_int_equal(verdicts(&a, &c, expected_with(&a, &c, 1, raw(&a, bad), NULL), raw_why, whole, sizeof raw_why), OUT_FAIL);
  assert_string_equal(raw_why, sunk);
  assert_string_equal(whole, sunk);

  /* the right item as text passes */
  assert_int_equal(verdicts(&a, &c, expected_with(&a, &c, 1, raw(&a, s->u.arr[1]), NULL), sunk, whole, sizeof sunk), OUT_PASS);
  assert_string_equal(whole, "");

  /* the right item as text with its members in another order passes */
  const JVal *right = s->u.arr[1];
  JVal *reversed = json_obj(&a);
  for (size_t i = right->n; i-- > 0;) json_set(&a, reversed, right->u.obj[i].key, right->u.obj[i].val);
  assert_int_equal(verdicts(&a, &c, expected_with(&a, &c, 1, raw(&a, reversed), NULL), sunk, whole, sizeof sunk), OUT_PASS);

  /* a wrong bufs list in item 2, after a wrong item 1: item 1 is reported */
  JVal *bufs = copy(&a, s->u.arr[2]);
  json_set(&a, bufs, "bufs", json_arr(&a));
  JVal *both = expected_with(&a, &c, 1, bad, NULL);
  JVal *items = (JVal *)json_get(both, "schedule");
  items->u.arr[2] = bufs;
  assert_int_equal(verdicts(&a, &c, both, raw_why, whole, sizeof raw_why), OUT_FAIL);
  assert_non_null(strstr(raw_why, "schedule item 1 ast: "));
  assert_string_equal(raw_why, whole);

  /* only item 2 wrong: its bufs */
  assert_int_equal(verdicts(&a, &c, expected_with(&a, &c, 2, bufs, NULL), sunk, whole, sizeof sunk), OUT_FAIL);
  assert_non_null(strstr(sunk, "schedule item 2 bufs: expected []"));
  assert_string_equal(sunk, whole);

  /* one item too few, one too many */
  char want[128];
  assert_int_equal(verdicts(&a, &c, expected_with(&a, &c, s->n - 1, NULL, NULL), sunk, whole, sizeof sunk), OUT_FAIL);
  snprintf(want, sizeof want, "expected %zu schedule items, got %zu", (size_t)s->n - 1, (size_t)s->n);
  assert_string_equal(sunk, want);
  assert_string_equal(whole, want);
  assert_int_equal(verdicts(&a, &c, expected_with(&a, &c, 0, s->u.arr[0], s->u.arr[0]), sunk, whole, sizeof sunk), OUT_FAIL);
  snprintf(want, sizeof want, "expected %zu schedule items, got %zu", (size_t)s->n + 1, (size_t)s->n);
  assert_string_equal(sunk, want);
  assert_string_equal(whole, want);

  /* an expected item whose text does not parse: a read error naming it */
  JVal *broken = raw(&a, s->u.arr[0]);
  broken->n /= 2;
  assert_int_equal(verdicts(&a, &c, expected_with(&a, &c, 0, broken, NULL), sunk, whole, sizeof sunk), OUT_ERROR);
  assert_non_null(strstr(sunk, "expected.schedule[0]: "));

  arena_free(&a);
  capture_reader_close(&r);
}

/* json_spells: true only where the text parses to an equal value */
static void spelled_values(void **state) {
  (void)state;
  Arena a;
  arena_init(&a);
  char err[128];
  const JVal *v = json_parse_text(&a, "{\"a\": [1, 2.5, \"x\", null, true, -3], \"b\": {}}", err, sizeof err);
  assert_non_null(v);
  static const char *const spelled[] = {
      "{\"a\":[1,2.5,\"x\",null,true,-3],\"b\":{}}",
      " { \"a\" : [ 1 , 2.5 , \"x\" , null , true , -3 ] , \"b\" : { } } ",
      "{\"a\":[1,2.50,\"x\",null,true,-3],\"b\":{}}",   /* the same double */
      "{\"a\":[1,25e-1,\"x\",null,true,-3],\"b\":{}}",
  };
  static const char *const not_spelled[] = {
      "{\"b\":{},\"a\":[1,2.5,\"x\",null,true,-3]}",    /* equal, members in another order: parsed instead */
      "{\"a\":[1.0,2.5,\"x\",null,true,-3],\"b\":{}}",  /* a float for an int */
      "{\"a\":[1,2.5,\"\\u0078\",null,true,-3],\"b\":{}}", /* an escape */
      "{\"a\":[01,2.5,\"x\",null,true,-3],\"b\":{}}",   /* not JSON */
      "{\"a\":[1,2.5.0,\"x\",null,true,-3],\"b\":{}}",
      "{\"a\":[1,2.5,\"x\",null,true,-3,4],\"b\":{}}",  /* longer */
      "{\"a\":[1,2.5,\"x\",null,true,-3],\"b\":{},\"c\":1}",
      "{\"a\":[1,2.5,\"x\",null,true,-3],\"b\":{}}x",   /* trailing text */
      "{\"a\":[1,2.5,\"x\",null,true,-3],\"b\":{}",
      "{\"a\":[1,2.5,\"x\",null,true,-30],\"b\":{}}",
      "{\"a\":[1,2.5,\"x\",null,true,3],\"b\":{}}",
  };
  for (size_t i = 0; i < sizeof spelled / sizeof *spelled; i++)
    if (!json_spells(v, spelled[i], strlen(spelled[i]))) fail_msg("not spelled: %s", spelled[i]);
  for (size_t i = 0; i < sizeof not_spelled / sizeof *not_spelled; i++)
    if (json_spells(v, not_spelled[i], strlen(not_spelled[i]))) fail_msg("spelled: %s", not_spelled[i]);
  arena_free(&a);
}

/* c's expected object with member `key` replaced by `val` */
static JVal *expected_member(Arena *a, const Capture *c, const char *key, const JVal *val) {
  JVal *e = json_obj(a);
  for (size_t i = 0; i < c->expected->n; i++) {
    const JMember *m = &c->expected->u.obj[i];
    json_set(a, e, m->key, strcmp(m->key, key) == 0 ? (JVal *)val : m->val);
  }
  return e;
}

/* arr with every item as text (J_RAW), item k replaced by `item` first (when not NULL) */
static JVal *raw_items(Arena *a, const JVal *arr, size_t k, const JVal *item) {
  JVal *out = json_arr(a);
  for (size_t i = 0; i < arr->n; i++) json_push(a, out, raw(a, i == k && item ? item : arr->u.arr[i]));
  return out;
}

/* 0.10.2's becomes_map and new_buffers, their entries left as text by the
 * reader: equal ones pass, a wrong one gives the message the parsed entry
 * gives, one whose text does not parse is a read error naming it. */
static void v0_10_2_rest(void **state) {
  (void)state;
  CaptureReader r;
  Arena a;
  arena_init(&a);
  Capture c = load(&r, &a, "v0.10.2");
  char sunk[2048], whole[2048], parsed[2048];
  static const char *const keys[2] = {"becomes_map", "new_buffers"};
  for (size_t f = 0; f < 2; f++) {
    const JVal *list = json_get(c.expected, keys[f]);
    assert_true(list && list->kind == J_ARR && list->n >= 1);
    assert_int_equal(verdicts(&a, &c, expected_member(&a, &c, keys[f], raw_items(&a, list, 0, NULL)), sunk, whole, sizeof sunk), OUT_PASS);
    /* entry 0 changed: for becomes_map its node index, for new_buffers the buffer's size */
    JVal *wrong = copy(&a, list->u.arr[0]);
    if (f == 0) wrong->u.arr[0] = json_int(&a, wrong->u.arr[0]->u.i + 1);
    else json_set(&a, wrong, "size", json_int(&a, 12345));
    JVal *parsed_list = copy(&a, list);
    parsed_list->u.arr[0] = wrong;
    assert_int_equal(verdicts(&a, &c, expected_member(&a, &c, keys[f], parsed_list), parsed, whole, sizeof parsed), OUT_FAIL);
    assert_string_equal(parsed, whole); /* becomes_map: compared while encoded, as whole */
    assert_int_equal(verdicts(&a, &c, expected_member(&a, &c, keys[f], raw_items(&a, list, 0, wrong)), sunk, whole, sizeof sunk), OUT_FAIL);
    assert_string_equal(sunk, parsed);
    assert_non_null(strstr(sunk, keys[f]));
    JVal *broken = raw_items(&a, list, 0, NULL);
    broken->u.arr[0]->n /= 2;
    assert_int_equal(verdicts(&a, &c, expected_member(&a, &c, keys[f], broken), sunk, whole, sizeof sunk), OUT_ERROR);
    char want[64];
    snprintf(want, sizeof want, "expected.%s[0]: ", keys[f]);
    assert_non_null(strstr(sunk, want));
  }
  /* both compared entry by entry while encoded: with an entry too few or
   * too many, or not an array, the whole comparison's verdict and message */
  for (size_t f = 0; f < 2; f++) {
    const JVal *list = json_get(c.expected, keys[f]);
    JVal *fewer = copy(&a, list), *more = json_arr(&a);
    fewer->n--;
    for (size_t i = 0; i <= list->n; i++) json_push(&a, more, list->u.arr[i % list->n]);
    assert_int_equal(verdicts(&a, &c, expected_member(&a, &c, keys[f], fewer), sunk, whole, sizeof sunk), OUT_FAIL);
    assert_string_equal(sunk, whole);
    assert_int_equal(strncmp(sunk, keys[f], strlen(keys[f])), 0);
    assert_int_equal(verdicts(&a, &c, expected_member(&a, &c, keys[f], raw_items(&a, more, 0, NULL)), sunk, whole, sizeof sunk), OUT_FAIL);
    assert_string_equal(sunk, whole);
    assert_int_equal(verdicts(&a, &c, expected_member(&a, &c, keys[f], json_int(&a, 7)), sunk, whole, sizeof sunk), OUT_FAIL);
    assert_string_equal(sunk, whole);
  }
  arena_free(&a);
  capture_reader_close(&r);
}

static void v0_9_1_items(void **state) { (void)state; check_generation("v0.9.1"); }
static void v0_10_0_items(void **state) { (void)state; check_generation("v0.10.0"); }
static void v0_10_2_items(void **state) { (void)state; check_generation("v0.10.2"); }

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: test_replay conformance/tests/tools\n");
    return 2;
  }
  tools_dir = argv[1];
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(spelled_values),
      cmocka_unit_test(v0_9_1_items),
      cmocka_unit_test(v0_10_0_items),
      cmocka_unit_test(v0_10_2_items),
      cmocka_unit_test(v0_10_2_rest),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
