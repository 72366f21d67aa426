/* view.c — tinygrad's View (shape/view.py), 0.9.1 / 0.10.0 / 0.10.2, on
 * sints (sint.h): ints run the inline int paths, symbolic values go through
 * the version's symbolic engine. Read next to the Python: each function names
 * the source it follows, and version differences are explicit `if (v ...)`
 * switches with a comment. */
#include "view.h"
#include <stdio.h>
#include <string.h>
#include "symbolic.h"

/* View.__add__ recurses (vm2 + vm1.shrink(...), reshaped_vm2 + vm1, vm2 + masked vm1);
 * a few tinygrad inputs recurse forever, which Python ends with RecursionError. */
enum { VIEW_ADD_MAX_DEPTH = 200 };

static const sint S0 = {0, NULL}, S1 = {1, NULL};

/* ------------------------------------------------------------------ small helpers */

static sint *sint_array(Arena *a, int n) { return arena_array(a, (size_t)(n > 0 ? n : 1), sizeof(sint)); }
static SPair *pair_array(Arena *a, int n) { return arena_array(a, (size_t)(n > 0 ? n : 1), sizeof(SPair)); }

/* `0 in xs` (Python `in` compares with ==) */
static bool contains_zero(int n, const sint *xs) {
  for (int i = 0; i < n; i++)
    if (sint_eq(xs[i], S0)) return true;
  return false;
}

/* tuple equality */
static bool sints_equal(int n, const sint *x, const sint *y) {
  for (int i = 0; i < n; i++)
    if (x[i].sym != y[i].sym ? !sint_eq(x[i], y[i]) : x[i].i != y[i].i) return false;
  return true;
}

/* `(b, e) == (x, y)` */
static bool pair_is(SPair p, sint b, sint e) { return sint_eq(p.b, b) && sint_eq(p.e, e); }

bool view_is_symbolic(const View *vw) {
  if (vw->offset.sym != NULL || !sint_all_int(vw->ndim, vw->shape) || !sint_all_int(vw->ndim, vw->strides)) return true;
  for (int i = 0; vw->mask != NULL && i < vw->ndim; i++)
    if (vw->mask[i].b.sym != NULL || vw->mask[i].e.sym != NULL) return true;
  return false;
}

/* Python truthiness of `self.mask`: None and () are both false. */
static bool mask_truthy(const View *vw) { return vw->mask != NULL && vw->ndim > 0; }

/* ---- 0.10.0 on symbolic values (UOps). Python's `x != y` with a UOp is a CMPNE UOp, whose truth
 * UOp.__bool__ decides (a ValueError when it is not one value): sint_cmp. `resolve(x OP y, dflt)`
 * decides with a default: sint_resolve. `==` is identity (sint_eq). */

/* Python's bool(a != b) as version v's code reads it: 0.10.x evaluate the UOp; 0.9.1 keeps sint_ne */
static bool py_ne(TgVersion v, sint a, sint b) { return tg_features(v)->view_compares_resolve ? sint_cmp(SINT_NE, a, b) : sint_ne(a, b); }

/* `st != 0` of _merge_dims / merge_dims (0.9.1 spells it `if st`, Node truthiness) */
static bool stride_nonzero(TgVersion v, sint st) { return tg_features(v)->view_compares_resolve ? sint_cmp(SINT_NE, st, S0) : sint_truthy(st); }

/* all_int([...]) of a few values */
static bool all_int2(sint a, sint b) { return sint_is_int(a) && sint_is_int(b); }

static void buf_append(char *buf, size_t cap, size_t *len, const char *s) {
  size_t n = strlen(s);
  if (*len + n >= cap) n = cap - *len - 1;
  memcpy(buf + *len, s, n);
  *len += n;
  buf[*len] = '\0';
}

/* "(" + ", ".join(parts) + ")" with the 1-tuple comma */
static const char *join_tuple(Arena *a, int n, const char *const *parts) {
  size_t cap = 8, len = 0;
  for (int i = 0; i < n; i++) cap += strlen(parts[i]) + 2;
  char *buf = arena_alloc(a, cap);
  buf[0] = '\0';
  buf_append(buf, cap, &len, "(");
  for (int i = 0; i < n; i++) {
    if (i) buf_append(buf, cap, &len, ", ");
    buf_append(buf, cap, &len, parts[i]);
  }
  buf_append(buf, cap, &len, n == 1 ? ",)" : ")");
  return buf;
}

const char *py_repr_tuple(Arena *a, int n, const sint *xs) {
  const char *parts[n > 0 ? n : 1];
  for (int i = 0; i < n; i++) parts[i] = sint_repr(a, xs[i]);
  return join_tuple(a, n, parts);
}

const char *py_repr_ints(Arena *a, int n, const int64_t *xs) {
  const char *parts[n > 0 ? n : 1];
  for (int i = 0; i < n; i++) parts[i] = arena_printf(a, "%lld", (long long)xs[i]);
  return join_tuple(a, n, parts);
}

const char *py_repr_pairs(Arena *a, int n, const SPair *xs) {
  const char *parts[n > 0 ? n : 1];
  for (int i = 0; i < n; i++) parts[i] = arena_printf(a, "(%s, %s)", sint_repr(a, xs[i].b), sint_repr(a, xs[i].e));
  return join_tuple(a, n, parts);
}

/* repr(View): the dataclass repr */
const char *py_repr_view(Arena *a, const View *vw) {
  return arena_printf(a, "View(shape=%s, strides=%s, offset=%s, mask=%s, contiguous=%s)", py_repr_tuple(a, vw->ndim, vw->shape),
                      py_repr_tuple(a, vw->ndim, vw->strides), sint_repr(a, vw->offset),
                      vw->mask != NULL ? py_repr_pairs(a, vw->ndim, vw->mask) : "None", vw->contiguous ? "True" : "False");
}

/* ------------------------------------------------------------------ module functions */

/* shape/view.py canonicalize_strides (all versions) */
void canonicalize_strides(int n, const sint *shape, const sint *strides, sint *out) {
  for (int i = 0; i < n; i++) out[i] = sint_eq(shape[i], S1) ? S0 : strides[i];
}

/* shape/view.py strides_for_shape (all versions): accumulate(reversed(shape[1:]), mul, initial=1) */
void strides_for_shape(int n, const sint *shape, sint *out) {
  sint acc = S1;
  for (int i = n - 1; i >= 0; i--) {
    out[i] = acc;
    if (i > 0) acc = sint_mul(acc, shape[i]);
  }
  canonicalize_strides(n, shape, out, out);
}

/* shape/view.py _merge_dims (0.9.1, 0.10.0) and merge_dims (0.10.2) */
int merge_dims(TgVersion v, int n, const sint *shape, const sint *strides, const SPair *mask, MergedDim *out) {
  if (n == 0) return 0;
  int cnt = 0;
  out[cnt++] = (MergedDim){shape[0], strides[0], stride_nonzero(v, strides[0]) ? shape[0] : S0};
  /* merge this dim to next dim if size is 1 */
  bool merging = mask != NULL ? sint_eq(sint_sub(mask[0].e, mask[0].b), S1) : sint_eq(shape[0], S1);
  for (int i = 1; i < n; i++) {
    sint s = shape[i], st = strides[i];
    if (sint_eq(s, S1)) continue;  /* always merge 1 */
    MergedDim last = out[cnt - 1];
    if (tg_features(v)->merge_dims_real_through_zero) {
      /* merge_dims: the third entry keeps counting through zero-stride dims */
      if (merging || sint_eq(last.stride, sint_mul(s, st)))
        out[cnt - 1] = (MergedDim){sint_mul(last.size, s), st, merging ? s : sint_mul(last.real, s)};
      else out[cnt++] = (MergedDim){s, st, s};
    } else {
      /* _merge_dims: a zero stride resets the real size to 0 */
      if (merging || sint_eq(last.stride, sint_mul(s, st)))
        out[cnt - 1] = (MergedDim){sint_mul(last.size, s), st, stride_nonzero(v, st) ? (merging ? s : sint_mul(last.real, s)) : S0};
      else out[cnt++] = (MergedDim){s, st, stride_nonzero(v, st) ? s : S0};
    }
    merging = mask != NULL ? sint_eq(sint_sub(mask[i].e, mask[i].b), S1) : sint_eq(s, S1);
  }
  return cnt;
}

/* shape/view.py un1d (0.9.1: `if stride`, 0.10.0: `if stride != 0`) */
void un1d(TgVersion v, int n, const sint *shape, sint offs, sint *out) {
  sint strides[n > 0 ? n : 1];
  strides_for_shape(n, shape, strides);
  for (int i = 0; i < n; i++) {
    sint here = stride_nonzero(v, strides[i]) ? sint_floordiv(offs, strides[i]) : S0;
    out[i] = here;
    offs = sint_sub(offs, sint_mul(here, strides[i]));
  }
}

