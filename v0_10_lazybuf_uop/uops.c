/* uops.c — the UOp properties and constructors of ops.py that the
 * scheduler uses: GroupOp sets, base, buf_uop, st (a cached property),
 * view, const, can_pad, sparents (in Python's dict order) and the first
 * line of repr(UOp) for exception messages. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pipeline.h"

/* ---- structure ---- */

/* UOp.base: self.src[0] if self.op is Ops.VIEW and len(self.src) == 1 else self;
 * with uop_base_keeps_buffer_view also `and self.src[0].op is not Ops.BUFFER` */
const UOp *v0_10_uop_base(const Sched *s, const UOp *u) {
  if (u->op != OP_VIEW || u->nsrc != 1) return u;
  return s->f->uop_base_keeps_buffer_view && u->src[0]->op == OP_BUFFER ? u : u->src[0];
}

/* schedule.py is_scheduled: u.op is Ops.VIEW and len(u.src) == 2 */
bool v0_10_is_scheduled(const UOp *u) { return u->op == OP_VIEW && u->nsrc == 2; }

/* UOp.buf_uop (buf_uop_of_buffer: `if self.op is Ops.BUFFER: return self` first) */
const UOp *v0_10_buf_uop(Sched *s, const UOp *u) {
  if (s->f->buf_uop_of_buffer && u->op == OP_BUFFER) return u;
  bool ok = (op_in(&s->groups, GROUP_BUFFER, u->op) || u->op == OP_ASSIGN || u->op == OP_VIEW) && u->nsrc &&
            u->src[0]->op == OP_BUFFER;
  if (!ok) error_raise("AssertionError", "buf_uop called on %s", op_name(u->op, s->v));
  return u->src[0];
}

/* UOp.is_contiguous_base: self.op is Ops.CONTIGUOUS and not (self.src[0].base.op is Ops.VIEW and len(self.src[0].base.src) == 2) */
bool v0_10_is_contiguous_base(const Sched *s, const UOp *u) {
  if (u->op != OP_CONTIGUOUS) return false;
  const UOp *b = v0_10_uop_base(s, u->src[0]);
  return !(b->op == OP_VIEW && b->nsrc == 2);
}

/* a REDUCE_AXIS arg: (str op, (int axis, ...)) */
bool v0_10_axis_arg_valid(const Value *arg) {
  if (arg->kind != V_TUPLE || arg->u.tuple.n != 2 || arg->u.tuple.items[0]->kind != V_STR) return false;
  const Value *axis = arg->u.tuple.items[1];
  if (axis->kind != V_TUPLE) return false;
  for (size_t i = 0; i < axis->u.tuple.n; i++)
    if (axis->u.tuple.items[i]->kind != V_INT) return false;
  return true;
}

/* UOp.axis_arg of a REDUCE_AXIS: arg[1] */
const Value *v0_10_axis_arg(const UOp *u) { return u->arg->u.tuple.items[1]; }

const UOp *v0_10_st_to_uop(Sched *s, const Value *st) { return uop0(s->in, OP_VIEW, s->void_dt, st); }

const UOp *v0_10_uop_replace(Sched *s, const UOp *u, uint32_t n, const UOp *const *src) {
  if (n == u->nsrc) {
    uint32_t i = 0;
    while (i < n && src[i] == u->src[i]) i++;
    if (i == n) return u;
  }
  return uop_new(s->in, u->op, u->dtype, u->arg, n, src);
}

/* UOp.r(op, axis) */
const UOp *v0_10_uop_r(Sched *s, const UOp *u, const Value *op, const Value *axis) {
  const Value *items[2] = {op, axis};
  return uop1(s->in, OP_REDUCE_AXIS, u->dtype, v_tuple(s->in, 2, items), u);
}

/* dtypes.as_const(val, dtype) for a scalar value */
const Value *v0_10_as_const(Sched *s, const Value *v, const DType *dt) {
  double f = value_to_double(v);
  if (dtype_is_int(dt)) {
    if (value_is_int(v)) return v;
    if (v->kind == V_BOOL) return v_int(s->in, v->u.b);
    const Value *i = v_int_of_float(s->in, f);
    if (!i) error_unsupported("int() of a non-representable float");
    return i;
  }
  if (dtype_is_float(dt)) return v->kind == V_FLOAT ? v : v_float(s->in, f == 0 ? 0.0 : f);
  return v_bool(s->in, v->kind == V_BOOL ? v->u.b : f != 0);
}

