/* cmd_explain.c — `tsched explain CAPTURE`: per kernel, in schedule order,
 * why its buffers were realized, which input nodes it fuses, its ops, what
 * it reads and why it runs where it does. Reasons come from the generation
 * when it reports them (common/explain.h), else they are derived from the
 * input and the schedule, and the output says so. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "explain.h"
#include "ingraph.h"
#include "why.h"
#include "kernels.h"
#include "omap.h"
#include "pyrepr.h"
#include "tools.h"

typedef struct ExplainOptions {
  const char **names;
  size_t nnames, shown;
  bool recorded, json;
  int status;
} ExplainOptions;

static void usage(FILE *f) {
  fprintf(f,
          "NAME\n"
          "    tsched explain - why each buffer was realized and what each kernel fuses\n"
          "\n"
          "SYNOPSIS\n"
          "    tsched explain [OPTION]... CAPTURE...\n"
          "\n"
          "DESCRIPTION\n"
          "    For each capture, kernel by kernel in schedule order: which input node's\n"
          "    buffer it writes and why that node was realized (an output, forced, a\n"
          "    meta op, an assign, the source of a COPY, read through an expand or an\n"
          "    unsafe pad, a reduce that could not fuse...), which nodes are fused into\n"
          "    it, its ops and reduce axes, the buffers it reads and which earlier kernel\n"
          "    wrote them. Nodes are numbered as in the capture's input\n"
          "    (input.lazybuffers, or input.graph.nodes for the tensor UOp graph), as\n"
          "    `tsched dot` draws them. Reasons are the scheduler's own when it reports\n"
          "    them (\"reported\"), else derived from the input and the schedule\n"
          "    (\"derived\").\n"
          "\n"
          "OPTIONS\n"
          "    -n, --name NAME\n"
          "        only this capture, or every call of a workload (no \"#\"); may be repeated\n"
          "    -r, --recorded\n"
          "        explain the recording (do not run the C scheduler: no reported reasons)\n"
          "    -j, --json\n"
          "        one JSON object per capture\n"
          "    -h, --help\n"
          "        this text\n"
          "\n"
          "EXIT STATUS\n"
          "    0 explained, 1 no capture selected or something could not be read, 2 wrong\n"
          "    usage\n"
          "\n"
          "EXAMPLES\n"
          "    tsched explain -n 'workloads.softmax_norms#2' conformance/corpus/v0.9.1-workloads.jsonl.gz\n");
}

/* ---- one capture ---- */

typedef struct Ctx {
  const Capture *c;
  const Sched *s;
  const InGraph *g;
  const Explain *ex;
  const JVal *items;
  KernelInfo *infos;   /* one per kernel */
  long **from;         /* from[k][i]: the earlier kernel that wrote kernel k's bufs[i], or -1 */
  long *why_at;        /* per node: its first reported realize in ex->realizes, or -1 */
  OMap fused;          /* reported fuses: key node << 32 | kernel */
} Ctx;

static bool is_output(const KernelInfo *ki, size_t i) {
  for (size_t o = 0; o < ki->nout; o++)
    if (ki->out[o] == i) return true;
  return false;
}

static uint64_t fuse_key(size_t node, size_t kernel) { return (uint64_t)node << 32 | (uint32_t)kernel; }

/* Indexes what the generation reported: the first reason per node, the
 * (node, kernel) pairs of its fuses. */
static void ctx_index_reported(Ctx *x, Arena *a) {
  const InGraph *g = x->g;
  x->why_at = arena_array(a, g->n ? g->n : 1, sizeof *x->why_at);
  for (size_t i = 0; i < g->n; i++) x->why_at[i] = -1;
  for (size_t r = x->ex->nrealizes; r-- > 0;)
    if (x->ex->realizes[r].node < g->n) x->why_at[x->ex->realizes[r].node] = (long)r;
  omap_init(&x->fused, a);
  for (size_t f = 0; f < x->ex->nfuses; f++) {
    const ExplainFuse *e = &x->ex->fuses[f];
    if (e->node < g->n && e->into < g->n && g->nodes[e->into].writer >= 0)
      omap_put(&x->fused, fuse_key(e->node, (size_t)g->nodes[e->into].writer), (void *)1);
  }
}

