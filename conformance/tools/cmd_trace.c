/* cmd_trace.c — `tsched trace`: the rewrite steps tinygrad recorded for a
 * capture (record.py --trace): each graph_rewrite call with its caller's
 * location and each rule that fired, with the rule's location, its Python
 * text and the node before and after. Filters by kernel, node and rule. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "explain.h"
#include "ingraph.h"
#include "omap.h"
#include "tools.h"
#include "trace.h"

typedef struct TraceOptions {
  const char **names;
  size_t nnames;
  const char **rules;
  size_t nrules;
  bool has_kernel, has_node, json, recorded, computed;
  size_t kernel, node;
  size_t shown, steps_shown;
  int status;
  /* the trace file of the captures being walked */
  char loaded_path[4096];
  bool loaded_ok;
  TraceFile file;
} TraceOptions;

static void usage(FILE *f) {
  fprintf(f,
          "NAME\n"
          "    tsched trace - the rewrite steps of a capture: tinygrad's, or tsched's\n"
          "\n"
          "SYNOPSIS\n"
          "    tsched trace [OPTION]... FILE...\n"
          "\n"
          "DESCRIPTION\n"
          "    Prints, in order, every graph_rewrite call tinygrad made inside\n"
          "    create_schedule_with_vars (the line that called it) and every rule\n"
          "    that fired in it: the rule's location and Python text, and the node\n"
          "    it rewrote -> the node it returned, as short descriptions (\"12 VIEW\n"
          "    float (4, 10)\"). The steps come from the companion trace file the\n"
          "    oracle recorded with TRACK_MATCH_STATS=2 (record.py --trace): FILE is\n"
          "    that .trace.jsonl(.gz) file, or a capture file whose companion is\n"
          "    found as DIR/../traces/BASENAME(DIR)/NAME.trace.jsonl.gz\n"
          "    (conformance/corpus/v0.10.2-workloads.jsonl.gz ->\n"
          "    conformance/traces/corpus/v0.10.2-workloads.trace.jsonl.gz).\n"
          "    A capture with no recorded trace (or any, with --computed) gets the\n"
          "    steps tsched's C scheduler takes, printed the same way: each C rule\n"
          "    carries the location of the UPat it mirrors and each graph_rewrite\n"
          "    call its caller's; a rule's text is the Python line at that\n"
          "    location (UPat.printable()), generated from the checkouts.\n"
          "    0.9.1 and 0.9.2 have no PatternMatcher in their schedulers: their\n"
          "    steps are the decisions the C scheduler reports to `explain`, in\n"
          "    order (each realize with its reason, each node fused, each kernel\n"
          "    scheduled). 0.9.2+197f8fd's steps are the two rewrites of each\n"
          "    kernel's UOp AST (reduceop_fusor, enumerate_bufs).\n"
          "    Node numbers are the trace's; in 0.10.2 the first rewrite's sink is\n"
          "    the input graph, so its nodes carry the numbers `dot` and `explain`\n"
          "    show.\n"
          "\n"
          "OPTIONS\n"
          "    -n, --name NAME\n"
          "        only this capture, or every call of a workload (may be repeated)\n"
          "    -k, --kernel K\n"
          "        only steps about kernel K of the schedule: a step whose result\n"
          "        is (structurally) a node of kernel K's AST, or (0.10.x tensor\n"
          "        graphs) that rewrites an input node computed in kernel K. FILE\n"
          "        must be the capture file\n"
          "    --node N\n"
          "        only steps whose node before or after is node N\n"
          "    --rule R\n"
          "        only steps of rules whose location ends in R (\"schedule.py:77\",\n"
          "        \"77\") or whose Python text contains R (may be repeated)\n"
          "    -c, --computed\n"
          "        the C scheduler's steps, even where tinygrad's were recorded\n"
          "    -r, --recorded\n"
          "        with --kernel: the recorded schedule (do not run the C scheduler)\n"
          "    -j, --json\n"
          "        JSON Lines: one {\"type\": \"rewrite\"} per graph_rewrite call and one\n"
          "        {\"type\": \"step\"} per step shown\n"
          "    -h, --help\n"
          "        this text\n"
          "\n"
          "EXIT STATUS\n"
          "    0 steps shown, 1 no trace of that name, an unreadable file, 2 wrong\n"
          "    usage\n"
          "\n"
          "EXAMPLES\n"
          "    tsched trace -n 'workloads.softmax_norms#1' conformance/corpus/v0.10.2-workloads.jsonl.gz\n"
          "    tsched trace --rule schedule.py:225 -n 'workloads.casts#1' conformance/traces/corpus/v0.10.2-workloads.trace.jsonl.gz\n");
}