/* UOp.const(dtype, b) for a python number. 0.10.x's UOp cache holds CONST
 * 0.0 and -0.0 as one node (Python ==), so -0.0 is folded into 0.0 here. */
const UOp *v0_10_uop_const(Sched *s, const DType *dt, const Value *v) {
  const Value *c = v0_10_as_const(s, v, dt);
  if (c->kind == V_FLOAT && c->u.f == 0) c = v_float(s->in, 0.0);
  return uop0(s->in, OP_CONST, dt, c);
}

/* ---- UOp.st (cached_property) ---- */

static int st_none_marker;

const Value *v0_10_st_arg(Sched *s, const UOp *u) {
  const UOp *ret = u->src[u->op == OP_VALID ? 0 : 1];
  if (ret->op != OP_VIEW) error_raise("AssertionError", "st_arg trying to return a %s", op_name(ret->op, s->v));
  return ret->arg;
}

static bool has_st(Op op) {
  return !(op == OP_DEFINE_LOCAL || op == OP_DEFINE_GLOBAL || op == OP_BUFFER || op == OP_CONST || op == OP_DEFINE_VAR);
}

/* the st of u once the sts of its sources are known */
static const Value *st_from_sources(Sched *s, const UOp *u) {
  const Value *first = NULL;
  for (uint32_t i = 0; i < u->nsrc; i++) {
    const Value *x = v0_10_idcache_get(&s->st_cache, u->src[i]);
    if (x == (const Value *)&st_none_marker) continue;
    if (first && !v0_10_st_same_shape(first, x))
      error_raise("AssertionError", "UOp parents must have the same shape %s", v0_10_uop_repr(s, u));
    if (!first) first = x;
  }
  if (!first) error_raise("IndexError", "list index out of range");
  return u->op == OP_REDUCE_AXIS ? v0_10_st_from_reduced_shape(s, first, v0_10_axis_arg(u)) : first;
}

/* the st of a node whose value needs no sources' st, or NULL */
static const Value *st_direct(Sched *s, const UOp *u, bool *direct) {
  *direct = true;
  if (!has_st(u->op)) return (const Value *)&st_none_marker;
  if (op_in(&s->groups, GROUP_BUFFER, u->op)) return v0_10_st_arg(s, u);
  if (u->op == OP_VIEW) return u->arg;
  *direct = false;
  return NULL;
}

/* Iterative: sources before the node, each node once. */
const Value *v0_10_uop_st(Sched *s, const UOp *root) {
  const Value *got = v0_10_idcache_get(&s->st_cache, root);
  if (!got) {
    UStack *stack = &s->st_stack;
    stack->n = 0;
    v0_10_ustack_push(s, stack, root);
    while (stack->n) {
      const UOp *u = stack->items[stack->n - 1];
      if (v0_10_idcache_get(&s->st_cache, u)) { stack->n--; continue; }
      bool direct;
      const Value *v = st_direct(s, u, &direct);
      if (!direct) {
        uint32_t i = 0;
        while (i < u->nsrc && v0_10_idcache_get(&s->st_cache, u->src[i])) i++;
        if (i < u->nsrc) { v0_10_ustack_push(s, stack, u->src[i]); continue; }
        v = st_from_sources(s, u);
      }
      v0_10_idcache_put(s, &s->st_cache, u, v);
      stack->n--;
    }
    got = v0_10_idcache_get(&s->st_cache, root);
  }
  return got == (const Value *)&st_none_marker ? NULL : got;
}

/* UOp.view(st):
 *   assert self.op is not Ops.STORE; return self if self.st is None or self.st == st else VIEW(self)
 * uop_view_contiguous_to_base:
 *   if self.st is None: return self
 *   assert self.op is not Ops.STORE
 *   if st.contiguous and self.base.st == st: return self.base
 *   return UOp(Ops.VIEW, self.dtype, (self,), st) */