/* Why node i was realized: as reported, else derived. */
static void node_why(const Ctx *x, size_t i, Why *w) {
  long r = x->why_at[i];
  if (r < 0) { derive_why(x->g, x->infos, i, w); return; }
  w->reason = x->ex->realizes[r].reason;
  w->detail = x->ex->realizes[r].detail;
  w->reported = true;
}

/* Walks the schedule once, remembering the last writer of each buffer. */
static void ctx_prepare(Ctx *x, Arena *a) {
  ctx_index_reported(x, a);
  size_t n = x->items ? x->items->n : 0;
  x->infos = arena_array(a, n ? n : 1, sizeof *x->infos);
  x->from = arena_array(a, n ? n : 1, sizeof *x->from);
  OMap last;
  omap_init(&last, a);
  for (size_t k = 0; k < n; k++) {
    KernelInfo *ki = &x->infos[k];
    kernel_info(x->items->u.arr[k], x->g->v, ki);
    size_t nb = ki->bufs && ki->bufs->kind == J_ARR ? ki->bufs->n : 0;
    x->from[k] = arena_array(a, nb ? nb : 1, sizeof **x->from);
    for (size_t i = 0; i < nb; i++) {
      void *w = omap_get(&last, bufref_key(ki->bufs->u.arr[i]));
      x->from[k][i] = is_output(ki, i) || !w ? -1 : (long)(uintptr_t)w - 1;
    }
    for (size_t o = 0; o < ki->nout; o++)
      if (ki->out[o] < nb) omap_put(&last, bufref_key(ki->bufs->u.arr[ki->out[o]]), (void *)(uintptr_t)(k + 1));
  }
}

static void ctx_release(Ctx *x) {
  for (size_t k = 0; x->items && k < x->items->n; k++) kernel_info_free(&x->infos[k]);
}

static void node_name(StrBuf *b, const InGraph *g, size_t i) { sb_printf(b, "%zu %s", i, op_short(g->nodes[i].op)); }

/* The fused nodes of kernel k: reported fuses when there are any, else derived. */
static bool in_kernel(const Ctx *x, size_t i, size_t k) {
  if (x->ex->nfuses == 0) return x->g->nodes[i].kernel == (long)k && x->g->nodes[i].writer != (long)k;
  return omap_has(&x->fused, fuse_key(i, k));
}

/* "writes buffer 5 float[1]: node 8 SUM / why: ..." for each output. */
static void explain_writes(StrBuf *b, const Ctx *x, size_t k) {
  const InGraph *g = x->g;
  const KernelInfo *ki = &x->infos[k];
  char ref[64], desc[128];
  for (size_t o = 0; o < ki->nout; o++) {
    if (ki->out[o] >= ki->bufs->n) continue;
    const JVal *r = ki->bufs->u.arr[ki->out[o]];
    sb_printf(b, "  writes buffer %s %s", bufref_text(r, ref, sizeof ref), buf_desc(r, x->c, x->s->result, desc, sizeof desc));
    bool any = false;
    for (size_t i = 0; i < g->n; i++) {
      if (g->nodes[i].writer != (long)k) continue;
      Why w;
      node_why(x, i, &w);
      sb_puts(b, any ? "\n    and node " : ": node ");
      node_name(b, g, i);
      sb_printf(b, "\n    why: %s (%s)", explain_reason_text(w.reason), w.reported ? "reported" : "derived");
      if (w.detail) sb_printf(b, ": %s", w.detail);
      any = true;
    }
    if (!any) sb_puts(b, "\n    why: no input node maps to this buffer");
    sb_putc(b, '\n');
    if (ki->nout > 1) break; /* several outputs: the nodes above are all of them */
  }
}

