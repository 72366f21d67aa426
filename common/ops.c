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

static const OpSpelling *table(TgVersion v, int *n) {
  switch (v) {
    case TG_0_9_1: *n = (int)(sizeof ops_0_9_1 / sizeof ops_0_9_1[0]); return ops_0_9_1;
    case TG_0_10_0: *n = (int)(sizeof ops_0_10_0 / sizeof ops_0_10_0[0]); return ops_0_10_0;
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

Op op_parse(const char *s, TgVersion v) {
  int n;
  const OpSpelling *t = table(v, &n);
  for (int i = 0; i < n; i++)
    if (strcmp(t[i].name, s) == 0) return t[i].op;
  return OP_NONE;
}

int op_value(Op op, TgVersion v) {
  int n;
  const OpSpelling *t = table(v, &n);
  const char *cls = NULL;
  int value = 0;
  for (int i = 0; i < n; i++) {
    const char *dot = strchr(t[i].name, '.');
    /* 0.9.1: numbering restarts with each class */
    if (!cls || strncmp(cls, t[i].name, (size_t)(dot - t[i].name)) != 0) { cls = t[i].name; value = 0; }
    value++;
    if (t[i].op == op) return value;
  }
  return 0;
}
