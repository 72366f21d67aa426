/* bench.c — `tsched bench PATH...`: per capture and per phase (read, build,
 * schedule, encode, compare) the time, the peak memory, and the ratio to the
 * `oracle_seconds` tinygrad took; then per generation a summary with medians.
 *
 * Method. Every phase is the best of N runs (--repeat), read included: the
 * line is parsed N times, then scheduled and compared N times. Runs after
 * the first find the process warm (pooled arena chunks, the JSON parser's
 * buffers), as a replayer going through a file does; the first read of a
 * capture, cold, is reported apart ("read1"). "total" is the sum of the
 * phases' best times. The replayer compares the schedule's items while
 * they are encoded (replay.c): that time is compare's, not encode's.
 *
 * Memory is the growth of the process's peak resident set (VmHWM) while one
 * child process reads, schedules and compares the capture once, starting
 * with no pooled arena chunk and no parser buffer: every page the capture
 * touches counts (arenas, the parser's buffers, malloc'd tables), the input
 * text itself does not (it was already in memory), nor do code pages (made
 * resident before the measure starts: they are the program's, not the
 * capture's). The arena bytes reserved
 * are reported too (--json: arena_bytes). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include "replay.h"
#include "scheduler.h"

typedef struct {
  double read, read_cold, build, schedule, encode, compare, total, oracle;
  size_t json_bytes, arena_bytes, rss_bytes;
  OutcomeKind outcome;
} Sample;

typedef struct { Sample *items; size_t n, cap; } Samples;

static void add_sample(Samples *s, Sample x) {
  if (s->n == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 64;
    Sample *bigger = realloc(s->items, s->cap * sizeof *bigger);
    if (!bigger) abort();
    s->items = bigger;
  }
  s->items[s->n++] = x;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *xs, size_t n) {
  if (!n) return 0;
  qsort(xs, n, sizeof *xs, cmp_double);
  return n % 2 ? xs[n / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2;
}

static const char *outcome_name(OutcomeKind k) {
  static const char *const names[] = {"pass", "fail", "unsupported", "error"};
  return names[k];
}

static double ratio(double num, double den) { return den > 0 ? num / den : 0; }

/* Best of `repeat` runs of the scheduler on c, each in a fresh arena; the
 * read times are filled in by the caller. */
static Sample bench_schedule(const Capture *c, size_t parse_bytes, int repeat) {
  Sample best = {0};
  for (int r = 0; r < repeat; r++) {
    Arena a;
    arena_init(&a);
    Outcome o;
    replay_capture(c, &a, &o);
    Sample s = {0, 0, phase_seconds(PHASE_BUILD), phase_seconds(PHASE_SCHEDULE), phase_seconds(PHASE_ENCODE),
                o.compare_seconds, 0, c->oracle_seconds, c->bytes, parse_bytes + a.chunk_bytes, 0, o.kind};
    if (s.build + s.schedule + s.encode == 0) s.schedule = o.schedule_seconds; /* no phase marks: all is "schedule" */
    s.total = s.build + s.schedule + s.encode + s.compare;
    if (r == 0 || s.total < best.total) best = s;
    arena_free(&a);
  }
  return best;
}

static size_t status_kib(const char *field) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  size_t kib = 0, n = strlen(field);
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, field, n) == 0) kib = strtoul(line + n, NULL, 10);
  if (f) fclose(f);
  return kib;
}

/* Make every page of the process's read-only file mappings (the code and
 * constant data of the program, libc, libstdc++, simdjson) resident, so that
 * the child's peak counts the capture's data and not the program image it
 * happens to use first: a forked child shares no page-table entries for
 * file-backed mappings and would fault in ~0.7 MB of code whatever the
 * capture, and a read of one constant maps the 64 KiB around it (the
 * kernel's fault-around: libstdc++'s from_chars tables alone cost 64 KiB). */
static void touch_code_pages(void) {
  FILE *f = fopen("/proc/self/maps", "r");
  char line[512];
  while (f && fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    char perms[8], path[2] = "";
    if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %1s", &lo, &hi, perms, path) != 4 || perms[0] != 'r' || perms[1] == 'w' ||
        path[0] != '/')
      continue;
    volatile const char *p = (const char *)lo;
    unsigned sum = 0;
    for (unsigned long at = lo; at < hi; at += 4096) sum += (unsigned char)p[at - lo];
    (void)sum;
  }
  if (f) fclose(f);
}

/* Peak RSS growth (bytes) of reading, scheduling and comparing the capture
 * at r's position once, in a child process that first gives back the
 * pooled arena chunks and the parser's buffers; 0 when it cannot be measured
 * (no /proc). */
