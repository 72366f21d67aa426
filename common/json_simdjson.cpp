// json_simdjson.cpp — the one C++ file: simdjson's DOM parser filling the
// project's C JSON tree (JVal, see json.h). simdjson keeps int64, uint64 and
// double apart, which the capture contract needs; integers beyond both (a
// Python int can be any size) fail its parse, and such a document is read
// again with each of them quoted behind a marker (J_BIGNUM). Recursion here is bounded by
// simdjson's maximum nesting depth (1024), not by the size of the document.
#include <simdjson.h>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string_view>
#include <vector>

extern "C" {
#include "json.h"
}

namespace {

/* The strings stored once per document, each with the JVal that stands
 * for it as a value: an open-addressing table kept for the thread and
 * emptied in O(1) per document by bumping a generation. */
struct StringTable {
  struct Slot { const char *s; uint32_t n; uint32_t gen; uint64_t hash; JVal *val; };
  std::vector<Slot> slots = std::vector<Slot>(1024);
  uint32_t gen = 0;
  size_t used = 0;

  void reset() {
    used = 0;
    if (++gen == 0) { /* wrapped: really clear once every 2^32 documents */
      for (Slot &slot : slots) slot.gen = 0;
      gen = 1;
    }
  }

  static uint64_t hash_of(std::string_view s) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
    return h ^ (h >> 29);
  }

  void grow() {
    std::vector<Slot> old(slots.size() * 2);
    old.swap(slots);
    for (const Slot &slot : old)
      if (slot.gen == gen) place(slot);
  }

  Slot *place(const Slot &slot) {
    size_t mask = slots.size() - 1, i = slot.hash & mask;
    while (slots[i].gen == gen) i = (i + 1) & mask;
    slots[i] = slot;
    return &slots[i];
  }

  /* The slot of s, or NULL when absent. */
  Slot *find(std::string_view s, uint64_t hash) {
    size_t mask = slots.size() - 1, i = hash & mask;
    for (; slots[i].gen == gen; i = (i + 1) & mask)
      if (slots[i].hash == hash && slots[i].n == s.size() && std::memcmp(slots[i].s, s.data(), s.size()) == 0)
        return &slots[i];
    return nullptr;
  }

  /* valid until the next add */
  Slot *add(const char *copy, std::string_view s, uint64_t hash) {
    if ((used + 1) * 2 > slots.size()) grow();
    used++;
    return place(Slot{copy, static_cast<uint32_t>(s.size()), gen, hash, nullptr});
  }
};

/* Small integers of the document, one JVal each: a direct-mapped cache
 * emptied per document with the string table's generation. */
struct IntCache {
  enum : size_t { SIZE = 4096 };
  struct Slot { int64_t i; uint32_t gen; JVal *val; };
  Slot slots[SIZE] = {};
};

/* An array or object of at most SMALL children that were all shared
 * already (nothing new made for them) is one JVal with the last container
 * of the same kind and children that fell into its slot: a direct-mapped
 * cache by the children's pointers, emptied per document with the string
 * table's generation (a table of every container cost a cache miss each). */
struct ContainerCache {
  enum : size_t { SIZE = 1024, SMALL = 8 };
  struct Slot { JVal *val; uint32_t gen; uint32_t hash; };
  Slot slots[SIZE] = {};
};

/* A quoted big integer: "\u0001bignum:DIGITS" in the rewritten text. */
constexpr std::string_view BIGNUM_MARK{"\x01" "bignum:", 8};

/* A JSON integer token (-?[1-9][0-9]*) beyond int64 when negative, beyond uint64 when not. */
bool is_bignum(std::string_view t) {
  bool neg = !t.empty() && t[0] == '-';
  std::string_view digits = t.substr(neg ? 1 : 0), limit = neg ? "9223372036854775808" : "18446744073709551615";
  if (digits.empty() || digits[0] == '0') return false;
  for (char c : digits)
    if (c < '0' || c > '9') return false;
  return digits.size() > limit.size() || (digits.size() == limit.size() && digits > limit);
}

/* The text with each big integer outside strings written as a marked string
 * ("\u0001bignum:DIGITS"); false when it has none. */
