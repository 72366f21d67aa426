/* cmd_dot.c — `tsched dot CAPTURE`: the input graph as Graphviz DOT (0.9.1 /
 * 0.10.0 LazyBuffers, 0.10.2 the tensor UOp graph), nodes grouped in one
 * cluster per kernel and coloured by the kernel they end up in. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ingraph.h"
#include "kernels.h"
#include "pyrepr.h"
#include "tools.h"

typedef struct DotOptions {
  const char *name;
  bool recorded;
  size_t items[64], nitems;
  size_t matched;
  int status;
  StrBuf text;   /* written at the end, when exactly one capture matched */
} DotOptions;

static const char *const palette[] = {"#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462",
                                      "#b3de69", "#fccde5", "#bc80bd", "#ccebc5", "#ffed6f", "#a6cee3"};
enum { NPALETTE = sizeof palette / sizeof palette[0] };

static void usage(FILE *f) {
  fprintf(f,
          "usage: tsched dot [--name NAME] [--item N]... [--recorded] [-Tsvg|--svg] CAPTURE\n"
          "\n"
          "Write the capture's input graph as Graphviz DOT: 0.9.1 / 0.10.0 LazyBuffers\n"
          "(views included), 0.10.2 the tensor UOp graph. Each kernel is a cluster in\n"
          "its own colour holding the nodes computed in it; the node whose buffer the\n"
          "kernel writes has a thick border, a node computed in several kernels a dashed\n"
          "one; buffers realized before the call are grey.\n"
          "Edges go from a source to its consumer. The schedule comes from the tsched\n"
          "scheduler when it reproduces the recording, else from the recording.\n"
          "\n"
          "  --name NAME  the capture to draw (needed when CAPTURE holds several)\n"
          "  --item N     only kernel N and the nodes it reads (repeatable)\n"
          "  --recorded   use the recording (do not run the C scheduler)\n"
          "  -Tsvg, --svg pipe through Graphviz `dot -Tsvg` (Debian package graphviz)\n");
}

static void dot_escape(StrBuf *b, const char *s) {
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') sb_putc(b, '\\');
    if (*s == '\n') { sb_puts(b, "\\n"); continue; }
    sb_putc(b, *s);
  }
}

static void node_label(StrBuf *b, const InGraph *g, size_t i) {
  const InNode *x = &g->nodes[i];
  char shape[256];
  StrBuf text = {0};
  sb_printf(&text, "%zu %s\n%s", i, op_short(x->op), x->dtype);
  if (x->st) sb_printf(&text, " %s", json_st_shape_text(x->st, shape, sizeof shape));
  if (x->arg && x->arg->kind != J_NULL) {
    StrBuf arg = {0};
    const JVal *a = x->arg;
    if (strstr(x->op, "REDUCE_AXIS") && a->kind == J_ARR && a->n == 2 && a->u.arr[0]->kind == J_STR) { /* (Ops.ADD, (0,)) */
      sb_printf(&arg, "(%s, ", a->u.arr[0]->u.s);
      value_repr(&arg, g->v, a->u.arr[1], false, NULL);
      sb_putc(&arg, ')');
    } else {
      value_repr(&arg, g->v, a, false, NULL);
    }
    sb_printf(&text, " %.40s%s", arg.s ? arg.s : "", arg.n > 40 ? "..." : "");
    sb_free(&arg);
  }
  if (x->buffer >= 0) sb_printf(&text, "\nbuffer %lld", x->buffer);
  if (x->writer >= 0) sb_printf(&text, "\n-> kernel %ld", x->writer);
  if (x->shared) sb_printf(&text, "\nalso computed in kernel %ld", x->also);
  dot_escape(b, text.s);
  sb_free(&text);
}

/* With --item: the nodes of the chosen kernels and their direct sources. */
static bool *choose_nodes(const InGraph *g, const DotOptions *o) {
  bool *shown = calloc(g->n ? g->n : 1, sizeof *shown);
  if (!shown) abort();
  for (size_t i = 0; i < g->n; i++) {
    bool in = o->nitems == 0;
    for (size_t k = 0; k < o->nitems && !in; k++) in = g->nodes[i].kernel == (long)o->items[k];
    if (!in) continue;
    shown[i] = true;
    for (size_t s = 0; s < g->nodes[i].nsrc; s++) shown[g->nodes[i].src[s]] = true;
  }
  return shown;
}

static void write_node(StrBuf *b, const InGraph *g, size_t i, size_t indent) {
  const InNode *x = &g->nodes[i];
  const char *fill = x->realized ? "#d9d9d9" : x->kernel >= 0 ? palette[x->kernel % NPALETTE] : "#ffffff";
  sb_spaces(b, indent);
  sb_printf(b, "n%zu [label=\"", i);
  node_label(b, g, i);
  sb_printf(b, "\", fillcolor=\"%s\"%s%s%s];\n", fill, x->writer >= 0 ? ", penwidth=3" : "",
            x->is_movement ? ", shape=ellipse" : "", x->shared ? ", style=\"filled,dashed\"" : "");
}

