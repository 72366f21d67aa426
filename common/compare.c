/* compare.c — structural comparison of results (see compare.h). */
#include "compare.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "omap.h"

/* ---------------- JSON equality ---------------- */

static bool scalar_equal(const JVal *a, const JVal *b) {
  if (a->kind != b->kind) return false;
  switch (a->kind) {
    case J_NULL: return true;
    case J_BOOL: return a->u.b == b->u.b;
    case J_INT: return a->u.i == b->u.i;
    case J_UINT: return a->u.u == b->u.u;
    case J_FLOAT: return a->u.f == b->u.f || (isnan(a->u.f) && isnan(b->u.f));
    case J_STR: case J_BIGNUM: return a->n == b->n && memcmp(a->u.s, b->u.s, a->n) == 0;
    default: return false;
  }
}

/* {"float": "inf"} and a plain float are one value to the comparator. */
static bool as_float(const JVal *v, double *out) {
  if (v->kind == J_FLOAT) { *out = v->u.f; return true; }
  if (v->kind != J_OBJ || v->n != 1) return false;
  const JVal *f = json_get(v, "float");
  if (!f || f->kind != J_STR) return false;
  if (strcmp(f->u.s, "inf") == 0) *out = INFINITY;
  else if (strcmp(f->u.s, "-inf") == 0) *out = -INFINITY;
  else if (strcmp(f->u.s, "nan") == 0) *out = NAN;
  else return false;
  return true;
}

static bool is_container(const JVal *v) { return v->kind == J_ARR || v->kind == J_OBJ; }

/* a and b equal as values, except that two containers of one kind and size
 * are only "maybe": then *deeper asks for their members to be compared. */
static bool shallow_equal(const JVal *a, const JVal *b, bool *deeper) {
  *deeper = false;
  if (a == b) return true;
  if (!is_container(a) && !is_container(b)) return scalar_equal(a, b);
  double fa, fb;
  if (as_float(a, &fa) && as_float(b, &fb)) return fa == fb || (isnan(fa) && isnan(fb));
  if (a->kind != b->kind || a->n != b->n) return false;
  *deeper = true;
  return true;
}

/* b's member with a's i-th key: at position i when the keys come in the same order */
static const JVal *same_key_member(const JVal *a, const JVal *b, size_t i) {
  const JMember *ma = &a->u.obj[i], *mb = &b->u.obj[i];
  if (mb->keylen == ma->keylen && memcmp(mb->key, ma->key, ma->keylen) == 0) return mb->val;
  return json_get(b, ma->key);
}

bool json_equal(const JVal *a, const JVal *b) {
  typedef struct { const JVal *a, *b; } Pair;
  bool deeper;
  if (!shallow_equal(a, b, &deeper)) return false;
  if (!deeper) return true;
  Pair local[64];
  size_t cap = 64, n = 0;
  Pair *stack = local;
  stack[n++] = (Pair){a, b};
  bool equal = true;
  while (n && equal) {
    Pair p = stack[--n];
    if (n + p.a->n > cap) {
      while (n + p.a->n > cap) cap *= 2;
      Pair *bigger = malloc(cap * sizeof *bigger);
      if (!bigger) abort();
      memcpy(bigger, stack, n * sizeof *stack);
      if (stack != local) free(stack);
      stack = bigger;
    }
    for (size_t i = 0; i < p.a->n && equal; i++) {
      const JVal *x = p.a->kind == J_ARR ? p.a->u.arr[i] : p.a->u.obj[i].val;
      const JVal *y = p.a->kind == J_ARR ? p.b->u.arr[i] : same_key_member(p.a, p.b, i);
      equal = y && shallow_equal(x, y, &deeper);
      if (equal && deeper) stack[n++] = (Pair){x, y};
    }
  }
  if (stack != local) free(stack);
  return equal;
}

/* ---------------- a value against its JSON text ---------------- */

typedef struct { const char *p, *end; } Cursor;

static void skip_space(Cursor *c) {
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\n' || *c->p == '\t' || *c->p == '\r')) c->p++;
}

static bool take(Cursor *c, char ch) {
  if (c->p < c->end && *c->p == ch) { c->p++; return true; }
  skip_space(c);
  if (c->p == c->end || *c->p != ch) return false;
  c->p++;
  return true;
}

/* the bytes a JSON string cannot hold unescaped: controls, '"' and '\\' */
static const bool needs_escape[256] = {
    [0x00] = 1, [0x01] = 1, [0x02] = 1, [0x03] = 1, [0x04] = 1, [0x05] = 1, [0x06] = 1, [0x07] = 1,
    [0x08] = 1, [0x09] = 1, [0x0a] = 1, [0x0b] = 1, [0x0c] = 1, [0x0d] = 1, [0x0e] = 1, [0x0f] = 1,
    [0x10] = 1, [0x11] = 1, [0x12] = 1, [0x13] = 1, [0x14] = 1, [0x15] = 1, [0x16] = 1, [0x17] = 1,
    [0x18] = 1, [0x19] = 1, [0x1a] = 1, [0x1b] = 1, [0x1c] = 1, [0x1d] = 1, [0x1e] = 1, [0x1f] = 1,
    ['"'] = 1, ['\\'] = 1};

/* the text spells s[0..n) as a string with no escape */
static bool take_string(Cursor *c, const char *s, size_t n) {
  if (!take(c, '"') || (size_t)(c->end - c->p) <= n || c->p[n] != '"' || memcmp(c->p, s, n) != 0) return false;
  for (size_t i = 0; i < n; i++)
    if (needs_escape[(unsigned char)s[i]]) return false;
  c->p += n + 1;
  return true;
}

