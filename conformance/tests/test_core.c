/* test_core.c — behaviour of the common core: JSON numbers, ordered maps,
 * hash-consing, graph encoding and the comparator, arenas reusing memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compare.h"
#include "graph.h"
#include "intern.h"
#include "omap.h"

static JVal *parse(Arena *a, const char *text) {
  char err[128];
  return json_parse_text(a, text, err, sizeof err);
}

static void json_keeps_int_and_float_apart(void **state) {
  (void)state;
  Arena a;
  arena_init(&a);
  JVal *v = parse(&a, "[1, 1.0, -0.0, 18446744073709551615, {\"float\": \"nan\"}]");
  assert_non_null(v);
  assert_int_equal(v->u.arr[0]->kind, J_INT);
  assert_int_equal(v->u.arr[1]->kind, J_FLOAT);
  assert_int_equal(v->u.arr[3]->kind, J_UINT);
  assert_false(json_equal(v->u.arr[0], v->u.arr[1]));                       /* 1 != 1.0 */
  assert_true(json_equal(parse(&a, "0.0"), v->u.arr[2]));                   /* -0.0 == 0.0 */
  assert_true(json_equal(parse(&a, "{\"float\": \"nan\"}"), v->u.arr[4]));  /* nan == nan */
  assert_true(json_equal(parse(&a, "{\"a\": 1, \"b\": [2]}"), parse(&a, "{\"b\": [2], \"a\": 1}")));
  char *s = json_to_string(parse(&a, "[1.0, 1e+20, 0.1, {\"float\": \"-inf\"}]"), NULL);
  assert_string_equal(s, "[1.0, 1e+20, 0.1, {\"float\": \"-inf\"}]");
  free(s);
  arena_free(&a);
}

/* A Python int can be any size: beyond uint64 it is read as its text (J_BIGNUM) and written back unchanged. */
static void json_reads_integers_of_any_size(void **state) {
  (void)state;
  Arena a;
  arena_init(&a);
  const char *text = "[9223372036854775807, 9223372036854775808, 18446744073709551616, -9223372036854775808,"
                     " -9223372036854775809, \"18446744073709551616\", 1e30, 123456789012345678901234567890]";
  JVal *v = parse(&a, text);
  assert_non_null(v);
  static const JKind kinds[] = {J_INT, J_UINT, J_BIGNUM, J_INT, J_BIGNUM, J_STR, J_FLOAT, J_BIGNUM};
  for (size_t i = 0; i < 8; i++) assert_int_equal(v->u.arr[i]->kind, kinds[i]);
  assert_false(json_equal(v->u.arr[2], v->u.arr[5])); /* 2**64 is not "2**64" */
  assert_true(json_equal(v->u.arr[2], parse(&a, "18446744073709551616")));
  char *s = json_to_string(v, NULL);
  assert_string_equal(s, "[9223372036854775807, 9223372036854775808, 18446744073709551616, -9223372036854775808,"
                         " -9223372036854775809, \"18446744073709551616\", 1e+30, 123456789012345678901234567890]");
  free(s);
  assert_null(parse(&a, "[012345678901234567890123]")); /* still malformed */
  /* a big document (its parser buffers come from the arena pool) read again with its big int quoted */
  size_t n = 40000;
  char *big = malloc(2 * n + 64);
  for (size_t i = 0; i < n; i++) big[2 * i] = i ? ',' : '[', big[2 * i + 1] = '7';
  strcpy(big + 2 * n, ",-123456789012345678901234567890]");
  v = parse(&a, big);
  free(big);
  assert_non_null(v);
  assert_int_equal(v->n, n + 1);
  assert_int_equal(v->u.arr[n]->kind, J_BIGNUM);
  assert_true(json_equal(v->u.arr[n], parse(&a, "-123456789012345678901234567890")));
  arena_free(&a);
}

