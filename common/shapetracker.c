/* shapetracker.c — tinygrad's ShapeTracker (shape/shapetracker.py), 0.9.1 / 0.10.0 / 0.10.2.
 * Each function names the Python it follows; where versions differ it asks the
 * version's features (version.h). */
#include "shapetracker.h"
#include <string.h>
#include "symbolic.h"

/* ------------------------------------------------------------------ basics */

const ShapeTracker *st_new(Arena *a, int nviews, const View *const *views) {
  ShapeTracker *st = arena_alloc(a, sizeof *st);
  const View **copy = arena_array(a, (size_t)(nviews > 0 ? nviews : 1), sizeof *copy);
  memcpy(copy, views, sizeof *copy * (size_t)nviews);
  st->nviews = nviews;
  st->views = copy;
  return st;
}

/* ShapeTracker with its last view replaced: ShapeTracker(self.views[0:-1] + (view,)) */
static const ShapeTracker *st_with_last(Arena *a, const ShapeTracker *st, const View *last) {
  const View *views[st->nviews];
  memcpy(views, st->views, sizeof views);
  views[st->nviews - 1] = last;
  return st_new(a, st->nviews, views);
}

/* ShapeTracker(self.views + (view,)) */
static const ShapeTracker *st_append(Arena *a, const ShapeTracker *st, const View *vw) {
  const View *views[st->nviews + 1];
  memcpy(views, st->views, sizeof(const View *) * (size_t)st->nviews);
  views[st->nviews] = vw;
  return st_new(a, st->nviews + 1, views);
}

/* ShapeTracker.from_shape */
const ShapeTracker *st_from_shape(Arena *a, TgVersion v, int n, const sint *shape) {
  const View *vw = view_create(a, v, n, shape, NULL, sint_int(0), NULL);
  return st_new(a, 1, &vw);
}

int64_t st_size(const ShapeTracker *st) { return view_size(st_last(st)); }

bool st_contiguous(const ShapeTracker *st) { return st->nviews == 1 && st->views[0]->contiguous; }

bool st_consecutive(const ShapeTracker *st) {
  if (st->nviews != 1 || st->views[0]->mask != NULL) return false;
  const View *vw = st->views[0];
  sint rm[vw->ndim > 0 ? vw->ndim : 1];
  strides_for_shape(vw->ndim, vw->shape, rm);
  for (int i = 0; i < vw->ndim; i++)
    if (sint_ne(vw->strides[i], rm[i])) return false;
  return true;
}

bool st_equal(const ShapeTracker *x, const ShapeTracker *y) {
  if (x == y) return true;
  if (x->nviews != y->nviews) return false;
  for (int i = 0; i < x->nviews; i++)
    if (!view_equal(x->views[i], y->views[i])) return false;
  return true;
}

uint64_t st_hash(const ShapeTracker *st) {
  uint64_t h = 0x5754ULL + (uint64_t)st->nviews;
  for (int i = 0; i < st->nviews; i++) h = (h ^ view_hash(st->views[i])) * 0x100000001b3ULL;
  return h;
}

/* ------------------------------------------------------------------ movement ops */

/* ShapeTracker.reshape */
const ShapeTracker *st_reshape(Arena *a, TgVersion v, const ShapeTracker *st, int n, const sint *new_shape, bool merge_view) {
  if (merge_view) {
    const View *nv = view_reshape(a, v, st_last(st), n, new_shape);
    if (nv != NULL) return st_with_last(a, st, nv);
  }
  return st_append(a, st, view_create(a, v, n, new_shape, NULL, sint_int(0), NULL));
}

const ShapeTracker *st_permute(Arena *a, TgVersion v, const ShapeTracker *st, int n, const int64_t *axis) {
  return st_with_last(a, st, view_permute(a, v, st_last(st), n, axis));
}

const ShapeTracker *st_expand(Arena *a, TgVersion v, const ShapeTracker *st, int n, const sint *new_shape) {
  return st_with_last(a, st, view_expand(a, v, st_last(st), n, new_shape));
}

const ShapeTracker *st_pad(Arena *a, TgVersion v, const ShapeTracker *st, int n, const SPair *arg) {
  return st_with_last(a, st, view_pad(a, v, st_last(st), n, arg));
}

const ShapeTracker *st_shrink(Arena *a, TgVersion v, const ShapeTracker *st, int n, const SPair *arg) {
  return st_with_last(a, st, view_shrink(a, v, st_last(st), n, arg));
}

