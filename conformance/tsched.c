/* tsched.c — the command-line tool: `tsched COMMAND ...`. */
#include <stdio.h>
#include <string.h>
#include "replay.h"

int cmd_bench(int argc, char **argv);
int cmd_ast(int argc, char **argv);      /* tools/cmd_ast.c */
int cmd_dot(int argc, char **argv);      /* tools/cmd_dot.c */
int cmd_explain(int argc, char **argv);  /* tools/cmd_explain.c */
int cmd_diff(int argc, char **argv);     /* tools/cmd_diff.c */
int cmd_compare(int argc, char **argv);  /* tools/cmd_compare.c */

typedef struct { const char *name; int (*run)(int argc, char **argv); const char *summary; } Command;

static const Command commands[] = {
  {"replay", cmd_replay, "replay captures and compare with tinygrad's recorded schedules"},
  {"bench", cmd_bench, "time each phase per capture against tinygrad's oracle_seconds"},
  {"ast", cmd_ast, "print kernel ASTs the way tinygrad prints them (LazyOp / UOp repr)"},
  {"diff", cmd_diff, "what changed between two recordings of the same workloads"},
  {"compare", cmd_compare, "a workload side by side per generation, or a kernel-count table"},
  {"dot", cmd_dot, "the input graph as Graphviz DOT, clustered by kernel"},
  {"explain", cmd_explain, "why each buffer was realized and what each kernel fuses"},
};

static void usage(FILE *f) {
  fprintf(f, "usage: tsched COMMAND [--help] ...\n\ntsched: tinygrad's scheduler (0.9.1, 0.10.0, 0.10.2) in C.\n\ncommands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
}

int main(int argc, char **argv) {
  if (argc < 2) { usage(stderr); return 2; }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) { usage(stdout); return 0; }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp(argv[1], commands[i].name) == 0) return commands[i].run(argc - 1, argv + 1);
  fprintf(stderr, "tsched: unknown command \"%s\"\n", argv[1]);
  usage(stderr);
  return 2;
}
