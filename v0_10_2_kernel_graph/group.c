/* group.c — which tensor UOps become kernel outputs, tinygrad 0.10.2
 * engine/schedule.py: do_realize, create_ctx, realize_before_view, can_pad,
 * recursive_group and group_realizes. The recursive Python functions are
 * loops over explicit stacks visiting in the same order. */
#include <string.h>
#include "passes.h"

static bool in_map(const OMap *m, const UOp *u) { return omap_has(m, omap_ptr(u)); }
static void realize(KG *k, GrouperContext *ctx, const UOp *u) { v0_10_2_idset_add(k->a, &ctx->realizes, u); }

/* ctx.children[u] (a dict UOp -> None); NULL when u has none yet */
static UList *children_of(GrouperContext *ctx, const UOp *u) { return v0_10_2_idmap_get(&ctx->children, u); }
static size_t nchildren(GrouperContext *ctx, const UOp *u) {
  UList *ch = children_of(ctx, u);
  return ch ? ch->n : 0;
}

/* ops.py can_pad: False when an unsafe-pad op is reachable from u without passing an edge */
bool v0_10_2_can_pad(
    const KG *k, Arena *tmp, const UOp *u, bool (*is_edge)(const UOp *x, const void *edges), const void *edges) {
  OMap cache;
  omap_init(&cache, tmp);
  size_t cap = 64, n = 0;
  const UOp **stack = arena_array(tmp, cap, sizeof *stack);
  stack[n++] = u;
  while (n) {
    const UOp *x = stack[--n];
    if (op_in(&k->groups, GROUP_UNSAFE_PAD, x->op)) return false;
    if (is_edge(x, edges) || in_map(&cache, x)) continue;
    omap_put(&cache, omap_ptr(x), (void *)1);
    for (uint32_t i = x->nsrc; i-- > 0;) {
      if (n == cap) stack = arena_grow(tmp, stack, n, &cap, sizeof *stack);
      stack[n++] = v0_10_2_uop_base(k, x->src[i]);
    }
  }
  return true;
}

/* 0.10.2's edges: the realized UOps (`u in edges`) */
static bool is_realized_uop(const UOp *x, const void *realizes) { return v0_10_2_idset_has(realizes, x); }

/* ---------------------------------------------------------------- do_realize + create_ctx */

/* a0b4465 schedule.py DONT_PUSH_VIEWS */
static bool dont_push_view(Op op) {
  switch (op) {
    case OP_BUFFER: case OP_CONST: case OP_BIND: case OP_DEVICE: case OP_ASSIGN: case OP_SINK: case OP_CONTIGUOUS: case OP_COPY: return true;
    default: return false;
  }
}

/* always realize SINK parents (a0b4465: each src not in DONT_PUSH_VIEWS, not its base) */
static const UOp *do_realize_sink(void *c, const UOp *s) {
  KG *k = c;
  GrouperContext *ctx = k->pass;
  for (uint32_t i = 0; i < s->nsrc; i++) {
    const UOp *b = k->f->dont_push_views ? s->src[i] : v0_10_2_uop_base(k, s->src[i]);
    if (k->f->dont_push_views ? dont_push_view(b->op) : (b->op == OP_CONST || b->op == OP_BIND || b->op == OP_BUFFER)) continue;
    if (k->ex) v0_10_2_explain_realize(k, &ctx->realizes, b, WHY_OUTPUT, NULL);
    realize(k, ctx, b);
  }
  return NULL;
}

/* always realize ASSIGN/CONTIGUOUS/COPY/BUFFER_VIEW */
static const UOp *do_realize_always(void *c, const UOp *tr) {
  KG *k = c;
  GrouperContext *ctx = k->pass;
  if (k->ex) v0_10_2_explain_always(k, &ctx->realizes, tr);
  realize(k, ctx, tr);
  return NULL;
}

/* realize(ctx, src) in realize_before_view, telling explain why */
static void realize_before(KG *k, GrouperContext *ctx, const UOp *src, const UOp *view, ExplainReason why) {
  if (k->ex) v0_10_2_explain_view(k, &ctx->realizes, src, view, why);
  realize(k, ctx, src);
}

