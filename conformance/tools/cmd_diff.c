/* cmd_diff.c — `tsched diff OLD NEW`: two recordings of the same workloads
 * (two tinygrad commits, or two generations' captures of one program),
 * matched by capture name: which schedules changed (kernel count, ASTs,
 * bufs) and the first difference of each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "compare.h"
#include "kernels.h"
#include "tools.h"

typedef struct DiffOptions {
  bool json, all, verbose;
  CaptureSet news;
  bool *paired;            /* per news item */
  size_t matched, same, changed, only_old;
  StrBuf out;
} DiffOptions;

static void usage(FILE *f) {
  fprintf(f,
          "NAME\n"
          "    tsched diff - what changed between two recordings of the same workloads\n"
          "\n"
          "SYNOPSIS\n"
          "    tsched diff [OPTION]... OLD NEW\n"
          "\n"
          "DESCRIPTION\n"
          "    Compares two recordings of the same workloads (files or folders of\n"
          "    captures), matched by capture name (\"workloads.matmul#3\"; a name present\n"
          "    in several versions on one side pairs with the same version on the other\n"
          "    first). For each schedule that changed: the kernel count, and the first\n"
          "    difference: within one version the first kernel whose AST (compared\n"
          "    structurally), bufs or metadata differ; across versions the first kernel\n"
          "    whose kind, ops, reduce axes or buffers (dtype and size) differ. Then the\n"
          "    totals and the names found on one side only.\n"
          "\n"
          "OPTIONS\n"
          "    -a, --all\n"
          "        also list the schedules that are the same\n"
          "    -v, --verbose\n"
          "        every differing kernel, not only the first\n"
          "    -j, --json\n"
          "        one JSON object per matched capture, then a summary object\n"
          "    -h, --help\n"
          "        this text\n"
          "\n"
          "EXIT STATUS\n"
          "    0 the same, 1 something changed, 2 wrong usage or something could not be\n"
          "    read\n"
          "\n"
          "EXAMPLES\n"
          "    tsched diff old.jsonl.gz new.jsonl.gz\n");
}

static bool keep_new(const Capture *c, Arena *a, void *ctx) {
  capture_set_keep(&((DiffOptions *)ctx)->news, c, a);
  return true;
}

/* The NEW capture to pair with: same name, same generation if there is one. */
static long find_pair(DiffOptions *o, const Capture *c) {
  size_t i = capture_set_find(&o->news, c->name);
  long fallback = -1;
  for (; i < o->news.n && strcmp(o->news.items[i].c.name, c->name) == 0; i++) {
    if (o->paired[i]) continue;
    if (o->news.items[i].c.generation == c->generation) return (long)i;
    if (fallback < 0) fallback = (long)i;
  }
  return fallback;
}

static const JVal *error_of(const Capture *c) { return c->error && c->error->kind == J_OBJ ? c->error : NULL; }

static const JVal *items_of(const Capture *c) {
  const JVal *items = error_of(c) ? NULL : json_get(c->expected, "schedule");
  return items && items->kind == J_ARR ? items : NULL;
}

static const char *str_field(const JVal *obj, const char *key) {
  const JVal *v = json_get(obj, key);
  return v && v->kind == J_STR ? v->u.s : "?";
}

/* Buffers as "float[20] float[1]" for comparing across generations. */
static void bufs_desc(StrBuf *b, const Capture *c, const JVal *bufs) {
  char desc[128];
  for (size_t i = 0; bufs && bufs->kind == J_ARR && i < bufs->n; i++)
    sb_printf(b, "%s%s", i ? " " : "", buf_desc(bufs->u.arr[i], c, c->expected, desc, sizeof desc));
}

/* Across generations: kind, ops, reduces, buffers. */
static bool kernel_neutral_diff(const Capture *a, const JVal *ia, const Capture *b, const JVal *ib, StrBuf *why) {
  KernelInfo ka, kb;
  kernel_info(ia, a->generation, &ka);
  kernel_info(ib, b->generation, &kb);
  StrBuf da = {0}, db = {0};
  bufs_desc(&da, a, ka.bufs);
  bufs_desc(&db, b, kb.bufs);
  bool differs = true;
  if (strcmp(ka.kind, kb.kind) != 0) sb_printf(why, "kind %s -> %s", ka.kind, kb.kind);
  else if (strcmp(ka.ops.s ? ka.ops.s : "", kb.ops.s ? kb.ops.s : "") != 0)
    sb_printf(why, "ops %s -> %s", ka.ops.s ? ka.ops.s : "(none)", kb.ops.s ? kb.ops.s : "(none)");
  else if (strcmp(ka.reduces.s ? ka.reduces.s : "", kb.reduces.s ? kb.reduces.s : "") != 0)
    sb_printf(why, "reduces %s -> %s", ka.reduces.s ? ka.reduces.s : "(none)", kb.reduces.s ? kb.reduces.s : "(none)");
  else if (strcmp(da.s ? da.s : "", db.s ? db.s : "") != 0) sb_printf(why, "buffers %s -> %s", da.s ? da.s : "", db.s ? db.s : "");
  else differs = false;
  sb_free(&da);
  sb_free(&db);
  kernel_info_free(&ka);
  kernel_info_free(&kb);
  return differs;
}