/* ---- which steps are shown ---- */

enum { IN_AST = 1, IN_INPUT = 2 };   /* a node of kernel K's AST (structurally); an input node computed in K */
typedef struct Filter {
  const TraceOptions *o;
  const Trace *t;
  const char *source;         /* "recorded by tinygrad", "taken by tsched" */
  unsigned char *in_kernel;   /* per trace node, with --kernel: IN_AST | IN_INPUT */
} Filter;

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return m <= n && strcmp(s + n - m, suffix) == 0;
}

static bool rule_selected(const TraceOptions *o, const TraceRule *r) {
  if (o->nrules == 0) return true;
  char loc[4200];
  snprintf(loc, sizeof loc, "%s:%ld", r->file, r->line);
  for (size_t i = 0; i < o->nrules; i++)
    if (ends_with(loc, o->rules[i]) || strstr(r->text, o->rules[i])) return true;
  return false;
}

static bool step_selected(const Filter *f, const TraceStep *s) {
  const TraceOptions *o = f->o;
  if (!rule_selected(o, &f->t->rules[s->rule])) return false;
  if (o->has_node && s->before != o->node && s->after != o->node) return false;
  if (o->has_kernel && !(f->in_kernel[s->after] & IN_AST) && !((f->in_kernel[s->before] | f->in_kernel[s->after]) & IN_INPUT))
    return false;
  return true;
}

/* Marks the keys of the nodes of an AST GRAPH in `set`. */
static void mark_ast(Arena *a, const JVal *ast, OMap *set) {
  const JVal *nodes = json_get(ast, "nodes");
  if (!nodes || nodes->kind != J_ARR) return;
  uint64_t *keys = arena_alloc(a, (nodes->n ? nodes->n : 1) * sizeof *keys);
  uint64_t tmp[64];
  for (size_t i = 0; i < nodes->n; i++) {
    const JVal *x = nodes->u.arr[i];
    if (x->kind != J_ARR || x->n != 4 || x->u.arr[0]->kind != J_STR || x->u.arr[3]->kind != J_ARR) return;
    const JVal *src = x->u.arr[3];
    size_t ns = src->n < 64 ? src->n : 64;
    for (size_t s = 0; s < ns; s++) {
      const JVal *v = src->u.arr[s];
      tmp[s] = v->kind == J_INT && v->u.i >= 0 && (uint64_t)v->u.i < i ? keys[v->u.i] : 0;
    }
    const char *dtype = x->u.arr[1]->kind == J_STR ? x->u.arr[1]->u.s : "None";
    keys[i] = trace_node_key(x->u.arr[0]->u.s, dtype, x->u.arr[2], tmp, ns);
    omap_put(set, keys[i], (void *)1);
  }
}

/* in_kernel[i] for every trace node: in kernel K's AST, an input node computed in kernel K. */
static bool kernel_nodes(const Capture *c, Arena *a, const TraceOptions *o, const Trace *t, unsigned char *in_kernel) {
  Sched s;
  sched_of(c, a, o->recorded, &s);
  const JVal *items = sched_items(&s);
  if (!items || o->kernel >= items->n) {
    term_printf(stderr, "tsched trace: %s: the schedule has %u kernel%s, no kernel %zu\n", c->name, items ? items->n : 0,
                items && items->n == 1 ? "" : "s", o->kernel);
    return false;
  }
  char err[256];
  const JVal *item = json_materialize(a, items->u.arr[o->kernel], err, sizeof err);
  OMap set;
  omap_init(&set, a);
  if (item) mark_ast(a, json_get(item, "ast"), &set);
  uint64_t *keys = trace_node_keys(t);
  for (size_t i = 0; i < t->nnodes; i++) in_kernel[i] = omap_has(&set, keys[i]) ? IN_AST : 0;
  free(keys);
  InGraph g;
  if (c->generation_known && tg_features(c->generation)->schedule_input_tensor_uops &&
      ingraph_build(&g, c, s.result, items, err, sizeof err)) {
    for (size_t i = 0; i < g.n && i < t->nnodes; i++)
      if (g.nodes[i].kernel == (long)o->kernel) in_kernel[i] |= IN_INPUT;
    ingraph_free(&g);
  }
  return true;
}

/* ---- printing ---- */

static const char SOURCE_TINYGRAD[] = "recorded by tinygrad", SOURCE_TSCHED[] = "taken by tsched's C scheduler";