const ShapeTracker *st_stride(Arena *a, TgVersion v, const ShapeTracker *st, int n, const int64_t *mul) {
  return st_with_last(a, st, view_stride(a, v, st_last(st), n, mul));
}

const ShapeTracker *st_flip(Arena *a, TgVersion v, const ShapeTracker *st, int n, const bool *flip) {
  return st_with_last(a, st, view_flip(a, v, st_last(st), n, flip));
}

/* ------------------------------------------------------------------ simplify, __add__, invert */

/* ShapeTracker.simplify (a tail recursion in Python, a loop here) */
const ShapeTracker *st_simplify(Arena *a, TgVersion v, const ShapeTracker *st) {
  while (st->nviews >= 2) {
    const View *nv = view_add(a, v, st->views[st->nviews - 2], st->views[st->nviews - 1]);
    if (nv == NULL) break;
    const View *views[st->nviews - 1];
    memcpy(views, st->views, sizeof(const View *) * (size_t)(st->nviews - 2));
    views[st->nviews - 2] = nv;
    st = st_new(a, st->nviews - 1, views);
  }
  return st;
}

/* ShapeTracker.__add__: one view at a time = better simplification */
const ShapeTracker *st_add(Arena *a, TgVersion v, const ShapeTracker *st, const ShapeTracker *other) {
  const ShapeTracker *ret = st;
  for (int i = 0; i < other->nviews && ret != NULL; i++) ret = st_simplify(a, v, st_append(a, ret, other->views[i]));
  return ret;
}

/* ShapeTracker.invert */
const ShapeTracker *st_invert(Arena *a, TgVersion v, const ShapeTracker *st, int n, const sint *out_shape, bool merge_view) {
  const View *inverted[st->nviews];
  for (int k = 0; k < st->nviews; k++) {
    /* zip(self.views[::-1], [x.shape for x in self.views[::-1][1:]]+[out_shape]) */
    const View *vw = st->views[st->nviews - 1 - k];
    const View *next = k + 1 < st->nviews ? st->views[st->nviews - 2 - k] : NULL;
    inverted[k] = next != NULL ? view_invert(a, v, vw, next->ndim, next->shape) : view_invert(a, v, vw, n, out_shape);
    if (inverted[k] == NULL) return NULL;
  }
  return st_reshape(a, v, st_new(a, st->nviews, inverted), n, out_shape, merge_view);
}

/* ------------------------------------------------------------------ real_strides, 0.9.1 */

static sint node_sint(const SymNode *x) { sint r = {0, x}; return r; }

/* shape/shapetracker.py _expr_view (0.9.1); shapes, strides, offset and mask may be Nodes */
static void expr_view_091(SymNodeCtx *c, const View *vw, const SymNode *const *idxs, const SymNode *valid,
                          const SymNode **idx_out, const SymNode **valid_out) {
  int n = vw->ndim;
  const SymNode *iexpr[n + 1], *vexpr[2 * n + 1];
  int ni = 0, nv = 0;
  /* NumNode(view.offset) if isinstance(view.offset, int) else view.offset */
  iexpr[ni++] = vw->offset.sym != NULL ? vw->offset.sym : snode_num(c, vw->offset.i);
  if (valid != NULL) vexpr[nv++] = valid;
  for (int i = 0; i < n; i++) {
    if (!snv_eq(c, vw->shape[i], sint_int(1)) && !snv_eq(c, vw->strides[i], sint_int(0)))
      iexpr[ni++] = snv_mul(c, node_sint(idxs[i]), vw->strides[i]).sym; /* idx*st */
    if (vw->mask != NULL) { /* idx >= m[0], idx < m[1] */
      vexpr[nv++] = create_ge_node(c, idxs[i], vw->mask[i].b);
      vexpr[nv++] = create_lt_node(c, idxs[i], vw->mask[i].e);
    }
  }
  *idx_out = snode_sum(c, ni, iexpr);
  *valid_out = snode_ands(c, nv, vexpr);
}