const UOp *v0_10_uop_view(Sched *s, const UOp *u, const Value *st) {
  if (s->f->uop_view_contiguous_to_base) {
    if (!v0_10_uop_st(s, u)) return u;
    if (u->op == OP_STORE) error_raise("AssertionError", "VIEW of STORE is invalid, STORE is always base");
    const UOp *base = v0_10_uop_base(s, u);
    if (v0_10_st_contiguous(st) && v0_10_uop_st(s, base) == st) return base;
    return uop1(s->in, OP_VIEW, u->dtype, st, u);
  }
  if (u->op == OP_STORE) error_raise("AssertionError", "VIEW of STORE is invalid, STORE is always base");
  const Value *mine = v0_10_uop_st(s, u);
  if (!mine || mine == st) return u;
  return uop1(s->in, OP_VIEW, u->dtype, st, u);
}

/* UOp.const_with_shape(dtype, val, shape) for c = UOp.const(dtype, val):
 *   UOp(Ops.VALID, dtypes.bool, (ShapeTracker.from_shape(()).reshape((1,)*len(shape)).expand(shape).to_uop(),)).where(c, 0) */
const UOp *v0_10_const_with_shape(Sched *s, const UOp *c, int n, const sint *shape) {
  sint *ones = arena_array(s->tmp, (size_t)n + 1, sizeof *ones);
  for (int i = 0; i < n; i++) ones[i] = sint_int(1);
  const Value *st = v0_10_st_expand(s, v0_10_st_reshape(s, v0_10_st_from_shape(s, 0, NULL), n, ones), n, shape);
  const UOp *valid = uop1(s->in, OP_VALID, s->bool_dt, s->none, v0_10_st_to_uop(s, st));
  const UOp *zero = v0_10_uop_const(s, c->dtype, v_int(s->in, 0)); /* x.ufix(0) */
  return uop3(s->in, OP_WHERE, zero->dtype, s->none, valid, c, zero);
}

/* ---- can_pad ---- */

/* ops.py can_pad(u, edges, visited) (can_pad_stops_at_realizes):
 *   if u.op in GroupOp.UnsafePad: return False
 *   if (len(u.src) == 2 and u.src[0] in edges) or u in visited: return True
 *   visited.add(u)
 *   return all(can_pad(x.base, edges, visited) for x in u.src)
 * False exactly when an UnsafePad op is reachable without passing a realized
 * buffer: a walk with an explicit stack, `visited` as marks of this call. */
static bool can_pad_edges(Sched *s, const UOp *root, const OMap *edges) {
  UStack *stack = &s->pad_stack;
  Marks *visited = &s->pad_marks;
  stack->n = 0;
  v0_10_marks_begin(visited);
  v0_10_ustack_push(s, stack, root);
  while (stack->n) {
    const UOp *u = stack->items[--stack->n];
    if (op_in(&s->groups, GROUP_UNSAFE_PAD, u->op)) return false;
    if (u->nsrc == 2 && omap_has(edges, omap_ptr(u->src[0]))) continue;
    if (!v0_10_marks_set(s, visited, u)) continue;
    for (uint32_t i = u->nsrc; i-- > 0;) v0_10_ustack_push(s, stack, v0_10_uop_base(s, u->src[i]));
  }
  return true;
}

/* ops.py can_pad(u): not any(x.op in GroupOp.UnsafePad for x in u.sparents), remembered per node */
bool v0_10_can_pad(Sched *s, const UOp *root, const OMap *edges) {
  if (s->f->can_pad_stops_at_realizes) return can_pad_edges(s, root, edges);
  /* unsafe_cache: 1 = safe, 2 = has an unsafe op; computed sources first */
  UStack *stack = &s->pad_stack;
  stack->n = 0;
  v0_10_ustack_push(s, stack, root);
  while (stack->n) {
    const UOp *u = stack->items[stack->n - 1];
    if (v0_10_idcache_get(&s->unsafe_cache, u)) { stack->n--; continue; }
    uintptr_t verdict = op_in(&s->groups, GROUP_UNSAFE_PAD, u->op) ? 2 : 1;
    bool pushed = false;
    for (uint32_t i = 0; i < u->nsrc && verdict == 1; i++) {
      uintptr_t c = (uintptr_t)v0_10_idcache_get(&s->unsafe_cache, u->src[i]);
      if (c == 2) verdict = 2;
      else if (c == 0) {
        v0_10_ustack_push(s, stack, u->src[i]);
        pushed = true;
        break;
      }
    }
    if (pushed) continue;
    v0_10_idcache_put(s, &s->unsafe_cache, u, (const void *)verdict);
    stack->n--;
  }
  return (uintptr_t)v0_10_idcache_get(&s->unsafe_cache, root) == 1;
}

