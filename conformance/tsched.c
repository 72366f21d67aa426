/* tsched.c — the command-line tool: `tsched COMMAND ...`. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "replay.h"

int cmd_bench(int argc, char **argv);
int cmd_ls(int argc, char **argv);       /* tools/cmd_ls.c */
int cmd_ast(int argc, char **argv);      /* tools/cmd_ast.c */
int cmd_dot(int argc, char **argv);      /* tools/cmd_dot.c */
int cmd_explain(int argc, char **argv);  /* tools/cmd_explain.c */
int cmd_diff(int argc, char **argv);     /* tools/cmd_diff.c */
int cmd_compare(int argc, char **argv);  /* tools/cmd_compare.c */
int cmd_record(int argc, char **argv);   /* tools/cmd_record.c */
int cmd_trace(int argc, char **argv);    /* tools/cmd_trace.c */
int cmd_view(int argc, char **argv);     /* tools/cmd_view.c */

typedef struct { const char *name; int (*run)(int argc, char **argv); const char *summary; } Command;

static const Command commands[] = {
  {"replay", cmd_replay, "replay captures and compare with tinygrad's recorded schedules"},
  {"ls", cmd_ls, "list the captures of a recording: name, version, kernels, verdict"},
  {"bench", cmd_bench, "time each phase per capture against tinygrad's oracle_seconds"},
  {"ast", cmd_ast, "print kernel ASTs the way tinygrad prints them (LazyOp / UOp repr)"},
  {"diff", cmd_diff, "what changed between two recordings of the same workloads"},
  {"compare", cmd_compare, "a workload side by side per version, or a kernel-count table"},
  {"dot", cmd_dot, "the input graph as Graphviz DOT, clustered by kernel"},
  {"explain", cmd_explain, "why each buffer was realized and what each kernel fuses"},
  {"trace", cmd_trace, "the rewrite steps tinygrad recorded: each graph_rewrite and rule"},
  {"view", cmd_view, "one self-contained HTML page: graph, kernels and steps, versions side by side"},
  {"record", cmd_record, "record a Python program's schedules with a tinygrad checkout"},
};
enum { NCOMMANDS = sizeof commands / sizeof commands[0] };

static void usage(FILE *f) {
  fprintf(f,
          "NAME\n"
          "    tsched - tinygrad's scheduler in C, replayed against recordings of tinygrad\n"
          "\n"
          "SYNOPSIS\n"
          "    tsched COMMAND [OPTION]... [OPERAND]...\n"
          "    tsched help COMMAND\n"
          "    tsched --version\n"
          "\n"
          "DESCRIPTION\n"
          "    tsched reimplements create_schedule_with_vars of tinygrad's\n"
          "    engine/schedule.py for eight tinygrad versions and checks it against\n"
          "    captures: calls of the real scheduler recorded as JSON Lines\n"
          "    (*.jsonl, *.jsonl.gz; files or folders of them).\n"
          "\n"
          "COMMANDS\n");
  for (size_t i = 0; i < NCOMMANDS; i++) fprintf(f, "    %-9s %s\n", commands[i].name, commands[i].summary);
  fprintf(f,
          "\n"
          "    `tsched help COMMAND` (or `tsched COMMAND --help`) describes one.\n"
          "    Options may come anywhere among the operands; -- ends them.\n");
}

static const Command *find_command(const char *name) {
  for (size_t i = 0; i < NCOMMANDS; i++)
    if (strcmp(name, commands[i].name) == 0) return &commands[i];
  return NULL;
}

static int unknown_command(const char *name) {
  term_printf(stderr, "tsched: unknown command \"%s\" (see tsched --help)\n", name);
  return 2;
}

/* `tsched help [COMMAND]` */
static int help(int argc, char **argv) {
  if (argc < 2) { usage(stdout); return 0; }
  const Command *c = find_command(argv[1]);
  if (!c) return unknown_command(argv[1]);
  char *help_argv[] = {argv[1], "--help", NULL};
  return c->run(2, help_argv);
}

int main(int argc, char **argv) {
  if (argc < 2) { usage(stderr); return 2; }
  const char *cmd = argv[1];
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) { usage(stdout); return 0; }
  if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) { cli_print_version(stdout); return 0; }
  if (strcmp(cmd, "help") == 0) return help(argc - 1, argv + 1);
  if (cmd[0] == '-') {
    term_printf(stderr, "tsched: unknown option %s before the command (see tsched --help)\n", cmd);
    return 2;
  }
  const Command *c = find_command(cmd);
  return c ? c->run(argc - 1, argv + 1) : unknown_command(cmd);
}
