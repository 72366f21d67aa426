/* st.c — View and ShapeTracker of tinygrad 0.10.2 for int shapes (st.h).
 * Each function follows the Python method of the same name in
 * shape/view.py or shape/shapetracker.py; Python's floor division and
 * modulo are pydiv/pymod. */
#include "st.h"
#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------- helpers */

static int64_t pydiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}
static int64_t pymod(int64_t a, int64_t b) { return a - pydiv(a, b) * b; }
static int64_t imax(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t imin(int64_t a, int64_t b) { return a < b ? a : b; }
/* helpers.py ceildiv */
static int64_t ceildiv(int64_t num, int64_t amt) { return -pydiv(-num, amt); }

static uint64_t mix(uint64_t x) {
  x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27; x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
static uint64_t combine(uint64_t h, uint64_t x) { return mix(h ^ (x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2))); }

const char *fmt_tuple(char *buf, size_t size, uint32_t n, const int64_t *v) {
  size_t k = 0;
  k += (size_t)snprintf(buf + k, size - k, "(");
  for (uint32_t i = 0; i < n && k < size; i++)
    k += (size_t)snprintf(buf + k, size - k, "%s%lld", i ? ", " : "", (long long)v[i]);
  if (k < size) snprintf(buf + k, size - k, n == 1 ? ",)" : ")");
  return buf;
}

static void check_ndim(StCtx *c, uint32_t n) {
  if (n > ST_MAXDIM) kg_throw(c->thr, ST_UNSUPPORTED, NULL, "a shape with %u dimensions (more than %d)", n, ST_MAXDIM);
}

int64_t shape_prod(uint32_t n, const int64_t *shape) {
  int64_t p = 1;
  for (uint32_t i = 0; i < n; i++) p *= shape[i];
  return p;
}

static bool has_zero(uint32_t n, const int64_t *shape) {
  for (uint32_t i = 0; i < n; i++)
    if (shape[i] == 0) return true;
  return false;
}

static bool same_ints(uint32_t n, const int64_t *a, const int64_t *b) { return n == 0 || memcmp(a, b, n * sizeof *a) == 0; }

/* ---------------------------------------------------------------- interning */

void st_ctx_init(StCtx *c, Arena *a, Thrower *thr, bool merge_view) {
  memset(c, 0, sizeof *c);
  c->arena = a;
  c->thr = thr;
  c->merge_view = merge_view;
}

static uint64_t view_hash(const View *v) {
  uint64_t h = mix(v->ndim + 77);
  for (uint32_t i = 0; i < v->ndim; i++) h = combine(combine(h, (uint64_t)v->shape[i]), (uint64_t)v->strides[i]);
  h = combine(h, (uint64_t)v->offset);
  if (v->mask)
    for (uint32_t i = 0; i < 2 * v->ndim; i++) h = combine(h, (uint64_t)v->mask[i] + 1);
  else h = combine(h, 0xabcdef);
  return combine(h, v->contiguous);
}

static bool view_same(const View *a, const View *b) {
  return a->hash == b->hash && a->ndim == b->ndim && a->offset == b->offset && a->contiguous == b->contiguous &&
         same_ints(a->ndim, a->shape, b->shape) && same_ints(a->ndim, a->strides, b->strides) &&
         (a->mask == NULL) == (b->mask == NULL) && (!a->mask || same_ints(2 * a->ndim, a->mask, b->mask));
}

static const int64_t *copy_ints(Arena *a, uint32_t n, const int64_t *v) {
  if (!n) return NULL;
  int64_t *out = arena_array(a, n, sizeof *out);
  memcpy(out, v, n * sizeof *out);
  return out;
}

/* The View dataclass constructor: interns the exact fields given. */
static const View *view_intern(StCtx *c, uint32_t n, const int64_t *shape, const int64_t *strides, int64_t offset,
                               const int64_t *mask, bool contiguous) {
  View p = {n, shape, strides, offset, mask, contiguous, 0};
  p.hash = view_hash(&p);
  if ((c->nv + 1) * 2 > c->vcap) {
    size_t cap = c->vcap ? c->vcap * 2 : 256;
    const View **t = arena_array(c->arena, cap, sizeof *t);
    for (size_t i = 0; i < c->vcap; i++) {
      const View *v = c->vtab[i];
      if (!v) continue;
      size_t j = v->hash & (cap - 1);
      while (t[j]) j = (j + 1) & (cap - 1);
      t[j] = v;
    }
    c->vtab = t;
    c->vcap = cap;
  }
  size_t j = p.hash & (c->vcap - 1);
  while (c->vtab[j]) {
    if (view_same(c->vtab[j], &p)) return c->vtab[j];
    j = (j + 1) & (c->vcap - 1);
  }
  View *v = arena_alloc(c->arena, sizeof *v);
  *v = p;
  v->shape = copy_ints(c->arena, n, shape);
  v->strides = copy_ints(c->arena, n, strides);
  v->mask = mask ? copy_ints(c->arena, 2 * n, mask) : NULL;
  if (mask && n == 0) v->mask = arena_alloc(c->arena, sizeof(int64_t)); /* () is not None */
  c->vtab[j] = v;
  c->nv++;
  return v;
}

const View *view_raw(StCtx *c, uint32_t n, const int64_t *shape, const int64_t *strides, int64_t offset, const int64_t *mask,
                     bool contiguous) {
  check_ndim(c, n);
  return view_intern(c, n, shape, strides, offset, mask, contiguous);
}

const ST *st_new(StCtx *c, uint32_t nviews, const View *const *views) {
  uint64_t h = mix(nviews + 99);
  for (uint32_t i = 0; i < nviews; i++) h = combine(h, views[i]->hash);
  if ((c->ns + 1) * 2 > c->scap) {
    size_t cap = c->scap ? c->scap * 2 : 256;
    const ST **t = arena_array(c->arena, cap, sizeof *t);
    for (size_t i = 0; i < c->scap; i++) {
      const ST *s = c->stab[i];
      if (!s) continue;
      size_t j = s->hash & (cap - 1);
      while (t[j]) j = (j + 1) & (cap - 1);
      t[j] = s;
    }
    c->stab = t;
    c->scap = cap;
  }
  size_t j = h & (c->scap - 1);
  while (c->stab[j]) {
    const ST *s = c->stab[j];
    if (s->hash == h && s->nviews == nviews && memcmp(s->views, views, nviews * sizeof *views) == 0) return s;
    j = (j + 1) & (c->scap - 1);
  }
  ST *s = arena_alloc(c->arena, sizeof *s);
  const View **vs = arena_array(c->arena, nviews ? nviews : 1, sizeof *vs);
  memcpy(vs, views, nviews * sizeof *views);
  s->nviews = nviews;
  s->views = vs;
  s->hash = h;
  c->stab[j] = s;
  c->ns++;
  return s;
}

/* ---------------------------------------------------------------- view.py */

/* canonicalize_strides */
static void canonicalize_strides(uint32_t n, const int64_t *shape, const int64_t *strides, int64_t *out) {
  for (uint32_t i = 0; i < n; i++) out[i] = shape[i] == 1 ? 0 : strides[i];
}

/* strides_for_shape */
void strides_for_shape(uint32_t n, const int64_t *shape, int64_t *out) {
  int64_t acc = 1;
  for (uint32_t i = n; i-- > 0;) {
    out[i] = shape[i] == 1 ? 0 : acc;
    acc *= shape[i];
  }
}

/* View.create */
const View *view_create(StCtx *c, uint32_t n, const int64_t *shape, const int64_t *strides_in, int64_t offset,
                        const int64_t *mask_in) {
  check_ndim(c, n);
  char buf[512];
  for (uint32_t i = 0; i < n; i++)
    if (shape[i] < 0)
      kg_throw(c->thr, ST_RAISED, "ValueError", "Trying to create View with negative dimension: shape=%s",
               fmt_tuple(buf, sizeof buf, n, shape));
  int64_t strides[ST_MAXDIM], mask[2 * ST_MAXDIM], sfs[ST_MAXDIM];
  if (strides_in && n) canonicalize_strides(n, shape, strides_in, strides);
  else strides_for_shape(n, shape, strides);
  if (has_zero(n, shape)) {
    int64_t zeros[ST_MAXDIM] = {0};
    return view_intern(c, n, shape, zeros, 0, NULL, true);
  }
  bool masked = mask_in != NULL;
  if (masked) {
    memcpy(mask, mask_in, 2 * n * sizeof *mask);
    bool noop = true;
    for (uint32_t i = 0; i < n; i++)
      if (mask[2 * i] != 0 || mask[2 * i + 1] != shape[i]) noop = false;
    if (noop) masked = false;
  }
  if (masked && n) {
    bool elim[ST_MAXDIM], any_elim = false, any_empty = false;
    for (uint32_t i = 0; i < n; i++) {
      elim[i] = !(mask[2 * i] + 1 < mask[2 * i + 1]);
      any_elim |= elim[i];
      any_empty |= !(mask[2 * i] < mask[2 * i + 1]);
    }
    if (any_elim) {
      if (any_empty) {
        for (uint32_t i = 0; i < n; i++) strides[i] = 0, mask[2 * i] = 0, mask[2 * i + 1] = 0;
        offset = 0;
      }
      for (uint32_t i = 0; i < n; i++)
        if (elim[i]) offset += strides[i] * mask[2 * i];
      for (uint32_t i = 0; i < n; i++)
        if (elim[i]) strides[i] = 0;
    }
  }
  strides_for_shape(n, shape, sfs);
  bool contiguous = offset == 0 && !masked && same_ints(n, strides, sfs);
  return view_intern(c, n, shape, strides, offset, masked ? mask : NULL, contiguous);
}

int64_t view_size(const View *v) { return shape_prod(v->ndim, v->shape); }

/* merge_dims: (merged size, stride, size without zero stride) triples */
static uint32_t merge_dims(uint32_t n, const int64_t *shape, const int64_t *strides, const int64_t *mask,
                           int64_t (*ret)[3]) {
  if (!n) return 0;
  uint32_t k = 0;
  ret[k][0] = shape[0], ret[k][1] = strides[0], ret[k][2] = strides[0] != 0 ? shape[0] : 0;
  k++;
  bool merging = mask ? (mask[1] - mask[0] == 1) : shape[0] == 1;
  for (uint32_t i = 1; i < n; i++) {
    int64_t s = shape[i], st = strides[i];
    if (s == 1) continue;
    int64_t last_s = ret[k - 1][0], last_st = ret[k - 1][1], last_pre = ret[k - 1][2];
    if (merging || last_st == s * st) {
      ret[k - 1][0] = last_s * s, ret[k - 1][1] = st, ret[k - 1][2] = merging ? s : last_pre * s;
    } else {
      ret[k][0] = s, ret[k][1] = st, ret[k][2] = s;
      k++;
    }
    merging = mask ? (mask[2 * i + 1] - mask[2 * i] == 1) : s == 1;
  }
  return k;
}

/* next(reversed(a), 1): *left items of a are still to come */
static int64_t next_rev(const int64_t *a, int64_t *left) { return *left > 0 ? a[--*left] : 1; }

/* _reshape_mask: false means None; out gets ndim pairs */
static bool reshape_mask(const int64_t *mask_in, uint32_t on, const int64_t *old_shape, uint32_t nn,
                         const int64_t *new_shape, int64_t *out) {
  if (!mask_in) {
    for (uint32_t i = 0; i < nn; i++) out[2 * i] = 0, out[2 * i + 1] = new_shape[i];
    return true;
  }
  /* reversed iterators with defaults */
  int64_t rm = on, rs = on, rn = nn;  /* items left */
  uint32_t nm = 0;                     /* new_mask entries, built reversed */
  int64_t rev[2 * ST_MAXDIM];
  int64_t curr_stride = 1, old_dim = next_rev(old_shape, &rs), new_dim = next_rev(new_shape, &rn), l, r;
  if (rm > 0) rm--, l = mask_in[2 * rm], r = mask_in[2 * rm + 1];
  else l = 0, r = 1;
  while (nm < nn) {
    int64_t next_stride = new_dim * curr_stride;
    if (old_dim == next_stride) {
      rev[2 * nm] = pydiv(l, curr_stride), rev[2 * nm + 1] = pydiv(r - 1, curr_stride) + 1, nm++;
      curr_stride = 1, old_dim = next_rev(old_shape, &rs), new_dim = next_rev(new_shape, &rn);
      if (rm > 0) rm--, l = mask_in[2 * rm], r = mask_in[2 * rm + 1];
      else l = 0, r = 1;
    } else if (old_dim > next_stride) {
      if (pymod(old_dim, next_stride) != 0) return false;
      if ((pymod(l, next_stride) != 0 || pymod(r, next_stride) != 0) && pydiv(l, next_stride) != pydiv(r - 1, next_stride))
        return false;
      rev[2 * nm] = pydiv(pymod(l, next_stride), curr_stride);
      rev[2 * nm + 1] = pydiv(pymod(r - 1, next_stride), curr_stride) + 1;
      nm++;
      curr_stride = next_stride, new_dim = next_rev(new_shape, &rn);
    } else {
      int64_t nl = 0, nr = 1;
      if (rm > 0) rm--, nl = mask_in[2 * rm], nr = mask_in[2 * rm + 1];
      if (!(l == 0 && r == old_dim) && l != r && nr - nl != 1) return false;
      int64_t nl2 = nl * old_dim + l, nr2 = (nr - 1) * old_dim + r;
      l = nl2, r = nr2;
      old_dim = old_dim * next_rev(old_shape, &rs);
    }
  }
  for (uint32_t i = 0; i < nn; i++) out[2 * i] = rev[2 * (nn - 1 - i)], out[2 * i + 1] = rev[2 * (nn - 1 - i) + 1];
  return true;
}

/* View.reshape */
const View *view_reshape(StCtx *c, const View *v, uint32_t nn, const int64_t *new_shape) {
  check_ndim(c, nn);
  if (v->ndim == nn && same_ints(nn, v->shape, new_shape)) return v;
  char b1[512], b2[512];
  for (uint32_t i = 0; i < nn; i++)
    if (new_shape[i] < 0)
      kg_throw(c->thr, ST_RAISED, "ValueError", "shape can't contain negative numbers %s", fmt_tuple(b1, sizeof b1, nn, new_shape));
  if (shape_prod(v->ndim, v->shape) != shape_prod(nn, new_shape))
    kg_throw(c->thr, ST_RAISED, "ValueError", "size mismatched, can't reshape self.shape=%s -> new_shape=%s",
             fmt_tuple(b1, sizeof b1, v->ndim, v->shape), fmt_tuple(b2, sizeof b2, nn, new_shape));
  if (has_zero(v->ndim, v->shape)) return view_create(c, nn, new_shape, NULL, 0, NULL);
  if (nn == 0 && v->mask && v->ndim) {
    for (uint32_t i = 0; i < v->ndim; i++)
      if (v->mask[2 * i] == v->mask[2 * i + 1]) return NULL;
  }
  if (v->contiguous) return view_create(c, nn, new_shape, NULL, 0, NULL);
  int64_t md[ST_MAXDIM][3], r_strides[ST_MAXDIM];
  uint32_t nmd = merge_dims(v->ndim, v->shape, v->strides, v->mask, md), nr = 0;
  int64_t rn = nn; /* reversed(new_shape) items left */
  for (uint32_t k = nmd; k-- > 0;) {
    int64_t merged_size = md[k][0], new_stride = md[k][1], real_size = md[k][2], acc = 1, new_dim;
    while (acc <= merged_size && acc != merged_size && (new_dim = rn > 0 ? new_shape[--rn] : 0) > 0) {
      if (nr == ST_MAXDIM) return NULL;
      r_strides[nr++] = new_stride * acc;
      acc = acc * new_dim;
      if (!(acc < real_size)) new_stride = 0;
    }
    if (acc != merged_size) return NULL;
  }
  int64_t new_strides[ST_MAXDIM], new_mask[2 * ST_MAXDIM];
  if (nr > nn) return NULL;
  for (uint32_t i = 0; i < nn - nr; i++) new_strides[i] = 0;
  for (uint32_t i = 0; i < nr; i++) new_strides[nn - nr + i] = r_strides[nr - 1 - i];
  if (!reshape_mask(v->mask, v->ndim, v->shape, nn, new_shape, new_mask)) return NULL;
  int64_t extra = 0;
  if (v->mask)
    for (uint32_t i = 0; i < v->ndim; i++) extra += v->mask[2 * i] * v->strides[i];
  for (uint32_t i = 0; i < nn; i++) extra -= new_mask[2 * i] * new_strides[i];
  return view_create(c, nn, new_shape, new_strides, v->offset + extra, new_mask);
}

/* View.__unsafe_resize */
static const View *unsafe_resize(StCtx *c, const View *v, const int64_t *arg, const int64_t *mask) {
  uint32_t n = v->ndim;
  int64_t offset = 0, shape[ST_MAXDIM], nmask[2 * ST_MAXDIM];
  for (uint32_t i = 0; i < n; i++) offset += v->strides[i] * arg[2 * i];
  const int64_t *m = mask;
  if (v->mask) {
    for (uint32_t i = 0; i < n; i++) {
      int64_t mx = v->mask[2 * i], my = v->mask[2 * i + 1], ax = arg[2 * i], ay = arg[2 * i + 1];
      nmask[2 * i] = imax(0, imin(mx - ax, ay - ax));
      nmask[2 * i + 1] = imax(0, imin(my - ax, ay - ax));
    }
    if (mask)
      for (uint32_t i = 0; i < n; i++) {
        nmask[2 * i] = imax(nmask[2 * i], mask[2 * i]);
        nmask[2 * i + 1] = imin(nmask[2 * i + 1], mask[2 * i + 1]);
      }
    m = nmask;
  }
  for (uint32_t i = 0; i < n; i++) shape[i] = arg[2 * i + 1] - arg[2 * i];
  return view_create(c, n, shape, v->strides, v->offset + offset, m);
}

/* View.pad */
const View *view_pad(StCtx *c, const View *v, const int64_t *arg) {
  uint32_t n = v->ndim;
  bool any = false;
  for (uint32_t i = 0; i < n; i++) {
    if (arg[2 * i] < 0 || arg[2 * i + 1] < 0) kg_throw(c->thr, ST_RAISED, "AssertionError", "invalid pad");
    any |= arg[2 * i] != 0 || arg[2 * i + 1] != 0;
  }
  if (!any) return v;
  int64_t zvarg[2 * ST_MAXDIM], mask[2 * ST_MAXDIM];
  for (uint32_t i = 0; i < n; i++) {
    zvarg[2 * i] = -arg[2 * i], zvarg[2 * i + 1] = v->shape[i] + arg[2 * i + 1];
    mask[2 * i] = arg[2 * i], mask[2 * i + 1] = v->shape[i] + arg[2 * i];
  }
  return unsafe_resize(c, v, zvarg, mask);
}

/* View.shrink */
const View *view_shrink(StCtx *c, const View *v, const int64_t *arg) {
  for (uint32_t i = 0; i < v->ndim; i++)
    if (!(0 <= arg[2 * i] && arg[2 * i] <= arg[2 * i + 1] && arg[2 * i + 1] <= v->shape[i]))
      kg_throw(c->thr, ST_RAISED, "AssertionError", "invalid shrink");
  return unsafe_resize(c, v, arg, NULL);
}

/* View.expand */
const View *view_expand(StCtx *c, const View *v, uint32_t n, const int64_t *new_shape) {
  char b1[512], b2[512];
  if (n != v->ndim)
    kg_throw(c->thr, ST_RAISED, "ValueError", "expand arg new_shape=%s must have same number of dimensions as shape self.shape=%s",
             fmt_tuple(b1, sizeof b1, n, new_shape), fmt_tuple(b2, sizeof b2, v->ndim, v->shape));
  for (uint32_t i = 0; i < n; i++)
    if (!(v->shape[i] == new_shape[i] || v->shape[i] == 1))
      kg_throw(c->thr, ST_RAISED, "AssertionError", "can't expand %s into %s", fmt_tuple(b1, sizeof b1, n, v->shape),
               fmt_tuple(b2, sizeof b2, n, new_shape));
  if (has_zero(v->ndim, v->shape)) return view_create(c, n, new_shape, NULL, 0, NULL);
  int64_t mask[2 * ST_MAXDIM];
  if (v->mask && n) {
    for (uint32_t i = 0; i < n; i++) {
      int64_t m0 = v->mask[2 * i], m1 = v->mask[2 * i + 1];
      if (v->shape[i] != new_shape[i]) {
        bool unit = m0 == 0 && m1 == 1;
        mask[2 * i] = 0, mask[2 * i + 1] = unit ? new_shape[i] : 0;
      } else mask[2 * i] = m0, mask[2 * i + 1] = m1;
    }
  }
  return view_create(c, n, new_shape, v->strides, v->offset, v->mask && n ? mask : NULL);
}

/* View.permute */
const View *view_permute(StCtx *c, const View *v, const int64_t *axis) {
  uint32_t n = v->ndim;
  bool seen[ST_MAXDIM] = {false};
  for (uint32_t i = 0; i < n; i++) {
    if (axis[i] < 0 || axis[i] >= (int64_t)n || seen[axis[i]]) {
      char b1[512];
      kg_throw(c->thr, ST_RAISED, "AssertionError", "invalid permutation %s of len %u", fmt_tuple(b1, sizeof b1, n, axis), n);
    }
    seen[axis[i]] = true;
  }
  int64_t shape[ST_MAXDIM], strides[ST_MAXDIM], mask[2 * ST_MAXDIM];
  for (uint32_t i = 0; i < n; i++) {
    shape[i] = v->shape[axis[i]], strides[i] = v->strides[axis[i]];
    if (v->mask) mask[2 * i] = v->mask[2 * axis[i]], mask[2 * i + 1] = v->mask[2 * axis[i] + 1];
  }
  return view_create(c, n, shape, strides, v->offset, v->mask ? mask : NULL);
}

/* View.flip */
const View *view_flip(StCtx *c, const View *v, const bool *arg) {
  uint32_t n = v->ndim;
  int64_t offset = 0, strides[ST_MAXDIM], mask[2 * ST_MAXDIM];
  for (uint32_t i = 0; i < n; i++) {
    if (arg[i]) offset += (v->shape[i] - 1) * v->strides[i];
    strides[i] = arg[i] ? -v->strides[i] : v->strides[i];
    if (v->mask) {
      int64_t mx = v->mask[2 * i], my = v->mask[2 * i + 1], s = v->shape[i];
      mask[2 * i] = arg[i] ? s - my : mx, mask[2 * i + 1] = arg[i] ? s - mx : my;
    }
  }
  return view_create(c, n, v->shape, strides, v->offset + offset, v->mask ? mask : NULL);
}

/* unravel(shape, offset) */
static void unravel(uint32_t n, const int64_t *shape, int64_t offset, int64_t *out) {
  int64_t acc = 1;
  for (uint32_t i = n; i-- > 0;) {
    out[i] = pymod(pydiv(offset, acc), shape[i]);
    acc *= shape[i];
  }
}

/* The index expression `merged_term` of View.__add__: a constant plus terms
 * coef*idx_d (each idx_d a Variable in [0, vm1.shape[d]-1]), kept as the list
 * of terms the Python expression adds up. Its vmin/vmax, as UOp._min_max
 * computes them on the unsimplified tree, is the interval sum over the
 * terms; resolve() first simplifies, which combines the terms of one
 * variable, so `resolved` bounds use the combined coefficients. */
typedef struct { int64_t konst; uint32_t n; uint32_t var[ST_MAXDIM * ST_MAXDIM]; int64_t coef[ST_MAXDIM * ST_MAXDIM]; } Lin;

static void lin_bounds(const Lin *t, const int64_t *vshape, uint32_t nvars, bool combined, int64_t *lo, int64_t *hi) {
  int64_t l = t->konst, h = t->konst, tot[ST_MAXDIM] = {0};
  if (combined) {
    for (uint32_t k = 0; k < t->n; k++) tot[t->var[k]] += t->coef[k];
    for (uint32_t d = 0; d < nvars; d++) {
      int64_t x = tot[d] * (vshape[d] - 1);
      l += imin(0, x), h += imax(0, x);
    }
  } else {
    for (uint32_t k = 0; k < t->n; k++) {
      int64_t x = t->coef[k] * (vshape[t->var[k]] - 1);
      l += imin(0, x), h += imax(0, x);
    }
  }
  *lo = l, *hi = h;
}

/* View.__add__ (self is vm2, the argument vm1) */
const View *view_add(StCtx *c, const View *vm2, const View *vm1) {
  if (vm2->contiguous) return vm1;
  if (vm1->contiguous && vm1->ndim == vm2->ndim && same_ints(vm1->ndim, vm1->shape, vm2->shape)) return vm2;
  const View *ret;
  if (vm1->contiguous && view_size(vm1) == view_size(vm2) && (ret = view_reshape(c, vm2, vm1->ndim, vm1->shape))) return ret;
  uint32_t n1 = vm1->ndim, n2 = vm2->ndim;
  if (vm1->mask) {
    const View *new_vm1 = view_shrink(c, vm1, vm1->mask), *merged;
    if (new_vm1 == vm1 || !(merged = view_add(c, vm2, new_vm1))) return NULL;
    int64_t pad[2 * ST_MAXDIM];
    for (uint32_t i = 0; i < n1; i++) pad[2 * i] = vm1->mask[2 * i], pad[2 * i + 1] = vm1->shape[i] - vm1->mask[2 * i + 1];
    return view_pad(c, merged, pad);
  }
  /* Project vm1's offset and strides on to vm2. */
  int64_t origin[ST_MAXDIM], other[ST_MAXDIM], strides[ST_MAXDIM] = {0};
  uint32_t nterm[ST_MAXDIM] = {0}, tvar[ST_MAXDIM][ST_MAXDIM];
  int64_t tcoef[ST_MAXDIM][ST_MAXDIM];
  unravel(n2, vm2->shape, vm1->offset, origin);
  for (uint32_t d1 = 0; d1 < n1; d1++) {
    int64_t st = vm1->strides[d1];
    if (st == 0) continue;
    unravel(n2, vm2->shape, vm1->offset + st, other);
    for (uint32_t d2 = 0; d2 < n2; d2++) {
      int64_t s1 = other[d2] - origin[d2];
      if (s1 == 0) continue;
      tvar[d2][nterm[d2]] = d1, tcoef[d2][nterm[d2]] = s1, nterm[d2]++;
      strides[d1] += s1 * vm2->strides[d2];
    }
  }
  /* Merge dimensions in vm2 if required. */
  Lin *merged = arena_alloc(c->arena, sizeof *merged), *ext_terms = arena_array(c->arena, n2 ? n2 : 1, sizeof *ext_terms);
  int64_t merged_size = 1, ext_size[ST_MAXDIM], lo, hi;
  uint32_t next = 0;
  for (uint32_t k = n2; k-- > 0;) {
    int64_t s = vm2->shape[k], o = origin[k];
    for (uint32_t j = 0; j < nterm[k]; j++) {
      merged->var[merged->n] = tvar[k][j];
      merged->coef[merged->n++] = tcoef[k][j] * merged_size;
    }
    merged->konst += o * merged_size;
    merged_size *= s;
    lin_bounds(merged, vm1->shape, n1, true, &lo, &hi);
    if (hi < merged_size && lo >= 0) {
      ext_size[next] = merged_size, ext_terms[next++] = *merged;
      merged_size = 1;
      memset(merged, 0, sizeof *merged);
    }
  }
  lin_bounds(merged, vm1->shape, n1, true, &lo, &hi);
  if (!(lo == 0 && hi == 0)) return NULL;
  int64_t vm2_shape[ST_MAXDIM];
  for (uint32_t i = 0; i < next; i++) vm2_shape[i] = ext_size[next - 1 - i];
  if (next != n2 || !same_ints(n2, vm2_shape, vm2->shape)) {
    const View *reshaped = view_reshape(c, vm2, next, vm2_shape);
    if (!reshaped) return NULL;
    if (!(reshaped->ndim == n2 && same_ints(n2, reshaped->shape, vm2->shape))) return view_add(c, reshaped, vm1);
  }
  if (vm2->mask) {
    /* Try to project vm2's mask on to vm1. */
    int64_t newb[ST_MAXDIM] = {0}, newe[ST_MAXDIM];
    bool bad = false;
    for (uint32_t i = 0; i < n1; i++) newe[i] = vm1->shape[i];
    for (uint32_t d2 = 0; d2 < n2 && d2 < next; d2++) {
      int64_t b = vm2->mask[2 * d2], e = vm2->mask[2 * d2 + 1], o = origin[d2];
      lin_bounds(&ext_terms[next - 1 - d2], vm1->shape, n1, false, &lo, &hi);
      if (b <= lo && hi < e) continue;
      if (nterm[d2] != 1) {
        if (nterm[d2] == 0 && n1) newe[0] = 0;
        else bad = true;
        continue;
      }
      uint32_t d1 = tvar[d2][0];
      int64_t s1 = tcoef[d2][0];
      newb[d1] = imax(newb[d1], ceildiv(s1 > 0 ? b - o : e - o - 1, s1));
      newe[d1] = imin(newe[d1], pydiv(s1 < 0 ? b - o : e - o - 1, s1) + 1);
    }
    bool changed = false;
    for (uint32_t i = 0; i < n1; i++)
      if (newb[i] != 0 || newe[i] != vm1->shape[i]) changed = true;
    if (changed) {
      int64_t mask[2 * ST_MAXDIM];
      for (uint32_t i = 0; i < n1; i++) mask[2 * i] = newb[i], mask[2 * i + 1] = newe[i];
      return view_add(c, vm2, view_create(c, n1, vm1->shape, vm1->strides, vm1->offset, mask));
    }
    if (bad) return NULL;
  }
  int64_t offset = vm2->offset;
  for (uint32_t i = 0; i < n2; i++) offset += origin[i] * vm2->strides[i];
  return view_create(c, n1, vm1->shape, strides, offset, NULL);
}

/* helpers.py argsort: stable */
static void argsort(uint32_t n, const int64_t *key, int64_t *out) {
  for (uint32_t i = 0; i < n; i++) {
    uint32_t j = i;
    while (j > 0 && key[out[j - 1]] > key[i]) { out[j] = out[j - 1]; j--; }
    out[j] = i;
  }
}

/* View.invert */
const View *view_invert(StCtx *c, const View *v, uint32_t n, const int64_t *out_shape) {
  const View *ret = view_create(c, v->ndim, v->shape, NULL, 0, NULL);
  if (v->mask && v->ndim) ret = view_shrink(c, ret, v->mask);
  bool flip[ST_MAXDIM];
  int64_t key[ST_MAXDIM], perm[ST_MAXDIM];
  for (uint32_t i = 0; i < v->ndim; i++) {
    flip[i] = v->strides[i] < 0;
    key[i] = v->strides[i] > 0 ? -v->strides[i] : v->strides[i];
  }
  argsort(v->ndim, key, perm);
  ret = view_permute(c, view_flip(c, ret, flip), perm);
  return view_size(ret) == shape_prod(n, out_shape) ? ret : NULL;
}

/* View.minify */
const View *view_minify(StCtx *c, const View *v) {
  int64_t md[ST_MAXDIM][3], shape[ST_MAXDIM];
  uint32_t k = merge_dims(v->ndim, v->shape, v->strides, v->mask, md);
  for (uint32_t i = 0; i < k; i++) shape[i] = md[i][0];
  const View *nv = view_reshape(c, v, k, shape);
  return nv ? nv : v;
}

/* ---------------------------------------------------------------- shapetracker.py */

const ST *st_from_shape(StCtx *c, uint32_t n, const int64_t *shape) {
  const View *v = view_create(c, n, shape, NULL, 0, NULL);
  return st_new(c, 1, &v);
}

/* ShapeTracker.simplify */
const ST *st_simplify(StCtx *c, const ST *s) {
  while (s->nviews >= 2) {
    const View *nv = view_add(c, s->views[s->nviews - 2], s->views[s->nviews - 1]);
    if (!nv) break;
    const View *vs[64];
    if (s->nviews - 1 > 64) kg_throw(c->thr, ST_UNSUPPORTED, NULL, "a ShapeTracker with more than 64 views");
    memcpy(vs, s->views, (s->nviews - 2) * sizeof *vs);
    vs[s->nviews - 2] = nv;
    s = st_new(c, s->nviews - 1, vs);
  }
  return s;
}

/* ShapeTracker.__add__ */
const ST *st_add(StCtx *c, const ST *a, const ST *b) {
  const ST *ret = a;
  for (uint32_t i = 0; i < b->nviews; i++) {
    const View **vs = arena_array(c->arena, ret->nviews + 1, sizeof *vs);
    memcpy(vs, ret->views, ret->nviews * sizeof *vs);
    vs[ret->nviews] = b->views[i];
    ret = st_simplify(c, st_new(c, ret->nviews + 1, vs));
  }
  return ret;
}

/* ShapeTracker.invert */
const ST *st_invert(StCtx *c, const ST *s, uint32_t n, const int64_t *out_shape) {
  const View **inv = arena_array(c->arena, s->nviews, sizeof *inv);
  for (uint32_t k = 0; k < s->nviews; k++) {
    const View *v = s->views[s->nviews - 1 - k];
    const View *prev = k + 1 < s->nviews ? s->views[s->nviews - 2 - k] : NULL;
    const View *r = prev ? view_invert(c, v, prev->ndim, prev->shape) : view_invert(c, v, n, out_shape);
    if (!r) return NULL;
    inv[k] = r;
  }
  return st_reshape(c, st_new(c, s->nviews, inv), n, out_shape);
}

static const ST *replace_last(StCtx *c, const ST *s, const View *v) {
  const View **vs = arena_array(c->arena, s->nviews, sizeof *vs);
  memcpy(vs, s->views, s->nviews * sizeof *vs);
  vs[s->nviews - 1] = v;
  return st_new(c, s->nviews, vs);
}

/* ShapeTracker.reshape */
const ST *st_reshape(StCtx *c, const ST *s, uint32_t n, const int64_t *new_shape) {
  const View *nv;
  if (c->merge_view && (nv = view_reshape(c, st_last(s), n, new_shape))) return replace_last(c, s, nv);
  const View **vs = arena_array(c->arena, s->nviews + 1, sizeof *vs);
  memcpy(vs, s->views, s->nviews * sizeof *vs);
  vs[s->nviews] = view_create(c, n, new_shape, NULL, 0, NULL);
  return st_new(c, s->nviews + 1, vs);
}
const ST *st_pad(StCtx *c, const ST *s, const int64_t *arg) { return replace_last(c, s, view_pad(c, st_last(s), arg)); }
const ST *st_shrink(StCtx *c, const ST *s, const int64_t *arg) { return replace_last(c, s, view_shrink(c, st_last(s), arg)); }
const ST *st_expand(StCtx *c, const ST *s, uint32_t n, const int64_t *new_shape) {
  return replace_last(c, s, view_expand(c, st_last(s), n, new_shape));
}
const ST *st_permute(StCtx *c, const ST *s, const int64_t *axis) { return replace_last(c, s, view_permute(c, st_last(s), axis)); }
const ST *st_flip(StCtx *c, const ST *s, const bool *arg) { return replace_last(c, s, view_flip(c, st_last(s), arg)); }

void st_reduce_shape(const ST *s, uint32_t naxis, const int64_t *axis, int64_t *out) {
  const View *v = st_last(s);
  for (uint32_t i = 0; i < v->ndim; i++) {
    out[i] = v->shape[i];
    for (uint32_t k = 0; k < naxis; k++)
      if (axis[k] == (int64_t)i) out[i] = 1;
  }
}

/* ShapeTracker.real_strides: the single unmasked view case of
 * views_to_real_strides. */
bool st_real_strides(StCtx *c, const ST *s, bool ignore_valid, int64_t *out, bool *has) {
  (void)c;
  (void)ignore_valid;
  const View *v = st_last(s);
  if (s->nviews != 1 || v->mask) return false;
  for (uint32_t i = 0; i < v->ndim; i++) out[i] = v->strides[i], has[i] = true;
  return true;
}