/* shape/view.py unravel (0.10.2): (offset//acc)%d from the last dim */
void unravel(int n, const sint *shape, sint offs, sint *out) {
  sint acc = S1;
  for (int i = n - 1; i >= 0; i--) {
    if (sint_is_int(acc) && acc.i == 0) error_raise("ZeroDivisionError", "integer division or modulo by zero");
    if (sint_is_int(shape[i]) && shape[i].i == 0) error_raise("ZeroDivisionError", "integer modulo by zero");
    out[i] = sint_mod(sint_floordiv(offs, acc), shape[i]);
    acc = sint_mul(acc, shape[i]);
  }
}

/* ------------------------------------------------------------------ View */

/* View(shape, strides, offset, mask, contiguous): the dataclass constructor */
const View *view_new(Arena *a, int ndim, const sint *shape, const sint *strides, sint offset, const SPair *mask,
                     bool contiguous) {
  View *vw = arena_alloc(a, sizeof *vw);
  sint *sh = sint_array(a, ndim), *st = sint_array(a, ndim);
  if (ndim > 0) { /* a 0-d view may come with NULL arrays */
    memcpy(sh, shape, sizeof(sint) * (size_t)ndim);
    memcpy(st, strides, sizeof(sint) * (size_t)ndim);
  }
  SPair *m = NULL;
  if (mask != NULL) {
    m = pair_array(a, ndim);
    if (ndim > 0) memcpy(m, mask, sizeof(SPair) * (size_t)ndim);
  }
  *vw = (View){ndim, sh, st, offset, m, contiguous};
  return vw;
}

/* View.size(): prod of the shape, a symbolic dimension counted by its max
 * (0.9.1 x.max, 0.10.x x.vmax); beyond int64 it is unsupported (sint_mul). */
int64_t view_size(const View *vw) {
  sint p = S1;
  for (int i = 0; i < vw->ndim; i++) p = sint_mul(p, sint_int(vw->shape[i].sym == NULL ? vw->shape[i].i : sint_max_int(vw->shape[i])));
  return p.i;
}

/* View.create (shape/view.py, all versions) */
const View *view_create(Arena *a, TgVersion v, int n, const sint *shape, const sint *strides_in, sint offset,
                        const SPair *mask_in) {
  if (tg_features(v)->view_create_rejects_negative) { /* `not all(resolve(s >= 0) ...)` or `not all(s >= 0 ...)` */
    for (int i = 0; i < n; i++)
      if (tg_features(v)->view_create_checks_resolve ? !sint_resolve(SINT_GE, shape[i], S0, true) : !sint_ge(shape[i], S0)) {
        error_raise("ValueError", "Trying to create View with negative dimension: shape=%s", py_repr_tuple(a, n, shape));
      }
  }
  sint strides[n > 0 ? n : 1];
  /* `if strides`: None and () both mean "row-major" */
  if (strides_in != NULL && n > 0) canonicalize_strides(n, shape, strides_in, strides);
  else strides_for_shape(n, shape, strides);
  sint zeros[n > 0 ? n : 1];
  for (int i = 0; i < n; i++) zeros[i] = S0;
  /* canonicalize 0 in shape */
  if (contains_zero(n, shape)) return view_new(a, n, shape, zeros, S0, NULL, true);
  SPair mask[n > 0 ? n : 1];
  const SPair *m = NULL;
  if (mask_in != NULL) {
    memcpy(mask, mask_in, sizeof(SPair) * (size_t)n);
    m = mask;
    /* canonicalize empty mask */
    bool all_full = true;
    for (int i = 0; i < n && all_full; i++) all_full = pair_is(mask[i], S0, shape[i]);
    if (all_full) m = NULL;
  }
  /* a dimension masked down to one index gets stride 0 and moves its start into the offset */
  if (m != NULL && n > 0) {
    bool elim[n], any_elim = false, any_empty = false;
    for (int i = 0; i < n; i++) { /* 0.10.x: not resolve(b+1 < e) */
      elim[i] = tg_features(v)->view_compares_resolve ? !sint_resolve(SINT_LT, sint_add(mask[i].b, S1), mask[i].e, true) : !sint_lt(sint_add(mask[i].b, S1), mask[i].e);
      any_elim = any_elim || elim[i];
    }
    if (any_elim) { /* 0.10.x: any(not resolve(b < e)) */
      for (int i = 0; i < n && !any_empty; i++)
        any_empty = tg_features(v)->view_compares_resolve ? !sint_resolve(SINT_LT, mask[i].b, mask[i].e, true) : !sint_lt(mask[i].b, mask[i].e);
      if (any_empty) {
        for (int i = 0; i < n; i++) strides[i] = S0;
        offset = S0;
        for (int i = 0; i < n; i++) mask[i] = (SPair){S0, S0};
      }
      /* offset += sum((strides[i] * mask[i][0]) if e else 0 for i, e in enumerate(elim)) */
      sint extra = S0;
      for (int i = 0; i < n; i++) extra = sint_add(extra, elim[i] ? sint_mul(strides[i], mask[i].b) : S0);
      offset = sint_add(offset, extra);
      for (int i = 0; i < n; i++)
        if (elim[i]) strides[i] = S0;
    }
  }
  sint simple[n > 0 ? n : 1];
  if (tg_features(v)->view_create_ssimplify) { /* "simplify as we go": offset and shape ssimplify()'d */
    offset = sint_ssimplify(offset);
    for (int i = 0; i < n; i++) simple[i] = sint_ssimplify(shape[i]);
    shape = simple;
  }
  sint rm[n > 0 ? n : 1];
  strides_for_shape(n, shape, rm);
  bool contiguous = sint_eq(offset, S0) && m == NULL && sints_equal(n, strides, rm);
  return view_new(a, n, shape, strides, offset, m, contiguous);
}

/* dataclass __eq__: (shape, strides, offset, mask, contiguous) */
bool view_equal(const View *x, const View *y) {
  if (x == y) return true;
  if (x->ndim != y->ndim || !sint_eq(x->offset, y->offset) || x->contiguous != y->contiguous) return false;
  if (!sints_equal(x->ndim, x->shape, y->shape) || !sints_equal(x->ndim, x->strides, y->strides)) return false;
  if ((x->mask == NULL) != (y->mask == NULL)) return false;
  for (int i = 0; x->mask != NULL && i < x->ndim; i++)
    if (!pair_is(x->mask[i], y->mask[i].b, y->mask[i].e)) return false;
  return true;
}

static uint64_t mix(uint64_t h, uint64_t x) {
  h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdULL;
}

static uint64_t hash_sint(sint x) { return x.sym == NULL ? (uint64_t)x.i : sint_hash(x); }

uint64_t view_hash(const View *vw) {
  uint64_t h = mix(0x5157, (uint64_t)vw->ndim);
  for (int i = 0; i < vw->ndim; i++) h = mix(mix(h, hash_sint(vw->shape[i])), hash_sint(vw->strides[i]));
  h = mix(mix(h, hash_sint(vw->offset)), vw->contiguous);
  h = mix(h, vw->mask != NULL);
  for (int i = 0; vw->mask != NULL && i < vw->ndim; i++) h = mix(mix(h, hash_sint(vw->mask[i].b)), hash_sint(vw->mask[i].e));
  return h;
}

/* ------------------------------------------------------------------ reshape */

/* One `next(reversed(xs), default)` iterator. */
typedef struct RevIter { int pos; } RevIter;
static sint rev_next(RevIter *it, const sint *xs, sint dflt) { return it->pos > 0 ? xs[--it->pos] : dflt; }
static SPair rev_next_pair(RevIter *it, const SPair *xs, SPair dflt) { return it->pos > 0 ? xs[--it->pos] : dflt; }

typedef enum { RM_OK, RM_NONE, RM_ALL_INVALID } ReshapeMaskResult;

static bool mask_pair_all_int(int n, const SPair *mask) {
  for (int i = 0; i < n; i++)
    if (mask[i].b.sym != NULL || mask[i].e.sym != NULL) return false;
  return true;
}

/* shape/view.py _reshape_mask. 0.9.1 returns (mask, extra) with extra meaning "not possible";
 * 0.10.x return the mask or None. RM_OK fills out, RM_NONE = not possible,
 * RM_ALL_INVALID = ((0, 0),) * len(new_shape). `mask` is not NULL here; its entries are ints
 * past the first check, the shapes may be symbolic. */
