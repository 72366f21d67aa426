/* throw.c — unwinding to the entry point (throw.h). */
#include "throw.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

_Noreturn void kg_throw(Thrower *t, StatusKind kind, const char *type, const char *fmt, ...) {
  Status *s = t->st;
  s->kind = kind;
  snprintf(s->type, sizeof s->type, "%s", type ? type : "");
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->msg, sizeof s->msg, fmt, ap);
  va_end(ap);
  longjmp(t->jb, 1);
}
