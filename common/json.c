/* json.c — lookups, builders and the writer for the JVal tree (json.h). */
#include "json.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

JVal *json_parse_text(Arena *a, const char *text, char *err, size_t errlen) {
  size_t n = strlen(text);
  char *buf = arena_alloc(a, n + JSON_PADDING);
  memcpy(buf, text, n);
  return json_parse(a, buf, n, err, errlen);
}

bool json_is_int(const JVal *v) { return v && (v->kind == J_INT || v->kind == J_UINT); }
bool json_is_number(const JVal *v) { return v && (v->kind == J_INT || v->kind == J_UINT || v->kind == J_FLOAT); }

static JVal *make(Arena *a, JKind k) {
  JVal *v = arena_alloc(a, sizeof *v);
  v->kind = k;
  return v;
}

JVal *json_null(Arena *a) { return make(a, J_NULL); }
JVal *json_bool(Arena *a, bool b) { JVal *v = make(a, J_BOOL); v->u.b = b; return v; }
JVal *json_int(Arena *a, int64_t i) { JVal *v = make(a, J_INT); v->u.i = i; return v; }
JVal *json_bignum(Arena *a, const char *digits, size_t n) {
  JVal *v = make(a, J_BIGNUM);
  v->u.s = arena_strndup(a, digits, n);
  v->n = (uint32_t)n;
  return v;
}
JVal *json_uint(Arena *a, uint64_t u) {
  if (u <= INT64_MAX) return json_int(a, (int64_t)u);
  JVal *v = make(a, J_UINT);
  v->u.u = u;
  return v;
}
JVal *json_float(Arena *a, double f) { JVal *v = make(a, J_FLOAT); v->u.f = f; return v; }
JVal *json_strn(Arena *a, const char *s, size_t n) {
  JVal *v = make(a, J_STR);
  v->u.s = arena_strndup(a, s, n);
  v->n = n;
  return v;
}
JVal *json_str(Arena *a, const char *s) { return json_strn(a, s, strlen(s)); }
JVal *json_arr(Arena *a) { return make(a, J_ARR); }
JVal *json_obj(Arena *a) { return make(a, J_OBJ); }

/* Capacity is the next power of two >= n: grow when n reaches one. */
static bool needs_growth(size_t n) { return n == 0 || (n & (n - 1)) == 0; }

void json_push(Arena *a, JVal *arr, JVal *item) {
  if (needs_growth(arr->n)) {
    JVal **bigger = arena_array(a, arr->n ? arr->n * 2 : 4, sizeof(JVal *));
    if (arr->n) memcpy(bigger, arr->u.arr, arr->n * sizeof(JVal *));
    arr->u.arr = bigger;
  }
  arr->u.arr[arr->n++] = item;
}

void json_set(Arena *a, JVal *obj, const char *key, JVal *val) {
  size_t n = strlen(key);
  for (size_t i = 0; i < obj->n; i++)
    if (obj->u.obj[i].keylen >= n && strcmp(obj->u.obj[i].key, key) == 0) { obj->u.obj[i].val = val; return; } /* (shorter: not equal) */
  if (needs_growth(obj->n)) {
    JMember *bigger = arena_array(a, obj->n ? obj->n * 2 : 4, sizeof(JMember));
    if (obj->n) memcpy(bigger, obj->u.obj, obj->n * sizeof(JMember));
    obj->u.obj = bigger;
  }
  JMember *m = &obj->u.obj[obj->n++];
  m->key = arena_strndup(a, key, n);
  m->keylen = (uint32_t)n;
  m->val = val;
}

/* 0..4095 as J_INT, read-only data (its pages are memory only where used) */
#define JINT1(n) {.kind = J_INT, .u = {.i = (n)}},
#define JINT4(n) JINT1(n) JINT1((n) + 1) JINT1((n) + 2) JINT1((n) + 3)
#define JINT16(n) JINT4(n) JINT4((n) + 4) JINT4((n) + 8) JINT4((n) + 12)
#define JINT64(n) JINT16(n) JINT16((n) + 16) JINT16((n) + 32) JINT16((n) + 48)
#define JINT256(n) JINT64(n) JINT64((n) + 64) JINT64((n) + 128) JINT64((n) + 192)
#define JINT1024(n) JINT256(n) JINT256((n) + 256) JINT256((n) + 512) JINT256((n) + 768)
enum { SHARED_INTS = 4096 };
static const JVal shared_ints[SHARED_INTS] = {JINT1024(0) JINT1024(1024) JINT1024(2048) JINT1024(3072)};
static const JVal shared_null = {.kind = J_NULL}, shared_bools[2] = {{.kind = J_BOOL, .u = {.b = false}}, {.kind = J_BOOL, .u = {.b = true}}};

