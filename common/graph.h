/* graph.h — the contract's encodings of values and graphs (capture-format
 * section 2): ARG values <-> Value, GRAPH <-> UOp DAG. A Codec bundles what
 * that needs: the Interner, the version (op and dtype spellings) and the
 * ShapeTracker codec. */
#ifndef TSCHED_GRAPH_H
#define TSCHED_GRAPH_H
#include "intern.h"
#include "json.h"
#include "status.h"
#include "uop.h"
#include "version.h"

typedef struct Codec Codec;
struct Codec {
  Interner *in;
  Arena *arena;             /* decoded values; the caches and scratch arrays below */
  Arena *out;               /* where value_to_json and graph_encode build JSON: arena, or an
                             * encoder's scratch arena for one schedule item (scheduler.h) */
  TgVersion v;
  /* ShapeTracker <-> {"views": [...]}; set by codec_init from shapetracker.h.
   * NULL st_decode makes every ShapeTracker "unsupported". st_encode's JSON
   * may be shared across calls (cached): it is built in c->arena, not c->out. */
  const ShapeTracker *(*st_decode)(Codec *c, const JVal *j, Status *st);
  JVal *(*st_encode)(Codec *c, const ShapeTracker *s);
  /* graph_encode's scratch, reused call after call: per UOp id, the node's
   * position + 1 when stamped with the current epoch; the DFS stack; the order */
  uint32_t *enc_stamp, *enc_pos, enc_epoch;
  size_t enc_cap;
  struct EncFrame *enc_stack;
  size_t enc_stack_cap;
  const UOp **enc_order;
  size_t enc_order_cap;
};

void codec_init(Codec *c, Interner *in, TgVersion v);

/* ARG / any value. `where` names the place for error messages. */
const Value *value_from_json(Codec *c, const JVal *j, const char *where, Status *st);
JVal *value_to_json(Codec *c, const Value *v);
/* A DT string -> DType, with an error naming `where` when unknown. */
const DType *dtype_from_json(const JVal *j, const char *where, Status *st);
JVal *dtype_to_json(Codec *c, const DType *d);

/* GRAPH -> nodes. *nodes gets one UOp per entry (hash-consing may map two
 * entries to one node), *roots the roots. Validates shape, op and dtype
 * names and that every source index is smaller than its node's. */
bool graph_decode(Codec *c, const JVal *g, const char *where, const UOp ***nodes, size_t *nnodes,
                  const UOp ***roots, size_t *nroots, Status *st);
/* graph_decode of the graph at the cursor, read from its text without its
 * tree: {"nodes": [...], "roots": [...]} as the recorder writes it, each
 * node's fields that repeat the node before's bytes decoded once. False
 * when the text is not so or a node does not decode (the caller decodes
 * the tree, whose errors name the problem; the UOps made stay interned). */
bool graph_decode_text(Codec *c, JCursor *cur, const UOp ***nodes, size_t *nnodes, const UOp ***roots, size_t *nroots);
/* roots -> GRAPH (post-order from the roots, sources in order, each node
 * once), built in c->out. */
JVal *graph_encode(Codec *c, const UOp *const *roots, size_t nroots);
#endif
