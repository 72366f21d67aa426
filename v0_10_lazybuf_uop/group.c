/* group.c — kernel fusion decisions of engine/schedule.py:
 * group_realizes pairs every unrealized reduce with the elementwise children
 * it can fuse with (recursive_group, get_isolated_children), forces a
 * realize where it cannot (chasing it down to a contiguous child), applies
 * FUSE_CONV_BW and FUSE_ARANGE, and groups the realized buffers into
 * kernels. All maps are insertion-ordered like the Python dicts. */
#include <string.h>
#include "pipeline.h"

/* uval(u): the op a scheduled VIEW(BUFFER, op) stores, looking through a CONTIGUOUS base */
static const UOp *uval(Sched *s, const UOp *u) {
  if (!u) error_raise("KeyError", "allbufs");
  if (!v0_10_is_scheduled(u)) error_raise("AssertionError", "must be a scheduled op %s", v0_10_uop_repr(s, u));
  const UOp *to_store = u->src[1];
  return v0_10_is_contiguous_base(s, to_store) ? to_store->src[0] : to_store;
}

static const UOp *allbuf(Sched *s, const UOp *b) { return v0_10_idcache_get(&s->allbuf_of, b); }

static OMap *children_of(Sched *s, const UOp *b) {
  static OMap empty; /* a defaultdict's fresh empty entry: never written */
  OMap *kids = (OMap *)v0_10_idcache_get(&s->children, b);
  return kids ? kids : &empty;
}

static const UOp *nth_key(const OMap *m, size_t k) {
  uint64_t key;
  void *val;
  size_t pos = 0, i = 0;
  while (omap_next(m, &pos, &key, &val))
    if (i++ == k) return (const UOp *)(uintptr_t)key;
  return NULL;
}

/* dedup(x.st for x in u.src if is_scheduled(x.base) and x.base.buf_uop is tr): the
 * distinct views u reads tr through; returns how many (up to 2), the first in *first */
static int st_childs(const Sched *s, const UOp *u, const UOp *tr, const Value **first) {
  int n = 0;
  *first = NULL;
  for (uint32_t i = 0; i < u->nsrc && n < 2; i++) {
    const UOp *x = u->src[i], *b = v0_10_uop_base(s, x);
    if (!v0_10_is_scheduled(b) || b->src[0] != tr) continue;
    if (!*first) *first = x->arg, n = 1;
    else if (x->arg != *first) n = 2;
  }
  return n;
}

typedef struct GroupState {
  Sched *s;
  OMap *realizes, *reduce_for_op;
  OMap *top;          /* for explain: the group of the reduce being paired */
  const char *why;    /* for explain: what first stopped that reduce from fusing */
} GroupState;

/* group.setdefault(r) in the reduce's own walk: remember why for explain */
static void note_unfusable(GroupState *g, const OMap *group, const char *why) {
  if (!g->why && group == g->top) g->why = why;
}

/* why realized tr, seen through st, cannot take reduce r into its kernel */
static const char *realized_child_why(GroupState *g, const UOp *tr, const Value *st, int64_t rsize) {
  Sched *s = g->s;
  const char *node = v0_10_explain_node(s, tr);
  if (!v0_10_st_contiguous(st)) return arena_printf(s->a, "realized %s reads it through a non-contiguous view (can only fuse contiguous)", node);
  if (v0_10_st_size(st) != rsize)
    return arena_printf(s->a, "realized %s reads it through a view of size %lld, not %lld (can only fuse contiguous)", node,
                        (long long)v0_10_st_size(st), (long long)rsize);
  return arena_printf(s->a, "realized %s is already in the kernel of reduce %s (one reduce per kernel)", node,
                      v0_10_explain_node(s, omap_get(g->reduce_for_op, omap_ptr(tr))));
}

