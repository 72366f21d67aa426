/* ingraph.c — a capture's input graph tied to its kernels (ingraph.h). */
#include "ingraph.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernels.h"
#include "pyrepr.h"

static void *xcalloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size);
  if (!p) abort();
  return p;
}

static bool index_ok(const JVal *x, size_t limit) { return json_is_int(x) && x->u.i >= 0 && (size_t)x->u.i < limit; }

static const JVal *last_view(const JVal *st) {
  const JVal *views = json_get(st, "views");
  return views && views->kind == J_ARR && views->n ? views->u.arr[views->n - 1] : NULL;
}

long long json_st_size(const JVal *st) {
  const JVal *shape = json_get(last_view(st), "shape");
  if (!shape || shape->kind != J_ARR) return -1;
  long long size = 1;
  for (size_t i = 0; i < shape->n; i++) {
    if (!json_is_int(shape->u.arr[i])) return -1;
    size *= shape->u.arr[i]->u.i;
  }
  return size;
}

const char *json_st_shape_text(const JVal *st, char *buf, size_t n) {
  StrBuf b = {0};
  const JVal *shape = json_get(last_view(st), "shape");
  if (shape) value_repr(&b, TG_0_9_1, shape, false, NULL);
  snprintf(buf, n, "%s", b.s ? b.s : "?");
  sb_free(&b);
  return buf;
}

static bool is_movement_op(const char *op) {
  static const char *const names[] = {"RESHAPE", "EXPAND", "PAD", "SHRINK", "PERMUTE", "FLIP", "VIEW"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcmp(op_short(op), names[i]) == 0) return true;
  return false;
}

/* 0.10.2 nodes that name devices and buffers: in no kernel. */
static bool is_infra(const char *op) {
  return strcmp(op, "Ops.DEVICE") == 0 || strcmp(op, "Ops.UNIQUE") == 0 || strcmp(op, "Ops.BUFFER") == 0;
}

static const char *str_or(const JVal *x, const char *dflt) { return x && x->kind == J_STR ? x->u.s : dflt; }

/* 0.9.1 / 0.10.0: input.lazybuffers, outs. */
static bool build_lazy(InGraph *g, const Capture *c, char *err, size_t errlen) {
  const JVal *lbs = json_get(c->input, "lazybuffers"), *outs = json_get(c->input, "outs");
  if (!lbs || lbs->kind != J_ARR) { snprintf(err, errlen, "input.lazybuffers is not an array"); return false; }
  g->n = lbs->n;
  g->nodes = xcalloc(g->n, sizeof *g->nodes);
  size_t total = 0;
  for (size_t i = 0; i < g->n; i++) {
    const JVal *srcs = json_get(lbs->u.arr[i], "srcs");
    total += json_get(lbs->u.arr[i], "base") ? 1 : srcs && srcs->kind == J_ARR ? srcs->n : 0;
  }
  g->srcs = xcalloc(total, sizeof *g->srcs);
  size_t used = 0;
  for (size_t i = 0; i < g->n; i++) {
    const JVal *lb = lbs->u.arr[i], *base = json_get(lb, "base"), *srcs = json_get(lb, "srcs");
    InNode *x = &g->nodes[i];
    x->src = g->srcs + used;
    x->st = json_get(lb, "st");
    x->dtype = str_or(json_get(lb, "dtype"), "?");
    x->buffer = -1;
    if (base) {
      if (!index_ok(base, g->n)) { snprintf(err, errlen, "lazybuffer %zu: bad base", i); return false; }
      x->op = "VIEW", x->is_view = x->is_movement = true;
      x->src[x->nsrc++] = (size_t)base->u.i;
    } else {
      x->op = str_or(json_get(lb, "op"), "?");
      x->arg = json_get(lb, "arg");
      const JVal *buf = json_get(lb, "buffer"), *realized = json_get(lb, "realized"), *forced = json_get(lb, "forced_realize");
      if (json_is_int(buf)) x->buffer = buf->u.i;
      x->realized = realized && realized->kind == J_BOOL && realized->u.b;
      x->forced = forced && forced->kind == J_BOOL && forced->u.b;
      for (size_t k = 0; srcs && srcs->kind == J_ARR && k < srcs->n; k++) {
        if (!index_ok(srcs->u.arr[k], g->n)) { snprintf(err, errlen, "lazybuffer %zu: bad source %zu", i, k); return false; }
        x->src[x->nsrc++] = (size_t)srcs->u.arr[k]->u.i;
      }
    }
    used += x->nsrc;
  }
  for (size_t k = 0; outs && outs->kind == J_ARR && k < outs->n; k++) {
    if (!index_ok(outs->u.arr[k], g->n)) continue;
    size_t o = (size_t)outs->u.arr[k]->u.i;
    g->nodes[o].is_out = true;
    if (g->nodes[o].is_view) g->nodes[g->nodes[o].src[0]].is_out = true;
  }
  return true;
}

