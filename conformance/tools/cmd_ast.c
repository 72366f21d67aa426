/* cmd_ast.c — `tsched ast CAPTURE...`: each kernel's AST printed the way
 * that tinygrad version prints repr(si.ast), to read next to tinygrad's own
 * DEBUG output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "pyrepr.h"
#include "tools.h"

typedef struct AstOptions {
  const char **names;    /* none: every capture */
  size_t nnames;
  bool has_item, recorded, json;
  size_t item;
  size_t limit;          /* bytes of text one capture may print */
  size_t shown;
  bool failed;
} AstOptions;

static void usage(FILE *f) {
  fprintf(f,
          "NAME\n"
          "    tsched ast - print kernel ASTs the way tinygrad prints them\n"
          "\n"
          "SYNOPSIS\n"
          "    tsched ast [OPTION]... CAPTURE...\n"
          "\n"
          "DESCRIPTION\n"
          "    Prints each kernel's AST the way that tinygrad version prints\n"
          "    repr(si.ast): 0.9.x as a tuple of LazyOp(op=..., src=(...), arg=...),\n"
          "    0.10.x as UOp(Ops.X, dtypes.y, arg=..., src=(...)) through pretty_print\n"
          "    (indented, shared nodes as x1:=). The schedule comes from the tsched\n"
          "    scheduler when it reproduces the recording, else from the recording; the\n"
          "    header says which. CAPTURE: files or folders of *.jsonl / *.jsonl.gz.\n"
          "\n"
          "OPTIONS\n"
          "    -n, --name NAME\n"
          "        only this capture (\"workloads.matmul#3\"), or every call of a workload\n"
          "        when NAME has no \"#\" (\"workloads.matmul\"); may be repeated\n"
          "    -i, --item N\n"
          "        only schedule item N (from 0); a capture with fewer items is an error\n"
          "    -r, --recorded\n"
          "        always print the recording (do not run the C scheduler)\n"
          "    -j, --json\n"
          "        one JSON object per capture: {\"name\", \"generation\", \"source\",\n"
          "        \"error\", \"kernels\": [{\"item\", \"repr\"}]}\n"
          "    --limit MIB\n"
          "        print at most MIB MiB of text per capture (default 256): tinygrad's repr\n"
          "        of a deep graph grows with the square of its depth, and a shared\n"
          "        sub-tree prints once per use; a text cut short is an error\n"
          "    -h, --help\n"
          "        this text\n"
          "\n"
          "EXIT STATUS\n"
          "    0 printed, 1 no capture selected, an --item out of range, a text past\n"
          "    --limit, or a file or line that could not be read, 2 wrong usage\n"
          "\n"
          "EXAMPLES\n"
          "    tsched ast -n 'workloads.casts#1' conformance/corpus/v0.10.2-workloads.jsonl.gz\n");
}

/* --item past the capture's schedule: an error, said once per capture */
static bool item_in_range(const Capture *c, size_t nitems, AstOptions *o) {
  if (!o->has_item || o->item < nitems) return true;
  term_printf(stderr, "tsched ast: %s has %zu kernel%s, no kernel %zu\n", c->name, nitems, nitems == 1 ? "" : "s", o->item);
  o->failed = true;
  return false;
}

/* A repr cut short at the limit: said once, an error */
static void cut_short(const Capture *c, AstOptions *o) {
  term_printf(stderr, "tsched ast: %s: the text is longer than --limit %zu MiB: cut short\n", c->name, o->limit >> 20);
  o->failed = true;
}

static void print_capture_json(const Capture *c, const Sched *s, AstOptions *o, StrBuf *out) {
  StrBuf text = {.limit = o->limit};
  sb_puts(out, "{\"name\": ");
  json_str_lit(out, c->name);
  sb_printf(out, ", \"generation\": \"%s\", \"source\": \"%s\", \"error\": ", tg_version_name(c->generation),
            sched_source_word(s->source));
  const JVal *type = s->error ? json_get(s->error, "type") : NULL;
  if (type && type->kind == J_STR) json_str_lit(out, type->u.s);
  else sb_puts(out, "null");
  sb_puts(out, ", \"kernels\": [");
  const JVal *items = sched_items(s);
  if (!s->error) item_in_range(c, items ? items->n : 0, o);
  bool first = true;
  for (size_t i = 0; items && i < items->n; i++) {
    if (o->has_item && i != o->item) continue;
    char err[256];
    text.n = 0;
    if (!ast_repr(&text, c->generation, json_get(items->u.arr[i], "ast"), err, sizeof err)) {
      term_printf(stderr, "tsched ast: %s item %zu: %s\n", c->name, i, err);
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
  if (!item_in_range(c, n, o)) return;
  sb_printf(out, "=== %s  %s  %zu kernel%s  %s\n", c->name, tg_version_name(c->generation), n, n == 1 ? "" : "s",
            sched_source_text(s, src, sizeof src));
  for (size_t i = 0; i < n && !out->over; i++) {
    if (o->has_item && i != o->item) continue;
    sb_printf(out, "--- kernel %zu\n", i);
    char err[256];
    if (!ast_repr(out, c->generation, json_get(items->u.arr[i], "ast"), err, sizeof err)) {
      term_printf(stderr, "tsched ast: %s item %zu: %s\n", c->name, i, err);
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
  StrBuf out = {.sink = o->json ? NULL : stdout, .limit = o->json ? 0 : o->limit}; /* text streams out as it grows */
  if (o->json) print_capture_json(c, &s, o, &out);
  else print_capture_text(c, &s, o, &out);
  sb_flush(&out, stdout);
  if (out.over) {
    fputs("\n", stdout);
    cut_short(c, o);
  }
  sb_free(&out);
  o->shown++;
  return true;
}

enum { OPT_NAME, OPT_ITEM, OPT_RECORDED, OPT_JSON, OPT_LIMIT };
static const CliOption options[] = {
  {"name", 'n', "NAME", OPT_NAME},
  {"item", 'i', "N", OPT_ITEM},
  {"recorded", 'r', NULL, OPT_RECORDED},
  {"json", 'j', NULL, OPT_JSON},
  {"limit", 0, "MIB", OPT_LIMIT},
};

int cmd_ast(int argc, char **argv) {
  AstOptions o = {.limit = (size_t)256 << 20};
  CliParser p;
  size_t mib;
  cli_init(&p, "ast", options, sizeof options / sizeof options[0], usage, argc, argv);
  o.names = cli_list(&p);
  for (int id; (id = cli_next(&p)) != CLI_END;) {
    switch (id) {
      case OPT_NAME: o.names[o.nnames++] = p.value; break;
      case OPT_ITEM: o.has_item = cli_index(&p, "--item", 0, SIZE_MAX, &o.item); break;
      case OPT_RECORDED: o.recorded = true; break;
      case OPT_JSON: o.json = true; break;
      case OPT_LIMIT:
        if (cli_index(&p, "--limit", 1, (size_t)1 << 20, &mib)) o.limit = mib << 20;
        break;
    }
  }
  if (p.status < 0 && p.noperands == 0) cli_fail(&p, "no CAPTURE given");
  int status = p.status;
  if (status < 0) {
    size_t errors = walk_captures("ast", p.noperands, p.operands, visit, &o);
    if (o.shown == 0) term_printf(stderr, "tsched ast: no capture%s\n", o.nnames ? " of that name" : "");
    status = errors || o.failed || o.shown == 0 ? 1 : 0;
  }
  cli_free(&p);
  return status;
}
