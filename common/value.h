/* value.h — the `arg` of a LazyOp or UOp, and any other Python value a
 * scheduler keeps: None, bool, int (one outside int64, e.g. a uint64 CONST's
 * 2**64-1, is its own kind, held in 128 bits), float (kept apart from int), str (enum
 * members are their str()), tuple, DType, ShapeTracker, MemBuffer,
 * ConstBuffer, a symbolic value (kept, not computed with yet) and an opaque
 * repr token. Values are hash-consed in an Interner, so two values are
 * structurally equal exactly when their pointers are equal. */
#ifndef TSCHED_VALUE_H
#define TSCHED_VALUE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arena.h"
#include "dtype.h"
#include "json.h"

typedef struct ShapeTracker ShapeTracker;   /* common/shapetracker.h */
/* A Python int as the schedulers compute with it beyond int64: 128 bits, two's
 * complement (GCC/Clang's __int128). An int beyond it is reported unsupported. */
typedef __int128 PyInt;
#define PYINT_MAX ((PyInt)(((unsigned __int128)1 << 127) - 1))
#define PYINT_MIN (-PYINT_MAX - 1)
enum { PYINT_TEXT = 48 };                   /* room for a PyInt's decimal text and NUL */
typedef struct Interner Interner;           /* common/intern.h */

typedef enum {
  V_NONE, V_BOOL, V_INT, V_FLOAT, V_STR, V_TUPLE, V_DTYPE, V_ST,
  V_MEMBUFFER,   /* 0.9.1 MemBuffer(idx, dtype, st) */
  V_CONSTBUFFER, /* 0.9.1 ConstBuffer(val, dtype, st) */
  V_SYM,         /* {"sym": EXPR}: a symbolic value, kept as its canonical JSON text */
  V_REPR,        /* {"repr": "..."}: an opaque token (a CUSTOM op's function) */
  V_BUFREF,      /* a buffer reference: int index or "new:K"/"plan:K"/"u:K" text */
  V_BIGINT       /* a Python int outside int64 (within PyInt), held in u.big */
} ValueKind;

typedef struct Value Value;
struct Value {
  ValueKind kind;
  uint64_t hash;
  union {
    bool b;
    int64_t i;
    struct { uint64_t lo; int64_t hi; } big;        /* V_BIGINT: its PyInt's halves (value_pyint) */
    double f;
    struct { const char *s; size_t n; } str;        /* V_STR, V_SYM, V_REPR, V_BUFREF (text) */
    struct { size_t n; const Value *const *items; } tuple;
    const DType *dtype;
    const ShapeTracker *st;
    struct { int64_t idx; const DType *dtype; const ShapeTracker *st; } membuf;
    struct { const Value *val; const DType *dtype; const ShapeTracker *st; } constbuf;
  } u;
};

const Value *v_none(Interner *in);
const Value *v_bool(Interner *in, bool b);
const Value *v_int(Interner *in, int64_t i);
const Value *v_float(Interner *in, double f);
/* The Python int x: a V_INT when it fits int64, else a V_BIGINT, so that
 * one int is always one Value. */
const Value *v_pyint(Interner *in, PyInt x);
const Value *v_str(Interner *in, const char *s);
const Value *v_strn(Interner *in, ValueKind kind, const char *s, size_t n);  /* V_STR/V_SYM/V_REPR/V_BUFREF */
const Value *v_tuple(Interner *in, size_t n, const Value *const *items);
const Value *v_dtype(Interner *in, const DType *d);
const Value *v_st(Interner *in, const ShapeTracker *st);
const Value *v_membuffer(Interner *in, int64_t idx, const DType *d, const ShapeTracker *st);
const Value *v_constbuffer(Interner *in, const Value *val, const DType *d, const ShapeTracker *st);

/* Python truthiness (bool(x)). */
bool value_truthy(const Value *v);
/* A Python int (V_INT or V_BIGINT; not a bool). */
bool value_is_int(const Value *v);
/* A Python number: bool, int (V_INT, V_BIGINT) or float. */
bool value_is_number(const Value *v);
/* Python `v == i` for a number v (bool, int or float) and an int i; false
 * for anything else. A V_BIGINT equals no int64; a float equals i only when
 * it is exactly i (Python compares int and float exactly). */
bool value_eq_int(const Value *v, int64_t i);
/* An int or bool as a PyInt (0 for anything else). */
PyInt value_pyint(const Value *v);
/* str(x) into buf (PYINT_TEXT bytes); returns its length. */
size_t pyint_format(PyInt x, char *buf);
/* int(s) of a JSON integer text (-?[0-9]+); false when it is not one or
 * does not fit a PyInt. */
bool pyint_parse(const char *s, size_t n, PyInt *out);
/* int(f) of a finite float (truncation toward zero), as a V_INT or V_BIGINT;
 * NULL when f is NaN, infinite or outside [-2**127, 2**127). */
const Value *v_int_of_float(Interner *in, double f);
/* float(v) of a number v (bool, int, float): round to nearest, as Python. */
double value_to_double(const Value *v);
#endif