/* A parsed tree is only read, so its recurring scalars are one JVal each. */
static void json_shares_recurring_scalars(void **state) {
  (void)state;
  Arena a;
  arena_init(&a);
  JVal *v = parse(&a, "[7, 7, null, null, \"Ops.ADD\", \"Ops.ADD\", true, true, {\"k\": 7}, 7.5, 7.5]");
  assert_non_null(v);
  for (size_t i = 0; i < 8; i += 2) assert_ptr_equal(v->u.arr[i], v->u.arr[i + 1]);
  assert_ptr_equal(v->u.arr[0], v->u.arr[8]->u.obj[0].val);
  assert_true(json_equal(v->u.arr[9], v->u.arr[10]));
  /* containers of shared children too, from the second one whose children
   * were all shared (the first [1, 2] makes its ints, the first {"a": ...} its key) */
  v = parse(&a, "[[1, 2], [1, 2], [1, 2], {\"a\": [1, 2]}, {\"a\": [1, 2]}, {\"a\": [1, 2]}, [1, 2, 3]]");
  assert_ptr_equal(v->u.arr[1], v->u.arr[2]);
  assert_ptr_equal(v->u.arr[2], v->u.arr[3]->u.obj[0].val);
  assert_ptr_equal(v->u.arr[4], v->u.arr[5]);
  assert_int_equal(v->u.arr[6]->n, 3);
  arena_free(&a);
}

/* Memory given back (an arena's chunks, a block whose owner wrote into part
 * of it) is handed out again zeroed, whichever arena takes it. */
static void arenas_hand_out_reused_memory_zeroed(void **state) {
  (void)state;
  enum { BLOCK = 1 << 20, WRITTEN = 100 << 10, USED = 300 << 10 };
  unsigned char *block = arena_block_take(BLOCK);
  assert_non_null(block);
  memset(block, 0xA5, WRITTEN);
  arena_block_give(block, WRITTEN, false);
  Arena scratch;
  arena_init(&scratch);
  for (size_t i = 0; i < USED / 512; i++) memset(arena_alloc(&scratch, 512), 0x5A, 512);
  arena_free(&scratch);
  Arena a;
  arena_init(&a);
  a.max_chunk = 64 << 10;
  arena_prefer_pool(&a);
  for (size_t i = 0; i < 2 * USED / 512; i++) {
    const unsigned char *p = arena_alloc(&a, 512);
    for (size_t j = 0; j < 512; j++) assert_int_equal(p[j], 0);
  }
  arena_free(&a);
}

/* arena_rewind: what was allocated after the mark (in the mark's chunk and
 * in chunks added since) is forgotten and handed out again zeroed; what was
 * before it stays; an arena empty at the mark keeps one chunk. */
static void arenas_rewind_to_a_mark(void **state) {
  (void)state;
  Arena a;
  arena_init(&a);
  ArenaMark empty = arena_mark(&a);
  for (int round = 0; round < 3; round++) {
    unsigned char *first = arena_alloc(&a, 64);
    memset(first, 0x11, 64);
    ArenaMark m = arena_mark(&a);
    size_t bytes = round == 0 ? 1000 : (size_t)300 << 10; /* within the chunk, then past it */
    for (size_t i = 0; i < bytes / 500; i++) memset(arena_alloc(&a, 500), 0x5A, 500);
    arena_rewind(&a, m);
    for (size_t i = 0; i < 2 * bytes / 500; i++) {
      const unsigned char *p = arena_alloc(&a, 500);
      for (size_t j = 0; j < 500; j++) assert_int_equal(p[j], 0);
    }
    for (size_t j = 0; j < 64; j++) assert_int_equal(first[j], 0x11);
    arena_rewind(&a, empty);
    assert_non_null(a.head);
    assert_true(a.chunk_bytes <= (size_t)64 << 10);
    const unsigned char *p = arena_alloc(&a, 64);
    for (size_t j = 0; j < 64; j++) assert_int_equal(p[j], 0);
    arena_rewind(&a, empty);
  }
  arena_free(&a);
}

/* The message json_parse gives for text, "" when it parses. */
static const char *parse_error(Arena *a, const char *text) {
  static char err[128];
  err[0] = 0;
  if (json_parse_text(a, text, err, sizeof err)) return "";
  return err;
}

