/* replay.c — `tsched replay PATH...`: every capture through its generation's
 * scheduler, compared with the recording; one line per failure and a
 * pass / fail / unsupported summary per generation. */
#define _POSIX_C_SOURCE 200809L
#include "replay.h"
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "cli.h"
#include "compare.h"
#include "conformance/schedulers.h"
#include "jobs.h"
#include "tools.h"
#include "trace.h"

double now_seconds(void) { return phase_clock(); }

/* The capture's schedule is compared item by item while it is encoded (a
 * ScheduleCompare as the ResultSink, scheduler.h), the rest of the result
 * after the scheduler returns. compare_seconds counts both; the sink's part
 * is not in schedule_seconds. */
void replay_capture(const Capture *c, Arena *a, Outcome *o) { replay_capture_traced(c, a, NULL, o); }

void replay_capture_traced(const Capture *c, Arena *a, TraceCatch *tc, Outcome *o) {
  memset(o, 0, sizeof *o);
  ScheduleCaptureFn fn = scheduler_for(c->generation);
  if (!fn) {
    o->kind = OUT_UNSUPPORTED;
    snprintf(o->why, sizeof o->why, "tsched has no scheduler for version %s yet", tg_version_name(c->generation));
    return;
  }
  Status st = {0};
  JVal *result = NULL;
  bool expects_error = c->error && c->error->kind == J_OBJ;
  ScheduleCompare sc;
  schedule_compare_init(&sc, a, c->generation, expects_error ? NULL : c->expected);
  if (tc) sc.sink.trace = trace_catch, sc.sink.trace_ctx = tc;
  double t0 = now_seconds();
  phase_reset();
  result_sink_set(&sc.sink);
  bool ok = fn(c, a, &result, &st);
  result_sink_set(NULL);
  phase_finish();
  double t1 = now_seconds();
  o->schedule_seconds = t1 - t0 - phase_seconds(PHASE_COMPARE);
  o->compare_seconds = phase_seconds(PHASE_COMPARE);
  if (!ok && st.kind == ST_UNSUPPORTED) {
    o->kind = OUT_UNSUPPORTED;
    snprintf(o->why, sizeof o->why, "%s", st.msg);
    return;
  }
  if (!ok && st.kind == ST_BAD_INPUT) {
    o->kind = OUT_ERROR;
    snprintf(o->why, sizeof o->why, "%s", st.msg);
    return;
  }
  const JVal *etype = expects_error ? json_get(c->error, "type") : NULL;
  if (etype && etype->kind == J_STR && strcmp(etype->u.s, "RecursionError") == 0 && !(!ok && strcmp(st.type, "RecursionError") == 0)) {
    /* tinygrad ran out of Python stack (sys.setrecursionlimit); the contract
     * lets a replayer not reproduce that, so it is neither pass nor fail. */
    o->kind = OUT_UNSUPPORTED;
    snprintf(o->why, sizeof o->why, "tinygrad raised RecursionError (Python's stack limit), which a replayer need not reproduce");
    return;
  }
  if (!ok) { /* the scheduler raised */
    if (!expects_error) {
      o->kind = OUT_FAIL;
      snprintf(o->why, sizeof o->why, "raised %s: %.1500s (tinygrad did not)", st.type, st.msg);
      return;
    }
    o->kind = compare_error(c->error, st.type, st.msg, o->why, sizeof o->why) ? OUT_PASS : OUT_FAIL;
    o->compare_seconds += now_seconds() - t1;
    return;
  }
  if (expects_error) {
    const JVal *type = json_get(c->error, "type");
    o->kind = OUT_FAIL;
    snprintf(o->why, sizeof o->why, "expected %s, but scheduling succeeded", type && type->kind == J_STR ? type->u.s : "an error");
    return;
  }
  bool same = compare_expected_sunk(a, &sc, c->expected, result, o->why, sizeof o->why);
  o->kind = same ? OUT_PASS : sc.bad_input ? OUT_ERROR : OUT_FAIL;
  o->compare_seconds += now_seconds() - t1;
}

/* ---- collecting files ---- */

typedef struct { char **items; size_t n, cap; } PathList;