bool quote_bignums(const char *buf, size_t len, std::string &out) {
  bool in_str = false, found = false;
  out.clear();
  out.reserve(len + 64);
  for (size_t i = 0; i < len;) {
    char c = buf[i];
    if (in_str) {
      size_t n = c == '\\' && i + 1 < len ? 2 : 1;
      out.append(buf + i, n);
      if (c == '"') in_str = false;
      i += n;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      size_t j = i;
      while (j < len && (buf[j] == '-' || buf[j] == '+' || buf[j] == '.' || buf[j] == 'e' || buf[j] == 'E' || (buf[j] >= '0' && buf[j] <= '9'))) j++;
      std::string_view token(buf + i, j - i);
      if (is_bignum(token)) {
        out += "\"\\u0001bignum:";
        out += token;
        out += '"';
        found = true;
      } else out += token;
      i = j;
    } else {
      in_str = c == '"';
      out += c;
      i++;
    }
  }
  return found;
}

/* Fills JVal trees (counts fit JVal.n's 32 bits: simdjson documents are
 * below 4 GiB). A tree is only read once parsed, so its scalars are shared:
 * null, true, false, each string of up to 64 bytes and each integer that
 * hits the cache is one JVal per document, pointed to from every array
 * and object that holds it (node indexes, graph nodes' op, dtype and arg:
 * about a third of the tree). Short strings (op names, dtypes, object keys:
 * they repeat on every node) are stored once per document. */
struct Builder {
  Arena *arena;
  StringTable &strings;
  IntCache &ints;
  ContainerCache &containers;
  bool bignums; /* the text was rewritten by quote_bignums: marked strings are J_BIGNUM */
  JVal *null_val = nullptr, *bools[2] = {nullptr, nullptr};
  const char *string_end = nullptr;   /* past the last string read from the parser's string buffer */

  void saw(std::string_view s) {
    const char *e = s.data() + s.size() + 1;
    if (e > string_end) string_end = e;
  }

  JVal *make(JKind kind) {
    JVal *v = static_cast<JVal *>(arena_alloc(arena, sizeof(JVal)));
    v->kind = kind;
    return v;
  }

  StringTable::Slot *intern_slot(std::string_view s) {
    uint64_t hash = StringTable::hash_of(s);
    if (StringTable::Slot *found = strings.find(s, hash)) return found;
    return strings.add(arena_strndup(arena, s.data(), s.size()), s, hash);
  }

  const char *intern(std::string_view s) {
    saw(s);
    if (s.size() > 64) return arena_strndup(arena, s.data(), s.size());
    return intern_slot(s)->s;
  }

  /* The JVal of a string value: the document's one for a short string */
  JVal *string_val(std::string_view s) {
    saw(s);
    if (s.size() > 64) {
      JVal *v = make(J_STR);
      v->n = s.size();
      v->u.s = arena_strndup(arena, s.data(), s.size());
      return v;
    }
    StringTable::Slot *slot = intern_slot(s);
    if (!slot->val) {
      slot->val = make(J_STR);
      slot->val->n = slot->n;
      slot->val->u.s = slot->s;
    }
    return slot->val;
  }

  JVal *int_val(int64_t i) {
    IntCache::Slot &slot = ints.slots[static_cast<uint64_t>(i) & (IntCache::SIZE - 1)];
    if (slot.gen == strings.gen && slot.i == i) return slot.val;
    JVal *v = make(J_INT);
    v->u.i = i;
    slot = IntCache::Slot{i, strings.gen, v};
    return v;
  }

  JVal *bool_val(bool b) {
    if (!bools[b]) {
      bools[b] = make(J_BOOL);
      bools[b]->u.b = b;
    }
    return bools[b];
  }

  /* The JVal of e: a shared one for a scalar that can be, else a new one. */
  JVal *value(simdjson::dom::element e) {
    using simdjson::dom::element_type;
    switch (e.type()) {
      case element_type::INT64: return int_val(e.get_int64().value_unsafe());
      case element_type::BOOL: return bool_val(e.get_bool().value_unsafe());
      case element_type::NULL_VALUE: return null_val ? null_val : (null_val = make(J_NULL));
      case element_type::STRING: {
        std::string_view s = e.get_string().value_unsafe();
        if (!(bignums && s.substr(0, BIGNUM_MARK.size()) == BIGNUM_MARK)) return string_val(s);
        break;
      }
      case element_type::ARRAY: return array_val(e.get_array().value_unsafe());
      case element_type::OBJECT: return object_val(e.get_object().value_unsafe());
      default: break;
    }
    JVal *v = make(J_NULL);
    fill(v, e);
    return v;
  }

