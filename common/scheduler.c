/* scheduler.c — phase timing and the result sink (scheduler.h). */
#define _POSIX_C_SOURCE 200809L
#include "scheduler.h"
#include "graph.h"
#include <time.h>

/* ---- phase timing ---- */

static double phase_time[PHASE_COUNT];
static int current_phase = -1;
static double phase_started;

static clockid_t phase_clock_id = CLOCK_MONOTONIC;
static bool phase_timing;

void phase_use_cpu_time(bool cpu_time) { phase_clock_id = cpu_time ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC; }
void phase_use_timing(bool on) { phase_timing = on; }

double phase_clock(void) {
  struct timespec ts;
  clock_gettime(phase_clock_id, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void phase_reset(void) {
  for (int p = 0; p < PHASE_COUNT; p++) phase_time[p] = 0;
  current_phase = -1;
}

void phase_finish(void) {
  if (phase_timing && current_phase >= 0) phase_time[current_phase] += phase_clock() - phase_started;
  current_phase = -1;
}

void phase_enter(Phase p) {
  phase_finish();
  current_phase = (int)p;
  if (phase_timing) phase_started = phase_clock();
}

double phase_seconds(Phase p) { return phase_time[p]; }

/* ---- the result sink ---- */

static ResultSink *current_sink;

void result_sink_set(ResultSink *s) { current_sink = s; }
ResultSink *result_sink(void) { return current_sink; }

static SinkEntryFn sink_fn(const ResultSink *s, SinkList which) {
  if (!s) return NULL;
  return which == SINK_BECOMES_MAP ? s->becomes_entry : which == SINK_NEW_BUFFERS ? s->new_buffer : s->item;
}

void sink_entry(ResultSink *s, SinkList which, size_t k, const JVal *entry, Arena *scratch) {
  int was = current_phase;
  phase_enter(PHASE_COMPARE);
  sink_fn(s, which)(s, k, entry, scratch);
  if (was >= 0) phase_enter((Phase)was);
  else phase_finish();
}

JVal *encode_sunk_list(Codec *codec, Arena *a, SinkList which, size_t n, ItemEncodeFn item, void *ctx) {
  ResultSink *sink = current_sink;
  if (!sink_fn(sink, which)) {
    JVal *items = json_arr(a);
    for (size_t k = 0; k < n; k++) json_push(a, items, item(ctx, k, a));
    return items;
  }
  Arena *keep = codec->out, scratch;
  arena_init(&scratch);
  ArenaMark empty = arena_mark(&scratch);
  codec->out = &scratch;
  for (size_t k = 0; k < n; k++) {
    sink_entry(sink, which, k, item(ctx, k, &scratch), &scratch);
    arena_rewind(&scratch, empty); /* the entry is forgotten, its first chunk reused */
  }
  codec->out = keep;
  arena_free(&scratch);
  return NULL;
}

JVal *encode_schedule_items(Codec *codec, Arena *a, size_t n, ItemEncodeFn item, void *ctx) {
  return encode_sunk_list(codec, a, SINK_SCHEDULE, n, item, ctx);
}