static bool is_number_char(char ch) { return (ch >= '0' && ch <= '9') || ch == '-' || ch == '+' || ch == '.' || ch == 'e' || ch == 'E'; }

/* the next number token, NUL-terminated in buf; false when none or too long */
static bool take_number(Cursor *c, char *buf, size_t size) {
  skip_space(c);
  size_t n = 0;
  while (c->p + n < c->end && is_number_char(c->p[n])) n++;
  if (n == 0 || n >= size) return false;
  memcpy(buf, c->p, n);
  buf[n] = 0;
  c->p += n;
  return true;
}

/* the text spells i as JSON does: -?(0|[1-9][0-9]*), the token ending there */
static bool take_int(Cursor *c, int64_t i) {
  skip_space(c);
  const char *p = c->p;
  bool negative = p < c->end && *p == '-';
  p += negative;
  if (p == c->end || *p < '0' || *p > '9' || (*p == '0' && p + 1 < c->end && p[1] >= '0' && p[1] <= '9')) return false;
  uint64_t x = 0, limit = i < 0 ? 0 - (uint64_t)i : (uint64_t)i;
  for (; p < c->end && *p >= '0' && *p <= '9'; p++) {
    if (x > limit / 10) return false;
    x = x * 10 + (uint64_t)(*p - '0');
    if (x > limit) return false;
  }
  if (x != limit || negative != (i < 0) || (p < c->end && is_number_char(*p))) return false;
  c->p = p;
  return true;
}

static bool take_word(Cursor *c, const char *w, size_t n) {
  skip_space(c);
  if (c->end - c->p < (ptrdiff_t)n || memcmp(c->p, w, n) != 0) return false;
  c->p += n;
  return true;
}

static const char *digits(const char *s) {
  while (*s >= '0' && *s <= '9') s++;
  return s;
}

/* a JSON number with a fraction or an exponent (what simdjson reads as a
 * double): -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool json_float_token(const char *s) {
  const char *p = s + (*s == '-');
  if (*p == '0') p++;
  else if (*p >= '1' && *p <= '9') p = digits(p);
  else return false;
  bool fraction = *p == '.', exponent;
  if (fraction) {
    const char *q = digits(p + 1);
    if (q == p + 1) return false;
    p = q;
  }
  exponent = *p == 'e' || *p == 'E';
  if (exponent) {
    p++;
    if (*p == '+' || *p == '-') p++;
    const char *q = digits(p);
    if (q == p) return false;
    p = q;
  }
  return *p == 0 && (fraction || exponent);
}

/* a scalar against the text at c */
static bool take_scalar(Cursor *c, const JVal *v) {
  char tok[40];
  switch (v->kind) {
    case J_NULL: return take_word(c, "null", 4);
    case J_BOOL: return v->u.b ? take_word(c, "true", 4) : take_word(c, "false", 5);
    case J_INT: return take_int(c, v->u.i);
    case J_FLOAT: /* a token simdjson reads as a double, of the same value */
      return isfinite(v->u.f) && take_number(c, tok, sizeof tok) && json_float_token(tok) && strtod(tok, NULL) == v->u.f;
    case J_STR: return take_string(c, v->u.s, v->n);
    default: return false; /* J_UINT, J_BIGNUM, J_RAW: not spelled here */
  }
}

/* The text that spelled a container (SpellMemo) */
typedef struct SpelledText { const char *text; size_t len; } SpelledText;

/* v, a container outside the item's scratch arena, was spelled before by
 * the bytes at c (past spaces): c then past them. */
static bool memo_spelled(SpellMemo *m, Cursor *c, const JVal *v) {
  const SpelledText *t = omap_get(&m->spelled, omap_ptr(v));
  if (!t) return false;
  skip_space(c);
  if ((size_t)(c->end - c->p) < t->len || memcmp(c->p, t->text, t->len) != 0) return false;
  c->p += t->len;
  return true;
}

/* text[0..len) spelled v: kept in the memo */
static void memo_keep(SpellMemo *m, const JVal *v, const char *text, size_t len) {
  SpelledText *t = omap_get(&m->spelled, omap_ptr(v));
  if (!t) {
    t = arena_alloc(m->spelled.arena, sizeof *t);
    omap_put(&m->spelled, omap_ptr(v), t);
  }
  *t = (SpelledText){text, len};
}

/* v spelled at c (see json_spells), c then past it; memo (or NULL): the
 * texts that spelled containers before */
static bool spell(Cursor *c, const JVal *v, SpellMemo *memo) {
  typedef struct { const JVal *v; size_t next; const char *start; bool keep; } Frame;
  Frame local[32], *stack = local;
  size_t cap = 32, depth = 0;
  bool ok = true;
  const JVal *pending = v;
  while (ok) {
    if (pending) {
      bool shared = memo && is_container(pending) && !arena_holds(memo->scratch, pending); /* not the item's own */
      if (!is_container(pending)) ok = take_scalar(c, pending);
      else if (shared && memo_spelled(memo, c, pending)) ok = true;
      else if ((ok = take(c, pending->kind == J_ARR ? '[' : '{'))) {
        if (depth == cap) {
          Frame *bigger = malloc(2 * cap * sizeof *bigger);
          if (!bigger) abort();
          memcpy(bigger, stack, cap * sizeof *stack);
          if (stack != local) free(stack);
          stack = bigger;
          cap *= 2;
        }
        /* kept when it lives until the result is compared (in the capture's arena) */
        stack[depth++] = (Frame){pending, 0, c->p - 1, shared && arena_holds(memo->keep, pending)};
      }
      pending = NULL;
      continue;
    }
    if (depth == 0) break;
    Frame *top = &stack[depth - 1];
    if (top->next == top->v->n) {
      ok = take(c, top->v->kind == J_ARR ? ']' : '}');
      if (ok && top->keep) memo_keep(memo, top->v, top->start, (size_t)(c->p - top->start));
      depth--;
      continue;
    }
    if (top->next > 0 && !(ok = take(c, ','))) break;
    if (top->v->kind == J_ARR) {
      pending = top->v->u.arr[top->next++];
    } else {
      const JMember *m = &top->v->u.obj[top->next++];
      ok = take_string(c, m->key, m->keylen) && take(c, ':');
      pending = m->val;
    }
  }
  if (stack != local) free(stack);
  return ok;
}