static void json_rejects_malformed_input(void **state) {
  (void)state;
  Arena a;
  arena_init(&a);
  assert_null(parse(&a, "{\"a\": [1, 2}"));
  assert_null(parse(&a, ""));
  static const char *const bad[][2] = {
    {"{\"a\": 1", "improper structure"}, {"[1 2]", "improper structure"}, {"[1,]", "improper structure"},
    {"{\"a\" 1}", "improper structure"}, {"{1: 2}", "improper structure"}, {"[1] 2", "improper structure"},
    {"[NaN]", "improper structure"}, {"[\"abc]", "never closed"}, {"[\"a\tb\"]", "unescaped"},
    {"[\"\\x\"]", "string"}, {"[\"\\ud800\"]", "string"}, {"[\"\\udc00\"]", "string"}, {"[\"\\u12g4\"]", "string"},
    {"[tru]", "'t'"}, {"[fals]", "'f'"}, {"[nul]", "'n'"}, {"[01]", "number"}, {"[1.]", "number"},
    {"[-]", "number"}, {"[1e]", "number"}, {"[1e400]", "number"}, {"[\"\xff\"]", "UTF-8"}, {"   ", "Empty"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    const char *err = parse_error(&a, bad[i][0]);
    if (!strstr(err, bad[i][1])) fail_msg("%s: got \"%s\", wanted \"%s\"", bad[i][0], err, bad[i][1]);
  }
  static const char *const good[] = {"[1e-400, -0.0, 5e-324, 1.7976931348623157e308]", "[\"\\ud83d\\ude00 \\u00e9\\/\\b\"]", " {} ", "\"x\"", "-7"};
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) assert_string_equal(parse_error(&a, good[i]), "");
  JVal *v = parse(&a, "[\"\\ud83d\\ude00\\u00e9\\n\\u0000\"]");
  assert_int_equal(v->u.arr[0]->n, 8);
  assert_memory_equal(v->u.arr[0]->u.s, "\xf0\x9f\x98\x80\xc3\xa9\n\0", 8);
  /* nesting: 1024 levels are read, 1025 are an error */
  char deep[2 * 1025 + 1];
  for (size_t depth = 1024; depth <= 1025; depth++) {
    memset(deep, '[', depth);
    memset(deep + depth, ']', depth);
    deep[2 * depth] = 0;
    assert_string_equal(parse_error(&a, deep), depth == 1024 ? "" : "malformed JSON: The JSON document was too deep (too many nested objects and arrays)");
  }
  arena_free(&a);
}

/* A capture line read with raw_schedule_items: the items of
 * expected.schedule (and of becomes_map and new_buffers) stay text until
 * json_materialize reads them. */