/* graph_equal speaks of "expected" and "got": here they are OLD and NEW. */
static void old_new_words(StrBuf *b, const char *s) {
  while (*s) {
    if (strncmp(s, "expected", 8) == 0) { sb_puts(b, "OLD"); s += 8; }
    else if (strncmp(s, "got", 3) == 0) { sb_puts(b, "NEW"); s += 3; }
    else sb_putc(b, *s++);
  }
}

/* Within one generation: AST structurally, then bufs, then metadata. */
static bool kernel_exact_diff(Arena *ar, const JVal *ia, const JVal *ib, StrBuf *why) {
  char inner[2048];
  if (!graph_equal(ar, json_get(ia, "ast"), json_get(ib, "ast"), inner, sizeof inner)) {
    sb_puts(why, "AST: ");
    old_new_words(why, inner);
    return true;
  }
  static const char *const fields[] = {"bufs", "metadata"};
  for (size_t f = 0; f < 2; f++) {
    const JVal *x = json_get(ia, fields[f]), *y = json_get(ib, fields[f]);
    if (x && y && json_equal(x, y)) continue;
    char *tx = x ? json_to_string(x, NULL) : NULL, *ty = y ? json_to_string(y, NULL) : NULL;
    sb_printf(why, "%s %.300s -> %.300s", fields[f], tx ? tx : "none", ty ? ty : "none");
    free(tx);
    free(ty);
    return true;
  }
  return false;
}

/* Appends one line per differing kernel (only the first unless verbose); returns how many differ. */
static size_t diff_kernels(DiffOptions *o, Arena *ar, const Capture *a, const Capture *b, StrBuf *lines) {
  const JVal *ka = items_of(a), *kb = items_of(b);
  size_t na = ka ? ka->n : 0, nb = kb ? kb->n : 0, ndiff = 0;
  for (size_t k = 0; k < na || k < nb; k++) {
    StrBuf why = {0};
    bool differs;
    if (k >= na || k >= nb) {
      KernelInfo ki;
      kernel_info(k < na ? ka->u.arr[k] : kb->u.arr[k], k < na ? a->generation : b->generation, &ki);
      sb_printf(&why, "only in %s: %s %s", k < na ? "OLD" : "NEW", ki.kind, ki.ops.s ? ki.ops.s : "");
      kernel_info_free(&ki);
      differs = true;
    } else if (a->generation == b->generation) {
      differs = kernel_exact_diff(ar, ka->u.arr[k], kb->u.arr[k], &why);
    } else {
      differs = kernel_neutral_diff(a, ka->u.arr[k], b, kb->u.arr[k], &why);
    }
    if (differs && (ndiff == 0 || o->verbose)) sb_printf(lines, "  kernel %zu: %s\n", k, why.s);
    ndiff += differs;
    sb_free(&why);
  }
  return ndiff;
}

