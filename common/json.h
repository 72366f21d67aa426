/* json.h — a JSON document as plain C structures (JVal), filled by the
 * reader in json_simdjson.cpp and written back by json_write.c.
 * Integers, unsigned integers and doubles are kept apart, as the capture
 * contract needs ("1" is an int, "1.0" a float). */
#ifndef TSCHED_JSON_H
#define TSCHED_JSON_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "arena.h"

typedef enum { J_NULL, J_BOOL, J_INT, J_UINT, J_FLOAT, J_STR, J_ARR, J_OBJ, J_BIGNUM,
               J_RAW /* a value left unparsed: u.s points at its JSON text (n bytes) inside a
                        buffer with JSON_PADDING readable bytes after it; see json_materialize */
} JKind;

typedef struct JVal JVal;
typedef struct JMember { const char *key; uint32_t keylen; JVal *val; } JMember;

struct JVal {
  JKind kind;
  uint32_t n;               /* J_STR: byte length; J_ARR/J_OBJ: element count (16-byte JVal) */
  union {
    bool b;                 /* J_BOOL */
    int64_t i;              /* J_INT */
    uint64_t u;             /* J_UINT: only integers above INT64_MAX */
    double f;               /* J_FLOAT */
    const char *s;          /* J_STR: NUL-terminated, may contain NULs (use n);
                               J_BIGNUM: an integer beyond int64 and uint64, its decimal text */
    JVal **arr;             /* J_ARR */
    JMember *obj;           /* J_OBJ: in document order */
  } u;
};

/* Bytes past the end of a buffer that json_parse may read (simdjson's padding). */
enum { JSON_PADDING = 64 };

/* Parse buf[0..len) into a tree allocated in `a`; buf must have JSON_PADDING
 * readable bytes after len. On failure returns NULL and writes a message into
 * err. Never throws. Nesting deeper than 1024 levels is an error, and so is
 * an object with a key twice (Python's json keeps the last value; no capture
 * has one: docs/capture-format.md, reading 25). */
JVal *json_parse(Arena *a, const char *buf, size_t len, char *err, size_t errlen);
/* json_parse of a capture line, leaving parts of it as their text (J_RAW,
 * found by counting brackets; their own syntax is checked when they are
 * materialized), as `raw` (JsonRaw flags) asks:
 * JSON_RAW_SCHEDULE_ITEMS each array or object in the root's "expected"."schedule",
 *   and in its "becomes_map" and "new_buffers" (the other long lists of a result);
 * JSON_RAW_INPUT the root's "input" when it is an array or object;
 * JSON_RAW_UNKNOWN the array or object of each root key tsched does not read
 *   (anything but format, generation, name, context, input, expected, error,
 *   oracle_seconds: notes, unsupported, fields of later formats), so that a
 *   long one costs no tree.
 * JSON_UTF8_CHECKED says the text is known to be UTF-8 already (a J_RAW's:
 * cut at brackets from a line that was checked). */
enum JsonRaw { JSON_RAW_SCHEDULE_ITEMS = 1, JSON_RAW_INPUT = 2, JSON_UTF8_CHECKED = 4, JSON_RAW_UNKNOWN = 8 };
JVal *json_parse_capture(Arena *a, const char *buf, size_t len, unsigned raw, char *err, size_t errlen);

/* v itself, or, when the reader left it as text (J_RAW), its tree parsed
 * into `a`. NULL with a message in err when that text does not parse. */
const JVal *json_materialize(Arena *a, const JVal *v, char *err, size_t errlen);

/* A cursor over the text of a J_RAW value, for decoding a big value straight
 * from its text: the arrays and objects the caller walks with it are never
 * built as trees; the values it asks for are (json_cursor_value, the same
 * tree the reader would build there). Anything the caller did not expect
 * (text that is not JSON, a key with an escape, nesting past the reader's
 * limit) sets `failed` and every later call returns false / NULL: a caller
 * then reads the value as a tree instead (json_materialize), whose errors
 * name what is wrong. No other JSON text may be parsed on the thread while a
 * cursor is in use (they share the reader's per-document tables). */
typedef struct JCursor {
  const char *p, *end; /* the text still to read */
  unsigned depth;      /* containers open around p */
  bool failed;
} JCursor;
/* A cursor at the start of raw's text (J_RAW), its values built in `a`. */
void json_cursor_begin(JCursor *c, Arena *a, const JVal *raw);
/* Past `bracket` ('{' or '['), opening it. */
bool json_cursor_open(JCursor *c, char bracket);
/* In the container opened last, closed by `close`: true when another
 * member or item follows (past its comma unless it is the first), false
 * when it closes (then it is closed) or on failure. Loop as
 *   for (bool first = true; json_cursor_more(c, '}', first); first = false) ... */
