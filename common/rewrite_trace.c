/* rewrite_trace.c — recording rewrite steps and writing them as a trace
 * line (rewrite_trace.h). */
#include "rewrite_trace.h"
#include "rule_text.h"
#include <string.h>
#include "scheduler.h"

void rewrite_trace_init(RewriteTrace *t, Arena *a, TgVersion v) {
  memset(t, 0, sizeof *t);
  t->a = a;
  t->v = v;
}

/* ops.py graph_rewrite: tracked_ctxs[-1].append(TrackedGraphRewrite(loc, sink, bottom_up)) */
void rewrite_trace_call(RewriteTrace *t, const PyLoc *at, const UOp *sink, bool bottom_up) {
  t->calls = arena_grow(t->a, t->calls, t->ncalls, &t->calls_cap, sizeof *t->calls);
  t->calls[t->ncalls++] = (RewriteCall){at, sink, bottom_up, t->nsteps};
}

/* TrackedPatternMatcher.rewrite: tracked_ctxs[-1][-1].matches.append((uop, ret, p)) */
void rewrite_trace_step(RewriteTrace *t, const UOp *before, const UOp *after, const Rule *rule) {
  if (!t->ncalls) return; /* tinygrad has no rewrite to add it to */
  t->steps = arena_grow(t->a, t->steps, t->nsteps, &t->steps_cap, sizeof *t->steps);
  t->steps[t->nsteps++] = (RewriteStep){before, after, rule};
}

bool rewrite_trace_wanted(void) {
  ResultSink *s = result_sink();
  return s && s->trace;
}

/* [file, line] of loc in version v ("?" and 0 where there is none) */
static JVal *loc_json(Arena *a, const PyLoc *loc, TgVersion v) {
  JVal *arr = json_arr_n(a, 2);
  const PyLine *at = loc ? &loc->in[v] : NULL;
  bool known = at && at->file && at->line;
  arr->u.arr[0] = json_str(a, known ? at->file : "?");
  arr->u.arr[1] = json_int(a, known ? at->line : 0);
  return arr;
}

/* the index of rule r in rules (added, as [file, line, text], when new): the text is the Python
 * line of its UPat (UPat.printable()), or the C rule's name where no location is known */
static size_t rule_index(Arena *a, JVal *rules, const Rule **seen, size_t *nseen, const Rule *r, TgVersion v) {
  for (size_t i = 0; i < *nseen; i++)
    if (seen[i] == r) return i;
  JVal *row = loc_json(a, &r->at, v);
  const PyLine *at = &r->at.in[v];
  const char *text = at->file && at->line ? rule_text(v, at->file, at->line) : NULL;
  json_push(a, row, json_str(a, text ? text : r->name ? r->name : "?"));
  json_push(a, rules, row);
  seen[*nseen] = r;
  return (*nseen)++;
}

JVal *rewrite_trace_json(const RewriteTrace *t, Codec *c, const char *generation, const char *name, const TraceEncoding *how) {
  Arena *a = c->out;
  /* one GRAPH of the first sink (the input graph: its nodes come first, numbered as tinygrad's tracker
   * numbers them), the extra nodes (before what refers to them), every other sink, before and after
   * node; their indices are its roots */
  size_t nextra = how ? how->nextra : 0, nfirst = t->ncalls ? 1 : 0, nroots = nextra + t->ncalls + 2 * t->nsteps;
  const UOp **roots = arena_array(a, nroots + 1, sizeof *roots);
  if (nfirst) roots[0] = t->calls[0].sink;
  for (size_t i = 0; i < nextra; i++) roots[nfirst + i] = how->extra[i];
  const UOp **rest = roots + nfirst + nextra;
  for (size_t i = nfirst; i < t->ncalls; i++) rest[i - nfirst] = t->calls[i].sink;
  for (size_t j = 0; j < t->nsteps; j++) rest[t->ncalls - nfirst + 2 * j] = t->steps[j].before, rest[t->ncalls - nfirst + 2 * j + 1] = t->steps[j].after;
  JVal *graph = graph_encode(c, roots, nroots);
  if (how && how->patch) how->patch(how->ctx, c, (JVal *)json_get(graph, "nodes"));
  /* at[i]: sink i's index; at[ncalls + 2j], at[ncalls + 2j + 1]: step j's before and after */
  JVal *const *enc = json_get(graph, "roots")->u.arr;
  JVal **at = arena_array(a, t->ncalls + 2 * t->nsteps + 1, sizeof *at);
  if (nfirst) at[0] = enc[0];
  for (size_t i = nfirst; i < t->ncalls + 2 * t->nsteps; i++) at[i] = enc[nextra + i];
  JVal *sinks = json_arr(a), *rules = json_arr(a), *rewrites = json_arr(a);
  const Rule **seen = arena_array(a, t->nsteps + 1, sizeof *seen);
  size_t nseen = 0;
  for (size_t i = 0; i < t->ncalls; i++) {
    const RewriteCall *call = &t->calls[i];
    size_t end = i + 1 < t->ncalls ? t->calls[i + 1].first : t->nsteps;
    JVal *rw = json_obj(a), *matches = json_arr(a);
    json_push(a, sinks, at[i]);
    for (size_t j = call->first; j < end; j++) {
      JVal *m = json_arr_n(a, 3);
      m->u.arr[0] = at[t->ncalls + 2 * j];
      m->u.arr[1] = at[t->ncalls + 2 * j + 1];
      m->u.arr[2] = json_int(a, (int64_t)rule_index(a, rules, seen, &nseen, t->steps[j].rule, t->v));
      json_push(a, matches, m);
    }
    json_set(a, rw, "loc", loc_json(a, call->at, t->v));
    json_set(a, rw, "sink", at[i]);
    json_set(a, rw, "matches", matches);
    if (call->bottom_up) json_set(a, rw, "bottom_up", json_bool(a, true));
    json_push(a, rewrites, rw);
  }
  JVal *g = json_obj(a), *o = json_obj(a);
  json_set(a, g, "nodes", (JVal *)json_get(graph, "nodes"));
  json_set(a, g, "roots", sinks);
  json_set(a, o, "format", json_str(a, "tsched-trace/1"));
  json_set(a, o, "generation", json_str(a, generation));
  json_set(a, o, "name", json_str(a, name));
  json_set(a, o, "graph", g);
  json_set(a, o, "rules", rules);
  json_set(a, o, "rewrites", rewrites);
  return o;
}

void rewrite_trace_emit(const RewriteTrace *t, Codec *c, const char *generation, const char *name, const TraceEncoding *how) {
  ResultSink *s = result_sink();
  if (!s || !s->trace) return;
  Arena scratch, *out = c->out;
  arena_init(&scratch);
  c->out = &scratch;
  JVal *line = rewrite_trace_json(t, c, generation, name, how);
  c->out = out;
  s->trace(s, 0, line, &scratch);
  arena_free(&scratch);
}
