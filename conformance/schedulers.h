/* schedulers.h — the generation registry: which scheduler replays which
 * version. It sits above common/ and the generation folders (each of which
 * offers one ScheduleCaptureFn, common/scheduler.h); common/ calls none of
 * them. A version's row (common/version.c) names its generation. */
#ifndef TSCHED_SCHEDULERS_H
#define TSCHED_SCHEDULERS_H
#include "scheduler.h"
#include "version.h"

bool v0_9_schedule_capture(const Capture *c, Arena *a, JVal **result, Status *st);    /* v0_9_lazyop/entry.c */
bool v0_10_schedule_capture(const Capture *c, Arena *a, JVal **result, Status *st);   /* v0_10_lazybuf_uop/entry.c */
bool v0_10_2_schedule_capture(const Capture *c, Arena *a, JVal **result, Status *st); /* v0_10_2_kernel_graph/entry.c */

/* The scheduler of v's generation; NULL for a version tsched has none for yet. */
ScheduleCaptureFn scheduler_for(TgVersion v);
#endif
