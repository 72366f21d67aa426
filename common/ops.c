/* ops.c — op spellings and enum values per version (see ops.h). */
#include "ops.h"
#include <string.h>

typedef struct { Op op; const char *name; } OpSpelling;

/* 0.9.1, by class, in declaration order (auto() restarts at 1 in each class). */
static const OpSpelling ops_0_9_1[] = {
  {OP_EXP2, "UnaryOps.EXP2"},
  {OP_LOG2, "UnaryOps.LOG2"},
  {OP_CAST, "UnaryOps.CAST"},
  {OP_BITCAST, "UnaryOps.BITCAST"},
  {OP_SIN, "UnaryOps.SIN"},
  {OP_SQRT, "UnaryOps.SQRT"},
  {OP_NEG, "UnaryOps.NEG"},
  {OP_RECIP, "UnaryOps.RECIP"},
  {OP_ADD, "BinaryOps.ADD"},
  {OP_MUL, "BinaryOps.MUL"},
  {OP_IDIV, "BinaryOps.IDIV"},
  {OP_MAX, "BinaryOps.MAX"},
  {OP_MOD, "BinaryOps.MOD"},
  {OP_CMPLT, "BinaryOps.CMPLT"},
  {OP_CMPNE, "BinaryOps.CMPNE"},
  {OP_XOR, "BinaryOps.XOR"},
  {OP_SHR, "BinaryOps.SHR"},
  {OP_SHL, "BinaryOps.SHL"},
  {OP_WHERE, "TernaryOps.WHERE"},
  {OP_MULACC, "TernaryOps.MULACC"},
  {OP_REDUCE_SUM, "ReduceOps.SUM"},
  {OP_REDUCE_MAX, "ReduceOps.MAX"},
  {OP_LOAD, "BufferOps.LOAD"},
  {OP_CONST, "BufferOps.CONST"},
  {OP_STORE, "BufferOps.STORE"},
  {OP_EMPTY, "LoadOps.EMPTY"},
  {OP_LOADOPS_CONST, "LoadOps.CONST"},
  {OP_COPY, "LoadOps.COPY"},
  {OP_CONTIGUOUS, "LoadOps.CONTIGUOUS"},
  {OP_CUSTOM, "LoadOps.CUSTOM"},
  {OP_ASSIGN, "LoadOps.ASSIGN"},
  {OP_VIEW, "LoadOps.VIEW"},
};
/* 0.9.2 and 0.9.2+197f8fd, by class, in declaration order: MetaOps replaced
 * LoadOps (with KERNEL and EXT), BinaryOps has SHL before SHR and OR, AND,
 * THREEFRY, ReduceOps has WMMA. */
static const OpSpelling ops_0_9_2[] = {
  {OP_EXP2, "UnaryOps.EXP2"},
  {OP_LOG2, "UnaryOps.LOG2"},
  {OP_CAST, "UnaryOps.CAST"},
  {OP_BITCAST, "UnaryOps.BITCAST"},
  {OP_SIN, "UnaryOps.SIN"},
  {OP_SQRT, "UnaryOps.SQRT"},
  {OP_NEG, "UnaryOps.NEG"},
  {OP_RECIP, "UnaryOps.RECIP"},
  {OP_ADD, "BinaryOps.ADD"},
  {OP_MUL, "BinaryOps.MUL"},
  {OP_IDIV, "BinaryOps.IDIV"},
  {OP_MAX, "BinaryOps.MAX"},
  {OP_MOD, "BinaryOps.MOD"},
  {OP_CMPLT, "BinaryOps.CMPLT"},
  {OP_CMPNE, "BinaryOps.CMPNE"},
  {OP_XOR, "BinaryOps.XOR"},
  {OP_SHL, "BinaryOps.SHL"},
  {OP_SHR, "BinaryOps.SHR"},
  {OP_OR, "BinaryOps.OR"},
  {OP_AND, "BinaryOps.AND"},
  {OP_THREEFRY, "BinaryOps.THREEFRY"},
  {OP_WHERE, "TernaryOps.WHERE"},
  {OP_MULACC, "TernaryOps.MULACC"},
  {OP_REDUCE_SUM, "ReduceOps.SUM"},
  {OP_REDUCE_MAX, "ReduceOps.MAX"},
  {OP_WMMA, "ReduceOps.WMMA"},
  {OP_LOAD, "BufferOps.LOAD"},
  {OP_CONST, "BufferOps.CONST"},
  {OP_STORE, "BufferOps.STORE"},
  {OP_EMPTY, "MetaOps.EMPTY"},
  {OP_LOADOPS_CONST, "MetaOps.CONST"},
  {OP_COPY, "MetaOps.COPY"},
  {OP_CONTIGUOUS, "MetaOps.CONTIGUOUS"},
  {OP_CUSTOM, "MetaOps.CUSTOM"},
  {OP_ASSIGN, "MetaOps.ASSIGN"},
  {OP_VIEW, "MetaOps.VIEW"},
  {OP_KERNEL, "MetaOps.KERNEL"},
  {OP_EXT, "MetaOps.EXT"},
};
/* 0.9.2+197f8fd: the LazyBuffer op classes (UnaryOps ... MetaOps), then class UOps
 * (ops.py), in declaration order. */
