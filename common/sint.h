/* sint.h — tinygrad's `sint` as the int-only ShapeTracker core sees it, the
 * error value every fallible function returns, and Python's integer `//`
 * and `%` (floor division, remainder with the divisor's sign).
 *
 * tinygrad's sint is `int | Node` (0.9.1) or `int | UOp` (0.10.x). This core
 * handles ints only: a symbolic value in a capture is detected when it is
 * decoded and reported as ST_UNSUPPORTED ("symbolic shape: unsupported"),
 * never mis-computed. A later symbolic extension replaces the typedef below
 * with a tagged value (int or expression); every shape, stride, offset and
 * mask bound in view.h / shapetracker.h is spelled `sint` for that reason. */
#ifndef TSCHED_SINT_H
#define TSCHED_SINT_H
#include <stdbool.h>
#include <stdint.h>
#include "status.h"

typedef int64_t sint;

/* The status kinds are status.h's (shared with the whole core; same names and
 * values): ST_OK (no error: a NULL result then means Python's None),
 * ST_RAISED (tinygrad raised: type + message as Python has them),
 * ST_UNSUPPORTED (outside what this port models: symbolic values, an unported
 * rewrite rule, int64 overflow). */
typedef StatusKind StStatus;

typedef struct StError {
  StStatus status;
  const char *type;     /* Python exception class name, e.g. "AssertionError"; "" when not raised */
  const char *message;  /* str(exception), or why unsupported */
} StError;

static inline void st_error_clear(StError *e) { e->status = ST_OK; e->type = ""; e->message = ""; }

/* Python's a // b (floor division). b != 0. */
static inline int64_t py_floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;
  return q;
}

/* Python's a % b (result has the sign of b). b != 0. */
static inline int64_t py_mod(int64_t a, int64_t b) {
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

#endif
