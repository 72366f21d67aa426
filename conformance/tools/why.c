/* why.c — why a node was realized (why.h). */
#include "why.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pyrepr.h"

static bool meta_op(const char *op) {
  static const char *const names[] = {"COPY", "EMPTY", "CUSTOM", "BUFFER_VIEW"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcmp(op_short(op), names[i]) == 0) return true;
  return strcmp(op, "LoadOps.VIEW") == 0;
}

static bool has_mask(const JVal *st) {
  const JVal *views = json_get(st, "views");
  for (size_t i = 0; views && views->kind == J_ARR && i < views->n; i++) {
    const JVal *m = json_get(views->u.arr[i], "mask");
    if (m && m->kind != J_NULL) return true;
  }
  return false;
}

/* How node i is read through movement ops: sets *expand / *pad / *copy, and
 * *reader to a kernel that reads it (explicit stack). */
static void read_through(const InGraph *g, size_t i, bool *expand, bool *pad, bool *copy, long *reader) {
  size_t *stack = malloc((g->n ? g->n : 1) * sizeof *stack), top = 0;
  bool *seen = calloc(g->n ? g->n : 1, sizeof *seen);
  if (!stack || !seen) abort();
  stack[top++] = i;
  seen[i] = true;
  long long base_size = json_st_size(g->nodes[i].st);
  while (top) {
    size_t x = stack[--top];
    for (size_t k = g->cons_start[x]; k < g->cons_start[x + 1]; k++) {
      size_t c = g->cons[k];
      const InNode *y = &g->nodes[c];
      if (meta_op(y->op)) *copy = true;
      if (!y->is_movement && y->kernel >= 0 && *reader < 0) *reader = y->kernel;
      if (!y->is_movement || seen[c]) continue;
      seen[c] = true;
      const char *op = op_short(y->op);
      if (y->is_view) {
        long long size = json_st_size(y->st);
        if (base_size >= 0 && size > base_size) *expand = true;
        if (has_mask(y->st)) *pad = true;
      }
      if (strcmp(op, "EXPAND") == 0) *expand = true;
      if (strcmp(op, "PAD") == 0) *pad = true;
      stack[top++] = c;
    }
  }
  free(stack);
  free(seen);
}

void derive_why(const InGraph *g, const KernelInfo *infos, size_t i, Why *w) {
  const InNode *x = &g->nodes[i];
  const char *op = op_short(x->op);
  bool expand = false, pad = false, copy = false;
  long reader = -1;
  read_through(g, i, &expand, &pad, &copy, &reader);
  w->reported = false;
  w->detail = NULL;
  if (x->is_out) w->reason = WHY_OUTPUT;
  else if (strcmp(op, "ASSIGN") == 0) w->reason = WHY_ASSIGN;
  else if (meta_op(x->op)) w->reason = WHY_META_OP;
  else if (x->forced || strcmp(op, "CONTIGUOUS") == 0) w->reason = WHY_FORCED;
  else if (copy) w->reason = WHY_COPY_SOURCE;
  else if (expand) w->reason = WHY_EXPAND;
  else if (pad) w->reason = WHY_UNSAFE_PAD, w->detail = "read through a padded view; whether the pad is unsafe is not derivable";
  else if (strcmp(op, "SUM") == 0 || strcmp(op, "MAX") == 0 || strcmp(op, "REDUCE_AXIS") == 0) {
    w->reason = WHY_REDUCE;
    w->detail = "why it could not fuse is not derivable from the input and output";
    if (reader >= 0 && infos[reader].nreduces > 0) {
      snprintf(w->buf, sizeof w->buf, "kernel %ld, which reads it, has a reduce of its own (one reduce per kernel)", reader);
      w->detail = w->buf;
    }
  }
  else w->reason = WHY_OTHER, w->detail = "not derivable from the input and output";
}