static void push_path(PathList *l, const char *p) {
  if (l->n == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 16;
    char **bigger = realloc(l->items, l->cap * sizeof *bigger);
    if (!bigger) abort();
    l->items = bigger;
  }
  l->items[l->n++] = strdup(p);
  if (!l->items[l->n - 1]) abort();
}

static bool is_capture_name(const char *name) {
  size_t n = strlen(name);
  return (n > 6 && strcmp(name + n - 6, ".jsonl") == 0) || (n > 9 && strcmp(name + n - 9, ".jsonl.gz") == 0);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The folders walked so far, by device and inode: a folder reached again
 * (through a symbolic link, when links are followed) is a loop. */
typedef struct { struct { dev_t dev; ino_t ino; } *items; size_t n, cap; } FolderSet;

static bool folder_seen(FolderSet *s, const struct stat *sb) {
  for (size_t i = 0; i < s->n; i++)
    if (s->items[i].dev == sb->st_dev && s->items[i].ino == sb->st_ino) return true;
  if (s->n == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 16;
    void *bigger = realloc(s->items, s->cap * sizeof *s->items);
    if (!bigger) abort();
    s->items = bigger;
  }
  s->items[s->n].dev = sb->st_dev;
  s->items[s->n++].ino = sb->st_ino;
  return false;
}

/* The entries of folder p worth walking: folders and regular files named
 * *.jsonl / *.jsonl.gz (symbolic links to them when follow_links), pushed
 * on todo. False when the folder cannot be read. */
static bool list_folder(const char *p, bool follow_links, PathList *todo) {
  DIR *d = opendir(p);
  if (!d) return false;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char *child = malloc(strlen(p) + strlen(e->d_name) + 2);
    if (!child) abort();
    sprintf(child, "%s/%s", p, e->d_name);
    struct stat cs;
    bool ok = (follow_links ? stat(child, &cs) : lstat(child, &cs)) == 0;
    if (ok && (S_ISDIR(cs.st_mode) || (S_ISREG(cs.st_mode) && is_capture_name(e->d_name)))) push_path(todo, child);
    free(child);
  }
  closedir(d);
  return true;
}

/* Folders are walked with an explicit work list (no recursion). */
size_t collect_capture_files(const char *cmd, int npaths, char **paths, bool follow_links, char ***out, size_t *errors) {
  PathList files = {0}, todo = {0};
  FolderSet seen = {0};
  for (int i = npaths - 1; i >= 0; i--) push_path(&todo, paths[i]);
  while (todo.n) {
    char *p = todo.items[--todo.n];
    struct stat sb;
    if (stat(p, &sb) != 0) {
      term_printf(stderr, "tsched %s: %s: %s\n", cmd, p, errno == ENOENT ? "no such file or folder" : strerror(errno));
      (*errors)++;
    } else if (!S_ISDIR(sb.st_mode)) {
      push_path(&files, p); /* named on the command line, or a regular file found in a folder */
    } else if (folder_seen(&seen, &sb)) {
      term_printf(stderr, "tsched %s: %s: a folder already walked (a loop of symbolic links?): skipped\n", cmd, p);
    } else if (!list_folder(p, follow_links, &todo)) {
      term_printf(stderr, "tsched %s: %s: cannot read folder: %s\n", cmd, p, strerror(errno));
      (*errors)++;
    }
    free(p);
  }
  free(todo.items);
  free(seen.items);
  if (files.n) qsort(files.items, files.n, sizeof *files.items, cmp_str);
  *out = files.items;
  return files.n;
}

void free_paths(char **paths, size_t n) {
  for (size_t i = 0; i < n; i++) free(paths[i]);
  free(paths);
}

/* ---- the command ---- */

typedef struct {
  size_t pass, fail, unsupported, errors;
  size_t trace_same, trace_differ, trace_none;   /* --trace: steps as recorded, not, no trace to compare */
  double seconds;
} Tally;

/* Known failures: capture names listed in files given with --known-failures.
 * They still count as fail in every total; they only stop the exit status
 * from going red for a failure already on record (a regression guard). A
 * file named after a version (`0.10.2+a0b4465.txt`) lists that version's
 * captures only; any other file's names hold for every version. */