static void print_text(StrBuf *b, const Filter *f) {
  const Trace *t = f->t;
  size_t nsteps = 0;
  for (size_t r = 0; r < t->nrewrites; r++) nsteps += t->rewrites[r].nsteps;
  sb_printf(b, "=== %s  %s  %zu rewrite%s, %zu step%s  %s\n", t->name, t->generation, t->nrewrites,
            t->nrewrites == 1 ? "" : "s", nsteps, nsteps == 1 ? "" : "s", f->source);
  char loc[512], before[160], after[160];
  for (size_t r = 0; r < t->nrewrites; r++) {
    const TraceRewrite *rw = &t->rewrites[r];
    bool header = false;
    for (size_t j = 0; j < rw->nsteps; j++) {
      const TraceStep *s = &rw->steps[j];
      if (!step_selected(f, s)) continue;
      if (!header) {
        trace_node_text(t, rw->sink, before, sizeof before);
        sb_printf(b, "rewrite %zu  %s  sink %s%s%s%s\n", r, trace_loc_text(rw->file, rw->line, loc, sizeof loc), before,
                  rw->bottom_up ? "  bottom_up" : "", rw->name ? "  name: " : "", rw->name ? rw->name : "");
        header = true;
      }
      const TraceRule *rule = &t->rules[s->rule];
      trace_node_text(t, s->before, before, sizeof before);
      trace_node_text(t, s->after, after, sizeof after);
      sb_printf(b, "  %zu.%zu  %s  %s\n        %s -> %s\n", r, j, trace_loc_text(rule->file, rule->line, loc, sizeof loc),
                rule->text, before, after);
      ((TraceOptions *)f->o)->steps_shown++;
    }
    if (!header && f->o->nrules == 0 && !f->o->has_node && !f->o->has_kernel) {
      trace_node_text(t, rw->sink, before, sizeof before);
      sb_printf(b, "rewrite %zu  %s  sink %s%s  no rule fired\n", r, trace_loc_text(rw->file, rw->line, loc, sizeof loc), before,
                rw->bottom_up ? "  bottom_up" : "");
    }
  }
}

static void print_json(StrBuf *b, const Filter *f) {
  const Trace *t = f->t;
  char text[160];
  for (size_t r = 0; r < t->nrewrites; r++) {
    const TraceRewrite *rw = &t->rewrites[r];
    sb_puts(b, "{\"type\": \"rewrite\", \"name\": ");
    json_str_lit(b, t->name);
    sb_printf(b, ", \"generation\": \"%s\", \"source\": \"%s\", \"rewrite\": %zu, \"file\": ", t->generation,
              f->source == SOURCE_TINYGRAD ? "tinygrad" : "tsched", r);
    json_str_lit(b, rw->file);
    sb_printf(b, ", \"line\": %ld, \"sink\": %zu, \"bottom_up\": %s, \"steps\": %zu}\n", rw->line, rw->sink,
              rw->bottom_up ? "true" : "false", rw->nsteps);
    for (size_t j = 0; j < rw->nsteps; j++) {
      const TraceStep *s = &rw->steps[j];
      if (!step_selected(f, s)) continue;
      const TraceRule *rule = &t->rules[s->rule];
      sb_puts(b, "{\"type\": \"step\", \"name\": ");
      json_str_lit(b, t->name);
      sb_printf(b, ", \"rewrite\": %zu, \"step\": %zu, \"rule_file\": ", r, j);
      json_str_lit(b, rule->file);
      sb_printf(b, ", \"rule_line\": %ld, \"rule_text\": ", rule->line);
      json_str_lit(b, rule->text);
      trace_node_text(t, s->before, text, sizeof text);
      sb_printf(b, ", \"before\": %zu, \"before_text\": ", s->before);
      json_str_lit(b, text);
      trace_node_text(t, s->after, text, sizeof text);
      sb_printf(b, ", \"after\": %zu, \"after_text\": ", s->after);
      json_str_lit(b, text);
      sb_puts(b, "}\n");
      ((TraceOptions *)f->o)->steps_shown++;
    }
  }
}

static bool name_wanted(const TraceOptions *o, const char *name) {
  bool selected = o->nnames == 0;
  for (size_t i = 0; i < o->nnames && !selected; i++) selected = name_selected(name, o->names[i]);
  return selected;
}

static void show(TraceOptions *o, const Trace *t, const char *source, unsigned char *in_kernel) {
  Filter f = {o, t, source, in_kernel};
  StrBuf b = {0};
  if (o->json) print_json(&b, &f);
  else print_text(&b, &f);
  sb_flush(&b, stdout);
  sb_free(&b);
  o->shown++;
}

