/* cmd_compare.c — `tsched compare NAME... [PATH...]`: one workload side by
 * side in every generation that recorded it (kernels, their outputs, ops,
 * reduce axes, buffers) and the differences in words; or, with no NAME, a
 * table of kernel counts per workload per generation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "ingraph.h"
#include "kernels.h"
#include "tools.h"
#include "why.h"

typedef struct CompareOptions {
  const char **names;
  size_t nnames;
  bool *found;             /* per name: some capture had it */
  char **paths;
  int npaths;
  bool recorded, json, by_call;
  CaptureSet set;
} CompareOptions;

static void usage(FILE *f) {
  fprintf(f,
          "NAME\n"
          "    tsched compare - a workload side by side per version, or a kernel-count table\n"
          "\n"
          "SYNOPSIS\n"
          "    tsched compare [OPTION]... --name NAME... [PATH]...\n"
          "    tsched compare [OPTION]... [PATH]...\n"
          "\n"
          "DESCRIPTION\n"
          "    With --name: each capture NAME (\"workloads.softmax_norms#2\", or every\n"
          "    call of a workload: \"workloads.softmax_norms\") side by side in every\n"
          "    version found in PATH: the number of kernels, then kernel by kernel per\n"
          "    version what it writes, its ops, its reduce axes and what it reads; then\n"
          "    the differences in words (kernel counts, buffers only some versions\n"
          "    realize and why, reduces merged or split, multi-output kernels). Buffers\n"
          "    are matched across versions by dtype and size.\n"
          "\n"
          "    Without --name: a table over every workload present in more than one\n"
          "    version: kernels per version (all calls of a workload summed; per call\n"
          "    with --by-call) and the totals.\n"
          "\n"
          "    Counts come from the tsched scheduler where it reproduces the recording,\n"
          "    else from the recording, marked with *. PATH (files or folders) defaults\n"
          "    to the bundled corpus, conformance/corpus (of the source tree, or of the\n"
          "    installed data).\n"
          "\n"
          "OPTIONS\n"
          "    -n, --name NAME\n"
          "        a capture or workload to show; may be repeated\n"
          "    -r, --recorded\n"
          "        use the recordings only (no marks)\n"
          "    --by-call\n"
          "        table rows per capture name (\"workloads.matmul#3\")\n"
          "    -j, --json\n"
          "        JSON lines instead of text\n"
          "    -h, --help\n"
          "        this text\n"
          "\n"
          "EXIT STATUS\n"
          "    0 shown, 1 a NAME found in no PATH, or something could not be read,\n"
          "    2 wrong usage\n"
          "\n"
          "EXAMPLES\n"
          "    tsched compare -n 'workloads.cross_entropy#1'\n"
          "    tsched compare conformance/corpus/v*-workloads.jsonl.gz\n"
          "    tsched compare -n prog mine-0.9.1.jsonl.gz mine-0.10.0.jsonl.gz mine-0.10.2.jsonl.gz\n");
}

/* ---- one capture per generation ---- */

typedef struct GenView {
  const Loaded *l;
  Sched s;
  const JVal *items;
  size_t nk;
  KernelInfo *infos;
  InGraph g;
  bool graph_ok;
} GenView;

static void genview_open(GenView *v, Loaded *l, bool recorded) {
  memset(v, 0, sizeof *v);
  v->l = l;
  sched_of(&l->c, &l->arena, recorded, &v->s);
  v->items = sched_items(&v->s);
  v->nk = v->items ? v->items->n : 0;
  v->infos = calloc(v->nk ? v->nk : 1, sizeof *v->infos);
  if (!v->infos) abort();
  for (size_t k = 0; k < v->nk; k++) kernel_info(v->items->u.arr[k], l->c.generation, &v->infos[k]);
  char err[256];
  v->graph_ok = ingraph_build(&v->g, &l->c, v->s.result, v->items, err, sizeof err);
}

static void genview_close(GenView *v) {
  for (size_t k = 0; k < v->nk; k++) kernel_info_free(&v->infos[k]);
  free(v->infos);
  ingraph_free(&v->g);
}

static const char *gen_name(const GenView *v) { return tg_version_name(v->l->c.generation); }

