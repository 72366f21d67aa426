/* tools.c — shared helpers of the user-facing commands (tools.h). */
#include "tools.h"
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "compare.h"
#include "explain.h"
#include "replay.h"
#include "conformance/schedulers.h"

/* ---- text ---- */

enum { SINK_FLUSH_BYTES = 4 << 20 };

/* Room for `more` bytes: false (and b->over) past the buffer's limit. */
static bool sb_room(StrBuf *b, size_t more) {
  if (b->over) return false;
  if (b->limit && b->written + b->n + more > b->limit) {
    b->over = true;
    return false;
  }
  if (b->sink && b->n + more > SINK_FLUSH_BYTES && b->n) sb_flush(b, b->sink);
  return true;
}

static void sb_reserve(StrBuf *b, size_t more) {
  if (b->n + more + 1 <= b->cap) return;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->n + more + 1) cap *= 2;
  char *bigger = realloc(b->s, cap);
  if (!bigger) abort();
  b->s = bigger;
  b->cap = cap;
}

void sb_putn(StrBuf *b, const char *s, size_t n) {
  if (!sb_room(b, n)) return;
  sb_reserve(b, n);
  memcpy(b->s + b->n, s, n);
  b->n += n;
  b->s[b->n] = 0;
}

void sb_puts(StrBuf *b, const char *s) { sb_putn(b, s, strlen(s)); }
void sb_putc(StrBuf *b, char c) { sb_putn(b, &c, 1); }

void sb_printf(StrBuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n <= 0 || !sb_room(b, (size_t)n)) return;
  sb_reserve(b, (size_t)n);
  va_start(ap, fmt);
  vsnprintf(b->s + b->n, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->n += (size_t)n;
}

void sb_spaces(StrBuf *b, size_t n) {
  if (!sb_room(b, n)) return;
  sb_reserve(b, n);
  memset(b->s + b->n, ' ', n);
  b->n += n;
  b->s[b->n] = 0;
}

void sb_free(StrBuf *b) {
  free(b->s);
  b->s = NULL;
  b->n = b->cap = b->written = 0;
  b->over = false;
}

void sb_flush(StrBuf *b, FILE *f) {
  if (b->n) term_write(f, b->s, b->n);
  b->written += b->n;
  b->n = 0;
  if (b->s) b->s[0] = 0;
}

/* ---- Python reprs ---- */

/* CPython float_repr_style 'short': the shortest digits that round-trip,
 * fixed notation when -4 <= exponent < 16, else d.ddde+XX. */
const char *py_float_repr(double f, char *buf, size_t bufsize) {
  if (isnan(f)) { snprintf(buf, bufsize, "nan"); return buf; }
  if (isinf(f)) { snprintf(buf, bufsize, f < 0 ? "-inf" : "inf"); return buf; }
  char e[40];
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(e, sizeof e, "%.*e", prec - 1, f);
    if (strtod(e, NULL) == f) break;
  }
  /* e = [-]d[.ddd]e[+-]XX */
  const char *p = e;
  bool neg = *p == '-';
  if (neg) p++;
  char digits[24];
  size_t nd = 0;
  for (; *p && *p != 'e'; p++)
    if (*p != '.' && nd < sizeof digits - 1) digits[nd++] = *p;
  digits[nd] = 0;
  int exp10 = atoi(p + 1);
  while (nd > 1 && digits[nd - 1] == '0') digits[--nd] = 0; /* %e pads with zeros */
  char out[64];
  size_t o = 0;
  if (neg) out[o++] = '-';
  if (exp10 < -4 || exp10 >= 16) {
    out[o++] = digits[0];
    if (nd > 1) { out[o++] = '.'; memcpy(out + o, digits + 1, nd - 1); o += nd - 1; }
    o += (size_t)snprintf(out + o, sizeof out - o, "e%c%02d", exp10 < 0 ? '-' : '+', abs(exp10));
  } else if (exp10 < 0) {
    out[o++] = '0', out[o++] = '.';
    for (int i = 0; i < -exp10 - 1; i++) out[o++] = '0';
    memcpy(out + o, digits, nd); o += nd;
  } else {
    size_t point = (size_t)exp10 + 1;
    for (size_t i = 0; i < point; i++) out[o++] = i < nd ? digits[i] : '0';
    out[o++] = '.';
    if (nd > point) { memcpy(out + o, digits + point, nd - point); o += nd - point; }
    else out[o++] = '0';
  }
  out[o] = 0;
  snprintf(buf, bufsize, "%s", out);
  return buf;
}