/* why child tr_next of tr (the reduce r or a buffer fused with it) stops the group */
static const char *unfusable_child_why(GroupState *g, const UOp *r, const UOp *tr, const UOp *tr_next, bool reduce) {
  Sched *s = g->s;
  const char *via = tr == r ? "" : arena_printf(s->a, " (through %s)", v0_10_explain_node(s, tr));
  if (reduce) return arena_printf(s->a, "%s reads it%s and is a reduce itself (one reduce per kernel)", v0_10_explain_node(s, tr_next), via);
  return arena_printf(s->a, "%s reads it%s through different views (can only fuse contiguous)", v0_10_explain_node(s, tr_next), via);
}

/* one activation of recursive_group */
typedef struct RgFrame {
  const UOp *tr;
  const Value *st;
  OMap *kids;
  size_t pos;
} RgFrame;

static void setdefault(OMap *m, const UOp *u) { omap_setdefault(m, omap_ptr(u), (void *)1); }

/* The part of recursive_group before its loop. Returns false when the call returns right away. */
static bool rg_enter(GroupState *g, RgFrame *f, const UOp *r, OMap *group, OMap *cache) {
  Sched *s = g->s;
  const Value *items[2] = {v_int(s->in, (int64_t)(uintptr_t)f->tr), f->st};
  uint64_t key = omap_ptr(v_tuple(s->in, 2, items));
  if (omap_has(cache, key)) return false;
  omap_put(cache, key, (void *)1);
  if (omap_has(g->realizes, omap_ptr(f->tr)) && f->tr != r) {
    int64_t rsize = v0_10_st_size(allbuf(s, r)->arg);
    if (!v0_10_st_contiguous(f->st) || v0_10_st_size(f->st) != rsize || omap_has(g->reduce_for_op, omap_ptr(f->tr))) {
      if (s->ex) note_unfusable(g, group, realized_child_why(g, f->tr, f->st, rsize));
      setdefault(group, r);
    }
    setdefault(group, f->tr);
    return false;
  }
  f->kids = children_of(s, f->tr);
  f->pos = 0;
  return true;
}

/* recursive_group(tr, st, r, ...): "recursively search the uop for groupable
 * children, realize the UOp if a child can't group" — with an explicit stack. */
static void recursive_group(GroupState *g, const UOp *tr0, const Value *st0, const UOp *r, OMap *group, OMap *cache) {
  Sched *s = g->s;
  size_t n = 0, cap = s->rg_cap ? s->rg_cap : 32;
  RgFrame *stack = s->rg_stack ? s->rg_stack : arena_array(s->caches, cap, sizeof *stack);
  s->rg_stack = stack, s->rg_cap = cap;
  stack[n] = (RgFrame){tr0, st0, NULL, 0};
  if (rg_enter(g, &stack[n], r, group, cache)) n++;
  while (n) {
    RgFrame *f = &stack[n - 1];
    uint64_t key;
    void *val;
    if (!omap_next(f->kids, &f->pos, &key, &val)) { n--; continue; }
    const UOp *tr_next = (const UOp *)(uintptr_t)key, *tr_next_uop = v0_10_uop_base(s, uval(s, allbuf(s, tr_next)));
    const Value *first;
    /* max one reduceop per kernel; can only fuse contiguous */
    if (tr_next_uop->op == OP_REDUCE_AXIS || st_childs(s, tr_next_uop, f->tr, &first) > 1) {
      if (s->ex) note_unfusable(g, group, unfusable_child_why(g, r, f->tr, tr_next, tr_next_uop->op == OP_REDUCE_AXIS));
      setdefault(group, r);
      n--;
      continue;
    }
    if (!first) error_raise("IndexError", "list index out of range");
    const Value *st = v0_10_st_add(s, f->st, first);
    if (n == cap) {
      RgFrame *bigger = arena_array(s->caches, cap * 2, sizeof *bigger);
      memcpy(bigger, stack, cap * sizeof *stack);
      stack = bigger, cap *= 2;
      s->rg_stack = stack, s->rg_cap = cap;
    }
    stack[n] = (RgFrame){tr_next, st, NULL, 0};
    if (rg_enter(g, &stack[n], r, group, cache)) n++;
  }
}