typedef struct { char **names; int *gens; size_t n, cap; } KnownFailures;

static void known_add(KnownFailures *k, int gen, const char *name, size_t len) {
  if (k->n == k->cap) {
    k->cap = k->cap ? k->cap * 2 : 64;
    char **bigger = realloc(k->names, k->cap * sizeof *bigger);
    if (!bigger) abort();
    k->names = bigger;
    int *more = realloc(k->gens, k->cap * sizeof *more);
    if (!more) abort();
    k->gens = more;
  }
  k->gens[k->n] = gen;
  k->names[k->n] = malloc(len + 1);
  if (!k->names[k->n]) abort();
  memcpy(k->names[k->n], name, len);
  k->names[k->n++][len] = 0;
}

/* The version a known-failures file is named after ("dir/0.9.1.txt"), or -1. */
static int known_file_version(const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t len = strlen(base);
  if (len < 5 || strcmp(base + len - 4, ".txt") != 0 || len - 4 >= 32) return -1;
  char name[32];
  memcpy(name, base, len - 4);
  name[len - 4] = 0;
  return tg_version_parse(name);
}

/* One capture name per line; a '#' at the line's start or after a blank starts a comment. */
static bool known_load(KnownFailures *k, const char *path) {
  int gen = known_file_version(path);
  FILE *f = fopen(path, "r");
  if (!f) { term_printf(stderr, "tsched replay: --known-failures %s: %s\n", path, strerror(errno)); return false; }
  char line[4096];
  while (fgets(line, sizeof line, f)) {
    char *hash = line; /* a comment starts at a '#' that opens the line or follows a blank (names hold "#N") */
    while ((hash = strchr(hash, '#')) && hash != line && hash[-1] != ' ' && hash[-1] != '\t') hash++;
    if (hash) *hash = 0;
    size_t len = strlen(line);
    while (len && (line[len - 1] == '\n' || line[len - 1] == ' ' || line[len - 1] == '\t' || line[len - 1] == '\r')) len--;
    char *start = line;
    while (*start == ' ' || *start == '\t') start++, len--;
    if ((ptrdiff_t)len > 0) known_add(k, gen, start, len);
  }
  fclose(f);
  return true;
}

static bool known_has(const KnownFailures *k, int gen, const char *name) {
  for (size_t i = 0; i < k->n; i++)
    if ((k->gens[i] < 0 || k->gens[i] == gen) && strcmp(k->names[i], name) == 0) return true;
  return false;
}

static void known_free(KnownFailures *k) {
  for (size_t i = 0; i < k->n; i++) free(k->names[i]);
  free(k->names);
  free(k->gens);
}