static const OpSpelling ops_0_9_2_197f8fd[] = {
  {OP_EXP2, "UnaryOps.EXP2"},
  {OP_LOG2, "UnaryOps.LOG2"},
  {OP_CAST, "UnaryOps.CAST"},
  {OP_BITCAST, "UnaryOps.BITCAST"},
  {OP_SIN, "UnaryOps.SIN"},
  {OP_SQRT, "UnaryOps.SQRT"},
  {OP_RECIP, "UnaryOps.RECIP"},
  {OP_NEG, "UnaryOps.NEG"},
  {OP_ADD, "BinaryOps.ADD"},
  {OP_MUL, "BinaryOps.MUL"},
  {OP_IDIV, "BinaryOps.IDIV"},
  {OP_MAX, "BinaryOps.MAX"},
  {OP_MOD, "BinaryOps.MOD"},
  {OP_CMPLT, "BinaryOps.CMPLT"},
  {OP_CMPNE, "BinaryOps.CMPNE"},
  {OP_XOR, "BinaryOps.XOR"},
  {OP_SHL, "BinaryOps.SHL"},
  {OP_SHR, "BinaryOps.SHR"},
  {OP_OR, "BinaryOps.OR"},
  {OP_AND, "BinaryOps.AND"},
  {OP_THREEFRY, "BinaryOps.THREEFRY"},
  {OP_SUB, "BinaryOps.SUB"},
  {OP_WHERE, "TernaryOps.WHERE"},
  {OP_MULACC, "TernaryOps.MULACC"},
  {OP_REDUCE_SUM, "ReduceOps.SUM"},
  {OP_REDUCE_PROD, "ReduceOps.PROD"},
  {OP_REDUCE_MAX, "ReduceOps.MAX"},
  {OP_EMPTY, "MetaOps.EMPTY"},
  {OP_LOADOPS_CONST, "MetaOps.CONST"},
  {OP_COPY, "MetaOps.COPY"},
  {OP_CONTIGUOUS, "MetaOps.CONTIGUOUS"},
  {OP_CUSTOM, "MetaOps.CUSTOM"},
  {OP_ASSIGN, "MetaOps.ASSIGN"},
  {OP_VIEW, "MetaOps.VIEW"},
  {OP_SINK, "UOps.SINK"},
  {OP_EXT, "UOps.EXT"},
  {OP_EXPAND, "UOps.EXPAND"},
  {OP_CONTRACT, "UOps.CONTRACT"},
  {OP_SHAPETRACKER, "UOps.SHAPETRACKER"},
  {OP_SWIZZLE, "UOps.SWIZZLE"},
  {OP_DEFINE_GLOBAL, "UOps.DEFINE_GLOBAL"},
  {OP_DEFINE_VAR, "UOps.DEFINE_VAR"},
  {OP_DEFINE_LOCAL, "UOps.DEFINE_LOCAL"},
  {OP_DEFINE_ACC, "UOps.DEFINE_ACC"},
  {OP_VCONST, "UOps.VCONST"},
  {OP_CONST, "UOps.CONST"},
  {OP_VALID, "UOps.VALID"},
  {OP_SPECIAL, "UOps.SPECIAL"},
  {OP_NOOP, "UOps.NOOP"},
  {OP_REDUCE, "UOps.REDUCE"},
  {OP_REDUCE_AXIS, "UOps.REDUCE_AXIS"},
  {OP_GEP, "UOps.GEP"},
  {OP_VECTORIZE, "UOps.VECTORIZE"},
  {OP_UOPS_CAST, "UOps.CAST"},
  {OP_UOPS_BITCAST, "UOps.BITCAST"},
  {OP_LOAD, "UOps.LOAD"},
  {OP_ALU, "UOps.ALU"},
  {OP_WMMA, "UOps.WMMA"},
  {OP_STORE, "UOps.STORE"},
  {OP_UOPS_ASSIGN, "UOps.ASSIGN"},
  {OP_BARRIER, "UOps.BARRIER"},
  {OP_IF, "UOps.IF"},
  {OP_RANGE, "UOps.RANGE"},
  {OP_ENDRANGE, "UOps.ENDRANGE"},
  {OP_ENDIF, "UOps.ENDIF"},
};
/* 0.10.0: class Ops(FastEnum) in declaration order. */
static const OpSpelling ops_0_10_0[] = {
  {OP_SINK, "Ops.SINK"},
  {OP_CONTIGUOUS, "Ops.CONTIGUOUS"},
  {OP_PRELOAD, "Ops.PRELOAD"},
  {OP_COPY, "Ops.COPY"},
  {OP_EMPTY, "Ops.EMPTY"},
  {OP_BUFFER_VIEW, "Ops.BUFFER_VIEW"},
  {OP_EXPAND, "Ops.EXPAND"},
  {OP_CONTRACT, "Ops.CONTRACT"},
  {OP_VIEW, "Ops.VIEW"},
  {OP_DEFINE_GLOBAL, "Ops.DEFINE_GLOBAL"},
  {OP_BUFFER, "Ops.BUFFER"},
  {OP_DEFINE_VAR, "Ops.DEFINE_VAR"},
  {OP_DEFINE_LOCAL, "Ops.DEFINE_LOCAL"},
  {OP_DEFINE_ACC, "Ops.DEFINE_ACC"},
  {OP_VALID, "Ops.VALID"},
  {OP_SPECIAL, "Ops.SPECIAL"},
  {OP_NOOP, "Ops.NOOP"},
  {OP_REDUCE_AXIS, "Ops.REDUCE_AXIS"},
  {OP_GEP, "Ops.GEP"},
  {OP_VECTORIZE, "Ops.VECTORIZE"},
  {OP_CAST, "Ops.CAST"},
  {OP_BITCAST, "Ops.BITCAST"},
  {OP_EXP2, "Ops.EXP2"},
  {OP_LOG2, "Ops.LOG2"},
  {OP_SIN, "Ops.SIN"},
  {OP_SQRT, "Ops.SQRT"},
  {OP_RECIP, "Ops.RECIP"},
  {OP_NEG, "Ops.NEG"},
  {OP_LOAD, "Ops.LOAD"},
  {OP_WMMA, "Ops.WMMA"},
  {OP_ADD, "Ops.ADD"},
  {OP_MUL, "Ops.MUL"},
  {OP_IDIV, "Ops.IDIV"},
  {OP_MAX, "Ops.MAX"},
  {OP_MOD, "Ops.MOD"},
  {OP_CMPLT, "Ops.CMPLT"},
  {OP_CMPNE, "Ops.CMPNE"},
  {OP_XOR, "Ops.XOR"},
  {OP_SHL, "Ops.SHL"},
  {OP_SHR, "Ops.SHR"},
  {OP_OR, "Ops.OR"},
  {OP_AND, "Ops.AND"},
  {OP_THREEFRY, "Ops.THREEFRY"},
  {OP_SUB, "Ops.SUB"},
  {OP_FDIV, "Ops.FDIV"},
  {OP_WHERE, "Ops.WHERE"},
  {OP_MULACC, "Ops.MULACC"},
  {OP_STORE, "Ops.STORE"},
  {OP_ASSIGN, "Ops.ASSIGN"},
  {OP_BIND, "Ops.BIND"},
  {OP_INDEX, "Ops.INDEX"},
  {OP_BARRIER, "Ops.BARRIER"},
  {OP_IF, "Ops.IF"},
  {OP_RANGE, "Ops.RANGE"},
  {OP_ENDRANGE, "Ops.ENDRANGE"},
  {OP_ENDIF, "Ops.ENDIF"},
  {OP_VCONST, "Ops.VCONST"},
  {OP_CONST, "Ops.CONST"},
};
/* 0.10.2: class Ops(FastEnum) in declaration order. */
static const OpSpelling ops_0_10_2[] = {
  {OP_NAME, "Ops.NAME"},
  {OP_SINK, "Ops.SINK"},
  {OP_CONTIGUOUS, "Ops.CONTIGUOUS"},
  {OP_CONTIGUOUS_BACKWARD, "Ops.CONTIGUOUS_BACKWARD"},
  {OP_DETACH, "Ops.DETACH"},
  {OP_KERNEL, "Ops.KERNEL"},
  {OP_UNIQUE, "Ops.UNIQUE"},
  {OP_EMPTY, "Ops.EMPTY"},
  {OP_COPY, "Ops.COPY"},
  {OP_BUFFER_VIEW, "Ops.BUFFER_VIEW"},
  {OP_BLOCK, "Ops.BLOCK"},
  {OP_BLOCKSTART, "Ops.BLOCKSTART"},
  {OP_BLOCKFORK, "Ops.BLOCKFORK"},
  {OP_BLOCKEND, "Ops.BLOCKEND"},
  {OP_RESHAPE, "Ops.RESHAPE"},
  {OP_PERMUTE, "Ops.PERMUTE"},
  {OP_EXPAND, "Ops.EXPAND"},
  {OP_PAD, "Ops.PAD"},
  {OP_SHRINK, "Ops.SHRINK"},
  {OP_FLIP, "Ops.FLIP"},
  {OP_UNROLL, "Ops.UNROLL"},
  {OP_CONTRACT, "Ops.CONTRACT"},
  {OP_VIEW, "Ops.VIEW"},
  {OP_DEFINE_GLOBAL, "Ops.DEFINE_GLOBAL"},
  {OP_BUFFER, "Ops.BUFFER"},
  {OP_DEFINE_VAR, "Ops.DEFINE_VAR"},
  {OP_DEFINE_LOCAL, "Ops.DEFINE_LOCAL"},
  {OP_DEFINE_ACC, "Ops.DEFINE_ACC"},
  {OP_VALID, "Ops.VALID"},
  {OP_SPECIAL, "Ops.SPECIAL"},
  {OP_NOOP, "Ops.NOOP"},
  {OP_REDUCE_AXIS, "Ops.REDUCE_AXIS"},
  {OP_GEP, "Ops.GEP"},
  {OP_VECTORIZE, "Ops.VECTORIZE"},
  {OP_CAT, "Ops.CAT"},
  {OP_CAST, "Ops.CAST"},
  {OP_BITCAST, "Ops.BITCAST"},
  {OP_EXP2, "Ops.EXP2"},
  {OP_LOG2, "Ops.LOG2"},
  {OP_SIN, "Ops.SIN"},
  {OP_SQRT, "Ops.SQRT"},
  {OP_RECIP, "Ops.RECIP"},
  {OP_NEG, "Ops.NEG"},
  {OP_LOAD, "Ops.LOAD"},
  {OP_STORE, "Ops.STORE"},
  {OP_INDEX, "Ops.INDEX"},
  {OP_WMMA, "Ops.WMMA"},
  {OP_ADD, "Ops.ADD"},
  {OP_MUL, "Ops.MUL"},
  {OP_IDIV, "Ops.IDIV"},
  {OP_MAX, "Ops.MAX"},
  {OP_MOD, "Ops.MOD"},
  {OP_CMPLT, "Ops.CMPLT"},
  {OP_CMPNE, "Ops.CMPNE"},
  {OP_XOR, "Ops.XOR"},
  {OP_SHL, "Ops.SHL"},
  {OP_SHR, "Ops.SHR"},
  {OP_OR, "Ops.OR"},
  {OP_AND, "Ops.AND"},
  {OP_THREEFRY, "Ops.THREEFRY"},
  {OP_SUB, "Ops.SUB"},
  {OP_FDIV, "Ops.FDIV"},
  {OP_POW, "Ops.POW"},
  {OP_WHERE, "Ops.WHERE"},
  {OP_MULACC, "Ops.MULACC"},
  {OP_ASSIGN, "Ops.ASSIGN"},
  {OP_BIND, "Ops.BIND"},
  {OP_BARRIER, "Ops.BARRIER"},
  {OP_RANGE, "Ops.RANGE"},
  {OP_IF, "Ops.IF"},
  {OP_ENDRANGE, "Ops.ENDRANGE"},
  {OP_ENDIF, "Ops.ENDIF"},
  {OP_VCONST, "Ops.VCONST"},
  {OP_CONST, "Ops.CONST"},
  {OP_DEVICE, "Ops.DEVICE"},
  {OP_MULTI, "Ops.MULTI"},
  {OP_CUSTOM, "Ops.CUSTOM"},
};