void py_str_repr(StrBuf *b, const char *s, size_t n) {
  bool has_single = memchr(s, '\'', n) != NULL, has_double = memchr(s, '"', n) != NULL;
  char q = has_single && !has_double ? '"' : '\'';
  sb_putc(b, q);
  for (size_t i = 0; i < n; i++) {
    unsigned char ch = (unsigned char)s[i];
    if (ch == (unsigned char)q || ch == '\\') { sb_putc(b, '\\'); sb_putc(b, (char)ch); }
    else if (ch == '\n') sb_puts(b, "\\n");
    else if (ch == '\r') sb_puts(b, "\\r");
    else if (ch == '\t') sb_puts(b, "\\t");
    else if (ch < 0x20 || ch == 0x7f) sb_printf(b, "\\x%02x", ch);
    else sb_putc(b, (char)ch);
  }
  sb_putc(b, q);
}

void json_str_lit(StrBuf *b, const char *s) {
  sb_putc(b, '"');
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\') { sb_putc(b, '\\'); sb_putc(b, (char)ch); }
    else if (ch == '\n') sb_puts(b, "\\n");
    else if (ch < 0x20 || ch == 0x7f) sb_printf(b, "\\u%04x", ch);
    else if (ch == 0xC2 && (unsigned char)s[1] >= 0x80 && (unsigned char)s[1] <= 0x9F) sb_printf(b, "\\u%04x", (unsigned char)*++s);
    else sb_putc(b, (char)ch);
  }
  sb_putc(b, '"');
}

size_t workload_len(const char *name) {
  const char *hash = strrchr(name, '#');
  return hash ? (size_t)(hash - name) : strlen(name);
}

bool name_selected(const char *name, const char *pattern) {
  if (strcmp(name, pattern) == 0) return true;
  size_t n = workload_len(name);
  return !strchr(pattern, '#') && strlen(pattern) == n && strncmp(name, pattern, n) == 0;
}

/* ---- walking captures ---- */

size_t walk_captures(const char *cmd, int npaths, char **paths, CaptureVisit visit, void *ctx) {
  char **files;
  size_t errors = 0, nfiles = collect_capture_files(cmd, npaths, paths, false, &files, &errors);
  bool go_on = true;
  for (size_t i = 0; i < nfiles && go_on; i++) {
    CaptureReader r;
    Status st;
    if (!capture_reader_open(&r, files[i], &st)) {
      term_printf(stderr, "tsched %s: %s\n", cmd, st.msg);
      errors++;
      continue;
    }
    while (go_on) {
      Arena a;
      arena_init(&a);
      Capture c;
      if (!capture_reader_next(&r, &a, &c, &st)) { arena_free(&a); break; }
      if (st.kind != ST_OK) {
        term_printf(stderr, "tsched %s: %s\n", cmd, st.msg);
        errors++;
      } else {
        go_on = visit(&c, &a, ctx);
      }
      arena_free(&a);
      if (r.gave_up[0]) {
        term_printf(stderr, "tsched %s: %s\n", cmd, r.gave_up);
        errors++;
        break;
      }
    }
    capture_reader_close(&r);
  }
  free_paths(files, nfiles);
  return errors;
}