  void fill(JVal *v, simdjson::dom::element e) {
    using simdjson::dom::element_type;
    switch (e.type()) {
      case element_type::ARRAY: *v = *array_val(e.get_array().value_unsafe()); return;
      case element_type::OBJECT: *v = *object_val(e.get_object().value_unsafe()); return;
      case element_type::INT64: v->kind = J_INT; v->u.i = e.get_int64().value_unsafe(); return;
      case element_type::UINT64: v->kind = J_UINT; v->u.u = e.get_uint64().value_unsafe(); return;
      case element_type::DOUBLE: v->kind = J_FLOAT; v->u.f = e.get_double().value_unsafe(); return;
      case element_type::STRING: {
        std::string_view s = e.get_string().value_unsafe();
        if (bignums && s.substr(0, BIGNUM_MARK.size()) == BIGNUM_MARK) {
          s.remove_prefix(BIGNUM_MARK.size());
          v->kind = J_BIGNUM;
          v->n = s.size();
          v->u.s = intern(s);
          return;
        }
        v->kind = J_STR;
        v->n = s.size();
        v->u.s = intern(s);
        return;
      }
      case element_type::BOOL: v->kind = J_BOOL; v->u.b = e.get_bool().value_unsafe(); return;
      case element_type::NULL_VALUE: v->kind = J_NULL; return;
    }
  }

  /* simdjson's size() saturates at 0xFFFFFF elements; count beyond that. */
  static size_t count(simdjson::dom::array a) {
    size_t n = a.size();
    if (n < 0xFFFFFF) return n;
    n = 0;
    for (auto it = a.begin(); it != a.end(); ++it) n++;
    return n;
  }
  static size_t count(simdjson::dom::object o) {
    size_t n = o.size();
    if (n < 0xFFFFFF) return n;
    n = 0;
    for (auto it = o.begin(); it != o.end(); ++it) n++;
    return n;
  }

  static constexpr size_t SMALL_CONTAINER = ContainerCache::SMALL;
  static uint64_t mix(uint64_t h, const void *p) { return (h ^ reinterpret_cast<uintptr_t>(p)) * 0x9E3779B97F4A7C15ULL; }

  /* The container of `kind` with these n children seen last in its cache
   * slot, or NULL (then *slot is where the new one goes). */
  JVal *cached_container(JKind kind, size_t n, uint64_t h, ContainerCache::Slot **slot) {
    *slot = &containers.slots[(h ^ (h >> 29)) & (ContainerCache::SIZE - 1)];
    const ContainerCache::Slot &s = **slot;
    return s.gen == strings.gen && s.hash == static_cast<uint32_t>(h) && s.val->kind == kind && s.val->n == n ? s.val : nullptr;
  }

  void remember(ContainerCache::Slot *slot, JVal *v, uint64_t h) { *slot = ContainerCache::Slot{v, strings.gen, static_cast<uint32_t>(h)}; }

  /* the children of an array (JVal *) or an object (JMember) in room */
  static uint64_t hash_children(JKind kind, const void *room, size_t n) {
    uint64_t h = n + (kind == J_OBJ ? 0x100000000ULL : 0);
    if (kind == J_ARR)
      for (size_t i = 0; i < n; i++) h = mix(h, static_cast<JVal *const *>(room)[i]);
    else
      for (size_t i = 0; i < n; i++) h = mix(mix(h, static_cast<const JMember *>(room)[i].key), static_cast<const JMember *>(room)[i].val);
    return h;
  }

  static bool same_children(JKind kind, const void *room, const JVal *v, size_t n) {
    for (size_t i = 0; i < n; i++) { /* a few pointers: no call to memcmp */
      if (kind == J_ARR && static_cast<JVal *const *>(room)[i] != v->u.arr[i]) return false;
      if (kind == J_OBJ) {
        const JMember &a = static_cast<const JMember *>(room)[i], &b = v->u.obj[i];
        if (a.key != b.key || a.keylen != b.keylen || a.val != b.val) return false;
      }
    }
    return true;
  }

