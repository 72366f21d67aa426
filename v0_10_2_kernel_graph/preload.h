/* preload.h — tinygrad 0.10.1's scheduler after the tensor map: the PRELOAD
 * design of 0.10.0 on the tensor UOp graph (feature `preload_scheduler`,
 * version.h). add_buffers wraps every op that gets a
 * buffer as VIEW(BUFFER, op); do_realize and group_realizes decide which
 * BUFFERs are stored (bufferize.c); break_sched turns the graph into one STORE
 * per realized BUFFER; schedule_uop makes each kernel's AST and the BFS
 * orders the ScheduleItems, a kernel that PRELOADs an assign target before
 * the kernel assigning it (schedule_items.c). */
#ifndef KG_PRELOAD_H
#define KG_PRELOAD_H
#include "schedule.h"

/* schedule.py ScheduleContext (0.10.1) */
typedef struct ScheduleContext {
  IdMap ops_metadata;  /* BUFFER or fused op -> Metadata Value (NULL: none) */
  IdSet assigns;       /* the BUFFERs an ASSIGN writes */
  OMap realizes;       /* BUFFER -> what it stores (to_store, then its STORE), in dict order */
  OMap allbufs;        /* BUFFER -> its VIEW(BUFFER, op), in dict order (during group_realizes) */
  IdMap children;      /* BUFFER -> OMap of the BUFFERs whose op reads it (a dict of UOp -> None; during group_realizes) */
  OMap preloads;       /* Buf* -> OMap of BUFFER UOps (preloads[buffer], a defaultdict of dicts) */
  Arena *tmp;          /* the maps above but allbufs and children */
  Arena *grouping;     /* allbufs, children and can_pad's walks: freed when group_realizes ends */
} ScheduleContext;

/* bufferize.c */
/* schedule.py add_buffers(buf, buffer_map, cache={}): buffer_map (tensor UOp -> BUFFER) in ctx->tmp */
const UOp *v0_10_2_add_buffers(KG *k, ScheduleContext *ctx, const UOp *buf, IdMap *buffer_map);
/* schedule.py group_realizes(sink, ctx) (0.10.1): ctx->realizes, each value the BUFFER's STORE */
void v0_10_2_group_realizes_preload(KG *k, const UOp *sink, ScheduleContext *ctx);

/* schedule_items.c: create_schedule_with_vars after the tensor map (0.10.1), which is in maps: it ends maps */
void v0_10_2_create_schedule_with_preloads(
    KG *k, Arena *maps, const UOp *big_sink, const OMap *tensor_map, SchedResult *res);

/* schedule_items.c: ScheduleItem.output_idxs contains i */
bool v0_10_2_is_output_idx(const ScheduleItem *si, size_t i);

/* explain.c, with a listener (k->ex): the same reasons as 0.10.2's, named through the BUFFERs */
void v0_10_2_explain_alias(KG *k, const UOp *u, const UOp *t);   /* add_buffers made u for tensor UOp t */
void v0_10_2_explain_preload_outs(KG *k, const UOp *sink);       /* the BUFFERs of the SINK's sources */
const char *v0_10_2_explain_buffer_name(KG *k, const UOp *b);    /* "node 7 ADD": what BUFFER b stores */
/* realize(ctx, b, ...) for why, unless b is realized already */
void v0_10_2_explain_realize_preload(
    KG *k, const ScheduleContext *ctx, const UOp *b, ExplainReason why, const char *detail);
void v0_10_2_explain_always_preload(
    KG *k, const ScheduleContext *ctx, const UOp *b, Op op); /* ASSIGN/CONTIGUOUS/COPY/BUFFER_VIEW */
void v0_10_2_explain_view_preload(
    KG *k, const ScheduleContext *ctx, const UOp *b, const UOp *src, const UOp *view, ExplainReason why);
void v0_10_2_explain_copy_src_preload(KG *k, const ScheduleContext *ctx, const UOp *b, const UOp *copy);
/* group_realizes' realize(ctx, tr, tr) for reduce r (why: what first put r in its group) */
void v0_10_2_explain_reduce_preload(KG *k, const ScheduleContext *ctx, const UOp *tr, const UOp *r, const char *why);
void v0_10_2_explain_fuses_preload(KG *k, const ScheduleContext *ctx);   /* after break_sched */
void v0_10_2_explain_kernels_preload(KG *k, const SchedResult *res);     /* after the BFS */
#endif