bool json_spells(const JVal *v, const char *text, size_t len) {
  Cursor c = {text, text + len};
  bool ok = spell(&c, v, NULL);
  skip_space(&c);
  return ok && c.p == c.end;
}

/* past a string's closing quote (its escapes skipped whole) */
static bool skip_string(Cursor *c) {
  for (c->p++; c->p < c->end && *c->p != '"'; c->p++)
    if (*c->p == '\\') c->p++;
  if (c->p >= c->end) return false;
  c->p++;
  return true;
}

/* past one value: its extent only (strings and bracket depth); what it
 * holds is checked by whoever reads it */
static bool skip_value(Cursor *c) {
  skip_space(c);
  const char *start = c->p;
  size_t depth = 0;
  while (c->p < c->end) {
    char ch = *c->p;
    if (ch == '"') {
      if (!skip_string(c)) return false;
    } else if (ch == '[' || ch == '{') {
      depth++;
      c->p++;
    } else if (ch == ']' || ch == '}') {
      if (depth == 0) break;
      depth--;
      c->p++;
    } else if (depth == 0 && (ch == ',' || ch == ' ' || ch == '\n' || ch == '\t' || ch == '\r')) {
      break;
    } else {
      c->p++;
    }
    if (depth == 0 && (ch == '"' || ch == ']' || ch == '}')) break;
  }
  return depth == 0 && c->p > start;
}

/* a member name with no escape: its text in *key, *n bytes */
static bool take_key(Cursor *c, const char **key, size_t *n) {
  if (!take(c, '"')) return false;
  const char *k = c->p;
  while (c->p < c->end && *c->p != '"') {
    if (*c->p == '\\' || (unsigned char)*c->p < 0x20) return false;
    c->p++;
  }
  if (c->p == c->end) return false;
  *key = k;
  *n = (size_t)(c->p - k);
  c->p++;
  return take(c, ':');
}

static const JVal *member_n(const JVal *obj, const char *key, size_t n) {
  for (uint32_t i = 0; i < obj->n; i++)
    if (obj->u.obj[i].keylen == n && memcmp(obj->u.obj[i].key, key, n) == 0) return obj->u.obj[i].val;
  return NULL;
}

/* An expected value the reader may have left as text (J_RAW), for comparing
 * with the produced `got`: an object whose members that the text spells as
 * got's members (json_spells) are got's own (equal, and nothing to parse),
 * the others parsed from their text into ar. Any other value, or text that
 * is no flat object of plain member names, is json_materialize'd whole. */
static const JVal *expected_value(Arena *ar, SpellMemo *memo, const JVal *raw, const JVal *got, char *err, size_t errlen) {
  if (raw->kind != J_RAW || got->kind != J_OBJ) return json_materialize(ar, raw, err, errlen);
  Cursor c = {raw->u.s, raw->u.s + raw->n};
  JVal *e = json_obj(ar);
  bool ok = take(&c, '{') && !take(&c, '}');
  while (ok) {
    const char *key;
    size_t n;
    if (!take_key(&c, &key, &n) || member_n(e, key, n)) break; /* (a repeated name: parsed whole) */
    skip_space(&c);
    const char *start = c.p;
    const JVal *mine = member_n(got, key, n), *val = mine;
    if (!mine || !spell(&c, mine, memo)) { /* not spelled: parsed */
      c.p = start;
      if (!skip_value(&c)) break;
      if (!(val = json_parse(ar, start, (size_t)(c.p - start), err, errlen))) return NULL;
    }
    json_set(ar, e, arena_strndup(ar, key, n), (JVal *)val);
    if (take(&c, ',')) continue;
    ok = take(&c, '}');
    skip_space(&c);
    if (ok && c.p == c.end) return e;
    break;
  }
  return json_materialize(ar, raw, err, errlen);
}

/* ---------------- graphs ---------------- */

/* Canonical node ids shared by both graphs: two nodes get one id exactly when
 * they are structurally equal. A node's key is (op, dtype, arg, source ids);
 * args are compared with json_equal. */
typedef struct CanonNode {
  const JVal *op, *dtype, *arg;
  size_t nsrc;
  size_t *src;              /* canonical ids */
  size_t id;
  struct CanonNode *next;   /* bucket chain */
} CanonNode;

typedef struct {
  Arena *arena;
  OMap buckets;             /* key hash -> CanonNode chain */
  size_t nids;
} Canon;

static uint64_t hash_mix(uint64_t h, uint64_t x) {
  h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdULL;
}

static uint64_t hash_scalar(const JVal *v) {
  double f;
  if (as_float(v, &f)) {
    if (f == 0) f = 0; /* -0.0 */
    if (isnan(f)) return 0x7ff8;
    uint64_t bits;
    memcpy(&bits, &f, sizeof bits);
    return hash_mix(3, bits);
  }
  switch (v->kind) {
    case J_NULL: return 1;
    case J_BOOL: return hash_mix(2, v->u.b);
    case J_INT: return hash_mix(4, (uint64_t)v->u.i);
    case J_UINT: return hash_mix(5, v->u.u);
    case J_STR: case J_BIGNUM: {
      uint64_t h = v->kind == J_STR ? 6 : 7;
      for (size_t i = 0; i < v->n; i++) h = hash_mix(h, (unsigned char)v->u.s[i]);
      return h;
    }
    default: return 0;
  }
}

