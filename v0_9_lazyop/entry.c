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

static void sched_init(Sched91 *s, Arena *a, Interner *in) {
  *s = (Sched91){.a = a, .in = in};
  codec_init(&s->codec, in, TG_0_9_1);
  st91_init(s);
  omap_init(&s->prescheduled, a);
  s->ex = explain_active();
  if (s->ex) omap_init(&s->pad_views, a);
}

bool v0_9_schedule_capture(const Capture *c, Arena *a, JVal **result, Status *st) {
  *result = NULL;
  phase_enter(PHASE_BUILD);
  Interner in;
  interner_init(&in, a);
  Sched91 s;
  sched_init(&s, a, &in);
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
