/* dtype.c — interned dtypes (tinygrad/dtype.py). Derived types (vectors,
 * pointers, images) live for the whole process in a small intern table. */
#include "dtype.h"
#include <stdint.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static DType scalars[] = {
  /* name, cname, kind, priority, itemsize, fmt */
  {"void", "void", DK_VOID, -1, 0, 0, 1, NULL, false, false, 1, -1, NULL, false, 0, {0}},
  {"bool", "bool", DK_BOOL, 0, 1, '?', 1, NULL, false, false, 1, -1, NULL, false, 0, {0}},
  {"char", "signed char", DK_INT, 1, 1, 'b', 1, NULL, false, false, 1, -1, NULL, false, 0, {0}},
  {"uchar", "unsigned char", DK_UINT, 2, 1, 'B', 1, NULL, false, false, 1, -1, NULL, false, 0, {0}},
  {"short", "short", DK_INT, 3, 2, 'h', 1, NULL, false, false, 1, -1, NULL, false, 0, {0}},
  {"ushort", "unsigned short", DK_UINT, 4, 2, 'H', 1, NULL, false, false, 1, -1, NULL, false, 0, {0}},
  {"int", "int", DK_INT, 5, 4, 'i', 1, NULL, false, false, 1, -1, NULL, false, 0, {0}},
  {"uint", "unsigned int", DK_UINT, 6, 4, 'I', 1, NULL, false, false, 1, -1, NULL, false, 0, {0}},
  {"long", "long", DK_INT, 7, 8, 'q', 1, NULL, false, false, 1, -1, NULL, false, 0, {0}},
  {"ulong", "unsigned long", DK_UINT, 8, 8, 'Q', 1, NULL, false, false, 1, -1, NULL, false, 0, {0}},
  {"half", "half", DK_FLOAT, 9, 2, 'e', 1, NULL, false, false, 1, -1, NULL, false, 0, {0}},
  {"bfloat16", "__bf16", DK_FLOAT, 10, 2, 0, 1, NULL, false, false, 1, -1, NULL, false, 0, {0}},
  {"float", "float", DK_FLOAT, 11, 4, 'f', 1, NULL, false, false, 1, -1, NULL, false, 0, {0}},
  {"double", "double", DK_FLOAT, 12, 8, 'd', 1, NULL, false, false, 1, -1, NULL, false, 0, {0}},
};
enum { NSCALARS = sizeof scalars / sizeof scalars[0] };

const DType *dt_void = &scalars[0], *dt_bool = &scalars[1], *dt_char = &scalars[2], *dt_uchar = &scalars[3],
            *dt_short = &scalars[4], *dt_ushort = &scalars[5], *dt_int = &scalars[6], *dt_uint = &scalars[7],
            *dt_long = &scalars[8], *dt_ulong = &scalars[9], *dt_half = &scalars[10], *dt_bfloat16 = &scalars[11],
            *dt_float = &scalars[12], *dt_double = &scalars[13];

static void init_scalars(void) {
  if (scalars[0].scalar) return;
  for (int i = 0; i < NSCALARS; i++) scalars[i].scalar = scalars[i].base = &scalars[i];
}

/* The intern table of derived dtypes: a linked list is enough, there are few. */
typedef struct Derived { struct Derived *next; DType d; } Derived;
static Derived *derived;

/* Two scalar/base links are the same when they name the same other dtype,
 * or when both point back at their own dtype (NULL in a prototype). */
static bool same_link(const DType *pa, const DType *a, const DType *pb, const DType *b) {
  bool a_self = !pa || pa == a, b_self = !pb || pb == b;
  return a_self == b_self && (a_self || pa == pb);
}

static bool same_dtype(const DType *a, const DType *b) {
  return strcmp(a->name, b->name) == 0 && a->count == b->count && same_link(a->scalar, a, b->scalar, b) &&
         a->is_ptr == b->is_ptr && a->local == b->local && a->v == b->v && a->ptr_size == b->ptr_size &&
         same_link(a->base, a, b->base, b) &&
         a->is_image == b->is_image && a->image_ndim == b->image_ndim &&
         memcmp(a->image_shape, b->image_shape, sizeof a->image_shape) == 0 && a->itemsize == b->itemsize;
}