/* ShapeTracker.expr_idxs (0.9.1) */
static void expr_idxs_091(Arena *a, TgVersion v, SymNodeCtx *c, const ShapeTracker *st, const SymNode *const *idxs, const SymNode **idx,
                          const SymNode **valid) {
  expr_view_091(c, st_last(st), idxs, NULL, idx, valid);
  for (int k = st->nviews - 2; k >= 0; k--) {
    if (snv_eq(c, snode_max(*valid), sint_int(0))) {
      *idx = snode_num(c, -1);
      return;
    }
    const View *vw = view_minify(a, v, st->views[k]);
    int n = vw->ndim;
    const SymNode *sub[n > 0 ? n : 1];
    sint acc = sint_int(1);
    for (int i = n - 1; i >= 0; i--) { /* (idx//acc)%d */
      sub[i] = snv_mod(c, snv_floordiv(c, node_sint(*idx), acc), vw->shape[i]).sym;
      acc = snv_mul(c, acc, vw->shape[i]);
    }
    expr_view_091(c, vw, sub, *valid, idx, valid);
  }
  const int64_t lim = (int64_t)1 << 31;
  if ((*idx)->nmin == NULL && !((*idx)->min >= -lim)) /* assert not isinstance(idx.min, int) or idx.min >= -2**31 */
    error_raise("AssertionError", "idx.min too small. idx=%s, idx.min=%lld", snode_repr(c, *idx), (long long)(*idx)->min);
  if ((*idx)->nmax == NULL && !((*idx)->max < lim))
    error_raise("AssertionError", "idx.max too big. idx=%s, idx.max=%lld", snode_repr(c, *idx), (long long)(*idx)->max);
}

static bool var_in(SymNodeCtx *c, const SymNode *x, int n, const SymNode *const *set) {
  if (x->kind != SN_VAR) return false; /* a NumNode index (size-1 dimension) is never in a set of Variables */
  for (int i = 0; i < n; i++)
    if (snode_eq(c, set[i], x)) return true;
  return false;
}

/* ShapeTracker.real_strides (0.9.1) */
static void real_strides_091(Arena *a, TgVersion v, const ShapeTracker *st, bool ignore_valid, sint *out, bool *is_none) {
  SymNodeCtx c;
  snode_ctx_init(&c, a);
  int n = st_ndim(st);
  const SymNode *idxs[n > 0 ? n : 1];
  for (int i = 0; i < n; i++) idxs[i] = snode_var_sint(&c, arena_printf(a, "idx%d", i), 0, snv_sub(&c, st_shape(st)[i], sint_int(1)));
  const SymNode *idx, *valid;
  expr_idxs_091(a, v, &c, st, idxs, &idx, &valid);
  for (int i = 0; i < n; i++) is_none[i] = true;
  const SymNode *single[1] = {idx};
  const SymNode *const *dims = idx->kind == SN_SUM ? idx->nodes : single;
  int ndims = idx->kind == SN_SUM ? idx->n : 1;
  const SymNode *bad[64];
  int nbad = 0;
  for (int k = 0; k < ndims; k++) {
    const SymNode *this_dim = dims[k];
    const SymNode *idx_maybe = this_dim->kind == SN_MUL ? this_dim->a : this_dim;
    sint stride_maybe = this_dim->kind != SN_MUL ? sint_int(1) : this_dim->bn != NULL ? node_sint(this_dim->bn) : sint_int(this_dim->b);
    int found = -1;
    for (int i = 0; i < n && found < 0; i++) /* idxs.index(idx_maybe) */
      if (snode_eq(&c, idxs[i], idx_maybe)) found = i;
    if (found >= 0) {
      out[found] = stride_maybe;
      is_none[found] = false;
    } else { /* bad_idx_vars = bad_idx_vars.union(idx_maybe.vars()) */
      const SymNode *vs[64];
      int nv = snode_vars(&c, idx_maybe, vs, 64);
      for (int i = 0; i < nv && i < 64; i++)
        if (!var_in(&c, vs[i], nbad, bad) && nbad < 64) bad[nbad++] = vs[i];
    }
  }
  const SymNode *idx_vars[64], *valid_vars[64];
  int n_idx_vars = snode_vars(&c, idx, idx_vars, 64), n_valid_vars = snode_vars(&c, valid, valid_vars, 64);
  if (n_idx_vars > 64 || n_valid_vars > 64) error_unsupported("real_strides: too many variables");
  for (int i = 0; i < n; i++) {
    const SymNode *tidx = idxs[i];
    if (var_in(&c, tidx, nbad, bad) || (var_in(&c, tidx, n_valid_vars, valid_vars) && !ignore_valid)) {
      is_none[i] = true;
    } else if (!var_in(&c, tidx, n_idx_vars, idx_vars)) {
      out[i] = sint_int(0);
      is_none[i] = false;
    }
  }
}