static OMap *new_map(Sched *s) {
  OMap *m = arena_alloc(s->graph, sizeof *m);
  omap_init(m, s->graph);
  return m;
}

/* True when no REDUCE_AXIS is among the op of buffer b and of every
 * scheduled buffer above it (memoised per buffer). get_isolated_children's
 * upward walk looks for a REDUCE_AXIS and has no other effect, so it can
 * skip such a buffer without changing its result; without this the walk
 * visits every ancestor of a group for every reduce (quadratic). Anything
 * unexpected (a buffer uval would reject) answers false: no pruning. */
static bool reduce_free_above(Sched *s, const UOp *b0) {
  enum { UNKNOWN, FREE, NOT_FREE };
  UStack *stack = &s->rf_stack;
  stack->n = 0;
  v0_10_ustack_push(s, stack, b0);
  while (stack->n) {
    const UOp *b = stack->items[stack->n - 1], *vb = allbuf(s, b), *p;
    if (v0_10_idcache_get(&s->reduce_free, b)) { stack->n--; continue; }
    if (!vb || !v0_10_is_scheduled(vb)) { v0_10_idcache_put(s, &s->reduce_free, b, (void *)(uintptr_t)NOT_FREE); stack->n--; continue; }
    p = v0_10_is_contiguous_base(s, vb->src[1]) ? vb->src[1]->src[0] : vb->src[1];
    uintptr_t verdict = p->op == OP_REDUCE_AXIS ? NOT_FREE : FREE;
    bool pushed = false;
    for (uint32_t i = 0; i < p->nsrc && verdict == FREE && !pushed; i++) {
      const UOp *x = v0_10_uop_base(s, p->src[i]);
      if (!v0_10_is_scheduled(x)) continue;
      uintptr_t c = (uintptr_t)v0_10_idcache_get(&s->reduce_free, x->src[0]);
      if (c == NOT_FREE) verdict = NOT_FREE;
      else if (c == UNKNOWN) v0_10_ustack_push(s, stack, x->src[0]), pushed = true;
    }
    if (pushed) continue;
    v0_10_idcache_put(s, &s->reduce_free, b, (void *)verdict);
    stack->n--;
  }
  return (uintptr_t)v0_10_idcache_get(&s->reduce_free, b0) == FREE;
}

/* get_isolated_children(r, reduce_for_op, children, allbufs, realizes, group) */
static OMap *get_isolated_children(GroupState *g, const UOp *r, OMap *group) {
  Sched *s = g->s;
  size_t n = 0, cap = omap_len(group) + 16;
  const UOp **rc_parents = arena_array(s->graph, cap, sizeof *rc_parents);
  uint64_t key;
  void *val;
  for (size_t pos = 0; omap_next(group, &pos, &key, &val);) rc_parents[n++] = (const UOp *)(uintptr_t)key;
  OMap cache;
  omap_init(&cache, s->graph);
  while (n) {
    const UOp *pb = rc_parents[--n], *p = uval(s, allbuf(s, pb));
    if (omap_has(&cache, omap_ptr(p))) continue;
    omap_put(&cache, omap_ptr(p), (void *)1);
    if (p->op == OP_REDUCE_AXIS) { /* max one reduceop per kernel */
      if (s->ex) g->why = arena_printf(s->a, "its kernel would also compute reduce %s (one reduce per kernel)", v0_10_explain_node(s, pb));
      return new_map(s);
    }
    for (uint32_t i = 0; i < p->nsrc; i++) {
      const UOp *b = v0_10_uop_base(s, p->src[i]);
      if (!v0_10_is_scheduled(b) || b->src[0] == r || reduce_free_above(s, b->src[0])) continue;
      if (n == cap) {
        const UOp **bigger = arena_array(s->graph, cap * 2, sizeof *bigger);
        memcpy(bigger, rc_parents, cap * sizeof *bigger);
        rc_parents = bigger, cap *= 2;
      }
      rc_parents[n++] = b->src[0];
    }
  }
  /* search descendants of the reduceop that can cleanly group */
  OMap *descendants = new_map(s);
  for (size_t pos = 0; omap_next(group, &pos, &key, &val);) {
    const UOp *tr = (const UOp *)(uintptr_t)key;
    OMap rg_cache;
    omap_init(&rg_cache, s->graph);
    recursive_group(g, tr, allbuf(s, tr)->arg, tr, descendants, &rg_cache);
  }
  /* merge_dicts([group, {} if any(tr in group for tr in descendants) else descendants]) */
  OMap *ret = new_map(s);
  bool overlap = false;
  for (size_t pos = 0; omap_next(descendants, &pos, &key, &val);) overlap |= omap_has(group, key);
  for (size_t pos = 0; omap_next(group, &pos, &key, &val);) omap_put(ret, key, (void *)1);
  if (!overlap)
    for (size_t pos = 0; omap_next(descendants, &pos, &key, &val);) omap_put(ret, key, (void *)1);
  return ret;
}

