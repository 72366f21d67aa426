/* capture.c — reading capture files line by line (see capture.h). */
#include "capture.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libdeflate.h>

enum { MAX_FILE_BYTES = 1 << 30 }; /* 1 GiB decompressed: anything larger is refused */
enum { MAX_NOT_JSON = 5 };         /* lines in a row that are not JSON before a file is given up */

/* The whole file at path, read as it is (a pipe too), with JSON_PADDING
 * bytes of room after it; NULL (and *st set) on error. */
static unsigned char *read_file_bytes(const char *path, size_t *len, Status *st) {
  FILE *f = fopen(path, "rb");
  if (!f) return status_bad_input(st, "%s: cannot open", path), NULL;
  size_t cap = 1 << 16, n = 0;
  unsigned char *buf = NULL;
  for (;;) {
    if (!buf || n == cap) {
      if (buf && cap >= MAX_FILE_BYTES) {
        status_bad_input(st, "%s: larger than %d bytes", path, MAX_FILE_BYTES);
        break;
      }
      if (buf) cap *= 2;
      unsigned char *bigger = realloc(buf, cap + JSON_PADDING);
      if (!bigger) { status_bad_input(st, "%s: out of memory", path); break; }
      buf = bigger;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0 && ferror(f)) { status_bad_input(st, "%s: read error", path); break; }
    if (got == 0) {
      fclose(f);
      *len = n;
      return buf;
    }
  }
  free(buf);
  fclose(f);
  return NULL;
}

static bool is_gzip(const unsigned char *p, size_t n) { return n >= 2 && p[0] == 0x1f && p[1] == 0x8b; }

/* The gzip members of in[0..n) decompressed, one after another (as gzread
 * reads them; what follows the last member and is not one is ignored), with
 * JSON_PADDING bytes of room after them; NULL (and *st set) on error. The
 * last member's ISIZE (its size mod 2^32) is the first guess of the size. */
static char *gunzip(const char *path, const unsigned char *in, size_t n, size_t *len, Status *st) {
  size_t hint = (size_t)in[n - 4] | (size_t)in[n - 3] << 8 | (size_t)in[n - 2] << 16 | (size_t)in[n - 1] << 24;
  size_t cap = hint >= n && hint <= MAX_FILE_BYTES ? hint : 4 * n;
  char *out = malloc(cap + JSON_PADDING);
  struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
  size_t pos = 0, got = 0;
  while (out && d && pos < n && is_gzip(in + pos, n - pos)) {
    size_t used = 0, made = 0;
    enum libdeflate_result rc = libdeflate_gzip_decompress_ex(d, in + pos, n - pos, out + got, cap - got, &used, &made);
    if (rc == LIBDEFLATE_INSUFFICIENT_SPACE) {
      if (cap >= MAX_FILE_BYTES) {
        status_bad_input(st, "%s: larger than %d bytes", path, MAX_FILE_BYTES);
        goto fail;
      }
      cap = cap * 2 < MAX_FILE_BYTES ? cap * 2 : MAX_FILE_BYTES;
      char *bigger = realloc(out, cap + JSON_PADDING);
      if (!bigger) {
        status_bad_input(st, "%s: out of memory", path);
        goto fail;
      }
      out = bigger;
      continue;
    }
    if (rc != LIBDEFLATE_SUCCESS) { /* libdeflate tells no cut stream from a corrupt one */
      status_bad_input(st, "%s: truncated or corrupt: the gzip data ends before its end or is not deflate data", path);
      goto fail;
    }
    pos += used;
    got += made;
  }
  if (!out || !d) {
    status_bad_input(st, "%s: out of memory", path);
    goto fail;
  }
  libdeflate_free_decompressor(d);
  *len = got;
  return out;
fail:
  libdeflate_free_decompressor(d);
  free(out);
  return NULL;
}

