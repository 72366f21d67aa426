/* cli.c — the option parser, terminal output and data lookup every command
 * shares (cli.h). */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "version.h"

#ifndef TSCHED_VERSION
#define TSCHED_VERSION "0.1"
#endif

void cli_init(CliParser *p, const char *cmd, const CliOption *options, size_t noptions, void (*help)(FILE *f), int argc,
              char **argv) {
  memset(p, 0, sizeof *p);
  p->cmd = cmd;
  p->options = options;
  p->noptions = noptions;
  p->help = help;
  p->argc = argc;
  p->argv = argv;
  p->next = 1;
  p->status = -1;
  p->operands = calloc((size_t)argc + 1, sizeof *p->operands);
  if (!p->operands) abort();
}

const char **cli_list(CliParser *p) {
  for (int i = 0; i < CLI_MAX_LISTS; i++)
    if (!p->lists[i]) {
      p->lists[i] = calloc((size_t)p->argc + 1, sizeof *p->lists[i]);
      if (!p->lists[i]) abort();
      return p->lists[i];
    }
  abort(); /* a command asks for more lists than CLI_MAX_LISTS: a bug */
}

void cli_free(CliParser *p) {
  free(p->operands);
  for (int i = 0; i < CLI_MAX_LISTS; i++) free(p->lists[i]);
  memset(p, 0, sizeof *p);
}

static void vreport(const char *cmd, const char *fmt, va_list ap) {
  char msg[1024];
  vsnprintf(msg, sizeof msg, fmt, ap);
  term_printf(stderr, "tsched %s: %s (see tsched %s --help)\n", cmd, msg, cmd);
}

int cli_usage_error(const char *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport(cmd, fmt, ap);
  va_end(ap);
  return 2;
}

void cli_fail(CliParser *p, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport(p->cmd, fmt, ap);
  va_end(ap);
  p->status = 2;
}

static const CliOption *find_long(const CliParser *p, const char *name, size_t n) {
  for (size_t i = 0; i < p->noptions; i++)
    if (strlen(p->options[i].name) == n && strncmp(p->options[i].name, name, n) == 0) return &p->options[i];
  return NULL;
}

static const CliOption *find_short(const CliParser *p, char c) {
  for (size_t i = 0; i < p->noptions; i++)
    if (p->options[i].short_name == c) return &p->options[i];
  return NULL;
}

/* cli_fail for the parser: ends the parse */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static int bad(CliParser *p, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport(p->cmd, fmt, ap);
  va_end(ap);
  p->status = 2;
  return CLI_END;
}

/* --help: printed, and parsing ends with status 0 */
static int help(CliParser *p) {
  p->help(stdout);
  p->status = 0;
  return CLI_END;
}

/* "--name", "--name=VALUE" or "--name VALUE" (arg without its dashes) */
static int long_option(CliParser *p, const char *arg) {
  const char *eq = strchr(arg, '=');
  size_t n = eq ? (size_t)(eq - arg) : strlen(arg);
  if (n == 4 && strncmp(arg, "help", 4) == 0 && !eq) return help(p);
  const CliOption *o = find_long(p, arg, n);
  if (!o) return bad(p, "unknown option --%.*s", (int)n, arg);
  if (!o->value) {
    if (eq) return bad(p, "option --%s takes no value", o->name);
    return o->id;
  }
  if (eq) { p->value = eq + 1; return o->id; }
  if (p->next >= p->argc) return bad(p, "option --%s needs a value (%s)", o->name, o->value);
  p->value = p->argv[p->next++];
  return o->id;
}

/* The next short option of a cluster at p->cluster. */
static int short_option(CliParser *p) {
  char c = *p->cluster++;
  if (c == 'h') { p->cluster = NULL; return help(p); }
  const CliOption *o = find_short(p, c);
  if (!o) {
    p->cluster = NULL;
    return bad(p, "unknown option -%c", c);
  }
  if (!o->value) {
    if (!*p->cluster) p->cluster = NULL;
    return o->id;
  }
  if (*p->cluster) { /* "-Tpng" */
    p->value = p->cluster;
    p->cluster = NULL;
    return o->id;
  }
  p->cluster = NULL;
  if (p->next >= p->argc) return bad(p, "option -%c needs a value (%s)", c, o->value);
  p->value = p->argv[p->next++];
  return o->id;
}