/* A hash consistent with json_equal: floats by value, object members
 * order-free (their hashes are summed), arrays in order. Args are shallow
 * (a ShapeTracker is a few levels), so a small fixed stack suffices; past
 * it the hash only covers the shape, which stays consistent. */
static uint64_t hash_json(const JVal *root) {
  enum { MAX_DEPTH = 16 };
  typedef struct { const JVal *v; size_t next; uint64_t h; } Frame;
  Frame stack[MAX_DEPTH];
  size_t depth = 0;
  double f;
  if ((root->kind != J_ARR && root->kind != J_OBJ) || as_float(root, &f)) return hash_scalar(root);
  stack[depth++] = (Frame){root, 0, hash_mix(7, root->kind * 31u + root->n)};
  uint64_t done = 0;
  for (;;) {
    Frame *top = &stack[depth - 1];
    if (top->next == top->v->n) {
      done = top->h;
      if (--depth == 0) return done;
      Frame *parent = &stack[depth - 1];
      parent->h = parent->v->kind == J_OBJ ? parent->h + done : hash_mix(parent->h, done);
      continue;
    }
    size_t i = top->next++;
    const JVal *child = top->v->kind == J_ARR ? top->v->u.arr[i] : top->v->u.obj[i].val;
    uint64_t key = top->v->kind == J_OBJ ? hash_scalar(&(JVal){.kind = J_STR, .n = top->v->u.obj[i].keylen,
                                                                  .u.s = top->v->u.obj[i].key})
                                         : 0;
    if ((child->kind == J_ARR || child->kind == J_OBJ) && !as_float(child, &f) && depth < MAX_DEPTH) {
      stack[depth++] = (Frame){child, 0, hash_mix(7 + key, child->kind * 31u + child->n)};
      continue;
    }
    uint64_t h = (child->kind == J_ARR || child->kind == J_OBJ) && !as_float(child, &f)
                     ? hash_mix(7, child->kind * 31u + child->n)
                     : hash_scalar(child);
    top->h = top->v->kind == J_OBJ ? top->h + hash_mix(key, h) : hash_mix(top->h, h);
  }
}

static size_t canon_id(Canon *c, const JVal *op, const JVal *dt, const JVal *arg, size_t nsrc, size_t *src) {
  uint64_t h = hash_mix(hash_mix(hash_json(op), hash_json(dt)), hash_json(arg));
  for (size_t i = 0; i < nsrc; i++) h = hash_mix(h, src[i]);
  h = hash_mix(h, nsrc);
  CanonNode *chain = omap_get(&c->buckets, h), *e;
  for (e = chain; e; e = e->next) {
    if (e->nsrc != nsrc || memcmp(e->src, src, nsrc * sizeof *src) != 0) continue;
    if (json_equal(e->op, op) && json_equal(e->dtype, dt) && json_equal(e->arg, arg)) break;
  }
  if (!e) {
    e = arena_alloc(c->arena, sizeof *e);
    *e = (CanonNode){op, dt, arg, nsrc, arena_array(c->arena, nsrc ? nsrc : 1, sizeof(size_t)), c->nids, chain};
    memcpy(e->src, src, nsrc * sizeof *src);
    omap_put(&c->buckets, h, e);
    c->nids++;
  }
  return e->id;
}

/* g's nodes are [op, dtype, arg, [src...]] with every source an earlier
 * node; false (with why) when not. */
static bool check_nodes(const JVal *g, const char *which, char *why, size_t whylen) {
  const JVal *nodes = json_get(g, "nodes");
  if (!nodes || nodes->kind != J_ARR) { snprintf(why, whylen, "%s graph has no \"nodes\" array", which); return false; }
  for (size_t i = 0; i < nodes->n; i++) {
    const JVal *e = nodes->u.arr[i];
    if (e->kind != J_ARR || e->n != 4 || e->u.arr[3]->kind != J_ARR) {
      snprintf(why, whylen, "%s graph node %zu is not [op, dtype, arg, [src...]]", which, i);
      return false;
    }
    const JVal *src = e->u.arr[3];
    for (size_t k = 0; k < src->n; k++)
      if (src->u.arr[k]->kind != J_INT || src->u.arr[k]->u.i < 0 || (size_t)src->u.arr[k]->u.i >= i) {
        snprintf(why, whylen, "%s graph node %zu: source %zu is not an earlier node", which, i, k);
        return false;
      }
  }
  return true;
}

/* Canonical ids of every node of g (checked by check_nodes). */
static size_t *canon_graph(Canon *c, const JVal *g) {
  const JVal *nodes = json_get(g, "nodes");
  size_t *ids = arena_array(c->arena, nodes->n ? nodes->n : 1, sizeof *ids);
  for (size_t i = 0; i < nodes->n; i++) {
    const JVal *e = nodes->u.arr[i], *src = e->u.arr[3];
    size_t *sid = arena_array(c->arena, src->n ? src->n : 1, sizeof *sid);
    for (size_t k = 0; k < src->n; k++) sid[k] = ids[src->u.arr[k]->u.i];
    ids[i] = canon_id(c, e->u.arr[0], e->u.arr[1], e->u.arr[2], src->n, sid);
  }
  return ids;
}

static const char *op_text(const JVal *node) {
  const JVal *op = node->u.arr[0];
  return op->kind == J_STR ? op->u.s : "?";
}

