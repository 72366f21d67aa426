/* cmd_view.c — `tsched view`: one self-contained HTML page for a capture, a
 * workload or a workload across versions: the input graph laid out by ELK
 * (vendored, copied into the page) with nodes coloured by kernel, the
 * kernels with their ASTs and explain reasons, and the recorded rewrite
 * steps (docs/view.md). The page is conformance/view/view.js and view.css
 * around the data this file writes as JSON. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "explain.h"
#include "ingraph.h"
#include "kernels.h"
#include "pyrepr.h"
#include "tools.h"
#include "trace.h"

typedef struct ViewEntry {
  char *name;
  TgVersion generation;
  char *json;      /* this capture's view object */
} ViewEntry;

typedef struct ViewOptions {
  const char **names;
  size_t nnames;
  bool recorded;
  const char *out;
  ViewEntry *entries;
  size_t n, cap;
  int status;
  char trace_path[4096];  /* the trace file loaded for the captures being walked */
  bool trace_ok;
  TraceFile traces;
} ViewOptions;

static void usage(FILE *f) {
  fprintf(f,
          "NAME\n"
          "    tsched view - one self-contained HTML page to explore captures in a browser\n"
          "\n"
          "SYNOPSIS\n"
          "    tsched view [OPTION]... FILE...\n"
          "\n"
          "DESCRIPTION\n"
          "    Writes one HTML page (no server, no network: it opens from disk) for\n"
          "    the selected captures: the input graph laid out by ELK with each node\n"
          "    coloured by the kernel it ends up in (kernels fold into one box each on\n"
          "    big graphs; click to open), the kernel list with each kernel's AST as\n"
          "    `tsched ast` prints it and its `explain` reasons, and the rewrite steps\n"
          "    tinygrad recorded (`tsched trace`; where none was recorded, the steps\n"
          "    tsched's C scheduler takes, marked so): selecting a step highlights the\n"
          "    nodes it rewrote. A capture recorded in several versions (the same name\n"
          "    in several FILEs) is shown with the versions side by side; a workload\n"
          "    name selects all its calls (a menu picks one). The page also opens at\n"
          "    #name=NAME&kernel=K, #step=R.S or #search=TEXT.\n"
          "\n"
          "OPTIONS\n"
          "    -n, --name NAME\n"
          "        a capture, or every call of a workload (may be repeated; default:\n"
          "        every capture of the FILEs)\n"
          "    -o, --output FILE\n"
          "        write the page there (default: standard output)\n"
          "    -r, --recorded\n"
          "        use the recordings (do not run the C scheduler)\n"
          "    -h, --help\n"
          "        this text\n"
          "\n"
          "EXIT STATUS\n"
          "    0 written, 1 no capture selected, an unreadable file, or the page's\n"
          "    scripts not found, 2 wrong usage\n"
          "\n"
          "EXAMPLES\n"
          "    tsched view -n 'workloads.softmax_norms#2' -o softmax.html conformance/corpus/v0.1*-workloads.jsonl.gz\n");
}

/* ---- one capture as JSON ---- */

/* "12 ADD float": as `tsched trace` describes a node, with the
 * LazyBuffer's shape for 0.9.x / 0.10.0 (their nodes carry a ShapeTracker). */
static void node_label(StrBuf *b, const InGraph *g, size_t i) {
  const InNode *x = &g->nodes[i];
  char text[200], shape[256];
  trace_describe(x->op, x->dtype ? x->dtype : "None", x->arg, text, sizeof text);
  StrBuf t = {0};
  sb_printf(&t, "%zu %s", i, text);
  if (x->st) sb_printf(&t, " %s", json_st_shape_text(x->st, shape, sizeof shape));
  json_str_lit(b, t.s ? t.s : "");
  sb_free(&t);
}

static void write_nodes(StrBuf *b, const InGraph *g) {
  sb_puts(b, "\"nodes\": [");
  for (size_t i = 0; i < g->n; i++) {
    const InNode *x = &g->nodes[i];
    sb_puts(b, i ? ",\n[" : "\n[");
    node_label(b, g, i);
    sb_puts(b, ", [");
    for (size_t s = 0; s < x->nsrc; s++) sb_printf(b, "%s%zu", s ? "," : "", x->src[s]);
    int flags = (x->realized ? 1 : 0) | (x->shared ? 2 : 0) | (x->is_movement ? 4 : 0) | (x->is_out ? 8 : 0);
    sb_printf(b, "], %ld, %ld, %d]", x->kernel, x->writer, flags);
  }
  sb_puts(b, "]");
}