/* ------------------------------------------------------------------ real_strides, 0.10.x */

/* variable_to_uop (0.10.0) / sint_to_uop (0.10.2): an int becomes a CONST */
static const SymUOp *sint_uop(SymCtx *c, sint x) { return x.sym != NULL ? x.sym : suop_const(c, SDT_INT, x.i); }

/* View.to_indexed_uops (0.10.0 / 0.10.2). Shapes, strides and mask bounds may be UOps (in c, the capture's
 * context then): `resolve(sh != 1) and resolve(st != 0)`, `resolve(m[0] != 0)`, `resolve(m[1] != sh)`. */
static void view_to_indexed_uops(SymCtx *c, const View *vw, const SymUOp *const *idxs, const SymUOp *vexpr, const SymUOp **idx_out,
                                 const SymUOp **valid_out) {
  const sint S0 = sint_int(0), S1 = sint_int(1);
  const SymUOp *iexpr = sint_uop(c, vw->offset);
  for (int i = 0; i < vw->ndim; i++) {
    sint sh = vw->shape[i], st = vw->strides[i];
    if (sint_resolve(SINT_NE, sh, S1, true) && sint_resolve(SINT_NE, st, S0, true))
      iexpr = suop_add(c, iexpr, suop_mul(c, idxs[i], sint_uop(c, st)));
    if (vw->mask != NULL) {
      if (sint_resolve(SINT_NE, vw->mask[i].b, S0, true)) vexpr = suop_mul(c, vexpr, suop_ge(c, idxs[i], sint_uop(c, vw->mask[i].b)));
      if (sint_resolve(SINT_NE, vw->mask[i].e, sh, true)) vexpr = suop_mul(c, vexpr, suop_lt(c, idxs[i], sint_uop(c, vw->mask[i].e)));
    }
  }
  *idx_out = iexpr;
  *valid_out = vexpr;
}

/* ShapeTracker.to_indexed_uops (0.10.0) / views_to_indexed_uops (0.10.2) */
static void views_to_indexed_uops(Arena *a, TgVersion v, SymCtx *c, const ShapeTracker *st, const SymUOp **idx, const SymUOp **valid) {
  const View *last = st_last(st);
  int n = last->ndim;
  const SymUOp *ranges[n > 0 ? n : 1];
  for (int i = 0; i < n; i++) ranges[i] = suop_range_to(c, sint_uop(c, last->shape[i]), i); /* UOp.range(dtypes.int, 0, s, i) */
  view_to_indexed_uops(c, last, ranges, suop_const(c, SDT_BOOL, 1), idx, valid);
  for (int k = st->nviews - 2; k >= 0; k--) {
    const View *vw = view_minify(a, v, st->views[k]);
    int m = vw->ndim;
    const SymUOp *sub[m > 0 ? m : 1];
    sint acc = sint_int(1);
    for (int i = m - 1; i >= 0; i--) { /* (idx//acc)%d, from the last dimension (unravel in 0.10.2) */
      sub[i] = suop_mod(c, suop_idiv(c, *idx, sint_uop(c, acc)), sint_uop(c, vw->shape[i]));
      acc = sint_mul(acc, vw->shape[i]);
    }
    view_to_indexed_uops(c, vw, sub, *valid, idx, valid);
  }
}