static ReshapeMaskResult reshape_mask(TgVersion v, int n_old, const SPair *mask, const sint *old_shape, int n_new,
                                      const sint *new_shape, SPair *out) {
  if (!mask_pair_all_int(n_old, mask)) return RM_NONE;
  if (tg_features(v)->reshape_mask_empty_all) { /* any empty mask dimension makes the whole mask empty */
    for (int i = 0; i < n_old; i++)
      if (mask[i].e.i <= mask[i].b.i) return RM_ALL_INVALID; /* e - b < 1 */
  }
  int cnt = 0;  /* new_mask, built from the last dimension */
  RevIter r_masks = {n_old}, r_shape = {n_old}, r_new_shape = {n_new};
  sint curr_stride = S1, old_dim = rev_next(&r_shape, old_shape, S1), new_dim = rev_next(&r_new_shape, new_shape, S1);
  SPair m = rev_next_pair(&r_masks, mask, (SPair){S0, S1});
  if (tg_features(v)->reshape_mask_invalid_met && sint_lt(sint_sub(m.e, m.b), S1)) return RM_ALL_INVALID; /* invalid mask */
  for (long guard = 0; cnt < n_new; guard++) {
    if (guard > 1000000) return RM_NONE;  /* cannot happen for matching sizes */
    sint l = m.b, r = m.e, next_stride = sint_mul(new_dim, curr_stride);
    /* `if old_dim >= next_stride: if old_dim == next_stride`, or (rewritten) `==`, then `elif >` */
    bool split = tg_features(v)->reshape_mask_rewritten ? sint_eq(old_dim, next_stride) || sint_gt(old_dim, next_stride) : sint_ge(old_dim, next_stride);
    if (split && sint_eq(old_dim, next_stride)) { /* simply copy the mask and get next batch for merging */
      out[cnt++] = (SPair){sint_floordiv(l, curr_stride), sint_add(sint_floordiv(sint_sub(r, S1), curr_stride), S1)};
      curr_stride = S1;
      old_dim = rev_next(&r_shape, old_shape, S1);
      new_dim = rev_next(&r_new_shape, new_shape, S1);
      m = rev_next_pair(&r_masks, mask, (SPair){S0, S1});
      if (tg_features(v)->reshape_mask_invalid_met && sint_lt(sint_sub(m.e, m.b), S1)) return RM_ALL_INVALID; /* invalid mask */
    } else if (split) { /* mask can only be splitted if reshape doesn't cut across the mask */
      /* rewritten: old_dim % next_stride != 0 checked first; else last */
      if (tg_features(v)->reshape_mask_rewritten && py_ne(v, sint_mod(old_dim, next_stride), S0)) return RM_NONE;
      bool cuts = (py_ne(v, sint_mod(l, next_stride), S0) || py_ne(v, sint_mod(r, next_stride), S0)) &&
                  py_ne(v, sint_floordiv(l, next_stride), sint_floordiv(sint_sub(r, S1), next_stride));
      if (cuts || (!tg_features(v)->reshape_mask_rewritten && py_ne(v, sint_mod(old_dim, next_stride), S0))) return RM_NONE;
      out[cnt++] = (SPair){sint_floordiv(sint_mod(l, next_stride), curr_stride),
                           sint_add(sint_floordiv(sint_mod(sint_sub(r, S1), next_stride), curr_stride), S1)};
      curr_stride = next_stride;
      new_dim = rev_next(&r_new_shape, new_shape, S1);
    } else {
      SPair next_mask = rev_next_pair(&r_masks, mask, (SPair){S0, S1});
      /* combine if the mask can unfold continuously */
      bool full = pair_is(m, S0, old_dim), unit = sint_eq(sint_sub(next_mask.e, next_mask.b), S1);
      if (tg_features(v)->reshape_mask_rewritten) { /* an empty range (l == r) combines too */
        if (!full && py_ne(v, l, r) && !unit) return RM_NONE;
      } else {
        if (!full && !unit) return RM_NONE;
      }
      m = (SPair){sint_add(sint_mul(next_mask.b, old_dim), l), sint_add(sint_mul(sint_sub(next_mask.e, S1), old_dim), r)};
      old_dim = sint_mul(old_dim, rev_next(&r_shape, old_shape, S1));
    }
  }
  if (!tg_features(v)->reshape_mask_rewritten) { /* leading 1s of the old shape must be unmasked */
    while (r_masks.pos > 0) {
      SPair lead = mask[--r_masks.pos];
      if (!pair_is(lead, S0, S1)) return RM_ALL_INVALID;
    }
  }
  for (int i = 0; i < cnt / 2; i++) {
    SPair t = out[i];
    out[i] = out[cnt - 1 - i];
    out[cnt - 1 - i] = t;
  }
  return RM_OK;
}

/* A comparison of the reshape loop: resolve() (default True) around each, or directly (0.9.1:
 * Node.__le__ / __lt__ / __gt__, != as not ==). */
static bool loop_cmp(TgVersion v, SintCmp op, sint a, sint b) {
  return tg_features(v)->reshape_loop_resolve ? sint_resolve(op, a, b, true) : sint_cmp(op, a, b);
}

/* The strides of the reshape loop: 0.9.1 / 0.10.0 (`strides.append(new_stride)` then scale).
 * Returns false when a merged dimension cannot be produced (Python's `break`). */
static bool reshape_strides_old(TgVersion v, const View *vw, int n, const sint *new_shape, sint *out) {
  MergedDim md[vw->ndim > 0 ? vw->ndim : 1];
  int nm = merge_dims(v, vw->ndim, vw->shape, vw->strides, vw->mask, md);
  int cnt = 0;  /* strides, from the last new dimension */
  RevIter r_new_shape = {n};
  for (int k = nm - 1; k >= 0; k--) {
    sint merged_dim = md[k].size, new_stride = md[k].stride, real_dim = md[k].real, acc = S1;
    while (loop_cmp(v, SINT_LE, acc, merged_dim) && loop_cmp(v, SINT_NE, acc, merged_dim)) {
      if (r_new_shape.pos == 0) break;
      sint new_dim = rev_next(&r_new_shape, new_shape, S0);
      /* `resolve(next(r_new_shape, 0) > 0)`, or 0.9.1's `(new_dim := next(r_new_shape, None))` is truthy */
      if (!(tg_features(v)->reshape_loop_resolve ? loop_cmp(v, SINT_GT, new_dim, S0) : sint_truthy(new_dim))) break;
      out[cnt++] = new_stride;
      if (loop_cmp(v, SINT_NE, new_dim, S1)) {
        acc = sint_mul(acc, new_dim);
        new_stride = sint_mul(new_stride, loop_cmp(v, SINT_LT, acc, real_dim) ? new_dim : S0);
      }
    }
    if (loop_cmp(v, SINT_NE, acc, merged_dim)) return false;
  }
  for (; cnt < n; cnt++) out[cnt] = S0;
  for (int i = 0; i < n / 2; i++) {
    sint t = out[i];
    out[i] = out[n - 1 - i];
    out[n - 1 - i] = t;
  }
  return true;
}

/* The strides of the reshape loop, 0.10.2 (`r_strides.append(new_stride * acc)`). */
static bool reshape_strides_0102(TgVersion v, const View *vw, int n, const sint *new_shape, sint *out) {
  MergedDim md[vw->ndim > 0 ? vw->ndim : 1];
  int nm = merge_dims(v, vw->ndim, vw->shape, vw->strides, vw->mask, md);
  sint r_strides[n > 0 ? n : 1];
  int cnt = 0;
  RevIter r_new_shape = {n};
  for (int k = nm - 1; k >= 0; k--) {
    sint merged_size = md[k].size, new_stride = md[k].stride, real_size = md[k].real, acc = S1;
    /* resolve(acc <= merged_size) and resolve(acc != merged_size) and resolve((new_dim := next(r_new_shape, 0)) > 0) */
    while (sint_resolve(SINT_LE, acc, merged_size, true) && sint_resolve(SINT_NE, acc, merged_size, true)) {
      sint new_dim = rev_next(&r_new_shape, new_shape, S0);
      if (!sint_resolve(SINT_GT, new_dim, S0, true)) break;
      r_strides[cnt++] = sint_mul(new_stride, acc);
      acc = sint_mul(acc, new_dim);
      if (!sint_resolve(SINT_LT, acc, real_size, true)) new_stride = S0;
    }
    if (sint_resolve(SINT_NE, acc, merged_size, true)) return false;
  }
  /* new_strides = (0,) * (len(new_shape) - len(r_strides)) + tuple(r_strides[::-1]) */
  for (int i = 0; i < n - cnt; i++) out[i] = S0;
  for (int i = 0; i < cnt; i++) out[n - 1 - i] = r_strides[i];
  return true;
}

_Noreturn static void reshape_checks_message(Arena *a, const View *vw, int n, const sint *new_shape) {
  error_raise("ValueError", "size mismatched, can't reshape self.shape=%s -> new_shape=%s",
                               py_repr_tuple(a, vw->ndim, vw->shape), py_repr_tuple(a, n, new_shape));
}