static void write_kernels(StrBuf *b, const Capture *c, Arena *a, const Sched *s) {
  const JVal *items = sched_items(s);
  sb_puts(b, ", \"kernels\": [");
  for (size_t k = 0; items && k < items->n; k++) {
    char err[256], ref[64], desc[128];
    const JVal *item = json_materialize(a, items->u.arr[k], err, sizeof err);
    KernelInfo ki;
    bool ok = item && kernel_info(item, c->generation, &ki);
    sb_printf(b, "%s\n{\"kind\": \"%s\", \"ops\": ", k ? "," : "", ok ? ki.kind : "?");
    json_str_lit(b, ok && ki.ops.s ? ki.ops.s : "");
    sb_puts(b, ", \"writes\": ");
    StrBuf w = {0};
    for (size_t o = 0; ok && o < ki.nout; o++)
      if (ki.out[o] < ki.bufs->n)
        sb_printf(&w, "%s%s %s", o ? ", " : "writes ", bufref_text(ki.bufs->u.arr[ki.out[o]], ref, sizeof ref),
                  buf_desc(ki.bufs->u.arr[ki.out[o]], c, s->result, desc, sizeof desc));
    json_str_lit(b, w.s ? w.s : "");
    sb_free(&w);
    StrBuf ast = {.limit = (size_t)8 << 20};
    if (!item || !ast_repr(&ast, c->generation, json_get(item, "ast"), err, sizeof err)) sb_printf(&ast, "(no AST: %s)", err);
    sb_puts(b, ", \"ast\": ");
    json_str_lit(b, ast.s ? ast.s : "");
    sb_free(&ast);
    sb_putc(b, '}');
    if (ok) kernel_info_free(&ki);
  }
  sb_puts(b, "]");
}

/* How many leading trace nodes are the input graph's own (0.10.2: the first
 * rewrite's sink is big_sink), else 0. */
static size_t shared_input(const Trace *t, const InGraph *g) {
  if (!tg_features(g->v)->schedule_input_tensor_uops || !t->nrewrites || g->n == 0 || t->nnodes < g->n) return 0;
  if (t->rewrites[0].sink != g->n - 1) return 0;
  for (size_t i = 0; i < g->n; i++)
    if (strcmp(t->nodes[i].op, g->nodes[i].op) != 0 || t->nodes[i].nsrc != g->nodes[i].nsrc) return 0;
  return g->n;
}

static void write_trace(StrBuf *b, const Trace *t, const InGraph *g) {
  char text[200];
  sb_puts(b, ", \"trace\": {\"nodes\": [");
  for (size_t i = 0; i < t->nnodes; i++) {
    trace_node_text(t, i, text, sizeof text);
    sb_puts(b, i ? ",[" : "[");
    json_str_lit(b, text);
    sb_puts(b, ",[");
    for (size_t s = 0; s < t->nodes[i].nsrc; s++) sb_printf(b, "%s%zu", s ? "," : "", t->nodes[i].src[s]);
    sb_puts(b, "]]");
  }
  sb_puts(b, "], \"rules\": [");
  for (size_t r = 0; r < t->nrules; r++) {
    sb_printf(b, "%s[\"%s\", ", r ? "," : "", trace_loc_text(t->rules[r].file, t->rules[r].line, text, sizeof text));
    json_str_lit(b, t->rules[r].text);
    sb_putc(b, ']');
  }
  sb_puts(b, "], \"rewrites\": [");
  for (size_t r = 0; r < t->nrewrites; r++) {
    const TraceRewrite *rw = &t->rewrites[r];
    sb_printf(b, "%s\n[\"%s\", %zu, %s, [", r ? "," : "", trace_loc_text(rw->file, rw->line, text, sizeof text), rw->sink,
              rw->bottom_up ? "true" : "false");
    for (size_t j = 0; j < rw->nsteps; j++)
      sb_printf(b, "%s[%zu,%zu,%zu]", j ? "," : "", rw->steps[j].before, rw->steps[j].after, rw->steps[j].rule);
    sb_puts(b, "]]");
  }
  sb_printf(b, "], \"shared_input\": %zu}", shared_input(t, g));
}

static const Trace *find_trace(ViewOptions *o, const Capture *c) {
  char tp[4096];
  trace_companion(c->file, tp, sizeof tp);
  if (strcmp(tp, o->trace_path) != 0) {
    if (o->trace_ok) trace_file_free(&o->traces);
    snprintf(o->trace_path, sizeof o->trace_path, "%s", tp);
    char err[512];
    o->trace_ok = trace_file_load(&o->traces, tp, err, sizeof err);
  }
  return o->trace_ok ? trace_find(&o->traces, c->name) : NULL;
}

/* The steps: tinygrad's where recorded, else (unless --recorded) the C
 * scheduler's, as `tsched trace` shows them; trace_source says which. */