/* ShapeTracker.real_strides (0.10.0) / views_to_real_strides (0.10.2) */
static void real_strides_010(Arena *a, TgVersion v, const ShapeTracker *st, bool ignore_valid, sint *out, bool *is_none) {
  /* in the capture's symbolic context when there is one, always or when a view is symbolic (symbolic
   * views live there) */
  bool any_symbolic = false;
  for (int k = 0; k < st->nviews; k++) any_symbolic = any_symbolic || view_is_symbolic(st->views[k]);
  bool shared = (tg_features(v)->add_merge_in_context || any_symbolic) && sym_uop_ctx() != NULL;
  SymCtx *c = shared ? sym_uop_ctx() : symctx_new(a, v);
  const SymUOp *idx, *valid;
  views_to_indexed_uops(a, v, c, st, &idx, &valid);
  idx = suop_rewrite_flat(c, idx);
  valid = suop_rewrite_flat(c, valid);
  const SymUOp *newvalid = sym_simplify_valid(c, valid);
  if (newvalid != NULL) valid = newvalid;
  const SymUOp *newidx = sym_uop_given_valid(c, valid, idx);
  if (newidx != NULL) idx = suop_rewrite_flat(c, newidx);
  int n = st_ndim(st);
  for (int i = 0; i < n; i++) is_none[i] = true;
  const SymUOp **terms;
  int nterms = suop_split(c, idx, SU_ADD, &terms);
  for (int k = 0; k < nterms; k++) {
    const SymUOp *t = terms[k];
    if (t->op == SU_RANGE) {
      out[t->arg] = sint_int(1);
      is_none[t->arg] = false;
    }
    if (t->op == SU_MUL && t->src[0]->op == SU_RANGE && t->src[1]->op == SU_CONST) {
      out[t->src[0]->arg] = sint_int(t->src[1]->arg);
      is_none[t->src[0]->arg] = false;
    }
    if (t->op == SU_MUL && t->src[1]->op == SU_RANGE && t->src[0]->op == SU_CONST) {
      out[t->src[1]->arg] = sint_int(t->src[0]->arg);
      is_none[t->src[1]->arg] = false;
    }
  }
  bool used[n > 0 ? n : 1], masked[n > 0 ? n : 1];
  memset(used, 0, sizeof used);
  memset(masked, 0, sizeof masked);
  const SymUOp **nodes;
  int nn = suop_toposort(c, idx, &nodes);
  for (int k = 0; k < nn; k++)
    if (nodes[k]->op == SU_RANGE) used[nodes[k]->arg] = true;
  nn = suop_toposort(c, valid, &nodes);
  for (int k = 0; k < nn; k++)
    if (nodes[k]->op == SU_RANGE) masked[nodes[k]->arg] = true;
  for (int i = 0; i < n; i++) {
    if (!used[i]) {
      out[i] = sint_int(0);
      is_none[i] = false;
    }
    if (!ignore_valid && masked[i]) is_none[i] = true;
  }
}

/* ShapeTracker.real_strides: NOTE: if a stride is not always valid, it will be None */
void st_real_strides(Arena *a, TgVersion v, const ShapeTracker *st, bool ignore_valid, sint *out, bool *is_none) {
  const View *last = st_last(st);
  if (st->nviews == 1 && last->mask == NULL) {
    for (int i = 0; i < last->ndim; i++) {
      out[i] = last->strides[i];
      is_none[i] = false;
    }
  } else if (tg_features(v)->symbolic == SYM_NODE) {
    real_strides_091(a, v, st, ignore_valid, out, is_none);
  } else {
    real_strides_010(a, v, st, ignore_valid, out, is_none);
  }
}

/* ShapeTracker.unit_stride_axes */
int st_unit_stride_axes(Arena *a, TgVersion v, const ShapeTracker *st, bool ignore_valid, int *axes) {
  int n = st_ndim(st), cnt = 0;
  sint strides[n > 0 ? n : 1];
  bool is_none[n > 0 ? n : 1];
  st_real_strides(a, v, st, ignore_valid, strides, is_none);
  for (int i = 0; i < n; i++)
    if (!is_none[i] && sint_eq(strides[i], sint_int(1))) axes[cnt++] = i;
  return cnt;
}

/* ------------------------------------------------------------------ vars, unbind (0.9.1; 0.10.x below) */

/* View.vars(): shape + strides + (offset,) + flattened mask */
static void view_vars(const View *vw, sint *out, int *n, int cap) {
  for (int i = 0; i < vw->ndim; i++) sint_vars(vw->shape[i], out, n, cap);
  for (int i = 0; i < vw->ndim; i++) sint_vars(vw->strides[i], out, n, cap);
  sint_vars(vw->offset, out, n, cap);
  for (int i = 0; vw->mask != NULL && i < vw->ndim; i++) {
    sint_vars(vw->mask[i].b, out, n, cap);
    sint_vars(vw->mask[i].e, out, n, cap);
  }
}

int st_vars(const ShapeTracker *st, sint *out, int cap) {
  int n = 0;
  for (int k = 0; k < st->nviews; k++)
    if (view_is_symbolic(st->views[k])) view_vars(st->views[k], out, &n, cap);
  return n;
}

