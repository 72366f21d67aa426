/* tools.h — what the user-facing commands (ast, diff, compare, dot, explain)
 * share: a growing text buffer, Python-style reprs, walking the captures of
 * files and folders, and "the schedule of a capture" taken from the C
 * scheduler when it reproduces the recording, else from the recording. */
#ifndef TSCHED_TOOLS_H
#define TSCHED_TOOLS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "capture.h"
#include "json.h"
#include "version.h"

/* ---- text ---- */
/* Zeroed: a buffer that grows as needed. With `sink` set it writes what it
 * holds to sink (sb_flush) once it holds a few MiB, so that a long text is
 * printed without being held whole; with `limit` set, the text stops
 * growing past that many bytes in all (written + held), and `over` says so. */
typedef struct StrBuf {
  char *s;
  size_t n, cap;
  FILE *sink;
  size_t limit, written;
  bool over;
} StrBuf;
void sb_putn(StrBuf *b, const char *s, size_t n);
void sb_puts(StrBuf *b, const char *s);
void sb_putc(StrBuf *b, char c);
void sb_printf(StrBuf *b, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;
void sb_spaces(StrBuf *b, size_t n);
void sb_free(StrBuf *b);
/* Writes the text (control characters escaped, term_write) and empties the
 * buffer (keeps its memory). */
void sb_flush(StrBuf *b, FILE *f);

/* ---- Python reprs ---- */
/* repr(float) of CPython 3 ("0.1", "1e-05", "1e+16", "inf", "-0.0"); buf >= 32. */
const char *py_float_repr(double f, char *buf, size_t bufsize);
/* repr(str): single quotes unless the text has ' and no ". */
void py_str_repr(StrBuf *b, const char *s, size_t n);
/* A JSON string as a JSON literal, for --json output. */
void json_str_lit(StrBuf *b, const char *s);

/* ---- capture names ---- */
/* The workload id: the name without "#k". Returns its length. */
size_t workload_len(const char *name);
/* A capture name selected by NAME: equal, or NAME has no "#" and is its workload id. */
bool name_selected(const char *name, const char *pattern);

/* ---- walking captures ---- */
/* Called once per readable capture (c and a live until the call returns);
 * return false to stop the walk. */
typedef bool (*CaptureVisit)(const Capture *c, Arena *a, void *ctx);
/* Walks the captures of files and folders in sorted file order; unreadable
 * lines are reported on stderr prefixed by `cmd`. Returns the number of read
 * errors. */
size_t walk_captures(const char *cmd, int npaths, char **paths, CaptureVisit visit, void *ctx);

/* Captures kept in memory, each with its own arena (for commands that need
 * several at once). A visitor keeps one with capture_set_keep, which takes
 * over the arena. */
typedef struct Loaded { Arena arena; Capture c; } Loaded;
typedef struct CaptureSet { Loaded *items; size_t n, cap; } CaptureSet;
void capture_set_keep(CaptureSet *s, const Capture *c, Arena *a);
void capture_set_free(CaptureSet *s);
/* Sorts by (name, generation); then capture_set_find finds the first of a name. */
void capture_set_sort(CaptureSet *s);
/* Index of the first capture named `name` (sorted set), or s->n. */
size_t capture_set_find(const CaptureSet *s, const char *name);

/* ---- the schedule of a capture ---- */
typedef enum {
  SRC_TSCHED,     /* the C scheduler ran and reproduced the recording */
  SRC_DIFFERS,    /* the C scheduler ran but its result differs: the recording is shown */
  SRC_UNSUPPORTED,/* the generation does not support this capture yet: the recording */
  SRC_RECORDED    /* --recorded: the C scheduler was not run */
} SchedSource;

typedef struct Sched {
  SchedSource source;
  const JVal *result;   /* expected-shaped object to read (NULL when the call raised) */
  const JVal *error;    /* the recorded error when the call raised, else NULL */
  char why[2048];       /* SRC_DIFFERS / SRC_UNSUPPORTED: the reason */
} Sched;

/* Fills s for capture c. With recorded_only the C scheduler is not run. */
void sched_of(const Capture *c, Arena *a, bool recorded_only, Sched *s);
/* The same, with ex (may be NULL) listening to the generation (explain.h). */
struct Explain;
void sched_of_explained(const Capture *c, Arena *a, bool recorded_only, struct Explain *ex, Sched *s);
/* "tsched", "recording", "recording (tsched differs: ...)" ... for a terminal. */
const char *sched_source_text(const Sched *s, char *buf, size_t bufsize);
/* One word: "tsched", "recorded", "differs", "unsupported". */
const char *sched_source_word(SchedSource s);
const JVal *sched_items(const Sched *s);   /* the "schedule" array or NULL */

/* `tsched explain`'s text (or JSON) of one capture appended to b
 * (cmd_explain.c); false with err when its input cannot be read. */
bool explain_capture(StrBuf *b, const Capture *c, Arena *a, bool recorded, bool json, char *err, size_t errlen);

#endif
