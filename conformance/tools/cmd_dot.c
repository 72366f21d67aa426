/* cmd_dot.c — `tsched dot CAPTURE`: the input graph as Graphviz DOT (0.9.1 /
 * 0.10.0 LazyBuffers, 0.10.2 the tensor UOp graph), nodes grouped in one
 * cluster per kernel and coloured by the kernel they end up in. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli.h"
#include "ingraph.h"
#include "kernels.h"
#include "pyrepr.h"
#include "tools.h"

typedef struct DotOptions {
  const char *name;
  bool recorded;
  size_t *items, nitems;
  size_t matched;
  int status;
  StrBuf text;   /* written at the end, when exactly one capture matched */
} DotOptions;

static const char *const palette[] = {"#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462",
                                      "#b3de69", "#fccde5", "#bc80bd", "#ccebc5", "#ffed6f", "#a6cee3"};
enum { NPALETTE = sizeof palette / sizeof palette[0] };

static void usage(FILE *f) {
  fprintf(f,
          "NAME\n"
          "    tsched dot - the input graph as Graphviz DOT, clustered by kernel\n"
          "\n"
          "SYNOPSIS\n"
          "    tsched dot [OPTION]... CAPTURE\n"
          "\n"
          "DESCRIPTION\n"
          "    Writes the capture's input graph as Graphviz DOT: LazyBuffers (views\n"
          "    included) for the LazyBuffer generations, the tensor UOp graph for the\n"
          "    kernel-graph one. Each kernel is a cluster in its own colour holding the\n"
          "    nodes computed in it; the node whose buffer the kernel writes has a thick\n"
          "    border, a node computed in several kernels a dashed one; buffers realized\n"
          "    before the call are grey. Edges go from a source to its consumer. The\n"
          "    schedule comes from the tsched scheduler when it reproduces the\n"
          "    recording, else from the recording.\n"
          "\n"
          "OPTIONS\n"
          "    -n, --name NAME\n"
          "        the capture to draw (needed when CAPTURE holds several)\n"
          "    -i, --item N\n"
          "        only kernel N and the nodes it reads (may be repeated); a kernel the\n"
          "        schedule does not have is an error\n"
          "    -r, --recorded\n"
          "        use the recording (do not run the C scheduler)\n"
          "    -T FORMAT\n"
          "        pipe the DOT through Graphviz `dot -TFORMAT` (svg, png, pdf, ...;\n"
          "        Debian package graphviz)\n"
          "    --svg\n"
          "        the same as -Tsvg\n"
          "    -h, --help\n"
          "        this text\n"
          "\n"
          "EXIT STATUS\n"
          "    0 drawn, 1 no capture or several, a kernel out of range, or Graphviz\n"
          "    failed, 2 wrong usage\n"
          "\n"
          "EXAMPLES\n"
          "    tsched dot -n 'workloads.softmax_norms#2' -Tpng conformance/corpus/v0.9.1-workloads.jsonl.gz > g.png\n");
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
    term_printf(stderr, "tsched dot: more than one capture%s: pick one with --name\n", o->name ? " of that name" : "");
    o->status = 1;
    return false;
  }
  Sched s;
  sched_of(c, a, o->recorded, &s);
  const JVal *items = sched_items(&s);
  InGraph g;
  char err[256];
  if (!ingraph_build(&g, c, s.result, items, err, sizeof err)) {
    term_printf(stderr, "tsched dot: %s: %s\n", c->name, err);
    ingraph_free(&g);
    o->status = 1;
    return false;
  }
  for (size_t k = 0; k < o->nitems; k++)
    if (o->items[k] >= g.nkernels) {
      term_printf(stderr, "tsched dot: %s has %zu kernel%s, no kernel %zu\n", c->name, g.nkernels, g.nkernels == 1 ? "" : "s",
                  o->items[k]);
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

/* A Graphviz output format: letters, digits and ':' ("svg", "png:cairo") */
static bool format_ok(const char *f) {
  if (!*f) return false;
  for (; *f; f++)
    if (!isalnum((unsigned char)*f) && *f != ':' && *f != '_') return false;
  return true;
}

/* The DOT text through `dot -TFORMAT` (no shell: the format is checked and passed as one argument) */
static bool run_graphviz(StrBuf *text, const char *format) {
  fflush(stdout);
  int fds[2];
  if (pipe(fds) != 0) return false;
  pid_t pid = fork();
  if (pid < 0) { close(fds[0]); close(fds[1]); return false; }
  if (pid == 0) {
    char flag[64];
    snprintf(flag, sizeof flag, "-T%s", format);
    dup2(fds[0], 0);
    close(fds[0]);
    close(fds[1]);
    execlp("dot", "dot", flag, (char *)NULL);
    _exit(127);
  }
  close(fds[0]);
  FILE *to = fdopen(fds[1], "w");
  if (to) { sb_flush(text, to); fclose(to); }
  else close(fds[1]);
  int wst;
  return waitpid(pid, &wst, 0) == pid && WIFEXITED(wst) && WEXITSTATUS(wst) == 0;
}

enum { OPT_NAME, OPT_ITEM, OPT_RECORDED, OPT_FORMAT, OPT_SVG };
static const CliOption options[] = {
  {"name", 'n', "NAME", OPT_NAME},
  {"item", 'i', "N", OPT_ITEM},
  {"recorded", 'r', NULL, OPT_RECORDED},
  {"format", 'T', "FORMAT", OPT_FORMAT},
  {"svg", 0, NULL, OPT_SVG},
};

int cmd_dot(int argc, char **argv) {
  DotOptions o = {0};
  const char *format = NULL;
  CliParser p;
  cli_init(&p, "dot", options, sizeof options / sizeof options[0], usage, argc, argv);
  o.items = calloc((size_t)argc, sizeof *o.items);
  if (!o.items) abort();
  for (int id; (id = cli_next(&p)) != CLI_END;) {
    switch (id) {
      case OPT_NAME: o.name = p.value; break;
      case OPT_ITEM: cli_index(&p, "--item", 0, SIZE_MAX, &o.items[o.nitems++]); break;
      case OPT_RECORDED: o.recorded = true; break;
      case OPT_SVG: format = "svg"; break;
      case OPT_FORMAT:
        format = p.value;
        if (!format_ok(format)) cli_fail(&p, "-T wants a Graphviz format such as svg or png, not \"%s\"", format);
        break;
    }
  }
  if (p.status < 0 && p.noperands == 0) cli_fail(&p, "no CAPTURE given");
  int status = p.status;
  if (status < 0 && format && !have_graphviz()) {
    term_printf(stderr, "tsched dot: -T%s needs Graphviz's `dot` (Debian: apt-get install graphviz)\n", format);
    status = 1;
  }
  if (status < 0) {
    size_t errors = walk_captures("dot", p.noperands, p.operands, visit, &o);
    if (o.matched == 0) term_printf(stderr, "tsched dot: no capture%s\n", o.name ? " of that name" : "");
    bool ok = !errors && !o.status && o.matched == 1;
    if (ok && format) {
      ok = run_graphviz(&o.text, format);
      if (!ok) term_printf(stderr, "tsched dot: Graphviz `dot -T%s` failed\n", format);
    } else if (ok) {
      sb_flush(&o.text, stdout);
    }
    status = ok ? 0 : 1;
  }
  sb_free(&o.text);
  cli_free(&p);
  free(o.items);
  return status;
}