bool json_cursor_more(JCursor *c, char close, bool first);
/* An object's key (no escapes: else failed) and the colon after it; the
 * key is the text's, not NUL-terminated. */
bool json_cursor_key(JCursor *c, const char **key, size_t *n);
/* Whether the key at the cursor is key[0..n) (a name with no quote,
 * backslash or control byte): then past it and its colon, else past
 * spaces only (json_cursor_key reads it). */
bool json_cursor_key_is(JCursor *c, const char *key, size_t n);
/* The value at the cursor as a tree in the cursor's arena (short strings,
 * small ints, null and booleans shared for the cursor's whole text). */
const JVal *json_cursor_value(JCursor *c);
/* The array or object at the cursor as its text, not checked: to read it,
 * set c->p = *text and call json_cursor_value. */
bool json_cursor_text(JCursor *c, const char **text, size_t *n);
/* The reader's hash of n bytes at s, for tables keyed by text. */
uint64_t json_text_hash(const char *s, size_t n);

/* A deep copy of v in `a` (iterative), for what must outlive v's arena. */
JVal *json_copy(Arena *a, const JVal *v);
/* A copy of the string s (n bytes) in `a`, for what must outlive s's tree;
 * the same s as last time through k gives the same copy (a reader's tree
 * stores each short string once: devices, dtypes). Start k zeroed. */
typedef struct JStrKeep { const char *src, *copy; } JStrKeep;
const char *json_keep_str(Arena *a, JStrKeep *k, const char *s, size_t n);

/* simdjson's DOM parse of buf[0..len) (JSON_PADDING readable bytes after
 * it), its result dropped: the yardstick `tsched bench` holds the reader
 * to. False when the text is not JSON. */
bool json_simdjson_parse(const char *buf, size_t len);

/* simdjson's On-Demand parse of buf[0..len) (capacity readable bytes from
 * buf, at least len + JSON_PADDING), every value read and dropped: the
 * other yardstick. False when the text is not JSON. */
bool json_simdjson_ondemand(const char *buf, size_t len, size_t capacity);

/* Give the parser's buffers (kept per thread from document to document)
 * back to the system. */
void json_release_parser(void);

/* json_parse of a NUL-terminated text, copied into the arena with the
 * padding the parser needs (for tests and small documents). */
JVal *json_parse_text(Arena *a, const char *text, char *err, size_t errlen);

/* Lookups. json_get returns NULL when obj is not an object or has no key.
 * Inline, so that the length of a literal key is known where it is called. */
static inline const JVal *json_get(const JVal *obj, const char *key) {
  if (!obj || obj->kind != J_OBJ) return NULL;
  size_t klen = strlen(key);
  for (uint32_t i = 0; i < obj->n; i++) {
    const JMember *m = &obj->u.obj[i];
    if (m->keylen == klen && memcmp(m->key, key, klen) == 0) return m->val;
  }
  return NULL;
}
bool json_is_int(const JVal *v);          /* J_INT, or J_UINT (always > INT64_MAX) */
bool json_is_number(const JVal *v);

/* Builders, for encoding results. Arrays/objects grow by doubling in the arena. */
JVal *json_null(Arena *a);
JVal *json_bool(Arena *a, bool b);
JVal *json_int(Arena *a, int64_t i);
JVal *json_uint(Arena *a, uint64_t u);    /* J_INT when u fits int64, else J_UINT */
JVal *json_bignum(Arena *a, const char *digits, size_t n); /* J_BIGNUM of the text (copied) */
JVal *json_float(Arena *a, double f);     /* non-finite values are written {"float": "inf"} by json_write */
JVal *json_str(Arena *a, const char *s);
JVal *json_strn(Arena *a, const char *s, size_t n);
JVal *json_arr(Arena *a);
JVal *json_obj(Arena *a);
void json_push(Arena *a, JVal *arr, JVal *item);
void json_set(Arena *a, JVal *obj, const char *key, JVal *val);
/* Compact builders for results that are finished when built (ShapeTrackers,
 * graphs): read-only values shared by every tree (never modify them), an
 * array of n slots the caller fills (json_push's capacity, so it may still
 * grow), and an object of exactly the n members given, keys not copied
 * (string literals) and no room for more (json_set must not add to it). */
JVal *json_int_shared(Arena *a, int64_t i);  /* shared for 0 <= i < 4096, else json_int */
JVal *json_null_shared(void);
JVal *json_bool_shared(bool b);
JVal *json_arr_n(Arena *a, size_t n);
JVal *json_obj_fixed(Arena *a, size_t n, const char *const *keys, JVal *const *vals);

/* Write v as compact JSON (floats always carry '.' or 'e'; non-finite floats
 * as {"float": ...}). Iterative: no recursion on depth. */
void json_write(FILE *f, const JVal *v);
/* Same, into a malloc'd string the caller frees. */
char *json_to_string(const JVal *v, size_t *len_out);
#endif
