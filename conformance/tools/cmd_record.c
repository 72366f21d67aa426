/* cmd_record.c — `tsched record --tinygrad CHECKOUT --out FILE PROG.py
 * [ARG]...`: runs a Python program against a tinygrad checkout through the
 * recorder (conformance/oracle/record.py --script) and writes its captures. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

static void usage(FILE *f) {
  fprintf(f,
          "NAME\n"
          "    tsched record - record a Python program's schedules with a tinygrad checkout\n"
          "\n"
          "SYNOPSIS\n"
          "    tsched record [OPTION]... --tinygrad CHECKOUT --out FILE PROGRAM [ARG]...\n"
          "\n"
          "DESCRIPTION\n"
          "    Runs PROGRAM (a Python file, with its ARGs) against the tinygrad checkout\n"
          "    CHECKOUT and writes one capture per call of tinygrad's scheduler to FILE\n"
          "    (.jsonl, or gzipped when it ends in .gz), named PROGRAM's name without\n"
          "    .py, then #0, #1, ... in call order. The program runs in the current\n"
          "    folder as `python3 PROGRAM ARG...` would, with PYTHONHASHSEED=0 and the\n"
          "    random generators seeded, so that a recording is the same each time.\n"
          "    The recorder is conformance/oracle/record.py (--script), found in the\n"
          "    source tree or the installed data; Python 3 with numpy is needed, and\n"
          "    nothing of the checkout is changed or copied.\n"
          "\n"
          "    Options end at PROGRAM: what follows it is the program's.\n"
          "\n"
          "OPTIONS\n"
          "    -t, --tinygrad CHECKOUT\n"
          "        the tinygrad checkout (its folder, holding tinygrad/)\n"
          "    -o, --out FILE\n"
          "        where the captures go\n"
          "    --name NAME\n"
          "        name the captures NAME#0, NAME#1, ... (default: PROGRAM's name)\n"
          "    --python PYTHON\n"
          "        the Python to run (default: $TSCHED_PYTHON, else python3); it needs\n"
          "        numpy, as tinygrad does\n"
          "    -h, --help\n"
          "        this text\n"
          "\n"
          "EXIT STATUS\n"
          "    the recorder's: 0 recorded, non-zero when the program or the recorder\n"
          "    failed; 2 wrong usage\n"
          "\n"
          "EXAMPLES\n"
          "    for v in 0.9.1 0.10.0 0.10.2; do\n"
          "      tsched record -t ~/tinygrad-$v -o mine-$v.jsonl.gz mine.py --steps 2; done\n"
          "    tsched compare -n mine mine-*.jsonl.gz\n");
}

enum { OPT_TINYGRAD, OPT_OUT, OPT_NAME, OPT_PYTHON };
static const CliOption options[] = {
  {"tinygrad", 't', "CHECKOUT", OPT_TINYGRAD},
  {"out", 'o', "FILE", OPT_OUT},
  {"name", 0, "NAME", OPT_NAME},
  {"python", 0, "PYTHON", OPT_PYTHON},
};

int cmd_record(int argc, char **argv) {
  const char *tinygrad = NULL, *out = NULL, *name = NULL, *python = getenv("TSCHED_PYTHON");
  if (!python || !*python) python = "python3";
  CliParser p;
  cli_init(&p, "record", options, sizeof options / sizeof options[0], usage, argc, argv);
  p.stop_at_operand = true;
  for (int id; (id = cli_next(&p)) != CLI_END;) {
    switch (id) {
      case OPT_TINYGRAD: tinygrad = p.value; break;
      case OPT_OUT: out = p.value; break;
      case OPT_NAME: name = p.value; break;
      case OPT_PYTHON: python = p.value; break;
    }
  }
  if (p.status < 0 && !tinygrad) cli_fail(&p, "--tinygrad CHECKOUT is needed");
  if (p.status < 0 && !out) cli_fail(&p, "--out FILE is needed");
  if (p.status < 0 && p.noperands == 0) cli_fail(&p, "no PROGRAM given");
  if (p.status >= 0) {
    int status = p.status;
    cli_free(&p);
    return status;
  }
  char recorder[4096], looked[4096];
  if (!cli_find_data("conformance/oracle/record.py", recorder, sizeof recorder, looked, sizeof looked)) {
    term_printf(stderr, "tsched record: the recorder was not found (looked for %s)\n", looked);
    cli_free(&p);
    return 1;
  }
  /* python3 record.py --tinygrad C --out F [--name N] --script PROGRAM ARG... */
  size_t n = 0, nargs = (size_t)p.noperands + 10;
  char **args = calloc(nargs, sizeof *args);
  if (!args) abort();
  args[n++] = (char *)python;
  args[n++] = recorder;
  args[n++] = "--tinygrad", args[n++] = (char *)tinygrad;
  args[n++] = "--out", args[n++] = (char *)out;
  if (name) args[n++] = "--name", args[n++] = (char *)name;
  args[n++] = "--script";
  for (int i = 0; i < p.noperands; i++) args[n++] = p.operands[i];
  args[n] = NULL;
  fflush(stdout);
  execvp(python, args);
  term_printf(stderr, "tsched record: cannot run %s: %s\n", python, strerror(errno));
  free(args);
  cli_free(&p);
  return 1;
}
