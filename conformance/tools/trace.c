/* trace.c — reading recorded rewrite steps (trace.h). */
#define _POSIX_C_SOURCE 200809L
#include "trace.h"
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capture.h"
#include "conformance/schedulers.h"
#include "ingraph.h"

static bool fail(char *err, size_t errlen, const char *what) {
  snprintf(err, errlen, "%s", what);
  return false;
}

static bool get_index(const JVal *v, size_t limit, size_t *out) {
  if (!v || v->kind != J_INT || v->u.i < 0 || (uint64_t)v->u.i >= limit) return false;
  *out = (size_t)v->u.i;
  return true;
}

static const char *get_str(const JVal *obj, const char *key) {
  const JVal *v = json_get(obj, key);
  return v && v->kind == J_STR ? v->u.s : NULL;
}

/* [file, line] of a location. */
static bool read_loc(const JVal *v, const char **file, long *line) {
  if (!v || v->kind != J_ARR || v->n < 2 || v->u.arr[0]->kind != J_STR || v->u.arr[1]->kind != J_INT) return false;
  *file = v->u.arr[0]->u.s;
  *line = (long)v->u.arr[1]->u.i;
  return true;
}

/* GRAPH nodes: [op, dtype, arg, [src...]], every src before its node. */
static bool read_nodes(Arena *a, const JVal *graph, Trace *t, char *err, size_t errlen) {
  const JVal *nodes = json_get(graph, "nodes");
  if (!nodes || nodes->kind != J_ARR) return fail(err, errlen, "graph.nodes missing or not an array");
  t->nnodes = nodes->n;
  t->nodes = arena_alloc(a, (nodes->n ? nodes->n : 1) * sizeof *t->nodes);
  for (size_t i = 0; i < nodes->n; i++) {
    const JVal *x = nodes->u.arr[i];
    TraceNode *nd = &t->nodes[i];
    if (x->kind != J_ARR || x->n != 4 || x->u.arr[0]->kind != J_STR || x->u.arr[3]->kind != J_ARR) {
      snprintf(err, errlen, "graph.nodes[%zu]: not [op, dtype, arg, [src...]]", i);
      return false;
    }
    nd->op = x->u.arr[0]->u.s;
    nd->dtype = x->u.arr[1]->kind == J_STR ? x->u.arr[1]->u.s : "None";
    nd->arg = x->u.arr[2];
    const JVal *src = x->u.arr[3];
    nd->nsrc = src->n;
    nd->src = arena_alloc(a, (src->n ? src->n : 1) * sizeof *nd->src);
    for (size_t s = 0; s < src->n; s++)
      if (!get_index(src->u.arr[s], i, &nd->src[s])) {
        snprintf(err, errlen, "graph.nodes[%zu]: src %zu is not an earlier node", i, s);
        return false;
      }
  }
  return true;
}

static bool read_rules(Arena *a, const JVal *rules, Trace *t, char *err, size_t errlen) {
  if (!rules || rules->kind != J_ARR) return fail(err, errlen, "rules missing or not an array");
  t->nrules = rules->n;
  t->rules = arena_alloc(a, (rules->n ? rules->n : 1) * sizeof *t->rules);
  for (size_t i = 0; i < rules->n; i++) {
    const JVal *r = rules->u.arr[i];
    TraceRule *tr = &t->rules[i];
    if (!read_loc(r, &tr->file, &tr->line) || r->n != 3 || r->u.arr[2]->kind != J_STR) {
      snprintf(err, errlen, "rules[%zu]: not [file, line, text]", i);
      return false;
    }
    tr->text = r->u.arr[2]->u.s;
  }
  return true;
}