/* Walk down from two differing nodes to the first place they differ. */
static void describe_difference(const JVal *ge, const size_t *ide, size_t ie, const JVal *gg, const size_t *idg, size_t ig,
                                char *why, size_t whylen) {
  const JVal *ne = json_get(ge, "nodes"), *ng = json_get(gg, "nodes");
  for (;;) {
    const JVal *a = ne->u.arr[ie], *b = ng->u.arr[ig];
    const JVal *sa = a->u.arr[3], *sb = b->u.arr[3];
    const char *what = !json_equal(a->u.arr[0], b->u.arr[0])   ? "op"
                       : !json_equal(a->u.arr[1], b->u.arr[1]) ? "dtype"
                       : !json_equal(a->u.arr[2], b->u.arr[2]) ? "arg"
                       : sa->n != sb->n                        ? "number of sources"
                                                               : NULL;
    if (what) {
      char *ea = json_to_string(what[0] == 'n' ? sa : a, NULL), *eb = json_to_string(what[0] == 'n' ? sb : b, NULL);
      snprintf(why, whylen, "expected node %zu (%s) differs in %s: expected %.300s, got %.300s", ie, op_text(a), what, ea, eb);
      free(ea);
      free(eb);
      return;
    }
    size_t k = 0;
    while (k < sa->n && ide[sa->u.arr[k]->u.i] == idg[sb->u.arr[k]->u.i]) k++;
    if (k == sa->n) { snprintf(why, whylen, "expected node %zu (%s) differs", ie, op_text(a)); return; }
    ie = (size_t)sa->u.arr[k]->u.i;
    ig = (size_t)sb->u.arr[k]->u.i;
  }
}

bool graph_equal(Arena *a, const JVal *expected, const JVal *got, char *why, size_t whylen) {
  if (!check_nodes(expected, "expected", why, whylen) || !check_nodes(got, "produced", why, whylen)) return false;
  const JVal *re = json_get(expected, "roots"), *rg = json_get(got, "roots");
  if (!re || !rg || re->kind != J_ARR || rg->kind != J_ARR) { snprintf(why, whylen, "graph without \"roots\""); return false; }
  if (re->n != rg->n) { snprintf(why, whylen, "expected %zu root%s, got %zu", (size_t)re->n, re->n == 1 ? "" : "s", (size_t)rg->n); return false; }
  size_t ne = json_get(expected, "nodes")->n, ng = json_get(got, "nodes")->n;
  for (size_t r = 0; r < re->n; r++) {
    const JVal *x = re->u.arr[r], *y = rg->u.arr[r];
    if (x->kind != J_INT || y->kind != J_INT || x->u.i < 0 || y->u.i < 0 || (size_t)x->u.i >= ne || (size_t)y->u.i >= ng) {
      snprintf(why, whylen, "root %zu is not a node index", r);
      return false;
    }
  }
  /* Numbered alike, node for node: the same DAG. The common case, and
   * cheaper than canonical ids. */
  if (json_equal(expected, got)) return true;
  Canon c = {.arena = a};
  omap_init(&c.buckets, a);
  size_t *ide = canon_graph(&c, expected), *idg = canon_graph(&c, got);
  for (size_t r = 0; r < re->n; r++) {
    const JVal *x = re->u.arr[r], *y = rg->u.arr[r];
    if (ide[x->u.i] == idg[y->u.i]) continue;
    char inner[1024];
    describe_difference(expected, ide, (size_t)x->u.i, got, idg, (size_t)y->u.i, inner, sizeof inner);
    snprintf(why, whylen, "root %zu: %s", r, inner);
    return false;
  }
  return true;
}

/* ---------------- whole results ---------------- */