void capture_set_keep(CaptureSet *s, const Capture *c, Arena *a) {
  if (s->n == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 64;
    Loaded *bigger = realloc(s->items, s->cap * sizeof *bigger);
    if (!bigger) abort();
    s->items = bigger;
  }
  Loaded *l = &s->items[s->n++];
  l->arena = *a;
  arena_init(a); /* the walker frees an empty arena */
  l->c = *c;
  l->c.file = arena_strdup(&l->arena, c->file); /* the walker frees its file names */
}

void capture_set_free(CaptureSet *s) {
  for (size_t i = 0; i < s->n; i++) arena_free(&s->items[i].arena);
  free(s->items);
  memset(s, 0, sizeof *s);
}

static int cmp_loaded(const void *x, const void *y) {
  const Loaded *a = x, *b = y;
  int c = strcmp(a->c.name, b->c.name);
  return c ? c : (int)a->c.generation - (int)b->c.generation;
}

void capture_set_sort(CaptureSet *s) {
  if (s->n) qsort(s->items, s->n, sizeof *s->items, cmp_loaded);
}

size_t capture_set_find(const CaptureSet *s, const char *name) {
  size_t lo = 0, hi = s->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (strcmp(s->items[mid].c.name, name) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo < s->n && strcmp(s->items[lo].c.name, name) == 0 ? lo : s->n;
}

/* ---- the schedule of a capture ---- */

static void use_recording(const Capture *c, Sched *s) {
  bool raised = c->error && c->error->kind == J_OBJ;
  s->result = raised ? NULL : c->expected;
  s->error = raised ? c->error : NULL;
}

void sched_of(const Capture *c, Arena *a, bool recorded_only, Sched *s) { sched_of_explained(c, a, recorded_only, NULL, s); }

void sched_of_explained(const Capture *c, Arena *a, bool recorded_only, Explain *ex, Sched *s) {
  memset(s, 0, sizeof *s);
  s->source = SRC_RECORDED;
  use_recording(c, s);
  if (recorded_only) return;
  ScheduleCaptureFn fn = scheduler_for(c->generation);
  Status st = {0};
  JVal *result = NULL;
  explain_begin(ex);
  bool ok = fn && fn(c, a, &result, &st);
  explain_end();
  if (!ok && st.kind != ST_RAISED) {
    s->source = SRC_UNSUPPORTED;
    snprintf(s->why, sizeof s->why, "%s", fn ? st.msg : "no scheduler for this generation");
    return;
  }
  bool passes;
  if (!ok) passes = s->error && compare_error(c->error, st.type, st.msg, s->why, sizeof s->why);
  else passes = !s->error && compare_expected(a, c->generation, c->expected, result, s->why, sizeof s->why);
  if (!passes) {
    if (!ok && !s->error) snprintf(s->why, sizeof s->why, "tsched raised %s: %.400s", st.type, st.msg);
    if (ok && s->error) snprintf(s->why, sizeof s->why, "tsched did not raise");
    s->source = SRC_DIFFERS;
    return;
  }
  s->source = SRC_TSCHED;
  if (ok) s->result = result;
}

const char *sched_source_word(SchedSource s) {
  static const char *const words[] = {"tsched", "differs", "unsupported", "recorded"};
  return words[s];
}

const char *sched_source_text(const Sched *s, char *buf, size_t bufsize) {
  switch (s->source) {
    case SRC_TSCHED: snprintf(buf, bufsize, "from the tsched scheduler (matches the recording)"); break;
    case SRC_DIFFERS: snprintf(buf, bufsize, "from the recording (tsched differs: %.300s)", s->why); break;
    case SRC_UNSUPPORTED: snprintf(buf, bufsize, "from the recording (tsched: %.300s)", s->why); break;
    case SRC_RECORDED: snprintf(buf, bufsize, "from the recording"); break;
  }
  return buf;
}

const JVal *sched_items(const Sched *s) {
  const JVal *items = s->result ? json_get(s->result, "schedule") : NULL;
  return items && items->kind == J_ARR ? items : NULL;
}