static size_t measure_rss(const CaptureReader *at) {
  fflush(stdout);
  int fds[2];
  if (pipe(fds) != 0) return 0;
  pid_t pid = fork();
  if (pid < 0) { close(fds[0]); close(fds[1]); return 0; }
  if (pid == 0) {
    close(fds[0]);
    arena_release_pool();
    json_release_parser();
#ifdef __GLIBC__
    malloc_trim(0);
#endif
    touch_code_pages();
    size_t before = status_kib("VmRSS:"), growth = 0;
    FILE *f = fopen("/proc/self/clear_refs", "w"); /* "5": VmHWM back to the current RSS */
    if (f && fputs("5", f) >= 0 && fclose(f) == 0 && before) {
      CaptureReader r = *at;
      Arena a;
      arena_init(&a);
      Capture c;
      Status st;
      Outcome o;
      if (capture_reader_next(&r, &a, &c, &st) && st.kind == ST_OK) replay_capture(&c, &a, &o);
      size_t peak = status_kib("VmHWM:");
      growth = peak > before ? (peak - before) * 1024 : 0;
    }
    ssize_t w = write(fds[1], &growth, sizeof growth);
    _exit(w == (ssize_t)sizeof growth ? 0 : 1);
  }
  close(fds[1]);
  size_t growth = 0;
  if (read(fds[0], &growth, sizeof growth) != (ssize_t)sizeof growth) growth = 0;
  close(fds[0]);
  waitpid(pid, NULL, 0);
  return growth;
}

/* The next capture of r: read `repeat` times (the last parse is kept in
 * *parse and *c), scheduled `repeat` times, and its memory measured once.
 * Returns false at the end of the file. */
static bool bench_next(CaptureReader *r, Arena *parse, Capture *c, Status *st, double min_oracle, int repeat,
                       bool memory, Sample *out, bool *measured) {
  CaptureReader at = *r;
  double best = 0, first = 0;
  *measured = false;
  for (int k = 0; k < repeat; k++) {
    if (k > 0) { arena_free(parse); *r = at; }
    arena_init(parse);
    double t0 = now_seconds();
    bool more = capture_reader_next(r, parse, c, st);
    double t = now_seconds() - t0;
    if (!more) return false;
    if (k == 0) first = best = t;
    if (t < best) best = t;
    if (st->kind != ST_OK || c->oracle_seconds < min_oracle) return true; /* not benched: read once */
  }
  *out = bench_schedule(c, parse->chunk_bytes, repeat);
  out->read = best;
  out->read_cold = first;
  out->total += best;
  out->rss_bytes = memory ? measure_rss(&at) : 0;
  *measured = true;
  return true;
}

static void print_sample(const Capture *c, const Sample *s, bool json) {
  if (json) {
    printf("{\"name\": \"%s\", \"generation\": \"%s\", \"outcome\": \"%s\", \"read\": %.6f, \"read_cold\": %.6f, "
           "\"build\": %.6f, \"schedule\": %.6f, \"encode\": %.6f, \"compare\": %.6f, \"total\": %.6f, "
           "\"oracle_seconds\": %.6f, \"schedule_speedup\": %.1f, \"total_speedup\": %.1f, \"json_bytes\": %zu, "
           "\"rss_bytes\": %zu, \"arena_bytes\": %zu}\n",
           c->name, tg_version_name(c->generation), outcome_name(s->outcome), s->read, s->read_cold, s->build, s->schedule,
           s->encode, s->compare, s->total, s->oracle, ratio(s->oracle, s->schedule), ratio(s->oracle, s->total),
           s->json_bytes, s->rss_bytes, s->arena_bytes);
    return;
  }
  char mem[16] = "     -"; /* not measured (--no-memory, no /proc) */
  if (s->rss_bytes) snprintf(mem, sizeof mem, "%6.1fx", ratio((double)s->rss_bytes, (double)s->json_bytes));
  printf("%-7s %-11s %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %9.3f %9.1f %8.0fx %7.0fx %7s %6.1fx  %s\n",
         tg_version_name(c->generation), outcome_name(s->outcome), s->read_cold * 1e3, s->read * 1e3, s->build * 1e3,
         s->schedule * 1e3, s->encode * 1e3, s->compare * 1e3, s->total * 1e3, s->oracle * 1e3,
         ratio(s->oracle, s->schedule), ratio(s->oracle, s->total), mem, ratio((double)s->arena_bytes, (double)s->json_bytes),
         c->name);
}

