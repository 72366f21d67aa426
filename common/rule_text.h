/* rule_text.h - the Python text of the rules the C mirrors, by location.
 *
 * Each C rule row carries its UPat's location (PyLoc, rewrite.h); the text at
 * that location is what tinygrad's UPat.printable() prints (ops.py: the source
 * line, stripped). The table (rule_text.c) is generated from the tinygrad
 * checkouts by conformance/oracle/rule_texts.py. */
#ifndef TSCHED_RULE_TEXT_H
#define TSCHED_RULE_TEXT_H

#include "version.h"

typedef struct RuleText {
  TgVersion version;
  const char *file;  /* "tinygrad/engine/schedule.py" */
  int line;          /* 1-based */
  const char *text;  /* the line, stripped */
} RuleText;

/* UPat.printable() for the UPat made at file:line of version v; NULL when no C row cites it. */
const char *rule_text(TgVersion v, const char *file, int line);

#endif