static void descs(StrBuf *b, const GenView *v, size_t k, bool written) {
  const KernelInfo *ki = &v->infos[k];
  char desc[128];
  size_t n = 0;
  for (size_t i = 0; ki->bufs && i < ki->bufs->n; i++) {
    bool out = false;
    for (size_t o = 0; o < ki->nout; o++) out = out || ki->out[o] == i;
    if (out != written) continue;
    sb_printf(b, "%s%s", n++ ? " " : "", buf_desc(ki->bufs->u.arr[i], &v->l->c, v->s.result, desc, sizeof desc));
  }
  if (!n) sb_puts(b, "-");
}

/* "0.9.1", "0.9.1 and 0.10.0", "0.9.1, 0.10.0 and 0.10.2" for the views whose flag is set. */
static void gen_list(StrBuf *b, const GenView *v, size_t n, const bool *in) {
  size_t total = 0, done = 0;
  for (size_t i = 0; i < n; i++) total += in[i];
  for (size_t i = 0; i < n; i++) {
    if (!in[i]) continue;
    sb_printf(b, "%s%s", done == 0 ? "" : done + 1 == total ? " and " : ", ", gen_name(&v[i]));
    done++;
  }
}

static void say_kernel_counts(StrBuf *b, const GenView *v, size_t n) {
  bool all_same = true;
  for (size_t i = 1; i < n; i++) all_same = all_same && v[i].nk == v[0].nk;
  if (all_same) {
    sb_printf(b, "- %s generations schedule %zu kernel%s.\n", n == 2 ? "Both" : "All", v[0].nk, v[0].nk == 1 ? "" : "s");
    return;
  }
  sb_puts(b, "- ");
  bool *done = calloc(n, sizeof *done), *in = calloc(n, sizeof *in);
  if (!done || !in) abort();
  bool first = true;
  for (size_t i = 0; i < n; i++) {
    if (done[i]) continue;
    size_t cnt = 0;
    for (size_t j = 0; j < n; j++) {
      in[j] = !done[j] && v[j].nk == v[i].nk;
      cnt += in[j];
      if (in[j]) done[j] = true;
    }
    if (!first) sb_puts(b, "; ");
    gen_list(b, v, n, in);
    sb_printf(b, " schedule%s %zu kernel%s", cnt == 1 ? "s" : "", v[i].nk, v[i].nk == 1 ? "" : "s");
    first = false;
  }
  sb_puts(b, ".\n");
  free(done);
  free(in);
}

/* What a generation's compute kernels write, as sorted descriptions ("float[10]"). */
typedef struct Written { char desc[64]; } Written;

static int cmp_written(const void *x, const void *y) { return strcmp(((const Written *)x)->desc, ((const Written *)y)->desc); }

static const char *output_desc(const GenView *v, size_t k, size_t o, char *buf, size_t n) {
  const KernelInfo *ki = &v->infos[k];
  return buf_desc(ki->bufs->u.arr[ki->out[o]], &v->l->c, v->s.result, buf, n);
}

static bool is_compute_output(const GenView *v, size_t k, size_t o) {
  const KernelInfo *ki = &v->infos[k];
  return strcmp(ki->kind, "kernel") == 0 && ki->out[o] < ki->bufs->n;
}

static size_t written_sorted(const GenView *v, Written **out) {
  size_t n = 0;
  for (size_t k = 0; k < v->nk; k++) n += v->infos[k].nout;
  Written *w = calloc(n ? n : 1, sizeof *w);
  if (!w) abort();
  n = 0;
  for (size_t k = 0; k < v->nk; k++)
    for (size_t o = 0; o < v->infos[k].nout; o++)
      if (is_compute_output(v, k, o)) output_desc(v, k, o, w[n++].desc, sizeof w->desc);
  if (n) qsort(w, n, sizeof *w, cmp_written);
  *out = w;
  return n;
}

static size_t count_written(const Written *w, size_t n, const char *desc) {
  size_t lo = 0, hi = n, c = 0;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (strcmp(w[mid].desc, desc) < 0) lo = mid + 1;
    else hi = mid;
  }
  while (lo + c < n && strcmp(w[lo + c].desc, desc) == 0) c++;
  return c;
}

enum { MAX_EXTRA = 6 };