/* Loads the companion trace file of `path` (once per file); quiet when it
 * has none unless `loud` (the steps are then taken from the C scheduler). */
static bool load_companion(TraceOptions *o, const char *path, bool loud) {
  char tp[4096];
  trace_companion(path, tp, sizeof tp);
  if (strcmp(tp, o->loaded_path) == 0) return o->loaded_ok;
  if (o->loaded_ok) trace_file_free(&o->file);
  snprintf(o->loaded_path, sizeof o->loaded_path, "%s", tp);
  char err[512];
  o->loaded_ok = trace_file_load(&o->file, tp, err, sizeof err);
  if (!o->loaded_ok && loud) {
    term_printf(stderr, "tsched trace: %s: no trace: %s\n", path, err);
    o->status = 1;
  }
  return o->loaded_ok;
}

/* The recorded trace of c (unless --computed), else the C scheduler's steps in *computed */
static const Trace *trace_of(TraceOptions *o, const Capture *c, Arena *a, Trace *computed, const char **source) {
  const Trace *t = !o->computed && load_companion(o, c->file, false) ? trace_find(&o->file, c->name) : NULL;
  *source = SOURCE_TINYGRAD;
  if (t) return t;
  char err[512];
  if (!trace_compute(c, a, computed, err, sizeof err)) {
    term_printf(stderr, "tsched trace: %s: no trace recorded, and none computed: %s\n", c->name, err);
    o->status = 1;
    return NULL;
  }
  *source = SOURCE_TSCHED;
  return computed;
}

/* ---- 0.9.1, 0.9.2: no PatternMatcher, the scheduler's decisions in order ---- */

/* "12 BinaryOps.ADD" */
static void node_text(const InGraph *g, uint32_t i, char *buf, size_t n) {
  if (i < g->n) snprintf(buf, n, "%u %s", i, g->nodes[i].op);
  else snprintf(buf, n, "%u ?", i);
}

/* One decision: text or a JSON line */
static void decision(StrBuf *b, const TraceOptions *o, const char *name, const char *kind, const char *node, const char *what,
                     const char *detail) {
  if (!o->json) {
    sb_printf(b, "%-8s %s: %s%s%s\n", kind, node, what, detail ? " — " : "", detail ? detail : "");
    return;
  }
  sb_puts(b, "{\"type\": \"decision\", \"name\": ");
  json_str_lit(b, name);
  sb_printf(b, ", \"kind\": \"%s\", \"node\": ", kind);
  json_str_lit(b, node);
  sb_puts(b, ", \"what\": ");
  json_str_lit(b, what);
  sb_puts(b, ", \"detail\": ");
  if (detail) json_str_lit(b, detail);
  else sb_puts(b, "null");
  sb_puts(b, "}\n");
}

/* The steps of a scheduler without a rewrite engine (0.9.1, 0.9.2): what `explain`
 * is told, in the order the scheduler decided it: each realize with its
 * reason (a reduce chased down to its contiguous child, grouped as another
 * output, ...), each node fused into a kernel, each kernel scheduled. */
static void show_decisions(TraceOptions *o, const Capture *c, Arena *a) {
  Explain ex;
  explain_init(&ex);
  Sched s;
  sched_of_explained(c, a, false, &ex, &s);
  InGraph g;
  char err[512], node[96], into[96], what[160];
  if (s.source != SRC_TSCHED || !ingraph_build(&g, c, s.result, sched_items(&s), err, sizeof err)) {
    term_printf(stderr, "tsched trace: %s: %s has no rewrite tracker, and tsched's scheduler did not run it: %s\n", c->name,
                tg_version_name(c->generation), s.source != SRC_TSCHED ? sched_source_word(s.source) : err);
    o->status = 1;
    explain_free(&ex);
    return;
  }
  StrBuf b = {0};
  if (!o->json)
    sb_printf(&b, "=== %s  %s  %zu realize%s, %zu fuse%s, %zu kernel%s  decided by tsched's C scheduler (%s has no rewrite "
              "tracker: its decisions in order)\n", c->name, tg_version_name(c->generation), ex.nrealizes, ex.nrealizes == 1 ? "" : "s",
              ex.nfuses, ex.nfuses == 1 ? "" : "s", ex.nkernels, ex.nkernels == 1 ? "" : "s", tg_version_name(c->generation));
  for (size_t i = 0; i < ex.nrealizes; i++) {
    const ExplainRealize *r = &ex.realizes[i];
    node_text(&g, r->node, node, sizeof node);
    snprintf(what, sizeof what, "%s (%s)", explain_reason_name(r->reason), explain_reason_text(r->reason));
    decision(&b, o, c->name, "realize", node, what, r->detail);
  }
  for (size_t i = 0; i < ex.nfuses; i++) {
    node_text(&g, ex.fuses[i].node, node, sizeof node);
    node_text(&g, ex.fuses[i].into, into, sizeof into);
    snprintf(what, sizeof what, "into the kernel storing %s", into);
    decision(&b, o, c->name, "fuse", node, what, NULL);
  }
  for (size_t i = 0; i < ex.nkernels; i++) {
    node_text(&g, ex.kernels[i].node, node, sizeof node);
    snprintf(what, sizeof what, "scheduled as kernel %u", ex.kernels[i].kernel);
    decision(&b, o, c->name, "kernel", node, what, NULL);
  }
  sb_flush(&b, stdout);
  sb_free(&b);
  ingraph_free(&g);
  explain_free(&ex);
  o->shown++;
}

