/* test_rewrite.c — graph_rewrite visits nodes in the order tinygrad 0.10.2's
 * recursive RewriteContext does. The expected logs were printed by tinygrad
 * 0.10.2 for the same graph and rules:
 *   fold:  UPat(Ops.ADD, src=(UPat(Ops.CONST, name="a"), UPat(Ops.CONST, name="b"))) -> CONST(a+b)
 *   neg:   UPat(Ops.NEG) -> CONST(-c) when the source is a CONST
 *   visit: UPat((CONST, ADD, MUL, NEG, SINK)) -> log the node, return None */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "rewrite.h"

typedef struct { Interner *in; char log[512]; } Ctx;

static const UOp *rule_fold(void *vctx, const UOp *x) {
  Ctx *ctx = vctx;
  if (x->nsrc != 2 || x->src[0]->op != OP_CONST || x->src[1]->op != OP_CONST) return NULL;
  return uop0(ctx->in, OP_CONST, dt_int, v_int(ctx->in, x->src[0]->arg->u.i + x->src[1]->arg->u.i));
}

static const UOp *rule_neg(void *vctx, const UOp *x) {
  Ctx *ctx = vctx;
  if (x->src[0]->op != OP_CONST) return NULL;
  return uop0(ctx->in, OP_CONST, dt_int, v_int(ctx->in, -x->src[0]->arg->u.i));
}

static const UOp *rule_visit(void *vctx, const UOp *x) {
  Ctx *ctx = vctx;
  char item[32];
  if (x->op == OP_CONST) snprintf(item, sizeof item, "CONST %lld,", (long long)x->arg->u.i);
  else snprintf(item, sizeof item, "%s,", op_name(x->op, TG_0_10_2) + 4);
  strncat(ctx->log, item, sizeof ctx->log - strlen(ctx->log) - 1);
  return NULL;
}

static const Rule rules[] = {
  {{OP_ADD}, rule_fold, "fold", {{[TG_0_10_2] = {"test.py", 1}}}},
  {{OP_NEG}, rule_neg, "neg", {{[TG_0_10_2] = {"test.py", 2}}}},
  {{OP_CONST, OP_ADD, OP_MUL, OP_NEG, OP_SINK}, rule_visit, "visit", {{[TG_0_10_2] = {"test.py", 3}}}},
};
static const PatternMatcher pm = {rules, sizeof rules / sizeof rules[0]};

static const UOp *build(Interner *in) {
  const UOp *one = uop0(in, OP_CONST, dt_int, v_int(in, 1)), *two = uop0(in, OP_CONST, dt_int, v_int(in, 2));
  const UOp *c = uop2(in, OP_ADD, dt_int, NULL, one, two);
  const UOp *d = uop2(in, OP_MUL, dt_int, NULL, c, uop1(in, OP_NEG, dt_int, NULL, one));
  return uop2(in, OP_SINK, dt_void, NULL, d, c);
}

static void check(bool bottom_up, const char *expected_log) {
  Arena a;
  arena_init(&a);
  Interner in;
  interner_init(&in, &a);
  Ctx ctx = {&in, ""};
  const PatternMatcher *pms[] = {&pm};
  const UOp *r = graph_rewrite(&in, build(&in), pms, 1, &ctx, bottom_up);
  assert_string_equal(ctx.log, expected_log);
  /* SINK(MUL(CONST 3, CONST -1), CONST 3) */
  const UOp *three = uop0(&in, OP_CONST, dt_int, v_int(&in, 3));
  const UOp *minus1 = uop0(&in, OP_CONST, dt_int, v_int(&in, -1));
  assert_ptr_equal(r, uop2(&in, OP_SINK, dt_void, NULL, uop2(&in, OP_MUL, dt_int, NULL, three, minus1), three));
  arena_free(&a);
}

static void top_down_visits_sources_first(void **state) {
  (void)state;
  check(false, "CONST 1,CONST 2,CONST 3,CONST -1,MUL,SINK,");
}

static void bottom_up_visits_the_node_first(void **state) {
  (void)state;
  check(true, "SINK,MUL,CONST 3,CONST -1,MUL,CONST 3,CONST -1,SINK,");
}

static void rewrite_map_covers_every_node(void **state) {
  (void)state;
  Arena a;
  arena_init(&a);
  Interner in;
  interner_init(&in, &a);
  Ctx ctx = {&in, ""};
  const PatternMatcher *pms[] = {&pm};
  OMap out;
  const UOp *sink = build(&in);
  graph_rewrite_map(&in, sink, pms, 1, &ctx, false, &out);
  assert_int_equal(omap_len(&out), 6); /* CONST 1, CONST 2, ADD, NEG, MUL, SINK */
  uint64_t first_key;
  size_t pos = 0;
  assert_true(omap_next(&out, &pos, &first_key, NULL));
  assert_ptr_equal((const UOp *)(uintptr_t)first_key, sink); /* reversed toposort: the sink first */
  arena_free(&a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(top_down_visits_sources_first),
    cmocka_unit_test(bottom_up_visits_the_node_first),
    cmocka_unit_test(rewrite_map_covers_every_node),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