/* View.unbind's tail: View.create of the view with every sint substituted by its unbound form */
static const View *view_create_unbound(Arena *a, TgVersion v, const View *vw) {
  int n = vw->ndim;
  sint shape[n > 0 ? n : 1], strides[n > 0 ? n : 1];
  SPair mask[n > 0 ? n : 1];
  for (int i = 0; i < n; i++) {
    shape[i] = sint_unbind(vw->shape[i]);
    strides[i] = sint_unbind(vw->strides[i]);
    if (vw->mask != NULL) mask[i] = (SPair){sint_unbind(vw->mask[i].b), sint_unbind(vw->mask[i].e)};
  }
  sint offset = sint_unbind(vw->offset);
  return view_create(a, v, n, shape, strides, offset, vw->mask != NULL ? mask : NULL);
}

/* View.unbind (0.9.1) */
static const View *view_unbind_091(Arena *a, TgVersion v, const View *vw, sint *vars, int64_t *vals, int cap, int *nvars) {
  sint vs[64];
  int nv = 0;
  view_vars(vw, vs, &nv, 64);
  for (int k = 0; k < nv; k++) { /* `if v.val is not None`: the val property asserts it is bound */
    const SymNode *x = vs[k].sym;
    if (!x->bound)
      error_raise("AssertionError", "Variable isn't bound, can't access val of %s", sint_str(a, vs[k]));
  }
  for (int k = 0; k < nv; k++) { /* the dict of unbound Variable -> val, merged into the caller's */
    sint u = sint_unbind(vs[k]);
    int j = 0;
    while (j < *nvars && !sint_eq(vars[j], u)) j++;
    if (j == *nvars) {
      if (*nvars == cap) error_unsupported("symbolic: too many variables");
      vars[(*nvars)++] = u;
    }
    vals[j] = ((const SymNode *)vs[k].sym)->val;
  }
  return view_create_unbound(a, v, vw);
}

/* Adds var: val to the (vars, vals) dict; merge_dicts asserts that a Variable has one value. */
static void put_var_val(sint var, int64_t val, sint *vars, int64_t *vals, int cap, int *nvars) {
  int j = 0;
  while (j < *nvars && !sint_eq(vars[j], var)) j++;
  if (j < *nvars && vals[j] != val) error_unsupported("symbolic: a Variable bound to two values (merge_dicts)");
  if (j == *nvars) {
    if (*nvars == cap) error_unsupported("symbolic: too many variables");
    vars[(*nvars)++] = var;
  }
  vals[j] = val;
}

/* View.unbind (0.10.0, 0.10.2): every Variable of the view unbound (an unbound one is an AssertionError of
 * UOp.unbind), each sint substituted, then View.create */
static const View *view_unbind_010(Arena *a, TgVersion v, const View *vw, sint *vars, int64_t *vals, int cap, int *nvars) {
  sint vs[64];
  int nv = 0;
  view_vars(vw, vs, &nv, 64);
  SymCtx *c = sym_uop_ctx();
  for (int k = 0; k < nv; k++) {
    const SymUOp *var;
    int64_t val;
    suop_unbind(c, vs[k].sym, &var, &val);
    sint u = {0, var};
    put_var_val(u, val, vars, vals, cap, nvars);
  }
  return view_create_unbound(a, v, vw);
}

const ShapeTracker *st_unbind(Arena *a, TgVersion v, const ShapeTracker *st, sint *vars, int64_t *vals, int cap, int *nvars) {
  *nvars = 0;
  bool any = false;
  for (int k = 0; k < st->nviews && !any; k++) any = view_is_symbolic(st->views[k]);
  if (!any) return st;
  switch (tg_features(v)->symbolic) {
    case SYM_NODE: {
      const View *views[st->nviews];
      for (int k = 0; k < st->nviews; k++) {
        const View *vw = st->views[k];
        views[k] = view_is_symbolic(vw) ? view_unbind_091(a, v, vw, vars, vals, cap, nvars) : vw;
      }
      return st_new(a, st->nviews, views);
    }
    /* ---- 0.10.x: ShapeTracker.unbind, View.unbind per view, the dicts merged */
    case SYM_UOP:
    default: {
      const View *views[st->nviews];
      for (int k = 0; k < st->nviews; k++) {
        const View *vw = st->views[k];
        views[k] = view_is_symbolic(vw) ? view_unbind_010(a, v, vw, vars, vals, cap, nvars) : vw;
      }
      return st_new(a, st->nviews, views);
    }
  }
}

/* ------------------------------------------------------------------ JSON (capture-format.md section 2) */