static bool read_rewrite(Arena *a, const JVal *r, size_t k, Trace *t, char *err, size_t errlen) {
  TraceRewrite *rw = &t->rewrites[k];
  const JVal *bu = json_get(r, "bottom_up");
  rw->bottom_up = bu && bu->kind == J_BOOL && bu->u.b;
  rw->name = get_str(r, "name");
  if (!read_loc(json_get(r, "loc"), &rw->file, &rw->line)) {
    snprintf(err, errlen, "rewrites[%zu].loc: not [file, line]", k);
    return false;
  }
  if (!get_index(json_get(r, "sink"), t->nnodes, &rw->sink)) {
    snprintf(err, errlen, "rewrites[%zu].sink: not a node", k);
    return false;
  }
  const JVal *m = json_get(r, "matches");
  if (!m || m->kind != J_ARR) {
    snprintf(err, errlen, "rewrites[%zu].matches missing or not an array", k);
    return false;
  }
  rw->nsteps = m->n;
  rw->steps = arena_alloc(a, (m->n ? m->n : 1) * sizeof *rw->steps);
  for (size_t j = 0; j < m->n; j++) {
    const JVal *s = m->u.arr[j];
    TraceStep *st = &rw->steps[j];
    if (s->kind != J_ARR || s->n != 3 || !get_index(s->u.arr[0], t->nnodes, &st->before) ||
        !get_index(s->u.arr[1], t->nnodes, &st->after) || !get_index(s->u.arr[2], t->nrules, &st->rule)) {
      snprintf(err, errlen, "rewrites[%zu].matches[%zu]: not [before node, after node, rule]", k, j);
      return false;
    }
  }
  return true;
}

bool trace_read(Arena *a, const JVal *root, Trace *t, char *err, size_t errlen) {
  memset(t, 0, sizeof *t);
  const char *format = get_str(root, "format");
  if (!format || strcmp(format, "tsched-trace/1") != 0) return fail(err, errlen, "format is not \"tsched-trace/1\"");
  t->name = get_str(root, "name");
  t->generation = get_str(root, "generation");
  if (!t->name || !t->generation) return fail(err, errlen, "name or generation missing");
  if (!read_nodes(a, json_get(root, "graph"), t, err, errlen)) return false;
  if (!read_rules(a, json_get(root, "rules"), t, err, errlen)) return false;
  const JVal *rws = json_get(root, "rewrites");
  if (!rws || rws->kind != J_ARR) return fail(err, errlen, "rewrites missing or not an array");
  t->nrewrites = rws->n;
  t->rewrites = arena_alloc(a, (rws->n ? rws->n : 1) * sizeof *t->rewrites);
  for (size_t k = 0; k < rws->n; k++)
    if (!read_rewrite(a, rws->u.arr[k], k, t, err, errlen)) return false;
  return true;
}

bool trace_file_load(TraceFile *f, const char *path, char *err, size_t errlen) {
  memset(f, 0, sizeof *f);
  CaptureReader r;
  Status st = {0};
  if (!capture_reader_open(&r, path, &st)) {
    snprintf(err, errlen, "%s", st.msg);
    return false;
  }
  size_t cap = 0, line = 0;
  bool ok = true;
  for (size_t pos = 0; pos < r.len && ok;) {
    const char *nl = memchr(r.data + pos, '\n', r.len - pos);
    size_t end = nl ? (size_t)(nl - r.data) : r.len;
    line++;
    if (end > pos) {
      char jerr[256];
      JVal *root = json_parse(&f->arena, r.data + pos, end - pos, jerr, sizeof jerr);
      if (f->n == cap) {
        cap = cap ? cap * 2 : 64;
        Trace *bigger = realloc(f->traces, cap * sizeof *bigger);
        if (!bigger) abort();
        f->traces = bigger;
      }
      Trace *t = &f->traces[f->n];
      char terr[256];
      if (!root) ok = snprintf(err, errlen, "%s:%zu: malformed JSON: %s", path, line, jerr) < 0;
      else if (!trace_read(&f->arena, root, t, terr, sizeof terr))
        ok = snprintf(err, errlen, "%s:%zu: %s", path, line, terr) < 0;
      else {
        t->file = path;
        t->line = line;
        f->n++;
      }
    }
    pos = end + 1;
  }
  capture_reader_close(&r);
  if (!ok) trace_file_free(f);
  return ok;
}

void trace_file_free(TraceFile *f) {
  free(f->traces);
  arena_free(&f->arena);
  memset(f, 0, sizeof *f);
}

