// json_simdjson.cpp — the one C++ file: a JSON reader filling the project's
// C JSON tree (JVal, see json.h) in one pass over the text, with no buffer of
// its own beyond the children of the containers still open (simdjson checks
// the text is UTF-8 first and names the errors). Integers, unsigned integers
// and doubles are kept apart, as the capture contract needs; an integer beyond
// both (a Python int can be any size) is kept as its text (J_BIGNUM). The walk
// is iterative: an explicit stack of open containers, at most 1024 deep.
#include <simdjson.h>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <charconv>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <new>
#include <optional>
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

  static uint64_t load8(const char *p) { uint64_t v; std::memcpy(&v, p, 8); return v; }
  static uint64_t load4(const char *p) { uint32_t v; std::memcpy(&v, p, 4); return v; }
  static uint64_t mix(uint64_t h, uint64_t word) {
    h = (h ^ word) * 0x9E3779B97F4A7C15ULL;
    return h ^ (h >> 32);
  }

  /* A hash of s read 8 bytes at a time (the last word overlaps the one
   * before it; a short string is read as two overlapping halves). */
  static uint64_t hash_of(std::string_view s) {
    const char *p = s.data();
    size_t n = s.size();
    uint64_t h = 0xcbf29ce484222325ULL ^ n;
    if (n >= 8) {
      for (; n > 8; p += 8, n -= 8) h = mix(h, load8(p));
      h = mix(h, load8(p + n - 8));
    } else if (n >= 4) {
      h = mix(h, load4(p) | load4(p + n - 4) << 32);
    } else if (n > 0) {
      h = mix(h, uint64_t(uint8_t(p[0])) | uint64_t(uint8_t(p[n / 2])) << 8 | uint64_t(uint8_t(p[n - 1])) << 16);
    }
    h = (h ^ (h >> 33)) * 0xff51afd7ed558ccdULL;
    return h ^ (h >> 33);
  }

  /* a[0..n) == b[0..n), by words as hash_of reads them */
  static bool same_bytes(const char *a, const char *b, size_t n) {
    if (n > 16) return std::memcmp(a, b, n) == 0;
    if (n >= 8) return load8(a) == load8(b) && load8(a + n - 8) == load8(b + n - 8);
    if (n >= 4) return load4(a) == load4(b) && load4(a + n - 4) == load4(b + n - 4);
    for (size_t i = 0; i < n; i++)
      if (a[i] != b[i]) return false;
    return true;
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
      if (slots[i].hash == hash && slots[i].n == s.size() && same_bytes(slots[i].s, s.data(), s.size()))
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

/* Strings of up to 16 bytes read in the text itself (keys, op names,
 * dtypes: a few hundred distinct ones repeated on every node), by their
 * bytes: a direct-mapped cache in front of the string table, which costs
 * a hash of the string, a probe and a comparison per string. Emptied per
 * document with the string table's generation. */
struct ShortCache {
  enum : size_t { SIZE = 1024, MAX = 16 };
  struct Slot { uint64_t lo, hi; uint32_t n, gen; const char *s; JVal *val; };
  Slot slots[SIZE] = {};

  /* s's bytes as two words, zero past its end (s may be read 16 bytes
   * on: the text's padding follows it) */
  static void words(std::string_view s, uint64_t *lo, uint64_t *hi) {
    size_t n = s.size();
    uint64_t a, b;
    std::memcpy(&a, s.data(), 8);
    std::memcpy(&b, s.data() + 8, 8);
    *lo = n >= 8 ? a : a & ((uint64_t(1) << (8 * n)) - 1);
    *hi = n >= 16 ? b : n <= 8 ? 0 : b & ((uint64_t(1) << (8 * (n - 8))) - 1);
  }

  Slot &slot_for(uint64_t lo, uint64_t hi, size_t n) {
    uint64_t h = (lo ^ (hi * 0x9E3779B97F4A7C15ULL) ^ n) * 0xff51afd7ed558ccdULL;
    return slots[h >> (64 - 10)];
  }
};
static_assert(ShortCache::SIZE == 1024, "slot_for takes 10 bits");

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
  ShortCache &shorts;
  const char *text, *text_end;  /* the document (strings in it may be read 16 bytes on) */
  JVal *null_val = nullptr, *bools[2] = {nullptr, nullptr};

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
    if (s.size() > 64) return arena_strndup(arena, s.data(), s.size());
    if (ShortCache::Slot *c = short_slot(s)) return c->s;
    return intern_slot(s)->s;
  }

  /* The JVal of a string value: the document's one for a short string */
  JVal *string_val(std::string_view s) {
    if (s.size() > 64) {
      JVal *v = make(J_STR);
      v->n = s.size();
      v->u.s = arena_strndup(arena, s.data(), s.size());
      return v;
    }
    ShortCache::Slot *c = short_slot(s);
    if (c && c->val) return c->val;
    StringTable::Slot *slot = intern_slot(s);
    if (!slot->val) {
      slot->val = make(J_STR);
      slot->val->n = slot->n;
      slot->val->u.s = slot->s;
    }
    if (c) c->val = slot->val;
    return slot->val;
  }

  /* The short cache's slot holding s, filled from the string table on a
   * miss; NULL for a string it does not hold (longer, or unescaped apart) */
  ShortCache::Slot *short_slot(std::string_view s) {
    if (s.size() > ShortCache::MAX || s.data() < text || s.data() >= text_end) return nullptr;
    uint64_t lo, hi;
    ShortCache::words(s, &lo, &hi);
    ShortCache::Slot &c = shorts.slot_for(lo, hi, s.size());
    if (c.gen == strings.gen && c.n == s.size() && c.lo == lo && c.hi == hi) return &c;
    StringTable::Slot *slot = intern_slot(s);
    c = ShortCache::Slot{lo, hi, static_cast<uint32_t>(s.size()), strings.gen, slot->s, slot->val};
    return &c;
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

  /* The array or object of these n children (kept in the reader's stack
   * from `kids`): the cached equal one when they were all shared already
   * (nothing was allocated since it opened at `mark`), else a new JVal
   * with room for them in the arena. */
  JVal *container(JKind kind, const void *kids, size_t n, const unsigned char *mark) {
    ContainerCache::Slot *slot = nullptr;
    uint64_t h = 0;
    if (arena->cur == mark && n <= SMALL_CONTAINER) {
      h = hash_children(kind, kids, n);
      JVal *v = cached_container(kind, n, h, &slot);
      if (v && same_children(kind, kids, v, n)) return v;
    }
    size_t each = kind == J_ARR ? sizeof(JVal *) : sizeof(JMember);
    void *room = arena_alloc(arena, (n ? n : 1) * each);
    if (n) std::memcpy(room, kids, n * each);
    JVal *v = make(kind);
    v->n = static_cast<uint32_t>(n);
    if (kind == J_ARR) v->u.arr = static_cast<JVal **>(room);
    else v->u.obj = static_cast<JMember *>(room);
    if (slot) remember(slot, v, h);
    return v;
  }

  /* A number the text holds as an integer beyond int64 and uint64 */
  JVal *bignum_val(std::string_view digits) {
    JVal *v = make(J_BIGNUM);
    v->n = static_cast<uint32_t>(digits.size());
    v->u.s = intern(digits);
    return v;
  }
};