/* "kernel 3 (REDUCE.MAX: read through an expanding view: realized before the expand)" */
static void kernel_with_reason(StrBuf *b, const GenView *v, size_t k) {
  sb_printf(b, "kernel %zu (%s", k, v->infos[k].ops.s ? v->infos[k].ops.s : "no ops");
  for (size_t x = 0; v->graph_ok && x < v->g.n; x++)
    if (v->g.nodes[x].writer == (long)k) {
      Why why;
      derive_why(&v->g, v->infos, x, &why);
      if (why.reason != WHY_OTHER) sb_printf(b, ": %s", explain_reason_text(why.reason));
      break;
    }
  sb_putc(b, ')');
}

/* Buffers (matched by dtype and size) that generation i writes more often
 * than another: realized there, fused (or stored in another dtype)
 * elsewhere. When the others write none of that kind, one sentence per
 * kernel; else the counts and the first such kernel. */
static void say_extra_buffers(StrBuf *b, const GenView *v, size_t n, size_t i) {
  Written *w[TG_NVERSIONS * 4];
  size_t nw[TG_NVERSIONS * 4];
  for (size_t j = 0; j < n; j++) nw[j] = written_sorted(&v[j], &w[j]);
  bool missing[TG_NVERSIONS * 4];
  size_t said = 0, unsaid = 0;
  for (size_t k = 0; k < v[i].nk; k++) {
    if (v[i].infos[k].nout == 0 || !is_compute_output(&v[i], k, 0)) continue;
    char desc[64], other[64];
    output_desc(&v[i], k, 0, desc, sizeof desc);
    size_t nmissing = 0, mine = count_written(w[i], nw[i], desc), theirs_max = 0, first_k = v[i].nk;
    for (size_t j = 0; j < n; j++) {
      size_t theirs = count_written(w[j], nw[j], desc);
      missing[j] = j != i && theirs < mine;
      nmissing += missing[j];
      if (missing[j] && theirs > theirs_max) theirs_max = theirs;
    }
    if (!nmissing) continue;
    for (size_t kk = 0; kk < v[i].nk && first_k == v[i].nk; kk++) /* one sentence per description */
      if (v[i].infos[kk].nout && is_compute_output(&v[i], kk, 0) && strcmp(output_desc(&v[i], kk, 0, other, sizeof other), desc) == 0) first_k = kk;
    bool first_of_desc = first_k == k;
    if (theirs_max == 0) {
      if (said == MAX_EXTRA) { unsaid++; continue; }
      said++;
      sb_printf(b, "- %s realizes %s in ", gen_name(&v[i]), desc);
      kernel_with_reason(b, &v[i], k);
      sb_puts(b, "; ");
      gen_list(b, v, n, missing);
      sb_printf(b, " realize%s no %s buffer.\n", nmissing == 1 ? "s" : "", desc);
      continue;
    }
    if (!first_of_desc) continue;
    if (said == MAX_EXTRA) { unsaid++; continue; }
    said++;
    sb_printf(b, "- %s writes %zu %s buffers", gen_name(&v[i]), mine, desc);
    for (size_t j = 0; j < n; j++)
      if (missing[j]) sb_printf(b, ", %s %zu", gen_name(&v[j]), count_written(w[j], nw[j], desc));
    sb_puts(b, "; the first: ");
    kernel_with_reason(b, &v[i], k);
    sb_puts(b, ".\n");
  }
  if (unsaid) sb_printf(b, "- %s realizes %zu more such buffer%s.\n", gen_name(&v[i]), unsaid, unsaid == 1 ? "" : "s");
  for (size_t j = 0; j < n; j++) free(w[j]);
}