static void usage(FILE *f) {
  fprintf(f,
          "NAME\n"
          "    tsched replay - replay captures and compare with tinygrad's recorded schedules\n"
          "\n"
          "SYNOPSIS\n"
          "    tsched replay [OPTION]... PATH...\n"
          "\n"
          "DESCRIPTION\n"
          "    Replays every capture in PATH (files, or folders walked for *.jsonl and\n"
          "    *.jsonl.gz) with the scheduler of its tinygrad version and compares the\n"
          "    result with what tinygrad recorded, structurally and in order. Prints one\n"
          "    line per failed capture (FAIL, with its first difference) and per line\n"
          "    that cannot be read (ERROR), then per version the totals: pass, fail,\n"
          "    unsupported (what tsched cannot represent yet, with no scheduler for the\n"
          "    version among them) and errors, and the time taken.\n"
          "\n"
          "    In folders, symbolic links are not followed (unless --follow), and only\n"
          "    regular files are read; a folder that cannot be read is an error.\n"
          "\n"
          "OPTIONS\n"
          "    -j, --json\n"
          "        JSON Lines on stdout instead of text: one object per failed, erroneous\n"
          "        (and with --verbose unsupported) capture,\n"
          "        {\"type\": \"fail\"|\"error\"|\"unsupported\", \"file\", \"line\", \"name\",\n"
          "        \"generation\", \"why\"}, then one per version,\n"
          "        {\"type\": \"total\", \"generation\", \"pass\", \"fail\", \"unsupported\",\n"
          "        \"errors\", \"seconds\"}.\n"
          "    -v, --verbose\n"
          "        also list each unsupported capture with its reason\n"
          "    -t, --trace\n"
          "        also compare the C scheduler's rewrite steps with the ones tinygrad\n"
          "        recorded (the companion trace file, `tsched help trace`) call by\n"
          "        call and step by step: one TRACE line per capture whose steps\n"
          "        differ, naming the first differing step, and per version the\n"
          "        captures whose steps are the same, differ, or have no recorded\n"
          "        trace (or no C trace: a version whose scheduler does not trace).\n"
          "        Where tinygrad raised RecursionError its steps need only begin\n"
          "        tsched's. A differing trace makes the exit status 1 unless it is listed as\n"
          "        trace:NAME in a --known-failures file\n"
          "    --known-failures FILE\n"
          "        capture names (one per line, # at a line's start or after a blank starts\n"
          "        a comment; trace:NAME for --trace) whose failure is on\n"
          "        record: still counted and printed as fail, but they do not make the\n"
          "        exit status 1 (may be given several times)\n"
          "    --allow-empty\n"
          "        exit 0 when nothing was checked (see EXIT STATUS)\n"
          "    -L, --follow\n"
          "        follow symbolic links in folders (a folder reached twice is skipped)\n"
          "    --jobs N\n"
          "        replay with N worker processes (1 to 64; default: the processors\n"
          "        tsched may run on). The workers share out each file's captures\n"
          "        (each holds the file it reads; a pipe or FIFO is read by the main\n"
          "        process); what is printed and counted, and its order, is what one\n"
          "        process gives. A version's seconds are its captures' times added up.\n"
          "    -h, --help\n"
          "        this text\n"
          "\n"
          "EXIT STATUS\n"
          "    0  every capture checked passed (or failed as on record)\n"
          "    1  a capture failed, or a file, folder or line could not be read\n"
          "    2  wrong usage\n"
          "    3  nothing was checked: no capture passed or failed (an empty file or\n"
          "       folder, or every capture unsupported), unless --allow-empty\n"
          "\n"
          "EXAMPLES\n"
          "    tsched replay conformance/corpus\n"
          "    tsched replay conformance/corpus/v0.9.1-big.jsonl.gz --verbose\n"
          "    tsched replay --trace conformance/corpus/v0.10.0-workloads.jsonl.gz\n"
          "    tsched replay --json mine.jsonl.gz | grep '\"type\": \"fail\"'\n");
}

/* What a run counts; a line's change to it is what a worker sends back (jobs.h) */
typedef struct Counts {
  Tally t[TG_NVERSIONS];
  size_t file_errors;      /* files and folders that could not be read */
  size_t unknown_errors;   /* lines too broken to know their version */
  size_t unknown_versions; /* captures of versions tsched does not know */
  size_t unlisted_fails;   /* failures not listed as known (--known-failures) */
} Counts;

typedef struct ReplayRun {
  bool json, verbose, allow_empty, follow, trace;
  int jobs;                /* --jobs: worker processes for the run (1: this one alone) */
  FILE *out, *err;         /* where reports go: stdout and stderr, a worker's buffers in a worker */
  TraceFile traces;        /* --trace: the companion trace file of the file being replayed */
  bool traces_loaded;
  Counts count;
  KnownFailures known;
} ReplayRun;

/* A message about capture c without c's name in front once more (a
 * decoder's message may start with it) */
static const char *without_name(const Capture *c, const char *why) {
  size_t n = strlen(c->name);
  return strncmp(why, c->name, n) == 0 && why[n] == ':' && why[n + 1] == ' ' ? why + n + 2 : why;
}

static void json_field(StrBuf *b, const char *key, const char *value) {
  sb_printf(b, ", \"%s\": ", key);
  if (value) json_str_lit(b, value);
  else sb_puts(b, "null");
}

