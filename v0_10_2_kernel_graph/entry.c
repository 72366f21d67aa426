/* entry.c — generation 0.10.2's entry point for the replayer (scheduler.h):
 * decode the capture's tensor graph, run create_schedule_with_vars and the
 * memory planner with the recorded context, encode the result. Python
 * exceptions raised deep inside unwind to the protected call here
 * (common/error.h). */
#include <string.h>
#include "scheduler.h"
#include "pipeline.h"

static int64_t ctx_int(const Capture *c, const char *key, int64_t dflt) {
  int64_t v;
  return capture_ctx_int(c, key, &v) ? v : dflt;
}

static void kg_init(KG *k, const Capture *c, Arena *a, Interner *in) {
  memset(k, 0, sizeof *k);
  k->a = a;
  k->scratch = (ScratchArenas){a, KG_MAX_CHUNK, NULL, NULL};
  k->in = in;
  k->cap = c;
  k->f = tg_features(c->generation);
  op_groups_init(&k->groups, c->generation);
  k->fuse_arange = ctx_int(c, "FUSE_ARANGE", 0);
  k->fuse_conv_bw = ctx_int(c, "FUSE_CONV_BW", 0);
  k->dont_realize_expand = ctx_int(c, "DONT_REALIZE_EXPAND", 0);
  k->split_reduceop = ctx_int(c, "SPLIT_REDUCEOP", 1);
  k->split_threshold = ctx_int(c, "REDUCEOP_SPLIT_THRESHOLD", 32768);
  k->split_size = ctx_int(c, "REDUCEOP_SPLIT_SIZE", 22);
  k->no_memory_planner = ctx_int(c, "NO_MEMORY_PLANNER", 0);
  k->dont_group_reduces = ctx_int(c, "DONT_GROUP_REDUCES", 0);
  k->cast_after_expand = ctx_int(c, "CAST_AFTER_EXPAND", 0);
  v0_10_2_st_init(&k->stc, a, c->generation, ctx_int(c, "MERGE_VIEW", 1) != 0);
  omap_init(&k->zero_consts, a);
  omap_init(&k->buffers, a);
  omap_init(&k->ptr_dtypes, a);
  omap_init(&k->st_json, a);
  omap_init(&k->sym_values, a);
  omap_init(&k->sym_sints, a);
  k->kernel_tag = v_str(in, "Kernel");
  v0_10_2_codec_init(k);
  v0_10_2_caches_begin(k);
}

/* decode, schedule, encode; a Python exception, unsupported or bad input raises
 * (common/error.h) to the protected call below. */
typedef struct Run { KG *k; const Capture *c; JVal *result; } Run;

static void schedule_protected(void *ud) {
  Run *r = ud;
  KG *k = r->k;
  Input input;
  phase_enter(PHASE_BUILD);
  Arena *tree = arena_scratch_begin(&k->scratch); /* the input's JSON tree lives while it is decoded */
  if (!v0_10_2_decode_input_text(k, r->c->input, tree, &input)) { /* the tree decides */
    Status st;
    const JVal *input_json = capture_input(r->c, tree, &st);
    if (!input_json) error_rethrow(&st);
    v0_10_2_decode_input(k, input_json, &input);
  }
  arena_scratch_end(&k->scratch, tree);
  v0_10_2_explain_begin(k, &input);
  phase_enter(PHASE_SCHEDULE);
  SchedResult res;
  v0_10_2_create_schedule_with_vars(k, input.big_sink, &res);
  phase_enter(PHASE_ENCODE);
  v0_10_2_caches_drop(k);
  r->result = v0_10_2_encode_result(k, &input, &res);
}

bool v0_10_2_schedule_capture(const Capture *c, Arena *a, JVal **result, Status *st) {
  *result = NULL;
  Interner *in = arena_alloc(a, sizeof *in);
  interner_init(in, a);
  KG *k = arena_alloc(a, sizeof *k);
  kg_init(k, c, a, in);
  sym_begin(a, c->generation);   /* the symbolic values of this capture (sint.h) */
  size_t max_chunk = a->max_chunk;
  a->max_chunk = KG_MAX_CHUNK;
  arena_prefer_pool(a); /* the parser's buffers, given back */
  Run r = {k, c, NULL};
  RewriteTrace trace;
  if (rewrite_trace_wanted()) rewrite_trace_init(in->trace = &trace, a, c->generation);
  bool ok = error_protect(st, schedule_protected, &r);
  if (!ok) v0_10_2_scratch_end_all(k);
  if (in->trace) { /* the steps, also of a call that raised (the replayer's sink reads them) */
    in->trace = NULL;
    v0_10_2_trace_emit(k, &trace);
    v0_10_2_scratch_end_all(k); /* the walk buffers it used */
  }
  v0_10_2_st_release(&k->stc);
  a->max_chunk = max_chunk;
  sym_end();
  if (ok) *result = r.result;
  return ok;
}
