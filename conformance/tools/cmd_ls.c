/* cmd_ls.c — `tsched ls PATH...`: what a recording holds, one line per
 * capture: its version, the number of kernels tinygrad scheduled, the
 * replay's verdict, and its name; with filters on each. */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "replay.h"
#include "tools.h"

typedef struct LsOptions {
  const char **names, **versions, **verdicts;
  size_t nnames, nversions, nverdicts;
  bool recorded, json, verbose;
  size_t listed;
} LsOptions;

static void usage(FILE *f) {
  fprintf(f,
          "NAME\n"
          "    tsched ls - list the captures of a recording\n"
          "\n"
          "SYNOPSIS\n"
          "    tsched ls [OPTION]... PATH...\n"
          "\n"
          "DESCRIPTION\n"
          "    One line per capture in PATH (files or folders of *.jsonl / *.jsonl.gz):\n"
          "    its tinygrad version, the number of kernels tinygrad scheduled (\"raises\"\n"
          "    when the call raised), the replay's verdict (pass, fail, unsupported or\n"
          "    error, as `tsched replay` gives it) and its name. Filters may be\n"
          "    repeated; a capture is listed when it passes every kind of filter given.\n"
          "\n"
          "OPTIONS\n"
          "    -n, --name PATTERN\n"
          "        names matching PATTERN: a shell glob (\"workloads.*\", \"*#0\"), else the\n"
          "        name itself or a workload (a name without \"#\": every call of it)\n"
          "    -V, --version VERSION\n"
          "        captures of this tinygrad version (\"0.10.2\")\n"
          "    -s, --verdict VERDICT\n"
          "        captures with this verdict: pass, fail, unsupported or error\n"
          "    -r, --recorded\n"
          "        do not replay: no verdict (\"-\"), much faster on big recordings\n"
          "    -v, --verbose\n"
          "        after the name, why a capture did not pass\n"
          "    -j, --json\n"
          "        one JSON object per capture: {\"name\", \"generation\", \"kernels\" (null\n"
          "        when the call raised), \"raised\", \"verdict\", \"why\", \"file\", \"line\"}\n"
          "    -h, --help\n"
          "        this text\n"
          "\n"
          "EXIT STATUS\n"
          "    0 something listed, 1 nothing matched or something could not be read,\n"
          "    2 wrong usage\n"
          "\n"
          "EXAMPLES\n"
          "    tsched ls conformance/corpus/v0.9.1-big.jsonl.gz\n"
          "    tsched ls -s fail -s unsupported -v conformance/corpus\n"
          "    tsched ls -n 'workloads.*' -V 0.10.2 --json conformance/corpus\n");
}

static const char *const verdict_words[] = {"pass", "fail", "unsupported", "error"}; /* by OutcomeKind */

static bool any_equal(const char **xs, size_t n, const char *s) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(xs[i], s) == 0) return true;
  return false;
}

static bool name_matches(const LsOptions *o, const char *name) {
  for (size_t i = 0; i < o->nnames; i++) {
    const char *pattern = o->names[i];
    bool glob = strpbrk(pattern, "*?[") != NULL;
    if (glob ? fnmatch(pattern, name, 0) == 0 : name_selected(name, pattern)) return true;
  }
  return o->nnames == 0;
}

static void print_json(StrBuf *b, const Capture *c, long kernels, const char *raised, const char *verdict, const char *why) {
  sb_puts(b, "{\"name\": ");
  json_str_lit(b, c->name);
  sb_printf(b, ", \"generation\": \"%s\", \"kernels\": ", tg_version_name(c->generation));
  if (kernels >= 0) sb_printf(b, "%ld", kernels);
  else sb_puts(b, "null");
  sb_puts(b, ", \"raised\": ");
  if (raised) json_str_lit(b, raised);
  else sb_puts(b, "null");
  sb_puts(b, ", \"verdict\": ");
  if (verdict) json_str_lit(b, verdict);
  else sb_puts(b, "null");
  sb_puts(b, ", \"why\": ");
  if (why && *why) json_str_lit(b, why);
  else sb_puts(b, "null");
  sb_puts(b, ", \"file\": ");
  json_str_lit(b, c->file);
  sb_printf(b, ", \"line\": %zu}\n", c->line);
}