static void say_reduces(StrBuf *b, const GenView *v, size_t n) {
  size_t *r = calloc(n, sizeof *r), *rk = calloc(n, sizeof *rk);
  if (!r || !rk) abort();
  bool same_r = true, same_rk = true;
  for (size_t i = 0; i < n; i++) {
    for (size_t k = 0; k < v[i].nk; k++) r[i] += v[i].infos[k].nreduces, rk[i] += v[i].infos[k].nreduces > 0;
    same_r = same_r && r[i] == r[0];
    same_rk = same_rk && rk[i] == rk[0];
  }
  if (!same_r) {
    sb_puts(b, "- Reduces: ");
    for (size_t i = 0; i < n; i++) sb_printf(b, "%s%s has %zu", i ? ", " : "", gen_name(&v[i]), r[i]);
    sb_puts(b, " (reduces recomputed, split or merged differently).\n");
  } else if (!same_rk) {
    sb_printf(b, "- The %zu reduce%s run in ", r[0], r[0] == 1 ? "" : "s");
    for (size_t i = 0; i < n; i++) sb_printf(b, "%s%zu kernel%s in %s", i ? ", " : "", rk[i], rk[i] == 1 ? "" : "s", gen_name(&v[i]));
    sb_puts(b, ": fewer kernels means reduces fused into one kernel.\n");
  }
  free(r);
  free(rk);
}

static void say_multi_output(StrBuf *b, const GenView *v, size_t n) {
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < v[i].nk; k++)
      if (v[i].infos[k].nout > 1)
        sb_printf(b, "- %s kernel %zu writes %zu buffers (a multi-output kernel).\n", gen_name(&v[i]), k, v[i].infos[k].nout);
}

/* When the counts agree: the first kernel whose kind, ops, reduces or buffers differ. */
static void say_first_difference(StrBuf *b, const GenView *v, size_t n) {
  for (size_t i = 1; i < n; i++) if (v[i].nk != v[0].nk) return;
  for (size_t k = 0; k < v[0].nk; k++)
    for (size_t i = 1; i < n; i++) {
      const KernelInfo *x = &v[0].infos[k], *y = &v[i].infos[k];
      const char *what = strcmp(x->kind, y->kind) ? "kind" : strcmp(x->reduces.s ? x->reduces.s : "", y->reduces.s ? y->reduces.s : "") ? "reduces"
                       : strcmp(x->ops.s ? x->ops.s : "", y->ops.s ? y->ops.s : "") ? "ops" : NULL;
      if (!what) continue;
      sb_printf(b, "- Kernel by kernel the first difference is kernel %zu's %s: %s has %s, %s has %s.\n", k, what, gen_name(&v[0]),
                strcmp(what, "kind") == 0 ? x->kind : strcmp(what, "ops") == 0 ? (x->ops.s ? x->ops.s : "none") : (x->reduces.s ? x->reduces.s : "none"),
                gen_name(&v[i]),
                strcmp(what, "kind") == 0 ? y->kind : strcmp(what, "ops") == 0 ? (y->ops.s ? y->ops.s : "none") : (y->reduces.s ? y->reduces.s : "none"));
      return;
    }
  sb_puts(b, "- Kernel by kernel the same kinds, ops and reduce axes.\n");
}

static bool from_recording(const Sched *s) { return s->source == SRC_DIFFERS || s->source == SRC_UNSUPPORTED; }
static const char *source_mark(const Sched *s) { return from_recording(s) ? "*" : ""; }

static void compare_text(StrBuf *b, GenView *v, size_t n) {
  sb_printf(b, "=== %s\n", v[0].l->c.name);
  size_t maxk = 0;
  bool marked = false;
  for (size_t i = 0; i < n; i++) {
    const Sched *s = &v[i].s;
    if (v[i].nk > maxk) maxk = v[i].nk;
    sb_printf(b, "%-7s %3zu kernel%s%s", gen_name(&v[i]), v[i].nk, v[i].nk == 1 ? " " : "s", source_mark(s));
    if (s->error) sb_printf(b, "  raised %s", json_get(s->error, "type") ? json_get(s->error, "type")->u.s : "?");
    sb_putc(b, '\n');
    marked = marked || from_recording(s);
  }
  for (size_t k = 0; k < maxk; k++) {
    sb_printf(b, "kernel %zu\n", k);
    for (size_t i = 0; i < n; i++) {
      if (k >= v[i].nk) { sb_printf(b, "  %-7s -\n", gen_name(&v[i])); continue; }
      const KernelInfo *ki = &v[i].infos[k];
      sb_printf(b, "  %-7s ", gen_name(&v[i]));
      if (strcmp(ki->kind, "kernel")) sb_printf(b, "%s ", ki->kind);
      sb_puts(b, "writes ");
      descs(b, &v[i], k, true);
      if (ki->ops.n) sb_printf(b, "  ops %s", ki->ops.s);
      if (ki->reduces.n) sb_printf(b, "  reduces %s", ki->reduces.s);
      sb_puts(b, "  reads ");
      descs(b, &v[i], k, false);
      sb_putc(b, '\n');
    }
  }
  if (n > 1) {
    sb_puts(b, "differences:\n");
    say_kernel_counts(b, v, n);
    for (size_t i = 0; i < n; i++) say_extra_buffers(b, v, n, i);
    say_reduces(b, v, n);
    say_multi_output(b, v, n);
    say_first_difference(b, v, n);
  }
  if (marked) sb_puts(b, "* from the recording: tsched does not reproduce this capture (yet)\n");
}