static void json_leaves_expected_schedule_items_as_text(void **state) {
  (void)state;
  Arena a;
  arena_init(&a);
  const char *text = "{\"input\": {\"schedule\": [[1]]}, \"expected\": {\"schedule\": [{\"ast\": [\"a]\\\"}\", {\"b\": []}]}, "
                     "[2, 3], 4, {\"x\": [1 2]}], \"var_vals\": {\"v\": [1]}, "
                     "\"becomes_map\": [[0, {\"nodes\": []}]], \"new_buffers\": [{\"size\": 1}]}, \"error\": null}";
  char *buf = arena_alloc(&a, strlen(text) + JSON_PADDING);
  strcpy(buf, text);
  char err[128];
  JVal *root = json_parse_capture(&a, buf, strlen(text), true, err, sizeof err);
  assert_non_null(root);
  const JVal *items = json_get(json_get(root, "expected"), "schedule");
  assert_int_equal(items->n, 4);
  assert_int_equal(items->u.arr[0]->kind, J_RAW);
  assert_int_equal(items->u.arr[1]->kind, J_RAW);
  assert_int_equal(items->u.arr[2]->kind, J_INT);
  assert_int_equal(items->u.arr[3]->kind, J_RAW);
  assert_int_equal(json_get(json_get(root, "input"), "schedule")->u.arr[0]->kind, J_ARR); /* only expected's */
  /* the items of becomes_map and new_buffers too, not var_vals' */
  const JVal *exp = json_get(root, "expected");
  assert_int_equal(json_get(exp, "becomes_map")->u.arr[0]->kind, J_RAW);
  assert_int_equal(json_get(exp, "new_buffers")->u.arr[0]->kind, J_RAW);
  assert_int_equal(json_get(json_get(exp, "var_vals"), "v")->kind, J_ARR);
  const char *first = "{\"ast\": [\"a]\\\"}\", {\"b\": []}]}";
  assert_int_equal(items->u.arr[0]->n, strlen(first));
  assert_memory_equal(items->u.arr[0]->u.s, first, strlen(first));
  const JVal *item = json_materialize(&a, items->u.arr[0], err, sizeof err);
  assert_true(json_equal(item, parse(&a, first)));
  assert_true(json_equal(json_materialize(&a, items->u.arr[1], err, sizeof err), parse(&a, "[2, 3]")));
  /* a bad item is found when it is read */
  assert_null(json_materialize(&a, items->u.arr[3], err, sizeof err));
  assert_non_null(strstr(err, "malformed JSON"));
  /* without the flag the same line is malformed at once */
  assert_null(json_parse_capture(&a, buf, strlen(text), false, err, sizeof err));
  /* an item whose brackets never close is an error of the line */
  strcpy(buf, "{\"expected\": {\"schedule\": [{\"a\": [1, 2}]}");
  assert_null(json_parse_capture(&a, buf, strlen(buf), true, err, sizeof err));
  arena_free(&a);
}

/* A capture line read with JSON_RAW_INPUT: `input` stays text, found by
 * counting brackets outside strings 64 bytes at a time, wherever a string's
 * quotes, escapes and brackets fall against those blocks. */
static void json_leaves_input_as_text(void **state) {
  (void)state;
  Arena a;
  arena_init(&a);
  char err[128];
  for (int pad = 0; pad < 140; pad++) {
    char input[512], line[1024];
    int n = snprintf(input, sizeof input, "{\"s\": \"%*s\\\\\\\"]}\", \"t\": [{\"u\": \"[\\\\\"}, [], \"%*s\"]}", pad, "", pad % 70, "");
    snprintf(line, sizeof line, "{\"input\": %s, \"expected\": {\"schedule\": [[1]]}, \"n\": 2}", input);
    char *buf = arena_alloc(&a, strlen(line) + JSON_PADDING);
    strcpy(buf, line);
    JVal *root = json_parse_capture(&a, buf, strlen(line), JSON_RAW_INPUT, err, sizeof err);
    assert_non_null(root);
    const JVal *in = json_get(root, "input");
    assert_int_equal(in->kind, J_RAW);
    assert_int_equal(in->n, n);
    assert_memory_equal(in->u.s, input, (size_t)n);
    assert_int_equal(json_get(root, "n")->u.i, 2);
    assert_int_equal(json_get(json_get(root, "expected"), "schedule")->u.arr[0]->kind, J_ARR); /* only input */
    const JVal *tree = json_materialize(&a, in, err, sizeof err);
    assert_true(json_equal(tree, parse(&a, input)));
    /* what outlives the tree is copied */
    JVal *copy = json_copy(&a, tree);
    assert_true(json_equal(copy, tree));
    assert_ptr_not_equal(json_get(copy, "s")->u.s, json_get(tree, "s")->u.s);
  }
  /* a string that never closes inside input is an error of the line */
  const char *unclosed = "{\"input\": {\"a\": \"]}, \"x\": 1}";
  char *buf = arena_alloc(&a, strlen(unclosed) + JSON_PADDING);
  strcpy(buf, unclosed);
  assert_null(json_parse_capture(&a, buf, strlen(unclosed), JSON_RAW_INPUT, err, sizeof err));
  assert_string_equal(err, "malformed JSON: A string is opened, but never closed.");
  /* a scalar input is read as usual */
  strcpy(buf, "{\"input\": 7}");
  assert_int_equal(json_get(json_parse_capture(&a, buf, strlen(buf), JSON_RAW_INPUT, err, sizeof err), "input")->kind, J_INT);
  /* the same string copies to the same copy */
  JStrKeep keep = {0};
  const char *dev = "CLANG";
  const char *c1 = json_keep_str(&a, &keep, dev, 5), *c2 = json_keep_str(&a, &keep, dev, 5);
  assert_ptr_equal(c1, c2);
  assert_ptr_not_equal(c1, dev);
  assert_string_equal(c1, "CLANG");
  arena_free(&a);
}