static void print_summary(Samples *per_gen, bool json) {
  for (int v = 0; v < TG_NVERSIONS; v++) {
    Samples *s = &per_gen[v];
    if (!s->n) continue;
    double *sched = malloc(s->n * sizeof *sched), *total = malloc(s->n * sizeof *total), *mem = malloc(s->n * sizeof *mem);
    if (!sched || !total || !mem) abort();
    double min_sched = 0, min_total = 0, max_mem = 0;
    for (size_t i = 0; i < s->n; i++) {
      const Sample *x = &s->items[i];
      sched[i] = ratio(x->oracle, x->schedule);
      total[i] = ratio(x->oracle, x->total);
      mem[i] = ratio((double)x->rss_bytes, (double)x->json_bytes);
      if (i == 0 || sched[i] < min_sched) min_sched = sched[i];
      if (i == 0 || total[i] < min_total) min_total = total[i];
      if (mem[i] > max_mem) max_mem = mem[i];
    }
    double med_sched = median(sched, s->n), med_total = median(total, s->n), med_mem = median(mem, s->n);
    if (json)
      printf("{\"generation\": \"%s\", \"captures\": %zu, \"median_schedule_speedup\": %.1f, \"min_schedule_speedup\": %.1f, "
             "\"median_total_speedup\": %.1f, \"min_total_speedup\": %.1f, \"median_memory_ratio\": %.2f, "
             "\"max_memory_ratio\": %.2f}\n",
             tg_version_name((TgVersion)v), s->n, med_sched, min_sched, med_total, min_total, med_mem, max_mem);
    else if (max_mem > 0)
      printf("%-7s %zu captures: schedule speed-up median %.0fx (min %.0fx), read+schedule+compare median %.0fx "
             "(min %.0fx), peak RSS growth/JSON median %.1fx (max %.1fx)\n",
             tg_version_name((TgVersion)v), s->n, med_sched, min_sched, med_total, min_total, med_mem, max_mem);
    else
      printf("%-7s %zu captures: schedule speed-up median %.0fx (min %.0fx), read+schedule+compare median %.0fx "
             "(min %.0fx)\n",
             tg_version_name((TgVersion)v), s->n, med_sched, min_sched, med_total, min_total);
    free(sched);
    free(total);
    free(mem);
  }
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: tsched bench [--json] [--min-oracle SECONDS] [--repeat N] [--all] [--no-memory] PATH...\n"
          "\n"
          "Time every capture in PATH per phase: read (JSON parse, `input` and the expected\n"
          "schedule's items left as text), build (`input` parsed, the input graph built),\n"
          "schedule, encode (result to JSON) and compare (the schedule's items are compared\n"
          "as they are encoded: that time counts as compare), and the ratio of tinygrad's\n"
          "oracle_seconds to the schedule phase and to the whole (the sum of the phases).\n"
          "Times are in milliseconds, each phase the best of N runs (--repeat, default 3);\n"
          "read1 is the first, cold read of the capture. mem/js is the growth of the peak\n"
          "resident set while a child process reads, schedules and compares the capture\n"
          "once from a cold start, over the capture's JSON bytes; arena/js the arena bytes\n"
          "reserved over the JSON bytes. Only passing captures count in the summary unless --all.\n"
          "\n"
          "  --min-oracle S  only captures whose oracle_seconds >= S (the big ones)\n"
          "  --json          one JSON object per capture, then one per generation\n"
          "  --no-memory     no child process measuring memory (for profilers)\n");
}

int cmd_bench(int argc, char **argv) {
  bool json = false, all = false, memory = true;
  double min_oracle = 0;
  int repeat = 3, first = 1;
  for (; first < argc && argv[first][0] == '-'; first++) {
    if (strcmp(argv[first], "--json") == 0) json = true;
    else if (strcmp(argv[first], "--all") == 0) all = true;
    else if (strcmp(argv[first], "--no-memory") == 0) memory = false;
    else if (strcmp(argv[first], "--min-oracle") == 0 && first + 1 < argc) min_oracle = atof(argv[++first]);
    else if (strcmp(argv[first], "--repeat") == 0 && first + 1 < argc) repeat = atoi(argv[++first]);
    else if (strcmp(argv[first], "--help") == 0 || strcmp(argv[first], "-h") == 0) { usage(stdout); return 0; }
    else { usage(stderr); return 2; }
  }
  if (first == argc || repeat < 1) { usage(stderr); return 2; }
  char **files;
  size_t nfiles = collect_capture_files(argc - first, argv + first, &files);
  Samples per_gen[TG_NVERSIONS] = {{0}};
  if (!json)
    printf("%-7s %-11s %8s %8s %8s %8s %8s %8s %9s %9s %9s %8s %7s %7s  %s\n", "gen", "outcome", "read1", "read", "build",
           "schedule", "encode", "compare", "total", "oracle", "sched-x", "total-x", "mem/js", "arena/js", "capture");
  for (size_t i = 0; i < nfiles; i++) {
    CaptureReader r;
    Status st;
    if (!capture_reader_open(&r, files[i], &st)) { fprintf(stderr, "ERROR %s\n", st.msg); continue; }
    r.raw_schedule_items = true; /* as replay reads captures */
    r.raw_input = true;
    for (;;) {
      Arena parse;
      Capture c;
      Sample s;
      bool measured;
      bool more = bench_next(&r, &parse, &c, &st, min_oracle, repeat, memory, &s, &measured);
      if (more && measured) {
        print_sample(&c, &s, json);
        if (all || s.outcome == OUT_PASS) add_sample(&per_gen[c.generation], s);
      }
      arena_free(&parse);
      if (!more) break;
    }
    capture_reader_close(&r);
  }
  free_paths(files, nfiles);
  print_summary(per_gen, json);
  for (int v = 0; v < TG_NVERSIONS; v++) free(per_gen[v].items);
  return 0;
}