/* a0b4465 schedule.py realize_before_view: unsafe pads first, then simple pads fold, then expands realize */
static const UOp *realize_before_view_a0b4465(KG *k, GrouperContext *ctx, const UOp *view, const UOp *tr) {
  if (dont_push_view(tr->op)) return NULL;
  const ST *st = v0_10_2_uop_st_unwrap(k, view);
  StCtx *sc = &k->stc;
  bool masked = false;
  for (int i = 0; i < st->nviews; i++) masked |= st->views[i]->mask != NULL;
  /* always realize unsafe pad ops before masked view */
  if (masked && !v0_10_2_can_pad(k, ctx->tmp, tr, is_realized_uop, &ctx->realizes)) {
    realize_before(k, ctx, tr, view, WHY_UNSAFE_PAD);
    return NULL;
  }
  uint32_t n;
  const sint *tshape = v0_10_2_uop_shape(k, tr, &n);
  sint tprod = v0_10_2_sint_prod(sc, n, tshape);
  const View *last = st_last(st);
  /* fold simple pads */
  if (st->nviews == 1 && last->mask && v0_10_2_sint_all_int(n, tshape)) {
    sint sizes[ST_MAXDIM];
    for (int i = 0; i < last->ndim; i++) sizes[i] = v0_10_2_sint_sub(sc, last->mask[i].e, last->mask[i].b);
    if (v0_10_2_sint_resolve_ge(sc, tprod, v0_10_2_sint_prod(sc, (uint32_t)last->ndim, sizes), true)) return NULL;
  }
  /* realize before expand */
  if (v0_10_2_sint_resolve_lt(sc, tprod, v0_10_2_sint_prod(sc, v0_10_2_st_ndim(st), st_shape(st)), true) &&
      !k->dont_realize_expand)
    realize_before(k, ctx, tr, view, WHY_EXPAND);
  return NULL;
}

/* schedule.py realize_before_view: realize before expand or unsafe pad ops */
static const UOp *realize_before_view(void *c, const UOp *view) {
  KG *k = c;
  GrouperContext *ctx = k->pass;
  if (view->nsrc != 1) return NULL;
  const UOp *src = view->src[0];
  if (k->f->dont_push_views) return realize_before_view_a0b4465(k, ctx, view, src);
  if (src->op == OP_BUFFER || src->op == OP_CONST || src->op == OP_DEVICE) return NULL;
  const ST *st = v0_10_2_uop_st_unwrap(k, view);
  StCtx *sc = &k->stc;
  uint32_t n;
  const sint *sshape = v0_10_2_uop_shape(k, src, &n);
  sint sprod = v0_10_2_sint_prod(sc, n, sshape);
  const View *last = st_last(st);
  /* fold simple pads: all_int(src.shape) and resolve(prod(src.shape) >= prod([y-x for x,y in m])) */
  if (st->nviews == 1 && last->mask && v0_10_2_sint_all_int(n, sshape)) {
    sint sizes[ST_MAXDIM];
    for (int i = 0; i < last->ndim; i++) sizes[i] = v0_10_2_sint_sub(sc, last->mask[i].e, last->mask[i].b);
    if (v0_10_2_sint_resolve_ge(sc, sprod, v0_10_2_sint_prod(sc, (uint32_t)last->ndim, sizes), true)) {
      if (!v0_10_2_can_pad(k, ctx->tmp, src, is_realized_uop, &ctx->realizes))
        realize_before(k, ctx, src, view, WHY_UNSAFE_PAD);
      return NULL;
    }
  }
  /* early realize before expand: resolve(prod(src.shape) < prod(st.shape)) */
  if (v0_10_2_sint_resolve_lt(sc, sprod, v0_10_2_sint_prod(sc, v0_10_2_st_ndim(st), st_shape(st)), true) &&
      !k->dont_realize_expand) {
    realize_before(k, ctx, src, view, WHY_EXPAND);
    return NULL;
  }
  bool unmasked = true;
  for (int i = 0; i < st->nviews; i++) unmasked &= st->views[i]->mask == NULL;
  if (!unmasked && !v0_10_2_can_pad(k, ctx->tmp, src, is_realized_uop, &ctx->realizes))
    realize_before(k, ctx, src, view, WHY_UNSAFE_PAD);
  return NULL;
}