static bool visit(const Capture *c, Arena *a, void *ctx) {
  LsOptions *o = ctx;
  const char *version = tg_version_name(c->generation);
  if (!name_matches(o, c->name) || (o->nversions && !any_equal(o->versions, o->nversions, version))) return true;
  const char *verdict = NULL, *why = NULL;
  Outcome out;
  if (!o->recorded) {
    replay_capture(c, a, &out);
    verdict = verdict_words[out.kind];
    why = out.kind == OUT_PASS ? NULL : out.why;
  }
  if (o->nverdicts && !any_equal(o->verdicts, o->nverdicts, verdict)) return true;
  const JVal *type = c->error && c->error->kind == J_OBJ ? json_get(c->error, "type") : NULL;
  const char *raised = type ? (type->kind == J_STR ? type->u.s : "?") : NULL;
  const JVal *items = raised ? NULL : json_get(c->expected, "schedule");
  long kernels = items && items->kind == J_ARR ? (long)items->n : -1;
  StrBuf b = {0};
  if (o->json) {
    print_json(&b, c, kernels, raised, verdict, why);
  } else {
    char count[32] = "raises";
    if (!raised) snprintf(count, sizeof count, "%ld", kernels);
    sb_printf(&b, "%-14s %7s  %-11s  %s", version, count, verdict ? verdict : "-", c->name);
    if (o->verbose && why && *why) sb_printf(&b, "  (%s)", why);
    sb_putc(&b, '\n');
  }
  sb_flush(&b, stdout);
  sb_free(&b);
  o->listed++;
  return true;
}

enum { OPT_NAME, OPT_VERSION, OPT_VERDICT, OPT_RECORDED, OPT_VERBOSE, OPT_JSON };
static const CliOption options[] = {
  {"name", 'n', "PATTERN", OPT_NAME},
  {"version", 'V', "VERSION", OPT_VERSION},
  {"verdict", 's', "VERDICT", OPT_VERDICT},
  {"recorded", 'r', NULL, OPT_RECORDED},
  {"verbose", 'v', NULL, OPT_VERBOSE},
  {"json", 'j', NULL, OPT_JSON},
};

/* A --version or --verdict value that can never match is a usage error. */
static void check_filters(CliParser *p, const LsOptions *o) {
  for (size_t i = 0; i < o->nversions && p->status < 0; i++)
    if (tg_version_parse(o->versions[i]) < 0) cli_fail(p, "no tinygrad version \"%s\" (tsched --version lists them)", o->versions[i]);
  for (size_t i = 0; i < o->nverdicts && p->status < 0; i++)
    if (!any_equal((const char **)verdict_words, 4, o->verdicts[i]))
      cli_fail(p, "no verdict \"%s\": pass, fail, unsupported or error", o->verdicts[i]);
  if (p->status < 0 && o->nverdicts && o->recorded) cli_fail(p, "--verdict needs the replay that --recorded leaves out");
}

int cmd_ls(int argc, char **argv) {
  LsOptions o = {0};
  CliParser p;
  cli_init(&p, "ls", options, sizeof options / sizeof options[0], usage, argc, argv);
  o.names = cli_list(&p);
  o.versions = cli_list(&p);
  o.verdicts = cli_list(&p);
  for (int id; (id = cli_next(&p)) != CLI_END;) {
    switch (id) {
      case OPT_NAME: o.names[o.nnames++] = p.value; break;
      case OPT_VERSION: o.versions[o.nversions++] = p.value; break;
      case OPT_VERDICT: o.verdicts[o.nverdicts++] = p.value; break;
      case OPT_RECORDED: o.recorded = true; break;
      case OPT_VERBOSE: o.verbose = true; break;
      case OPT_JSON: o.json = true; break;
    }
  }
  if (p.status < 0) check_filters(&p, &o);
  if (p.status < 0 && p.noperands == 0) cli_fail(&p, "no PATH given");
  int status = p.status;
  if (status < 0) {
    size_t errors = walk_captures("ls", p.noperands, p.operands, visit, &o);
    if (o.listed == 0) fprintf(stderr, "tsched ls: no capture%s\n", o.nnames || o.nversions || o.nverdicts ? " matched" : "");
    status = errors || o.listed == 0 ? 1 : 0;
  }
  cli_free(&p);
  return status;
}