/* 0.10.2: input.graph, node_buffer; outs are the sources of the SINK root. */
static bool build_uop(InGraph *g, const Capture *c, char *err, size_t errlen) {
  const JVal *graph = json_get(c->input, "graph"), *nodes = json_get(graph, "nodes"), *roots = json_get(graph, "roots");
  if (!nodes || nodes->kind != J_ARR) { snprintf(err, errlen, "input.graph.nodes is not an array"); return false; }
  g->n = nodes->n;
  g->nodes = xcalloc(g->n, sizeof *g->nodes);
  size_t total = 0;
  for (size_t i = 0; i < g->n; i++) {
    const JVal *x = nodes->u.arr[i];
    if (x->kind != J_ARR || x->n != 4 || x->u.arr[0]->kind != J_STR || x->u.arr[3]->kind != J_ARR) {
      snprintf(err, errlen, "graph node %zu is not [op, dtype, arg, [src...]]", i);
      return false;
    }
    total += x->u.arr[3]->n;
  }
  g->srcs = xcalloc(total, sizeof *g->srcs);
  size_t used = 0;
  for (size_t i = 0; i < g->n; i++) {
    const JVal *x = nodes->u.arr[i], *srcs = x->u.arr[3];
    InNode *y = &g->nodes[i];
    y->op = x->u.arr[0]->u.s;
    y->dtype = str_or(x->u.arr[1], "?");
    y->arg = x->u.arr[2];
    y->buffer = -1;
    y->is_movement = is_movement_op(y->op);
    y->src = g->srcs + used;
    for (size_t k = 0; k < srcs->n; k++) {
      if (!index_ok(srcs->u.arr[k], i)) { snprintf(err, errlen, "graph node %zu: bad source %zu", i, k); return false; }
      y->src[y->nsrc++] = (size_t)srcs->u.arr[k]->u.i;
    }
    used += y->nsrc;
  }
  const JVal *nb = json_get(c->input, "node_buffer");
  for (size_t k = 0; nb && nb->kind == J_ARR && k < nb->n; k++) {
    const JVal *pair = nb->u.arr[k];
    if (pair->kind != J_ARR || pair->n != 2 || !index_ok(pair->u.arr[0], g->n) || !json_is_int(pair->u.arr[1])) continue;
    InNode *y = &g->nodes[pair->u.arr[0]->u.i];
    y->buffer = pair->u.arr[1]->u.i;
    y->realized = true;
  }
  for (size_t r = 0; roots && roots->kind == J_ARR && r < roots->n; r++) {
    if (!index_ok(roots->u.arr[r], g->n)) continue;
    const InNode *sink = &g->nodes[roots->u.arr[r]->u.i];
    for (size_t k = 0; k < sink->nsrc; k++) g->nodes[sink->src[k]].is_out = true;
  }
  return true;
}

static void build_consumers(InGraph *g) {
  g->cons_start = xcalloc(g->n + 1, sizeof *g->cons_start);
  size_t total = 0;
  for (size_t i = 0; i < g->n; i++) {
    total += g->nodes[i].nsrc;
    for (size_t k = 0; k < g->nodes[i].nsrc; k++) g->cons_start[g->nodes[i].src[k] + 1]++;
  }
  for (size_t i = 0; i < g->n; i++) g->cons_start[i + 1] += g->cons_start[i];
  g->cons = xcalloc(total, sizeof *g->cons);
  size_t *fill = xcalloc(g->n, sizeof *fill);
  for (size_t i = 0; i < g->n; i++)
    for (size_t k = 0; k < g->nodes[i].nsrc; k++) {
      size_t s = g->nodes[i].src[k];
      g->cons[g->cons_start[s] + fill[s]++] = i;
    }
  free(fill);
}

/* The BUFREF a 0.10.2 becomes_map graph ends in: the UNIQUE node's arg. */
static const JVal *becomes_bufref(const JVal *graph) {
  const JVal *nodes = json_get(graph, "nodes");
  for (size_t i = 0; nodes && nodes->kind == J_ARR && i < nodes->n; i++) {
    const JVal *x = nodes->u.arr[i];
    if (x->kind == J_ARR && x->n == 4 && x->u.arr[0]->kind == J_STR && strcmp(x->u.arr[0]->u.s, "Ops.UNIQUE") == 0)
      return x->u.arr[2];
  }
  return NULL;
}

static bool same_ref(const JVal *a, const JVal *b) {
  if (!a || !b) return false;
  if (json_is_int(a) && json_is_int(b)) return a->u.i == b->u.i;
  return a->kind == J_STR && b->kind == J_STR && strcmp(a->u.s, b->u.s) == 0;
}

