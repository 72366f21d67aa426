/* entry.c — generation 0.10.2's entry point for the replayer (scheduler.h).
 * Not implemented yet: every capture is reported unsupported. */
#include "scheduler.h"

bool v0_10_2_schedule_capture(const Capture *c, Arena *a, JVal **result, Status *st) {
  (void)c;
  (void)a;
  *result = NULL;
  return status_unsupported(st, "generation 0.10.2 is not implemented yet");
}
