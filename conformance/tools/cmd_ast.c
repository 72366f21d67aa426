/* cmd_ast.c — `tsched ast CAPTURE...`: each kernel's AST printed the way
 * that tinygrad version prints repr(si.ast), to read next to tinygrad's own
 * DEBUG output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pyrepr.h"
#include "tools.h"

typedef struct AstOptions {
  const char *names[64]; /* none: every capture */
  size_t nnames;
  bool has_item, recorded, json;
  size_t item;
  size_t shown;
  bool failed;
} AstOptions;

static void usage(FILE *f) {
  fprintf(f,
          "usage: tsched ast [--name NAME] [--item N] [--recorded] [--json] CAPTURE...\n"
          "\n"
          "Print each kernel's AST the way that tinygrad version prints repr(si.ast):\n"
          "0.9.1 as a tuple of LazyOp(op=..., src=(...), arg=...), 0.10.0 and 0.10.2 as\n"
          "UOp(Ops.X, dtypes.y, arg=..., src=(...)) through pretty_print (indented,\n"
          "shared nodes as x1:=). The schedule comes from the tsched scheduler when it\n"
          "reproduces the recording, else from the recording; the header says which.\n"
          "CAPTURE: files or folders of *.jsonl / *.jsonl.gz.\n"
          "\n"
          "  --name NAME  only this capture (\"workloads.matmul#3\"), or every call of a\n"
          "               workload when NAME has no \"#\" (\"workloads.matmul\"); repeatable\n"
          "  --item N     only schedule item N (from 0)\n"
          "  --recorded   always print the recording (do not run the C scheduler)\n"
          "  --json       one JSON object per capture: {\"name\", \"generation\", \"source\",\n"
          "               \"error\", \"kernels\": [{\"item\", \"repr\"}]}\n");
}

static void print_capture_json(const Capture *c, const Sched *s, AstOptions *o, StrBuf *out) {
  StrBuf text = {0};
  sb_puts(out, "{\"name\": ");
  json_str_lit(out, c->name);
  sb_printf(out, ", \"generation\": \"%s\", \"source\": \"%s\", \"error\": ", tg_version_name(c->generation),
            sched_source_word(s->source));
  const JVal *type = s->error ? json_get(s->error, "type") : NULL;
  if (type && type->kind == J_STR) json_str_lit(out, type->u.s);
  else sb_puts(out, "null");
  sb_puts(out, ", \"kernels\": [");
  const JVal *items = sched_items(s);
  bool first = true;
  for (size_t i = 0; items && i < items->n; i++) {
    if (o->has_item && i != o->item) continue;
    char err[256];
    text.n = 0;
    if (!ast_repr(&text, c->generation, json_get(items->u.arr[i], "ast"), err, sizeof err)) {
      fprintf(stderr, "tsched ast: %s item %zu: %s\n", c->name, i, err);
      o->failed = true;
      continue;
    }
    sb_printf(out, "%s{\"item\": %zu, \"repr\": ", first ? "" : ", ", i);
    json_str_lit(out, text.s ? text.s : "");
    sb_putc(out, '}');
    first = false;
  }
  sb_puts(out, "]}\n");
  sb_free(&text);
}

static void print_capture_text(const Capture *c, const Sched *s, AstOptions *o, StrBuf *out) {
  char src[700];
  const JVal *items = sched_items(s);
  if (s->error) {
    const JVal *type = json_get(s->error, "type"), *msg = json_get(s->error, "message");
    sb_printf(out, "=== %s  %s  raised %s: %s\n", c->name, tg_version_name(c->generation),
              type && type->kind == J_STR ? type->u.s : "?", msg && msg->kind == J_STR ? msg->u.s : "");
    return;
  }
  size_t n = items ? items->n : 0;
  sb_printf(out, "=== %s  %s  %zu kernel%s  %s\n", c->name, tg_version_name(c->generation), n, n == 1 ? "" : "s",
            sched_source_text(s, src, sizeof src));
  for (size_t i = 0; i < n; i++) {
    if (o->has_item && i != o->item) continue;
    sb_printf(out, "--- kernel %zu\n", i);
    char err[256];
    if (!ast_repr(out, c->generation, json_get(items->u.arr[i], "ast"), err, sizeof err)) {
      fprintf(stderr, "tsched ast: %s item %zu: %s\n", c->name, i, err);
      o->failed = true;
    }
    sb_putc(out, '\n');
  }
}

static bool visit(const Capture *c, Arena *a, void *ctx) {
  AstOptions *o = ctx;
  bool selected = o->nnames == 0;
  for (size_t i = 0; i < o->nnames && !selected; i++) selected = name_selected(c->name, o->names[i]);
  if (!selected) return true;
  Sched s;
  sched_of(c, a, o->recorded, &s);
  StrBuf out = {0};
  if (o->json) print_capture_json(c, &s, o, &out);
  else print_capture_text(c, &s, o, &out);
  sb_flush(&out, stdout);
  sb_free(&out);
  o->shown++;
  return true;
}

int cmd_ast(int argc, char **argv) {
  AstOptions o = {0};
  int first = 1;
  for (; first < argc && argv[first][0] == '-'; first++) {
    const char *arg = argv[first];
    if (is_flag(arg, "--help") || is_flag(arg, "-h")) { usage(stdout); return 0; }
    else if (is_flag(arg, "--recorded")) o.recorded = true;
    else if (is_flag(arg, "--json")) o.json = true;
    else if (is_flag(arg, "--name") && first + 1 < argc && o.nnames < 64) o.names[o.nnames++] = argv[++first];
    else if (is_flag(arg, "--item") && first + 1 < argc && parse_index(argv[first + 1], &o.item)) o.has_item = true, first++;
    else { fprintf(stderr, "tsched ast: bad option %s\n", arg); usage(stderr); return 2; }
  }
  if (first == argc) { usage(stderr); return 2; }
  size_t errors = walk_captures("ast", argc - first, argv + first, visit, &o);
  if (o.shown == 0) fprintf(stderr, "tsched ast: no capture%s\n", o.nnames ? " of that name" : "");
  return errors || o.failed || o.shown == 0 ? 1 : 0;
}
