/* uop.h — one node type for 0.9.1 LazyOps and 0.10.x UOps: (op, dtype, arg,
 * src). Nodes are hash-consed in an Interner (as 0.10.x's UOp metaclass
 * cache does), so structurally equal nodes are one node and equality is
 * pointer equality. 0.9.1 LazyOps compare structurally, which hash-consing
 * gives too; they carry dtype NULL. */
#ifndef TSCHED_UOP_H
#define TSCHED_UOP_H
#include "dtype.h"
#include "ops.h"
#include "value.h"

typedef struct UOp UOp;
enum { UOP_MAX_SRC = (1 << 24) - 1 };
struct UOp { /* (op and nsrc in one word, the sources in the same
               * allocation: 32 bytes + 8 a source) */
  Op op : 8;                   /* OP_COUNT < 256 */
  uint32_t nsrc : 24;          /* at most UOP_MAX_SRC */
  uint32_t id;                 /* creation order within the Interner, from 0 */
  const DType *dtype;          /* NULL for 0.9.1 LazyOps */
  const Value *arg;            /* never NULL: v_none() for None */
  uint64_t hash;
  const UOp *const src[];      /* nsrc of them */
};
_Static_assert(OP_COUNT <= 256, "UOp.op is 8 bits");

const UOp *uop_new(Interner *in, Op op, const DType *dtype, const Value *arg, uint32_t nsrc, const UOp *const *src);
/* Convenience for 0-3 sources. */
const UOp *uop0(Interner *in, Op op, const DType *dtype, const Value *arg);
const UOp *uop1(Interner *in, Op op, const DType *dtype, const Value *arg, const UOp *a);
const UOp *uop2(Interner *in, Op op, const DType *dtype, const Value *arg, const UOp *a, const UOp *b);
const UOp *uop3(Interner *in, Op op, const DType *dtype, const Value *arg, const UOp *a, const UOp *b, const UOp *c);
/* The same node with other sources (UOp.replace(src=...)). */
const UOp *uop_with_src(Interner *in, const UOp *u, uint32_t nsrc, const UOp *const *src);

/* Number of nodes created so far (ids are below this). */
uint32_t uop_count(const Interner *in);

/* Post-order toposort from roots, sources first in order, each node once
 * (0.10.x UOp.toposort). Iterative. Returns the count; *out is arena memory. */
size_t uop_toposort(Arena *a, const UOp *const *roots, size_t nroots, const UOp ***out);
#endif
