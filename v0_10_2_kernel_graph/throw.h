/* throw.h — how a deep step of the 0.10.2 scheduler stops: Python raises an
 * exception from anywhere (an assert in ShapeTracker code, a RuntimeError in
 * the scheduler), so the C port unwinds with longjmp to the entry point, as
 * Lua's luaD_throw does. Everything lives in the capture's Arena, so nothing
 * leaks. kg_throw fills the Status first (ST_RAISED with the Python type and
 * message, or ST_UNSUPPORTED / ST_BAD_INPUT). */
#ifndef KG_THROW_H
#define KG_THROW_H
#include <setjmp.h>
#include <stdarg.h>
#include "status.h"

typedef struct Thrower {
  jmp_buf jb;
  Status *st;
} Thrower;

_Noreturn void kg_throw(Thrower *t, StatusKind kind, const char *type, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 4, 5)))
#endif
  ;
_Noreturn void kg_vthrow(Thrower *t, StatusKind kind, const char *type, const char *fmt, va_list ap);
#endif