/* The reader's stacks for a big document (the children of the open
 * containers) are blocks of the arena chunk pool, given back once the
 * document is a JVal tree: the arenas that schedule it reuse that memory
 * instead of growing the process. Small documents keep them from one to
 * the next. */
enum : size_t { BIG_DOCUMENT = 64 * 1024, BIG_BLOCK = 16 * 1024, MAX_POOL_BLOCKS = 16 };
struct PoolBlocks {
  void *blocks[MAX_POOL_BLOCKS];
  size_t sizes[MAX_POOL_BLOCKS];
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
    pb.blocks[pb.n] = p;
    pb.sizes[pb.n++] = n;
    return p;
  }
  return std::malloc(n ? n : 1);
}

void deallocate(void *p) noexcept {
  if (!p) return;
  PoolBlocks &pb = pool_blocks;
  for (size_t i = 0; i < pb.n; i++)
    if (pb.blocks[i] == p) {
      pb.n--;
      pb.blocks[i] = pb.blocks[pb.n], pb.sizes[i] = pb.sizes[pb.n];
      arena_block_give(p, SIZE_MAX, pb.to_system);
      return;
    }
  std::free(p);
}

void *allocate_or_throw(std::size_t n) {
  void *p = allocate(n);
  if (!p) throw std::bad_alloc();
  return p;
}

thread_local StringTable strings;
thread_local IntCache ints;
thread_local ContainerCache containers;
thread_local ShortCache shorts;

/* The children of the containers still open, in document order (an
 * array's items, an object's members), kept per thread from document to
 * document; and the open containers themselves. */
struct OpenContainer {
  uint32_t first;              /* its first child in items or members */
  bool object;
  uint8_t role;                /* Role: where it is in a capture */
  const unsigned char *mark;   /* the arena's bump pointer when it opened */
};
/* A stack of plain values that grows by doubling (operator new: a pool
 * block while a big document is read). */
template <class T> struct Stack {
  T *data = nullptr;
  size_t size = 0, cap = 0;

  T &push() {
    if (size == cap) grow();
    return data[size++];
  }
  T &back() { return data[size - 1]; }
  bool empty() const { return size == 0; }
  void grow() {
    size_t bigger = cap ? cap * 2 : 256;
    T *d = static_cast<T *>(::operator new(bigger * sizeof(T)));
    if (size) std::memcpy(static_cast<void *>(d), data, size * sizeof(T));
    ::operator delete(data);
    data = d;
    cap = bigger;
  }
  void release() {
    ::operator delete(data);
    data = nullptr;
    size = cap = 0;
  }
};
struct Stacks {
  Stack<JVal *> items;
  Stack<JMember> members;
  Stack<OpenContainer> open;
};
thread_local Stacks stacks;
thread_local std::string unescaped;

/* Counting brackets outside strings over a text 64 bytes at a time (the
 * way simdjson finds its structure): per block, bit masks of the quotes,
 * backslashes and brackets; the bytes a backslash escapes; the bytes inside
 * strings (a running XOR of the unescaped quotes); the brackets outside
 * them. A block whose closing brackets cannot bring the depth to zero is
 * counted with two popcounts, else walked bracket by bracket. */
struct RawScan {
  uint64_t depth = 0;
  bool in_string = false;  /* the block before ended inside a string */
  bool escaped = false;    /* the block before ended with an unescaped backslash */

  struct Masks { uint64_t quote, backslash, open, close; };