static const DType *intern(const DType *proto) {
  for (Derived *e = derived; e; e = e->next)
    if (same_dtype(&e->d, proto)) return &e->d;
  Derived *e = calloc(1, sizeof *e);
  if (!e) abort();
  e->d = *proto;
  e->next = derived;
  derived = e;
  if (!e->d.base) e->d.base = &e->d;
  if (!e->d.scalar) e->d.scalar = &e->d;
  return &e->d;
}

const DType *dtype_vec(const DType *d, int count) {
  init_scalars();
  if (count == 1 || d == dt_void) return d;
  DType p = *d;
  p.count = count;
  p.itemsize = d->itemsize * count;
  p.scalar = d;
  p.base = NULL;
  p.fmt = 0;
  return intern(&p);
}

/* dtype_ptr results by (d, size, local): interning walks the derived list */
typedef struct PtrMemo { const DType *d; int64_t size; bool local; const DType *ptr; } PtrMemo;
static PtrMemo ptr_memo[64];

const DType *dtype_ptr(const DType *d, int64_t size, bool local) {
  init_scalars();
  if (d->is_image) return d;
  PtrMemo *m = &ptr_memo[(((uintptr_t)d >> 4) ^ (uint64_t)size ^ local) & 63];
  if (m->ptr && m->d == d && m->size == size && m->local == local) return m->ptr;
  DType p = *d;
  p.is_ptr = true;
  p.local = local;
  p.v = 1;
  p.ptr_size = size;
  p.base = d;
  p.scalar = NULL;
  const DType *r = intern(&p);
  *m = (PtrMemo){d, size, local, r};
  return r;
}

const DType *dtype_image(bool half, int ndim, const int64_t *shape) {
  init_scalars();
  DType p = {half ? "imageh" : "imagef", half ? "imageh" : "imagef", DK_FLOAT, 100, half ? 2 : 4, half ? 'e' : 'f',
             1, NULL, true, false, 1, -1, dt_float, true, ndim, {0}};
  int64_t prod = 1;
  for (int i = 0; i < ndim && i < 4; i++) { p.image_shape[i] = shape[i]; prod *= shape[i]; }
  p.ptr_size = prod;
  return intern(&p);
}

static const DType *scalar_named(const char *s, size_t n) {
  init_scalars();
  for (int i = 0; i < NSCALARS; i++)
    if (strlen(scalars[i].name) == n && strncmp(scalars[i].name, s, n) == 0) return &scalars[i];
  return NULL;
}

/* "imagef((1, 2, 4))" */
static const DType *parse_image(const char *s) {
  bool half = strncmp(s, "imageh(", 7) == 0;
  if (!half && strncmp(s, "imagef(", 7) != 0) return NULL;
  const char *p = s + 7;
  if (*p != '(') return NULL;
  p++;
  int64_t shape[4];
  int ndim = 0;
  while (*p && *p != ')') {
    char *end;
    errno = 0;
    long long x = strtoll(p, &end, 10);
    if (end == p || ndim == 4 || x < 0 || errno == ERANGE) return NULL; /* an image's dimensions are sizes */
    shape[ndim++] = x;
    p = end;
    while (*p == ',' || *p == ' ') p++;
  }
  if (strcmp(p, "))") != 0) return NULL;
  int64_t prod = 1;
  for (int i = 0; i < ndim; i++)
    if (__builtin_mul_overflow(prod, shape[i], &prod)) return NULL; /* an image of more than 2**63 pixels: not a dtype */
  return dtype_image(half, ndim, shape);
}

/* 197f8fd's "PtrDType(dtypes.float)", "PtrDType(dtypes.float, local=True)", from after "PtrDType(dtypes." */
static const DType *parse_ptr_class(const char *s) {
  char inner[64];
  size_t n = strlen(s);
  bool local = n > 13 && strcmp(s + n - 13, ", local=True)") == 0;
  size_t k = local ? n - 13 : n - 1;
  if (n == 0 || k >= sizeof inner || (!local && s[n - 1] != ')')) return NULL;
  memcpy(inner, s, k);
  inner[k] = 0;
  const DType *d = dtype_parse(inner);
  return d ? dtype_ptr(d, -1, local) : NULL;
}

