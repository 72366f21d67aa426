/* value.h — the `arg` of a LazyOp or UOp, and any other Python value a
 * scheduler keeps: None, bool, int, float (kept apart from int), str (enum
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
typedef struct Interner Interner;           /* common/intern.h */

typedef enum {
  V_NONE, V_BOOL, V_INT, V_FLOAT, V_STR, V_TUPLE, V_DTYPE, V_ST,
  V_MEMBUFFER,   /* 0.9.1 MemBuffer(idx, dtype, st) */
  V_CONSTBUFFER, /* 0.9.1 ConstBuffer(val, dtype, st) */
  V_SYM,         /* {"sym": EXPR}: a symbolic value, kept as its canonical JSON text */
  V_REPR,        /* {"repr": "..."}: an opaque token (a CUSTOM op's function) */
  V_BUFREF       /* a buffer reference: int index or "new:K"/"plan:K"/"u:K" text */
} ValueKind;

typedef struct Value Value;
struct Value {
  ValueKind kind;
  uint64_t hash;
  union {
    bool b;
    int64_t i;
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
const Value *v_str(Interner *in, const char *s);
const Value *v_strn(Interner *in, ValueKind kind, const char *s, size_t n);  /* V_STR/V_SYM/V_REPR/V_BUFREF */
const Value *v_tuple(Interner *in, size_t n, const Value *const *items);
const Value *v_dtype(Interner *in, const DType *d);
const Value *v_st(Interner *in, const ShapeTracker *st);
const Value *v_membuffer(Interner *in, int64_t idx, const DType *d, const ShapeTracker *st);
const Value *v_constbuffer(Interner *in, const Value *val, const DType *d, const ShapeTracker *st);

/* Python truthiness (bool(x)). */
bool value_truthy(const Value *v);
#endif
