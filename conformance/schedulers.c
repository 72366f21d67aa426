/* schedulers.c — the generation registry (schedulers.h). */
#include "schedulers.h"

ScheduleCaptureFn scheduler_for(TgVersion v) {
  switch (tg_generation(v)) {
    case GEN_LAZYOP: return v0_9_schedule_capture;
    case GEN_LAZYBUF_UOP: return v0_10_schedule_capture;
    case GEN_KERNEL_GRAPH: return v0_10_2_schedule_capture;
    case GEN_NONE: break;
  }
  return NULL;
}
