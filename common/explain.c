/* explain.c — the recorder behind explain.h. */
#include "explain.h"
#include <stdlib.h>
#include "heap.h"
#include <string.h>

static const char *const reason_names[WHY_COUNT] = {
  "none", "output", "forced", "meta op", "assign", "copy source", "expand", "unsafe pad",
  "reduce", "reduce child", "multi output", "other",
};

static const char *const reason_texts[WHY_COUNT] = {
  "not realized",
  "an output: passed to the scheduler",
  "forced: the program asked for a buffer (forced_realize / contiguous)",
  "a COPY, EMPTY, CUSTOM, BUFFER_VIEW or VIEW: always a kernel of its own",
  "an ASSIGN: writes into an existing buffer",
  "the source of a COPY / BUFFER_VIEW / VIEW, which must be a buffer",
  "read through an expanding view: realized before the expand",
  "read through a pad that is unsafe to fuse (an op not 0 at 0)",
  "a reduce that could not fuse into its consumers",
  "the contiguous consumer a reduce was chased down to",
  "grouped with a reduce as one more output of its kernel",
  "other",
};

const char *explain_reason_name(ExplainReason r) { return r < WHY_COUNT ? reason_names[r] : "?"; }
const char *explain_reason_text(ExplainReason r) { return r < WHY_COUNT ? reason_texts[r] : "?"; }

void explain_init(Explain *ex) { memset(ex, 0, sizeof *ex); }

void explain_free(Explain *ex) {
  for (size_t i = 0; i < ex->nrealizes; i++) free(ex->realizes[i].detail);
  free(ex->realizes);
  free(ex->fuses);
  free(ex->kernels);
  memset(ex, 0, sizeof *ex);
}

static Explain *active;

Explain *explain_active(void) { return active; }
void explain_begin(Explain *ex) { active = ex; }
void explain_end(void) { active = NULL; }

void explain_realize(Explain *ex, uint32_t node, ExplainReason reason, const char *detail) {
  if (!ex) return;
  ex->realizes = heap_grow(ex->realizes, ex->nrealizes, &ex->realizes_cap, sizeof *ex->realizes);
  char *copy = NULL;
  if (detail) {
    copy = malloc(strlen(detail) + 1);
    if (!copy) abort();
    strcpy(copy, detail);
  }
  ex->realizes[ex->nrealizes++] = (ExplainRealize){node, reason, copy};
}

void explain_fuse(Explain *ex, uint32_t node, uint32_t output_node) {
  if (!ex) return;
  ex->fuses = heap_grow(ex->fuses, ex->nfuses, &ex->fuses_cap, sizeof *ex->fuses);
  ex->fuses[ex->nfuses++] = (ExplainFuse){node, output_node};
}

void explain_kernel(Explain *ex, uint32_t kernel, uint32_t node) {
  if (!ex) return;
  ex->kernels = heap_grow(ex->kernels, ex->nkernels, &ex->kernels_cap, sizeof *ex->kernels);
  ex->kernels[ex->nkernels++] = (ExplainKernel){kernel, node};
}