/* A capture's verdict as one line: text (FAIL file:line name: why) or JSON */
static void report(const ReplayRun *run, const char *type, const Capture *c, const char *why) {
  if (!run->json) {
    const char *word = strcmp(type, "fail") == 0        ? "FAIL"
                       : strcmp(type, "error") == 0     ? "ERROR"
                       : strcmp(type, "trace_fail") == 0 ? "TRACE"
                                                         : "UNSUPPORTED";
    if (c->name && strcmp(c->name, "?") != 0) term_printf(run->out, "%s %s:%zu %s: %s\n", word, c->file, c->line, c->name, why);
    else term_printf(run->out, "%s %s\n", word, why);
    return;
  }
  StrBuf b = {0};
  sb_printf(&b, "{\"type\": \"%s\"", type);
  json_field(&b, "file", c->file);
  sb_printf(&b, ", \"line\": %zu", c->line);
  json_field(&b, "name", c->name && strcmp(c->name, "?") != 0 ? c->name : NULL);
  json_field(&b, "generation", c->generation_known ? tg_version_name(c->generation) : NULL);
  json_field(&b, "why", why);
  sb_puts(&b, "}\n");
  sb_flush(&b, run->out);
  sb_free(&b);
}

/* A file that cannot be read at all */
static void report_file(const ReplayRun *run, const char *path, const char *why) {
  Capture c = {.file = path, .name = "?"};
  report(run, "error", &c, why);
}

static const char *plural(size_t n, const char *one, const char *many) { return n == 1 ? one : many; }

static void print_summary(const ReplayRun *run) {
  for (int v = 0; v < TG_NVERSIONS; v++) {
    const Tally *x = &run->count.t[v];
    const char *name = tg_version_name((TgVersion)v);
    bool none = tg_generation((TgVersion)v) == GEN_NONE;
    if (run->json)
      printf("{\"type\": \"total\", \"generation\": \"%s\", \"pass\": %zu, \"fail\": %zu, \"unsupported\": %zu, \"errors\": %zu, "
             "\"seconds\": %.3f}\n",
             name, x->pass, x->fail, x->unsupported, x->errors, x->seconds);
    else
      printf("%-14s %6zu pass %6zu fail %6zu unsupported %4zu %-6s  %8.3f s%s\n", name, x->pass, x->fail, x->unsupported,
             x->errors, plural(x->errors, "error", "errors"), x->seconds, none ? "  (no scheduler yet)" : "");
    if (!run->trace) continue;
    if (run->json)
      printf("{\"type\": \"trace_total\", \"generation\": \"%s\", \"same\": %zu, \"differ\": %zu, \"no_trace\": %zu}\n", name,
             x->trace_same, x->trace_differ, x->trace_none);
    else if (x->trace_same + x->trace_differ + x->trace_none)
      printf("%-14s %6zu same steps %6zu differ %6zu without a trace to compare\n", "  trace", x->trace_same, x->trace_differ,
             x->trace_none);
  }
  if (run->count.unknown_versions) {
    if (run->json) printf("{\"type\": \"total\", \"generation\": null, \"unsupported\": %zu}\n", run->count.unknown_versions);
    else printf("%zu %s of versions tsched does not know: unsupported\n", run->count.unknown_versions,
                plural(run->count.unknown_versions, "capture", "captures"));
  }
  size_t errors = run->count.unknown_errors + run->count.file_errors;
  if (errors) {
    if (run->json) printf("{\"type\": \"total\", \"generation\": null, \"errors\": %zu}\n", errors);
    if (!run->json && run->count.unknown_errors)
      printf("%zu %s could not be read far enough to know %s version\n", run->count.unknown_errors,
             plural(run->count.unknown_errors, "line", "lines"), plural(run->count.unknown_errors, "its", "their"));
    if (!run->json && run->count.file_errors)
      printf("%zu %s could not be read\n", run->count.file_errors, plural(run->count.file_errors, "file or folder", "files or folders"));
  }
}

/* Another tsched data file (ShapeTracker vectors: "tsched-st-vectors/1"...)
 * found among captures: its first line names that format. */
static const char *other_tsched_format(const Capture *c) {
  const JVal *format = c->root ? json_get(c->root, "format") : NULL;
  if (!format || format->kind != J_STR || strncmp(format->u.s, "tsched-", 7) != 0) return NULL;
  return strcmp(format->u.s, "tsched-capture/1") == 0 ? NULL : format->u.s;
}