/* (the shared values are const: a write through these pointers faults) */
JVal *json_int_shared(Arena *a, int64_t i) {
  return i >= 0 && i < SHARED_INTS ? (JVal *)&shared_ints[i] : json_int(a, i);
}
JVal *json_null_shared(void) { return (JVal *)&shared_null; }
JVal *json_bool_shared(bool b) { return (JVal *)&shared_bools[b]; }

JVal *json_arr_n(Arena *a, size_t n) {
  static JVal *no_items[1];
  JVal *j = json_arr(a);
  size_t cap = 1; /* the next power of two >= n, as json_push keeps it */
  while (cap < n) cap *= 2;
  j->u.arr = n ? arena_array(a, cap, sizeof(JVal *)) : no_items;
  j->n = (uint32_t)n;
  return j;
}

JVal *json_obj_fixed(Arena *a, size_t n, const char *const *keys, JVal *const *vals) {
  JVal *o = json_obj(a);
  o->u.obj = arena_array(a, n ? n : 1, sizeof(JMember));
  for (size_t i = 0; i < n; i++) o->u.obj[i] = (JMember){keys[i], (uint32_t)strlen(keys[i]), vals[i]};
  o->n = (uint32_t)n;
  return o;
}

/* ---- writer: a growable byte buffer and an explicit stack ---- */

typedef struct { char *p; size_t n, cap; } Buf;

static void buf_put(Buf *b, const char *s, size_t n) {
  if (b->n + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + n + 1) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) abort();
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = 0;
}
static void buf_puts(Buf *b, const char *s) { buf_put(b, s, strlen(s)); }

static void write_string(Buf *b, const char *s, size_t n) {
  buf_put(b, "\"", 1);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    char esc[8];
    if (c == '"') buf_put(b, "\\\"", 2);
    else if (c == '\\') buf_put(b, "\\\\", 2);
    else if (c == '\n') buf_put(b, "\\n", 2);
    else if (c == '\t') buf_put(b, "\\t", 2);
    else if (c == '\r') buf_put(b, "\\r", 2);
    else if (c < 0x20) { snprintf(esc, sizeof esc, "\\u%04x", c); buf_puts(b, esc); }
    else buf_put(b, (const char *)&s[i], 1);
  }
  buf_put(b, "\"", 1);
}

/* Python's repr(float): shortest round-trip digits, always with '.' or 'e'. */
static void write_float(Buf *b, double f) {
  char tmp[40];
  if (isnan(f)) { buf_puts(b, "{\"float\": \"nan\"}"); return; }
  if (isinf(f)) { buf_puts(b, f > 0 ? "{\"float\": \"inf\"}" : "{\"float\": \"-inf\"}"); return; }
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(tmp, sizeof tmp, "%.*g", prec, f);
    if (strtod(tmp, NULL) == f) break;
  }
  buf_puts(b, tmp);
  if (!strpbrk(tmp, ".eEn")) buf_puts(b, ".0");
}

static void write_scalar(Buf *b, const JVal *v) {
  char tmp[32];
  switch (v->kind) {
    case J_NULL: buf_puts(b, "null"); break;
    case J_BOOL: buf_puts(b, v->u.b ? "true" : "false"); break;
    case J_INT: snprintf(tmp, sizeof tmp, "%lld", (long long)v->u.i); buf_puts(b, tmp); break;
    case J_UINT: snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)v->u.u); buf_puts(b, tmp); break;
    case J_FLOAT: write_float(b, v->u.f); break;
    case J_STR: write_string(b, v->u.s, v->n); break;
    case J_BIGNUM: case J_RAW: buf_put(b, v->u.s, v->n); break;
    default: break;
  }
}

typedef struct { const JVal *v; size_t next; } Frame;