/* The masked/strided tail of View.reshape, after the loop found strides (all versions). */
static const View *reshape_finish(Arena *a, TgVersion v, const View *vw, int n, const sint *new_shape, sint *strides) {
  SPair new_mask[n > 0 ? n : 1];
  const SPair *nm = NULL;
  if (vw->mask == NULL) {
    if (tg_features(v)->reshape_mask_none_full) { /* _reshape_mask(None) is ((0, s), ...) */
      for (int i = 0; i < n; i++) new_mask[i] = (SPair){S0, new_shape[i]};
      nm = new_mask;
    }
  } else {
    ReshapeMaskResult r = reshape_mask(v, vw->ndim, vw->mask, vw->shape, n, new_shape, new_mask);
    if (r == RM_NONE) return NULL;
    if (r == RM_ALL_INVALID)
      for (int i = 0; i < n; i++) new_mask[i] = (SPair){S0, S0};
    nm = new_mask;
  }
  if (tg_features(v)->reshape_strides_by_mask) { /* strides canonicalized by the new mask's extents */
    /* (0.9.1 uses new_shape when there is no mask; 0.10.0 always has one here) */
    sint extents[n > 0 ? n : 1];
    for (int i = 0; i < n; i++) extents[i] = nm != NULL ? sint_sub(nm[i].e, nm[i].b) : new_shape[i];
    canonicalize_strides(n, extents, strides, strides);
  }
  /* extra_offset = sum(m[0] * s ...) - sum(m[0] * s ...), each sum from the int 0 */
  sint old_part = S0, new_part = S0;
  if (mask_truthy(vw))
    for (int i = 0; i < vw->ndim; i++) old_part = sint_add(old_part, sint_mul(vw->mask[i].b, vw->strides[i]));
  if (nm != NULL)
    for (int i = 0; i < n; i++) new_part = sint_add(new_part, sint_mul(nm[i].b, strides[i]));
  return view_create(a, v, n, new_shape, strides, sint_add(vw->offset, sint_sub(old_part, new_part)), nm);
}

/* 0.9.1, 0.10.0: "if it's not contiguous and new shape is symbolic, check if it's directly replaceable"
 * (0.10.0 spells var_vals `dict([v.unbind() for v in so.vars()])`: the same) */
static const View *reshape_symbolic_091(Arena *a, const View *vw, int n, const sint *new_shape) {
  const char *msg = NULL;
  if (vw->ndim != n) msg = "cannot symbolic reshape non-contiguous %s -> %s";
  for (int i = 0; i < n && msg == NULL; i++) {
    if (sint_is_int(new_shape[i])) {
      if (sint_ne(vw->shape[i], new_shape[i])) msg = "cannot symbolic reshape non-contiguous %s -> %s";
    } else {
      /* var_vals = {v: v.unbind()[1] for v in so.vars()}: every Variable must be bound */
      int64_t val = sint_infer_bound(new_shape[i]);
      if (sint_ne(vw->shape[i], sint_int(val))) msg = "cannot symbolic reshape non-contiguous %s -> %s";
    }
  }
  if (msg != NULL) error_raise("ValueError", "%s", arena_printf(a, msg, py_repr_view(a, vw), py_repr_tuple(a, n, new_shape)));
  /* all dimensions matched, return the new view directly */
  return view_new(a, n, new_shape, vw->strides, vw->offset, vw->mask, vw->contiguous);
}

/* 0.9.1 size check: new_shape of ints and Variables, a Variable counted by its bound value */
static void reshape_size_check_091(Arena *a, const View *vw, int n, const sint *new_shape) {
  int64_t want = 1, have = 1;
  for (int i = 0; i < n; i++) {
    const SymNode *x = new_shape[i].sym;
    if (x != NULL && x->kind != SN_VAR)
      error_raise("AssertionError", "self.shape=%s -> new_shape=%s contains non (int, Variable) dim",
                                   py_repr_tuple(a, vw->ndim, vw->shape), py_repr_tuple(a, n, new_shape));
  }
  for (int i = 0; i < n; i++) {
    const SymNode *x = new_shape[i].sym;
    if (x != NULL && !x->bound)
      error_raise("AssertionError", "Variable isn't bound, can't access val of %s", sint_str(a, new_shape[i]));
    want *= x != NULL ? x->val : new_shape[i].i;
  }
  for (int i = 0; i < vw->ndim; i++) have *= vw->shape[i].i;
  if (have != want) reshape_checks_message(a, vw, n, new_shape);
}

/* View.reshape (shape/view.py) */
const View *view_reshape(Arena *a, TgVersion v, const View *vw, int n, const sint *new_shape) {
  if (n == vw->ndim && sints_equal(n, vw->shape, new_shape)) return vw;
  for (int i = 0; i < n; i++) /* `all(resolve(x >= 0) ...)` or `all(x >= 0 ...)` */
    if (tg_features(v)->view_checks_resolve ? !sint_resolve(SINT_GE, new_shape[i], S0, true) : !sint_ge(new_shape[i], S0)) {
      const char *msg = arena_printf(a, "shape can't contain negative numbers %s", py_repr_tuple(a, n, new_shape));
      error_raise(tg_features(v)->reshape_negative_value_error ? "ValueError" : "AssertionError", "%s", msg);
    }
  bool self_all_int = sint_all_int(vw->ndim, vw->shape);
  if (tg_features(v)->reshape_size_check_first) { /* `if self_all_int`: resolve(prod != prod, False), then 0 in shape */
    bool mismatch = self_all_int && sint_resolve(SINT_NE, sint_prod(vw->ndim, vw->shape), sint_prod(n, new_shape), false);
    if (mismatch) reshape_checks_message(a, vw, n, new_shape);
    if (contains_zero(vw->ndim, vw->shape)) return view_create(a, v, n, new_shape, NULL, S0, NULL);
  } else {
    if (contains_zero(vw->ndim, vw->shape)) {
      if (!contains_zero(n, new_shape))
        error_raise("AssertionError", "cannot reshape 0 size to %s", py_repr_tuple(a, n, new_shape));
      return view_create(a, v, n, new_shape, NULL, S0, NULL);
    }
    if (tg_features(v)->reshape_size_of_bound_vals && self_all_int) { /* only an all-int shape, against bound values */
      reshape_size_check_091(a, vw, n, new_shape);
    } else if (self_all_int) { /* `if (self_all_int := all_int(self.shape))`, resolve(prod != prod, False) */
      bool mismatch = sint_resolve(SINT_NE, sint_prod(vw->ndim, vw->shape), sint_prod(n, new_shape), false);
      if (mismatch) reshape_checks_message(a, vw, n, new_shape);
    }
  }
  if (n == 0 && mask_truthy(vw))
    for (int i = 0; i < vw->ndim; i++)
      if (sint_eq(vw->mask[i].b, vw->mask[i].e)) return NULL;
  /* after the asserts, it's okay to check contiguous */
  if (vw->contiguous) return view_create(a, v, n, new_shape, NULL, S0, NULL);
  if (self_all_int && !sint_all_int(n, new_shape)) return reshape_symbolic_091(a, vw, n, new_shape);
  sint strides[n > 0 ? n : 1];
  bool ok = tg_features(v)->reshape_loop_rewritten ? reshape_strides_0102(v, vw, n, new_shape, strides)
                                                   : reshape_strides_old(v, vw, n, new_shape, strides);
  if (!ok) return NULL;
  return reshape_finish(a, v, vw, n, new_shape, strides);
}

/* ------------------------------------------------------------------ other movement ops */

/* smax(a, b) / smin(a, b) (0.10.0) */
static sint smax2(sint a, sint b) {
  if (a.sym == NULL && b.sym == NULL) return a.i >= b.i ? a : b;
  sint xs[2] = {a, b};
  return sint_smax(2, xs);
}
static sint smin2(sint a, sint b) {
  if (a.sym == NULL && b.sym == NULL) return a.i <= b.i ? a : b;
  sint xs[2] = {a, b};
  return sint_smin(2, xs);
}