static void omap_iterates_in_insertion_order_like_a_dict(void **state) {
  (void)state;
  Arena a;
  arena_init(&a);
  OMap m;
  omap_init(&m, &a);
  for (uint64_t k = 100; k > 0; k--) omap_put(&m, k, (void *)(uintptr_t)k);
  omap_put(&m, 50, (void *)1);   /* overwrite keeps the position */
  omap_del(&m, 99);
  omap_put(&m, 99, (void *)2);   /* re-insert appends */
  size_t pos = 0;
  uint64_t key, expect = 100;
  void *val;
  assert_true(omap_next(&m, &pos, &key, &val));
  assert_int_equal(key, 100);
  assert_true(omap_next(&m, &pos, &key, &val));
  assert_int_equal(key, 98);
  for (expect = 97; expect > 0; expect--) assert_true(omap_next(&m, &pos, &key, &val)), assert_int_equal(key, expect);
  assert_true(omap_next(&m, &pos, &key, &val));
  assert_int_equal(key, 99);
  assert_false(omap_next(&m, &pos, &key, &val));
  assert_int_equal(omap_len(&m), 100);
  assert_ptr_equal(omap_get(&m, 50), (void *)1);
  arena_free(&a);
}

/* put / setdefault / del on maps small (no index) and growing past the index
 * threshold, against a dict kept as an insertion-ordered list */
static void omap_small_and_large_maps_behave_like_a_dict(void **state) {
  (void)state;
  Arena a;
  arena_init(&a);
  for (uint64_t nkeys = 3; nkeys <= 40; nkeys += 37) {
    OMap m;
    omap_init(&m, &a);
    uint64_t keys[64], vals[64];
    size_t n = 0;
    uint64_t r = 12345;
    for (int step = 0; step < 2000; step++) {
      r = r * 6364136223846793005ULL + 1442695040888963407ULL;
      uint64_t k = (r >> 33) % nkeys + 1, v = (r >> 20) % 1000 + 1, op = (r >> 50) % 3;
      size_t at = 0;
      while (at < n && keys[at] != k) at++;
      if (op == 0) { /* m[k] = v */
        omap_put(&m, k, (void *)(uintptr_t)v);
        if (at == n) keys[n] = k, n++;
        vals[at] = v;
      } else if (op == 1) { /* m.setdefault(k, v) */
        void *got = omap_setdefault(&m, k, (void *)(uintptr_t)v);
        if (at == n) keys[n] = k, vals[n] = v, n++;
        assert_int_equal((uintptr_t)got, vals[at]);
      } else { /* m.pop(k, None) */
        assert_int_equal(omap_del(&m, k), at < n);
        if (at < n) memmove(keys + at, keys + at + 1, (n - at - 1) * sizeof *keys), memmove(vals + at, vals + at + 1, (n - at - 1) * sizeof *vals), n--;
      }
      assert_int_equal(omap_len(&m), n);
      size_t pos = 0, i = 0;
      uint64_t key;
      void *val;
      while (omap_next(&m, &pos, &key, &val)) {
        assert_true(i < n);
        assert_int_equal(key, keys[i]);
        assert_int_equal((uintptr_t)val, vals[i]);
        i++;
      }
      assert_int_equal(i, n);
      for (uint64_t q = 1; q <= nkeys; q++) {
        size_t j = 0;
        while (j < n && keys[j] != q) j++;
        assert_int_equal(omap_has(&m, q), j < n);
        assert_int_equal((uintptr_t)omap_get(&m, q), j < n ? vals[j] : 0);
      }
    }
  }
  arena_free(&a);
}