/* can only fuse assign if no other assign_target is used in the kernel */
static bool assign_forces_realize(GroupState *g, const UOp *r, OMap *group) {
  Sched *s = g->s;
  size_t n = 0, cap = omap_len(group) + 16;
  const UOp **parents = arena_array(s->graph, cap, sizeof *parents);
  parents[n++] = r;
  uint64_t key;
  void *val;
  for (size_t pos = 0; omap_next(group, &pos, &key, &val);) parents[n++] = (const UOp *)(uintptr_t)key;
  while (n) {
    const UOp *p = parents[--n], *p_uop = allbuf(s, p);
    if (!p_uop) continue;
    p_uop = uval(s, p_uop);
    if (p_uop->op == OP_ASSIGN && !omap_has(group, omap_ptr(p))) {
      if (s->ex) g->why = arena_printf(s->a, "its kernel has an ASSIGN and would read the buffer of ASSIGN %s, which is not in it", v0_10_explain_node(s, p));
      return true;
    }
    if (omap_has(g->realizes, omap_ptr(p))) continue;
    for (uint32_t i = 0; i < p_uop->nsrc; i++) {
      const UOp *b = v0_10_uop_base(s, p_uop->src[i]);
      if (b->op != OP_VIEW || b->nsrc == 0) continue;
      if (n == cap) {
        const UOp **bigger = arena_array(s->graph, cap * 2, sizeof *bigger);
        memcpy(bigger, parents, cap * sizeof *bigger);
        parents = bigger, cap *= 2;
      }
      parents[n++] = b->src[0];
    }
  }
  return false;
}

/* can chase this down to contiguous children */
static const UOp *chase(GroupState *g, const UOp *r, const UOp *r_uop) {
  Sched *s = g->s;
  const UOp *tr = r;
  const Value *st = v0_10_uop_st(s, r_uop);
  OMap *kids;
  while (omap_len(kids = children_of(s, tr)) == 1) {
    const UOp *tr_next = nth_key(kids, 0), *tr_next_uop = uval(s, allbuf(s, tr_next));
    const Value *child_st;
    if (st_childs(s, tr_next_uop, tr, &child_st) > 1) break;
    if (!child_st) error_raise("IndexError", "list index out of range");
    if (v0_10_st_size(st) != v0_10_st_size(child_st)) break;
    st = v0_10_st_add(s, st, child_st);
    if (!v0_10_st_contiguous(st) || tr_next_uop->op == OP_REDUCE_AXIS) break;
    tr = tr_next;
  }
  return tr;
}

/* don't cast to higher size before store (tr cannot be realized if forced_realize) */
static const UOp *skip_upcast(Sched *s, const UOp *tr) {
  const UOp *tr_uop = uval(s, allbuf(s, tr));
  if (tr_uop->op == OP_CAST && tr_uop->dtype->base->itemsize > tr_uop->src[0]->dtype->base->itemsize)
    return v0_10_buf_uop(s, v0_10_uop_base(s, tr_uop->src[0]));
  return tr;
}