  /* the masks of q[0..64) (readable: the buffer's padding) */
  static Masks masks(const char *q) {
    Masks m = {0, 0, 0, 0};
#ifdef __SSE2__
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), lower = _mm_set1_epi8(0x20),
                  open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}');
    for (int i = 0; i < 4; i++) {
      __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i *>(q + 16 * i));
      __m128i folded = _mm_or_si128(bytes, lower); /* '[' -> '{', ']' -> '}' */
      int shift = 16 * i;
      m.quote |= uint64_t(unsigned(_mm_movemask_epi8(_mm_cmpeq_epi8(bytes, quote)))) << shift;
      m.backslash |= uint64_t(unsigned(_mm_movemask_epi8(_mm_cmpeq_epi8(bytes, backslash)))) << shift;
      m.open |= uint64_t(unsigned(_mm_movemask_epi8(_mm_cmpeq_epi8(folded, open)))) << shift;
      m.close |= uint64_t(unsigned(_mm_movemask_epi8(_mm_cmpeq_epi8(folded, close)))) << shift;
    }
#else
    for (int i = 0; i < 64; i++) {
      char c = static_cast<char>(q[i] | 0x20);
      m.quote |= uint64_t(q[i] == '"') << i;
      m.backslash |= uint64_t(q[i] == '\\') << i;
      m.open |= uint64_t(c == '{') << i;
      m.close |= uint64_t(c == '}') << i;
    }
#endif
    return m;
  }

  /* the bytes escaped by a backslash (rare: one backslash at a time) */
  uint64_t escaped_bytes(uint64_t backslash) {
    uint64_t out = escaped ? 1 : 0;
    escaped = false;
    for (; backslash; backslash &= backslash - 1) {
      int i = __builtin_ctzll(backslash);
      if (out >> i & 1) continue; /* an escaped backslash escapes nothing */
      if (i == 63) escaped = true;
      else out |= 1ULL << (i + 1);
    }
    return out;
  }

  /* the number of bits set (without -mpopcnt, __builtin_popcountll is a
   * call into libgcc) */
  static uint64_t popcount(uint64_t x) {
#ifdef __POPCNT__
    return uint64_t(__builtin_popcountll(x));
#else
    x -= (x >> 1) & 0x5555555555555555ULL;
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (x * 0x0101010101010101ULL) >> 56;
#endif
  }

  /* a running XOR: bit i is the XOR of bits 0..i */
  static uint64_t prefix_xor(uint64_t x) {
    for (int k = 1; k < 64; k *= 2) x ^= x << k;
    return x;
  }

  /* The block at q (bytes past `valid` are not the text's): the offset of
   * the bracket that closes the outermost one, or -1. */
  int block(const char *q, uint64_t valid) {
    Masks m = masks(q);
    uint64_t esc = m.backslash || escaped ? escaped_bytes(m.backslash & valid) : 0;
    uint64_t inside = prefix_xor(m.quote & ~esc & valid) ^ (in_string ? ~0ULL : 0);
    in_string = inside >> 63;
    uint64_t open = m.open & ~inside & valid, close = m.close & ~inside & valid;
    uint64_t closes = popcount(close);
    if (closes < depth) {
      depth += popcount(open) - closes;
      return -1;
    }
    for (uint64_t both = open | close; both; both &= both - 1) {
      int i = __builtin_ctzll(both);
      if (open >> i & 1) depth++;
      else if (--depth == 0) return i;
    }
    return -1;
  }
};

/* Past the bracket that closes the array or object at start (RawScan), or
 * NULL when the text ends first (*in_string: inside a string). */
const char *raw_end(const char *start, const char *end, bool *in_string) {
  RawScan scan;
  for (const char *q = start; q < end; q += 64) {
    uint64_t valid = end - q >= 64 ? ~0ULL : (1ULL << (end - q)) - 1;
    int close = scan.block(q, valid);
    if (close >= 0) return q + close + 1;
  }
  *in_string = scan.in_string;
  return nullptr;
}

/* Where a container is in a capture, for leaving the items of
 * `expected.schedule` as text (roles are only given when asked for). */
enum Role : uint8_t { ROLE_NONE, ROLE_ROOT, ROLE_EXPECTED, ROLE_SCHEDULE, ROLE_INPUT, ROLE_SKIP };

/* The root keys a capture defines that tsched reads (docs/capture-format.md,
 * "Top level"); another key's array or object is skipped as text when
 * JSON_RAW_UNKNOWN asks. */
bool read_root_key(std::string_view key) {
  static const char *const known[] = {"format", "generation", "name", "context", "input", "expected", "error", "oracle_seconds"};
  for (const char *k : known)
    if (key == k) return true;
  return false;
}

/* Two members of one object with the same key (short keys are stored once
 * per document, so equal ones are one pointer). */
bool same_key(const JMember &a, const JMember &b) {
  return a.keylen == b.keylen && (a.key == b.key || std::memcmp(a.key, b.key, a.keylen) == 0);
}

thread_local std::vector<std::pair<uint64_t, uint32_t>> key_hashes;

/* A key that appears twice among members[0..n), or NULL: pairwise for a
 * small object, else by sorting the keys' hashes. */