static void sints_from_json(Arena *a, const JVal *j, int n, sint *out) {
  for (int i = 0; i < n; i++) out[i] = sint_from_json(a, j->u.arr[i]);
}

/* VIEW = {"shape": [sint], "strides": [sint], "offset": sint, "mask": null | [[sint, sint], ...], "contiguous": bool} */
const View *view_from_json(Arena *a, const JVal *j) {
  const JVal *shape = json_get(j, "shape"), *strides = json_get(j, "strides"), *offset = json_get(j, "offset");
  const JVal *mask = json_get(j, "mask"), *contiguous = json_get(j, "contiguous");
  if (!shape || shape->kind != J_ARR || !strides || strides->kind != J_ARR || strides->n != shape->n || !offset || !mask ||
      !contiguous || contiguous->kind != J_BOOL)
    error_bad_input("ShapeTracker: malformed VIEW");
  int n = (int)shape->n;
  sint sh[n > 0 ? n : 1], st[n > 0 ? n : 1];
  sints_from_json(a, shape, n, sh);
  sints_from_json(a, strides, n, st);
  sint off = sint_from_json(a, offset);
  SPair m[n > 0 ? n : 1];
  if (mask->kind != J_NULL) {
    if (mask->kind != J_ARR || (int)mask->n != n) error_bad_input("ShapeTracker: malformed mask");
    for (int i = 0; i < n; i++) {
      const JVal *p = mask->u.arr[i];
      if (p->kind != J_ARR || p->n != 2) error_bad_input("ShapeTracker: malformed mask");
      m[i].b = sint_from_json(a, p->u.arr[0]);
      m[i].e = sint_from_json(a, p->u.arr[1]);
    }
  }
  return view_new(a, n, sh, st, off, mask->kind != J_NULL ? m : NULL, contiguous->u.b);
}

/* ST = {"views": [VIEW, ...]} */
const ShapeTracker *st_from_json(Arena *a, const JVal *j) {
  const JVal *views = json_get(j, "views");
  if (!views || views->kind != J_ARR || views->n == 0) error_bad_input("ShapeTracker: expected {\"views\": [VIEW, ...]}");
  int n = (int)views->n;
  const View *vs[n];
  for (int i = 0; i < n; i++) vs[i] = view_from_json(a, views->u.arr[i]);
  return st_new(a, n, vs);
}

static JVal *sints_to_json(Arena *a, int n, const sint *xs) {
  JVal *arr = json_arr_n(a, (size_t)n);
  for (int i = 0; i < n; i++) arr->u.arr[i] = sint_to_json(a, xs[i]);
  return arr;
}

/* (finished objects, shared small ints: a result's Views are only read) */
JVal *view_to_json(Arena *a, const View *vw) {
  JVal *mask = json_null_shared();
  if (vw->mask != NULL) {
    mask = json_arr_n(a, (size_t)vw->ndim);
    for (int i = 0; i < vw->ndim; i++) {
      JVal *p = json_arr_n(a, 2);
      p->u.arr[0] = sint_to_json(a, vw->mask[i].b);
      p->u.arr[1] = sint_to_json(a, vw->mask[i].e);
      mask->u.arr[i] = p;
    }
  }
  static const char *const keys[5] = {"shape", "strides", "offset", "mask", "contiguous"};
  JVal *vals[5] = {sints_to_json(a, vw->ndim, vw->shape), sints_to_json(a, vw->ndim, vw->strides),
                   sint_to_json(a, vw->offset), mask, json_bool_shared(vw->contiguous)};
  return json_obj_fixed(a, 5, keys, vals);
}

JVal *st_to_json(Arena *a, const ShapeTracker *st) {
  JVal *views = json_arr_n(a, (size_t)st->nviews);
  for (int i = 0; i < st->nviews; i++) views->u.arr[i] = view_to_json(a, st->views[i]);
  static const char *const keys[1] = {"views"};
  return json_obj_fixed(a, 1, keys, &views);
}

typedef struct Decode { Arena *a; const JVal *j; const ShapeTracker *st; } Decode;

static void decode_protected(void *ud) {
  Decode *d = ud;
  d->st = st_from_json(d->a, d->j);
}

const ShapeTracker *st_decode_status(Arena *a, const JVal *j, Status *status) {
  Decode d = {a, j, NULL};
  Status raised;
  if (error_protect(&raised, decode_protected, &d)) return d.st;
  *status = raised;
  return NULL;
}
