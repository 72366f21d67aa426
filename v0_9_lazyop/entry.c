/* entry.c — generation 0.9.1's entry point for the replayer (scheduler.h):
 * decode the capture's input, run tinygrad 0.9.1's create_schedule_with_vars
 * and memory_planner on it, encode the result like `expected`. */
#include "scheduler.h"
#include "pipeline.h"
#include "rewrite_trace.h"

/* The slow path of v0_9_py_recursion_check (pipeline.h). */
_Noreturn void v0_9_py_recursion_unsupported(size_t frames) {
  error_unsupported("the graph nests %zu Python frames deep in tinygrad 0.9.1's recursive scheduler, "
                    "near sys.setrecursionlimit(10000): RecursionError there depends on the caller", frames);
}

static void sched_init(Sched *s, Arena *a, Interner *in, TgVersion v) {
  *s = (Sched){.v = v, .f = tg_features(v), .a = a, .in = in};
  op_groups_init(&s->groups, v);
  codec_init(&s->codec, in, v);
  v0_9_st_init(s);
  omap_init(&s->prescheduled, a);
  s->ex = explain_active();
  if (s->ex) omap_init(&s->pad_views, a);
}

/* var_vals[var] = val: dict updates and merge_dicts of the scheduler */
void v0_9_var_vals_put(Sched *s, sint var, int64_t val) {
  for (int i = 0; i < s->nvar_vals; i++)
    if (sint_eq(s->var_vals[i].var, var)) {
      if (s->var_vals[i].val != val) error_unsupported("symbolic: a Variable bound to two values");
      return;
    }
  s->var_vals = arena_grow(s->a, s->var_vals, (size_t)s->nvar_vals, &s->var_cap, sizeof *s->var_vals);
  s->var_vals[s->nvar_vals++] = (struct VarVal){var, val};
}

/* decode, schedule, encode; a Python exception, unsupported or bad input raises
 * (common/error.h) to the protected call below. */
typedef struct Run {
  const Capture *c;
  Arena *a;
  JVal *result;
  Sched *s;
  RewriteTrace *trace;  /* the rewrite steps, when the replayer asked for them (197f8fd) */
} Run;

static void schedule_protected(void *ud) {
  Run *r = ud;
  const Capture *c = r->c;
  Arena *a = r->a;
  phase_enter(PHASE_BUILD);
  Interner *in = arena_alloc(a, sizeof *in);
  interner_init(in, a);
  in->trace = r->trace;
  Sched *s = r->s = arena_alloc(a, sizeof *s);
  sched_init(s, a, in, c->generation);
  Input *inp = arena_alloc(a, sizeof *inp);
  v0_9_decode_input(s, c, inp);
  for (int i = 0; i < inp->nseen; i++) inp->seen[i]->in_seen = true;
  phase_enter(PHASE_SCHEDULE);
  Schedule sched = {0};
  v0_9_graph_schedule(s);
  v0_9_create_schedule_with_vars(s, &sched);
  v0_9_memory_planner(s, &sched);
  phase_enter(PHASE_ENCODE);
  r->result = v0_9_encode_result(s, &sched);
}

/* The capture's symbolic values live in one Node context of its version (sint.h), current while it runs.
 * A version whose graph_rewrite is tracked (197f8fd's full_ast_rewrite) hands its steps to the replayer. */
bool v0_9_schedule_capture(const Capture *c, Arena *a, JVal **result, Status *st) {
  *result = NULL;
  sym_begin(a, c->generation);
  Run r = {c, a, NULL, NULL, NULL};
  RewriteTrace trace;
  if (tg_features(c->generation)->reduceop_fusor && rewrite_trace_wanted()) rewrite_trace_init(r.trace = &trace, a, c->generation);
  bool ok = error_protect(st, schedule_protected, &r);
  if (r.s && r.trace) v0_9_trace_emit(r.s, r.trace, c);
  sym_end();
  if (ok) *result = r.result;
  return ok;
}