const JMember *duplicate_key(const JMember *members, size_t n) {
  if (n <= 16) {
    uint64_t seen = 0; /* a bit per key pointer: no two alike, no key twice */
    bool maybe = false;
    for (size_t i = 0; i < n && !maybe; i++) {
      uint64_t bit = uint64_t(1) << ((reinterpret_cast<uintptr_t>(members[i].key) * 0x9E3779B97F4A7C15ULL) >> 58);
      maybe = (seen & bit) || members[i].keylen > 64;
      seen |= bit;
    }
    if (!maybe) return nullptr;
    for (size_t i = 1; i < n; i++)
      for (size_t j = 0; j < i; j++)
        if (members[i].key == members[j].key || (members[i].keylen > 64 && same_key(members[i], members[j]))) return &members[i];
    return nullptr;
  }
  key_hashes.clear();
  for (size_t i = 0; i < n; i++)
    key_hashes.emplace_back(StringTable::hash_of(std::string_view(members[i].key, members[i].keylen)), uint32_t(i));
  std::sort(key_hashes.begin(), key_hashes.end());
  for (size_t i = 1; i < n; i++)
    for (size_t j = i; j > 0 && key_hashes[j - 1].first == key_hashes[i].first; j--)
      if (same_key(members[key_hashes[i].second], members[key_hashes[j - 1].second])) return &members[key_hashes[i].second];
  return nullptr;
}

enum : size_t { MAX_DEPTH = 1024 };

/* Bytes that end the plain part of a string: the quote, a backslash, and
 * the control characters JSON wants escaped. */
struct StringStops {
  bool stop[256];
  constexpr StringStops() : stop() {
    for (int c = 0; c < 0x20; c++) stop[c] = true;
    stop[static_cast<unsigned char>('"')] = stop[static_cast<unsigned char>('\\')] = true;
  }
};
constexpr StringStops string_stops{};

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Appends code point cp as UTF-8. */
void put_utf8(std::string &out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

/* The first quote, backslash or control character from q on (end when
 * none): 16 bytes at a time (the buffer's padding makes reading up to 15
 * bytes past its end safe). */
const char *plain_end(const char *q, const char *end) {
#ifdef __SSE2__
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), below_space = _mm_set1_epi8(0x1F);
  for (; q < end; q += 16) {
    __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i *>(q));
    __m128i control = _mm_cmpeq_epi8(_mm_min_epu8(bytes, below_space), bytes);
    __m128i stops = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(bytes, quote), _mm_cmpeq_epi8(bytes, backslash)), control);
    unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(stops));
    if (mask) {
      q += __builtin_ctz(mask);
      return q < end ? q : end;
    }
  }
  return end;
#else
  while (q < end && !string_stops.stop[static_cast<unsigned char>(*q)]) q++;
  return q;
#endif
}

/* One pass over a JSON text building its JVal tree (RFC 8259's grammar;
 * the text is known to be UTF-8). Containers are an explicit stack: the
 * children of each open one are collected on `items` / `members` and moved
 * into the arena when it closes. */
struct Reader {
  Builder &b;
  const char *p, *end;
  unsigned raw_parts;        /* JsonRaw flags: the parts of a capture that stay text (J_RAW) */
  Stack<JVal *> &items;
  Stack<JMember> &members;
  Stack<OpenContainer> &open_containers;
  simdjson::error_code error = simdjson::SUCCESS;
  std::string twice;         /* a key found twice in one object (then error is set) */
  bool prefix = false;       /* one value at p, the text after it left (json_cursor_value) */
  size_t max_depth = MAX_DEPTH;

  JVal *fail(simdjson::error_code code) {
    error = code;
    return nullptr;
  }

  void skip_space() {
    if (p < end && static_cast<unsigned char>(*p) > ' ') return; /* most tokens follow no space or one */
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
  }

  /* The string whose opening quote is at p (p moves past its closing
   * quote): a view of the text itself when it has no escapes, else of
   * `unescaped`. False on error. */
  bool string(std::string_view *out) {
    const char *s = ++p;
    p = plain_end(p, end);
    if (p < end && *p == '"') {
      *out = std::string_view(s, size_t(p - s));
      p++;
      return true;
    }
    unescaped.assign(s, size_t(p - s));
    return escaped_string(out);
  }

  /* The rest of a string from its first backslash or bad byte at p. */
  bool escaped_string(std::string_view *out) {
    while (p < end) {
      unsigned char c = static_cast<unsigned char>(*p);
      if (c == '"') {
        *out = unescaped;
        p++;
        return true;
      }
      if (c < 0x20) return fail(simdjson::UNESCAPED_CHARS), false;
      if (c != '\\') {
        unescaped += static_cast<char>(c);
        p++;
        continue;
      }
      if (end - p < 2) break;
      char e = p[1];
      p += 2;
      switch (e) {
        case '"': unescaped += '"'; break;
        case '\\': unescaped += '\\'; break;
        case '/': unescaped += '/'; break;
        case 'b': unescaped += '\b'; break;
        case 'f': unescaped += '\f'; break;
        case 'n': unescaped += '\n'; break;
        case 'r': unescaped += '\r'; break;
        case 't': unescaped += '\t'; break;
        case 'u': if (!unicode_escape()) return false; break;
        default: return fail(simdjson::STRING_ERROR), false;
      }
    }
    return fail(simdjson::UNCLOSED_STRING), false;
  }

  /* The 4 hex digits at p as a number, or -1. */
  long hex4() {
    if (end - p < 4) return -1;
    long v = 0;
    for (int i = 0; i < 4; i++) {
      int d = hex_digit(p[i]);
      if (d < 0) return -1;
      v = v * 16 + d;
    }
    p += 4;
    return v;
  }