static void write_steps(StrBuf *b, ViewOptions *o, const Capture *c, Arena *a, const InGraph *g) {
  const Trace *t = find_trace(o, c);
  Trace computed;
  char err[256] = "";
  if (t) {
    write_trace(b, t, g);
    sb_puts(b, ", \"trace_source\": \"tinygrad\"");
  } else if (!tg_has_rewrite_tracker(c->generation)) {
    sb_puts(b, ", \"trace\": null, \"trace_note\": \"no rewrite steps: 0.9.1 and 0.9.2 have no rewrite tracker (the kernels' explain shows its decisions)\"");
  } else if (!o->recorded && trace_compute(c, a, &computed, err, sizeof err)) {
    write_trace(b, &computed, g);
    sb_puts(b, ", \"trace_source\": \"tsched\"");
  } else {
    sb_puts(b, ", \"trace\": null, \"trace_note\": ");
    StrBuf note = {0};
    sb_printf(&note, "no recorded trace for this file%s%s", err[0] ? "; none computed: " : "", err);
    json_str_lit(b, note.s);
    sb_free(&note);
  }
}

static bool view_json(StrBuf *b, const Capture *c, Arena *a, ViewOptions *o) {
  Explain ex;
  explain_init(&ex);
  Sched s;
  sched_of_explained(c, a, o->recorded, &ex, &s);
  if (s.source != SRC_TSCHED) explain_free(&ex);
  InGraph g;
  char err[256], src[700];
  if (!ingraph_build(&g, c, s.result, sched_items(&s), err, sizeof err)) {
    term_printf(stderr, "tsched view: %s: %s\n", c->name, err);
    explain_free(&ex);
    return false;
  }
  ingraph_set_writers(&g, ex.kernels, ex.nkernels);
  sb_puts(b, "{\"name\": ");
  json_str_lit(b, c->name);
  sb_printf(b, ", \"generation\": \"%s\", \"source\": ", tg_version_name(c->generation));
  json_str_lit(b, sched_source_text(&s, src, sizeof src));
  sb_puts(b, ", \"error\": ");
  if (s.error) {
    const JVal *type = json_get(s.error, "type"), *msg = json_get(s.error, "message");
    StrBuf e = {0};
    sb_printf(&e, "%s: %s", type && type->kind == J_STR ? type->u.s : "?", msg && msg->kind == J_STR ? msg->u.s : "");
    json_str_lit(b, e.s);
    sb_free(&e);
  } else {
    sb_puts(b, "null");
  }
  sb_puts(b, ",\n");
  write_nodes(b, &g);
  write_kernels(b, c, a, &s);
  StrBuf explain = {0};
  if (explain_capture(&explain, c, a, o->recorded, false, err, sizeof err)) {
    sb_puts(b, ",\n\"explain\": ");
    json_str_lit(b, explain.s ? explain.s : "");
  }
  sb_free(&explain);
  write_steps(b, o, c, a, &g);
  sb_puts(b, "}");
  ingraph_free(&g);
  explain_free(&ex);
  return true;
}

static bool visit(const Capture *c, Arena *a, void *ctx) {
  ViewOptions *o = ctx;
  bool selected = o->nnames == 0;
  for (size_t i = 0; i < o->nnames && !selected; i++) selected = name_selected(c->name, o->names[i]);
  if (!selected || !c->generation_known) return true;
  StrBuf b = {0};
  if (!view_json(&b, c, a, o)) {
    o->status = 1;
    sb_free(&b);
    return true;
  }
  if (o->n == o->cap) {
    o->cap = o->cap ? o->cap * 2 : 16;
    ViewEntry *bigger = realloc(o->entries, o->cap * sizeof *bigger);
    if (!bigger) abort();
    o->entries = bigger;
  }
  o->entries[o->n++] = (ViewEntry){strdup(c->name), c->generation, b.s};
  return true;
}

/* ---- the page ---- */

static char *read_file(const char *dir, const char *name, char *err, size_t errlen) {
  char path[4400];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "rb");
  if (!f) { snprintf(err, errlen, "cannot open %s", path); return NULL; }
  StrBuf b = {0};
  char buf[1 << 16];
  for (size_t n; (n = fread(buf, 1, sizeof buf, f)) > 0;) sb_putn(&b, buf, n);
  fclose(f);
  return b.s ? b.s : strdup("");
}

/* Text inside <script>: "</" would end it; "<\/" means the same in JSON and JavaScript strings. */
static void put_script_text(FILE *f, const char *s) {
  for (const char *p; (p = strstr(s, "</")) != NULL; s = p + 2) {
    fwrite(s, 1, (size_t)(p - s), f);
    fputs("<\\/", f);
  }
  fputs(s, f);
}

static int entry_order(const void *x, const void *y) {
  const ViewEntry *a = x, *b = y;
  return a->generation < b->generation ? -1 : a->generation > b->generation;
}