static void uops_are_hash_consed(void **state) {
  (void)state;
  Arena a;
  arena_init(&a);
  Interner in;
  interner_init(&in, &a);
  const UOp *x = uop0(&in, OP_CONST, dt_float, v_float(&in, 1.0));
  const UOp *y = uop0(&in, OP_CONST, dt_float, v_float(&in, 1.0));
  const UOp *z = uop0(&in, OP_CONST, dt_int, v_int(&in, 1));
  assert_ptr_equal(x, y);
  assert_ptr_not_equal(x, z);
  assert_ptr_equal(uop2(&in, OP_ADD, dt_float, NULL, x, y), uop2(&in, OP_ADD, dt_float, v_none(&in), y, x));
  const Value *items[2] = {v_int(&in, 1), v_str(&in, "a")};
  assert_ptr_equal(v_tuple(&in, 2, items), v_tuple(&in, 2, items));
  arena_free(&a);
}

/* Hash-consing holds however big the tables grow: a node asked for again is
 * the same node, with the id it got first (ids are dense, in creation order). */
static void uops_stay_hash_consed_as_the_tables_grow(void **state) {
  (void)state;
  enum { N = 300000 };
  Arena a;
  arena_init(&a);
  Interner in;
  interner_init(&in, &a);
  const UOp **made = malloc(N * sizeof *made);
  assert_non_null(made);
  const UOp *zero = uop0(&in, OP_CONST, dt_int, v_int(&in, 0));
  for (int i = 0; i < N; i++) made[i] = uop2(&in, OP_ADD, dt_int, NULL, zero, uop0(&in, OP_CONST, dt_int, v_int(&in, i)));
  for (int i = N; i-- > 0;) {
    const UOp *again = uop2(&in, OP_ADD, dt_int, NULL, zero, uop0(&in, OP_CONST, dt_int, v_int(&in, i)));
    assert_ptr_equal(again, made[i]);
    assert_ptr_equal(uop_by_id(&in, again->id), again);
  }
  assert_int_equal(in.nuops, 2 * (size_t)N);
  free(made);
  arena_free(&a);
}

/* Python ints outside int64 (a uint64 CONST's arg, a folded 2**64) are one Value each, equal only to the same
 * int, never to a float; they are read from and written as the same JSON integer; beyond 128 bits they are
 * unsupported. */
static void ints_above_int64_are_values_of_their_own(void **state) {
  (void)state;
  Arena a;
  arena_init(&a);
  Interner in;
  interner_init(&in, &a);
  const Value *big = v_pyint(&in, UINT64_MAX), *top = v_pyint(&in, (PyInt)1 << 63);
  assert_int_equal(big->kind, V_BIGINT);
  assert_ptr_equal(big, v_pyint(&in, UINT64_MAX));
  assert_ptr_not_equal(big, top);
  assert_ptr_equal(v_pyint(&in, INT64_MAX), v_int(&in, INT64_MAX)); /* one int, one Value */
  assert_ptr_not_equal(top, v_float(&in, 0x1p63));                  /* 2**63 and 2.0**63 stay apart */
  assert_ptr_equal(v_int_of_float(&in, 0x1p63), top);               /* int(2.0**63) */
  assert_true(value_pyint(v_int_of_float(&in, -0x1p100)) == -((PyInt)1 << 100));
  assert_null(v_int_of_float(&in, 0x1p127));
  assert_true(value_is_int(big) && value_is_number(big) && value_truthy(big));
  assert_false(value_eq_int(big, -1));                               /* not the same bits as -1 */
  assert_true(value_to_double(big) == 0x1p64);                      /* float(2**64-1) rounds */
  assert_ptr_not_equal(uop0(&in, OP_CONST, dt_ulong, big), uop0(&in, OP_CONST, dt_ulong, v_int(&in, -1)));
  Codec c;
  codec_init(&c, &in, TG_0_10_2);
  Status st = {0};
  const Value *read = value_from_json(&c, parse(&a, "18446744073709551615"), "arg", &st);
  assert_ptr_equal(read, big);
  char *s = json_to_string(value_to_json(&c, v_tuple(&in, 1, &read)), NULL);
  assert_string_equal(s, "[18446744073709551615]");
  free(s);
  const char *texts[] = {"-9223372036854775809", "18446744073709551616", "-170141183460469231731687303715884105728",
                         "170141183460469231731687303715884105727"};
  for (size_t i = 0; i < 4; i++) {
    read = value_from_json(&c, parse(&a, texts[i]), "arg", &st);
    assert_int_equal(read->kind, V_BIGINT);
    s = json_to_string(value_to_json(&c, read), NULL);
    assert_string_equal(s, texts[i]);
    free(s);
  }
  assert_null(value_from_json(&c, parse(&a, "170141183460469231731687303715884105728"), "arg", &st)); /* 2**127 */
  assert_int_equal(st.kind, ST_UNSUPPORTED);
  arena_free(&a);
}