/* View.__unsafe_resize (shape/view.py): shrink by arg, intersect the old mask with `mask` */
static const View *unsafe_resize(Arena *a, TgVersion v, const View *vw, const SPair *arg, const SPair *mask_in) {
  int n = vw->ndim;
  sint offset = S0, shape[n > 0 ? n : 1];
  for (int i = 0; i < n; i++) offset = sint_add(offset, sint_mul(vw->strides[i], arg[i].b));
  SPair mask[n > 0 ? n : 1];
  const SPair *m = mask_in;
  if (mask_truthy(vw)) {
    for (int i = 0; i < n; i++) { /* move the old mask: (max(0, min(mx-ax,ay-ax)), max(0, min(my-ax,ay-ax))) */
      sint ax = arg[i].b, ay = arg[i].e, mx = vw->mask[i].b, my = vw->mask[i].e;
      if (tg_features(v)->resize_smax_smin) { /* smax/smin, which keep UOps symbolic */
        mask[i] = (SPair){smax2(S0, smin2(sint_sub(mx, ax), sint_sub(ay, ax))), smax2(S0, smin2(sint_sub(my, ax), sint_sub(ay, ax)))};
        continue;
      }
      sint span = sint_sub(ay, ax);
      mask[i] = (SPair){sint_max(S0, sint_min(sint_sub(mx, ax), span)), sint_max(S0, sint_min(sint_sub(my, ax), span))};
    }
    if (mask_in != NULL) /* merge the masks if we have two */
      for (int i = 0; i < n; i++)
        mask[i] = tg_features(v)->resize_smax_smin ? (SPair){smax2(mask[i].b, mask_in[i].b), smin2(mask[i].e, mask_in[i].e)}
                                 : (SPair){sint_max(mask[i].b, mask_in[i].b), sint_min(mask[i].e, mask_in[i].e)};
    m = mask;
  }
  for (int i = 0; i < n; i++) shape[i] = sint_sub(arg[i].e, arg[i].b);
  if (tg_features(v)->resize_drops_full_mask) { /* a mask equal to (0, y-x) everywhere is dropped, the shape ssimplify()'d */
    bool full = m != NULL;
    for (int i = 0; i < n && full; i++) full = pair_is(m[i], S0, shape[i]);
    if (full) m = NULL;
    for (int i = 0; i < n; i++) shape[i] = sint_ssimplify(shape[i]);
  }
  if (tg_features(v)->resize_numnode_to_int) { /* `s.b if isinstance(s, NumNode) else s` */
    for (int i = 0; i < n; i++)
      if (shape[i].sym != NULL && ((const SymNode *)shape[i].sym)->kind == SN_NUM) shape[i] = sint_int(((const SymNode *)shape[i].sym)->b);
  }
  /* a full mask dropped here or left to View.create: the same result */
  return view_create(a, v, n, shape, vw->strides, sint_add(vw->offset, offset), m);
}

/* View.pad (shape/view.py) */
const View *view_pad(Arena *a, TgVersion v, const View *vw, int n, const SPair *arg) {
  bool bad = n != vw->ndim;
  for (int i = 0; i < n && !bad; i++) /* `not all_int([b,e]) or b>=0 and e>=0`, or Node comparisons */
    bad = tg_features(v)->view_compares_resolve ? all_int2(arg[i].b, arg[i].e) && !(arg[i].b.i >= 0 && arg[i].e.i >= 0)
                         : !(sint_ge(arg[i].b, S0) && sint_ge(arg[i].e, S0));
  if (bad) {
    if (tg_features(v)->pad_message_shape_arg)
      error_raise("AssertionError", "self.shape=%s, arg=%s", py_repr_tuple(a, vw->ndim, vw->shape),
                                                          py_repr_pairs(a, n, arg));
    error_raise("AssertionError", "invalid pad %s for %s", py_repr_pairs(a, n, arg), py_repr_tuple(a, vw->ndim, vw->shape));
  }
  bool any = false;
  for (int i = 0; i < n && !any; i++) /* `any(resolve(b!=0) or resolve(e!=0) ...)`, or Node truthiness */
    any = tg_features(v)->view_compares_resolve ? sint_resolve(SINT_NE, arg[i].b, S0, true) || sint_resolve(SINT_NE, arg[i].e, S0, true)
                         : sint_truthy(arg[i].b) || sint_truthy(arg[i].e);
  if (!any) return vw;
  SPair zvarg[n > 0 ? n : 1], mask[n > 0 ? n : 1];
  for (int i = 0; i < n; i++) {
    zvarg[i] = (SPair){sint_neg(arg[i].b), sint_add(vw->shape[i], arg[i].e)};
    mask[i] = (SPair){arg[i].b, sint_add(vw->shape[i], arg[i].b)};
  }
  return unsafe_resize(a, v, vw, zvarg, mask);
}

/* View.shrink (shape/view.py) */
const View *view_shrink(Arena *a, TgVersion v, const View *vw, int n, const SPair *arg) {
  bool bad = n != vw->ndim;
  /* 0 <= b <= e <= s, a chained comparison */
  for (int i = 0; i < n && i < vw->ndim && !bad; i++) {
    sint b = arg[i].b, e = arg[i].e, sh = vw->shape[i];
    if (tg_features(v)->view_compares_resolve && !(all_int2(b, e) && sint_is_int(sh))) continue; /* `not all_int([s,b,e]) or ...` */
    bad = !(sint_le(S0, b) && sint_le(b, e) && sint_le(e, sh));
  }
  if (bad)
    error_raise("AssertionError", "invalid shrink %s for %s", py_repr_pairs(a, n, arg), py_repr_tuple(a, vw->ndim, vw->shape));
  return unsafe_resize(a, v, vw, arg, NULL);
}

/* AssertionError("can't expand {self.shape} into {new_shape}"), formatted only when raised */
_Noreturn static void cant_expand(Arena *a, const View *vw, int n, const sint *new_shape) {
  error_raise("AssertionError", "can't expand %s into %s", py_repr_tuple(a, n, vw->shape), py_repr_tuple(a, n, new_shape));
}

/* View.expand (shape/view.py) */
const View *view_expand(Arena *a, TgVersion v, const View *vw, int n, const sint *new_shape) {
  if (n != vw->ndim)
    error_raise("ValueError", "expand arg new_shape=%s must have same number of dimensions as shape self.shape=%s",
                                 py_repr_tuple(a, n, new_shape), py_repr_tuple(a, vw->ndim, vw->shape));
  bool ok = true;
  if (tg_features(v)->expand_check_first) { /* one check, before the 0-size case */
    for (int i = 0; i < n && ok; i++) ok = sint_eq(vw->shape[i], new_shape[i]) || sint_eq(vw->shape[i], S1);
    if (!ok) cant_expand(a, vw, n, new_shape);
    if (contains_zero(n, vw->shape)) return view_create(a, v, n, new_shape, NULL, S0, NULL);
  } else {
    if (contains_zero(n, vw->shape)) {
      for (int i = 0; i < n && ok; i++) {
        sint s = vw->shape[i], x = new_shape[i];
        ok = (sint_eq(s, x) && sint_eq(x, S0)) || (sint_gt(s, S0) && sint_eq(sint_mod(x, s), S0));
      }
      if (!ok) cant_expand(a, vw, n, new_shape);
      return view_create(a, v, n, new_shape, NULL, S0, NULL);
    }
    for (int i = 0; i < n && ok; i++) {
      sint s = vw->shape[i], x = new_shape[i];
      if (tg_features(v)->expand_needs_stride0) ok = sint_eq(s, x) || (sint_eq(s, S1) && sint_eq(vw->strides[i], S0));
      else ok = !sint_resolve(SINT_NE, s, x, false) || sint_eq(s, S1); /* 0.10.0: not resolve(s != x, False) or s == 1 */
    }
    if (!ok) cant_expand(a, vw, n, new_shape);
  }
  SPair mask[n > 0 ? n : 1];
  const SPair *m = NULL;
  if (mask_truthy(vw)) {
    for (int i = 0; i < n; i++) {
      SPair old = vw->mask[i];
      /* 0.10.x: resolve(s != ns, False) */
      bool differs = tg_features(v)->view_compares_resolve ? sint_resolve(SINT_NE, vw->shape[i], new_shape[i], false) : sint_ne(vw->shape[i], new_shape[i]);
      mask[i] = differs ? (!pair_is(old, S0, S1) ? (SPair){S0, S0} : (SPair){S0, new_shape[i]}) : old;
    }
    m = mask;
  }
  return view_create(a, v, n, new_shape, vw->strides, vw->offset, m);
}

/* View.permute (shape/view.py, all versions) */
const View *view_permute(Arena *a, TgVersion v, const View *vw, int n, const int64_t *axis) {
  bool ok = n == vw->ndim;
  bool seen[vw->ndim > 0 ? vw->ndim : 1];
  memset(seen, 0, sizeof seen);
  for (int i = 0; ok && i < n; i++) {
    ok = axis[i] >= 0 && axis[i] < vw->ndim && !seen[axis[i]];
    if (ok) seen[axis[i]] = true;
  }
  if (!ok)
    error_raise("AssertionError", "invalid permutation %s of len %d", py_repr_ints(a, n, axis), vw->ndim);
  sint shape[n > 0 ? n : 1], strides[n > 0 ? n : 1];
  SPair mask[n > 0 ? n : 1];
  for (int i = 0; i < n; i++) {
    shape[i] = vw->shape[axis[i]];
    strides[i] = vw->strides[axis[i]];
    if (vw->mask != NULL) mask[i] = vw->mask[axis[i]];
  }
  return view_create(a, v, n, shape, strides, vw->offset, vw->mask != NULL ? mask : NULL);
}