  /* \uXXXX after its "\u" (a high surrogate must be followed by a low one). */
  bool unicode_escape() {
    long cp = hex4();
    if (cp < 0 || (cp >= 0xDC00 && cp <= 0xDFFF)) return fail(simdjson::STRING_ERROR), false;
    if (cp >= 0xD800 && cp < 0xDC00) {
      if (end - p < 2 || p[0] != '\\' || p[1] != 'u') return fail(simdjson::STRING_ERROR), false;
      p += 2;
      long low = hex4();
      if (low < 0xDC00 || low > 0xDFFF) return fail(simdjson::STRING_ERROR), false;
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    }
    put_utf8(unescaped, static_cast<uint32_t>(cp));
    return true;
  }

  bool digit(const char *q) const { return q < end && *q >= '0' && *q <= '9'; }

  /* The number at p: J_INT, J_UINT (above INT64_MAX), J_BIGNUM (beyond
   * both) or J_FLOAT (with a fraction or an exponent). */
  JVal *number() {
    const char *start = p;
    bool negative = *p == '-';
    if (negative) p++;
    const char *digits = p;
    if (!digit(p)) return fail(simdjson::NUMBER_ERROR);
    if (*p == '0') {
      if (digit(++p)) return fail(simdjson::NUMBER_ERROR); /* no leading zeros */
    } else {
      while (digit(p)) p++;
    }
    bool is_float = false;
    if (p < end && *p == '.') {
      p++;
      if (!digit(p)) return fail(simdjson::NUMBER_ERROR);
      while (digit(p)) p++;
      is_float = true;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
      p++;
      if (p < end && (*p == '+' || *p == '-')) p++;
      if (!digit(p)) return fail(simdjson::NUMBER_ERROR);
      while (digit(p)) p++;
      is_float = true;
    }
    if (is_float) return float_number(start);
    return integer(start, digits, negative);
  }

  /* An integer's digits [digits, p) after an optional minus sign. */
  JVal *integer(const char *start, const char *digits, bool negative) {
    size_t count = size_t(p - digits);
    uint64_t magnitude = 0;
    bool fits = count <= 20;
    if (count <= 19) { /* below 10^19: no overflow to check */
      for (const char *q = digits; q < p; q++) magnitude = magnitude * 10 + uint64_t(*q - '0');
    }
    for (const char *q = digits; count > 19 && fits && q < p; q++) {
      uint64_t d = uint64_t(*q - '0');
      if (magnitude > (UINT64_MAX - d) / 10) fits = false;
      else magnitude = magnitude * 10 + d;
    }
    if (negative && fits && magnitude <= uint64_t(INT64_MAX) + 1)
      return b.int_val(magnitude == uint64_t(INT64_MAX) + 1 ? INT64_MIN : -static_cast<int64_t>(magnitude));
    if (!negative && fits && magnitude <= uint64_t(INT64_MAX)) return b.int_val(static_cast<int64_t>(magnitude));
    if (!negative && fits) {
      JVal *v = b.make(J_UINT);
      v->u.u = magnitude;
      return v;
    }
    return b.bignum_val(std::string_view(start, size_t(p - start)));
  }

  /* A number with a fraction or an exponent, rounded to the nearest double
   * (as simdjson and Python do); one too large for a double is an error. */
  JVal *float_number(const char *start) {
    double f = 0;
    std::from_chars_result r = std::from_chars(start, p, f);
    if (r.ptr != p || (r.ec != std::errc() && !tiny(start))) return fail(simdjson::NUMBER_ERROR);
    JVal *v = b.make(J_FLOAT);
    v->u.f = r.ec == std::errc() ? f : 0.0 * (*start == '-' ? -1 : 1);
    return v;
  }

  /* The number [start, p) is out of range because it is below the smallest
   * double (it rounds to zero), not above the largest. */
  bool tiny(const char *start) const {
    std::string text(start, size_t(p - start));
    return std::strtod(text.c_str(), nullptr) == 0.0;
  }

  /* true, false or null at p */
  JVal *atom() {
    size_t left = size_t(end - p);
    if (*p == 't') {
      if (left < 4 || std::memcmp(p, "true", 4) != 0) return fail(simdjson::T_ATOM_ERROR);
      p += 4;
      return b.bool_val(true);
    }
    if (*p == 'f') {
      if (left < 5 || std::memcmp(p, "false", 5) != 0) return fail(simdjson::F_ATOM_ERROR);
      p += 5;
      return b.bool_val(false);
    }
    if (left < 4 || std::memcmp(p, "null", 4) != 0) return fail(simdjson::N_ATOM_ERROR);
    p += 4;
    return b.null_val ? b.null_val : (b.null_val = b.make(J_NULL));
  }

  /* The scalar value at p. */
  JVal *scalar() {
    char c = *p;
    if (c == '"') {
      std::string_view s;
      return string(&s) ? b.string_val(s) : nullptr;
    }
    if (c == '-' || (c >= '0' && c <= '9')) return number();
    if (c == 't' || c == 'f' || c == 'n') return atom();
    return fail(simdjson::TAPE_ERROR);
  }

  /* The array or object at p left as its text (J_RAW): its extent is found
   * by counting brackets outside strings, 64 bytes at a time (RawScan); the
   * text is read when it is materialized. */
  JVal *raw() {
    const char *start = p;
    bool in_string = false;
    if (!(p = raw_end(start, end, &in_string))) {
      p = end;
      return fail(in_string ? simdjson::UNCLOSED_STRING : simdjson::TAPE_ERROR);
    }
    JVal *v = b.make(J_RAW);
    v->n = static_cast<uint32_t>(p - start);
    v->u.s = start;
    return v;
  }