/* --trace: the C scheduler's steps tc against the recorded ones, counted and reported */
static void check_trace(ReplayRun *run, const Capture *c, const TraceCatch *tc) {
  Tally *x = &run->count.t[c->generation];
  const Trace *want = run->traces_loaded ? trace_find(&run->traces, c->name) : NULL;
  if (!want || !tc->caught) {
    x->trace_none++;
    if (run->verbose && tc->err[0]) report(run, "unsupported", c, tc->err);
    return;
  }
  char why[2048];
  const JVal *etype = c->error && c->error->kind == J_OBJ ? json_get(c->error, "type") : NULL;
  bool cut_short = etype && etype->kind == J_STR && strcmp(etype->u.s, "RecursionError") == 0; /* Python's stack ran out */
  if (trace_same(want, tc->t, cut_short, why, sizeof why)) {
    x->trace_same++;
    return;
  }
  x->trace_differ++;
  char key[4200]; /* listed as "trace:NAME" among the known failures */
  snprintf(key, sizeof key, "trace:%s", c->name);
  if (!known_has(&run->known, (int)c->generation, key)) run->count.unlisted_fails++;
  report(run, "trace_fail", c, why);
}

/* The verdict of one readable capture, counted and reported */
static void replay_one(ReplayRun *run, const Capture *c, Arena *a, double t0) {
  Outcome o;
  Trace got;
  TraceCatch tc = {a, &got, false, ""};
  replay_capture_traced(c, a, run->trace ? &tc : NULL, &o);
  Tally *x = &run->count.t[c->generation];
  x->seconds += now_seconds() - t0;
  const char *why = without_name(c, o.why);
  switch (o.kind) {
    case OUT_PASS: x->pass++; break;
    case OUT_FAIL:
      x->fail++;
      if (!known_has(&run->known, (int)c->generation, c->name)) run->count.unlisted_fails++;
      report(run, "fail", c, why);
      break;
    case OUT_UNSUPPORTED:
      x->unsupported++;
      if (run->verbose) report(run, "unsupported", c, why);
      break;
    case OUT_ERROR: x->errors++; report(run, "error", c, why); break;
  }
  if (run->trace) check_trace(run, c, &tc);
}

/* --trace: the companion trace file of path (none: no capture of it has a recorded trace) */
static void load_traces(ReplayRun *run, const char *path) {
  if (run->traces_loaded) trace_file_free(&run->traces);
  char tp[4096], err[512];
  trace_companion(path, tp, sizeof tp);
  run->traces_loaded = trace_file_load(&run->traces, tp, err, sizeof err);
}

/* *x += sign * d, field by field */
static void tally_add(Tally *x, const Tally *d, int sign) {
  x->pass += (size_t)sign * d->pass, x->fail += (size_t)sign * d->fail;
  x->unsupported += (size_t)sign * d->unsupported, x->errors += (size_t)sign * d->errors;
  x->trace_same += (size_t)sign * d->trace_same, x->trace_differ += (size_t)sign * d->trace_differ;
  x->trace_none += (size_t)sign * d->trace_none, x->seconds += sign * d->seconds;
}

static void counts_add(Counts *x, const Counts *d, int sign) {
  for (int v = 0; v < TG_NVERSIONS; v++) tally_add(&x->t[v], &d->t[v], sign);
  x->file_errors += (size_t)sign * d->file_errors, x->unknown_errors += (size_t)sign * d->unknown_errors;
  x->unknown_versions += (size_t)sign * d->unknown_versions, x->unlisted_fails += (size_t)sign * d->unlisted_fails;
}

typedef enum { LINE_NEXT, LINE_STOP, LINE_END } LineEnd;

/* The next line of r: read, replayed, counted and reported. LINE_STOP: the
 * file is not read further (it holds no captures: a vectors file). */
