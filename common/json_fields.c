/* json_fields.c — input tables entry by entry (see json_fields.h). */
#include "json_fields.h"

/* The index of key[0..n) in keys (lens[k] = strlen(keys[k])), or -1; the
 * search starts after *last (the entries of a table list their members in
 * one order). */
static int key_index(const char *const *keys, const size_t *lens, int nkeys, const char *key, size_t n, int *last) {
  for (int t = 1; t <= nkeys; t++) {
    int k = *last + t < nkeys ? *last + t : *last + t - nkeys;
    if (lens[k] == n && memcmp(keys[k], key, n) == 0) return *last = k;
  }
  return -1;
}

const JFields *json_table_row(const JTable *t, size_t i, JFields *room) {
  if (t->rows) return &t->rows[i];
  const JVal *j = t->tree->u.arr[i];
  if (j->kind != J_OBJ) return NULL;
  memset(room, 0, sizeof *room);
  size_t lens[JFIELDS_MAX];
  for (int k = 0; k < t->nkeys; k++) lens[k] = strlen(t->keys[k]);
  int last = -1;
  for (uint32_t m = 0; m < j->n; m++) { /* the reader refuses a key twice */
    int k = key_index(t->keys, lens, t->nkeys, j->u.obj[m].key, j->u.obj[m].keylen, &last);
    if (k >= 0) room->m[k] = j->u.obj[m].val;
  }
  return room;
}

/* A text's first bytes, by which it is found */
enum { TEXT_PREFIX = 48 };

static void texts_grow(JTexts *t, Arena *a) {
  size_t old_n = t->nslots;
  JTextSlot *old = t->slots;
  t->nslots = old_n ? 2 * old_n : 16;
  t->slots = arena_array(a, t->nslots, sizeof *t->slots);
  for (size_t k = 0; k < old_n; k++) {
    if (!old[k].text) continue;
    size_t i = old[k].hash & (t->nslots - 1);
    while (t->slots[i].text) i = (i + 1) & (t->nslots - 1);
    t->slots[i] = old[k];
  }
}

static bool fail(JCursor *c) {
  c->failed = true;
  return false;
}

/* The distinct text (index + 1) of the object at the cursor, which moves
 * past it; 0 (c->failed) when it is no object. A known text is found by
 * the hash of its first bytes and is the value at the cursor when the
 * text there starts with all its bytes (a JSON value ends where its bytes
 * say); a new one's extent is found by counting brackets. */
static size_t text_at_cursor(JCursor *c, Arena *a, JTexts *t) {
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\n' || *c->p == '\r' || *c->p == '\t')) c->p++;
  bool hashed = c->end - c->p >= TEXT_PREFIX;
  uint64_t h = hashed ? json_text_hash(c->p, TEXT_PREFIX) : 0;
  if (2 * (t->n + 1) > t->nslots) texts_grow(t, a);
  size_t mask = t->nslots - 1, i = h & mask;
  for (; hashed && t->slots[i].text; i = (i + 1) & mask) {
    const JText *x = &t->texts[t->slots[i].text - 1];
    if (t->slots[i].hash == h && (size_t)(c->end - c->p) >= x->len && memcmp(x->text, c->p, x->len) == 0) {
      c->p += x->len;
      return t->slots[i].text;
    }
  }
  const char *text;
  size_t len;
  if (!json_cursor_text(c, &text, &len) || text[0] != '{') return fail(c), 0;
  t->texts = arena_grow(a, t->texts, t->n, &t->cap, sizeof *t->texts);
  t->texts[t->n++] = (JText){text, len, NULL};
  if (hashed) t->slots[i] = (JTextSlot){h, t->n};
  return t->n;
}

/* What table_of_text keeps per member of its table: the value read last
 * (a member's values repeat from entry to entry: "CLANG", "float", true,
 * null); where that member is, from its key's quote to the value's end. */
typedef struct Column {
  JColumn value;
  const char *member;
  size_t member_len;
} Column;

