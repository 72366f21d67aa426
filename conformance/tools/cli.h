/* cli.h — what every command shares at the command line: one option parser
 * (getopt_long's conventions), the help texts, and writing names and
 * messages to a terminal with their control characters escaped.
 *
 * Options. They may come anywhere among the operands; "--" ends them (what
 * follows is operands, even "-x"); a long option takes its value as
 * "--name=VALUE" or "--name VALUE", a short one as "-nVALUE" or "-n VALUE";
 * short flags cluster ("-vj"). An unknown option, a missing value, or a
 * value given to a flag is one line on stderr, and the command exits 2.
 * Every command also knows -h/--help (its man-style text on stdout). */
#ifndef TSCHED_CLI_H
#define TSCHED_CLI_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct CliOption {
  const char *name;   /* long form without the dashes: "name" */
  char short_name;    /* 'n', or 0 when there is none */
  const char *value;  /* the value's placeholder ("NAME"); NULL for a flag */
  int id;             /* what cli_next returns for it (>= 0) */
} CliOption;

enum { CLI_END = -1 };    /* what cli_next returns when there is no option left */
enum { CLI_MAX_LISTS = 4 };

typedef struct CliParser {
  const char *cmd;            /* "replay", for messages */
  const CliOption *options;
  size_t noptions;
  void (*help)(FILE *f);      /* the command's --help text */
  int argc, next;             /* argv[next] is the next argument to look at */
  char **argv;
  const char *cluster;        /* the rest of a cluster of short flags, or NULL */
  bool operands_only;         /* after "--" */
  bool stop_at_operand;       /* the first operand ends the options (a program and its
                               * arguments follow: `tsched record ... prog.py --its-flag`) */
  const char *value;          /* the value of the option just returned */
  char **operands;            /* the operands, in order */
  int noperands;
  int status;                 /* -1 while parsing goes on; else the exit status the
                               * command returns now (0 after --help, 2 on a usage error) */
  const char **lists[CLI_MAX_LISTS]; /* cli_list's */
} CliParser;

/* argv[0] is the command's name; parsing starts at argv[1]. */
void cli_init(CliParser *p, const char *cmd, const CliOption *options, size_t noptions, void (*help)(FILE *f), int argc,
              char **argv);
/* The next option's id (>= 0), or CLI_END: at the end of the arguments
 * (p->status -1), after printing --help (0), or after a usage error (2).
 * Operands are collected in p->operands. */
int cli_next(CliParser *p);
/* A list of values with room for every argument (for a repeatable option),
 * zeroed, freed by cli_free. */
const char **cli_list(CliParser *p);
void cli_free(CliParser *p);

/* Reports "tsched CMD: MESSAGE" plus a pointer to --help on stderr and
 * returns 2 (a usage error). */
int cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;

/* A non-negative integer option value (item numbers, counts) in [lo, hi];
 * when it is not one, reports it and sets p->status to 2. */
bool cli_index(CliParser *p, const char *option, size_t lo, size_t hi, size_t *out);
/* A number of seconds (>= 0), likewise. */
bool cli_seconds(CliParser *p, const char *option, double *out);
/* A usage error found by the command (p->status 2). */
void cli_fail(CliParser *p, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;

/* printf to f, every control character of the text (but newline and tab)
 * written as an escape ("\x1b", "\u0085"): names and messages come from
 * captures and must not drive a terminal. */
void term_printf(FILE *f, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;
/* The same for n bytes of text. */
void term_write(FILE *f, const char *s, size_t n);

/* The program's version line: "tsched 0.1 (tinygrad 0.9.1 ... 0.10.2+a0b4465)". */
void cli_print_version(FILE *f);

/* The folder of the running program's data (an installed tsched's
 * share/tsched, or the source tree it was built from) holding `rel`
 * ("conformance/corpus"): written into buf and returned; NULL with the
 * places looked at in `looked` when none has it. */
const char *cli_find_data(const char *rel, char *buf, size_t bufsize, char *looked, size_t lookedsize);
#endif