int cli_next(CliParser *p) {
  p->value = NULL;
  if (p->status >= 0) return CLI_END;
  if (p->cluster) return short_option(p);
  while (p->next < p->argc) {
    const char *arg = p->argv[p->next++];
    if (p->operands_only || arg[0] != '-' || arg[1] == 0) { /* "-" alone is an operand */
      p->operands[p->noperands++] = (char *)arg;
      if (p->stop_at_operand) p->operands_only = true;
    } else if (arg[1] == '-' && arg[2] == 0) {
      p->operands_only = true;
    } else if (arg[1] == '-') {
      return long_option(p, arg + 2);
    } else {
      p->cluster = arg + 1;
      return short_option(p);
    }
  }
  return CLI_END;
}

bool cli_index(CliParser *p, const char *option, size_t lo, size_t hi, size_t *out) {
  const char *s = p->value;
  char *end = NULL;
  errno = 0;
  bool digits = *s >= '0' && *s <= '9';
  unsigned long long v = digits ? strtoull(s, &end, 10) : 0;
  if (!digits || *end || errno || v < lo || v > hi) {
    if (lo == 0 && hi == SIZE_MAX) cli_fail(p, "%s wants a non-negative integer, not \"%s\"", option, s);
    else cli_fail(p, "%s wants an integer from %zu to %zu, not \"%s\"", option, lo, hi, s);
    return false;
  }
  *out = (size_t)v;
  return true;
}

bool cli_seconds(CliParser *p, const char *option, double *out) {
  const char *s = p->value;
  char *end;
  double v = strtod(s, &end);
  if (!*s || *end || !(v >= 0) || v > 1e9) {
    cli_fail(p, "%s wants a number of seconds, not \"%s\"", option, s);
    return false;
  }
  *out = v;
  return true;
}

/* ---- terminal output ---- */

/* The length of the UTF-8 C1 control character (U+0080..U+009F) at s, or 0. */
static size_t c1_control(const unsigned char *s, size_t left) {
  return left >= 2 && s[0] == 0xC2 && s[1] >= 0x80 && s[1] <= 0x9F ? 2 : 0;
}

void term_write(FILE *f, const char *s, size_t n) {
  const unsigned char *u = (const unsigned char *)s;
  size_t plain = 0; /* start of the run not yet written */
  for (size_t i = 0; i < n; i++) {
    unsigned char ch = u[i];
    size_t c1 = ch == 0xC2 ? c1_control(u + i, n - i) : 0;
    bool control = (ch < 0x20 && ch != '\n' && ch != '\t') || ch == 0x7f || c1;
    if (!control) continue;
    fwrite(s + plain, 1, i - plain, f);
    if (c1) fprintf(f, "\\u%04x", u[i + 1]);
    else fprintf(f, "\\x%02x", ch);
    i += c1 ? 1 : 0;
    plain = i + 1;
  }
  fwrite(s + plain, 1, n - plain, f);
}

void term_printf(FILE *f, const char *fmt, ...) {
  char small[1024], *text = small;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n >= sizeof small) {
    text = malloc((size_t)n + 1);
    if (!text) abort();
    va_start(ap, fmt);
    vsnprintf(text, (size_t)n + 1, fmt, ap);
    va_end(ap);
  }
  term_write(f, text, (size_t)n);
  if (text != small) free(text);
}

void cli_print_version(FILE *f) {
  fprintf(f, "tsched %s (tinygrad %s", TSCHED_VERSION, tg_version_name((TgVersion)0));
  for (int v = 1; v < TG_NVERSIONS; v++) fprintf(f, ", %s", tg_version_name((TgVersion)v));
  fprintf(f, ")\n");
}

/* ---- data ---- */

static bool exists(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0;
}

/* The folder holding the running program, or "" */
static void program_dir(char *buf, size_t bufsize) {
  ssize_t n = readlink("/proc/self/exe", buf, bufsize - 1);
  buf[n > 0 ? n : 0] = 0;
  char *slash = strrchr(buf, '/');
  if (slash) *slash = 0;
  else buf[0] = 0;
}

const char *cli_find_data(const char *rel, char *buf, size_t bufsize, char *looked, size_t lookedsize) {
  char dir[PATH_MAX];
  program_dir(dir, sizeof dir);
  const char *places[3][2] = {{"", ""}, {dir, "/../share/tsched/"}, {"", ""}};
#ifdef TSCHED_SOURCE_DIR
  places[2][0] = TSCHED_SOURCE_DIR;
  places[2][1] = "/";
#endif
  size_t used = 0;
  if (lookedsize) looked[0] = 0;
  for (int i = 0; i < 3; i++) {
    if (i > 0 && !places[i][0][0]) continue;
    snprintf(buf, bufsize, "%s%s%s", places[i][0], places[i][1], rel);
    if (exists(buf)) return buf;
    if (used < lookedsize) used += (size_t)snprintf(looked + used, lookedsize - used, "%s%s", used ? ", " : "", buf);
  }
  return NULL;
}
