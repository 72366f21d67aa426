/* capture.c — reading capture files line by line (see capture.h). */
#include "capture.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

enum { MAX_FILE_BYTES = 1 << 30 }; /* 1 GiB decompressed: anything larger is refused */
enum { MAX_NOT_JSON = 5 };         /* lines in a row that are not JSON before a file is given up */

bool capture_reader_open(CaptureReader *r, const char *path, Status *st) {
  memset(r, 0, sizeof *r);
  r->path = path;
  gzFile f = gzopen(path, "rb"); /* reads plain files too */
  if (!f) return status_bad_input(st, "%s: cannot open", path);
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap + JSON_PADDING);
  for (;;) {
    if (!buf) { gzclose(f); return status_bad_input(st, "%s: out of memory", path); }
    if (len == cap) {
      if (cap >= MAX_FILE_BYTES) {
        free(buf);
        gzclose(f);
        return status_bad_input(st, "%s: larger than %d bytes", path, MAX_FILE_BYTES);
      }
      cap *= 2;
      char *bigger = realloc(buf, cap + JSON_PADDING);
      if (!bigger) { free(buf); buf = NULL; continue; }
      buf = bigger;
    }
    int n = gzread(f, buf + len, (unsigned)(cap - len));
    if (n < 0) {
      int code;
      const char *msg = gzerror(f, &code);
      status_bad_input(st, "%s: read error: %s", path, msg);
      free(buf);
      gzclose(f);
      return false;
    }
    if (n == 0) break;
    len += (size_t)n;
  }
  int code;
  gzerror(f, &code);
  if (gzclose(f) != Z_OK || code != Z_OK) { /* a gzip member without its end (crc and size) */
    free(buf);
    return status_bad_input(st, "%s: truncated: the gzip data ends before its end", path);
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

bool capture_reader_next(CaptureReader *r, Arena *a, Capture *c, Status *st) {
  memset(st, 0, sizeof *st);
  memset(c, 0, sizeof *c);
  /* skip blank lines */
  for (;;) {
    if (r->pos >= r->len) return false;
    const char *nl = memchr(r->data + r->pos, '\n', r->len - r->pos);
    size_t end = nl ? (size_t)(nl - r->data) : r->len;
    r->line++;
    size_t start = r->pos;
    r->pos = end + 1;
    bool blank = true;
    for (size_t i = start; i < end && blank; i++)
      if (r->data[i] != ' ' && r->data[i] != '\t' && r->data[i] != '\r') blank = false;
    if (blank) continue;
    c->file = r->path;
    c->line = r->line;
    c->name = "?";
    c->oracle_seconds = -1;
    c->bytes = end - start;
    char err[256];
    unsigned raw = JSON_RAW_UNKNOWN | (r->raw_schedule_items ? JSON_RAW_SCHEDULE_ITEMS : 0) | (r->raw_input ? JSON_RAW_INPUT : 0);
    c->root = json_parse_capture(a, r->data + start, end - start, raw, err, sizeof err);
    if (!c->root) {
      status_bad_input(st, "%s:%zu: %s", r->path, r->line, err);
      if (++r->not_json == MAX_NOT_JSON && r->pos < r->len)
        snprintf(r->gave_up, sizeof r->gave_up, "%s: %d lines in a row are not JSON (binary data?): the rest of the file is not read",
                 r->path, MAX_NOT_JSON);
      return true;
    }
    r->not_json = 0;
    check_top(c, st);
    return true;
  }
}

const JVal *capture_input(const Capture *c, Arena *a, Status *st) {
  char err[256];
  const JVal *in = json_materialize(a, c->input, err, sizeof err);
  if (!in) status_bad_input(st, "input: %s", err);
  return in;
}

bool capture_buffer_problem(const JVal *obj, const char *key, int64_t max, char *why, size_t whylen) {
  const JVal *v = json_get(obj, key);
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
