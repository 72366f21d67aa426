/* jobs.h — the lines of a run's recordings shared out among worker
 * processes (`tsched replay --jobs N`).
 *
 * The workers are forks of tsched, started once for the run. Each goes
 * through the files in order, reading each one itself; within a file it
 * takes the next line nobody has taken (a counter per file in shared
 * memory), passes the lines before it without reading them, and replays
 * that one. What the line printed, how it changed the caller's counts and
 * its flags go back to the parent through the worker's pipe. The parent
 * applies the results strictly in order, file by file and line by line, so
 * what it prints and counts is what one process would; only the time is
 * shared out. It also counts each file's lines that are not JSON in a row,
 * as the reader does, since no worker sees every line. Where workers could
 * not be started, or one ended before it sent a line's result, the parent
 * replays the rest itself (JobsSpec.rest). */
#ifndef TSCHED_JOBS_H
#define TSCHED_JOBS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "capture.h"

enum {
  JOB_END = 1,      /* work: there was no line left */
  JOB_STOP = 2,     /* work / open: the file ends at this line (no later line is applied) */
  JOB_NOT_JSON = 4, /* set by the workers: the line was not JSON */
  JOB_MORE = 8,     /* set by the workers: lines follow it */
};

/* One line's result, as the parent gets it */
typedef struct JobResult {
  size_t file, index;          /* the file, and the line's place among its non-blank lines */
  unsigned flags;
  const void *counts;          /* JobsSpec.counts_size bytes */
  const char *out, *err;       /* what it printed to standard output / error */
  size_t out_len, err_len;
} JobResult;

typedef struct JobsSpec {
  int jobs;                    /* worker processes */
  size_t nfiles;
  size_t counts_size;          /* the bytes of a line's change to the caller's counts */
  /* In a worker: open file f into r; false when it cannot be read, the
   * report printed to out and counted in `counts` (zeroed first). */
  bool (*open)(void *ctx, size_t f, CaptureReader *r, FILE *out, void *counts);
  /* In a worker: replay the next line of r, printing to out / err and
   * writing the line's change to the counts in `counts` (zeroed first);
   * returns JOB_END, JOB_STOP or 0. */
  unsigned (*work)(void *ctx, size_t f, CaptureReader *r, FILE *out, FILE *err, void *counts);
  /* In the parent, line by line in order: false stops the file. r holds
   * the file's count of lines that were not JSON in a row (and gave_up),
   * brought up to this line; it has no data. */
  bool (*apply)(void *ctx, CaptureReader *r, const JobResult *res);
  /* In the parent: file f from its line `from` on, replayed here, r's
   * count of lines that were not JSON carried on. */
  void (*rest)(void *ctx, size_t f, size_t from, const CaptureReader *r);
  const char *const *paths;    /* the files' names (the readers' paths) */
  const bool *alone;           /* alone[f]: file f is replayed by the parent, in
                                * its turn (a pipe or a FIFO, which one reader
                                * empties); NULL: none is */
  void *ctx;
} JobsSpec;

/* Every file of spec, in order, every line applied once. */
void jobs_run(const JobsSpec *spec);

/* The processors this process may run on (at least 1) */
int jobs_available(void);
#endif
