/* error.c — protected calls and raises (error.h). */
#include "error.h"
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Handler {
  jmp_buf jb;
  Status *st;
  struct Handler *prev;
} Handler;

static Handler *innermost; /* the protected call a raise goes to */

bool error_protect(Status *st, ProtectedFn fn, void *ud) {
  Handler h;
  h.st = st;
  h.prev = innermost;
  st->kind = ST_OK;
  innermost = &h;
  if (setjmp(h.jb) == 0) {
    fn(ud);
    innermost = h.prev;
    return true;
  }
  innermost = h.prev; /* the raise filled *st */
  return false;
}

bool error_protected(void) { return innermost != NULL; }

_Noreturn void error_vthrow(StatusKind kind, const char *type, const char *fmt, va_list ap) {
  Handler *h = innermost;
  if (!h) { /* a raise outside every protected call is a bug in tsched */
    fputs("tsched: internal error: an error was raised outside error_protect: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    abort();
  }
  h->st->kind = kind;
  snprintf(h->st->type, sizeof h->st->type, "%s", type ? type : "");
  vsnprintf(h->st->msg, sizeof h->st->msg, fmt, ap);
  longjmp(h->jb, 1);
}

_Noreturn void error_raise(const char *type, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  error_vthrow(ST_RAISED, type, fmt, ap);
}

_Noreturn void error_unsupported(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  error_vthrow(ST_UNSUPPORTED, NULL, fmt, ap);
}

_Noreturn void error_bad_input(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  error_vthrow(ST_BAD_INPUT, NULL, fmt, ap);
}

_Noreturn static void rethrow_fmt(StatusKind kind, const char *type, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  error_vthrow(kind, type, fmt, ap);
}

_Noreturn void error_rethrow(const Status *st) {
  Status copy = *st; /* st may be the handler's own Status */
  rethrow_fmt(copy.kind, copy.type, "%s", copy.msg);
  abort(); /* not reached */
}