static int cmp_json_text(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

/* 0.10.0 builds metadata from a set: compare the lists sorted. */
static bool sorted_lists_equal(const JVal *a, const JVal *b) {
  if (!a || !b || a->kind != J_ARR || b->kind != J_ARR || a->n != b->n) return json_equal(a ? a : b, b ? b : a) && a && b;
  char **ta = calloc(a->n + 1, sizeof *ta), **tb = calloc(b->n + 1, sizeof *tb);
  if (!ta || !tb) abort();
  for (size_t i = 0; i < a->n; i++) { ta[i] = json_to_string(a->u.arr[i], NULL); tb[i] = json_to_string(b->u.arr[i], NULL); }
  qsort(ta, a->n, sizeof *ta, cmp_json_text);
  qsort(tb, b->n, sizeof *tb, cmp_json_text);
  bool eq = true;
  for (size_t i = 0; i < a->n; i++) {
    eq = eq && strcmp(ta[i], tb[i]) == 0;
    free(ta[i]);
    free(tb[i]);
  }
  free(ta);
  free(tb);
  return eq;
}

static bool field_equal(const JVal *exp, const JVal *got, const char *key) {
  const JVal *a = json_get(exp, key), *b = json_get(got, key);
  if (!a && !b) return true;
  if (!a || !b) return false;
  return json_equal(a, b);
}

static bool describe(char *why, size_t whylen, const char *fmt, const char *field, const JVal *exp, const JVal *got) {
  char *a = exp ? json_to_string(exp, NULL) : NULL, *b = got ? json_to_string(got, NULL) : NULL;
  snprintf(why, whylen, fmt, field, a ? a : "(absent)", b ? b : "(absent)");
  free(a);
  free(b);
  return false;
}

/* item field f of expected item e against got's g: true when equal */
static bool item_field_equal(Arena *ar, size_t k, const TgField *f, const JVal *e, const JVal *g, char *why,
                             size_t whylen) {
  const JVal *a = json_get(e, f->key), *b = json_get(g, f->key);
  char inner[1400];
  if (f->how == CMP_GRAPH) {
    if (graph_equal(ar, a, b, inner, sizeof inner)) return true;
    snprintf(why, whylen, "schedule item %zu %s: %s", k, f->key, inner);
    return false;
  }
  if (f->how == CMP_SORTED ? sorted_lists_equal(a, b) : field_equal(e, g, f->key)) return true;
  snprintf(inner, sizeof inner, "schedule item %zu %%s: expected %%.400s, got %%.400s", k);
  return describe(why, whylen, inner, f->key, a, b);
}

/* schedule item k: the fields the version's ScheduleItem has (version.c), in order */
static bool compare_item(Arena *ar, TgVersion v, size_t k, const JVal *e, const JVal *g, char *why, size_t whylen) {
  for (const TgField *f = tg_features(v)->item_fields; f->key; f++)
    if (!item_field_equal(ar, k, f, e, g, why, whylen)) return false;
  return true;
}

/* An expected item the reader may have left as text, parsed into tmp;
 * NULL with why set when that text does not parse. */
static const JVal *expected_item(Arena *tmp, const char *field, size_t i, const JVal *x, char *why, size_t whylen) {
  char err[256];
  const JVal *e = json_materialize(tmp, x, err, sizeof err);
  if (!e) snprintf(why, whylen, "expected.%s[%zu]: %s", field, i, err);
  return e;
}

/* one becomes_map entry [node index, GRAPH]: 1 equal, 0 different */
static int becomes_entry_equal(Arena *ar, const JVal *x, const JVal *y, char *why, size_t whylen) {
  if (x->kind != J_ARR || y->kind != J_ARR || x->n != 2 || y->n != 2 || !json_equal(x->u.arr[0], y->u.arr[0]))
    return describe(why, whylen, "%s entry: expected %.300s, got %.300s", "becomes_map", x, y);
  char inner[1400];
  if (!graph_equal(ar, x->u.arr[1], y->u.arr[1], inner, sizeof inner)) {
    char *node = json_to_string(x->u.arr[0], NULL);
    snprintf(why, whylen, "becomes_map entry for node %s: %s", node, inner);
    free(node);
    return 0;
  }
  return 1;
}

/* expected becomes_map entry i (e->u.arr[i]) against the produced one y:
 * 1 equal, 0 different, -1 when the expected entry does not parse. An entry
 * the reader left as text is equal when the text spells the produced one
 * (json_spells), else it is parsed into a scratch arena for the comparison. */
static int becomes_entry_at(Arena *ar, const JVal *e, size_t i, const JVal *y, char *why, size_t whylen) {
  const JVal *x = e->u.arr[i];
  if (x->kind != J_RAW) return becomes_entry_equal(ar, x, y, why, whylen) == 1 ? 1 : 0;
  if (json_spells(y, x->u.s, x->n)) return 1;
  Arena tmp;
  arena_init(&tmp);
  const JVal *xe = expected_item(&tmp, "becomes_map", i, x, why, whylen);
  int r = xe ? becomes_entry_equal(&tmp, xe, y, why, whylen) : -1;
  arena_free(&tmp);
  return r;
}

static bool becomes_count_equal(size_t expected, size_t got, char *why, size_t whylen) {
  if (expected == got) return true;
  snprintf(why, whylen, "becomes_map: expected %zu entr%s, got %zu", expected, expected == 1 ? "y" : "ies", got);
  return false;
}

/* 1 equal, 0 different, -1 when an expected entry does not parse */
static int compare_becomes_map(Arena *ar, const JVal *e, const JVal *g, char *why, size_t whylen) {
  if (!e || !g || e->kind != J_ARR || g->kind != J_ARR) return describe(why, whylen, "%s: expected %.300s, got %.300s", "becomes_map", e, g);
  if (!becomes_count_equal(e->n, g->n, why, whylen)) return 0;
  for (size_t i = 0; i < e->n; i++) {
    int r = becomes_entry_at(ar, e, i, g->u.arr[i], why, whylen);
    if (r != 1) return r;
  }
  return 1;
}

/* an expected item left as text against got's: spelled, or parsed (into a
 * scratch arena) and equal */
static bool raw_item_equal(const JVal *x, const JVal *y) {
  if (json_spells(y, x->u.s, x->n)) return true;
  Arena tmp;
  arena_init(&tmp);
  char err[256];
  const JVal *xe = json_materialize(&tmp, x, err, sizeof err);
  bool same = xe && json_equal(xe, y);
  arena_free(&tmp);
  return same;
}

/* an entry of an expected list (perhaps left as text) against got's */
static bool list_item_equal(const JVal *x, const JVal *y) {
  return x->kind != J_RAW ? json_equal(x, y) : raw_item_equal(x, y);
}

/* The message of a list that differs: expected e whole (its entries left
 * as text parsed into ar: -1 when one does not parse) and got_text, the
 * produced list's JSON text (its first 300 characters at least). 0 or -1. */
static int describe_list(Arena *ar, const char *key, const JVal *e, const char *got_text, char *why, size_t whylen) {
  JVal *whole = e && e->kind == J_ARR ? json_arr_n(ar, e->n) : NULL;
  for (size_t i = 0; whole && i < e->n; i++)
    if (!(whole->u.arr[i] = (JVal *)expected_item(ar, key, i, e->u.arr[i], why, whylen))) return -1;
  char *a = e ? json_to_string(whole ? whole : e, NULL) : NULL;
  snprintf(why, whylen, "%s: expected %.300s, got %.300s", key, a ? a : "(absent)", got_text ? got_text : "(absent)");
  free(a);
  return 0;
}

/* expected[key] against got[key], for an array whose items the reader may
 * have left as text (compared as compare_becomes_map does); on a difference
 * why shows both whole (the expected one parsed into ar). 1, 0 or -1. */
static int list_equal(Arena *ar, const JVal *exp, const JVal *got, const char *key, char *why, size_t whylen) {
  const JVal *e = json_get(exp, key), *g = json_get(got, key);
  bool same = (!e && !g) || (e && g && e->kind != J_ARR && json_equal(e, g));
  if (e && g && e->kind == J_ARR && g->kind == J_ARR && e->n == g->n) {
    same = true;
    for (size_t i = 0; same && i < e->n; i++) same = list_item_equal(e->u.arr[i], g->u.arr[i]);
  }
  if (same) return 1;
  char *b = g ? json_to_string(g, NULL) : NULL;
  int r = describe_list(ar, key, e, b, why, whylen);
  free(b);
  return r;
}

/* new_buffers as compared while it was encoded: list_equal's verdict and message */
static int new_buffers_sunk_verdict(Arena *ar, const ScheduleCompare *sc, char *why, size_t whylen) {
  if (!sc->new_buffers_differ && sc->new_buffers_got == sc->new_buffers->n) return 1;
  char text[sizeof sc->got_text + 4]; /* closed (past what the message shows when it was cut) */
  snprintf(text, sizeof text, "%s%s", sc->got_text, sc->new_buffers_got ? "]" : "[]");
  return describe_list(ar, "new_buffers", sc->new_buffers, text, why, whylen);
}

/* expected.schedule's item k (perhaps left as text: parsed into ar) against
 * the produced item: 1 equal, 0 different, -1 when the expected item does
 * not parse; why says which. */
static int compare_item_at(Arena *ar, SpellMemo *memo, TgVersion v, const JVal *se, size_t k, const JVal *g, char *why,
                           size_t whylen) {
  char err[256];
  const JVal *e = expected_value(ar, memo, se->u.arr[k], g, err, sizeof err);
  if (!e) {
    snprintf(why, whylen, "expected.schedule[%zu]: %s", k, err);
    return -1;
  }
  return compare_item(ar, v, k, e, g, why, whylen) ? 1 : 0;
}

static bool count_equal(size_t expected, size_t got, char *why, size_t whylen) {
  if (expected == got) return true;
  snprintf(why, whylen, "expected %zu schedule item%s, got %zu", expected, expected == 1 ? "" : "s", got);
  return false;
}

/* becomes_map as compared while it was encoded (ScheduleCompare's sink):
 * the same verdict and message as compare_becomes_map */
static int becomes_sunk_verdict(const ScheduleCompare *sc, char *why, size_t whylen) {
  if (!becomes_count_equal(sc->becomes->n, sc->becomes_got, why, whylen)) return 0;
  if (sc->becomes_verdict != 1) snprintf(why, whylen, "%s", sc->becomes_why);
  return sc->becomes_verdict;
}

/* becomes_map: as the sink compared it while it was encoded, else whole */
static int compare_becomes_field(Arena *ar, const ScheduleCompare *sc, const char *key, const JVal *exp,
                                 const JVal *got, char *why, size_t whylen) {
  const JVal *gb = json_get(got, key);
  if (sc && sc->becomes && !gb) return becomes_sunk_verdict(sc, why, whylen);
  return compare_becomes_map(ar, json_get(exp, key), gb, why, whylen);
}

/* a CMP_LIST field (new_buffers): as the sink compared it while it was encoded, else whole */
static int compare_list_field(Arena *ar, const ScheduleCompare *sc, const char *key, const JVal *exp,
                              const JVal *got, char *why, size_t whylen) {
  if (sc && sc->new_buffers && !json_get(got, key)) return new_buffers_sunk_verdict(ar, sc, why, whylen);
  return list_equal(ar, exp, got, key, why, whylen);
}

/* result field f: 1 equal, 0 different, -1 when an expected entry left as text does not parse */
static int compare_field(Arena *ar, const ScheduleCompare *sc, const TgField *f, const JVal *exp, const JVal *got,
                         char *why, size_t whylen) {
  const JVal *a = json_get(exp, f->key), *b = json_get(got, f->key);
  switch (f->how) {
  case CMP_BECOMES_MAP: return compare_becomes_field(ar, sc, f->key, exp, got, why, whylen);
  case CMP_LIST: return compare_list_field(ar, sc, f->key, exp, got, why, whylen);
  case CMP_IF_RECORDED: if (!a || a->kind == J_NULL) return 1; break;
  case CMP_IF_REPORTED: if (!b) return 1; break;
  default: break;
  }
  if (field_equal(exp, got, f->key)) return 1;
  return describe(why, whylen, "%s: expected %.300s, got %.300s", f->key, a, b);
}

/* Everything after the schedule (sc: how the sink compared becomes_map and
 * new_buffers, or NULL): the fields the version's result has (version.c), in
 * order. 1 equal, 0 different, -1 when an expected item left as text does
 * not parse. */
static int compare_rest(Arena *ar, TgVersion v, const ScheduleCompare *sc, const JVal *exp, const JVal *got, char *why,
                        size_t whylen) {
  for (const TgField *f = tg_features(v)->result_fields; f->key; f++) {
    int r = compare_field(ar, sc, f, exp, got, why, whylen);
    if (r != 1) return r;
  }
  return 1;
}

/* expected.schedule as an array (parsed into ar if it was left as text), or NULL */
static const JVal *expected_schedule(Arena *ar, const JVal *exp) {
  char err[256];
  const JVal *se = json_materialize(ar, json_get(exp, "schedule"), err, sizeof err);
  return se && se->kind == J_ARR ? se : NULL;
}

bool compare_expected(Arena *ar, TgVersion v, const JVal *exp, const JVal *got, char *why, size_t whylen) {
  const JVal *se = expected_schedule(ar, exp), *sg = json_get(got, "schedule");
  if (!se || !sg || sg->kind != J_ARR) {
    snprintf(why, whylen, "missing \"schedule\"");
    return false;
  }
  size_t n = se->n < sg->n ? se->n : sg->n;
  for (size_t k = 0; k < n; k++)
    if (compare_item_at(ar, NULL, v, se, k, sg->u.arr[k], why, whylen) != 1) return false;
  return count_equal(se->n, sg->n, why, whylen) && compare_rest(ar, v, NULL, exp, got, why, whylen) == 1;
}

/* ScheduleCompare's ResultSink: item k against expected item k, until the first difference */
static void sink_compare_item(ResultSink *s, size_t k, const JVal *item, Arena *scratch) {
  ScheduleCompare *sc = (ScheduleCompare *)s;
  sc->got++;
  if (sc->differs || !sc->expected || k >= sc->expected->n) return;
  sc->memo.scratch = scratch;
  int r = compare_item_at(scratch, &sc->memo, sc->v, sc->expected, k, item, sc->why, sizeof sc->why);
  sc->differs = r != 1;
  sc->bad_input = r < 0;
}

/* ScheduleCompare's ResultSink: becomes_map entry i against expected entry i, until the first difference */
static void sink_compare_becomes(ResultSink *s, size_t i, const JVal *entry, Arena *scratch) {
  ScheduleCompare *sc = (ScheduleCompare *)s;
  sc->becomes_got++;
  if (sc->becomes_verdict != 1 || i >= sc->becomes->n) return;
  sc->becomes_verdict = becomes_entry_at(scratch, sc->becomes, i, entry, sc->becomes_why, sizeof sc->becomes_why);
}

/* the produced list's JSON text, as json_to_string writes it ("[" and the
 * entries joined by ", "), as far as the message shows it */
static void got_text_add(ScheduleCompare *sc, size_t i, const JVal *entry) {
  size_t room = sizeof sc->got_text - 1;
  if (sc->got_text_len >= room) return;
  char *t = json_to_string(entry, NULL);
  sc->got_text_len += (size_t)snprintf(sc->got_text + sc->got_text_len, room + 1 - sc->got_text_len, "%s%s",
                                       i ? ", " : "[", t);
  if (sc->got_text_len > room) sc->got_text_len = room;
  free(t);
}

/* ScheduleCompare's ResultSink: new_buffers entry i against expected entry i */
static void sink_compare_new_buffer(ResultSink *s, size_t i, const JVal *entry, Arena *scratch) {
  (void)scratch;
  ScheduleCompare *sc = (ScheduleCompare *)s;
  got_text_add(sc, i, entry);
  sc->new_buffers_got++;
  if (!sc->new_buffers_differ)
    sc->new_buffers_differ = i >= sc->new_buffers->n || !list_item_equal(sc->new_buffers->u.arr[i], entry);
}

/* the version's result field compared as how (one of each kind), or NULL */
static const TgField *result_field(TgVersion v, TgCompare how) {
  for (const TgField *f = tg_features(v)->result_fields; f->key; f++)
    if (f->how == how) return f;
  return NULL;
}

void schedule_compare_init(ScheduleCompare *sc, Arena *a, TgVersion v, const JVal *expected) {
  memset(sc, 0, sizeof *sc);
  sc->sink.item = sink_compare_item;
  sc->v = v;
  sc->expected = expected_schedule(a, expected);
  omap_init(&sc->memo.spelled, a);
  sc->memo.keep = a;
  const TgField *bf = result_field(v, CMP_BECOMES_MAP), *lf = result_field(v, CMP_LIST);
  const JVal *bm = bf && sc->expected ? json_get(expected, bf->key) : NULL;
  if (bm && bm->kind == J_ARR) { /* else compared whole, with compare_becomes_map's message */
    sc->sink.becomes_entry = sink_compare_becomes;
    sc->becomes = bm;
    sc->becomes_verdict = 1;
  }
  const JVal *nb = lf && sc->expected ? json_get(expected, lf->key) : NULL;
  if (nb && nb->kind == J_ARR) { /* else compared whole, by list_equal */
    sc->sink.new_buffer = sink_compare_new_buffer;
    sc->new_buffers = nb;
  }
}

bool compare_expected_sunk(Arena *ar, ScheduleCompare *sc, const JVal *exp, const JVal *got, char *why,
                           size_t whylen) {
  if (!sc->expected) {
    snprintf(why, whylen, "missing \"schedule\"");
    return false;
  }
  if (sc->differs) {
    snprintf(why, whylen, "%s", sc->why);
    return false;
  }
  if (!count_equal(sc->expected->n, sc->got, why, whylen)) return false;
  int r = compare_rest(ar, sc->v, sc, exp, got, why, whylen);
  sc->bad_input = r < 0;
  return r == 1;
}

static size_t first_line_len(const char *s) {
  const char *nl = strchr(s, '\n');
  return nl ? (size_t)(nl - s) : strlen(s);
}

bool compare_error(const JVal *expected_error, const char *type, const char *message, char *why, size_t whylen) {
  const JVal *et = json_get(expected_error, "type"), *em = json_get(expected_error, "message");
  const char *etype = et && et->kind == J_STR ? et->u.s : "", *emsg = em && em->kind == J_STR ? em->u.s : "";
  size_t ne = first_line_len(emsg), ng = first_line_len(message);
  if (strcmp(etype, type) == 0 && ne == ng && strncmp(emsg, message, ne) == 0) return true;
  snprintf(why, whylen, "expected %s: %.*s; got %s: %.*s", etype, (int)(ne > 300 ? 300 : ne), emsg, type,
           (int)(ng > 300 ? 300 : ng), message);
  return false;
}