static void compare_json(StrBuf *b, GenView *v, size_t n) {
  sb_puts(b, "{\"name\": ");
  json_str_lit(b, v[0].l->c.name);
  sb_puts(b, ", \"generations\": [");
  for (size_t i = 0; i < n; i++) {
    sb_printf(b, "%s{\"generation\": \"%s\", \"source\": \"%s\", \"kernels\": [", i ? ", " : "", gen_name(&v[i]), sched_source_word(v[i].s.source));
    for (size_t k = 0; k < v[i].nk; k++) {
      const KernelInfo *ki = &v[i].infos[k];
      StrBuf w = {0}, r = {0};
      descs(&w, &v[i], k, true);
      descs(&r, &v[i], k, false);
      sb_printf(b, "%s{\"kind\": \"%s\", \"writes\": \"%s\", \"ops\": ", k ? ", " : "", ki->kind, w.s);
      json_str_lit(b, ki->ops.s ? ki->ops.s : "");
      sb_puts(b, ", \"reduces\": ");
      json_str_lit(b, ki->reduces.s ? ki->reduces.s : "");
      sb_printf(b, ", \"reads\": \"%s\"}", r.s);
      sb_free(&w);
      sb_free(&r);
    }
    sb_puts(b, "]}");
  }
  sb_puts(b, "]}\n");
}

static bool keep_selected(const Capture *c, Arena *a, void *ctx) {
  CompareOptions *o = ctx;
  bool keep = false;
  for (size_t i = 0; i < o->nnames; i++)
    if (name_selected(c->name, o->names[i])) keep = o->found[i] = true;
  if (keep) capture_set_keep(&o->set, c, a);
  return true;
}

static int compare_names(CompareOptions *o) {
  size_t errors = walk_captures("compare", o->npaths, o->paths, keep_selected, o);
  capture_set_sort(&o->set);
  bool missing = false;
  for (size_t i = 0; i < o->nnames; i++)
    if (!o->found[i]) {
      term_printf(stderr, "tsched compare: no capture named \"%s\" in %s%s\n", o->names[i], o->paths[0], o->npaths > 1 ? " ..." : "");
      missing = true;
    }
  for (size_t i = 0; i < o->set.n;) {
    size_t j = i;
    while (j < o->set.n && strcmp(o->set.items[j].c.name, o->set.items[i].c.name) == 0) j++;
    GenView v[TG_NVERSIONS * 4];
    size_t n = 0;
    for (size_t k = i; k < j && n < sizeof v / sizeof v[0]; k++) genview_open(&v[n++], &o->set.items[k], o->recorded);
    StrBuf b = {0};
    if (o->json) compare_json(&b, v, n);
    else compare_text(&b, v, n);
    sb_flush(&b, stdout);
    sb_free(&b);
    for (size_t k = 0; k < n; k++) genview_close(&v[k]);
    i = j;
  }
  capture_set_free(&o->set);
  return errors || missing ? 1 : 0;
}

/* ---- the table ---- */

typedef struct Row {
  char *name;
  long kernels[TG_NVERSIONS];   /* -1: not recorded in that generation */
  bool marked[TG_NVERSIONS];    /* some count came from the recording */
} Row;

typedef struct Table { Row *rows; size_t n, cap; bool recorded, by_call; } Table;