/* ---- UOp.sparents in Python's order ----
 * parents = {**{x:None for x in src}, **{k:None for x in src for k in x.parents}}:
 * a node lists its sources, then the parents of each source in turn. A source
 * whose parents were listed before adds nothing new, so each node is
 * expanded once: a depth-first walk that lists a node's sources on entry.
 * One stamp per node says both (a node is listed before it is expanded,
 * except the root, which is listed last): stamp == listed, or listed + 1
 * once expanded; the pages cover every id, so a walk checks no bounds.
 * They live in Sched.a, kept when the caches are renewed: a stamp of an
 * older walk (or of a forgotten id's) is below every later epoch, and
 * making the pages again for every id after each renewal cost more than
 * all the walks. */
static uint32_t **sparents_stamps(Sched *s, uint32_t *listed) {
  Stamps *m = &s->stamps;
  size_t need = (uop_count(s->in) + STAMP_PAGE - 1) >> STAMP_PAGE_BITS;
  if (m->epoch >= UINT32_MAX - 2) {
    for (size_t i = 0; i < m->npages; i++) memset(m->pages[i], 0, STAMP_PAGE * sizeof **m->pages); /* older than any walk */
    m->epoch = 0;
  }
  if (need > m->cap) {
    size_t cap = m->cap ? m->cap * 2 : 16;
    while (cap < need) cap *= 2;
    uint32_t **dir = arena_array(s->a, cap, sizeof *dir);
    if (m->npages) memcpy(dir, m->pages, m->npages * sizeof *dir);
    m->pages = dir, m->cap = cap;
  }
  for (; m->npages < need; m->npages++) m->pages[m->npages] = arena_array(s->a, STAMP_PAGE, sizeof **m->pages);
  m->epoch += 2;
  *listed = m->epoch;
  return m->pages;
}

static inline uint32_t *stamp_of(uint32_t **pages, const UOp *u) {
  return &pages[u->id >> STAMP_PAGE_BITS][u->id & (STAMP_PAGE - 1)];
}

static inline void list_sources(Sched *s, uint32_t **stamps, uint32_t listed, const UOp *u) {
  for (uint32_t i = 0; i < u->nsrc; i++) {
    const UOp *c = u->src[i];
    uint32_t *stamp = stamp_of(stamps, c);
    if (*stamp >= listed) continue;
    *stamp = listed;
    v0_10_ustack_push(s, &s->parents, c);
  }
}

size_t v0_10_sparents(Sched *s, const UOp *root, const UOp ***out) {
  typedef struct { const UOp *u; uint32_t next; } Frame;
  uint32_t listed, **stamps = sparents_stamps(s, &listed), expanded = listed + 1;
  s->parents.n = 0;
  size_t n = 0, cap = s->sparents_stack ? s->sparents_cap : 64;
  Frame *stack = s->sparents_stack ? s->sparents_stack : arena_array(s->caches, cap, sizeof *stack);
  stack[n++] = (Frame){root, 0};
  *stamp_of(stamps, root) = expanded;
  list_sources(s, stamps, listed, root);
  while (n) {
    Frame *f = &stack[n - 1];
    if (f->next == f->u->nsrc) { n--; continue; }
    const UOp *c = f->u->src[f->next++];
    if (!c->nsrc) continue; /* a leaf has nothing to list */
    uint32_t *stamp = stamp_of(stamps, c);
    if (*stamp == expanded) continue;
    *stamp = expanded;
    list_sources(s, stamps, listed, c);
    if (n == cap) {
      Frame *bigger = arena_array(s->caches, cap * 2, sizeof *bigger);
      memcpy(bigger, stack, cap * sizeof *stack);
      stack = bigger, cap *= 2;
    }
    stack[n++] = (Frame){c, 0};
  }
  s->sparents_stack = stack;
  s->sparents_cap = cap;
  v0_10_ustack_push(s, &s->parents, root); /* no node is its own parent */
  *out = s->parents.items;
  return s->parents.n;
}

/* ---- repr, for exception messages ---- */