/* 0.10.2+a0b4465: class Ops(FastEnum) in declaration order (REDUCE, PTRCAT, CUSTOMI, IGNORE new;
 * the BinaryOps reordered, MUL first). */
static const OpSpelling ops_0_10_2_a0b4465[] = {
  {OP_NAME, "Ops.NAME"},
  {OP_SINK, "Ops.SINK"},
  {OP_CONTIGUOUS, "Ops.CONTIGUOUS"},
  {OP_CONTIGUOUS_BACKWARD, "Ops.CONTIGUOUS_BACKWARD"},
  {OP_DETACH, "Ops.DETACH"},
  {OP_KERNEL, "Ops.KERNEL"},
  {OP_UNIQUE, "Ops.UNIQUE"},
  {OP_EMPTY, "Ops.EMPTY"},
  {OP_COPY, "Ops.COPY"},
  {OP_BUFFER_VIEW, "Ops.BUFFER_VIEW"},
  {OP_BLOCK, "Ops.BLOCK"},
  {OP_BLOCKSTART, "Ops.BLOCKSTART"},
  {OP_BLOCKFORK, "Ops.BLOCKFORK"},
  {OP_BLOCKEND, "Ops.BLOCKEND"},
  {OP_RESHAPE, "Ops.RESHAPE"},
  {OP_PERMUTE, "Ops.PERMUTE"},
  {OP_EXPAND, "Ops.EXPAND"},
  {OP_PAD, "Ops.PAD"},
  {OP_SHRINK, "Ops.SHRINK"},
  {OP_FLIP, "Ops.FLIP"},
  {OP_UNROLL, "Ops.UNROLL"},
  {OP_CONTRACT, "Ops.CONTRACT"},
  {OP_VIEW, "Ops.VIEW"},
  {OP_DEFINE_GLOBAL, "Ops.DEFINE_GLOBAL"},
  {OP_BUFFER, "Ops.BUFFER"},
  {OP_DEFINE_VAR, "Ops.DEFINE_VAR"},
  {OP_DEFINE_LOCAL, "Ops.DEFINE_LOCAL"},
  {OP_DEFINE_ACC, "Ops.DEFINE_ACC"},
  {OP_VALID, "Ops.VALID"},
  {OP_SPECIAL, "Ops.SPECIAL"},
  {OP_NOOP, "Ops.NOOP"},
  {OP_REDUCE_AXIS, "Ops.REDUCE_AXIS"},
  {OP_REDUCE, "Ops.REDUCE"},
  {OP_GEP, "Ops.GEP"},
  {OP_VECTORIZE, "Ops.VECTORIZE"},
  {OP_CAT, "Ops.CAT"},
  {OP_PTRCAT, "Ops.PTRCAT"},
  {OP_CAST, "Ops.CAST"},
  {OP_BITCAST, "Ops.BITCAST"},
  {OP_EXP2, "Ops.EXP2"},
  {OP_LOG2, "Ops.LOG2"},
  {OP_SIN, "Ops.SIN"},
  {OP_SQRT, "Ops.SQRT"},
  {OP_RECIP, "Ops.RECIP"},
  {OP_NEG, "Ops.NEG"},
  {OP_LOAD, "Ops.LOAD"},
  {OP_STORE, "Ops.STORE"},
  {OP_INDEX, "Ops.INDEX"},
  {OP_WMMA, "Ops.WMMA"},
  {OP_MUL, "Ops.MUL"},
  {OP_SHL, "Ops.SHL"},
  {OP_SHR, "Ops.SHR"},
  {OP_IDIV, "Ops.IDIV"},
  {OP_ADD, "Ops.ADD"},
  {OP_MAX, "Ops.MAX"},
  {OP_MOD, "Ops.MOD"},
  {OP_CMPLT, "Ops.CMPLT"},
  {OP_CMPNE, "Ops.CMPNE"},
  {OP_XOR, "Ops.XOR"},
  {OP_OR, "Ops.OR"},
  {OP_AND, "Ops.AND"},
  {OP_THREEFRY, "Ops.THREEFRY"},
  {OP_SUB, "Ops.SUB"},
  {OP_FDIV, "Ops.FDIV"},
  {OP_POW, "Ops.POW"},
  {OP_WHERE, "Ops.WHERE"},
  {OP_MULACC, "Ops.MULACC"},
  {OP_ASSIGN, "Ops.ASSIGN"},
  {OP_BIND, "Ops.BIND"},
  {OP_BARRIER, "Ops.BARRIER"},
  {OP_RANGE, "Ops.RANGE"},
  {OP_IF, "Ops.IF"},
  {OP_ENDRANGE, "Ops.ENDRANGE"},
  {OP_ENDIF, "Ops.ENDIF"},
  {OP_VCONST, "Ops.VCONST"},
  {OP_CONST, "Ops.CONST"},
  {OP_DEVICE, "Ops.DEVICE"},
  {OP_MULTI, "Ops.MULTI"},
  {OP_CUSTOM, "Ops.CUSTOM"},
  {OP_CUSTOMI, "Ops.CUSTOMI"},
  {OP_IGNORE, "Ops.IGNORE"},
};