static bool add_to_table(const Capture *c, Arena *a, void *ctx) {
  Table *t = ctx;
  Sched s;
  sched_of(c, a, t->recorded, &s);
  const JVal *items = sched_items(&s);
  size_t len = t->by_call ? strlen(c->name) : workload_len(c->name);
  if (t->n == t->cap) {
    t->cap = t->cap ? t->cap * 2 : 256;
    Row *bigger = realloc(t->rows, t->cap * sizeof *bigger);
    if (!bigger) abort();
    t->rows = bigger;
  }
  Row *r = &t->rows[t->n++];
  r->name = malloc(len + 1);
  if (!r->name) abort();
  memcpy(r->name, c->name, len);
  r->name[len] = 0;
  for (int g = 0; g < TG_NVERSIONS; g++) r->kernels[g] = -1, r->marked[g] = false;
  r->kernels[c->generation] = items ? (long)items->n : 0;
  r->marked[c->generation] = from_recording(&s);
  return true;
}

static int cmp_row(const void *x, const void *y) { return strcmp(((const Row *)x)->name, ((const Row *)y)->name); }

/* Sorts and folds rows of one name into one (summing calls). */
static void fold_rows(Table *t) {
  if (!t->n) return;
  qsort(t->rows, t->n, sizeof *t->rows, cmp_row);
  size_t w = 0;
  for (size_t i = 0; i < t->n; i++) {
    Row *r = &t->rows[i];
    if (w && strcmp(t->rows[w - 1].name, r->name) == 0) {
      Row *into = &t->rows[w - 1];
      for (int g = 0; g < TG_NVERSIONS; g++) {
        if (r->kernels[g] < 0) continue;
        into->kernels[g] = (into->kernels[g] < 0 ? 0 : into->kernels[g]) + r->kernels[g];
        into->marked[g] = into->marked[g] || r->marked[g];
      }
      free(r->name);
      continue;
    }
    t->rows[w++] = *r;
  }
  t->n = w;
}

static size_t gens_present(const Row *r) {
  size_t n = 0;
  for (int g = 0; g < TG_NVERSIONS; g++) n += r->kernels[g] >= 0;
  return n;
}

static const char *count_word(size_t n) {
  static const char *const words[] = {"no", "one", "two", "three", "four", "five", "six", "seven", "eight"};
  return n < sizeof words / sizeof *words ? words[n] : "many";
}

static void print_table(const Table *t, bool json) {
  StrBuf b = {0};
  size_t width = 8;
  bool shown[TG_NVERSIONS] = {false}; /* a column for each version some row has */
  size_t nshown = 0;
  for (size_t i = 0; i < t->n; i++) {
    if (gens_present(&t->rows[i]) < 2) continue;
    if (strlen(t->rows[i].name) > width) width = strlen(t->rows[i].name);
    for (int g = 0; g < TG_NVERSIONS; g++) shown[g] = shown[g] || t->rows[i].kernels[g] >= 0;
  }
  for (int g = 0; g < TG_NVERSIONS; g++) nshown += shown[g];
  if (!json) {
    sb_printf(&b, "%-*s", (int)width, t->by_call ? "capture" : "workload");
    for (int g = 0; g < TG_NVERSIONS; g++)
      if (shown[g]) sb_printf(&b, " %8s", tg_version_name((TgVersion)g));
    sb_putc(&b, '\n');
  }
  long total[TG_NVERSIONS] = {0}, total_all[TG_NVERSIONS] = {0};
  size_t rows = 0, rows_all = 0;
  bool marked = false;
  for (size_t i = 0; i < t->n; i++) {
    const Row *r = &t->rows[i];
    if (gens_present(r) < 2) continue;
    rows++;
    bool all = gens_present(r) == nshown;
    rows_all += all;
    if (json) {
      sb_puts(&b, "{\"name\": ");
      json_str_lit(&b, r->name);
      for (int g = 0; g < TG_NVERSIONS; g++) {
        if (!shown[g]) continue;
        sb_printf(&b, ", \"%s\": ", tg_version_name((TgVersion)g));
        if (r->kernels[g] < 0) sb_puts(&b, "null");
        else sb_printf(&b, "{\"kernels\": %ld, \"from\": \"%s\"}", r->kernels[g], r->marked[g] ? "recording" : t->recorded ? "recording" : "tsched");
      }
      sb_puts(&b, "}\n");
    } else {
      sb_printf(&b, "%-*s", (int)width, r->name);
      for (int g = 0; g < TG_NVERSIONS; g++) {
        if (!shown[g]) continue;
        if (r->kernels[g] < 0) sb_printf(&b, " %8s", "-");
        else sb_printf(&b, " %7ld%s", r->kernels[g], r->marked[g] ? "*" : " ");
        marked = marked || r->marked[g];
      }
      sb_putc(&b, '\n');
    }
    for (int g = 0; g < TG_NVERSIONS; g++) {
      if (r->kernels[g] < 0) continue;
      total[g] += r->kernels[g];
      if (all) total_all[g] += r->kernels[g];
    }
  }
  if (json) {
    sb_printf(&b, "{\"rows\": %zu, \"rows_in_every_generation\": %zu, \"total_in_every_generation\": {", rows, rows_all);
    const char *sep = "";
    for (int g = 0; g < TG_NVERSIONS; g++)
      if (shown[g]) sb_printf(&b, "%s\"%s\": %ld", sep, tg_version_name((TgVersion)g), total_all[g]), sep = ", ";
    sb_puts(&b, "}}\n");
  } else {
    sb_printf(&b, "%-*s", (int)width, "total");
    for (int g = 0; g < TG_NVERSIONS; g++)
      if (shown[g]) sb_printf(&b, " %7ld ", total[g]);
    char label[64];
    snprintf(label, sizeof label, "total, rows in all %s", count_word(nshown));
    sb_printf(&b, "\n%-*s", (int)width, label);
    for (int g = 0; g < TG_NVERSIONS; g++)
      if (shown[g]) sb_printf(&b, " %7ld ", total_all[g]);
    sb_printf(&b, "\n%zu rows in more than one version, %zu in all %s\n", rows, rows_all, count_word(nshown));
    if (marked) sb_puts(&b, "* from the recording: tsched does not reproduce every call (yet)\n");
    else if (t->recorded) sb_puts(&b, "(counts from the recordings)\n");
  }
  sb_flush(&b, stdout);
  sb_free(&b);
}

