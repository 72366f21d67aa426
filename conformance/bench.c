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
#include "cli.h"
#include "replay.h"
#include "trace.h"
#include "scheduler.h"
#include "tools.h"

typedef struct {
  double read, read_cold, build, schedule, encode, compare, total, oracle;
  double parse;  /* simdjson's parse of the same line, best of N, DOM or On-Demand: the yardstick of read + build */
  bool parse_ondemand; /* On-Demand was the faster */
  size_t json_bytes, arena_bytes, rss_bytes;
  OutcomeKind outcome;
} Sample;

typedef struct { Sample *items; size_t n, cap; } Samples;

/* A file replayed whole: the worst of its version's files */
typedef struct { size_t files; double min_speedup; } FileRatios;

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
static Sample bench_schedule(const Capture *c, size_t parse_bytes, int repeat, bool trace) {
  Sample best = {0};
  for (int r = 0; r < repeat; r++) {
    Arena a;
    arena_init(&a);
    Outcome o;
    Trace got;
    TraceCatch tc = {&a, &got, false, ""};
    replay_capture_traced(c, &a, trace ? &tc : NULL, &o);
    Sample s = {.build = phase_seconds(PHASE_BUILD), .schedule = phase_seconds(PHASE_SCHEDULE), .encode = phase_seconds(PHASE_ENCODE),
                .compare = o.compare_seconds, .oracle = c->oracle_seconds, .json_bytes = c->bytes,
                .arena_bytes = parse_bytes + a.chunk_bytes, .outcome = o.kind};
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
#if defined(__GNUC__)
__attribute__((no_sanitize_address)) /* reads past globals' red zones, which are no bug here */
#endif
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

/* simdjson's parse of the line, best of `repeat` runs of its DOM parser
 * and of its On-Demand parser reading every value, whichever is faster (the
 * reader's buffer has the padding after the file; inside it, the next
 * lines are readable: `capacity` bytes from the line on). */
static double simdjson_parse_seconds(const char *line, size_t n, size_t capacity, int repeat, bool *ondemand) {
  double best = 0;
  *ondemand = false;
  for (int k = 0; k < 2 * repeat; k++) {
    bool dom = k % 2 == 0;
    double t0 = now_seconds();
    if (dom) json_simdjson_parse(line, n);
    else json_simdjson_ondemand(line, n, capacity);
    double t = now_seconds() - t0;
    if (k == 0 || t < best) best = t, *ondemand = !dom;
  }
  return best;
}

/* The next capture of r: read `repeat` times (the last parse is kept in
 * *parse and *c), scheduled `repeat` times, and its memory measured once.
 * Returns false at the end of the file. */
static bool bench_next(CaptureReader *r, Arena *parse, Capture *c, Status *st, double min_oracle, int repeat,
                       bool memory, bool trace, Sample *out, bool *measured) {
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
  *out = bench_schedule(c, parse->chunk_bytes, repeat, trace);
  out->read = best;
  out->read_cold = first;
  out->total += best;
  const char *line = r->data + r->pos - 1 - c->bytes;
  out->parse = simdjson_parse_seconds(line, c->bytes, (size_t)(r->data + r->len + JSON_PADDING - line), repeat,
                                      &out->parse_ondemand);
  out->rss_bytes = memory ? measure_rss(&at) : 0;
  *measured = true;
  return true;
}

/* (read + build) over simdjson's parse of the same bytes */
static double parse_ratio(const Sample *s) { return ratio(s->read + s->build, s->parse); }

static void print_sample(const Capture *c, const Sample *s, bool json) {
  if (json) {
    StrBuf b = {0};
    sb_puts(&b, "{\"name\": ");
    json_str_lit(&b, c->name);
    sb_printf(&b, ", \"generation\": \"%s\", \"outcome\": \"%s\", \"read\": %.6f, \"read_cold\": %.6f, "
              "\"build\": %.6f, \"schedule\": %.6f, \"encode\": %.6f, \"compare\": %.6f, \"total\": %.6f, "
              "\"oracle_seconds\": %.6f, \"simdjson_parse\": %.6f, \"simdjson_parser\": \"%s\", \"schedule_speedup\": %.1f, \"total_speedup\": %.1f, "
              "\"read_build_over_parse\": %.2f, \"json_bytes\": %zu, \"rss_bytes\": %zu, \"arena_bytes\": %zu}\n",
              tg_version_name(c->generation), outcome_name(s->outcome), s->read, s->read_cold, s->build, s->schedule,
              s->encode, s->compare, s->total, s->oracle, s->parse, s->parse_ondemand ? "ondemand" : "dom", ratio(s->oracle, s->schedule), ratio(s->oracle, s->total),
              parse_ratio(s), s->json_bytes, s->rss_bytes, s->arena_bytes);
    sb_flush(&b, stdout);
    sb_free(&b);
    return;
  }
  char mem[16] = "     -"; /* not measured (--no-memory, no /proc) */
  if (s->rss_bytes) snprintf(mem, sizeof mem, "%6.1fx", ratio((double)s->rss_bytes, (double)s->json_bytes));
  term_printf(stdout, "%-7s %-11s %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %9.3f %9.1f %8.0fx %7.0fx %7s %6.1fx %6.1fx  %s\n",
              tg_version_name(c->generation), outcome_name(s->outcome), s->read_cold * 1e3, s->read * 1e3, s->build * 1e3,
              s->schedule * 1e3, s->encode * 1e3, s->compare * 1e3, s->total * 1e3, s->oracle * 1e3,
              ratio(s->oracle, s->schedule), ratio(s->oracle, s->total), mem,
              ratio((double)s->arena_bytes, (double)s->json_bytes), parse_ratio(s), c->name);
}

/* The smallest, the median and the largest of xs[0..n) (sorts xs) */
typedef struct { double min, median, max; } Spread;

static Spread spread(double *xs, size_t n) {
  Spread s = {0, median(xs, n), 0};
  if (n) s.min = xs[0], s.max = xs[n - 1];
  return s;
}

enum { NRATIOS = 5 };
static const char *const ratio_names[NRATIOS] = {"schedule_speedup", "total_speedup", "memory_ratio", "arena_ratio",
                                                 "read_build_over_parse"};

/* ratio k of a sample: speed-ups over tinygrad (bigger is better), then
 * sizes and times over the JSON's (smaller is better) */
static double sample_ratio(const Sample *x, int k) {
  switch (k) {
    case 0: return ratio(x->oracle, x->schedule);
    case 1: return ratio(x->oracle, x->total);
    case 2: return ratio((double)x->rss_bytes, (double)x->json_bytes);
    case 3: return ratio((double)x->arena_bytes, (double)x->json_bytes);
    default: return parse_ratio(x);
  }
}

/* One line per version: for each ratio over its captures the worst (the
 * smallest speed-up, the largest of the others) and the median. */
static void print_summary(Samples *per_gen, const FileRatios *files, bool json) {
  if (!json)
    printf("\n%-14s %8s %15s %15s %13s %13s %15s %14s\n", "version", "captures", "sched-x min/med", "total-x min/med",
           "mem/js max/med", "arena/js max/med", "rb/parse max/med", "replay-x min");
  for (int v = 0; v < TG_NVERSIONS; v++) {
    Samples *s = &per_gen[v];
    if (!s->n) continue;
    double *xs = malloc(s->n * sizeof *xs);
    if (!xs) abort();
    Spread r[NRATIOS];
    for (int k = 0; k < NRATIOS; k++) {
      for (size_t i = 0; i < s->n; i++) xs[i] = sample_ratio(&s->items[i], k);
      r[k] = spread(xs, s->n);
    }
    free(xs);
    const char *name = tg_version_name((TgVersion)v);
    if (json) {
      printf("{\"generation\": \"%s\", \"captures\": %zu", name, s->n);
      for (int k = 0; k < NRATIOS; k++)
        printf(", \"min_%s\": %.2f, \"median_%s\": %.2f, \"max_%s\": %.2f", ratio_names[k], r[k].min, ratio_names[k], r[k].median,
               ratio_names[k], r[k].max);
      if (files[v].files) printf(", \"files\": %zu, \"min_replay_speedup\": %.2f", files[v].files, files[v].min_speedup);
      printf("}\n");
      continue;
    }
    char mem[32] = "-";
    if (r[2].max > 0) snprintf(mem, sizeof mem, "%.1fx / %.1fx", r[2].max, r[2].median);
    char whole[32] = "-";
    if (files[v].files) snprintf(whole, sizeof whole, "%.0fx (%zu)", files[v].min_speedup, files[v].files);
    printf("%-14s %8zu %6.0fx / %5.0fx %6.0fx / %5.0fx %13s %6.1fx / %4.1fx %7.1fx / %5.1fx %14s\n", name, s->n, r[0].min,
           r[0].median, r[1].min, r[1].median, mem, r[3].max, r[3].median, r[4].max, r[4].median, whole);
  }
}

static void usage(FILE *f) {
  fprintf(f,
          "NAME\n"
          "    tsched bench - time each phase per capture against tinygrad's oracle_seconds\n"
          "\n"
          "SYNOPSIS\n"
          "    tsched bench [OPTION]... PATH...\n"
          "\n"
          "DESCRIPTION\n"
          "    Times every capture in PATH (files or folders) per phase: read (JSON parse,\n"
          "    `input` and the expected schedule's items left as text), build (`input`\n"
          "    parsed, the input graph built), schedule, encode (result to JSON) and\n"
          "    compare (the schedule's items are compared as they are encoded: that time\n"
          "    counts as compare). Times are in milliseconds, each phase the best of N\n"
          "    runs; read1 is the first, cold read of the capture.\n"
          "\n"
          "    The ratios: sched-x and total-x, tinygrad's oracle_seconds over the\n"
          "    schedule phase and over the whole (the sum of the phases); mem/js, the\n"
          "    growth of the peak resident set while a child process reads, schedules\n"
          "    and compares the capture once from a cold start, over the capture's JSON\n"
          "    bytes; arena/js, the arena bytes reserved over the JSON bytes; rb/parse,\n"
          "    read + build over the time simdjson takes merely to parse the same line,\n"
          "    measured in the same run: the faster of its DOM parser and its On-Demand\n"
          "    parser reading every value (JSON: simdjson_parser says which).\n"
          "\n"
          "    A file with a capture timed is then replayed whole as `tsched replay`\n"
          "    replays it (opened and decompressed, every capture read, scheduled and\n"
          "    compared once; the process's start aside), best of N passes: replay-x is\n"
          "    the sum of its captures' oracle_seconds over that time.\n"
          "\n"
          "    Then one line per version: over its captures (the passing ones unless\n"
          "    --all) the worst and the median of each ratio: the smallest speed-up, the\n"
          "    largest memory and parse ratio; and the smallest replay-x of its files\n"
          "    (how many in parentheses).\n"
          "\n"
          "OPTIONS\n"
          "    -m, --min-oracle SECONDS\n"
          "        only captures whose oracle_seconds >= SECONDS (the big ones)\n"
          "    -r, --repeat N\n"
          "        each phase the best of N runs (default 3)\n"
          "    -c, --cpu-time\n"
          "        time with the thread's CPU time instead of the wall clock: on a shared\n"
          "        machine, what other processes take of the CPU is not counted\n"
          "    -s, --summary\n"
          "        only the lines per version\n"
          "    -a, --all\n"
          "        count failing and unsupported captures in the summary too\n"
          "    --no-memory\n"
          "        no child process measuring memory (for profilers)\n"
          "    -t, --trace\n"
          "        the scheduler records its rewrite steps (as `tsched replay --trace`):\n"
          "        schedule is then the time with the steps recorded, encode includes\n"
          "        writing them as a trace line (what tracing costs)\n"
          "    -j, --json\n"
          "        one JSON object per capture, then one per version\n"
          "    -h, --help\n"
          "        this text\n"
          "\n"
          "EXIT STATUS\n"
          "    0 done, 1 a file or line could not be read, 2 wrong usage\n"
          "\n"
          "EXAMPLES\n"
          "    tsched bench --repeat 9 --min-oracle 0.05 conformance/corpus/v0.9.1-big.jsonl.gz\n"
          "    tsched bench --summary -m 0.03 conformance/corpus\n");
}

enum { OPT_JSON, OPT_ALL, OPT_NO_MEMORY, OPT_MIN_ORACLE, OPT_REPEAT, OPT_SUMMARY, OPT_CPU_TIME, OPT_TRACE };
static const CliOption options[] = {
  {"cpu-time", 'c', NULL, OPT_CPU_TIME},
  {"json", 'j', NULL, OPT_JSON},
  {"all", 'a', NULL, OPT_ALL},
  {"no-memory", 0, NULL, OPT_NO_MEMORY},
  {"min-oracle", 'm', "SECONDS", OPT_MIN_ORACLE},
  {"repeat", 'r', "N", OPT_REPEAT},
  {"summary", 's', NULL, OPT_SUMMARY},
  {"trace", 't', NULL, OPT_TRACE},
};

typedef struct BenchRun {
  bool json, all, memory, summary_only, trace;
  double min_oracle;
  int repeat;
  size_t errors;
  Samples per_gen[TG_NVERSIONS];
  FileRatios files[TG_NVERSIONS];
} BenchRun;

/* One pass over a file as `tsched replay` makes it (the file opened and
 * decompressed, every capture read, scheduled and compared once). */
typedef struct { double seconds, oracle; size_t captures; int generation; /* -1: several */ } FilePass;

static bool replay_pass(const char *path, FilePass *f) {
  CaptureReader r;
  Status st;
  *f = (FilePass){.generation = -2};
  phase_use_timing(false); /* as `tsched replay` runs */
  double t0 = now_seconds();
  if (!capture_reader_open(&r, path, &st)) { phase_use_timing(true); return false; }
  r.raw_schedule_items = true;
  r.raw_input = true;
  for (;;) {
    Arena a;
    arena_init(&a);
    Capture c;
    if (!capture_reader_next(&r, &a, &c, &st)) { arena_free(&a); break; }
    if (st.kind == ST_OK) {
      Outcome o;
      replay_capture(&c, &a, &o);
      f->oracle += c.oracle_seconds;
      f->captures++;
      f->generation = f->generation == -2 || f->generation == (int)c.generation ? (int)c.generation : -1;
    }
    arena_free(&a);
    if (r.gave_up[0]) break;
  }
  capture_reader_close(&r);
  f->seconds = now_seconds() - t0;
  phase_use_timing(true);
  return true;
}

/* The file replayed whole, best of run->repeat passes, against the sum of
 * its captures' oracle_seconds: printed, and counted for its version. */
static void bench_whole_file(BenchRun *run, const char *path) {
  FilePass best = {0}, f;
  for (int k = 0; k < run->repeat; k++) {
    if (!replay_pass(path, &f)) return;
    if (k == 0 || f.seconds < best.seconds) best = f;
  }
  double x = ratio(best.oracle, best.seconds);
  if (best.generation >= 0) {
    FileRatios *fr = &run->files[best.generation];
    if (!fr->files++ || x < fr->min_speedup) fr->min_speedup = x;
  }
  const char *gen = best.generation >= 0 ? tg_version_name((TgVersion)best.generation) : "(several)";
  if (run->summary_only) return;
  if (run->json) {
    StrBuf b = {0};
    sb_puts(&b, "{\"file\": ");
    json_str_lit(&b, path);
    sb_printf(&b, ", \"generation\": \"%s\", \"captures\": %zu, \"oracle_seconds\": %.6f, \"replay\": %.6f, "
              "\"replay_speedup\": %.1f}\n", gen, best.captures, best.oracle, best.seconds, x);
    sb_flush(&b, stdout);
    sb_free(&b);
    return;
  }
  term_printf(stdout, "%-7s %-11s %zu captures, replayed whole in %.3f ms, oracle %.1f ms: replay-x %.0fx  %s\n", gen, "file",
              best.captures, best.seconds * 1e3, best.oracle * 1e3, x, path);
}

static void bench_file(BenchRun *run, const char *path) {
  CaptureReader r;
  Status st;
  size_t benched = 0;
  if (!capture_reader_open(&r, path, &st)) {
    term_printf(stderr, "ERROR %s\n", st.msg);
    run->errors++;
    return;
  }
  r.raw_schedule_items = true; /* as replay reads captures */
  r.raw_input = true;
  for (;;) {
    Arena parse;
    Capture c;
    Sample s = {0};
    bool measured;
    bool more = bench_next(&r, &parse, &c, &st, run->min_oracle, run->repeat, run->memory, run->trace, &s, &measured);
    if (more && st.kind == ST_BAD_INPUT) {
      term_printf(stderr, "ERROR %s\n", st.msg);
      run->errors++;
    }
    if (more && measured) {
      benched++;
      if (!run->summary_only) print_sample(&c, &s, run->json);
      if (run->all || s.outcome == OUT_PASS) add_sample(&run->per_gen[c.generation], s);
    }
    arena_free(&parse);
    if (!more) break;
    if (r.gave_up[0]) {
      term_printf(stderr, "ERROR %s\n", r.gave_up);
      run->errors++;
      break;
    }
  }
  capture_reader_close(&r);
  if (benched) bench_whole_file(run, path);
}

int cmd_bench(int argc, char **argv) {
  BenchRun run = {.memory = true, .repeat = 3};
  CliParser p;
  phase_use_timing(true);
  cli_init(&p, "bench", options, sizeof options / sizeof options[0], usage, argc, argv);
  size_t repeat;
  for (int id; (id = cli_next(&p)) != CLI_END;) {
    switch (id) {
      case OPT_JSON: run.json = true; break;
      case OPT_ALL: run.all = true; break;
      case OPT_NO_MEMORY: run.memory = false; break;
      case OPT_SUMMARY: run.summary_only = true; break;
      case OPT_TRACE: run.trace = true; break;
      case OPT_CPU_TIME: phase_use_cpu_time(true); break;
      case OPT_MIN_ORACLE: cli_seconds(&p, "--min-oracle", &run.min_oracle); break;
      case OPT_REPEAT:
        if (cli_index(&p, "--repeat", 1, 1000, &repeat)) run.repeat = (int)repeat;
        break;
    }
  }
  if (p.status < 0 && p.noperands == 0) cli_fail(&p, "no PATH given");
  if (p.status >= 0) {
    int status = p.status;
    cli_free(&p);
    return status;
  }
  char **files;
  size_t nfiles = collect_capture_files("bench", p.noperands, p.operands, false, &files, &run.errors);
  cli_free(&p);
  if (!run.json && !run.summary_only)
    printf("%-7s %-11s %8s %8s %8s %8s %8s %8s %9s %9s %9s %8s %7s %7s %7s  %s\n", "gen", "outcome", "read1", "read", "build",
           "schedule", "encode", "compare", "total", "oracle", "sched-x", "total-x", "mem/js", "arena/js", "rb/parse", "capture");
  for (size_t i = 0; i < nfiles; i++) bench_file(&run, files[i]);
  free_paths(files, nfiles);
  print_summary(run.per_gen, run.files, run.json);
  for (int v = 0; v < TG_NVERSIONS; v++) free(run.per_gen[v].items);
  return run.errors ? 1 : 0;
}
