/* replay.c — `tsched replay PATH...`: every capture through its generation's
 * scheduler, compared with the recording; one line per failure and a
 * pass / fail / unsupported summary per generation. */
#define _POSIX_C_SOURCE 200809L
#include "replay.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "compare.h"
#include "scheduler.h"

double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The capture's schedule is compared item by item while it is encoded (a
 * ScheduleCompare as the ResultSink, scheduler.h), the rest of the result
 * after the scheduler returns. compare_seconds counts both; the sink's part
 * is not in schedule_seconds. */
void replay_capture(const Capture *c, Arena *a, Outcome *o) {
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
}

static bool is_capture_name(const char *name) {
  size_t n = strlen(name);
  return (n > 6 && strcmp(name + n - 6, ".jsonl") == 0) || (n > 9 && strcmp(name + n - 9, ".jsonl.gz") == 0);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Folders are walked with an explicit work list (no recursion). */
size_t collect_capture_files(int npaths, char **paths, char ***out) {
  PathList files = {0}, todo = {0};
  for (int i = npaths - 1; i >= 0; i--) push_path(&todo, paths[i]);
  while (todo.n) {
    char *p = todo.items[--todo.n];
    struct stat sb;
    if (stat(p, &sb) != 0) {
      fprintf(stderr, "tsched: %s: no such file or folder\n", p);
      push_path(&files, p); /* reported as a read error by the caller */
    } else if (S_ISDIR(sb.st_mode)) {
      DIR *d = opendir(p);
      struct dirent *e;
      while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char *child = malloc(strlen(p) + strlen(e->d_name) + 2);
        if (!child) abort();
        sprintf(child, "%s/%s", p, e->d_name);
        struct stat cs;
        if (stat(child, &cs) == 0 && (S_ISDIR(cs.st_mode) || is_capture_name(e->d_name))) push_path(&todo, child);
        free(child);
      }
      if (d) closedir(d);
    } else {
      push_path(&files, p);
    }
    free(p);
  }
  free(todo.items);
  if (files.n) qsort(files.items, files.n, sizeof *files.items, cmp_str);
  *out = files.items;
  return files.n;
}

void free_paths(char **paths, size_t n) {
  for (size_t i = 0; i < n; i++) free(paths[i]);
  free(paths);
}

/* ---- the command ---- */

typedef struct { size_t pass, fail, unsupported, errors; double seconds; } Tally;

/* Known failures: capture names listed in files given with --known-failures.
 * They still count as fail in every total; they only stop the exit status
 * from going red for a failure already on record (a regression guard). */
typedef struct { char **names; size_t n, cap; size_t unlisted_fails; } KnownFailures;

static void known_add(KnownFailures *k, const char *name, size_t len) {
  if (k->n == k->cap) {
    k->cap = k->cap ? k->cap * 2 : 64;
    char **bigger = realloc(k->names, k->cap * sizeof *bigger);
    if (!bigger) abort();
    k->names = bigger;
  }
  k->names[k->n] = malloc(len + 1);
  if (!k->names[k->n]) abort();
  memcpy(k->names[k->n], name, len);
  k->names[k->n++][len] = 0;
}

/* One capture name per line; '#' starts a comment. */
static bool known_load(KnownFailures *k, const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) { fprintf(stderr, "tsched replay: cannot read %s\n", path); return false; }
  char line[4096];
  while (fgets(line, sizeof line, f)) {
    char *hash = strchr(line, '#');
    if (hash) *hash = 0;
    size_t len = strlen(line);
    while (len && (line[len - 1] == '\n' || line[len - 1] == ' ' || line[len - 1] == '\t' || line[len - 1] == '\r')) len--;
    char *start = line;
    while (*start == ' ' || *start == '\t') start++, len--;
    if ((ptrdiff_t)len > 0) known_add(k, start, len);
  }
  fclose(f);
  return true;
}

static bool known_has(const KnownFailures *k, const char *name) {
  for (size_t i = 0; i < k->n; i++)
    if (strcmp(k->names[i], name) == 0) return true;
  return false;
}

static void known_free(KnownFailures *k) {
  for (size_t i = 0; i < k->n; i++) free(k->names[i]);
  free(k->names);
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: tsched replay [--json] [--verbose] PATH...\n"
          "\n"
          "Replay every capture in PATH (files or folders of *.jsonl / *.jsonl.gz) with\n"
          "the scheduler of its generation and compare with what tinygrad recorded.\n"
          "Prints one line per failure and read error, and per generation the totals\n"
          "pass / fail / unsupported / errors and the time taken. Exits 1 on any fail\n"
          "or read error.\n"
          "\n"
          "  --json      one JSON object per generation per line instead of the summary:\n"
          "              {\"generation\", \"pass\", \"fail\", \"unsupported\", \"errors\", \"seconds\"}\n"
          "  --verbose   also one line per unsupported capture, with its reason\n"
          "  --known-failures FILE  capture names (one per line, # comments) whose failure is\n"
          "              already on record: still counted and printed as fail, but they do not\n"
          "              make the exit status non-zero (may be given several times)\n");
}