bool capture_reader_open(CaptureReader *r, const char *path, Status *st) {
  memset(r, 0, sizeof *r);
  r->path = path;
  size_t n = 0, len = 0;
  unsigned char *bytes = read_file_bytes(path, &n, st);
  if (!bytes) return false;
  char *buf = (char *)bytes;
  if (is_gzip(bytes, n)) { /* plain files are read as they are */
    buf = n >= 18 ? gunzip(path, bytes, n, &len, st)
                  : (status_bad_input(st, "%s: truncated: the gzip data ends before its end", path), NULL);
    free(bytes);
    if (!buf) return false;
  } else {
    len = n;
  }
  memset(buf + len, 0, JSON_PADDING);
  r->data = buf;
  r->len = len;
  return true;
}

void capture_reader_close(CaptureReader *r) {
  free(r->data);
  r->data = NULL;
}

static const char *str_field(const JVal *root, const char *key) {
  const JVal *v = json_get(root, key);
  return v && v->kind == J_STR ? v->u.s : NULL;
}

/* Check the top-level fields every capture must have. */
static bool check_top(Capture *c, Status *st) {
  const char *where = c->file;
  if (c->root->kind != J_OBJ) return status_bad_input(st, "%s:%zu: a capture must be a JSON object", where, c->line);
  const char *name = str_field(c->root, "name");
  if (name) c->name = name;
  const char *gen = str_field(c->root, "generation");
  int g = tg_version_parse(gen);
  const char *named = name ? name : "", *colon = name ? ": " : ""; /* the name, when the line has one */
  if (!gen) return status_bad_input(st, "%s:%zu: %s%sfield \"generation\" missing or not a string", where, c->line, named, colon);
  if (g < 0) return status_unsupported(st, "%s:%zu: %s%sunknown version \"%s\"", where, c->line, named, colon, gen);
  c->generation = (TgVersion)g;
  c->generation_known = true;
  const char *fmt = str_field(c->root, "format");
  if (!fmt || strcmp(fmt, "tsched-capture/1") != 0)
    return status_bad_input(st, "%s:%zu: %s: field \"format\" must be \"tsched-capture/1\"", where, c->line, c->name);
  if (!name) return status_bad_input(st, "%s:%zu: field \"name\" missing or not a string", where, c->line);
  c->context = json_get(c->root, "context");
  c->input = json_get(c->root, "input");
  c->expected = json_get(c->root, "expected");
  c->error = json_get(c->root, "error");
  if (!c->context || c->context->kind != J_OBJ)
    return status_bad_input(st, "%s:%zu: %s: field \"context\" missing or not an object", where, c->line, c->name);
  bool input_object = c->input && (c->input->kind == J_OBJ || (c->input->kind == J_RAW && c->input->u.s[0] == '{'));
  if (!input_object)
    return status_bad_input(st, "%s:%zu: %s: field \"input\" missing or not an object", where, c->line, c->name);
  if (!c->expected || (c->expected->kind != J_OBJ && c->expected->kind != J_NULL))
    return status_bad_input(st, "%s:%zu: %s: field \"expected\" missing or not an object/null", where, c->line, c->name);
  if (!c->error || (c->error->kind != J_OBJ && c->error->kind != J_NULL))
    return status_bad_input(st, "%s:%zu: %s: field \"error\" missing or not an object/null", where, c->line, c->name);
  if (c->expected->kind == J_NULL && c->error->kind == J_NULL)
    return status_bad_input(st, "%s:%zu: %s: neither \"expected\" nor \"error\" is set", where, c->line, c->name);
  const JVal *secs = json_get(c->root, "oracle_seconds");
  if (secs && secs->kind == J_FLOAT) c->oracle_seconds = secs->u.f;
  else if (secs && secs->kind == J_INT) c->oracle_seconds = (double)secs->u.i;
  return true;
}

/* The next non-blank line, [*start, *end) of r->data, r then past it;
 * false at the end of the file. */