  /* The role of the value that comes next in the innermost container
   * (after its key `key` when it is an object). */
  uint8_t role_of_next(std::string_view key) const {
    if (open_containers.empty()) return raw_parts & (JSON_RAW_SCHEDULE_ITEMS | JSON_RAW_INPUT | JSON_RAW_UNKNOWN) ? ROLE_ROOT : ROLE_NONE;
    uint8_t outer = open_containers.back().role;
    if (outer == ROLE_ROOT && (raw_parts & JSON_RAW_UNKNOWN) && !read_root_key(key)) return ROLE_SKIP;
    if (outer == ROLE_ROOT && key == "input" && (raw_parts & JSON_RAW_INPUT)) return ROLE_INPUT;
    if (outer == ROLE_ROOT && key == "expected" && (raw_parts & JSON_RAW_SCHEDULE_ITEMS)) return ROLE_EXPECTED;
    if (outer == ROLE_EXPECTED && (key == "schedule" || key == "becomes_map" || key == "new_buffers")) return ROLE_SCHEDULE;
    return ROLE_NONE;
  }

  /* An object's key at p and the colon after it: a member is added whose
   * value comes next. */
  bool key(std::string_view *k) {
    if (p >= end || *p != '"') return fail(simdjson::TAPE_ERROR), false;
    if (!string(k)) return false;
    JMember &m = members.push();
    m.key = b.intern(*k);
    m.keylen = static_cast<uint32_t>(k->size());
    m.val = nullptr;
    skip_space();
    if (p >= end || *p != ':') return fail(simdjson::TAPE_ERROR), false;
    p++;
    skip_space();
    return true;
  }

  /* Opens the array or object at p (its role given); false on error. */
  bool open(uint8_t role) {
    if (open_containers.size >= max_depth) return fail(simdjson::DEPTH_ERROR), false;
    bool object = *p == '{';
    uint32_t first = static_cast<uint32_t>(object ? members.size : items.size);
    OpenContainer &c = open_containers.push();
    c.first = first;
    c.object = object;
    c.role = role;
    c.mark = b.arena->cur;
    p++;
    skip_space();
    return true;
  }

  /* Closes the innermost container: its JVal (NULL when an object has a
   * key twice: Python would keep the last value, a capture never has one). */
  JVal *close() {
    OpenContainer c = open_containers.data[--open_containers.size];
    p++;
    if (c.object) {
      if (const JMember *m = duplicate_key(members.data + c.first, members.size - c.first)) {
        twice.assign(m->key, m->keylen);
        return fail(simdjson::TAPE_ERROR);
      }
      JVal *v = b.container(J_OBJ, members.data + c.first, members.size - c.first, c.mark);
      members.size = c.first;
      return v;
    }
    JVal *v = b.container(J_ARR, items.data + c.first, items.size - c.first, c.mark);
    items.size = c.first;
    return v;
  }

  /* Where the value just read goes: into the innermost container (then p
   * moves to the next value, or the container closes and is the value
   * just read), or it is the document. Returns the document when it is
   * complete, else NULL (with `error` set on error). */
  JVal *place(JVal *v, uint8_t *role) {
    for (;;) {
      if (open_containers.empty()) {
        if (prefix) return v;
        skip_space();
        return p == end ? v : fail(simdjson::TAPE_ERROR);
      }
      const OpenContainer &c = open_containers.back();
      if (c.object) members.back().val = v;
      else items.push() = v;
      skip_space();
      char closing = c.object ? '}' : ']';
      if (p < end && *p == closing) {
        v = close();
        if (!v) return nullptr;
        continue;
      }
      if (p >= end || *p != ',') return fail(simdjson::TAPE_ERROR);
      p++;
      skip_space();
      std::string_view k;
      if (c.object && !key(&k)) return nullptr;
      *role = role_of_next(k);
      return nullptr;
    }
  }

  /* A flat array of at most 16 integers and plain strings written
   * compactly ("[3,1,4]", "[0,\"gelu\"]": no spaces, integers with no
   * fraction or exponent, read by integer(), strings with no escape or
   * control byte; node sources, shapes, strides, metadata pairs) read in one pass:
   * the JVal the general path makes of it, from the same shared integers
   * and strings and the same container cache. NULL, p unmoved, for any
   * other text (the general path reads it, or names its error). */
  JVal *flat_array() {
    enum { MAX_ITEMS = 16 };
    if (open_containers.size >= max_depth) return nullptr;
    const unsigned char *mark = b.arena->cur;
    JVal *kids[MAX_ITEMS];
    size_t n = 0;
    const char *q = p + 1;
    if (q < end && *q == ']') {
      p = q + 1;
      return b.container(J_ARR, kids, 0, mark);
    }
    for (;;) {
      if (n == MAX_ITEMS || q >= end) return nullptr;
      if (*q == '"') {
        const char *s = ++q;
        while (q < end && *q != '"' && *q != '\\' && static_cast<unsigned char>(*q) >= 0x20) q++;
        if (q >= end || *q != '"') return nullptr;
        kids[n++] = b.string_val(std::string_view(s, size_t(q - s)));
        q++;
      } else {
        const char *start = q;
        bool negative = *q == '-';
        q += negative;
        const char *digits = q;
        while (q < end && *q >= '0' && *q <= '9') q++;
        if (q == digits || (*digits == '0' && q - digits > 1)) return nullptr;
        std::swap(p, q); /* integer() reads the digits up to p */
        kids[n++] = integer(start, digits, negative);
        std::swap(p, q);
      }
      if (q >= end) return nullptr;
      if (*q == ']') break;
      if (*q != ',') return nullptr;
      q++;
    }
    p = q + 1;
    return b.container(J_ARR, kids, n, mark);
  }