static int compare_table(CompareOptions *o) {
  Table t = {.recorded = o->recorded, .by_call = o->by_call};
  size_t errors = walk_captures("compare", o->npaths, o->paths, add_to_table, &t);
  fold_rows(&t);
  if (t.n || !errors) print_table(&t, o->json); /* nothing found: the errors said it */
  for (size_t i = 0; i < t.n; i++) free(t.rows[i].name);
  free(t.rows);
  return errors ? 1 : 0;
}

enum { OPT_NAME, OPT_RECORDED, OPT_JSON, OPT_BY_CALL };
static const CliOption options[] = {
  {"name", 'n', "NAME", OPT_NAME},
  {"recorded", 'r', NULL, OPT_RECORDED},
  {"json", 'j', NULL, OPT_JSON},
  {"by-call", 0, NULL, OPT_BY_CALL},
};

int cmd_compare(int argc, char **argv) {
  CompareOptions o = {0};
  CliParser p;
  cli_init(&p, "compare", options, sizeof options / sizeof options[0], usage, argc, argv);
  o.names = cli_list(&p);
  o.found = calloc((size_t)argc, sizeof *o.found);
  if (!o.found) abort();
  for (int id; (id = cli_next(&p)) != CLI_END;) {
    switch (id) {
      case OPT_NAME: o.names[o.nnames++] = p.value; break;
      case OPT_RECORDED: o.recorded = true; break;
      case OPT_JSON: o.json = true; break;
      case OPT_BY_CALL: o.by_call = true; break;
    }
  }
  int status = p.status;
  o.paths = p.operands;
  o.npaths = p.noperands;
  char corpus[4096], looked[4096];
  if (status < 0 && o.npaths == 0) { /* the bundled corpus */
    if (cli_find_data("conformance/corpus", corpus, sizeof corpus, looked, sizeof looked)) {
      o.paths[o.npaths++] = corpus;
    } else {
      term_printf(stderr, "tsched compare: no PATH given and no bundled corpus found (looked for %s)\n", looked);
      status = 1;
    }
  }
  if (status < 0) status = o.nnames ? compare_names(&o) : compare_table(&o);
  cli_free(&p);
  free(o.found);
  return status;
}