static bool next_line(CaptureReader *r, size_t *start, size_t *end) {
  for (;;) {
    if (r->pos >= r->len) return false;
    const char *nl = memchr(r->data + r->pos, '\n', r->len - r->pos);
    *end = nl ? (size_t)(nl - r->data) : r->len;
    r->line++;
    *start = r->pos;
    r->pos = *end + 1;
    for (size_t i = *start; i < *end; i++)
      if (r->data[i] != ' ' && r->data[i] != '\t' && r->data[i] != '\r') return true;
  }
}

void capture_reader_count(CaptureReader *r, bool not_json, bool more) {
  if (!not_json) {
    r->not_json = 0;
    return;
  }
  if (++r->not_json == MAX_NOT_JSON && more)
    snprintf(r->gave_up, sizeof r->gave_up, "%s: %d lines in a row are not JSON (binary data?): the rest of the file is not read",
             r->path, MAX_NOT_JSON);
}

bool capture_reader_next(CaptureReader *r, Arena *a, Capture *c, Status *st) {
  memset(st, 0, sizeof *st);
  memset(c, 0, sizeof *c);
  size_t start, end;
  if (!next_line(r, &start, &end)) return false;
  c->file = r->path;
  c->line = r->line;
  c->name = "?";
  c->oracle_seconds = -1;
  c->bytes = end - start;
  char err[256];
  unsigned raw = JSON_RAW_UNKNOWN | (r->raw_schedule_items ? JSON_RAW_SCHEDULE_ITEMS : 0) | (r->raw_input ? JSON_RAW_INPUT : 0);
  c->root = json_parse_capture(a, r->data + start, end - start, raw, err, sizeof err);
  capture_reader_count(r, !c->root, r->pos < r->len);
  if (!c->root) {
    status_bad_input(st, "%s:%zu: %s", r->path, r->line, err);
    return true;
  }
  check_top(c, st);
  return true;
}

bool capture_reader_skip(CaptureReader *r) {
  size_t start, end;
  return next_line(r, &start, &end);
}

const JVal *capture_input(const Capture *c, Arena *a, Status *st) {
  char err[256];
  const JVal *in = json_materialize(a, c->input, err, sizeof err);
  if (!in) status_bad_input(st, "input: %s", err);
  return in;
}

bool capture_buffer_problem(const JVal *obj, const char *key, int64_t max, char *why, size_t whylen) {
  return capture_size_problem(json_get(obj, key), key, max, why, whylen);
}

bool capture_size_problem(const JVal *v, const char *key, int64_t max, char *why, size_t whylen) {
  if (!v || (v->kind != J_INT && v->kind != J_UINT && v->kind != J_BIGNUM))
    snprintf(why, whylen, "field \"%s\" missing or of the wrong type", key);
  else if (v->kind != J_INT || v->u.i < 0 || v->u.i > max)
    snprintf(why, whylen, "absurd %s", key);
  else
    return false;
  return true;
}

bool capture_ctx_int(const Capture *c, const char *key, int64_t *out) {
  const JVal *v = json_get(c->context, key);
  if (!v) return false;
  if (v->kind == J_BOOL) { *out = v->u.b; return true; }
  if (v->kind == J_INT) { *out = v->u.i; return true; }
  return false;
}

static const char *const buffer_keys[CAPTURE_BUF_KEYS] = {"device", "size",   "dtype",   "allocated",
                                                          "base",   "offset", "options", "lb_refcount"};
static const char *const lazybuffer_keys[CAPTURE_LB_KEYS] = {"device", "dtype", "st", "base", "op", "arg", "srcs", "buffer",
                                                             "realized", "forced_realize", "metadata", "metadata_caller"};

void capture_lazybuffer_tables(JTable t[2]) {
  t[0] = (JTable){.name = "buffers", .keys = buffer_keys, .nkeys = CAPTURE_BUF_KEYS, .text_key = -1};
  t[1] = (JTable){.name = "lazybuffers", .keys = lazybuffer_keys, .nkeys = CAPTURE_LB_KEYS, .text_key = CAPTURE_LB_ST};
}