  /* The whole document. */
  JVal *document() {
    skip_space();
    if (p == end) return fail(simdjson::EMPTY);
    uint8_t role = role_of_next({});
    for (;;) {
      if (p >= end) return fail(simdjson::TAPE_ERROR);
      JVal *v;
      if (*p == '{' || *p == '[') {
        bool raw_item = role == ROLE_NONE && !open_containers.empty() && open_containers.back().role == ROLE_SCHEDULE;
        if (raw_item || role == ROLE_INPUT || role == ROLE_SKIP) {
          v = raw();
        } else if (*p == '[' && (v = flat_array())) {
          /* read whole */
        } else {
          if (!open(role)) return nullptr;
          const OpenContainer &c = open_containers.back();
          if (p < end && *p == (c.object ? '}' : ']')) {
            v = close();
          } else {
            std::string_view k;
            if (c.object && !key(&k)) return nullptr;
            role = role_of_next(k);
            continue;
          }
        }
      } else {
        v = scalar();
      }
      if (!v) return nullptr;
      JVal *doc = place(v, &role);
      if (doc || error) return doc;
    }
  }
};

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

/* simdjson's own DOM parser, for json_simdjson_parse (kept per thread) */
thread_local simdjson::dom::parser *dom_parser;

extern "C" bool json_simdjson_parse(const char *buf, size_t len) {
  try {
    if (!dom_parser) dom_parser = new simdjson::dom::parser();
    simdjson::dom::element root;
    return dom_parser->parse(reinterpret_cast<const uint8_t *>(buf), len, false).get(root) == simdjson::SUCCESS;
  } catch (...) {
    return false;
  }
}

/* simdjson's On-Demand parser, for json_simdjson_ondemand (kept per thread) */
thread_local simdjson::ondemand::parser *ondemand_parser;

/* Reads every value under v (keys and strings unescaped, numbers parsed),
 * as a DOM parse does; false on error or beyond MAX_DEPTH. */
static bool ondemand_visit(simdjson::ondemand::value v, size_t depth) {
  simdjson::ondemand::json_type type;
  if (depth > MAX_DEPTH || v.type().get(type)) return false;
  switch (type) {
    case simdjson::ondemand::json_type::object:
      for (auto field : v.get_object()) {
        std::string_view key;
        simdjson::ondemand::value child;
        if (field.unescaped_key().get(key) || field.value().get(child) || !ondemand_visit(child, depth + 1)) return false;
      }
      return true;
    case simdjson::ondemand::json_type::array:
      for (auto item : v.get_array()) {
        simdjson::ondemand::value child;
        if (item.get(child) || !ondemand_visit(child, depth + 1)) return false;
      }
      return true;
    case simdjson::ondemand::json_type::number: {
      simdjson::ondemand::number n;
      return v.get_number().get(n) == simdjson::SUCCESS;
    }
    case simdjson::ondemand::json_type::string: {
      std::string_view s;
      return v.get_string().get(s) == simdjson::SUCCESS;
    }
    case simdjson::ondemand::json_type::boolean: {
      bool b;
      return v.get_bool().get(b) == simdjson::SUCCESS;
    }
    case simdjson::ondemand::json_type::null: {
      bool null;
      return v.is_null().get(null) == simdjson::SUCCESS && null;
    }
  }
  return false;
}

extern "C" bool json_simdjson_ondemand(const char *buf, size_t len, size_t capacity) {
  try {
    if (!ondemand_parser) ondemand_parser = new simdjson::ondemand::parser();
    simdjson::ondemand::document doc;
    simdjson::ondemand::value root;
    if (ondemand_parser->iterate(buf, len, capacity).get(doc) || doc.get_value().get(root)) return false;
    return ondemand_visit(root, 0);
  } catch (...) {
    return false;
  }
}

extern "C" void json_release_parser(void) {
  pool_blocks.to_system = true;
  delete dom_parser;
  dom_parser = nullptr;
  delete ondemand_parser;
  ondemand_parser = nullptr;
  stacks.items.release();
  stacks.members.release();
  stacks.open.release();
  std::string().swap(unescaped);
  strings = StringTable{};
  pool_blocks.to_system = false;
}

/* The stacks a big document grew go back to the pool for the arenas that follow. */
static void drop_stacks(void) {
  stacks.items.release();
  stacks.members.release();
}

/* The reader's per-document tables emptied for a new document. */
static void begin_document(void) {
  strings.reset();
  if (strings.gen == 1) { /* the generation started over */
    ints = IntCache{};
    containers = ContainerCache{};
    shorts = ShortCache{};
  }
}

