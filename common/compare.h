/* compare.h — the structural comparator of the capture contract (section 6):
 * a scheduler's result, encoded like `expected`, against the recording. */
#ifndef TSCHED_COMPARE_H
#define TSCHED_COMPARE_H
#include <stdbool.h>
#include <stddef.h>
#include "arena.h"
#include "json.h"
#include "omap.h"
#include "scheduler.h"
#include "version.h"

/* JSON equality under the contract's rules: ints equal ints by value, floats
 * floats by IEEE value (-0.0 == 0.0, nan == nan), an int never equals a
 * float, object keys in any order. Iterative. */
bool json_equal(const JVal *a, const JVal *b);

/* Whether text[0..len) spells v exactly: the same members in the same
 * order, ints as ints, floats as floats of the same value, strings with no
 * escape; any whitespace between tokens. true means that the text parses to
 * a value json_equal to v; false only that it is not spelled this way (the
 * caller parses it and compares). Iterative; no allocation on shallow values. */
bool json_spells(const JVal *v, const char *text, size_t len);

/* Two GRAPHs structurally equal (same DAG from the roots, node numbering
 * free). On a difference, writes where into `why` (node indices, ops). */
bool graph_equal(Arena *a, const JVal *expected, const JVal *got, char *why, size_t whylen);

/* The whole `expected` object against the replayer's `got`. On a
 * difference, returns false and writes the first one into `why`: the field,
 * the schedule item and the first differing node. */
bool compare_expected(Arena *a, TgVersion v, const JVal *expected, const JVal *got, char *why, size_t whylen);

/* The texts that spelled containers of the result that live until it is
 * compared (in `keep`, the capture's arena, not in the item's `scratch`: a
 * ShapeTracker's JSON, encoded once and shared by every item naming it):
 * where the text holds the same bytes again it spells the same container,
 * found by memcmp instead of token by token. */
typedef struct SpellMemo {
  OMap spelled;             /* container -> the text that spelled it */
  const Arena *keep;
  const Arena *scratch;     /* the item's (its containers are spelled each time) */
} SpellMemo;

/* The comparison of the schedule item by item, as the encoder makes it: a
 * ResultSink (scheduler.h) for the replayer. Each item is compared with
 * expected.schedule's item of the same index; when the reader left that as
 * text (J_RAW), each member the text spells as the produced item's
 * (json_spells) is taken as equal, the others are parsed into the item's
 * scratch arena. The first difference is kept, later items are only counted.
 * 0.10.2's becomes_map and new_buffers entries go the same way
 * (ResultSink.becomes_entry, new_buffer). */
typedef struct ScheduleCompare {
  ResultSink sink;          /* first member: the encoder's handle */
  TgVersion v;
  const JVal *expected;     /* expected.schedule, a J_ARR; NULL when missing or not an array */
  size_t got;               /* items handed in so far */
  bool differs;             /* why holds the first difference */
  bool bad_input;           /* why says which expected item does not parse (the schedule's,
                             * or, after compare_expected_sunk, becomes_map's or new_buffers') */
  char why[2048];
  /* 0.10.2's becomes_map, compared entry by entry as it is encoded (when
   * expected.becomes_map is an array; else the result holds it whole) */
  const JVal *becomes;      /* expected.becomes_map, or NULL */
  size_t becomes_got;       /* entries handed in so far */
  int becomes_verdict;      /* 1 equal so far, 0 different, -1 an expected entry does not parse */
  char becomes_why[2048];
  /* 0.10.2's new_buffers, compared entry by entry as it is encoded (when
   * expected.new_buffers is an array) */
  const JVal *new_buffers;  /* expected.new_buffers, or NULL */
  size_t new_buffers_got;
  bool new_buffers_differ;  /* an entry differs from the expected one, or has none */
  char got_text[320];       /* the start of the produced new_buffers' JSON text, for the message */
  size_t got_text_len;
  SpellMemo memo;           /* for the items' texts */
} ScheduleCompare;
void schedule_compare_init(ScheduleCompare *sc, Arena *a, TgVersion v, const JVal *expected);

/* compare_expected for a result whose schedule went through sc: the same
 * verdict and the same first difference (sc->bad_input set when an expected
 * item left as text, of the schedule, becomes_map or new_buffers, does not parse). */
bool compare_expected_sunk(Arena *a, ScheduleCompare *sc, const JVal *expected, const JVal *got, char *why,
                           size_t whylen);

/* An expected error passes when the types are equal and the first lines of
 * the messages are equal. */
bool compare_error(const JVal *expected_error, const char *type, const char *message, char *why, size_t whylen);
#endif
