/* compare.h — the structural comparator of the capture contract (section 6):
 * a scheduler's result, encoded like `expected`, against the recording. */
#ifndef TSCHED_COMPARE_H
#define TSCHED_COMPARE_H
#include <stdbool.h>
#include <stddef.h>
#include "arena.h"
#include "json.h"
#include "version.h"

/* JSON equality under the contract's rules: ints equal ints by value, floats
 * floats by IEEE value (-0.0 == 0.0, nan == nan), an int never equals a
 * float, object keys in any order. Iterative. */
bool json_equal(const JVal *a, const JVal *b);

/* Two GRAPHs structurally equal (same DAG from the roots, node numbering
 * free). On a difference, writes where into `why` (node indices, ops). */
bool graph_equal(Arena *a, const JVal *expected, const JVal *got, char *why, size_t whylen);

/* The whole `expected` object against the replayer's `got`. On a
 * difference, returns false and writes the first one into `why`: the field,
 * the schedule item and the first differing node. */
bool compare_expected(Arena *a, TgVersion v, const JVal *expected, const JVal *got, char *why, size_t whylen);

/* An expected error passes when the types are equal and the first lines of
 * the messages are equal. */
bool compare_error(const JVal *expected_error, const char *type, const char *message, char *why, size_t whylen);
#endif
