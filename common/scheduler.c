/* scheduler.c — the generation registry (scheduler.h). */
#include "scheduler.h"

ScheduleCaptureFn scheduler_for(TgVersion v) {
  switch (v) {
    case TG_0_9_1: return v0_9_schedule_capture;
    case TG_0_10_0: return v0_10_0_schedule_capture;
    case TG_0_10_2: return v0_10_2_schedule_capture;
    default: return NULL;
  }
}