const Trace *trace_find(const TraceFile *f, const char *name) {
  for (size_t i = 0; i < f->n; i++)
    if (strcmp(f->traces[i].name, name) == 0) return &f->traces[i];
  return NULL;
}

bool trace_is_trace_path(const char *path) {
  const char *base = strrchr(path, '/');
  return strstr(base ? base : path, ".trace.jsonl") != NULL;
}

const char *trace_companion(const char *capture_path, char *buf, size_t n) {
  if (trace_is_trace_path(capture_path)) {
    snprintf(buf, n, "%s", capture_path);
    return buf;
  }
  const char *slash = strrchr(capture_path, '/');
  size_t dirlen = slash ? (size_t)(slash - capture_path) : 0;
  const char *base = slash ? slash + 1 : capture_path;
  const char *dslash = NULL;
  for (const char *p = capture_path; p < capture_path + dirlen; p++)
    if (*p == '/') dslash = p;
  const char *dirbase = dslash ? dslash + 1 : capture_path;
  size_t dirbaselen = (size_t)(capture_path + dirlen - dirbase);
  size_t stem = strlen(base);
  if (stem > 9 && strcmp(base + stem - 9, ".jsonl.gz") == 0) stem -= 9;
  else if (stem > 6 && strcmp(base + stem - 6, ".jsonl") == 0) stem -= 6;
  if (!slash) { /* in the current folder: its name is the corpus' name */
    char cwd[4096];
    const char *here = getcwd(cwd, sizeof cwd) ? strrchr(cwd, '/') : NULL;
    snprintf(buf, n, "../traces/%s/%.*s.trace.jsonl.gz", here ? here + 1 : ".", (int)stem, base);
  }
  else if (!dslash) snprintf(buf, n, "traces/%.*s/%.*s.trace.jsonl.gz", (int)dirlen, capture_path, (int)stem, base);
  else
    snprintf(buf, n, "%.*s/traces/%.*s/%.*s.trace.jsonl.gz", (int)(dslash - capture_path), capture_path,
             (int)dirbaselen, dirbase, (int)stem, base);
  return buf;
}

const char *trace_loc_text(const char *file, long line, char *buf, size_t n) {
  const char *slash = strrchr(file, '/');
  snprintf(buf, n, "%s:%ld", slash ? slash + 1 : file, line);
  return buf;
}

void trace_describe(const char *op, const char *dtype, const JVal *arg, char *buf, size_t n) {
  if (strncmp(op, "Ops.", 4) == 0) op += 4;
  char argtext[64] = "";
  if (arg && arg->kind == J_OBJ && json_get(arg, "views")) {
    json_st_shape_text(arg, argtext, sizeof argtext);
  } else if (arg && arg->kind == J_OBJ && json_get(arg, "Kernel")) {
    const JVal *k = json_get(arg, "Kernel");
    if (k->kind == J_ARR && k->n >= 1 && k->u.arr[0]->kind == J_INT) snprintf(argtext, sizeof argtext, "ast %lld", (long long)k->u.arr[0]->u.i);
  } else if (arg && arg->kind != J_NULL) {
    size_t len = 0;
    char *s = json_to_string(arg, &len);
    snprintf(argtext, sizeof argtext, "%.40s%s", s ? s : "", len > 40 ? "..." : "");
    free(s);
  }
  snprintf(buf, n, "%s %s%s%s", op, dtype, argtext[0] ? " " : "", argtext);
}

void trace_node_text(const Trace *t, size_t i, char *buf, size_t n) {
  char text[160];
  trace_describe(t->nodes[i].op, t->nodes[i].dtype, t->nodes[i].arg, text, sizeof text);
  snprintf(buf, n, "%zu %s", i, text);
}

/* ---- structural keys, comparing two traces ---- */