static void dtypes_parse_and_print_per_version(void **state) {
  (void)state;
  char buf[64];
  const DType *p = dtype_parse("float.ptr(16)");
  assert_non_null(p);
  assert_string_equal(dtype_repr(p, TG_0_10_2, buf, sizeof buf), "float.ptr(16)");
  assert_string_equal(dtype_repr(dtype_parse("float.ptr()"), TG_0_10_0, buf, sizeof buf), "float.ptr()");
  assert_string_equal(dtype_repr(dtype_parse("half.vec(4)"), TG_0_10_2, buf, sizeof buf), "half.vec(4)");
  assert_ptr_equal(dtype_parse("_float4"), dtype_parse("float.vec(4)"));
  assert_string_equal(dtype_repr(dtype_parse("imagef((1, 2, 4))"), TG_0_10_0, buf, sizeof buf), "imagef((1, 2, 4))");
  assert_null(dtype_parse("floaty"));
}

static void graphs_round_trip_and_compare_structurally(void **state) {
  (void)state;
  Arena a;
  arena_init(&a);
  Interner in;
  interner_init(&in, &a);
  Codec c;
  codec_init(&c, &in, TG_0_10_2);
  /* the same DAG, numbered differently, with a duplicate node */
  JVal *g1 = parse(&a, "{\"nodes\": [[\"Ops.CONST\", \"float\", 1.0, []], [\"Ops.CONST\", \"float\", 2.0, []],"
                       " [\"Ops.ADD\", \"float\", null, [0, 1]], [\"Ops.SINK\", \"void\", null, [2]]], \"roots\": [3]}");
  JVal *g2 = parse(&a, "{\"nodes\": [[\"Ops.CONST\", \"float\", 2.0, []], [\"Ops.CONST\", \"float\", 1.0, []],"
                       " [\"Ops.CONST\", \"float\", 2.0, []], [\"Ops.ADD\", \"float\", null, [1, 2]],"
                       " [\"Ops.SINK\", \"void\", null, [3]]], \"roots\": [4]}");
  JVal *g3 = parse(&a, "{\"nodes\": [[\"Ops.CONST\", \"float\", 1.0, []], [\"Ops.CONST\", \"float\", 2, []],"
                       " [\"Ops.ADD\", \"float\", null, [0, 1]], [\"Ops.SINK\", \"void\", null, [2]]], \"roots\": [3]}");
  char why[512];
  assert_true(graph_equal(&a, g1, g2, why, sizeof why));
  assert_false(graph_equal(&a, g1, g3, why, sizeof why));
  assert_non_null(strstr(why, "arg"));
  Status st = {0};
  const UOp **nodes, **roots;
  size_t n, nr;
  assert_true(graph_decode(&c, g2, "test", &nodes, &n, &roots, &nr, &st));
  assert_ptr_equal(nodes[0], nodes[2]);
  JVal *back = graph_encode(&c, roots, nr);
  assert_int_equal(json_get(back, "nodes")->n, 4);
  assert_true(graph_equal(&a, g1, back, why, sizeof why));
  arena_free(&a);
}