/* realize before COPY */
static const UOp *do_realize_before_copy(void *c, const UOp *copy) {
  KG *k = c;
  if (copy->nsrc != 2) return NULL;
  const UOp *tr = copy->src[1];
  if (k->f->dont_push_views ? dont_push_view(tr->op) : (tr->op == OP_BUFFER || tr->op == OP_VIEW)) return NULL;
  GrouperContext *ctx = k->pass;
  if (k->ex) v0_10_2_explain_copy_src(k, &ctx->realizes, tr, copy);
  realize(k, ctx, tr);
  return NULL;
}

/* schedule.py append_uop */
static const UOp *append_uop(void *c, const UOp *u) {
  KG *k = c;
  GrouperContext *ctx = k->pass;
  if (u->op == OP_SINK || u->op == OP_VIEW) return NULL;
  if (u->op == OP_ASSIGN) omap_put(&ctx->assigns, omap_ptr(v0_10_2_uop_buf_uop(k, u)), (void *)u);
  for (uint32_t i = 0; i < u->nsrc; i++) {
    /* ctx.children[s.base][u] = None: u's sources are all seen here, so u is
     * already there exactly when it is the last child added */
    UList *ch = v0_10_2_ulist_of(ctx->tmp, &ctx->children, v0_10_2_uop_base(k, u->src[i]));
    if (!ch->n || ch->items[ch->n - 1] != u) v0_10_2_ulist_push(ctx->tmp, ch, u);
  }
  return NULL;
}

static const Rule do_realize_rules[] = {
    {{OP_SINK}, do_realize_sink, "realize SINK parents", {{[TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 105}, [TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 137}}}},
    {{OP_ASSIGN, OP_CONTIGUOUS, OP_COPY, OP_BUFFER_VIEW}, do_realize_always,
        "realize ASSIGN/CONTIGUOUS/COPY/BUFFER_VIEW", {{[TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 107}, [TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 139}}}},
    {{OP_VIEW}, realize_before_view, "realize_before_view", {{[TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 109}, [TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 141}}}},
    {{OP_COPY}, do_realize_before_copy, "realize before COPY", {{[TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 111}, [TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 143}}}},
    {{OP_NONE}, append_uop, "create_ctx append_uop", {{[TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 135}, [TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 149}}}},
};
static const PatternMatcher pm_do_realize_create_ctx = {do_realize_rules, sizeof do_realize_rules / sizeof *do_realize_rules};

/* ---------------------------------------------------------------- recursive_group */

/* dedup(unwrap(x.st) for x in tr_next.src if x.base is tr): the count and the first */
static size_t child_sts(KG *k, const UOp *tr_next, const UOp *tr, const ST **first) {
  size_t n = 0;
  *first = NULL;
  for (uint32_t i = 0; i < tr_next->nsrc; i++) {
    const UOp *x = tr_next->src[i];
    if (v0_10_2_uop_base(k, x) != tr) continue;
    const ST *s = v0_10_2_uop_st_unwrap(k, x);
    if (!*first) *first = s, n = 1;
    else if (s != *first) n = 2;
  }
  return n;
}

typedef struct {
  const UOp *r;
  IdSet *realizes;
  OMap *reduce_for_op, *group, cache;  /* cache: tr -> OMap of st */
  GrouperContext *ctx;
  const char *why;                      /* for explain: what first put r in its group */
} GroupWalk;

/* group.setdefault(r): r cannot fuse into its children (why: for explain) */
static void group_add_reduce(GroupWalk *w, const char *why) {
  if (why && !w->why && !omap_has(w->group, omap_ptr(w->r))) w->why = why;
  omap_setdefault(w->group, omap_ptr(w->r), (void *)w->r);
}