static LineEnd replay_line(ReplayRun *run, CaptureReader *r, const char *path) {
  Arena a;
  arena_init(&a);
  Capture c;
  Status st;
  if (!capture_reader_next(r, &a, &c, &st)) { arena_free(&a); return LINE_END; }
  double t0 = now_seconds();
  const char *other = c.line == 1 ? other_tsched_format(&c) : NULL;
  if (other) { /* not captures: skip the file, it is no error */
    term_printf(run->err, "SKIP %s: a %s file, not captures\n", path, other);
    arena_free(&a);
    return LINE_STOP;
  }
  if (st.kind == ST_UNSUPPORTED) { /* a version this tsched does not know */
    if (run->verbose) report(run, "unsupported", &(Capture){.file = c.file, .line = c.line, .name = "?"}, st.msg);
    run->count.unknown_versions++;
  } else if (st.kind != ST_OK) {
    report(run, "error", &(Capture){.file = c.file, .line = c.line, .name = "?"}, st.msg);
    if (c.generation_known) run->count.t[c.generation].errors++;
    else run->count.unknown_errors++;
  } else {
    replay_one(run, &c, &a, t0);
  }
  arena_free(&a);
  return LINE_NEXT;
}

/* The reader's verdict on the rest of the file, once */
static bool reader_gave_up(ReplayRun *run, const CaptureReader *r, const char *path) {
  if (!r->gave_up[0]) return false;
  report_file(run, path, r->gave_up);
  run->count.file_errors++;
  return true;
}

/* The file at path opened for replaying, its traces loaded; false (reported) when it cannot be read */
static bool open_file(ReplayRun *run, const char *path, CaptureReader *r) {
  Status st;
  if (!capture_reader_open(r, path, &st)) {
    report_file(run, path, st.msg);
    run->count.file_errors++;
    return false;
  }
  r->raw_schedule_items = true; /* compare materializes expected.schedule's items one by one */
  r->raw_input = true;          /* each generation materializes the input while it decodes it */
  if (run->trace) load_traces(run, path);
  return true;
}

/* The lines of r from its position on, here, one by one */
static void replay_lines(ReplayRun *run, CaptureReader *r, const char *path) {
  while (replay_line(run, r, path) == LINE_NEXT && !reader_gave_up(run, r, path)) {}
}

static void replay_file(ReplayRun *run, const char *path) {
  CaptureReader r;
  if (!open_file(run, path, &r)) return;
  replay_lines(run, &r, path);
  capture_reader_close(&r);
}

/* ---- --jobs: the lines shared out among worker processes (jobs.h) ---- */

typedef struct JobsCtx { ReplayRun *run; char **paths; } JobsCtx;

/* The change in run's counts since `before`, into d */
static void counts_since(const ReplayRun *run, const Counts *before, Counts *d) {
  *d = run->count;
  counts_add(d, before, -1);
}

/* in a worker: file f opened (a file that cannot be read is reported into out) */
static bool open_job(void *ctx, size_t f, CaptureReader *r, FILE *out, void *counts) {
  JobsCtx *x = ctx;
  Counts before = x->run->count;
  x->run->out = out;
  bool ok = open_file(x->run, x->paths[f], r);
  counts_since(x->run, &before, counts);
  return ok;
}

/* in a worker: one line, reported into out / err, its change to the counts into counts */
static unsigned replay_job(void *ctx, size_t f, CaptureReader *r, FILE *out, FILE *err, void *counts) {
  JobsCtx *x = ctx;
  Counts before = x->run->count;
  x->run->out = out, x->run->err = err;
  LineEnd end = replay_line(x->run, r, x->paths[f]);
  counts_since(x->run, &before, counts);
  return end == LINE_END ? JOB_END : end == LINE_STOP ? JOB_STOP : 0;
}

/* in the parent, in order: printed and counted as if replayed here */
static bool apply_job(void *ctx, CaptureReader *count, const JobResult *res) {
  JobsCtx *x = ctx;
  ReplayRun *run = x->run;
  fwrite(res->out, 1, res->out_len, run->out); /* buffered as a line replayed here would be */
  fwrite(res->err, 1, res->err_len, run->err);
  counts_add(&run->count, res->counts, 1);
  return !reader_gave_up(run, count, x->paths[res->file]);
}