static void explain_kernel_text(StrBuf *b, const Ctx *x, size_t k) {
  const InGraph *g = x->g;
  const KernelInfo *ki = &x->infos[k];
  char ref[64], desc[128];
  bool meta = strcmp(ki->kind, "kernel") != 0;
  sb_printf(b, "kernel %zu%s%s\n", k, meta ? "  " : "", meta ? ki->kind : "");
  explain_writes(b, x, k);
  size_t nfused = 0, nviews = 0;
  for (size_t i = 0; i < g->n; i++) {
    if (!in_kernel(x, i, k)) continue;
    if (g->nodes[i].is_movement) { nviews++; continue; }
    sb_puts(b, nfused++ ? ", " : "  fuses: ");
    node_name(b, g, i);
  }
  if (nviews) sb_printf(b, "%s%zu movement op%s", nfused ? " and " : "  fuses: ", nviews, nviews == 1 ? "" : "s");
  if (nfused || nviews) sb_putc(b, '\n');
  if (ki->ops.n) sb_printf(b, "  ops: %s\n", ki->ops.s);
  if (ki->reduces.n) sb_printf(b, "  reduces: %s\n", ki->reduces.s);
  size_t nreads = 0;
  StrBuf after = {0};
  for (size_t i = 0; i < ki->bufs->n; i++) {
    if (is_output(ki, i)) continue;
    const JVal *r = ki->bufs->u.arr[i];
    long w = x->from[k][i];
    sb_printf(b, "%sbuffer %s %s", nreads++ ? ", " : "  reads ", bufref_text(r, ref, sizeof ref), buf_desc(r, x->c, x->s->result, desc, sizeof desc));
    if (w >= 0) {
      sb_printf(b, " (from kernel %ld)", w);
      sb_printf(&after, "%s%ld", after.n ? ", " : "", w);
    }
  }
  if (nreads) sb_putc(b, '\n');
  bool several = after.n && strchr(after.s, ',');
  if (after.n) sb_printf(b, "  runs after kernel%s %s: it reads what %s\n", several ? "s" : "", after.s, several ? "they write" : "that one writes");
  else sb_puts(b, "  reads nothing written in this schedule: ready at once\n");
  sb_free(&after);
}

static void explain_text(StrBuf *b, const Ctx *x) {
  char src[700];
  const Capture *c = x->c;
  size_t n = x->items ? x->items->n : 0;
  sb_printf(b, "=== %s  %s  %zu kernel%s  %s\n", c->name, tg_version_name(c->generation), n, n == 1 ? "" : "s",
            sched_source_text(x->s, src, sizeof src));
  if (x->s->error) {
    const JVal *type = json_get(x->s->error, "type"), *msg = json_get(x->s->error, "message");
    sb_printf(b, "raised %s: %s\n", type && type->kind == J_STR ? type->u.s : "?", msg && msg->kind == J_STR ? msg->u.s : "");
    return;
  }
  if (x->ex->nrealizes || x->ex->nfuses || x->ex->nkernels) sb_printf(b, "reasons: reported by the %s scheduler\n", tg_version_name(c->generation));
  else if (x->s->source == SRC_TSCHED) sb_printf(b, "reasons: derived from the input and the schedule (the %s scheduler reported none)\n", tg_version_name(c->generation));
  else sb_printf(b, "reasons: derived from the input and the schedule\n");
  for (size_t k = 0; k < n; k++) explain_kernel_text(b, x, k);
}