static bool visit(const Capture *c, Arena *a, void *ctx) {
  TraceOptions *o = ctx;
  if (!name_wanted(o, c->name)) return true;
  if (c->generation_known && !tg_has_rewrite_tracker(c->generation)) {
    show_decisions(o, c, a);
    return true;
  }
  Trace computed;
  const char *source;
  const Trace *t = trace_of(o, c, a, &computed, &source);
  if (!t) return true;
  unsigned char *in_kernel = NULL;
  if (o->has_kernel) {
    in_kernel = calloc(t->nnodes ? t->nnodes : 1, sizeof *in_kernel);
    if (!in_kernel) abort();
    if (!kernel_nodes(c, a, o, t, in_kernel)) {
      o->status = 1;
      free(in_kernel);
      return true;
    }
  }
  show(o, t, source, in_kernel);
  free(in_kernel);
  return true;
}

static void trace_operand(TraceOptions *o, char *path) {
  if (!trace_is_trace_path(path)) {
    walk_captures("trace", 1, &path, visit, o);
    return;
  }
  if (o->has_kernel) {
    term_printf(stderr, "tsched trace: --kernel needs the capture file, not the trace file %s\n", path);
    o->status = 1;
    return;
  }
  if (!load_companion(o, path, true)) return;
  for (size_t i = 0; i < o->file.n; i++)
    if (name_wanted(o, o->file.traces[i].name)) show(o, &o->file.traces[i], SOURCE_TINYGRAD, NULL);
}

enum { OPT_NAME, OPT_KERNEL, OPT_NODE, OPT_RULE, OPT_RECORDED, OPT_JSON, OPT_COMPUTED };
static const CliOption options[] = {
  {"name", 'n', "NAME", OPT_NAME},     {"kernel", 'k', "K", OPT_KERNEL},   {"node", 0, "N", OPT_NODE},
  {"rule", 0, "R", OPT_RULE},          {"recorded", 'r', NULL, OPT_RECORDED}, {"json", 'j', NULL, OPT_JSON},
  {"computed", 'c', NULL, OPT_COMPUTED},
};

int cmd_trace(int argc, char **argv) {
  TraceOptions o = {0};
  CliParser p;
  cli_init(&p, "trace", options, sizeof options / sizeof options[0], usage, argc, argv);
  o.names = cli_list(&p);
  o.rules = cli_list(&p);
  for (int id; (id = cli_next(&p)) != CLI_END;) {
    switch (id) {
      case OPT_NAME: o.names[o.nnames++] = p.value; break;
      case OPT_RULE: o.rules[o.nrules++] = p.value; break;
      case OPT_KERNEL: o.has_kernel = cli_index(&p, "--kernel", 0, (size_t)1 << 40, &o.kernel); break;
      case OPT_NODE: o.has_node = cli_index(&p, "--node", 0, (size_t)1 << 40, &o.node); break;
      case OPT_RECORDED: o.recorded = true; break;
      case OPT_JSON: o.json = true; break;
      case OPT_COMPUTED: o.computed = true; break;
    }
  }
  if (p.status < 0 && p.noperands == 0) cli_fail(&p, "no FILE given");
  int status = p.status;
  if (status < 0) {
    for (int i = 0; i < p.noperands; i++) trace_operand(&o, p.operands[i]);
    if (o.shown == 0 && o.status == 0) term_printf(stderr, "tsched trace: no trace%s\n", o.nnames ? " of that name" : "");
    status = o.status || o.shown == 0 ? 1 : 0;
  }
  if (o.loaded_ok) trace_file_free(&o.file);
  cli_free(&p);
  return status;
}
