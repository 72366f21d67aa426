/* walk.c — UOp.toposort for the scheduler (kg.h): the same post-order as
 * the core's uop_toposort (sources first, in order, each node once), with
 * the visited set as stamps in a table indexed by UOp id and the stack and
 * result in buffers reused from walk to walk, so a walk allocates nothing
 * once the buffers have grown. */
#include <string.h>
#include "kg.h"

/* Room in the stamp table for ids below need (new stamps are 0: unseen). */
static void marks_reserve(KG *k, size_t need) {
  if (need <= k->marks_cap) return;
  size_t old = k->marks_cap;
  k->marks = heap_grow(k->marks, need - 1, &k->marks_cap, sizeof *k->marks);
  memset(k->marks + old, 0, (k->marks_cap - old) * sizeof *k->marks); /* new stamps: unseen */
}

/* A new visited set: every stamp older than the new epoch is "not seen". */
void v0_10_2_marks_begin(KG *k) {
  marks_reserve(k, uop_count(k->in));
  if (++k->epoch == 0) { /* wrapped: forget every stamp */
    memset(k->marks, 0, k->marks_cap * sizeof *k->marks);
    k->epoch = 1;
  }
}

/* v0_10_2_mark for an id past the table: grow it, then mark */
bool v0_10_2_mark_grow(KG *k, const UOp *u) {
  marks_reserve(k, (size_t)u->id + 1);
  return v0_10_2_mark(k, u);
}

static inline void push_frame(KG *k, size_t depth, const UOp *u) {
  if (depth == k->topo_stack_cap)
    k->topo_stack = heap_grow(k->topo_stack, depth, &k->topo_stack_cap, sizeof *k->topo_stack);
  k->topo_stack[depth] = (WalkFrame){u, 0};
}

/* ops.py UOp.toposort, stopping after the first node for which stop(k, u, ctx)
 * holds (when stop is given): *out is the post-order up to there. */
size_t v0_10_2_toposort_until(
    KG *k, const UOp *root, bool (*stop)(KG *, const UOp *, void *), void *ctx, const UOp ***out) {
  size_t n = 0, depth = 0;
  v0_10_2_marks_begin(k);
  v0_10_2_mark(k, root);
  push_frame(k, depth++, root);
  while (depth) {
    WalkFrame *f = &k->topo_stack[depth - 1];
    if (f->next < f->u->nsrc) {
      const UOp *s = f->u->src[f->next++];
      if (!v0_10_2_mark(k, s)) push_frame(k, depth++, s);
      continue;
    }
    if (n == k->topo_cap) k->topo = heap_grow((void *)k->topo, n, &k->topo_cap, sizeof *k->topo);
    k->topo[n++] = f->u;
    depth--;
    if (stop && stop(k, f->u, ctx)) break;
  }
  *out = k->topo;
  return n;
}

size_t v0_10_2_toposort(KG *k, const UOp *root, const UOp ***out) {
  return v0_10_2_toposort_until(k, root, NULL, NULL, out);
}

static bool has_op(KG *k, const UOp *u, void *op) {
  (void)k;
  return u->op == *(const Op *)op;
}

bool v0_10_2_contains_op(KG *k, const UOp *root, Op op) {
  const UOp **order;
  size_t n = v0_10_2_toposort_until(k, root, has_op, &op, &order);
  return n && order[n - 1]->op == op;
}