/* Python repr(float): the shortest string that reads back the same. */
static const char *float_repr(Sched *s, double f) {
  if (isnan(f)) return "nan";
  if (isinf(f)) return f > 0 ? "inf" : "-inf";
  char buf[64];
  int p = 1;
  for (; p < 17; p++) {
    snprintf(buf, sizeof buf, "%.*e", p - 1, f);
    if (strtod(buf, NULL) == f) break;
  }
  snprintf(buf, sizeof buf, "%.*e", p - 1, f);
  char digits[32];
  int nd = 0, exp = atoi(strchr(buf, 'e') + 1);
  for (const char *c = buf; *c && *c != 'e'; c++)
    if (*c >= '0' && *c <= '9') digits[nd++] = *c;
  digits[nd] = 0;
  const char *sign = f < 0 ? "-" : "";
  if (exp < -4 || exp >= 16)
    return arena_printf(s->a, "%s%c%s%s%se%c%02d", sign, digits[0], nd > 1 ? "." : "", nd > 1 ? digits + 1 : "", "",
                        exp < 0 ? '-' : '+', abs(exp));
  char out[64];
  int k = 0;
  if (exp < 0) {
    k += snprintf(out + k, sizeof out - (size_t)k, "0.");
    for (int i = 0; i < -exp - 1; i++) out[k++] = '0';
    k += snprintf(out + k, sizeof out - (size_t)k, "%s", digits);
  } else {
    for (int i = 0; i <= exp; i++) out[k++] = i < nd ? digits[i] : '0';
    out[k++] = '.';
    if (nd > exp + 1) k += snprintf(out + k, sizeof out - (size_t)k, "%s", digits + exp + 1);
    else out[k++] = '0';
  }
  out[k] = 0;
  return arena_printf(s->a, "%s%s", sign, out);
}

static const char *dtype_py_repr(Sched *s, const DType *d) {
  char buf[128];
  return arena_printf(s->a, "dtypes.%s", dtype_repr(d, s->v, buf, sizeof buf));
}

/* repr(x) for a value inside a tuple (strings quoted), str(x) at the top */
static const char *value_text(Sched *s, const Value *v, bool top) {
  switch (v->kind) {
    case V_NONE: return "None";
    case V_BOOL: return v->u.b ? "True" : "False";
    case V_INT: return arena_printf(s->a, "%lld", (long long)v->u.i);
    case V_BIGINT: {
      char text[PYINT_TEXT];
      pyint_format(value_pyint(v), text);
      return arena_strdup(s->a, text);
    }
    case V_FLOAT: return float_repr(s, v->u.f);
    case V_STR: return top ? arena_strndup(s->a, v->u.str.s, v->u.str.n) : arena_printf(s->a, "'%.*s'", (int)v->u.str.n, v->u.str.s);
    case V_DTYPE: return dtype_py_repr(s, v->u.dtype);
    case V_ST: return v0_10_st_repr(s, v);
    case V_TUPLE: {
      const char *acc = "(";
      for (size_t i = 0; i < v->u.tuple.n; i++)
        acc = arena_printf(s->a, "%s%s%s", acc, i ? ", " : "", value_text(s, v->u.tuple.items[i], false));
      return arena_printf(s->a, "%s%s)", acc, v->u.tuple.n == 1 ? "," : "");
    }
    default: return arena_strndup(s->a, v->u.str.s, v->u.str.n);
  }
}

const char *v0_10_value_repr(Sched *s, const Value *v) { return value_text(s, v, true); }

/* UOp.argstr */
static const char *argstr(Sched *s, const UOp *u) {
  if (u->op == OP_REDUCE_AXIS && u->arg->kind == V_TUPLE) {
    const char *acc = "(";
    for (size_t i = 0; i < u->arg->u.tuple.n; i++)
      acc = arena_printf(s->a, "%s%s%s", acc, i ? ", " : "", value_text(s, u->arg->u.tuple.items[i], true));
    return arena_printf(s->a, "%s)", acc);
  }
  return value_text(s, u->arg, true);
}

/* The first line of UOp.__repr__ (pretty_print): "UOp(Ops.X, dtypes.y, arg=..., src=(" */
const char *v0_10_uop_repr(Sched *s, const UOp *u) {
  return arena_printf(s->a, "UOp(%s, %s, arg=%s, src=(%s", op_name(u->op, s->v), dtype_py_repr(s, u->dtype),
                      argstr(s, u), u->nsrc ? "" : "))");
}