/* the part of group_realizes' loop for one reduce r */
static void group_one_reduce(GroupState *g, const UOp *r, const UOp *r_uop) {
  Sched *s = g->s;
  OMap *group = new_map(s), rg_cache;
  omap_init(&rg_cache, s->graph);
  g->top = group, g->why = NULL;
  recursive_group(g, r, v0_10_uop_st(s, r_uop), r, group, &rg_cache);
  uint64_t key;
  void *val;
  bool can_chase = true;
  for (size_t pos = 0; omap_next(group, &pos, &key, &val);) can_chase &= !omap_has(g->reduce_for_op, key);
  bool forced_realize = omap_has(group, omap_ptr(r));
  if (!forced_realize && omap_len(group) > 1) group = get_isolated_children(g, r, group);
  bool any_assign = false;
  for (size_t pos = 0; omap_next(group, &pos, &key, &val);) any_assign |= omap_has(&s->assigns, key);
  if (!forced_realize && any_assign && assign_forces_realize(g, r, group)) forced_realize = true, can_chase = false;
  if (forced_realize || omap_len(group) == 0) {
    const UOp *tr = skip_upcast(s, can_chase ? chase(g, r, r_uop) : r);
    group = new_map(s);
    omap_put(group, omap_ptr(tr), (void *)1);
    if (s->ex) v0_10_explain_reduce(s, g->realizes, tr, r, g->why);
    omap_put(g->realizes, omap_ptr(tr), (void *)tr);
  }
  for (size_t pos = 0; omap_next(group, &pos, &key, &val);) omap_put(g->reduce_for_op, key, (void *)r);
}

/* FUSE_CONV_BW: fuse double reduces with no other child */
static void fuse_double_reduces(GroupState *g, const UOp **double_reduces, size_t n) {
  Sched *s = g->s;
  for (size_t i = 0; i < n; i++) {
    const UOp *u = uval(s, allbuf(s, double_reduces[i]));
    const UOp *top_reduce = v0_10_buf_uop(s, v0_10_uop_base(s, u->src[0]));
    if (omap_len(children_of(s, top_reduce)) != 1) continue;
    if (!omap_del(g->realizes, omap_ptr(top_reduce))) error_raise("KeyError", "%s", v0_10_uop_repr(s, top_reduce));
  }
}

/* {tr: None for tr, rop in reduce_for_op.items() if rop is rbuf} for every rbuf at once */
static OMap *groups_by_reduce(GroupState *g) {
  OMap *by = new_map(g->s);
  uint64_t key;
  void *val;
  for (size_t pos = 0; omap_next(g->reduce_for_op, &pos, &key, &val);) {
    OMap *grp = omap_get(by, omap_ptr(val));
    if (!grp) omap_put(by, omap_ptr(val), grp = new_map(g->s));
    omap_put(grp, key, (void *)1);
  }
  return by;
}

/* FUSE_ARANGE's test of a sum r_uop: r_uop.src[0].base.op is Ops.WHERE (0.10.0's
 * const folding), or with fuse_arange_of_const uval(r_uop.src[0].base).op is Ops.CONST */
static bool arange_like(Sched *s, const UOp *r_uop) {
  const UOp *b = v0_10_uop_base(s, r_uop->src[0]);
  return s->f->fuse_arange_of_const ? uval(s, b)->op == OP_CONST : b->op == OP_WHERE;
}