extern "C" JVal *json_parse_capture(Arena *a, const char *buf, size_t len, unsigned raw, char *err, size_t errlen) {
  bool big = len >= BIG_DOCUMENT;
  try {
    bool utf8 = (raw & JSON_UTF8_CHECKED) || simdjson::validate_utf8(buf, len);
    simdjson::error_code code = utf8 ? simdjson::SUCCESS : simdjson::UTF8_ERROR;
    JVal *root = nullptr;
    std::string twice; /* the key an object has twice */
    if (!code) {
      begin_document();
      if (big) drop_stacks(); /* from here their blocks come from the pool */
      pool_blocks.routing = big;
      Builder b{a, strings, ints, containers, shorts, buf, buf + len};
      Reader r{b, buf, buf + len, raw, stacks.items, stacks.members, stacks.open, simdjson::SUCCESS, {}};
      root = r.document();
      code = r.error;
      twice.swap(r.twice);
      pool_blocks.routing = false;
      stacks.open.size = stacks.items.size = stacks.members.size = 0;
      if (big) drop_stacks();
    }
    if (!root && err && errlen && !twice.empty())
      std::snprintf(err, errlen, "malformed JSON: the key \"%.60s\"%s appears twice in one object", twice.c_str(),
                    twice.size() > 60 ? "..." : "");
    else if (!root && err && errlen)
      std::snprintf(err, errlen, "malformed JSON: %s", simdjson::error_message(code));
    return root;
  } catch (...) {
    pool_blocks.routing = false;
    stacks.open.size = stacks.items.size = stacks.members.size = 0;
    if (big) drop_stacks();
    if (err && errlen) std::snprintf(err, errlen, "malformed JSON: parser failure");
    return nullptr;
  }
}

extern "C" JVal *json_parse(Arena *a, const char *buf, size_t len, char *err, size_t errlen) {
  return json_parse_capture(a, buf, len, 0, err, errlen);
}

/* ---- the cursor (json.h): a big value decoded straight from its text ---- */

/* The reader of the thread's cursor, kept from value to value */
thread_local std::optional<Builder> cursor_builder;
thread_local std::optional<Reader> cursor_reader;

extern "C" void json_cursor_begin(JCursor *c, Arena *a, const JVal *raw) {
  begin_document();
  *c = JCursor{raw->u.s, raw->u.s + raw->n, 0, false};
  cursor_reader.reset();
  cursor_builder.reset();
  cursor_builder.emplace(Builder{a, strings, ints, containers, shorts, c->p, c->end});
  cursor_reader.emplace(Reader{*cursor_builder, c->p, c->end, 0, stacks.items, stacks.members, stacks.open,
                               simdjson::SUCCESS, {}});
  cursor_reader->prefix = true;
}

/* Past the spaces at c->p; false at the end of the text. */
static bool cursor_space(JCursor *c) {
  if (c->p < c->end && static_cast<unsigned char>(*c->p) > ' ') return true; /* most tokens follow no space or one */
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\n' || *c->p == '\r' || *c->p == '\t')) c->p++;
  return c->p < c->end;
}

static bool cursor_fail(JCursor *c) {
  c->failed = true;
  return false;
}

extern "C" bool json_cursor_open(JCursor *c, char bracket) {
  if (c->failed || !cursor_space(c) || *c->p != bracket || c->depth + 1 >= MAX_DEPTH) return cursor_fail(c);
  c->p++;
  c->depth++;
  return true;
}

extern "C" bool json_cursor_more(JCursor *c, char close, bool first) {
  if (c->failed || !cursor_space(c)) return cursor_fail(c);
  if (*c->p == close) {
    c->p++;
    c->depth--;
    return false;
  }
  if (first) return true;
  if (*c->p != ',') return cursor_fail(c);
  c->p++;
  return true;
}

extern "C" bool json_cursor_key(JCursor *c, const char **key, size_t *n) {
  if (c->failed || !cursor_space(c) || *c->p != '"') return cursor_fail(c);
  const char *k = c->p + 1, *q = plain_end(k, c->end);
  if (q >= c->end || *q != '"') return cursor_fail(c); /* escaped or unclosed: not a name the caller knows */
  c->p = q + 1;
  if (!cursor_space(c) || *c->p != ':') return cursor_fail(c);
  c->p++;
  *key = k;
  *n = size_t(q - k);
  return true;
}

extern "C" bool json_cursor_key_is(JCursor *c, const char *key, size_t n) {
  if (c->failed || !cursor_space(c) || size_t(c->end - c->p) < n + 3 || *c->p != '"' || c->p[n + 1] != '"' ||
      std::memcmp(c->p + 1, key, n) != 0)
    return false;
  const char *after = c->p + n + 2;
  while (after < c->end && (*after == ' ' || *after == '\n' || *after == '\r' || *after == '\t')) after++;
  if (after == c->end || *after != ':') return false;
  c->p = after + 1;
  return true;
}

extern "C" const JVal *json_cursor_value(JCursor *c) {
  if (c->failed || !cursor_space(c)) return cursor_fail(c), nullptr;
  try {
    Reader &r = *cursor_reader;
    r.p = c->p;
    r.error = simdjson::SUCCESS;
    r.max_depth = MAX_DEPTH - c->depth;
    bool container = *c->p == '{' || *c->p == '[';
    JVal *v = container ? r.document() : r.scalar(); /* a scalar is all document() would read */
    if (!v) {
      stacks.open.size = stacks.items.size = stacks.members.size = 0;
      return cursor_fail(c), nullptr;
    }
    c->p = r.p;
    return v;
  } catch (...) {
    stacks.open.size = stacks.items.size = stacks.members.size = 0;
    return cursor_fail(c), nullptr;
  }
}

extern "C" bool json_cursor_text(JCursor *c, const char **text, size_t *n) {
  if (c->failed || !cursor_space(c) || (*c->p != '{' && *c->p != '[')) return cursor_fail(c);
  const char *start = c->p;
  bool in_string = false;
  const char *after = raw_end(start, c->end, &in_string);
  if (!after) return cursor_fail(c);
  c->p = after;
  *text = start;
  *n = size_t(after - start);
  return true;
}

extern "C" uint64_t json_text_hash(const char *s, size_t n) { return StringTable::hash_of(std::string_view(s, n)); }