static void explain_json(StrBuf *b, const Ctx *x) {
  const InGraph *g = x->g;
  char ref[64], desc[128];
  sb_puts(b, "{\"name\": ");
  json_str_lit(b, x->c->name);
  sb_printf(b, ", \"generation\": \"%s\", \"source\": \"%s\", \"reasons\": \"%s\", \"kernels\": [", tg_version_name(x->c->generation),
            sched_source_word(x->s->source), x->ex->nrealizes ? "reported" : "derived");
  for (size_t k = 0; x->items && k < x->items->n; k++) {
    const KernelInfo *ki = &x->infos[k];
    sb_printf(b, "%s{\"kernel\": %zu, \"kind\": \"%s\", \"writes\": [", k ? ", " : "", k, ki->kind);
    bool first = true;
    for (size_t i = 0; i < g->n; i++) {
      if (g->nodes[i].writer != (long)k) continue;
      Why w;
      node_why(x, i, &w);
      sb_printf(b, "%s{\"node\": %zu, \"op\": \"%s\", \"why\": \"%s\", \"reported\": %s, \"detail\": ", first ? "" : ", ", i,
                g->nodes[i].op, explain_reason_name(w.reason), w.reported ? "true" : "false");
      if (w.detail) json_str_lit(b, w.detail);
      else sb_puts(b, "null");
      sb_putc(b, '}');
      first = false;
    }
    sb_puts(b, "], \"fuses\": [");
    first = true;
    for (size_t i = 0; i < g->n; i++)
      if (in_kernel(x, i, k)) { sb_printf(b, "%s%zu", first ? "" : ", ", i); first = false; }
    sb_puts(b, "], \"ops\": ");
    json_str_lit(b, ki->ops.s ? ki->ops.s : "");
    sb_puts(b, ", \"reduces\": ");
    json_str_lit(b, ki->reduces.s ? ki->reduces.s : "");
    sb_puts(b, ", \"bufs\": [");
    for (size_t i = 0; i < ki->bufs->n; i++) {
      const JVal *r = ki->bufs->u.arr[i];
      sb_printf(b, "%s{\"buf\": \"%s\", \"desc\": \"%s\", \"written\": %s, \"from_kernel\": %ld}", i ? ", " : "",
                bufref_text(r, ref, sizeof ref), buf_desc(r, x->c, x->s->result, desc, sizeof desc),
                is_output(ki, i) ? "true" : "false", x->from[k][i]);
    }
    sb_puts(b, "]}");
  }
  sb_puts(b, "]}\n");
}

bool explain_capture(StrBuf *b, const Capture *c, Arena *a, bool recorded, bool json, char *err, size_t errlen) {
  Explain ex;
  explain_init(&ex);
  Sched s;
  sched_of_explained(c, a, recorded, &ex, &s);
  if (s.source != SRC_TSCHED) explain_free(&ex); /* what a failing run reported does not explain the recording */
  InGraph g;
  bool ok = ingraph_build(&g, c, s.result, sched_items(&s), err, errlen);
  if (ok) {
    ingraph_set_writers(&g, ex.kernels, ex.nkernels);
    Ctx x = {c, &s, &g, &ex, sched_items(&s), NULL, NULL, NULL, {0}};
    ctx_prepare(&x, a);
    if (json) explain_json(b, &x);
    else explain_text(b, &x);
    ctx_release(&x);
  }
  ingraph_free(&g);
  explain_free(&ex);
  return ok;
}

static bool visit(const Capture *c, Arena *a, void *ctx) {
  ExplainOptions *o = ctx;
  bool selected = o->nnames == 0;
  for (size_t i = 0; i < o->nnames && !selected; i++) selected = name_selected(c->name, o->names[i]);
  if (!selected) return true;
  StrBuf b = {0};
  char err[256];
  if (!explain_capture(&b, c, a, o->recorded, o->json, err, sizeof err)) {
    term_printf(stderr, "tsched explain: %s: %s\n", c->name, err);
    o->status = 1;
  }
  sb_flush(&b, stdout);
  sb_free(&b);
  o->shown++;
  return true;
}

enum { OPT_NAME, OPT_RECORDED, OPT_JSON };
static const CliOption options[] = {
  {"name", 'n', "NAME", OPT_NAME},
  {"recorded", 'r', NULL, OPT_RECORDED},
  {"json", 'j', NULL, OPT_JSON},
};

int cmd_explain(int argc, char **argv) {
  ExplainOptions o = {0};
  CliParser p;
  cli_init(&p, "explain", options, sizeof options / sizeof options[0], usage, argc, argv);
  o.names = cli_list(&p);
  for (int id; (id = cli_next(&p)) != CLI_END;) {
    switch (id) {
      case OPT_NAME: o.names[o.nnames++] = p.value; break;
      case OPT_RECORDED: o.recorded = true; break;
      case OPT_JSON: o.json = true; break;
    }
  }
  if (p.status < 0 && p.noperands == 0) cli_fail(&p, "no CAPTURE given");
  int status = p.status;
  if (status < 0) {
    size_t errors = walk_captures("explain", p.noperands, p.operands, visit, &o);
    if (o.shown == 0) term_printf(stderr, "tsched explain: no capture%s\n", o.nnames ? " of that name" : "");
    status = errors || o.status || o.shown == 0 ? 1 : 0;
  }
  cli_free(&p);
  return status;
}
