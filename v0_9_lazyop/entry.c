/* entry.c — generation 0.9.1's entry point for the replayer (scheduler.h):
 * decode the capture's input, run tinygrad 0.9.1's create_schedule_with_vars
 * and memory_planner on it, encode the result like `expected`. */
#include "scheduler.h"
#include "sched91.h"

/* The slow path of py_recursion_ok91 (sched91.h). */
bool py_recursion_unsupported91(size_t frames, Status *st) {
  return status_unsupported(st, "the graph nests %zu Python frames deep in tinygrad 0.9.1's recursive scheduler, "
                                "near sys.setrecursionlimit(10000): RecursionError there depends on the caller", frames);
}

static void sched_init(Sched91 *s, Arena *a, Interner *in, TgVersion v) {
  *s = (Sched91){.v = v, .f = tg_features(v), .a = a, .in = in};
  codec_init(&s->codec, in, v);
  st91_init(s);
  omap_init(&s->prescheduled, a);
  omap_init(&s->st_reshape_memo, a);
  s->ex = explain_active();
  if (s->ex) omap_init(&s->pad_views, a);
}

/* var_vals[var] = val: dict updates and merge_dicts of the scheduler */
bool var_vals_put91(Sched91 *s, sint var, int64_t val, Status *st) {
  for (int i = 0; i < s->nvar_vals; i++)
    if (sint_eq(s->var_vals[i].var, var)) {
      if (s->var_vals[i].val != val) return status_unsupported(st, "symbolic: a Variable bound to two values");
      return true;
    }
  s->var_vals = grow91(s->a, s->var_vals, (size_t)s->nvar_vals, &s->var_cap, sizeof *s->var_vals);
  s->var_vals[s->nvar_vals++] = (struct VarVal91){var, val};
  return true;
}

static bool schedule_capture(const Capture *c, Arena *a, JVal **result, Status *st) {
  phase_enter(PHASE_BUILD);
  Interner in;
  interner_init(&in, a);
  Sched91 s;
  sched_init(&s, a, &in, c->generation);
  Input91 inp;
  if (!decode_input91(&s, c, &inp, st)) return false;
  for (int i = 0; i < inp.nseen; i++) inp.seen[i]->in_seen = true;
  phase_enter(PHASE_SCHEDULE);
  Schedule91 sched = {0};
  if (!graph_schedule91(&s, st) || !create_schedule91(&s, &sched, st) || !memory_planner91(&s, &sched, st)) return false;
  phase_enter(PHASE_ENCODE);
  *result = encode_result91(&s, &sched);
  return true;
}

/* schedule_capture as a protected call: what common/ raises (error.h) lands in st */
typedef struct Run { const Capture *c; Arena *a; JVal **result; Status *st; bool ok; } Run;

static void schedule_protected(void *ud) {
  Run *r = ud;
  r->ok = schedule_capture(r->c, r->a, r->result, r->st);
}

/* The capture's symbolic values live in one 0.9.1 Node context (sint.h), current while it runs. */
bool v0_9_schedule_capture(const Capture *c, Arena *a, JVal **result, Status *st) {
  *result = NULL;
  sym_begin(a, TG_0_9_1);
  Run r = {c, a, result, st, false};
  bool ok = error_protect(st, schedule_protected, &r) && r.ok;
  sym_end();
  if (!ok) *result = NULL;
  return ok;
}