/* in the parent: file f from line `from` on, here */
static void rest_job(void *ctx, size_t f, size_t from, const CaptureReader *count) {
  JobsCtx *x = ctx;
  CaptureReader r;
  if (!open_file(x->run, x->paths[f], &r)) return;
  for (size_t k = 0; k < from && capture_reader_skip(&r); k++) {}
  r.not_json = count->not_json;
  replay_lines(x->run, &r, x->paths[f]);
  capture_reader_close(&r);
}

static void replay_files(ReplayRun *run, char **paths, size_t n) {
  if (run->jobs <= 1) {
    for (size_t i = 0; i < n; i++) replay_file(run, paths[i]);
    return;
  }
  bool *alone = calloc(n ? n : 1, sizeof *alone); /* what is not a regular file: one reader empties it */
  if (!alone) abort();
  for (size_t i = 0; i < n; i++) {
    struct stat sb;
    alone[i] = stat(paths[i], &sb) == 0 && !S_ISREG(sb.st_mode);
  }
  JobsCtx ctx = {run, paths};
  JobsSpec spec = {.jobs = run->jobs, .nfiles = n, .counts_size = sizeof(Counts), .open = open_job, .work = replay_job,
                   .apply = apply_job, .rest = rest_job, .paths = (const char *const *)paths, .alone = alone, .ctx = &ctx};
  jobs_run(&spec);
  free(alone);
}

enum { OPT_JSON, OPT_VERBOSE, OPT_KNOWN, OPT_ALLOW_EMPTY, OPT_FOLLOW, OPT_TRACE, OPT_JOBS };
static const CliOption options[] = {
  {"json", 'j', NULL, OPT_JSON},
  {"verbose", 'v', NULL, OPT_VERBOSE},
  {"known-failures", 0, "FILE", OPT_KNOWN},
  {"allow-empty", 0, NULL, OPT_ALLOW_EMPTY},
  {"follow", 'L', NULL, OPT_FOLLOW},
  {"trace", 't', NULL, OPT_TRACE},
  {"jobs", 0, "N", OPT_JOBS},
};

/* The exit status (see usage) */
static int verdict(const ReplayRun *run) {
  bool bad = run->count.unknown_errors > 0 || run->count.file_errors > 0 || run->count.unlisted_fails > 0;
  size_t checked = 0;
  for (int v = 0; v < TG_NVERSIONS; v++) {
    bad = bad || run->count.t[v].errors;
    checked += run->count.t[v].pass + run->count.t[v].fail;
  }
  if (bad) return 1;
  if (checked == 0 && !run->allow_empty) {
    fprintf(stderr, "tsched replay: nothing was checked: no capture passed or failed (--allow-empty accepts that)\n");
    return 3;
  }
  return 0;
}

int cmd_replay(int argc, char **argv) {
  ReplayRun run = {.out = stdout, .err = stderr, .jobs = jobs_available()};
  CliParser p;
  size_t jobs;
  cli_init(&p, "replay", options, sizeof options / sizeof options[0], usage, argc, argv);
  for (int id; (id = cli_next(&p)) != CLI_END;) {
    switch (id) {
      case OPT_JSON: run.json = true; break;
      case OPT_VERBOSE: run.verbose = true; break;
      case OPT_ALLOW_EMPTY: run.allow_empty = true; break;
      case OPT_FOLLOW: run.follow = true; break;
      case OPT_TRACE: run.trace = true; break;
      case OPT_JOBS:
        if (cli_index(&p, "--jobs", 1, 64, &jobs)) run.jobs = (int)jobs;
        break;
      case OPT_KNOWN:
        if (!known_load(&run.known, p.value)) p.status = 2;
        break;
    }
  }
  if (p.status < 0 && p.noperands == 0) cli_fail(&p, "no PATH given");
  int status = p.status;
  if (status < 0) {
    char **files;
    size_t nfiles = collect_capture_files("replay", p.noperands, p.operands, run.follow, &files, &run.count.file_errors);
    replay_files(&run, files, nfiles);
    free_paths(files, nfiles);
    print_summary(&run);
    status = verdict(&run);
  }
  cli_free(&p);
  known_free(&run.known);
  if (run.traces_loaded) trace_file_free(&run.traces);
  return status;
}