/* why realized tr, seen through st, cannot take reduce r into its kernel */
static const char *realized_child_why(KG *k, GroupWalk *w, const UOp *tr, const ST *st, int64_t rsize) {
  const UOp *other = omap_get(w->reduce_for_op, omap_ptr(tr));
  return v0_10_2_explain_realized_child_why(
      k, v0_10_2_explain_name(k, tr), st, rsize, other ? v0_10_2_explain_name(k, other) : NULL);
}

/* why child tr_next of tr (the reduce or a UOp fused with it) stops the group */
static const char *unfusable_child_why(KG *k, GroupWalk *w, const UOp *tr, const UOp *tr_next) {
  return v0_10_2_explain_unfusable_child_why(k, v0_10_2_explain_name(k, tr_next),
      tr == w->r ? NULL : v0_10_2_explain_name(k, tr), tr_next->op == OP_REDUCE_AXIS);
}

static void group_add(KG *k, OMap *group, const UOp *u) { (void)k; omap_setdefault(group, omap_ptr(u), (void *)u); }

/* recursive_group's cache.setdefault((tr, st)) (cache: tr -> OMap of st, in a); true when it was there */
bool v0_10_2_group_cache_seen(Arena *a, OMap *cache, const UOp *tr, const ST *st) {
  OMap *sts = omap_get(cache, omap_ptr(tr));
  if (!sts) {
    sts = arena_alloc(a, sizeof *sts);
    omap_init(sts, a);
    omap_put(cache, omap_ptr(tr), sts);
  }
  if (omap_has(sts, omap_ptr(st))) return true;
  omap_put(sts, omap_ptr(st), (void *)1);
  return false;
}

/* schedule.py recursive_group */
static void recursive_group(KG *k, GroupWalk *w, const UOp *tr0, const ST *st0) {
  typedef struct { const UOp *tr; const ST *st; size_t pos; } Frame;
  size_t cap = 64, depth = 0;
  Frame *stack = arena_array(w->ctx->tmp, cap, sizeof *stack);
  int64_t rsize = v0_10_2_st_size(v0_10_2_uop_st_unwrap(k, w->r));
  stack[depth++] = (Frame){tr0, st0, 0};
  bool entering = true;
  while (depth) {
    Frame *f = &stack[depth - 1];
    if (entering) {
      entering = false;
      if (v0_10_2_group_cache_seen(w->ctx->tmp, &w->cache, f->tr, f->st)) { depth--; continue; }
      if (v0_10_2_idset_has(w->realizes, f->tr) && f->tr != w->r) {
        if (!st_contiguous(f->st) || v0_10_2_st_size(f->st) != rsize || in_map(w->reduce_for_op, f->tr))
          group_add_reduce(w, k->ex ? realized_child_why(k, w, f->tr, f->st, rsize) : NULL);
        group_add(k, w->group, f->tr);
        depth--;
        continue;
      }
    }
    UList *ch = children_of(w->ctx, f->tr);
    if (!ch || f->pos == ch->n) { depth--; continue; }
    const UOp *tr_next = ch->items[f->pos++];
    const ST *first;
    if (tr_next->op == OP_REDUCE_AXIS || child_sts(k, tr_next, f->tr, &first) > 1) {
      group_add_reduce(w, k->ex ? unfusable_child_why(k, w, f->tr, tr_next) : NULL);
      depth--;
      continue;
    }
    const ST *nst = v0_10_2_st_add(&k->stc, f->st, first);
    if (depth == cap) stack = arena_grow(w->ctx->tmp, stack, depth, &cap, sizeof *stack);
    stack[depth++] = (Frame){tr_next, nst, 0};
    entering = true;
  }
}

