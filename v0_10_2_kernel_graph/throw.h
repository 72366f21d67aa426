/* throw.h — how a deep step of the 0.10.2 scheduler stops: Python raises an
 * exception from anywhere (an assert in ShapeTracker code, a RuntimeError in
 * the scheduler), so the C port unwinds to the entry point's protected call
 * (common/error.h, as Lua's luaD_throw does). Everything lives in the
 * capture's Arena, so nothing leaks. kg_throw raises ST_RAISED with the
 * Python type and message, or ST_UNSUPPORTED / ST_BAD_INPUT. */
#ifndef KG_THROW_H
#define KG_THROW_H
#include <stdarg.h>
#include "error.h"
#include "status.h"

typedef struct Thrower {
  Status *st; /* the entry point's Status, which the protected call fills */
} Thrower;

_Noreturn void kg_throw(Thrower *t, StatusKind kind, const char *type, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 4, 5)))
#endif
  ;
_Noreturn void kg_vthrow(Thrower *t, StatusKind kind, const char *type, const char *fmt, va_list ap);
#endif