  /* The array or object whose n children were just put in room (`bytes`
   * from the arena, at `after` its end): the cached equal one when they were
   * all shared already (nothing new made below it; room given back), else
   * a new JVal. */
  JVal *container(JKind kind, void *room, size_t n, size_t bytes, const unsigned char *after) {
    ContainerCache::Slot *slot = nullptr;
    uint64_t h = 0;
    if (arena->cur == after && n <= SMALL_CONTAINER) {
      h = hash_children(kind, room, n);
      JVal *v = cached_container(kind, n, h, &slot);
      if (v && same_children(kind, room, v, n)) {
        arena_unalloc(arena, room, bytes);
        return v;
      }
    }
    JVal *v = make(kind);
    v->n = n;
    if (kind == J_ARR) v->u.arr = static_cast<JVal **>(room);
    else v->u.obj = static_cast<JMember *>(room);
    if (slot) remember(slot, v, h);
    return v;
  }

  JVal *array_val(simdjson::dom::array a) {
    size_t n = count(a), bytes = (n ? n : 1) * sizeof(JVal *);
    JVal **items = static_cast<JVal **>(arena_alloc(arena, bytes));
    const unsigned char *after = arena->cur;
    size_t i = 0;
    for (simdjson::dom::element child : a) items[i++] = value(child);
    return container(J_ARR, items, n, bytes, after);
  }

  JVal *object_val(simdjson::dom::object o) {
    size_t n = count(o), bytes = (n ? n : 1) * sizeof(JMember);
    JMember *members = static_cast<JMember *>(arena_alloc(arena, bytes));
    const unsigned char *after = arena->cur;
    size_t i = 0;
    for (simdjson::dom::key_value_pair kv : o) {
      members[i].key = intern(kv.key);
      members[i].keylen = kv.key.size();
      members[i].val = value(kv.value);
      i++;
    }
    return container(J_OBJ, members, n, bytes, after);
  }
};

/* The parser's buffers for a big document (its tape, strings and
 * structural indexes: ~5x the document) are blocks of the arena chunk pool,
 * given back once the document is a JVal tree: the arenas that schedule it
 * reuse that memory instead of growing the process. Small documents keep
 * the parser's buffers from one to the next. */
enum : size_t { BIG_DOCUMENT = 64 * 1024, BIG_BLOCK = 16 * 1024, MAX_POOL_BLOCKS = 16, WRITE_SLACK = 4096 };
struct PoolBlocks {
  void *blocks[MAX_POOL_BLOCKS];
  size_t sizes[MAX_POOL_BLOCKS];
  size_t touched[MAX_POOL_BLOCKS];   /* how far the parser wrote, SIZE_MAX: unknown */
  size_t n;
  bool routing;      /* big allocations become pool blocks (while a big document is parsed) */
  bool to_system;    /* blocks given back are freed (json_release_parser) */
};
thread_local PoolBlocks pool_blocks;

void *allocate(std::size_t n) noexcept {
  PoolBlocks &pb = pool_blocks;
  if (pb.routing && n >= BIG_BLOCK && pb.n < MAX_POOL_BLOCKS) {
    void *p = arena_block_take(n);
    if (!p) return p;
#ifndef NDEBUG
    std::memset(p, 0xA5, n); /* checked when it is given back: the parser wrote nothing past `touched` */
#endif
    pb.blocks[pb.n] = p;
    pb.sizes[pb.n] = n;
    pb.touched[pb.n++] = SIZE_MAX;
    return p;
  }
  return std::malloc(n ? n : 1);
}

void deallocate(void *p) noexcept {
  if (!p) return;
  PoolBlocks &pb = pool_blocks;
  for (size_t i = 0; i < pb.n; i++)
    if (pb.blocks[i] == p) {
      size_t touched = pb.touched[i];
#ifndef NDEBUG
      const unsigned char *b = static_cast<const unsigned char *>(p);
      for (size_t j = touched; j < pb.sizes[i]; j++)
        if (b[j] != 0xA5) {
          std::fprintf(stderr, "json_simdjson: the parser wrote at %zu of a %zu-byte buffer, past %zu\n", j, pb.sizes[i], touched);
          std::abort();
        }
      touched = SIZE_MAX; /* the whole block holds the check's bytes */
#endif
      pb.n--;
      pb.blocks[i] = pb.blocks[pb.n], pb.sizes[i] = pb.sizes[pb.n], pb.touched[i] = pb.touched[pb.n];
      arena_block_give(p, touched, pb.to_system);
      return;
    }
  std::free(p);
}

