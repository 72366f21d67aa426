/* cmd_trace.c — `tsched trace`: the rewrite steps tinygrad recorded for a
 * capture (record.py --trace): each graph_rewrite call with its caller's
 * location and each rule that fired, with the rule's location, its Python
 * text and the node before and after. Filters by kernel, node and rule. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "ingraph.h"
#include "omap.h"
#include "tools.h"
#include "trace.h"

typedef struct TraceOptions {
  const char **names;
  size_t nnames;
  const char **rules;
  size_t nrules;
  bool has_kernel, has_node, json, recorded;
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
          "    tsched trace - the rewrite steps tinygrad recorded for a capture\n"
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

/* A structural key per node: equal subgraphs get equal keys in both graphs. */
static uint64_t mix(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

static uint64_t node_key(const char *op, const char *dtype, const JVal *arg, const uint64_t *srckeys, size_t nsrc) {
  uint64_t h = 1469598103934665603ull;
  h = mix(h, op, strlen(op) + 1);
  h = mix(h, dtype, strlen(dtype) + 1);
  size_t len = 0;
  char *text = json_to_string(arg, &len);
  h = mix(h, text ? text : "", len);
  free(text);
  return mix(h, srckeys, nsrc * sizeof *srckeys);
}

static uint64_t *trace_keys(const Trace *t) {
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
    keys[i] = node_key(x->op, x->dtype, x->arg, tmp, x->nsrc);
  }
  free(tmp);
  return keys;
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
    keys[i] = node_key(x->u.arr[0]->u.s, dtype, x->u.arr[2], tmp, ns);
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
  uint64_t *keys = trace_keys(t);
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

static void print_text(StrBuf *b, const Filter *f) {
  const Trace *t = f->t;
  size_t nsteps = 0;
  for (size_t r = 0; r < t->nrewrites; r++) nsteps += t->rewrites[r].nsteps;
  sb_printf(b, "=== %s  %s  %zu rewrite%s, %zu step%s  recorded by tinygrad\n", t->name, t->generation, t->nrewrites,
            t->nrewrites == 1 ? "" : "s", nsteps, nsteps == 1 ? "" : "s");
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
    sb_printf(b, ", \"generation\": \"%s\", \"rewrite\": %zu, \"file\": ", t->generation, r);
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

static void show(TraceOptions *o, const Trace *t, unsigned char *in_kernel) {
  Filter f = {o, t, in_kernel};
  StrBuf b = {0};
  if (o->json) print_json(&b, &f);
  else print_text(&b, &f);
  sb_flush(&b, stdout);
  sb_free(&b);
  o->shown++;
}

/* Loads the companion trace file of `path` (once per file). */
static bool load_companion(TraceOptions *o, const char *path) {
  char tp[4096];
  trace_companion(path, tp, sizeof tp);
  if (strcmp(tp, o->loaded_path) == 0) return o->loaded_ok;
  if (o->loaded_ok) trace_file_free(&o->file);
  snprintf(o->loaded_path, sizeof o->loaded_path, "%s", tp);
  char err[512];
  o->loaded_ok = trace_file_load(&o->file, tp, err, sizeof err);
  if (!o->loaded_ok) {
    term_printf(stderr, "tsched trace: %s: no trace: %s\n", path, err);
    o->status = 1;
  }
  return o->loaded_ok;
}

static bool visit(const Capture *c, Arena *a, void *ctx) {
  TraceOptions *o = ctx;
  if (!name_wanted(o, c->name)) return true;
  if (!load_companion(o, c->file)) return true;
  const Trace *t = trace_find(&o->file, c->name);
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
  show(o, t, in_kernel);
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
  if (!load_companion(o, path)) return;
  for (size_t i = 0; i < o->file.n; i++)
    if (name_wanted(o, o->file.traces[i].name)) show(o, &o->file.traces[i], NULL);
}

enum { OPT_NAME, OPT_KERNEL, OPT_NODE, OPT_RULE, OPT_RECORDED, OPT_JSON };
static const CliOption options[] = {
  {"name", 'n', "NAME", OPT_NAME},     {"kernel", 'k', "K", OPT_KERNEL},   {"node", 0, "N", OPT_NODE},
  {"rule", 0, "R", OPT_RULE},          {"recorded", 'r', NULL, OPT_RECORDED}, {"json", 'j', NULL, OPT_JSON},
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