const DType *dtype_parse(const char *s) {
  init_scalars();
  if (!s) return NULL;
  if (strncmp(s, "dtypes.", 7) == 0) s += 7;
  if (strncmp(s, "PtrDType(dtypes.", 16) == 0) return parse_ptr_class(s + 16);
  if (strncmp(s, "image", 5) == 0) return parse_image(s);
  if (s[0] == '_') { /* 0.9.1 vector: "_float4" */
    size_t n = strlen(s + 1), k = n;
    while (k > 0 && s[1 + k - 1] >= '0' && s[1 + k - 1] <= '9') k--;
    const DType *base = scalar_named(s + 1, k);
    if (!base || k == n) return NULL;
    return dtype_vec(base, atoi(s + 1 + k));
  }
  const char *dot = strchr(s, '.');
  const DType *d = scalar_named(s, dot ? (size_t)(dot - s) : strlen(s));
  while (d && dot) {
    int count;
    long long size;
    char tail[32];
    if (sscanf(dot, ".vec(%d)", &count) == 1) d = dtype_vec(d, count);
    else if (strncmp(dot, ".ptr()", 6) == 0) d = dtype_ptr(d, -1, false);
    else if (strncmp(dot, ".ptr(local=True)", 16) == 0) d = dtype_ptr(d, -1, true);
    else if (sscanf(dot, ".ptr(%lld%31[^)])", &size, tail) == 2 && strcmp(tail, ", local=True") == 0) d = dtype_ptr(d, size, true);
    else if (sscanf(dot, ".ptr(%lld)", &size) == 1) d = dtype_ptr(d, size, false);
    else return NULL;
    dot = strchr(dot + 1, ')');
    dot = dot ? strchr(dot, '.') : NULL;
  }
  return d;
}

const char *dtype_repr(const DType *d, TgVersion v, char *buf, size_t n) {
  char inner[96];
  if (d->is_image) {
    int k = snprintf(buf, n, "%s((", d->name);
    for (int i = 0; i < d->image_ndim && k > 0 && (size_t)k < n; i++)
      k += snprintf(buf + k, n - (size_t)k, i ? ", %lld" : "%lld", (long long)d->image_shape[i]);
    if (k > 0 && (size_t)k < n) snprintf(buf + k, n - (size_t)k, d->image_ndim == 1 ? ",))" : "))");
    return buf;
  }
  if (d->is_ptr) {
    dtype_repr(d->base, v, inner, sizeof inner);
    switch (tg_features(v)->ptr_repr) {
      case PTR_REPR_DOT: snprintf(buf, n, "ptr.dtypes.%s", inner); break;
      case PTR_REPR_METHOD: snprintf(buf, n, "%s.ptr(%s)", inner, d->local ? "local=True" : ""); break;
      case PTR_REPR_CLASS: snprintf(buf, n, "PtrDType(dtypes.%s%s)", inner, d->local ? ", local=True" : ""); break;
      case PTR_REPR_SIZED: snprintf(buf, n, "%s.ptr(%lld%s)", inner, (long long)d->ptr_size, d->local ? ", local=True" : ""); break;
    }
    return buf;
  }
  if (d->count > 1) {
    if (tg_features(v)->vec_repr_underscore) snprintf(buf, n, "_%s%d", d->scalar->name, d->count); /* dtypes._float4 */
    else snprintf(buf, n, "%s.vec(%d)", d->scalar->name, d->count);
    return buf;
  }
  snprintf(buf, n, "%s", d->name);
  return buf;
}

typedef struct Repr { struct Repr *next; const DType *d; TgVersion v; size_t n; char s[]; } Repr;
static Repr *reprs[256];

const char *dtype_repr_kept(const DType *d, TgVersion v, size_t *len) {
  Repr **slot = &reprs[(((uintptr_t)d >> 4) ^ (uintptr_t)v) & 255];
  for (Repr *r = *slot; r; r = r->next)
    if (r->d == d && r->v == v) { *len = r->n; return r->s; }
  char buf[160];
  dtype_repr(d, v, buf, sizeof buf);
  size_t n = strlen(buf);
  Repr *r = malloc(sizeof *r + n + 1);
  if (!r) abort();
  *r = (Repr){*slot, d, v, n};
  memcpy(r->s, buf, n + 1);
  *slot = r;
  *len = n;
  return r->s;
}

bool dtype_is_float(const DType *d) { return d->is_image || d->scalar->kind == DK_FLOAT; }
bool dtype_is_int(const DType *d) { return d->scalar->kind == DK_INT || d->scalar->kind == DK_UINT; }
bool dtype_is_unsigned(const DType *d) { return d->scalar->kind == DK_UINT; }
bool dtype_is_bool(const DType *d) { return d->scalar == dt_bool; }
