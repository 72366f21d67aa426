/* throw.c — unwinding to the entry point (throw.h). */
#include "throw.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

_Noreturn void kg_vthrow(Thrower *t, StatusKind kind, const char *type, const char *fmt, va_list ap) {
  Status *s = t->st;
  s->kind = kind;
  snprintf(s->type, sizeof s->type, "%s", type ? type : "");
  vsnprintf(s->msg, sizeof s->msg, fmt, ap);
  longjmp(t->jb, 1);
}

_Noreturn void kg_throw(Thrower *t, StatusKind kind, const char *type, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kg_vthrow(t, kind, type, fmt, ap);
}