/* (num + (amt-1)) // amt (0.9.1, 0.10.0), or helpers.ceildiv(num, amt) = -(num // -amt) (0.10.0+2ca41d6) */
static sint stride_ceildiv(TgVersion v, sint num, int64_t amt) {
  if (tg_features(v)->stride_by_ceildiv) return sint_neg(sint_floordiv(num, sint_int(-amt)));
  return sint_floordiv(sint_add(num, sint_int(amt - 1)), sint_int(amt));
}

/* View.stride (shape/view.py, 0.9.1 and 0.10.0) */
const View *view_stride(Arena *a, TgVersion v, const View *vw, int n, const int64_t *mul) {
  if (!tg_features(v)->view_has_stride) error_unsupported("View.stride does not exist in tinygrad %s", tg_version_name(v));
  bool ok = true;
  for (int i = 0; i < n; i++) ok = ok && mul[i] != 0;
  if (!ok)
    error_raise("AssertionError", "invalid stride %s for %s", py_repr_ints(a, n, mul),
                                                        py_repr_tuple(a, vw->ndim, vw->shape));
  if (n > vw->ndim) n = vw->ndim; /* zip() stops at the shorter: a short `mul` drops dimensions */
  sint strides[n > 0 ? n : 1], shape[n > 0 ? n : 1], offset = S0;
  SPair mask[n > 0 ? n : 1];
  for (int i = 0; i < n; i++) {
    sint s = vw->shape[i], m = sint_int(mul[i]);
    int64_t am = mul[i] < 0 ? -mul[i] : mul[i];
    strides[i] = sint_mul(vw->strides[i], m);
    shape[i] = stride_ceildiv(v, s, am);
    if (mul[i] < 0) offset = sint_add(offset, sint_mul(sint_sub(s, S1), vw->strides[i]));
    if (vw->mask != NULL) {
      sint mx = vw->mask[i].b, my = vw->mask[i].e;
      mask[i] = (SPair){stride_ceildiv(v, mul[i] > 0 ? mx : sint_sub(s, my), am),
                        stride_ceildiv(v, mul[i] > 0 ? my : sint_sub(s, mx), am)};
    }
  }
  return view_create(a, v, n, shape, strides, sint_add(vw->offset, offset), vw->mask != NULL ? mask : NULL);
}

/* View.flip (shape/view.py, 0.10.2) */
const View *view_flip(Arena *a, TgVersion v, const View *vw, int n, const bool *flip) {
  if (!tg_features(v)->view_has_flip) error_unsupported("View.flip does not exist in tinygrad %s", tg_version_name(v));
  /* zip() stops at the shorter: extra flags are ignored; a short `arg` would make strides shorter than the shape */
  if (n < vw->ndim) error_unsupported("View.flip with fewer flags than dimensions");
  n = vw->ndim;
  sint strides[n > 0 ? n : 1], offset = S0;
  SPair mask[n > 0 ? n : 1];
  for (int i = 0; i < n; i++) {
    sint s = vw->shape[i];
    if (flip[i]) offset = sint_add(offset, sint_mul(sint_sub(s, S1), vw->strides[i]));
    strides[i] = flip[i] ? sint_neg(vw->strides[i]) : vw->strides[i];
    if (vw->mask != NULL) mask[i] = flip[i] ? (SPair){sint_sub(s, vw->mask[i].e), sint_sub(s, vw->mask[i].b)} : vw->mask[i];
  }
  return view_create(a, v, n, vw->shape, strides, sint_add(vw->offset, offset), vw->mask != NULL ? mask : NULL);
}

/* helpers.argsort: sorted(range(len(x)), key=x.__getitem__). CPython's list.sort on fewer than 64
 * items (Objects/listobject.c: count_run, reverse a descending run, binarysort), so that the
 * order is Python's even when `<` is not a total order (0.9.1 Node comparisons: bool(a < b) and
 * bool(b < a) can both hold). On more items a stable insertion sort (the same order for ints). */
static void argsort(int n, const sint *key, int64_t *out) {
  for (int i = 0; i < n; i++) out[i] = i;
  if (n < 2) return;
  int run = 2; /* count_run: IFLT(*lo, *(lo-1)) starts a descending run */
  if (sint_lt(key[1], key[0])) {
    while (run < n && sint_lt(key[out[run]], key[out[run - 1]])) run++;
    for (int i = 0, j = run - 1; i < j; i++, j--) { /* reverse_sortslice */
      int64_t t = out[i];
      out[i] = out[j];
      out[j] = t;
    }
  } else {
    while (run < n && !sint_lt(key[out[run]], key[out[run - 1]])) run++;
  }
  if (n >= 64) run = 1; /* minrun < n: not modelled, fall back to insertion */
  for (int start = run; start < n; start++) { /* binarysort(lo, lo + n, lo + run) */
    int64_t pivot = out[start];
    int l = 0, r = start;
    while (l < r) {
      int p = l + ((r - l) >> 1);
      if (sint_lt(key[pivot], key[out[p]])) r = p;
      else l = p + 1;
    }
    for (int p = start; p > l; p--) out[p] = out[p - 1];
    out[l] = pivot;
  }
}

/* View.invert (shape/view.py) */
const View *view_invert(Arena *a, TgVersion v, const View *vw, int n_out, const sint *out_shape) {
  int n = vw->ndim;
  const View *ret = view_create(a, v, n, vw->shape, NULL, S0, NULL);
  if (mask_truthy(vw)) ret = view_shrink(a, v, ret, n, vw->mask);
  if (tg_features(v)->view_has_flip) { /* flip where the stride is negative */
    bool flip[n > 0 ? n : 1];
    for (int i = 0; i < n; i++) flip[i] = sint_lt(vw->strides[i], S0);
    ret = view_flip(a, v, ret, n, flip);
  } else { /* stride by -1 where the stride is negative */
    int64_t mul[n > 0 ? n : 1];
    for (int i = 0; i < n; i++) mul[i] = sint_lt(vw->strides[i], S0) ? -1 : 1;
    ret = view_stride(a, v, ret, n, mul);
  }
  sint key[n > 0 ? n : 1];
  int64_t order[n > 0 ? n : 1];
  for (int i = 0; i < n; i++) key[i] = sint_gt(vw->strides[i], S0) ? sint_neg(vw->strides[i]) : vw->strides[i];
  argsort(n, key, order);
  ret = view_permute(a, v, ret, n, order);
  /* don't support shrink, expand, or stride != (-1, 1) */
  bool same = sint_eq(sint_prod(ret->ndim, ret->shape), sint_prod(n_out, out_shape));
  return same ? ret : NULL;
}

/* View.minify (shape/view.py) */
const View *view_minify(Arena *a, TgVersion v, const View *vw) {
  MergedDim md[vw->ndim > 0 ? vw->ndim : 1];
  int nm = merge_dims(v, vw->ndim, vw->shape, vw->strides, vw->mask, md);
  sint min_shape[nm > 0 ? nm : 1];
  for (int i = 0; i < nm; i++) min_shape[i] = md[i].size;
  const View *nv = view_reshape(a, v, vw, nm, min_shape);
  return nv != NULL ? nv : vw;
}

/* ------------------------------------------------------------------ View.__add__ */

static const View *view_add_rec(Arena *a, TgVersion v, const View *vm2, const View *vm1, int depth);

/* (b, s - e) padding that undoes vm1.shrink(vm1.mask) */
static const View *pad_back(Arena *a, TgVersion v, const View *merged, const View *vm1) {
  int n = vm1->ndim;
  SPair arg[n > 0 ? n : 1];
  for (int i = 0; i < n; i++) arg[i] = (SPair){vm1->mask[i].b, sint_sub(vm1->shape[i], vm1->mask[i].e)};
  return view_pad(a, v, merged, n, arg);
}

/* Projection of vm1's offset and strides onto vm2 (the shared first half of View.__add__). */
typedef struct AddTerms {
  int n1, n2;
  sint *origin;       /* n2 */
  int *nterms;        /* n2: len(terms[d2]) */
  int *term_d1;       /* n2 x n1: terms[d2][k] = (d1, s1) */
  sint *term_s1;
  sint *strides;      /* n1 */
} AddTerms;

/* un1d (0.9.1, 0.10.0) / unravel (0.10.2) of vm2.shape at offs */
static void unravel_offset(TgVersion v, const View *vm2, sint offs, sint *out) {
  if (tg_features(v)->add_unravel) unravel(vm2->ndim, vm2->shape, offs, out);
  else un1d(v, vm2->ndim, vm2->shape, offs, out);
}

