// json_simdjson.cpp — the one C++ file: simdjson's DOM parser filling the
// project's C JSON tree (JVal, see json.h). simdjson keeps int64, uint64 and
// double apart, which the capture contract needs. Recursion here is bounded by
// simdjson's maximum nesting depth (1024), not by the size of the document.
#include <simdjson.h>
#include <cstdio>
#include <cstring>

extern "C" {
#include "json.h"
}

namespace {

struct Builder {
  Arena *arena;

  JVal *make(JKind kind) {
    JVal *v = static_cast<JVal *>(arena_alloc(arena, sizeof(JVal)));
    v->kind = kind;
    return v;
  }

  JVal *convert(simdjson::dom::element e) {
    using simdjson::dom::element_type;
    switch (e.type()) {
      case element_type::ARRAY: return convert_array(e.get_array().value_unsafe());
      case element_type::OBJECT: return convert_object(e.get_object().value_unsafe());
      case element_type::INT64: {
        JVal *v = make(J_INT);
        v->u.i = e.get_int64().value_unsafe();
        return v;
      }
      case element_type::UINT64: {
        JVal *v = make(J_UINT);
        v->u.u = e.get_uint64().value_unsafe();
        return v;
      }
      case element_type::DOUBLE: {
        JVal *v = make(J_FLOAT);
        v->u.f = e.get_double().value_unsafe();
        return v;
      }
      case element_type::STRING: {
        std::string_view s = e.get_string().value_unsafe();
        JVal *v = make(J_STR);
        v->n = s.size();
        v->u.s = arena_strndup(arena, s.data(), s.size());
        return v;
      }
      case element_type::BOOL: {
        JVal *v = make(J_BOOL);
        v->u.b = e.get_bool().value_unsafe();
        return v;
      }
      case element_type::NULL_VALUE: break;
    }
    return make(J_NULL);
  }

  JVal *convert_array(simdjson::dom::array a) {
    size_t n = 0;
    for (auto it = a.begin(); it != a.end(); ++it) n++;
    JVal *v = make(J_ARR);
    v->n = n;
    v->u.arr = static_cast<JVal **>(arena_array(arena, n ? n : 1, sizeof(JVal *)));
    size_t i = 0;
    for (simdjson::dom::element child : a) v->u.arr[i++] = convert(child);
    return v;
  }

  JVal *convert_object(simdjson::dom::object o) {
    size_t n = 0;
    for (auto it = o.begin(); it != o.end(); ++it) n++;
    JVal *v = make(J_OBJ);
    v->n = n;
    v->u.obj = static_cast<JMember *>(arena_array(arena, n ? n : 1, sizeof(JMember)));
    size_t i = 0;
    for (simdjson::dom::key_value_pair kv : o) {
      v->u.obj[i].key = arena_strndup(arena, kv.key.data(), kv.key.size());
      v->u.obj[i].keylen = kv.key.size();
      v->u.obj[i].val = convert(kv.value);
      i++;
    }
    return v;
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
    Builder b{a};
    return b.convert(doc);
  } catch (...) {
    if (err && errlen) std::snprintf(err, errlen, "malformed JSON: parser failure");
    return nullptr;
  }
}
