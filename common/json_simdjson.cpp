// json_simdjson.cpp — the one C++ file: simdjson's DOM parser filling the
// project's C JSON tree (JVal, see json.h). simdjson keeps int64, uint64 and
// double apart, which the capture contract needs. Recursion here is bounded by
// simdjson's maximum nesting depth (1024), not by the size of the document.
#include <simdjson.h>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <unordered_map>

extern "C" {
#include "json.h"
}

namespace {

/* Fills JVal trees (counts fit JVal.n's 32 bits: simdjson documents are
 * below 4 GiB). Array and object children are allocated in one block
 * each, and short strings (op names, dtypes, object keys: they repeat on
 * every node) are stored once per document. */
struct Builder {
  Arena *arena;
  std::unordered_map<std::string_view, const char *> strings;

  const char *intern(std::string_view s) {
    if (s.size() > 64) return arena_strndup(arena, s.data(), s.size());
    auto it = strings.find(s);
    if (it != strings.end()) return it->second;
    const char *copy = arena_strndup(arena, s.data(), s.size());
    strings.emplace(std::string_view(copy, s.size()), copy);
    return copy;
  }

  void fill(JVal *v, simdjson::dom::element e) {
    using simdjson::dom::element_type;
    switch (e.type()) {
      case element_type::ARRAY: fill_array(v, e.get_array().value_unsafe()); return;
      case element_type::OBJECT: fill_object(v, e.get_object().value_unsafe()); return;
      case element_type::INT64: v->kind = J_INT; v->u.i = e.get_int64().value_unsafe(); return;
      case element_type::UINT64: v->kind = J_UINT; v->u.u = e.get_uint64().value_unsafe(); return;
      case element_type::DOUBLE: v->kind = J_FLOAT; v->u.f = e.get_double().value_unsafe(); return;
      case element_type::STRING: {
        std::string_view s = e.get_string().value_unsafe();
        v->kind = J_STR;
        v->n = s.size();
        v->u.s = intern(s);
        return;
      }
      case element_type::BOOL: v->kind = J_BOOL; v->u.b = e.get_bool().value_unsafe(); return;
      case element_type::NULL_VALUE: v->kind = J_NULL; return;
    }
  }

  void fill_array(JVal *v, simdjson::dom::array a) {
    size_t n = 0;
    for (auto it = a.begin(); it != a.end(); ++it) n++;
    v->kind = J_ARR;
    v->n = n;
    v->u.arr = static_cast<JVal **>(arena_array(arena, n ? n : 1, sizeof(JVal *)));
    JVal *children = static_cast<JVal *>(arena_array(arena, n ? n : 1, sizeof(JVal)));
    size_t i = 0;
    for (simdjson::dom::element child : a) {
      v->u.arr[i] = &children[i];
      fill(&children[i], child);
      i++;
    }
  }

  void fill_object(JVal *v, simdjson::dom::object o) {
    size_t n = 0;
    for (auto it = o.begin(); it != o.end(); ++it) n++;
    v->kind = J_OBJ;
    v->n = n;
    v->u.obj = static_cast<JMember *>(arena_array(arena, n ? n : 1, sizeof(JMember)));
    JVal *children = static_cast<JVal *>(arena_array(arena, n ? n : 1, sizeof(JVal)));
    size_t i = 0;
    for (simdjson::dom::key_value_pair kv : o) {
      v->u.obj[i].key = intern(kv.key);
      v->u.obj[i].keylen = kv.key.size();
      v->u.obj[i].val = &children[i];
      fill(&children[i], kv.value);
      i++;
    }
  }
};

}  // namespace

extern "C" JVal *json_parse(Arena *a, const char *buf, size_t len, char *err, size_t errlen) {
  static thread_local simdjson::dom::parser parser;
  try {
    simdjson::dom::element doc;
    simdjson::error_code code = parser.parse(buf, len, false).get(doc);
    if (code) {
      if (err && errlen) std::snprintf(err, errlen, "malformed JSON: %s", simdjson::error_message(code));
      return nullptr;
    }
    Builder b{a, {}};
    JVal *root = static_cast<JVal *>(arena_alloc(a, sizeof(JVal)));
    b.fill(root, doc);
    return root;
  } catch (...) {
    if (err && errlen) std::snprintf(err, errlen, "malformed JSON: parser failure");
    return nullptr;
  }
}