/* can only fuse assign if no other assign_target is used in the kernel */
static bool other_assign_used(KG *k, GrouperContext *ctx, const UOp *r, OMap *group, const char **why) {
  OMap seen;
  omap_init(&seen, ctx->tmp);
  size_t cap = 64, n = 0;
  const UOp **stack = arena_array(ctx->tmp, cap, sizeof *stack);
  stack[n++] = r;
  uint64_t key;
  for (size_t pos = 0; omap_next(group, &pos, &key, NULL);) {
    if (n == cap) stack = arena_grow(ctx->tmp, stack, n, &cap, sizeof *stack);
    stack[n++] = (const UOp *)(uintptr_t)key;
  }
  while (n) {
    const UOp *p = v0_10_2_uop_base(k, stack[--n]);
    if (in_map(&seen, p)) continue;
    omap_put(&seen, omap_ptr(p), (void *)1);
    const UOp *assign = omap_get(&ctx->assigns, omap_ptr(p));
    if (assign && !in_map(group, assign)) {
      if (k->ex)
        *why = arena_printf(
            k->a, "its kernel would read the buffer %s assigns to, in another kernel", v0_10_2_explain_name(k, assign));
      return true;
    }
    if (v0_10_2_idset_has(&ctx->realizes, p)) continue;
    for (uint32_t i = 0; i < p->nsrc; i++) {
      if (n == cap) stack = arena_grow(ctx->tmp, stack, n, &cap, sizeof *stack);
      stack[n++] = p->src[i];
    }
  }
  return false;
}

/* the chase down to contiguous children of a forced realize */
static const UOp *chase(KG *k, GrouperContext *ctx, const UOp *tr) {
  const ST *st = v0_10_2_uop_st_unwrap(k, tr);
  for (;;) {
    if (nchildren(ctx, tr) != 1) break;
    const UOp *tr_next = children_of(ctx, tr)->items[0];
    const ST *first;
    if (child_sts(k, tr_next, tr, &first) > 1) break;
    if (v0_10_2_st_size(st) != v0_10_2_st_size(first)) break;
    st = v0_10_2_st_add(&k->stc, st, first);
    if (!st_contiguous(st) || tr_next->op == OP_REDUCE_AXIS) break;
    tr = tr_next;
  }
  return tr;
}

_Noreturn static void key_error(KG *k, const UOp *u) { error_raise("KeyError", "%s", v0_10_2_uop_repr_line(k, u)); }