static void print_summary(const Tally *t, bool json, const size_t *other_errors, size_t unknown_versions) {
  for (int v = 0; v < TG_NVERSIONS; v++) {
    const Tally *x = &t[v];
    bool seen = x->pass || x->fail || x->unsupported || x->errors;
    if (!seen && tg_generation((TgVersion)v) == GEN_NONE) continue; /* a version without scheduler or captures */
    if (json)
      printf("{\"generation\": \"%s\", \"pass\": %zu, \"fail\": %zu, \"unsupported\": %zu, \"errors\": %zu, \"seconds\": %.3f}\n",
             tg_version_name((TgVersion)v), x->pass, x->fail, x->unsupported, x->errors, x->seconds);
    else
      printf("%-14s %6zu pass %6zu fail %6zu unsupported %4zu errors  %8.3f s\n", tg_version_name((TgVersion)v), x->pass,
             x->fail, x->unsupported, x->errors, x->seconds);
  }
  if (unknown_versions) {
    if (json) printf("{\"generation\": null, \"unsupported\": %zu}\n", unknown_versions);
    else printf("%zu captures of versions tsched does not know: unsupported\n", unknown_versions);
  }
  if (*other_errors) {
    if (json) printf("{\"generation\": null, \"errors\": %zu}\n", *other_errors);
    else printf("%zu captures could not be read far enough to know their generation\n", *other_errors);
  }
}

/* Another tsched data file (ShapeTracker vectors: "tsched-st-vectors/1"...)
 * found among captures: its first line names that format. */
static const char *other_tsched_format(const Capture *c) {
  const JVal *format = c->root ? json_get(c->root, "format") : NULL;
  if (!format || format->kind != J_STR || strncmp(format->u.s, "tsched-", 7) != 0) return NULL;
  return strcmp(format->u.s, "tsched-capture/1") == 0 ? NULL : format->u.s;
}

static void replay_file(const char *path, bool json, bool verbose, Tally *t, size_t *unknown_errors, size_t *unknown_versions,
                        KnownFailures *known) {
  CaptureReader r;
  Status st;
  if (!capture_reader_open(&r, path, &st)) {
    fprintf(json ? stderr : stdout, "ERROR %s\n", st.msg);
    (*unknown_errors)++;
    return;
  }
  r.raw_schedule_items = true; /* compare materializes expected.schedule's items one by one */
  r.raw_input = true;          /* each generation materializes the input while it decodes it */
  for (;;) {
    Arena a;
    arena_init(&a);
    Capture c;
    if (!capture_reader_next(&r, &a, &c, &st)) { arena_free(&a); break; }
    double t0 = now_seconds();
    const char *other = c.line == 1 ? other_tsched_format(&c) : NULL;
    if (other) { /* not captures: skip the file, it is no error */
      fprintf(stderr, "SKIP %s: a %s file, not captures\n", path, other);
      arena_free(&a);
      break;
    }
    if (st.kind == ST_UNSUPPORTED) { /* a version this tsched does not know */
      if (verbose) fprintf(json ? stderr : stdout, "UNSUPPORTED %s\n", st.msg);
      (*unknown_versions)++;
      arena_free(&a);
      continue;
    }
    if (st.kind != ST_OK) {
      fprintf(json ? stderr : stdout, "ERROR %s\n", st.msg);
      if (c.generation_known)
        t[c.generation].errors++;
      else
        (*unknown_errors)++;
      arena_free(&a);
      continue;
    }
    Outcome o;
    replay_capture(&c, &a, &o);
    Tally *x = &t[c.generation];
    x->seconds += now_seconds() - t0;
    FILE *out = json ? stderr : stdout;
    switch (o.kind) {
      case OUT_PASS: x->pass++; break;
      case OUT_FAIL:
        x->fail++;
        if (!known_has(known, c.name)) known->unlisted_fails++;
        fprintf(out, "FAIL %s:%zu %s: %s\n", c.file, c.line, c.name, o.why);
        break;
      case OUT_UNSUPPORTED:
        x->unsupported++;
        if (verbose) fprintf(out, "UNSUPPORTED %s:%zu %s: %s\n", c.file, c.line, c.name, o.why);
        break;
      case OUT_ERROR: x->errors++; fprintf(out, "ERROR %s:%zu %s: %s\n", c.file, c.line, c.name, o.why); break;
    }
    arena_free(&a);
  }
  capture_reader_close(&r);
}

int cmd_replay(int argc, char **argv) {
  bool json = false, verbose = false;
  KnownFailures known = {0};
  int first = 1;
  for (; first < argc && argv[first][0] == '-'; first++) {
    if (strcmp(argv[first], "--json") == 0) json = true;
    else if (strcmp(argv[first], "--known-failures") == 0 && first + 1 < argc) {
      if (!known_load(&known, argv[++first])) { known_free(&known); return 2; }
    }
    else if (strcmp(argv[first], "--verbose") == 0) verbose = true;
    else if (strcmp(argv[first], "--help") == 0 || strcmp(argv[first], "-h") == 0) { usage(stdout); return 0; }
    else { fprintf(stderr, "tsched replay: unknown option %s\n", argv[first]); usage(stderr); return 2; }
  }
  if (first == argc) { usage(stderr); known_free(&known); return 2; }
  char **files;
  size_t nfiles = collect_capture_files(argc - first, argv + first, &files);
  Tally t[TG_NVERSIONS] = {{0}};
  size_t unknown_errors = 0, unknown_versions = 0;
  for (size_t i = 0; i < nfiles; i++) replay_file(files[i], json, verbose, t, &unknown_errors, &unknown_versions, &known);
  free_paths(files, nfiles);
  print_summary(t, json, &unknown_errors, unknown_versions);
  bool bad = unknown_errors > 0 || known.unlisted_fails > 0;
  for (int v = 0; v < TG_NVERSIONS; v++) bad = bad || t[v].errors;
  known_free(&known);
  return bad ? 1 : 0;
}