static void write_tree(Buf *b, const JVal *root) {
  size_t cap = 64, depth = 0;
  Frame *stack = malloc(cap * sizeof *stack);
  if (!stack) abort();
  const JVal *pending = root;
  for (;;) {
    if (pending) {
      if (pending->kind != J_ARR && pending->kind != J_OBJ) {
        write_scalar(b, pending);
      } else {
        buf_puts(b, pending->kind == J_ARR ? "[" : "{");
        if (depth == cap) {
          cap *= 2;
          Frame *s = realloc(stack, cap * sizeof *stack);
          if (!s) abort();
          stack = s;
        }
        stack[depth++] = (Frame){pending, 0};
      }
      pending = NULL;
    }
    if (depth == 0) break;
    Frame *top = &stack[depth - 1];
    if (top->next == top->v->n) {
      buf_puts(b, top->v->kind == J_ARR ? "]" : "}");
      depth--;
      continue;
    }
    if (top->next > 0) buf_puts(b, ", ");
    if (top->v->kind == J_ARR) {
      pending = top->v->u.arr[top->next++];
    } else {
      const JMember *m = &top->v->u.obj[top->next++];
      write_string(b, m->key, m->keylen);
      buf_puts(b, ": ");
      pending = m->val;
    }
  }
  free(stack);
}

char *json_to_string(const JVal *v, size_t *len_out) {
  Buf b = {0};
  write_tree(&b, v);
  if (!b.p) buf_puts(&b, "");
  if (len_out) *len_out = b.n;
  return b.p;
}

void json_write(FILE *f, const JVal *v) {
  size_t n;
  char *s = json_to_string(v, &n);
  fwrite(s, 1, n, f);
  free(s);
}

const JVal *json_materialize(Arena *a, const JVal *v, char *err, size_t errlen) {
  if (!v || v->kind != J_RAW) return v;
  return json_parse_capture(a, v->u.s, v->n, JSON_UTF8_CHECKED, err, errlen); /* its line was checked */
}

/* One value still to copy: its source and where its copy goes. */
typedef struct CopyJob { const JVal *src; JVal **dst; } CopyJob;

static void copy_out_of_memory(size_t bytes) {
  fprintf(stderr, "tsched: out of memory allocating %zu bytes\n", bytes);
  abort();
}

/* the text of a J_STR, J_BIGNUM or J_RAW (with the padding json_parse reads) */
static const char *copy_text(Arena *a, const JVal *s) {
  if (s->kind != J_RAW) return arena_strndup(a, s->u.s, s->n);
  char *t = arena_alloc(a, (size_t)s->n + JSON_PADDING); /* zeroed */
  memcpy(t, s->u.s, s->n);
  return t;
}

JVal *json_copy(Arena *a, const JVal *v) {
  if (!v) return NULL;
  JVal *root = NULL;
  size_t n = 0, cap = 16;
  CopyJob *jobs = malloc(cap * sizeof *jobs);
  if (!jobs) copy_out_of_memory(cap * sizeof *jobs);
  jobs[n++] = (CopyJob){v, &root};
  while (n) {
    CopyJob job = jobs[--n];
    const JVal *s = job.src;
    JVal *d = make(a, s->kind);
    *d = *s;
    *job.dst = d;
    if (s->kind == J_STR || s->kind == J_BIGNUM || s->kind == J_RAW) d->u.s = copy_text(a, s);
    if (s->kind != J_ARR && s->kind != J_OBJ) continue;
    if (n + s->n > cap) {
      while (n + s->n > cap) cap *= 2;
      CopyJob *bigger = realloc(jobs, cap * sizeof *jobs);
      if (!bigger) copy_out_of_memory(cap * sizeof *jobs);
      jobs = bigger;
    }
    if (s->kind == J_ARR) {
      d->u.arr = arena_array(a, s->n ? s->n : 1, sizeof *d->u.arr);
      for (uint32_t i = 0; i < s->n; i++) jobs[n++] = (CopyJob){s->u.arr[i], &d->u.arr[i]};
      continue;
    }
    d->u.obj = arena_array(a, s->n ? s->n : 1, sizeof *d->u.obj);
    for (uint32_t i = 0; i < s->n; i++) {
      const JMember *m = &s->u.obj[i];
      d->u.obj[i] = (JMember){arena_strndup(a, m->key, m->keylen), m->keylen, NULL};
      jobs[n++] = (CopyJob){m->val, &d->u.obj[i].val};
    }
  }
  free(jobs);
  return root;
}

const char *json_keep_str(Arena *a, JStrKeep *k, const char *s, size_t n) {
  if (s != k->src) {
    k->src = s;
    k->copy = arena_strndup(a, s, n);
  }
  return k->copy;
}
