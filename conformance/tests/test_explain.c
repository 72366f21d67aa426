/* test_explain.c — behaviour of common/explain.h: the calls a generation
 * makes record nothing unless a listener is active, and record what they are
 * given (reason, detail copied, fuse targets) while one is. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "explain.h"

static void calls_without_listener_do_nothing(void **state) {
  (void)state;
  assert_null(explain_active());
  explain_realize(explain_active(), 3, WHY_EXPAND, "x");
  explain_fuse(explain_active(), 1, 3);
}

static void listener_records_realizes_and_fuses(void **state) {
  (void)state;
  Explain ex;
  explain_init(&ex);
  explain_begin(&ex);
  char detail[] = "expanded (4, 1) -> (4, 5)";
  explain_realize(explain_active(), 7, WHY_EXPAND, detail);
  explain_realize(explain_active(), 9, WHY_REDUCE, NULL);
  for (uint32_t i = 0; i < 100; i++) explain_fuse(explain_active(), i, 7);
  explain_kernel(explain_active(), 0, 7);
  explain_end();
  detail[0] = '!'; /* the recorder kept its own copy */
  explain_realize(explain_active(), 1, WHY_OTHER, "after end: not recorded");
  assert_int_equal(ex.nrealizes, 2);
  assert_int_equal(ex.realizes[0].node, 7);
  assert_int_equal(ex.realizes[0].reason, WHY_EXPAND);
  assert_string_equal(ex.realizes[0].detail, "expanded (4, 1) -> (4, 5)");
  assert_null(ex.realizes[1].detail);
  assert_int_equal(ex.nfuses, 100);
  assert_int_equal(ex.fuses[99].node, 99);
  assert_int_equal(ex.fuses[99].into, 7);
  assert_int_equal(ex.nkernels, 1);
  assert_int_equal(ex.kernels[0].node, 7);
  explain_free(&ex);
  assert_int_equal(ex.nrealizes, 0);
}

static void every_reason_has_a_name_and_a_text(void **state) {
  (void)state;
  for (int r = 0; r < WHY_COUNT; r++) {
    assert_true(strlen(explain_reason_name((ExplainReason)r)) > 0);
    assert_true(strlen(explain_reason_text((ExplainReason)r)) > 0);
  }
  assert_string_equal(explain_reason_name(WHY_UNSAFE_PAD), "unsafe pad");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(calls_without_listener_do_nothing),
    cmocka_unit_test(listener_records_realizes_and_fuses),
    cmocka_unit_test(every_reason_has_a_name_and_a_text),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
