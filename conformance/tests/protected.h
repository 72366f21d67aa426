/* protected.h — running what may raise (common/error.h) in a cmocka test.
 * Include after <cmocka.h>. A test runs a call that may raise as a protected
 * call and looks at the Status afterwards; a hand-written test's body runs
 * protected as a whole, so an exception nobody expected fails the test with
 * its message. */
#ifndef TSCHED_TEST_PROTECTED_H
#define TSCHED_TEST_PROTECTED_H
#include "error.h"

/* The Status of fn(ud) run as a protected call (ST_OK when nothing raised). */
static inline Status attempt(ProtectedFn fn, void *ud) {
  Status st;
  error_protect(&st, fn, ud);
  return st;
}

/* body(NULL) as a protected call; a raise fails the test */
static inline void run_protected(ProtectedFn body) {
  Status st = attempt(body, NULL);
  if (st.kind != ST_OK) fail_msg("raised %s(%s)", st.type, st.msg);
}
#endif