/* the spelling table of v's ops (version.h ops_table) */
static const OpSpelling *table(TgVersion v, int *n) {
  switch (tg_features(v)->ops_table) {
    case OPS_LAZYOP_CLASSES: *n = (int)(sizeof ops_0_9_1 / sizeof ops_0_9_1[0]); return ops_0_9_1;
    case OPS_LAZYOP_CLASSES_092: *n = (int)(sizeof ops_0_9_2 / sizeof ops_0_9_2[0]); return ops_0_9_2;
    case OPS_UOPS_197F8FD: *n = (int)(sizeof ops_0_9_2_197f8fd / sizeof ops_0_9_2_197f8fd[0]); return ops_0_9_2_197f8fd;
    case OPS_UOPS_0100: *n = (int)(sizeof ops_0_10_0 / sizeof ops_0_10_0[0]); return ops_0_10_0;
    case OPS_UOPS_0102_A0B4465: *n = (int)(sizeof ops_0_10_2_a0b4465 / sizeof ops_0_10_2_a0b4465[0]); return ops_0_10_2_a0b4465;
    case OPS_UOPS_0102:
    default: *n = (int)(sizeof ops_0_10_2 / sizeof ops_0_10_2[0]); return ops_0_10_2;
  }
}

const char *op_name(Op op, TgVersion v) {
  int n;
  const OpSpelling *t = table(v, &n);
  for (int i = 0; i < n; i++)
    if (t[i].op == op) return t[i].name;
  return NULL;
}

