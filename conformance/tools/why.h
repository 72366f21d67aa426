/* why.h — why a node of the input graph was realized: as the generation
 * reported it (common/explain.h), or derived from the input and the schedule
 * (an output, forced, a meta op, an assign, the source of a COPY, read through
 * an expand or a pad, a reduce whose reader has a reduce of its own). */
#ifndef TSCHED_WHY_H
#define TSCHED_WHY_H
#include <stdbool.h>
#include <stddef.h>
#include "explain.h"
#include "ingraph.h"
#include "kernels.h"

typedef struct Why {
  ExplainReason reason;
  const char *detail;    /* may be NULL; may point into buf */
  bool reported;         /* from the generation, not derived */
  char buf[200];
} Why;

/* Derived from g; infos has one KernelInfo per kernel of g. */
void derive_why(const InGraph *g, const KernelInfo *infos, size_t node, Why *w);
#endif