/* schedule.py group_realizes */
void v0_10_2_group_realizes(KG *k, const UOp *sink, GrouperContext *ctx) {
  Arena *tmp = ctx->tmp = arena_scratch_begin(&k->scratch);
  omap_init(&ctx->assigns, tmp);
  ctx->realizes = (IdSet){0};
  ctx->children = (IdMap){0};
  /* graph_rewrite(sink, do_realize+create_ctx, ctx): no rule returns a
   * node, so the rewrite is a post-order walk that runs the rules of each
   * node once, sources first, and gives back the sink */
  static const PyLoc at = {{[TG_0_10_2] = {V0_10_2_SCHEDULE_PY, 139}, [TG_0_10_2_A0B4465] = {V0_10_2_SCHEDULE_PY, 171}}};
  if (k->in->trace) rewrite_trace_call(k->in->trace, &at, sink, false);
  void *saved = k->pass;
  k->pass = ctx;
  const UOp **walk;
  size_t nwalk = v0_10_2_toposort(k, sink, &walk);
  for (size_t i = 0; i < nwalk; i++) pm_rewrite(&pm_do_realize_create_ctx, k, walk[i]);
  k->pass = saved;
  if (k->dont_group_reduces) { /* a0b4465: if DONT_GROUP_REDUCES: return ctx.realizes */
    arena_scratch_end(&k->scratch, tmp);
    ctx->tmp = NULL;
    ctx->children = (IdMap){0};
    omap_init(&ctx->assigns, k->a);
    return;
  }

  OMap reduce_for_op;
  omap_init(&reduce_for_op, tmp);
  const UOp **double_reduces = NULL, **order;
  size_t ndouble = 0, n = v0_10_2_toposort(k, sink, &order);
  /* each reduce's group, walk cache and stacks, forgotten after it */
  Arena *per = ctx->tmp = arena_scratch_begin(&k->scratch);
  ArenaMark start = arena_mark(per);
  for (size_t i = 0; i < n; i++) {
    const UOp *r = order[i];
    if (r->op != OP_REDUCE_AXIS) continue;
    if (k->fuse_conv_bw && v0_10_2_uop_base(k, r->src[0])->op == OP_REDUCE_AXIS &&
        r->src[0] != v0_10_2_uop_base(k, r->src[0])) {
      if (!double_reduces) double_reduces = arena_array(tmp, n, sizeof *double_reduces);
      double_reduces[ndouble++] = r;
    }
    if (v0_10_2_idset_has(&ctx->realizes, r)) continue;
    arena_rewind(per, start);
    OMap *group = arena_alloc(per, sizeof *group);
    omap_init(group, per);
    GroupWalk w = {r, &ctx->realizes, &reduce_for_op, group, {0}, ctx, NULL};
    omap_init(&w.cache, per);
    recursive_group(k, &w, r, v0_10_2_uop_st_unwrap(k, r));
    uint64_t key;
    bool can_chase = true;
    for (size_t pos = 0; omap_next(group, &pos, &key, NULL);)
      if (omap_has(&reduce_for_op, key)) can_chase = false;
    bool forced_realize = in_map(group, r);
    if (!forced_realize && omap_len(group) > 1) {   /* can only have one output */
      forced_realize = true;
      if (k->ex) w.why = v0_10_2_explain_several_outputs_why(k, group, v0_10_2_explain_name);
    }
    if (!forced_realize) {
      bool any_assign = false;
      for (size_t pos = 0; omap_next(group, &pos, &key, NULL);)
        any_assign |= ((const UOp *)(uintptr_t)key)->op == OP_ASSIGN;
      if (any_assign && other_assign_used(k, ctx, r, group, &w.why)) forced_realize = true, can_chase = false;
    }
    if (forced_realize || omap_len(group) == 0) {
      const UOp *tr = r;
      if (can_chase) {
        tr = chase(k, ctx, tr);
        /* don't cast to higher size before store (tr cannot be realized if forced_realize) */
        if (tr->op == OP_CAST && tr->dtype->itemsize > tr->src[0]->dtype->itemsize)
          tr = v0_10_2_uop_base(k, tr->src[0]);
      }
      omap_init(group, per);
      omap_put(group, omap_ptr(tr), (void *)tr);
      if (k->ex) v0_10_2_explain_reduce(k, &ctx->realizes, tr, r, w.why);
      realize(k, ctx, tr);
    }
    for (size_t pos = 0; omap_next(group, &pos, &key, NULL);) omap_put(&reduce_for_op, key, (void *)r);
    if (k->fuse_arange && v0_10_2_reduce_op_of(k, r) == OP_ADD && v0_10_2_uop_base(k, r->src[0])->op == OP_CONST) {
      /* maybe fuse arange with its children */
      bool has_children = false;
      for (size_t pos = 0; omap_next(group, &pos, &key, NULL);) has_children |= nchildren(ctx, (const UOp *)(uintptr_t)key) != 0;
      if (has_children)
        for (size_t pos = 0; omap_next(group, &pos, &key, NULL);)
          if (!v0_10_2_idset_del(&ctx->realizes, (const UOp *)(uintptr_t)key))
            key_error(k, (const UOp *)(uintptr_t)key);
    }
  }
  /* fuse double reduces with no other child */
  for (size_t i = 0; i < ndouble; i++) {
    const UOp *top_reduce = v0_10_2_uop_base(k, double_reduces[i]->src[0]);
    if (nchildren(ctx, top_reduce) == 1 && !v0_10_2_idset_del(&ctx->realizes, top_reduce)) key_error(k, top_reduce);
  }
  arena_scratch_end(&k->scratch, per);
  arena_scratch_end(&k->scratch, tmp);
  ctx->tmp = NULL;
  ctx->children = (IdMap){0};
  omap_init(&ctx->assigns, k->a);
}