static void add_terms(Arena *a, TgVersion v, const View *vm2, const View *vm1, AddTerms *t) {
  int n1 = vm1->ndim, n2 = vm2->ndim;
  t->n1 = n1;
  t->n2 = n2;
  t->origin = sint_array(a, n2);
  t->nterms = arena_array(a, (size_t)(n2 > 0 ? n2 : 1), sizeof(int));
  t->term_d1 = arena_array(a, (size_t)((n2 > 0 ? n2 : 1) * (n1 > 0 ? n1 : 1)), sizeof(int));
  t->term_s1 = sint_array(a, (n2 > 0 ? n2 : 1) * (n1 > 0 ? n1 : 1));
  t->strides = sint_array(a, n1);
  for (int d1 = 0; d1 < n1; d1++) t->strides[d1] = S0;
  sint here[n2 > 0 ? n2 : 1];
  unravel_offset(v, vm2, vm1->offset, t->origin);
  for (int d1 = 0; d1 < n1; d1++) {
    sint st = vm1->strides[d1];
    if (sint_eq(st, S0)) continue;
    unravel_offset(v, vm2, sint_add(vm1->offset, st), here);
    for (int d2 = 0; d2 < n2; d2++) {
      sint s1 = sint_sub(here[d2], t->origin[d2]);
      if (sint_eq(s1, S0)) continue;
      int k = t->nterms[d2]++;
      t->term_d1[d2 * n1 + k] = d1;
      t->term_s1[d2 * n1 + k] = s1;
      t->strides[d1] = sint_add(t->strides[d1], sint_mul(s1, vm2->strides[d2]));
    }
  }
}

/* The name "idx<i>" of the i-th index Variable of View.__add__, without a printf per merge. */
static const char *idx_name(Arena *a, int i) {
  static const char *const names[] = {"idx0",  "idx1",  "idx2",  "idx3",  "idx4",  "idx5",  "idx6",  "idx7",
                                      "idx8",  "idx9",  "idx10", "idx11", "idx12", "idx13", "idx14", "idx15"};
  if (i < (int)(sizeof names / sizeof names[0])) return names[i];
  return arena_printf(a, "idx%d", i);
}

/* One extent of the merge loop: merged_size and the bounds of merged_term (0.9.1: ints or Nodes). */
typedef struct Extent { sint size, tmin, tmax; } Extent;

static sint node_sint(const SymNode *x) { sint r = {0, x}; return r; }

/* The "merge dimensions in vm2" loop of 0.9.1, on the Node algebra, with Python's int|Node
 * operators (shapes, origins and merged sizes may be Nodes; then an idx Variable's max is one).
 * Returns the number of extents, or -1 when merged_term stays non-zero (Python returns None). */
static int merge_extents_091(Arena *a, const View *vm2, const View *vm1, const AddTerms *t, Extent *ext) {
  SymNodeCtx c;
  snode_ctx_init(&c, a);
  int n1 = t->n1, n2 = t->n2, cnt = 0;
  const SymNode *idxs[n1 > 0 ? n1 : 1];
  for (int i = 0; i < n1; i++) idxs[i] = snode_var_sint(&c, idx_name(a, i), 0, snv_sub(&c, vm1->shape[i], S1));
  sint merged_size = S1;
  sint merged_term = node_sint(snode_num(&c, 0));
  for (int d2 = n2 - 1; d2 >= 0; d2--) {
    /* merged_term += Variable.sum([idxs[d1] * (s1 * merged_size) for d1, s1 in term]) + o * merged_size */
    int nt = t->nterms[d2];
    const SymNode *parts[nt > 0 ? nt : 1];
    for (int k = 0; k < nt; k++) {
      sint coef = snv_mul(&c, t->term_s1[d2 * n1 + k], merged_size);
      parts[k] = snv_mul(&c, node_sint(idxs[t->term_d1[d2 * n1 + k]]), coef).sym;
    }
    sint sum = snv_add(&c, node_sint(snode_sum(&c, nt, parts)), snv_mul(&c, t->origin[d2], merged_size));
    merged_term = snv_add(&c, merged_term, sum);
    merged_size = snv_mul(&c, merged_size, vm2->shape[d2]);
    if (!snv_ge(&c, merged_term, merged_size) && !snv_lt(&c, merged_term, S0)) {
      const SymNode *term = merged_term.sym;
      ext[cnt++] = (Extent){merged_size, snode_min(term), snode_max(term)};
      merged_size = S1;
      merged_term = node_sint(snode_num(&c, 0));
    }
  }
  return snv_truthy(&c, merged_term) ? -1 : cnt;
}

/* The same loop for 0.10.0 / 0.10.2, on UOps with resolve(). */
static int merge_extents_010(Arena *a, TgVersion v, const View *vm2, const View *vm1, const AddTerms *t, Extent *ext) {
  SymCtx *c = symctx_new(a, v);
  int n1 = t->n1, n2 = t->n2, cnt = 0;
  const SymUOp *idxs[n1 > 0 ? n1 : 1];
  for (int i = 0; i < n1; i++) idxs[i] = suop_variable(c, idx_name(a, i), 0, sint_sub(vm1->shape[i], S1).i);
  int64_t merged_size = 1;
  const SymUOp *merged_term = suop_const(c, SDT_INT, 0);
  for (int d2 = n2 - 1; d2 >= 0; d2--) {
    int nt = t->nterms[d2];
    /* (sum([idxs[d1] * s1 for d1, s1 in term]) + o) * merged_size; sum() starts from the int 0 */
    const SymUOp *sum = NULL;
    for (int k = 0; k < nt; k++) {
      const SymUOp *p = suop_mul_int(c, idxs[t->term_d1[d2 * n1 + k]], t->term_s1[d2 * n1 + k].i);
      sum = sum == NULL ? suop_radd_int(c, 0, p) : suop_add(c, sum, p);
    }
    if (sum == NULL) { /* all ints: merged_term += (o * merged_size) */
      merged_term = suop_add_int(c, merged_term, sint_mul(t->origin[d2], sint_int(merged_size)).i);
    } else {
      merged_term = suop_add(c, merged_term, suop_mul_int(c, suop_add_int(c, sum, t->origin[d2].i), merged_size));
    }
    merged_size = sint_mul(sint_int(merged_size), vm2->shape[d2]).i;
    /* resolve(merged_term < merged_size, False) and resolve(0 <= merged_term, False) */
    if (suop_resolve(c, suop_lt_int(c, merged_term, merged_size), false) &&
        suop_resolve(c, suop_ge_int(c, merged_term, 0), false)) {
      ext[cnt++] = (Extent){sint_int(merged_size), sint_int(suop_vmin(merged_term)), sint_int(suop_vmax(merged_term))};
      merged_size = 1;
      merged_term = suop_const(c, SDT_INT, 0);
    }
  }
  return suop_resolve(c, suop_ne_int(c, merged_term, 0), true) ? -1 : cnt;
}

static sint uop_sint(const SymUOp *x) { sint r = {0, x}; return r; }

/* The same loop for 0.10.0 on sints in the capture's symbolic context: vm2's shape, the origin and the
 * terms may be UOps (vm1's shape is all ints by now), merged_size then is one too. */
static int merge_extents_0100(Arena *a, const View *vm2, const View *vm1, const AddTerms *t, Extent *ext) {
  SymCtx *c = sym_uop_ctx();
  int n1 = t->n1, n2 = t->n2, cnt = 0;
  sint idxs[n1 > 0 ? n1 : 1];
  for (int i = 0; i < n1; i++) idxs[i] = uop_sint(suop_variable(c, idx_name(a, i), 0, sint_sub(vm1->shape[i], S1).i));
  sint merged_size = S1, zero = uop_sint(suop_const(c, SDT_INT, 0)), merged_term = zero;
  for (int d2 = n2 - 1; d2 >= 0; d2--) {
    /* merged_term += (sum([idxs[d1] * s1 for d1, s1 in term]) + o) * merged_size; sum() starts from the int 0 */
    sint sum = S0;
    for (int k = 0; k < t->nterms[d2]; k++) sum = sint_add(sum, sint_mul(idxs[t->term_d1[d2 * n1 + k]], t->term_s1[d2 * n1 + k]));
    merged_term = sint_add(merged_term, sint_mul(sint_add(sum, t->origin[d2]), merged_size));
    merged_size = sint_mul(merged_size, vm2->shape[d2]);
    if (sint_resolve(SINT_LT, merged_term, merged_size, false) && sint_resolve(SINT_LE, S0, merged_term, false)) {
      const SymUOp *term = merged_term.sym;
      ext[cnt++] = (Extent){merged_size, sint_int(suop_vmin(term)), sint_int(suop_vmax(term))};
      merged_size = S1;
      merged_term = zero;
    }
  }
  return sint_resolve(SINT_NE, merged_term, S0, true) ? -1 : cnt;
}