/* The pool block p: the parser wrote at most `bytes` from its start */
void note_touched(const void *p, size_t bytes) {
  PoolBlocks &pb = pool_blocks;
  for (size_t i = 0; i < pb.n; i++)
    if (pb.blocks[i] == p) pb.touched[i] = bytes + WRITE_SLACK; /* its vector stores may pass the end a little */
}

void *allocate_or_throw(std::size_t n) {
  void *p = allocate(n);
  if (!p) throw std::bad_alloc();
  return p;
}

thread_local simdjson::dom::parser parser;
thread_local StringTable strings;
thread_local IntCache ints;
thread_local ContainerCache containers;

/* After a document is parsed and read: how far the parser wrote into its
 * tape (tape[0] says where it ends), its string buffer (strings are written
 * in order: the end of the last one read) and its structural indexes. */
void note_parser_extents(const char *string_end) {
  const uint64_t *tape = parser.doc.tape.get();
  if (tape) note_touched(tape, ((tape[0] & simdjson::internal::JSON_VALUE_MASK) + 1) * sizeof *tape);
  const char *sb = reinterpret_cast<const char *>(parser.doc.string_buf.get());
  if (sb) note_touched(sb, string_end && string_end > sb ? size_t(string_end - sb) : 0);
  if (parser.implementation)
    note_touched(parser.implementation->structural_indexes.get(),
                 (size_t(parser.implementation->n_structural_indexes) + 3) * sizeof(uint32_t));
}

/* the parser without its buffers: they go back to the pool */
void drop_parser(bool to_system) {
  pool_blocks.to_system = to_system;
  parser = simdjson::dom::parser{};
  pool_blocks.to_system = false;
}

}  // namespace

/* Every C++ allocation of the program (the parser's and the string
 * table's) goes through these, so that a pool block is told apart when it is freed. */
void *operator new(std::size_t n) { return allocate_or_throw(n); }
void *operator new[](std::size_t n) { return allocate_or_throw(n); }
void *operator new(std::size_t n, const std::nothrow_t &) noexcept { return allocate(n); }
void *operator new[](std::size_t n, const std::nothrow_t &) noexcept { return allocate(n); }
void operator delete(void *p) noexcept { deallocate(p); }
void operator delete[](void *p) noexcept { deallocate(p); }
void operator delete(void *p, std::size_t) noexcept { deallocate(p); }
void operator delete[](void *p, std::size_t) noexcept { deallocate(p); }
void operator delete(void *p, const std::nothrow_t &) noexcept { deallocate(p); }
void operator delete[](void *p, const std::nothrow_t &) noexcept { deallocate(p); }

extern "C" void json_release_parser(void) {
  drop_parser(true);
  strings = StringTable{};
}

extern "C" JVal *json_parse(Arena *a, const char *buf, size_t len, char *err, size_t errlen) {
  bool big = len >= BIG_DOCUMENT;
  try {
    simdjson::dom::element doc;
    if (big) drop_parser(false); /* its buffers come from the pool */
    pool_blocks.routing = big;
    simdjson::error_code code = parser.parse(buf, len, false).get(doc);
    std::string quoted;
    bool bignums = false;
    if (code && quote_bignums(buf, len, quoted)) {
      bignums = true;
      code = parser.parse(quoted.data(), quoted.size(), true).get(doc); /* true: simdjson copies into a padded buffer */
    }
    pool_blocks.routing = false;
    if (code) {
      if (big) drop_parser(false);
      if (err && errlen) std::snprintf(err, errlen, "malformed JSON: %s", simdjson::error_message(code));
      return nullptr;
    }
    strings.reset();
    if (strings.gen == 1) { /* the generation started over */
      ints = IntCache{};
      containers = ContainerCache{};
    }
    Builder b{a, strings, ints, containers, bignums};
    JVal *root = static_cast<JVal *>(arena_alloc(a, sizeof(JVal)));
    b.fill(root, doc);
    if (big) {
      note_parser_extents(b.string_end);
      drop_parser(false);
    }
    return root;
  } catch (...) {
    pool_blocks.routing = false;
    if (big) drop_parser(false);
    if (err && errlen) std::snprintf(err, errlen, "malformed JSON: parser failure");
    return nullptr;
  }
}