static void write_dot(StrBuf *b, const Capture *c, const InGraph *g, const Sched *s, const JVal *items, const DotOptions *o) {
  char src[700];
  bool *shown = choose_nodes(g, o);
  sb_puts(b, "digraph \"");
  dot_escape(b, c->name);
  sb_puts(b, "\" {\n  label=\"");
  sb_printf(b, "%s  %s  %zu kernel%s  %s", c->name, tg_version_name(c->generation), g->nkernels, g->nkernels == 1 ? "" : "s",
            sched_source_text(s, src, sizeof src));
  sb_puts(b, "\";\n  labelloc=t;\n  node [shape=box, style=filled, fontname=\"monospace\", fontsize=10];\n");
  for (size_t k = 0; k < g->nkernels; k++) {
    bool any = false;
    for (size_t i = 0; i < g->n && !any; i++) any = shown[i] && g->nodes[i].kernel == (long)k;
    if (!any) continue;
    KernelInfo ki;
    kernel_info(items->u.arr[k], g->v, &ki);
    sb_printf(b, "  subgraph cluster_k%zu {\n    label=\"kernel %zu:", k, k);
    if (strcmp(ki.kind, "kernel") != 0) sb_printf(b, " %s", ki.kind);
    if (ki.ops.n) { sb_puts(b, " "); dot_escape(b, ki.ops.s); }
    sb_printf(b, "\";\n    style=filled;\n    color=\"%s\";\n    fillcolor=\"%s40\";\n", palette[k % NPALETTE], palette[k % NPALETTE]);
    kernel_info_free(&ki);
    for (size_t i = 0; i < g->n; i++)
      if (shown[i] && g->nodes[i].kernel == (long)k) write_node(b, g, i, 4);
    sb_puts(b, "  }\n");
  }
  for (size_t i = 0; i < g->n; i++)
    if (shown[i] && g->nodes[i].kernel < 0) write_node(b, g, i, 2);
  for (size_t i = 0; i < g->n; i++)
    for (size_t k = 0; shown[i] && k < g->nodes[i].nsrc; k++)
      if (shown[g->nodes[i].src[k]]) sb_printf(b, "  n%zu -> n%zu;\n", g->nodes[i].src[k], i);
  sb_puts(b, "}\n");
  free(shown);
}

static bool visit(const Capture *c, Arena *a, void *ctx) {
  DotOptions *o = ctx;
  if (o->name && !name_selected(c->name, o->name)) return true;
  if (++o->matched > 1) {
    fprintf(stderr, "tsched dot: more than one capture%s: pick one with --name\n", o->name ? " of that name" : "");
    o->status = 1;
    return false;
  }
  Sched s;
  sched_of(c, a, o->recorded, &s);
  const JVal *items = sched_items(&s);
  InGraph g;
  char err[256];
  if (!ingraph_build(&g, c, s.result, items, err, sizeof err)) {
    fprintf(stderr, "tsched dot: %s: %s\n", c->name, err);
    ingraph_free(&g);
    o->status = 1;
    return false;
  }
  for (size_t k = 0; k < o->nitems; k++)
    if (o->items[k] >= g.nkernels) {
      fprintf(stderr, "tsched dot: %s has %zu kernels, no kernel %zu\n", c->name, g.nkernels, o->items[k]);
      o->status = 1;
    }
  if (!o->status) write_dot(&o->text, c, &g, &s, items, o);
  ingraph_free(&g);
  return true;
}

static bool have_graphviz(void) {
  const char *path = getenv("PATH");
  if (!path) return false;
  char *copy = strdup(path), *save = NULL;
  bool found = false;
  for (char *dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
    char full[4096];
    snprintf(full, sizeof full, "%s/dot", dir);
    found = access(full, X_OK) == 0;
  }
  free(copy);
  return found;
}

int cmd_dot(int argc, char **argv) {
  DotOptions o = {0};
  bool svg = false;
  int first = 1;
  for (; first < argc && argv[first][0] == '-'; first++) {
    const char *arg = argv[first];
    size_t item;
    if (is_flag(arg, "--help") || is_flag(arg, "-h")) { usage(stdout); return 0; }
    else if (is_flag(arg, "--recorded")) o.recorded = true;
    else if (is_flag(arg, "--svg") || is_flag(arg, "-Tsvg")) svg = true;
    else if (is_flag(arg, "--name") && first + 1 < argc) o.name = argv[++first];
    else if (is_flag(arg, "--item") && first + 1 < argc && parse_index(argv[first + 1], &item) && o.nitems < 64)
      o.items[o.nitems++] = item, first++;
    else { fprintf(stderr, "tsched dot: bad option %s\n", arg); usage(stderr); return 2; }
  }
  if (first == argc) { usage(stderr); return 2; }
  if (svg && !have_graphviz()) {
    fprintf(stderr, "tsched dot: -Tsvg needs Graphviz's `dot` (Debian: apt-get install graphviz)\n");
    return 1;
  }
  size_t errors = walk_captures("dot", argc - first, argv + first, visit, &o);
  if (o.matched == 0) fprintf(stderr, "tsched dot: no capture%s\n", o.name ? " of that name" : "");
  bool ok = !errors && !o.status && o.matched == 1;
  if (ok && svg) {
    fflush(stdout);
    FILE *p = popen("dot -Tsvg", "w");
    if (!p) { fprintf(stderr, "tsched dot: cannot run dot\n"); ok = false; }
    else {
      sb_flush(&o.text, p);
      ok = pclose(p) == 0;
    }
  } else if (ok) {
    sb_flush(&o.text, stdout);
  }
  sb_free(&o.text);
  return ok ? 0 : 1;
}
