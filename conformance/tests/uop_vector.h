/* uop_vector.h — the UOp encoding of the simplifier and sint vectors
 * (docs/shapetracker.md): [op, dtype, arg, [src, ...]], arg the CONST value,
 * [name, lo, hi] of a DEFINE_VAR, the RANGE axis, else null. For the tests
 * that replay them (test_shapetracker.c, test_symbolic_uop.c). */
#ifndef TSCHED_UOP_VECTOR_H
#define TSCHED_UOP_VECTOR_H
#include <string.h>
#include "json.h"
#include "symbolic.h"

/* a recorded [op, dtype, arg, [src...]] -> the (hash-consed) SymUOp, NULL if it names something unknown */
static const SymUOp *decode_uop(SymCtx *c, const JVal *j) {
  SymOp op;
  if (!suop_op_from_name(j->u.arr[0]->u.s, &op)) return NULL;
  const char *dt = j->u.arr[1]->u.s;
  if (strcmp(dt, "int") != 0 && strcmp(dt, "bool") != 0) return NULL;
  const JVal *arg = j->u.arr[2], *src = j->u.arr[3];
  const SymUOp *srcs[3];
  if (src->n > 3) return NULL;
  for (size_t i = 0; i < src->n; i++)
    if ((srcs[i] = decode_uop(c, src->u.arr[i])) == NULL) return NULL;
  int64_t a = arg->kind == J_INT ? arg->u.i : arg->kind == J_BOOL ? arg->u.b : 0, lo = 0, hi = 0;
  const char *name = NULL;
  if (op == SU_DEFINE_VAR) {
    name = arg->u.arr[0]->u.s;
    lo = arg->u.arr[1]->u.i;
    hi = arg->u.arr[2]->u.i;
  }
  return suop_make(c, op, strcmp(dt, "bool") == 0 ? SDT_BOOL : SDT_INT, (int)src->n, srcs, a, name, lo, hi);
}
#endif