static uint64_t mix(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

uint64_t trace_node_key(const char *op, const char *dtype, const JVal *arg, const uint64_t *srckeys, size_t nsrc) {
  uint64_t h = 1469598103934665603ull;
  h = mix(h, op, strlen(op) + 1);
  h = mix(h, dtype, strlen(dtype) + 1);
  size_t len = 0;
  char *text = json_to_string(arg, &len);
  h = mix(h, text ? text : "", len);
  free(text);
  return mix(h, srckeys, nsrc * sizeof *srckeys);
}

/* A 0.10.2 KERNEL's arg {"Kernel": [ast node, metadata]} names its AST by a
 * node number of this trace: the AST node (an earlier one), else NULL. */
static const JVal *kernel_ast(const JVal *arg, size_t i) {
  const JVal *k = arg && arg->kind == J_OBJ ? json_get(arg, "Kernel") : NULL;
  bool ok = k && k->kind == J_ARR && k->n == 2 && k->u.arr[0]->kind == J_INT && k->u.arr[0]->u.i >= 0 && (uint64_t)k->u.arr[0]->u.i < i;
  return ok ? k : NULL;
}

/* the key of a KERNEL: its AST by the AST's key, not by its node number */
static uint64_t kernel_key(const TraceNode *x, const uint64_t *keys, uint64_t *srckeys) {
  const JVal *k = kernel_ast(x->arg, SIZE_MAX);
  uint64_t ast = keys[k->u.arr[0]->u.i];
  uint64_t h = trace_node_key(x->op, x->dtype, k->u.arr[1], srckeys, x->nsrc);
  return mix(h, &ast, sizeof ast);
}

uint64_t *trace_node_keys(const Trace *t) {
  uint64_t *keys = calloc(t->nnodes ? t->nnodes : 1, sizeof *keys);
  uint64_t *tmp = NULL;
  size_t tmpcap = 0;
  if (!keys) abort();
  for (size_t i = 0; i < t->nnodes; i++) {
    const TraceNode *x = &t->nodes[i];
    if (x->nsrc > tmpcap) {
      tmpcap = x->nsrc * 2;
      tmp = realloc(tmp, tmpcap * sizeof *tmp);
      if (!tmp) abort();
    }
    for (size_t s = 0; s < x->nsrc; s++) tmp[s] = keys[x->src[s]];
    keys[i] = kernel_ast(x->arg, i) ? kernel_key(x, keys, tmp) : trace_node_key(x->op, x->dtype, x->arg, tmp, x->nsrc);
  }
  free(tmp);
  return keys;
}

typedef struct TracePair {
  const Trace *want, *got;
  uint64_t *wkeys, *gkeys;
} TracePair;

static bool same_loc(const char *f1, long l1, const char *f2, long l2) { return l1 == l2 && strcmp(f1, f2) == 0; }

/* "schedule.py:144 12 VIEW float (4, 10) -> 13 ADD float" */
static void step_text(const Trace *t, const TraceStep *s, char *buf, size_t n) {
  char loc[128], before[192], after[192];
  trace_loc_text(t->rules[s->rule].file, t->rules[s->rule].line, loc, sizeof loc);
  trace_node_text(t, s->before, before, sizeof before);
  trace_node_text(t, s->after, after, sizeof after);
  snprintf(buf, n, "%s %s -> %s", loc, before, after);
}

/* step j of rewrite r: the same rule (location and Python text) on the same nodes? */
static bool same_step(const TracePair *p, const TraceStep *w, const TraceStep *g) {
  const TraceRule *rw = &p->want->rules[w->rule], *rg = &p->got->rules[g->rule];
  return same_loc(rw->file, rw->line, rg->file, rg->line) && strcmp(rw->text, rg->text) == 0 &&
         p->wkeys[w->before] == p->gkeys[g->before] &&
         p->wkeys[w->after] == p->gkeys[g->after];
}

/* rewrite r of both: false with the first difference; `cut` (the recording stopped in this rewrite):
 * tsched's may have more steps */
static bool same_rewrite(const TracePair *p, size_t r, bool cut, char *why, size_t whylen) {
  const TraceRewrite *w = &p->want->rewrites[r], *g = &p->got->rewrites[r];
  char wl[128], gl[128], wt[1024], gt[1024];
  trace_loc_text(w->file, w->line, wl, sizeof wl);
  trace_loc_text(g->file, g->line, gl, sizeof gl);
  if (!same_loc(w->file, w->line, g->file, g->line) || w->bottom_up != g->bottom_up) {
    snprintf(why, whylen, "rewrite %zu: tinygrad's is called at %s%s, tsched's at %s%s", r, wl, w->bottom_up ? " (bottom_up)" : "", gl,
             g->bottom_up ? " (bottom_up)" : "");
    return false;
  }
  if (p->wkeys[w->sink] != p->gkeys[g->sink]) {
    trace_node_text(p->want, w->sink, wt, sizeof wt);
    trace_node_text(p->got, g->sink, gt, sizeof gt);
    snprintf(why, whylen, "rewrite %zu (%s): another sink: tinygrad's %s, tsched's %s", r, wl, wt, gt);
    return false;
  }
  for (size_t j = 0; j < w->nsteps || (j < g->nsteps && !cut); j++) {
    if (j < w->nsteps && j < g->nsteps && same_step(p, &w->steps[j], &g->steps[j])) continue;
    if (j < w->nsteps) step_text(p->want, &w->steps[j], wt, sizeof wt);
    if (j < g->nsteps) step_text(p->got, &g->steps[j], gt, sizeof gt);
    snprintf(why, whylen, "step %zu.%zu (rewrite at %s): tinygrad %s, tsched %s", r, j, wl, j < w->nsteps ? wt : "has no more steps",
             j < g->nsteps ? gt : "has no more steps");
    return false;
  }
  return true;
}

bool trace_same(const Trace *want, const Trace *got, bool cut_short, char *why, size_t whylen) {
  TracePair p = {want, got, trace_node_keys(want), trace_node_keys(got)};
  bool same = true;
  size_t n = want->nrewrites < got->nrewrites ? want->nrewrites : got->nrewrites;
  for (size_t r = 0; r < n && same; r++) same = same_rewrite(&p, r, cut_short && r + 1 == want->nrewrites, why, whylen);
  if (same && want->nrewrites != got->nrewrites && !(cut_short && got->nrewrites > want->nrewrites)) {
    const TraceRewrite *extra = want->nrewrites > n ? &want->rewrites[n] : &got->rewrites[n];
    char loc[256];
    trace_loc_text(extra->file, extra->line, loc, sizeof loc);
    snprintf(why, whylen, "rewrite %zu (at %s): only %s made it (%zu rewrites, tsched %zu)", n, loc,
             want->nrewrites > n ? "tinygrad" : "tsched", want->nrewrites, got->nrewrites);
    same = false;
  }
  free(p.wkeys);
  free(p.gkeys);
  return same;
}

/* ---- the C scheduler's steps ---- */

void trace_catch(ResultSink *s, size_t k, const JVal *entry, Arena *scratch) {
  (void)k, (void)scratch;
  TraceCatch *x = s->trace_ctx;
  JVal *copy = json_copy(x->a, entry);
  x->caught = trace_read(x->a, copy, x->t, x->err, sizeof x->err);
}

bool trace_compute(const Capture *c, Arena *a, Trace *t, char *err, size_t errlen) {
  ScheduleCaptureFn fn = c->generation_known ? scheduler_for(c->generation) : NULL;
  if (!fn) {
    snprintf(err, errlen, "tsched has no scheduler for this version");
    return false;
  }
  TraceCatch x = {a, t, false, ""};
  ResultSink sink = {.trace = trace_catch, .trace_ctx = &x};
  Status st = {0};
  JVal *result = NULL;
  result_sink_set(&sink);
  bool ok = fn(c, a, &result, &st);
  result_sink_set(NULL);
  if (x.caught) return true;
  if (x.err[0]) snprintf(err, errlen, "tsched's trace is malformed: %s", x.err);
  else if (!ok && st.kind != ST_RAISED) snprintf(err, errlen, "%s", st.msg);
  else snprintf(err, errlen, "the %s scheduler does not trace its rewrite steps yet", tg_version_name(c->generation));
  return false;
}
