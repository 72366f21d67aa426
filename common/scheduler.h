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
/* Which generation schedules which version is the registry's (conformance/schedulers.h),
 * above the generations: common/ calls none of them. */

/* ---- the result's schedule (and becomes_map), item by item ----
 * The replayer may set a ResultSink before it calls the scheduler. Then the
 * generation's encoder builds each schedule item in a scratch arena of its
 * own, hands it to the sink (which compares it with the recording at once)
 * and frees the scratch before the next item; the result then has no
 * "schedule" field, so that the schedule never exists as one whole tree.
 * The same for becomes_map's and new_buffers' entries when the sink has a
 * `becomes_entry` / `new_buffer` (the result then has no such field).
 * With no sink set (tools, tests) the result is the whole `expected` object. */
typedef struct ResultSink ResultSink;
/* entry k (0, 1, ... in order) of a list, built in `scratch`, which the
 * encoder frees when this returns: it may allocate there too */
typedef void (*SinkEntryFn)(ResultSink *s, size_t k, const JVal *entry, Arena *scratch);
struct ResultSink {
  SinkEntryFn item;           /* the schedule's items */
  SinkEntryFn becomes_entry;  /* becomes_map's [node index, GRAPH] entries; NULL: built whole */
  SinkEntryFn new_buffer;     /* new_buffers' entries; NULL: built whole */
  SinkEntryFn trace;          /* set: the scheduler records its rewrite steps (rewrite_trace.h) and
                               * hands them over as one tsched-trace/1 line (k = 0), also when it raised */
  void *trace_ctx;            /* for the trace entry's reader */
};
typedef enum { SINK_SCHEDULE, SINK_BECOMES_MAP, SINK_NEW_BUFFERS } SinkList;
/* The sink of the next scheduler calls (NULL: none). */
void result_sink_set(ResultSink *s);
ResultSink *result_sink(void);
/* Encoders: hand entry k of list `which` to s; the time it takes counts as PHASE_COMPARE. */
void sink_entry(ResultSink *s, SinkList which, size_t k, const JVal *entry, Arena *scratch);
/* The encoders' loop over a list's n entries: item(ctx, k, out) builds
 * entry k in `out` (codec->out points there too). With no sink for the list
 * set, all are built in `a` and the array is returned; with one, each is
 * built in a scratch arena, handed to the sink and freed: NULL. */
struct Codec;
typedef JVal *(*ItemEncodeFn)(void *ctx, size_t k, Arena *out);
JVal *encode_sunk_list(struct Codec *codec, Arena *a, SinkList which, size_t n, ItemEncodeFn item, void *ctx);
/* encode_sunk_list of the schedule's items */
JVal *encode_schedule_items(struct Codec *codec, Arena *a, size_t n, ItemEncodeFn item, void *ctx);

/* Phases of one scheduler call, for `tsched bench`. A generation calls
 * phase_enter(PHASE_BUILD) when it starts decoding the input,
 * phase_enter(PHASE_SCHEDULE) when the graph is in memory and scheduling
 * starts, phase_enter(PHASE_ENCODE) when it starts encoding the result.
 * PHASE_COMPARE is the time inside sink_entry (comparing while encoding). */
typedef enum { PHASE_BUILD, PHASE_SCHEDULE, PHASE_ENCODE, PHASE_COMPARE, PHASE_COUNT } Phase;
void phase_enter(Phase p);
/* Replayer side: phase_reset() before the call, phase_finish() after it;
 * then phase_seconds(p) is the time spent in p (0 if never entered). */
void phase_reset(void);
void phase_finish(void);
double phase_seconds(Phase p);
/* The clock phases are timed with, in seconds: wall time (CLOCK_MONOTONIC),
 * or with cpu_time the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID:
 * what other processes of a shared machine take from it is not counted). */
void phase_use_cpu_time(bool cpu_time);
/* Whether phases are timed at all (off unless asked: `tsched bench` asks;
 * a replay reads the clock per capture only, four reads per schedule item
 * cost it 1-2 %). Off, phase_seconds is 0. */
void phase_use_timing(bool on);
double phase_clock(void);
#endif