/* View.create(vm1.shape, tuple(strides), sum(o * s for o, s in zip(origin, vm2.strides)) + vm2.offset) */
static const View *add_create(Arena *a, TgVersion v, const View *vm2, const View *vm1, const AddTerms *t) {
  sint offset = S0;
  for (int d2 = 0; d2 < t->n2; d2++) offset = sint_add(offset, sint_mul(t->origin[d2], vm2->strides[d2]));
  return view_create(a, v, t->n1, vm1->shape, t->strides, sint_add(offset, vm2->offset), NULL);
}

/* 0.10.2: newb[d1] = max(newb[d1], ceildiv(b - o if s1 > 0 else e - o - 1, s1))
 *         newe[d1] = min(newe[d1], (b - o if s1 < 0 else e - o - 1) // s1 + 1)
 * with helpers.ceildiv = -(num // -amt) */
static void add_project_bounds(sint b, sint e, sint o, sint s1, sint *newb, sint *newe) {
  sint lo_num = sint_gt(s1, S0) ? sint_sub(b, o) : sint_sub(sint_sub(e, o), S1);
  *newb = sint_max(*newb, sint_neg(sint_floordiv(lo_num, sint_neg(s1))));
  sint hi_num = sint_lt(s1, S0) ? sint_sub(b, o) : sint_sub(sint_sub(e, o), S1);
  *newe = sint_min(*newe, sint_add(sint_floordiv(hi_num, s1), S1));
}

/* Project vm2's mask onto vm1 (second half of View.__add__). Returns the merged view, a
 * recursive retry with vm1 masked, or NULL (None / error). 0.9.1 may meet symbolic values here
 * (its isinstance checks); 0.10.x views are all-int by now. */
static const View *add_project_mask(Arena *a, TgVersion v, const View *vm2, const View *vm1, const AddTerms *t,
                                    const Extent *ext, int depth) {
  int n1 = t->n1, n2 = t->n2;
  sint newb[n1 > 0 ? n1 : 1], newe[n1 > 0 ? n1 : 1];
  bool bad = false;
  for (int i = 0; i < n1; i++) {
    newb[i] = S0;
    newe[i] = vm1->shape[i];
  }
  for (int d2 = 0; d2 < n2; d2++) {
    sint b = vm2->mask[d2].b, e = vm2->mask[d2].e, o = t->origin[d2];
    if (tg_features(v)->view_compares_resolve) { /* resolve(b <= t.vmin and t.vmax < e, False): `and` takes bool() of a UOp b <= t.vmin */
      if (sint_le(b, ext[d2].tmin) && sint_resolve(SINT_LT, ext[d2].tmax, e, false)) continue;
    } else if (!(sint_lt(ext[d2].tmin, b) || sint_ge(ext[d2].tmax, e))) {
      continue;
    }
    if (tg_features(v)->add_mask_ints_only && !(sint_is_int(o) && sint_is_int(b) && sint_is_int(e))) { /* all_int([o, b, e]) */
      bad = true;
      continue;
    }
    int nt = t->nterms[d2];
    if (nt != 1) {
      if (nt == 0 && n1 > 0) newe[0] = S0; /* `if not term and newe` */
      else bad = true;
      continue;
    }
    int d1 = t->term_d1[d2 * n1];
    sint s1 = t->term_s1[d2 * n1];
    if (tg_features(v)->add_mask_ints_only && !(sint_is_int(s1) && sint_is_int(newe[d1]))) { /* isinstance(s1, newe[d1], int) */
      bad = true;
      continue;
    }
    /* 0.10.2: o, b, e and s1 may be UOps; 0.9.1, 0.10.0: ints here (math.ceil(num / amt) is the same ceildiv) */
    add_project_bounds(b, e, o, s1, &newb[d1], &newe[d1]);
  }
  /* If any of vm1 was masked off, try again with that mask in place. */
  for (int i = 0; i < n1; i++) {
    if (sint_ne(newb[i], S0) || sint_ne(newe[i], vm1->shape[i])) {
      SPair mask[n1];
      for (int k = 0; k < n1; k++) mask[k] = (SPair){newb[k], newe[k]};
      const View *masked = view_create(a, v, n1, vm1->shape, vm1->strides, vm1->offset, mask);
      return view_add_rec(a, v, vm2, masked, depth + 1);
    }
  }
  /* Otherwise if vm2's mask was violated, then cannot merge. */
  if (bad) return NULL;
  return add_create(a, v, vm2, vm1, t);
}

/* View.__add__ (shape/view.py): vm2 + vm1 */
static const View *view_add_rec(Arena *a, TgVersion v, const View *vm2, const View *vm1, int depth) {
  if (depth > VIEW_ADD_MAX_DEPTH) error_raise("RecursionError", "maximum recursion depth exceeded");
  if (vm2->contiguous) return vm1;
  bool same_shape = vm1->ndim == vm2->ndim && sints_equal(vm1->ndim, vm1->shape, vm2->shape);
  if (vm1->contiguous && same_shape) return vm2;
  if (vm1->contiguous && view_size(vm1) == view_size(vm2)) {
    const View *ret = view_reshape(a, v, vm2, vm1->ndim, vm1->shape);
    if (ret != NULL) return ret;
  }
  if (mask_truthy(vm1)) {
    if (tg_features(v)->add_empty_mask_invalid) { /* an empty mask gives an all-invalid view (resolve(b >= e, False)) */
      for (int i = 0; i < vm1->ndim; i++)
        if (tg_features(v)->view_checks_resolve ? sint_resolve(SINT_GE, vm1->mask[i].b, vm1->mask[i].e, false) : !sint_lt(vm1->mask[i].b, vm1->mask[i].e)) {
          int n = vm1->ndim;
          sint zeros[n];
          SPair zmask[n];
          for (int k = 0; k < n; k++) {
            zeros[k] = S0;
            zmask[k] = (SPair){S0, S0};
          }
          return view_create(a, v, n, vm1->shape, zeros, S0, zmask);
        }
    }
    const View *new_vm1 = view_shrink(a, v, vm1, vm1->ndim, vm1->mask);
    if (tg_features(v)->add_shrink_unchanged_none && view_equal(new_vm1, vm1)) return NULL; /* shrinking changed nothing */
    const View *merged = view_add_rec(a, v, vm2, new_vm1, depth + 1);
    if (merged == NULL) return NULL;
    return pad_back(a, v, merged, vm1);
  }
  if (tg_features(v)->add_vm1_symbolic_none_first && !sint_all_int(vm1->ndim, vm1->shape)) return NULL; /* not all_int(vm1.shape) */
  AddTerms t;
  add_terms(a, v, vm2, vm1, &t);
  if (tg_features(v)->add_vm1_symbolic_none && !sint_all_int(vm1->ndim, vm1->shape)) return NULL; /* not all_int(vm1.shape) */
  int n2 = vm2->ndim;
  Extent ext[n2 > 0 ? n2 : 1];
  int next;
  bool symbolic = view_is_symbolic(vm1) || view_is_symbolic(vm2);
  if (tg_features(v)->symbolic == SYM_NODE) next = merge_extents_091(a, vm2, vm1, &t, ext);
  else if (sym_uop_ctx() != NULL && (tg_features(v)->add_merge_in_context || symbolic)) next = merge_extents_0100(a, vm2, vm1, &t, ext);
  else next = merge_extents_010(a, v, vm2, vm1, &t, ext); /* ints only, in a context of its own */
  if (next < 0) return NULL;
  /* vm2_shape := tuple(s for s,_ in reversed(extents)) */
  sint vm2_shape[next > 0 ? next : 1];
  Extent rext[next > 0 ? next : 1];
  for (int i = 0; i < next; i++) {
    vm2_shape[i] = ext[next - 1 - i].size;
    rext[i] = ext[next - 1 - i];
  }
  if (next != n2 || !sints_equal(n2, vm2_shape, vm2->shape)) {
    const View *reshaped = view_reshape(a, v, vm2, next, vm2_shape);
    if (reshaped == NULL) return NULL;
    if (tg_features(v)->add_retries_always) return view_add_rec(a, v, reshaped, vm1, depth + 1);
    /* 0.10: NOTE: this != to prevent infinite loop */
    if (!(reshaped->ndim == n2 && sints_equal(n2, reshaped->shape, vm2->shape))) return view_add_rec(a, v, reshaped, vm1, depth + 1);
  }
  if (mask_truthy(vm2)) return add_project_mask(a, v, vm2, vm1, &t, rext, depth);
  return add_create(a, v, vm2, vm1, &t);
}

const View *view_add(Arena *a, TgVersion v, const View *vm2, const View *vm1) {
  return view_add_rec(a, v, vm2, vm1, 0);
}
