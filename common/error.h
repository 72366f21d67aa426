/* error.h — the one way a step of tsched stops.
 *
 * tinygrad raises Python exceptions from anywhere (an assert deep in View
 * code, a RuntimeError in the scheduler) and they unwind every caller up to
 * the nearest `try` or the top. tsched does the same, as Lua does
 * (luaD_throw / luaD_rawrunprotected): error_protect runs a function under a
 * handler; error_raise and its siblings fill the handler's Status and
 * longjmp back to it. Callers in between need no checks. What a raise
 * skips must be owned by an Arena (freed by whoever set up the protected
 * call), never by malloc. See docs/core.md, "Errors". */
#ifndef TSCHED_ERROR_H
#define TSCHED_ERROR_H
#include <stdarg.h>
#include <stdbool.h>
#include "status.h"

typedef void (*ProtectedFn)(void *ud);

/* Runs fn(ud). True when it returned; false when something raised, with
 * *st saying what (a Python exception, unsupported, or bad input).
 * Protected calls nest: a raise goes to the innermost one (Python's
 * `try: ... except` is an error_protect whose caller inspects st). */
bool error_protect(Status *st, ProtectedFn fn, void *ud);

/* A Python exception tinygrad would raise: its type and message. */
_Noreturn void error_raise(const char *type, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;
/* The capture needs something tsched cannot represent (the reason). */
_Noreturn void error_unsupported(const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 1, 2)))
#endif
  ;
/* The capture is malformed (the message names the place). */
_Noreturn void error_bad_input(const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 1, 2)))
#endif
  ;
_Noreturn void error_vthrow(StatusKind kind, const char *type, const char *fmt, va_list ap);
/* Raise st again (st->kind != ST_OK), as a bare `raise` in an except block does. */
_Noreturn void error_rethrow(const Status *st);
/* True inside some error_protect (a raise has somewhere to go). */
bool error_protected(void);
#endif