static bool is_space(char ch) { return ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t'; }
static bool is_number_byte(char ch) { return (ch >= '0' && ch <= '9') || ch == '-' || ch == '+' || ch == '.' || ch == 'e' || ch == 'E'; }

/* a[0..n) == b[0..n), 8 bytes at a time (no call: a value or a member is
 * a few words) */
static bool same_bytes(const char *a, const char *b, size_t n) {
  uint64_t x, y;
  for (; n >= 8; a += 8, b += 8, n -= 8) {
    memcpy(&x, a, 8);
    memcpy(&y, b, 8);
    if (x != y) return false;
  }
  for (size_t i = 0; i < n; i++)
    if (a[i] != b[i]) return false;
  return true;
}

/* Whether the text at the cursor (past spaces) holds the bytes s[0..n), a
 * value the column read (or its member), a number's token ending there too:
 * then past them (bytes are what a value reads). */
static inline bool same_text(JCursor *c, const char *s, size_t n, bool number) {
  while (c->p < c->end && is_space(*c->p)) c->p++;
  size_t left = (size_t)(c->end - c->p);
  if (c->failed || !s || left < n || !same_bytes(c->p, s, n) || (number && left > n && is_number_byte(c->p[n])))
    return false;
  c->p += n;
  return true;
}

const JVal *json_column_value(JCursor *c, JColumn *col) {
  if (same_text(c, col->text, col->len, col->number)) return col->val;
  const char *at = c->p;
  const JVal *v = c->failed ? NULL : json_cursor_value(c);
  if (v) col->text = at, col->len = (size_t)(c->p - at), col->val = v, col->number = is_number_byte(*at);
  return v;
}

bool json_cursor_index(JCursor *c, size_t below, size_t *out) {
  const char *p = c->p, *digits = p;
  uint64_t x = 0;
  while (p < c->end && *p >= '0' && *p <= '9' && p - digits < 18) x = x * 10 + (uint64_t)(*p++ - '0');
  if (c->failed || p == digits || (*digits == '0' && p - digits > 1) || x >= below) return false;
  c->p = p;
  *out = (size_t)x;
  return true;
}

/* The key at the cursor: the index in t of the key (-1 when it is none of
 * them), `next` tried first by its bytes; false when there is no key. */
static bool key_of_text(JCursor *c, const JTable *t, const size_t *lens, int next, int *k, int *last) {
  if (json_cursor_key_is(c, t->keys[next], lens[next])) {
    *k = *last = next;
    return true;
  }
  const char *key;
  size_t n;
  if (!json_cursor_key(c, &key, &n)) return false;
  *k = key_index(t->keys, lens, t->nkeys, key, n, last);
  return true;
}

/* One entry of t at the cursor */
static bool row_of_text(JCursor *c, Arena *a, JTexts *texts, const JTable *t, const size_t *lens, Column *cols,
                        JFields *f) {
  memset(f, 0, sizeof *f);
  unsigned seen = 0;
  int last = -1;
  if (!json_cursor_open(c, '{')) return false;
  for (bool first = true; json_cursor_more(c, '}', first); first = false) {
    int k = last + 1 < t->nkeys ? last + 1 : 0; /* the key that comes next as the recorder writes them */
    bool as_before = k != t->text_key && same_text(c, cols[k].member, cols[k].member_len, cols[k].value.number);
    const char *member = c->p;
    if (as_before) last = k; /* the member's bytes are the entry before's */
    else if (!key_of_text(c, t, lens, k, &k, &last)) return false;
    if (k < 0 || (seen >> k & 1)) return fail(c);
    seen |= 1u << k;
    if (as_before) {
      f->m[k] = cols[k].value.val;
    } else if (k == t->text_key) {
      if (!(f->text = text_at_cursor(c, a, texts))) return false;
    } else {
      if (!(f->m[k] = json_column_value(c, &cols[k].value))) return false;
      cols[k].member = member, cols[k].member_len = (size_t)(c->p - member);
    }
  }
  return !c->failed;
}

enum { MAX_ROWS = 1 << 26 }; /* more entries than this is not a real capture */

static bool table_of_text(JCursor *c, Arena *a, JTexts *texts, JTable *t) {
  size_t cap = 0, lens[JFIELDS_MAX];
  Column cols[JFIELDS_MAX];
  memset(cols, 0, sizeof cols);
  for (int k = 0; k < t->nkeys; k++) lens[k] = strlen(t->keys[k]);
  t->rows = NULL, t->n = 0;
  if (!json_cursor_open(c, '[')) return false;
  for (bool first = true; json_cursor_more(c, ']', first); first = false) {
    if (t->n == MAX_ROWS) return fail(c);
    t->rows = arena_grow(a, t->rows, t->n, &cap, sizeof *t->rows);
    if (!row_of_text(c, a, texts, t, lens, cols, &t->rows[t->n++])) return false;
  }
  if (!t->rows) t->rows = arena_array(a, 1, sizeof *t->rows);
  return !c->failed;
}

bool json_tables_of_text(JCursor *c, Arena *a, JTexts *texts, JTable *tables, int ntables, JVal **rest) {
  int next = 0; /* the table that comes next */
  *rest = json_obj(a);
  if (!json_cursor_open(c, '{')) return false;
  for (bool first = true; json_cursor_more(c, '}', first); first = false) {
    const char *key;
    size_t n;
    if (!json_cursor_key(c, &key, &n)) return false;
    char *name = arena_strndup(a, key, n);
    int k = 0;
    while (k < ntables && strcmp(tables[k].name, name) != 0) k++;
    if (k < ntables) {
      if (k != next++ || !table_of_text(c, a, texts, &tables[k])) return fail(c);
      continue;
    }
    const JVal *v = json_get(*rest, name) ? NULL : json_cursor_value(c);
    if (!v) return fail(c);
    json_set(a, *rest, name, (JVal *)v);
  }
  return !c->failed && next == ntables ? true : fail(c);
}

const JVal *json_text_value(JCursor *c, const JTexts *texts, size_t k) {
  const JText *x = &texts->texts[k - 1];
  const char *after = c->p;
  c->p = x->text;
  const JVal *v = json_cursor_value(c);
  if (!v || c->p != x->text + x->len) c->failed = true;
  c->p = after;
  return c->failed ? NULL : v;
}
