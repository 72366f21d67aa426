/* json_fields.h — the big tables of a capture's input (arrays of objects:
 * buffers, lazybuffers) read entry by entry, member by member, from the
 * input's tree or straight from its text through a JCursor (json.h), so
 * that a decoder has one code path for both. */
#ifndef TSCHED_JSON_FIELDS_H
#define TSCHED_JSON_FIELDS_H
#include "json.h"

enum { JFIELDS_MAX = 16 };

/* An entry's members, m[k] the value of the table's keys[k] (NULL: absent);
 * read from the text, the member keys[text_key] is one of the distinct
 * texts instead (text: its index + 1). */
typedef struct JFields { const JVal *m[JFIELDS_MAX]; size_t text; } JFields;

/* The distinct texts of one member across a table (a lazybuffer's `st`:
 * resnet50's 5,078 LazyBuffers have 305), each for the decoder to decode
 * once (`decoded`); equal texts are equal trees. */
typedef struct JText { const char *text; size_t len; const void *decoded; } JText;
typedef struct JTextSlot { uint64_t hash; size_t text; } JTextSlot;
typedef struct JTexts { JText *texts; size_t n, cap; JTextSlot *slots; size_t nslots; } JTexts;

typedef struct JTable {
  const char *name;         /* its key in the input */
  const char *const *keys;  /* the members a decoder reads, in the order the recorder writes them */
  int nkeys;                /* at most JFIELDS_MAX */
  int text_key;             /* the member kept as a distinct text, or -1 */
  const JVal *tree;         /* from a tree: the array */
  JFields *rows;            /* from the text: every entry */
  size_t n;
} JTable;

/* Row i of t, from its rows or from its tree (into room); NULL when the
 * tree's entry is not an object. */
const JFields *json_table_row(const JTable *t, size_t i, JFields *room);

/* The object at the cursor, whose members must include the tables, in
 * their order; every other member is a tree in *rest (in `a`, like the
 * rows). False (c->failed) on anything the tree must judge: not JSON, a
 * table missing or out of order, a key twice, an entry that is no object,
 * an entry's key that is not in its table's keys or has an escape. */
bool json_tables_of_text(JCursor *c, Arena *a, JTexts *texts, JTable *tables, int ntables, JVal **rest);

/* One member of consecutive entries (a column): the value read last, by its text */
typedef struct JColumn {
  const char *text;
  size_t len;
  const JVal *val;
  bool number;              /* the value is a number */
} JColumn;
/* The value at the cursor: the column's last one when the text holds the
 * same bytes there (a number's token ending with them), else read
 * (json_cursor_value) and kept. Start col zeroed. */
const JVal *json_column_value(JCursor *c, JColumn *col);
/* An index below `below` at the cursor, written as plain digits (no sign,
 * no leading zero, at most 18 of them), the cursor then past it; false,
 * the cursor unmoved, when the text is not so. */
bool json_cursor_index(JCursor *c, size_t below, size_t *out);

/* The tree of distinct text k (index + 1), parsed at the cursor's text;
 * NULL (c->failed) when it is not JSON. */
const JVal *json_text_value(JCursor *c, const JTexts *texts, size_t k);
#endif