static void graph_decode_names_bad_places(void **state) {
  (void)state;
  static const char *const bad[][2] = {
    {"{\"nodes\": [[\"Ops.ADD\", \"float\", null, [0]]], \"roots\": [0]}", "below"},
    {"{\"nodes\": [[\"Ops.NOPE\", \"float\", null, []]], \"roots\": [0]}", "unknown op"},
    {"{\"nodes\": [[\"Ops.CONST\", \"floaty\", 1, []]], \"roots\": [0]}", "unknown dtype"},
    {"{\"nodes\": [[\"Ops.CONST\", \"float\", 1, []]], \"roots\": [7]}", "root"},
    {"{\"nodes\": [[\"Ops.CONST\", \"float\"]], \"roots\": [0]}", "must be"},
    {"{\"roots\": [0]}", "needs"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    Arena a;
    arena_init(&a);
    Interner in;
    interner_init(&in, &a);
    Codec c;
    codec_init(&c, &in, TG_0_10_2);
    Status st = {0};
    const UOp **nodes, **roots;
    size_t n, nr;
    assert_false(graph_decode(&c, parse(&a, bad[i][0]), "capture x", &nodes, &n, &roots, &nr, &st));
    assert_int_equal(st.kind, ST_BAD_INPUT);
    assert_non_null(strstr(st.msg, bad[i][1]));
    assert_non_null(strstr(st.msg, "capture x"));
    arena_free(&a);
  }
}

static void a_million_node_chain_loads_without_recursion(void **state) {
  (void)state;
  enum { N = 1000000 };
  size_t cap = (size_t)N * 48 + 64, len = 0;
  char *text = malloc(cap + JSON_PADDING);
  assert_non_null(text);
  len += (size_t)sprintf(text + len, "{\"nodes\": [[\"Ops.CONST\", \"float\", 1.0, []]");
  for (int i = 1; i < N; i++) len += (size_t)sprintf(text + len, ", [\"Ops.NEG\", \"float\", null, [%d]]", i - 1);
  len += (size_t)sprintf(text + len, "], \"roots\": [%d]}", N - 1);
  Arena a;
  arena_init(&a);
  char err[128];
  JVal *g = json_parse(&a, text, len, err, sizeof err);
  assert_non_null(g);
  Interner in;
  interner_init(&in, &a);
  Codec c;
  codec_init(&c, &in, TG_0_10_2);
  Status st = {0};
  const UOp **nodes, **roots;
  size_t n, nr;
  assert_true(graph_decode(&c, g, "chain", &nodes, &n, &roots, &nr, &st));
  JVal *back = graph_encode(&c, roots, nr);
  char why[256];
  assert_true(graph_equal(&a, g, back, why, sizeof why));
  arena_free(&a);
  free(text);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(json_keeps_int_and_float_apart),
    cmocka_unit_test(json_reads_integers_of_any_size),
    cmocka_unit_test(json_shares_recurring_scalars),
    cmocka_unit_test(arenas_hand_out_reused_memory_zeroed),
    cmocka_unit_test(arenas_rewind_to_a_mark),
    cmocka_unit_test(json_rejects_malformed_input),
    cmocka_unit_test(json_leaves_expected_schedule_items_as_text),
    cmocka_unit_test(json_leaves_input_as_text),
    cmocka_unit_test(omap_iterates_in_insertion_order_like_a_dict),
    cmocka_unit_test(omap_small_and_large_maps_behave_like_a_dict),
    cmocka_unit_test(uops_are_hash_consed),
    cmocka_unit_test(uops_stay_hash_consed_as_the_tables_grow),
    cmocka_unit_test(ints_above_int64_are_values_of_their_own),
    cmocka_unit_test(dtypes_parse_and_print_per_version),
    cmocka_unit_test(graphs_round_trip_and_compare_structurally),
    cmocka_unit_test(graph_decode_names_bad_places),
    cmocka_unit_test(a_million_node_chain_loads_without_recursion),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