/* The page data: groups of entries with the same name, in first appearance, versions in order inside. */
static void write_data(FILE *f, ViewOptions *o) {
  bool *done = calloc(o->n ? o->n : 1, sizeof *done);
  ViewEntry *group = calloc(o->n ? o->n : 1, sizeof *group);
  if (!done || !group) abort();
  fputs("{\"title\": ", f);
  StrBuf t = {0};
  json_str_lit(&t, o->nnames == 1 ? o->names[0] : o->n ? o->entries[0].name : "");
  put_script_text(f, t.s);
  sb_free(&t);
  fputs(", \"groups\": [", f);
  size_t ngroups = 0;
  for (size_t i = 0; i < o->n; i++) {
    if (done[i]) continue;
    size_t m = 0;
    for (size_t j = i; j < o->n; j++)
      if (!done[j] && strcmp(o->entries[j].name, o->entries[i].name) == 0) group[m++] = o->entries[j], done[j] = true;
    qsort(group, m, sizeof *group, entry_order);
    StrBuf nm = {0};
    json_str_lit(&nm, o->entries[i].name);
    fprintf(f, "%s\n{\"name\": ", ngroups++ ? "," : "");
    put_script_text(f, nm.s);
    sb_free(&nm);
    fputs(", \"views\": [", f);
    for (size_t k = 0; k < m; k++) {
      if (k) fputs(",\n", f);
      put_script_text(f, group[k].json);
    }
    fputs("]}", f);
  }
  fputs("]}", f);
  free(done);
  free(group);
}

static int write_page(ViewOptions *o) {
  char dir[4096], looked[4096], err[4500];
  if (!cli_find_data("conformance/view", dir, sizeof dir, looked, sizeof looked)) {
    term_printf(stderr, "tsched view: the page's scripts were not found (looked for %s)\n", looked);
    return 1;
  }
  char *css = read_file(dir, "view.css", err, sizeof err), *js = css ? read_file(dir, "view.js", err, sizeof err) : NULL;
  char *elk = js ? read_file(dir, "vendor/elk.bundled.js", err, sizeof err) : NULL;
  int status = 0;
  FILE *f = !elk ? NULL : o->out ? fopen(o->out, "wb") : stdout;
  if (!elk) {
    term_printf(stderr, "tsched view: %s\n", err);
    status = 1;
  } else if (!f) {
    term_printf(stderr, "tsched view: cannot write %s\n", o->out);
    status = 1;
  } else {
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>tsched view</title>\n<style>\n", f);
    put_script_text(f, css);
    fputs("</style></head>\n<body>\n<script type=\"application/json\" id=\"tsched-data\">", f);
    write_data(f, o);
    fputs("</script>\n<script>\n", f);
    put_script_text(f, elk);
    fputs("\n</script>\n<script>\n", f);
    put_script_text(f, js);
    fputs("\n</script>\n</body></html>\n", f);
    if (f != stdout && fclose(f) != 0) {
      term_printf(stderr, "tsched view: cannot write %s\n", o->out);
      status = 1;
    }
  }
  free(css);
  free(js);
  free(elk);
  return status;
}

enum { OPT_NAME, OPT_OUTPUT, OPT_RECORDED };
static const CliOption options[] = {
  {"name", 'n', "NAME", OPT_NAME},
  {"output", 'o', "FILE", OPT_OUTPUT},
  {"recorded", 'r', NULL, OPT_RECORDED},
};

int cmd_view(int argc, char **argv) {
  ViewOptions o = {0};
  CliParser p;
  cli_init(&p, "view", options, sizeof options / sizeof options[0], usage, argc, argv);
  o.names = cli_list(&p);
  for (int id; (id = cli_next(&p)) != CLI_END;) {
    switch (id) {
      case OPT_NAME: o.names[o.nnames++] = p.value; break;
      case OPT_OUTPUT: o.out = p.value; break;
      case OPT_RECORDED: o.recorded = true; break;
    }
  }
  if (p.status < 0 && p.noperands == 0) cli_fail(&p, "no FILE given");
  int status = p.status;
  if (status < 0) {
    size_t errors = walk_captures("view", p.noperands, p.operands, visit, &o);
    if (o.n == 0) {
      term_printf(stderr, "tsched view: no capture%s\n", o.nnames ? " of that name" : "");
      status = 1;
    } else {
      status = write_page(&o);
      if (errors || o.status) status = 1;
    }
  }
  for (size_t i = 0; i < o.n; i++) free(o.entries[i].name), free(o.entries[i].json);
  free(o.entries);
  if (o.trace_ok) trace_file_free(&o.traces);
  cli_free(&p);
  return status;
}