static void report_pair(DiffOptions *o, Arena *ar, const Capture *a, const Capture *b) {
  StrBuf lines = {0};
  const JVal *ea = error_of(a), *eb = error_of(b), *ka = items_of(a), *kb = items_of(b);
  size_t na = ka ? ka->n : 0, nb = kb ? kb->n : 0;
  bool changed;
  if (ea || eb) {
    changed = !(ea && eb && strcmp(str_field(ea, "type"), str_field(eb, "type")) == 0 &&
                strcmp(str_field(ea, "message"), str_field(eb, "message")) == 0);
    if (changed) {
      if (ea) sb_printf(&lines, "  OLD raised %s: %.300s\n", str_field(ea, "type"), str_field(ea, "message"));
      else sb_printf(&lines, "  OLD schedules %zu kernel%s\n", na, na == 1 ? "" : "s");
      if (eb) sb_printf(&lines, "  NEW raised %s: %.300s\n", str_field(eb, "type"), str_field(eb, "message"));
      else sb_printf(&lines, "  NEW schedules %zu kernel%s\n", nb, nb == 1 ? "" : "s");
    }
  } else {
    changed = diff_kernels(o, ar, a, b, &lines) > 0;
  }
  o->matched++;
  changed ? o->changed++ : o->same++;
  char gens[32] = "";
  if (a->generation != b->generation)
    snprintf(gens, sizeof gens, " (%s -> %s)", tg_version_name(a->generation), tg_version_name(b->generation));
  if (o->json) {
    sb_puts(&o->out, "{\"name\": ");
    json_str_lit(&o->out, a->name);
    sb_printf(&o->out, ", \"old_generation\": \"%s\", \"new_generation\": \"%s\", \"changed\": %s, \"old_kernels\": %zu, \"new_kernels\": %zu, \"first_difference\": ",
              tg_version_name(a->generation), tg_version_name(b->generation), changed ? "true" : "false", na, nb);
    if (lines.n) {
      char *nl = strchr(lines.s, '\n');
      if (nl) *nl = 0;
      json_str_lit(&o->out, lines.s + 2);
    } else {
      sb_puts(&o->out, "null");
    }
    sb_puts(&o->out, "}\n");
  } else if (changed || o->all) {
    sb_printf(&o->out, "%s %s%s: ", changed ? "CHANGED" : "SAME", a->name, gens);
    if (na != nb) sb_printf(&o->out, "%zu kernel%s -> %zu kernel%s\n", na, na == 1 ? "" : "s", nb, nb == 1 ? "" : "s");
    else sb_printf(&o->out, "%zu kernel%s\n", na, na == 1 ? "" : "s");
    if (lines.n) sb_puts(&o->out, lines.s);
  }
  sb_free(&lines);
}

static bool visit_old(const Capture *c, Arena *a, void *ctx) {
  DiffOptions *o = ctx;
  long j = find_pair(o, c);
  if (j < 0) {
    o->only_old++;
    if (!o->json) sb_printf(&o->out, "ONLY IN OLD %s (%s)\n", c->name, tg_version_name(c->generation));
    return true;
  }
  o->paired[j] = true;
  report_pair(o, a, c, &o->news.items[j].c);
  sb_flush(&o->out, stdout);
  return true;
}

enum { OPT_JSON, OPT_ALL, OPT_VERBOSE };
static const CliOption options[] = {
  {"json", 'j', NULL, OPT_JSON},
  {"all", 'a', NULL, OPT_ALL},
  {"verbose", 'v', NULL, OPT_VERBOSE},
};

int cmd_diff(int argc, char **argv) {
  DiffOptions o = {0};
  CliParser p;
  cli_init(&p, "diff", options, sizeof options / sizeof options[0], usage, argc, argv);
  for (int id; (id = cli_next(&p)) != CLI_END;) {
    switch (id) {
      case OPT_JSON: o.json = true; break;
      case OPT_ALL: o.all = true; break;
      case OPT_VERBOSE: o.verbose = true; break;
    }
  }
  if (p.status < 0 && p.noperands != 2) cli_fail(&p, "wants two recordings, OLD and NEW");
  if (p.status >= 0) {
    int status = p.status;
    cli_free(&p);
    return status;
  }
  char *sides[2] = {p.operands[0], p.operands[1]};
  cli_free(&p);
  size_t errors = walk_captures("diff", 1, &sides[1], keep_new, &o);
  capture_set_sort(&o.news);
  o.paired = calloc(o.news.n ? o.news.n : 1, sizeof *o.paired);
  if (!o.paired) abort();
  errors += walk_captures("diff", 1, &sides[0], visit_old, &o);
  size_t only_new = 0;
  for (size_t i = 0; i < o.news.n; i++) {
    if (o.paired[i]) continue;
    only_new++;
    if (!o.json) sb_printf(&o.out, "ONLY IN NEW %s (%s)\n", o.news.items[i].c.name, tg_version_name(o.news.items[i].c.generation));
  }
  if (o.json)
    sb_printf(&o.out, "{\"matched\": %zu, \"same\": %zu, \"changed\": %zu, \"only_old\": %zu, \"only_new\": %zu}\n", o.matched, o.same,
              o.changed, o.only_old, only_new);
  else
    sb_printf(&o.out, "%zu matched: %zu same, %zu changed; %zu only in OLD, %zu only in NEW\n", o.matched, o.same, o.changed,
              o.only_old, only_new);
  sb_flush(&o.out, stdout);
  sb_free(&o.out);
  free(o.paired);
  bool differs = o.changed || o.only_old || only_new;
  capture_set_free(&o.news);
  return errors ? 2 : differs ? 1 : 0;
}
