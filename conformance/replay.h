/* replay.h — replaying captures: run each capture's generation on its input
 * and compare with what tinygrad recorded. Shared by `tsched replay` and the
 * other subcommands that walk captures. */
#ifndef TSCHED_REPLAY_H
#define TSCHED_REPLAY_H
#include <stdbool.h>
#include <stddef.h>
#include "capture.h"

typedef enum { OUT_PASS, OUT_FAIL, OUT_UNSUPPORTED, OUT_ERROR } OutcomeKind;

typedef struct Outcome {
  OutcomeKind kind;
  char why[2048];            /* FAIL: first difference; UNSUPPORTED: reason; ERROR: what is malformed */
  double schedule_seconds;   /* time inside the generation's scheduler, but for comparing schedule items */
  double compare_seconds;    /* comparing with the recording (the schedule's items while they are encoded, then the rest) */
} Outcome;

/* Schedule c with its generation and compare. */
void replay_capture(const Capture *c, Arena *a, Outcome *o);
/* The same, the scheduler's rewrite steps caught in tc (trace.h) when not NULL. */
struct TraceCatch;
void replay_capture_traced(const Capture *c, Arena *a, struct TraceCatch *tc, Outcome *o);

/* Expand files and folders (walked: *.jsonl, *.jsonl.gz) into a sorted
 * list of files. In folders only regular files count, and symbolic links
 * are followed only when follow_links (a folder reached twice is skipped
 * with a note). A path that does not exist and a folder that cannot be
 * read are reported on stderr ("tsched CMD: ...") and counted in *errors.
 * Returns the count; *out is malloc'd (free with free_paths). */
size_t collect_capture_files(const char *cmd, int npaths, char **paths, bool follow_links, char ***out, size_t *errors);
void free_paths(char **paths, size_t n);

/* the phases' clock (phase_clock: wall time, or CPU time for bench --cpu-time) */
double now_seconds(void);

int cmd_replay(int argc, char **argv);
#endif