const char *op_uop_name(Op op) {
  static const struct { const OpSpelling *t; size_t n; } tables[] = {
    {ops_0_10_2, sizeof ops_0_10_2 / sizeof ops_0_10_2[0]},
    {ops_0_10_0, sizeof ops_0_10_0 / sizeof ops_0_10_0[0]},
  };
  for (size_t k = 0; k < sizeof tables / sizeof tables[0]; k++)
    for (size_t i = 0; i < tables[k].n; i++)
      if (tables[k].t[i].op == op) return tables[k].t[i].name;
  return NULL;
}

Op op_parse(const char *s, TgVersion v) {
  int n;
  const OpSpelling *t = table(v, &n);
  for (int i = 0; i < n; i++)
    if (strcmp(t[i].name, s) == 0) return t[i].op;
  return OP_NONE;
}

/* Ops.value of every op of version v, numbered in the order ops.py lists them */
static void number_ops(TgVersion v, int *values) {
  int n;
  const OpSpelling *t = table(v, &n);
  const char *cls = NULL;
  int value = 0;
  for (int i = 0; i < n; i++) {
    const char *dot = strchr(t[i].name, '.');
    /* 0.9.1: numbering restarts with each class */
    if (!tg_features(v)->ops_values_global && (!cls || strncmp(cls, t[i].name, (size_t)(dot - t[i].name)) != 0)) { cls = t[i].name; value = 0; }
    value++;
    if (values[t[i].op] == 0) values[t[i].op] = value;
  }
}

