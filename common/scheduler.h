/* scheduler.h — what every generation offers the replayer: schedule one
 * capture's input and encode the result as the contract's `expected` object.
 * A generation never reads c->expected or c->error while scheduling. */
#ifndef TSCHED_SCHEDULER_H
#define TSCHED_SCHEDULER_H
#include "arena.h"
#include "capture.h"
#include "json.h"
#include "status.h"

/* Returns true and sets *result on success. Otherwise st says why:
 * ST_RAISED (the Python exception tinygrad would raise), ST_UNSUPPORTED or
 * ST_BAD_INPUT (naming the place in the capture). */
typedef bool (*ScheduleCaptureFn)(const Capture *c, Arena *a, JVal **result, Status *st);

bool v0_9_schedule_capture(const Capture *c, Arena *a, JVal **result, Status *st);     /* v0_9_lazyop/ */
bool v0_10_0_schedule_capture(const Capture *c, Arena *a, JVal **result, Status *st);  /* v0_10_lazybuf_uop/ */
bool v0_10_2_schedule_capture(const Capture *c, Arena *a, JVal **result, Status *st);  /* v0_10_2_kernel_graph/ */

ScheduleCaptureFn scheduler_for(TgVersion v);

/* Phases of one scheduler call, for `tsched bench`. A generation calls
 * phase_enter(PHASE_BUILD) when it starts decoding the input,
 * phase_enter(PHASE_SCHEDULE) when the graph is in memory and scheduling
 * starts, phase_enter(PHASE_ENCODE) when it starts encoding the result. */
typedef enum { PHASE_BUILD, PHASE_SCHEDULE, PHASE_ENCODE, PHASE_COUNT } Phase;
void phase_enter(Phase p);
/* Replayer side: phase_reset() before the call, phase_finish() after it;
 * then phase_seconds(p) is the time spent in p (0 if never entered). */
void phase_reset(void);
void phase_finish(void);
double phase_seconds(Phase p);
#endif
