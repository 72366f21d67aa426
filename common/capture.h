/* capture.h — reading captures (`tsched-capture/1`, JSON Lines, optionally
 * gzipped; see docs/capture-format.md). A CaptureReader holds one whole file
 * in memory and hands out one parsed line at a time. */
#ifndef TSCHED_CAPTURE_H
#define TSCHED_CAPTURE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arena.h"
#include "json.h"
#include "json_fields.h"
#include "status.h"
#include "version.h"

/* The largest buffer a capture may name, in elements, and its largest byte
 * offset: far past any real program, and small enough that the byte
 * arithmetic on them (size * itemsize, offset + nbytes) stays in int64.
 * A capture past them is a bad input ("absurd size"). */
#define CAPTURE_MAX_BUFFER_SIZE ((int64_t)1 << 50)
#define CAPTURE_MAX_BUFFER_OFFSET ((int64_t)1 << 54)

typedef struct Capture {
  const char *file;        /* path it came from */
  size_t line;             /* 1-based line number */
  const char *name;        /* "?" when the line has none */
  TgVersion generation;
  bool generation_known;   /* false when the line is too broken to tell */
  const JVal *root;        /* the whole line */
  const JVal *context, *input, *expected, *error;  /* expected/error may be J_NULL */
  double oracle_seconds;   /* -1 when absent */
  size_t bytes;            /* length of the JSON line */
} Capture;

typedef struct CaptureReader {
  const char *path;
  char *data;              /* whole (decompressed) file + JSON_PADDING bytes */
  size_t len, pos, line;
  bool raw_schedule_items; /* leave the items of expected.schedule (and of becomes_map and
                            * new_buffers) as their text (J_RAW: json_materialize reads
                            * one); off unless set after opening */
  bool raw_input;          /* leave `input` as its text (J_RAW): the generations read it
                            * with capture_input while they decode it; off unless set */
  int not_json;            /* lines in a row that were not JSON */
  char gave_up[320];       /* set ("" until then) when the rest of the file is not worth
                            * reading (several lines in a row not JSON: binary data) */
} CaptureReader;

/* Read the whole file (.jsonl or .jsonl.gz, recognised by content). */
bool capture_reader_open(CaptureReader *r, const char *path, Status *st);
/* Parse the next non-empty line into c (allocated in a). Returns false at end
 * of file. When it returns true, st says whether the line was readable:
 * ST_BAD_INPUT names the line and what is wrong; c->name/line are still set.
 * After it, r->gave_up non-empty says the reader stops there: the caller
 * reports that message once and goes on with the next file. */
bool capture_reader_next(CaptureReader *r, Arena *a, Capture *c, Status *st);
/* Past the next non-blank line without reading it (a worker process's
 * copy of the reader passing the lines another one replays); false at the
 * end of the file. */
bool capture_reader_skip(CaptureReader *r);
/* Counts a line that was (not_json) or was not JSON the way
 * capture_reader_next does, `more` saying whether lines follow it: the
 * file is given up (gave_up) after several in a row. For lines read by
 * another copy of the reader. */
void capture_reader_count(CaptureReader *r, bool not_json, bool more);
void capture_reader_close(CaptureReader *r);

/* c->input as a tree: itself, or, when the reader left it as text
 * (raw_input), parsed into `a` (an arena the caller frees once the input is
 * decoded). NULL when that text does not parse: then st is ST_BAD_INPUT
 * naming the capture and `input`. */
const JVal *capture_input(const Capture *c, Arena *a, Status *st);

/* A Buffer's size or offset in a capture's input (obj[key]): false when it
 * is an integer in [0, max]; else true with the words every generation
 * uses in `why`: `field "size" missing or of the wrong type`, or "absurd
 * size" (negative, past max, past int64). */
bool capture_buffer_problem(const JVal *obj, const char *key, int64_t max, char *why, size_t whylen);
/* The same for the member's value v (NULL: absent). */
bool capture_size_problem(const JVal *v, const char *key, int64_t max, char *why, size_t whylen);

/* The two tables of a LazyBuffer capture's input (capture-format section
 * 3, 0.9.x and 0.10.0): buffers and lazybuffers, each entry's members in
 * the order the recorder writes them; a lazybuffer's `st` is the member
 * kept as a distinct text when the input is read from its text. */
enum { CAPTURE_BUF_DEVICE, CAPTURE_BUF_SIZE, CAPTURE_BUF_DTYPE, CAPTURE_BUF_ALLOCATED, CAPTURE_BUF_BASE,
       CAPTURE_BUF_OFFSET, CAPTURE_BUF_OPTIONS, CAPTURE_BUF_LB_REFCOUNT, CAPTURE_BUF_KEYS };
enum { CAPTURE_LB_DEVICE, CAPTURE_LB_DTYPE, CAPTURE_LB_ST, CAPTURE_LB_BASE, CAPTURE_LB_OP, CAPTURE_LB_ARG,
       CAPTURE_LB_SRCS, CAPTURE_LB_BUFFER, CAPTURE_LB_REALIZED, CAPTURE_LB_FORCED_REALIZE, CAPTURE_LB_METADATA,
       CAPTURE_LB_METADATA_CALLER, CAPTURE_LB_KEYS };
void capture_lazybuffer_tables(JTable t[2]);

/* Context flags. capture_ctx_int reads an int or bool; returns false when
 * the key is absent or not a number (the caller decides what that means). */
bool capture_ctx_int(const Capture *c, const char *key, int64_t *out);
#endif