/* FUSE_ARANGE: maybe fuse arange with its children */
static void fuse_aranges(GroupState *g, const UOp **reduce_of_const, size_t n) {
  Sched *s = g->s;
  OMap *by = n ? groups_by_reduce(g) : NULL, empty;
  omap_init(&empty, s->graph);
  for (size_t i = 0; i < n; i++) {
    OMap *group = omap_get(by, omap_ptr(reduce_of_const[i]));
    if (!group) group = &empty;
    uint64_t key, c;
    void *val;
    bool contiguous_base = false, kernel_children = false;
    for (size_t pos = 0; omap_next(group, &pos, &key, &val);)
      contiguous_base |= v0_10_is_contiguous_base(s, allbuf(s, (const UOp *)(uintptr_t)key)->src[1]);
    if (contiguous_base) continue;
    for (size_t pos = 0; omap_next(group, &pos, &key, &val);) {
      OMap *kids = children_of(s, (const UOp *)(uintptr_t)key);
      for (size_t kp = 0; omap_next(kids, &kp, &c, &val);) {
        const UOp *cu = uval(s, allbuf(s, (const UOp *)(uintptr_t)c));
        kernel_children |= cu->op != OP_COPY && cu->op != OP_BUFFER_VIEW;
      }
    }
    if (!kernel_children) continue;
    for (size_t pos = 0; omap_next(group, &pos, &key, &val);)
      if (!omap_del(g->realizes, key)) error_raise("KeyError", "%s", v0_10_uop_repr(s, (const UOp *)(uintptr_t)key));
  }
}

/* group BUFFER uops into kernels: output_groups[reduce_for_op.get(ubuf, ubuf)].append(ubuf)
 * (the groups in s->a, the rest in the graph's scratch arena) */
static size_t output_groups(GroupState *g, StoreGroup **out) {
  Sched *s = g->s;
  OMap by_key;
  omap_init(&by_key, s->graph);
  uint64_t key;
  void *val;
  for (size_t pos = 0; omap_next(g->realizes, &pos, &key, &val);) {
    void *r = omap_get(g->reduce_for_op, key);
    uint64_t k = r ? omap_ptr(r) : key;
    OMap *lst = omap_get(&by_key, k);
    if (!lst) omap_put(&by_key, k, lst = new_map(s));
    omap_put(lst, key, (void *)1);
  }
  StoreGroup *groups = arena_array(s->a, omap_len(&by_key) + 1, sizeof *groups);
  size_t n = 0;
  for (size_t pos = 0; omap_next(&by_key, &pos, &key, &val);) {
    const OMap *lst = val;
    StoreGroup *grp = &groups[n++];
    grp->bufs = arena_array(s->a, omap_len(lst) + 1, sizeof *grp->bufs);
    for (size_t bp = 0; omap_next(lst, &bp, &key, &val);) grp->bufs[grp->n++] = (const UOp *)(uintptr_t)key;
  }
  *out = groups;
  return n;
}

/* group_realizes(ctx, realizes): "search the big graph for all the reduceops
 * that need to realize, sometimes group/fuse the reduceop" */
size_t v0_10_group_realizes(Sched *s, OMap *realizes, StoreGroup **groups) {
  OMap reduce_for_op;
  omap_init(&reduce_for_op, s->graph);
  GroupState g = {s, realizes, &reduce_for_op, NULL, NULL};
  size_t nall = omap_len(&s->allbufs), ndouble = 0, nconst = 0;
  const UOp **double_reduces = arena_array(s->graph, nall + 1, sizeof(UOp *));
  const UOp **reduce_of_const = arena_array(s->graph, nall + 1, sizeof(UOp *));
  uint64_t key;
  void *val;
  for (size_t pos = 0; omap_next(&s->allbufs, &pos, &key, &val);) {
    const UOp *r = (const UOp *)(uintptr_t)key, *r_uop = uval(s, val);
    if (r_uop->op != OP_REDUCE_AXIS) continue;
    if (s->fuse_conv_bw) {
      const UOp *x = r_uop->src[0];
      if (uval(s, v0_10_uop_base(s, x))->op == r_uop->op && v0_10_uop_base(s, x) != x) double_reduces[ndouble++] = r;
    }
    if (omap_has(realizes, key)) continue;
    group_one_reduce(&g, r, r_uop);
    const Value *rop = r_uop->arg->u.tuple.items[0];
    if (s->fuse_arange && rop->u.str.n == 7 && memcmp(rop->u.str.s, "Ops.ADD", 7) == 0 && arange_like(s, r_uop))
      reduce_of_const[nconst++] = r;
  }
  fuse_double_reduces(&g, double_reduces, ndouble);
  fuse_aranges(&g, reduce_of_const, nconst);
  return output_groups(&g, groups);
}