/* The node(s) whose buffer kernel k stores get writer = k. */
static void mark_writers(InGraph *g, const JVal *result, const JVal *items) {
  const JVal *becomes = json_get(result, "becomes_map");
  /* 0.9.1 / 0.10.0: the unrealized base LazyBuffers of each buffer, as lists head[b] -> next[i] */
  size_t nbuffers = 0;
  for (size_t i = 0; i < g->n; i++)
    if (g->nodes[i].buffer >= 0 && (size_t)g->nodes[i].buffer >= nbuffers) nbuffers = (size_t)g->nodes[i].buffer + 1;
  long *head = xcalloc(nbuffers, sizeof *head), *next = xcalloc(g->n, sizeof *next);
  for (size_t b = 0; b < nbuffers; b++) head[b] = -1;
  for (size_t i = g->n; i-- > 0;) {
    const InNode *x = &g->nodes[i];
    next[i] = -1;
    if (x->is_view || x->realized || x->buffer < 0) continue;
    next[i] = head[x->buffer];
    head[x->buffer] = (long)i;
  }
  for (size_t k = 0; items && k < items->n; k++) {
    KernelInfo ki;
    if (!kernel_info(items->u.arr[k], g->v, &ki)) { kernel_info_free(&ki); continue; }
    for (size_t o = 0; o < ki.nout; o++) {
      if (ki.out[o] >= ki.bufs->n) continue;
      const JVal *ref = ki.bufs->u.arr[ki.out[o]];
      if (!tg_features(g->v)->schedule_input_tensor_uops) {
        if (!json_is_int(ref) || ref->u.i < 0 || (size_t)ref->u.i >= nbuffers) continue;
        for (long i = head[ref->u.i]; i >= 0; i = next[i])
          if (g->nodes[i].writer < 0) g->nodes[i].writer = (long)k;
        continue;
      }
      for (size_t b = 0; becomes && becomes->kind == J_ARR && b < becomes->n; b++) {
        const JVal *pair = becomes->u.arr[b];
        if (pair->kind != J_ARR || pair->n != 2 || !index_ok(pair->u.arr[0], g->n)) continue;
        InNode *x = &g->nodes[pair->u.arr[0]->u.i];
        if (x->writer < 0 && same_ref(becomes_bufref(pair->u.arr[1]), ref)) x->writer = (long)k;
      }
    }
    kernel_info_free(&ki);
  }
  free(head);
  free(next);
}

/* Each kernel claims what its outputs are computed from, down to realized
 * nodes and other kernels' outputs (explicit stack). */
static void propagate_kernels(InGraph *g) {
  size_t *stack = xcalloc(g->n, sizeof *stack);
  long *visited_by = xcalloc(g->n, sizeof *visited_by);
  for (size_t i = 0; i < g->n; i++) {
    InNode *x = &g->nodes[i];
    x->kernel = x->writer, x->shared = false, x->also = -1, visited_by[i] = -1;
  }
  for (size_t k = 0; k < g->nkernels; k++) {
    size_t top = 0;
    for (size_t i = 0; i < g->n; i++)
      if (g->nodes[i].writer == (long)k) stack[top++] = i, visited_by[i] = (long)k;
    while (top) {
      const InNode *x = &g->nodes[stack[--top]];
      for (size_t s = 0; s < x->nsrc; s++) {
        size_t j = x->src[s];
        InNode *y = &g->nodes[j];
        if (visited_by[j] == (long)k) continue;
        visited_by[j] = (long)k;
        if (y->writer >= 0 || y->realized || is_infra(y->op)) continue;
        if (y->kernel >= 0 && y->kernel != (long)k && !y->shared) y->shared = true, y->also = (long)k;
        if (y->kernel < 0) y->kernel = (long)k;
        stack[top++] = j;
      }
    }
  }
  free(stack);
  free(visited_by);
}

bool ingraph_build(InGraph *g, const Capture *c, const JVal *result, const JVal *items, char *err, size_t errlen) {
  memset(g, 0, sizeof *g);
  g->v = c->generation;
  bool ok = tg_features(g->v)->schedule_input_tensor_uops ? build_uop(g, c, err, errlen) : build_lazy(g, c, err, errlen);
  if (!ok) return false;
  for (size_t i = 0; i < g->n; i++) g->nodes[i].writer = g->nodes[i].kernel = g->nodes[i].also = -1;
  build_consumers(g);
  g->nkernels = items ? items->n : 0;
  mark_writers(g, result, items);
  propagate_kernels(g);
  return true;
}

void ingraph_set_writers(InGraph *g, const ExplainKernel *kernels, size_t n) {
  if (!n) return;
  bool *reported = xcalloc(g->nkernels, sizeof *reported);
  for (size_t k = 0; k < n; k++)
    if (kernels[k].kernel < g->nkernels) reported[kernels[k].kernel] = true;
  for (size_t i = 0; i < g->n; i++) /* a reported kernel forgets its derived writers */
    if (g->nodes[i].writer >= 0 && reported[g->nodes[i].writer]) g->nodes[i].writer = -1;
  free(reported);
  for (size_t k = 0; k < n; k++)
    if (kernels[k].node < g->n && kernels[k].kernel < g->nkernels) g->nodes[kernels[k].node].writer = (long)kernels[k].kernel;
  propagate_kernels(g);
}

void ingraph_free(InGraph *g) {
  free(g->nodes);
  free(g->srcs);
  free(g->cons);
  free(g->cons_start);
  memset(g, 0, sizeof *g);
}