/* (numbered once per version: the tables are constant and tsched runs one thread) */
int op_value(Op op, TgVersion v) {
  static int values[TG_NVERSIONS][OP_COUNT];
  static bool numbered[TG_NVERSIONS];
  if ((unsigned)v >= TG_NVERSIONS || (unsigned)op >= OP_COUNT) return 0;
  if (!numbered[v]) { number_ops(v, values[v]); numbered[v] = true; }
  return values[v][op];
}

/* ---- GroupOp ---- */

/* One set of one version's GroupOp, in the order ops.py lists it (ends at OP_NONE). */
typedef struct { TgGroupOps table; OpGroup group; Op ops[16]; } GroupOpRow;
static const GroupOpRow group_op_rows[] = {
  /* 0.9.x ops.py: UNSAFE_PAD_OPS = {UnaryOps.RECIP, UnaryOps.LOG2, UnaryOps.EXP2, BinaryOps.IDIV} */
  {GROUP_OPS_0_9, GROUP_UNSAFE_PAD, {OP_RECIP, OP_LOG2, OP_EXP2, OP_IDIV}},
  /* 0.10.0 and 0.10.0+2ca41d6 ops.py class GroupOp */
  {GROUP_OPS_0_10_0, GROUP_UNARY, {OP_EXP2, OP_LOG2, OP_SIN, OP_SQRT, OP_RECIP, OP_NEG}},
  {GROUP_OPS_0_10_0, GROUP_BINARY, {OP_ADD, OP_MUL, OP_IDIV, OP_MAX, OP_MOD, OP_CMPLT, OP_CMPNE, OP_XOR, OP_SHL, OP_SHR,
                                    OP_OR, OP_AND, OP_THREEFRY, OP_SUB, OP_FDIV}},
  {GROUP_OPS_0_10_0, GROUP_TERNARY, {OP_WHERE, OP_MULACC}},
  {GROUP_OPS_0_10_0, GROUP_META, {OP_COPY, OP_EMPTY, OP_BUFFER_VIEW}},
  {GROUP_OPS_0_10_0, GROUP_BUFFER, {OP_LOAD, OP_PRELOAD, OP_STORE, OP_VALID}},
  {GROUP_OPS_0_10_0, GROUP_UNSAFE_PAD, {OP_RECIP, OP_LOG2, OP_EXP2, OP_IDIV}},
  /* 0.10.1 ops.py class GroupOp */
  {GROUP_OPS_0_10_1, GROUP_UNARY, {OP_EXP2, OP_LOG2, OP_SIN, OP_SQRT, OP_RECIP, OP_NEG}},
  {GROUP_OPS_0_10_1, GROUP_BINARY, {OP_ADD, OP_MUL, OP_IDIV, OP_MAX, OP_MOD, OP_CMPLT, OP_CMPNE, OP_XOR, OP_SHL, OP_SHR,
                                    OP_OR, OP_AND, OP_THREEFRY, OP_SUB, OP_FDIV}},
  {GROUP_OPS_0_10_1, GROUP_TERNARY, {OP_WHERE, OP_MULACC}},
  {GROUP_OPS_0_10_1, GROUP_MOVEMENT, {OP_RESHAPE, OP_EXPAND, OP_PERMUTE, OP_PAD, OP_SHRINK, OP_FLIP}},
  {GROUP_OPS_0_10_1, GROUP_BUFFER, {OP_LOAD, OP_PRELOAD, OP_STORE, OP_VALID, OP_CONST, OP_DEFINE_VAR}},
  {GROUP_OPS_0_10_1, GROUP_UNSAFE_PAD, {OP_RECIP, OP_LOG2, OP_EXP2, OP_IDIV}},
  /* 0.10.2 ops.py class GroupOp */
  {GROUP_OPS_0_10_2, GROUP_UNARY, {OP_EXP2, OP_LOG2, OP_SIN, OP_SQRT, OP_RECIP, OP_NEG}},
  {GROUP_OPS_0_10_2, GROUP_BINARY, {OP_ADD, OP_MUL, OP_IDIV, OP_MAX, OP_MOD, OP_CMPLT, OP_CMPNE, OP_XOR, OP_SHL, OP_SHR,
                                    OP_OR, OP_AND, OP_THREEFRY, OP_SUB, OP_FDIV, OP_POW}},
  {GROUP_OPS_0_10_2, GROUP_TERNARY, {OP_WHERE, OP_MULACC}},
  {GROUP_OPS_0_10_2, GROUP_MOVEMENT, {OP_RESHAPE, OP_EXPAND, OP_PERMUTE, OP_PAD, OP_SHRINK, OP_FLIP}},
  {GROUP_OPS_0_10_2, GROUP_BUFFER, {OP_LOAD, OP_STORE, OP_VALID, OP_CONST, OP_DEFINE_VAR}},
  {GROUP_OPS_0_10_2, GROUP_UNSAFE_PAD, {OP_RECIP, OP_LOG2, OP_EXP2, OP_IDIV, OP_POW}},
  /* 0.10.2+a0b4465 ops.py class GroupOp */
  {GROUP_OPS_0_10_2_A0B4465, GROUP_UNARY, {OP_EXP2, OP_LOG2, OP_SIN, OP_SQRT, OP_RECIP, OP_NEG}},
  {GROUP_OPS_0_10_2_A0B4465, GROUP_BINARY, {OP_ADD, OP_MUL, OP_IDIV, OP_MAX, OP_MOD, OP_CMPLT, OP_CMPNE, OP_XOR, OP_SHL,
                                            OP_SHR, OP_OR, OP_AND, OP_THREEFRY, OP_SUB, OP_FDIV, OP_POW}},
  {GROUP_OPS_0_10_2_A0B4465, GROUP_TERNARY, {OP_WHERE, OP_MULACC}},
  {GROUP_OPS_0_10_2_A0B4465, GROUP_MOVEMENT, {OP_RESHAPE, OP_EXPAND, OP_PERMUTE, OP_PAD, OP_SHRINK, OP_FLIP}},
  {GROUP_OPS_0_10_2_A0B4465, GROUP_BUFFER, {OP_LOAD, OP_STORE, OP_VALID, OP_CONST, OP_DEFINE_VAR}},
  {GROUP_OPS_0_10_2_A0B4465, GROUP_UNSAFE_PAD, {OP_RECIP, OP_LOG2, OP_EXP2, OP_IDIV, OP_POW}},
  {GROUP_OPS_0_10_2_A0B4465, GROUP_META, {OP_COPY, OP_BUFFER_VIEW}},
};

static void op_set_add(OpSet *s, Op op) { s->bits[op >> 6] |= (uint64_t)1 << (op & 63); }

void op_groups_init(OpGroups *g, TgVersion v) {
  TgGroupOps table = tg_features(v)->group_ops;
  memset(g, 0, sizeof *g);
  for (size_t r = 0; r < sizeof group_op_rows / sizeof *group_op_rows; r++) {
    const GroupOpRow *row = &group_op_rows[r];
    if (row->table != table) continue;
    for (int i = 0; i < 16 && row->ops[i] != OP_NONE; i++) op_set_add(&g->group[row->group], row->ops[i]);
  }
  /* ALU = set.union(Unary, Binary, Ternary) */
  const OpSet *u = &g->group[GROUP_UNARY], *b = &g->group[GROUP_BINARY], *t = &g->group[GROUP_TERNARY];
  for (size_t w = 0; w < sizeof u->bits / sizeof *u->bits; w++)
    g->group[GROUP_ALU].bits[w] = u->bits[w] | b->bits[w] | t->bits[w];
}
