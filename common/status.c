/* status.c — filling a Status (see status.h). */
#include "status.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static bool set(Status *s, StatusKind kind, const char *type, const char *fmt, va_list ap) {
  s->kind = kind;
  snprintf(s->type, sizeof s->type, "%s", type ? type : "");
  vsnprintf(s->msg, sizeof s->msg, fmt, ap);
  return false;
}

bool status_raise(Status *s, const char *type, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  set(s, ST_RAISED, type, fmt, ap);
  va_end(ap);
  return false;
}

bool status_unsupported(Status *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  set(s, ST_UNSUPPORTED, NULL, fmt, ap);
  va_end(ap);
  return false;
}

bool status_bad_input(Status *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  set(s, ST_BAD_INPUT, NULL, fmt, ap);
  va_end(ap);
  return false;
}
