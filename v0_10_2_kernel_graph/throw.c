/* throw.c — unwinding to the entry point (throw.h), through common/error.h. */
#include "throw.h"
#include <stdarg.h>

_Noreturn void kg_vthrow(Thrower *t, StatusKind kind, const char *type, const char *fmt, va_list ap) {
  (void)t;
  error_vthrow(kind, type, fmt, ap);
}

_Noreturn void kg_throw(Thrower *t, StatusKind kind, const char *type, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kg_vthrow(t, kind, type, fmt, ap);
}
