/* status.h — how a step ends: fine, a Python exception tinygrad would raise
 * (type + message, compared with a capture's recorded `error`), an input the
 * code cannot represent yet (`unsupported`, with the reason), or bad input
 * (a malformed capture: the message names the place). */
#ifndef TSCHED_STATUS_H
#define TSCHED_STATUS_H
#include <stdbool.h>

typedef enum { ST_OK = 0, ST_RAISED, ST_UNSUPPORTED, ST_BAD_INPUT } StatusKind;

typedef struct Status {
  StatusKind kind;
  char type[64];      /* ST_RAISED: Python exception type, e.g. "RuntimeError" */
  char msg[1024];     /* message, reason, or the place that is malformed */
} Status;

/* Set s and return false, so `return fail_raise(s, ...)` reads naturally. */
bool status_raise(Status *s, const char *type, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 3, 4)))
#endif
  ;
bool status_unsupported(Status *s, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;
bool status_bad_input(Status *s, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;
#endif
