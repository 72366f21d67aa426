/* ops.h — every op name of the three generations (generated once from tinygrad's
 * ops.py of each tag). 0.9.1 spreads ops over classes (BinaryOps.ADD, LoadOps.CONST);
 * 0.10.x has one enum Ops. Where 0.9.1 has two members of one name in different
 * classes the C name says which: OP_REDUCE_MAX is ReduceOps.MAX, OP_LOADOPS_CONST is
 * LoadOps.CONST (BufferOps.CONST is OP_CONST). */
#ifndef TSCHED_OPS_H
#define TSCHED_OPS_H
#include <stdbool.h>
#include <stdint.h>
#include "version.h"

typedef enum {
  OP_NONE = 0,
  OP_NAME,
  OP_SINK,
  OP_CONTIGUOUS,
  OP_CONTIGUOUS_BACKWARD,
  OP_DETACH,
  OP_KERNEL,
  OP_UNIQUE,
  OP_EMPTY,
  OP_COPY,
  OP_BUFFER_VIEW,
  OP_BLOCK,
  OP_BLOCKSTART,
  OP_BLOCKFORK,
  OP_BLOCKEND,
  OP_RESHAPE,
  OP_PERMUTE,
  OP_EXPAND,
  OP_PAD,
  OP_SHRINK,
  OP_FLIP,
  OP_UNROLL,
  OP_CONTRACT,
  OP_VIEW,
  OP_DEFINE_GLOBAL,
  OP_BUFFER,
  OP_DEFINE_VAR,
  OP_DEFINE_LOCAL,
  OP_DEFINE_ACC,
  OP_VALID,
  OP_SPECIAL,
  OP_NOOP,
  OP_REDUCE_AXIS,
  OP_GEP,
  OP_VECTORIZE,
  OP_CAT,
  OP_CAST,
  OP_BITCAST,
  OP_EXP2,
  OP_LOG2,
  OP_SIN,
  OP_SQRT,
  OP_RECIP,
  OP_NEG,
  OP_LOAD,
  OP_STORE,
  OP_INDEX,
  OP_WMMA,
  OP_ADD,
  OP_MUL,
  OP_IDIV,
  OP_MAX,
  OP_MOD,
  OP_CMPLT,
  OP_CMPNE,
  OP_XOR,
  OP_SHL,
  OP_SHR,
  OP_OR,
  OP_AND,
  OP_THREEFRY,
  OP_SUB,
  OP_FDIV,
  OP_POW,
  OP_WHERE,
  OP_MULACC,
  OP_ASSIGN,
  OP_BIND,
  OP_BARRIER,
  OP_RANGE,
  OP_IF,
  OP_ENDRANGE,
  OP_ENDIF,
  OP_VCONST,
  OP_CONST,
  OP_DEVICE,
  OP_MULTI,
  OP_CUSTOM,
  OP_PRELOAD,
  OP_REDUCE_SUM,
  OP_REDUCE_MAX,
  OP_LOADOPS_CONST,
  OP_REDUCE,         /* 0.10.2+a0b4465 on */
  OP_PTRCAT,
  OP_CUSTOMI,
  OP_IGNORE,
  OP_EXT,          /* 0.9.2 MetaOps.EXT: a non-kernel schedule item */
  OP_SHAPETRACKER, /* 0.9.2+197f8fd UOps.SHAPETRACKER: a ShapeTracker as a node */
  OP_SWIZZLE,      /* 0.9.2+197f8fd UOps.SWIZZLE: a movement op on an AST node */
  OP_ALU,          /* 0.9.2+197f8fd UOps.ALU: its arg is the BinaryOps/UnaryOps/TernaryOps member */
  OP_UOPS_CAST,    /* 0.9.2+197f8fd UOps.CAST (OP_CAST is its LazyBuffer op UnaryOps.CAST) */
  OP_UOPS_BITCAST, /* 0.9.2+197f8fd UOps.BITCAST (OP_BITCAST: UnaryOps.BITCAST) */
  OP_UOPS_ASSIGN,  /* 0.9.2+197f8fd UOps.ASSIGN (OP_ASSIGN: MetaOps.ASSIGN) */
  OP_REDUCE_PROD,  /* 0.9.2+197f8fd ReduceOps.PROD */
  OP_COUNT
} Op;

/* The spelling str(op) of version v ("BinaryOps.ADD", "Ops.ADD"); NULL when v has no such op. */
const char *op_name(Op op, TgVersion v);
/* "Ops.X" for an op of the UOp generations (0.10.x), from whichever of their tables has it, for a node the
 * table of its version lacks (0.10.1's PRELOAD, which its table, 0.10.2's, does not list); NULL: none has it. */
const char *op_uop_name(Op op);
/* Parse str(op) of version v; OP_NONE when unknown. */
Op op_parse(const char *s, TgVersion v);
/* The member's enum value in version v (auto() numbering from 1), for ordering; 0 when absent. */
int op_value(Op op, TgVersion v);
/* ops.py class GroupOp (0.10.x; 0.9.x has only UNSAFE_PAD_OPS): the op sets
 * the schedulers ask about, as listed per version in common/ops.c (feature
 * group_ops). ALU is the union of Unary, Binary and Ternary. */
typedef enum {
  GROUP_UNARY, GROUP_BINARY, GROUP_TERNARY, GROUP_ALU, GROUP_MOVEMENT, GROUP_BUFFER, GROUP_META, GROUP_UNSAFE_PAD,
  GROUP_COUNT
} OpGroup;
typedef struct OpSet { uint64_t bits[(OP_COUNT + 63) / 64]; } OpSet;
typedef struct OpGroups { OpSet group[GROUP_COUNT]; } OpGroups;
/* v's GroupOp sets into g (a generation keeps them in its state) */
void op_groups_init(OpGroups *g, TgVersion v);
/* op in GroupOp.<which> */
static inline bool op_in(const OpGroups *g, OpGroup which, Op op) {
  return (g->group[which].bits[op >> 6] >> (op & 63)) & 1;
}

#endif
