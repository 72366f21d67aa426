/* graph_schedule.c — deciding which LazyBuffers realize and how they group
 * into kernels: tinygrad 0.9.1 engine/schedule.py _recurse_lb,
 * _is_padding_okay, _recursive_group and _graph_schedule (up to the
 * prescheduling; the dependency graph is in create_schedule.c).
 * Python's recursive walks are loops over explicit stacks that visit in the
 * same order. Python's dicts and sets keyed by LazyBuffer are fields of the
 * LazyBuffer (membership) plus a list (insertion order). */
#include <string.h>
#include "pipeline.h"
#include "shapetracker.h"

/* "LoadOps.COPY" -> "COPY", for explain details */
static const char *op_text(const Sched *s, Op op) {
  const char *name = v0_9_op_name(s, op), *dot = name ? strchr(name, '.') : NULL;
  return dot ? dot + 1 : name ? name : "?";
}

/* Why _recurse_lb's base part realizes buf: forced_realize or `buf.op in
 * LoadOps`; false when neither. */
static bool base_reason(Sched *s, const LazyBuffer *buf, ExplainReason *why, const char **detail) {
  if (buf->forced_realize) *why = WHY_FORCED, *detail = "forced_realize";
  else if (buf->op == OP_CONTIGUOUS) *why = WHY_FORCED, *detail = "CONTIGUOUS (a LoadOp)";
  else if (buf->op == OP_ASSIGN) *why = WHY_ASSIGN, *detail = NULL;
  else if (buf->op == OP_LOADOPS_CONST)
    *why = WHY_META_OP, *detail = "CONST is a LoadOp (realized, but a constant gets no kernel)";
  else if (v0_9_is_loadop(buf->op))
    *why = WHY_META_OP, *detail = s->ex ? arena_printf(s->a, "%s is a LoadOp", op_text(s, buf->op)) : NULL;
  else return false;
  return true;
}

/* realizes[x] = None: a dict, so a second insert keeps the first position.
 * `why` and `detail` tell `tsched explain` the reason (common/explain.h);
 * callers format a detail only when s->ex listens. A view that expands x or
 * a COPY that reads it may come first, but when _recurse_lb will realize x
 * for what it is (forced, a LoadOp), that is the reason reported. */
static void explain_realize_lb(Sched *s, LazyBuffer *x, ExplainReason why, const char *detail) {
  if ((why == WHY_EXPAND || why == WHY_COPY_SOURCE) && !x->realized) base_reason(s, x, &why, &detail);
  explain_realize(s->ex, (uint32_t)x->index, why, detail);
}

static void realize(Sched *s, LazyBuffer *x, ExplainReason why, const char *detail) {
  if (x->in_realizes) return;
  x->in_realizes = true;
  v0_9_lblist_push(s->a, &s->realizes, x);
  if (s->ex) explain_realize_lb(s, x, why, detail);
}

static const char *shape_text(Sched *s, const StHandle *st) {
  const View *v = st_last(st->st);
  return py_repr_tuple(s->a, v->ndim, v->shape);
}

/* `view` puts `x` in simple_pads (with explain: remember the first such view) */
static void add_simple_pad(Sched *s, LazyBuffer *x, LazyBuffer *view) {
  if (x->in_simple_pads) return;
  x->in_simple_pads = true;
  v0_9_lblist_push(s->a, &s->simple_pads, x);
  if (s->ex) omap_put(&s->pad_views, omap_ptr(x), view);
}


/* ---------------------------------------------------------------- _recurse_lb */

/* The view part of _recurse_lb: fuse some pads, realize all expands. */
static void recurse_lb_view(Sched *s, LazyBuffer *buf) {
  LazyBuffer *base = buf->base;
  /* prod(buf.base.st.shape), prod(buf.st.shape): the int sizes unless a shape is symbolic */
  bool symbolic = base->st->symbolic || buf->st->symbolic;
  sint base_prod = symbolic ? sint_prod(v0_9_st_ndim(base->st), v0_9_st_shape_of(base->st)) : sint_int(base->st->size);
  sint buf_prod = symbolic ? sint_prod(v0_9_st_ndim(buf->st), v0_9_st_shape_of(buf->st)) : sint_int(buf->st->size);
  if (v0_9_st_nviews(buf->st) == 1 && v0_9_st_view_masked(buf->st, 0) &&
      sint_all_int(v0_9_st_ndim(base->st), v0_9_st_shape_of(base->st)) &&
      sint_ge(base_prod, v0_9_st_prod_mask(buf->st))) {
    add_simple_pad(s, base, buf);
  } else if (sint_lt(base_prod, buf_prod)) {
    /* don't realize image to image casts. this is part of a larger problem */
    bool image_cast = base->op == OP_CAST && base->srcs[0]->dtype->is_image && base->arg->kind == V_DTYPE &&
                      base->arg->u.dtype->is_image;
    if (image_cast && s->f->simple_pads_dict) add_simple_pad(s, base, buf);   /* 0.9.2: simple_pads[buf.base] = None */
    else if (!image_cast)
      realize(s, base, WHY_EXPAND, s->ex ? arena_printf(s->a, "view node %d expands %s to %s", buf->index,
                                                        shape_text(s, base->st), shape_text(s, buf->st)) : NULL);
  } else {
    for (int i = 0; i < v0_9_st_nviews(buf->st); i++)
      if (v0_9_st_view_masked(buf->st, i)) { add_simple_pad(s, base, buf); break; }
  }
}

/* `if buf.forced_realize: realizes[buf] = None`, `if buf.op in LoadOps: realizes[buf.base] = None` */
static void realize_base(Sched *s, LazyBuffer *buf) {
  ExplainReason why = WHY_NONE;
  const char *detail = NULL;
  base_reason(s, buf, &why, &detail);
  realize(s, buf, why, detail);
}

/* `realizes[buf.srcs[0].base] = None` for a COPY or a VIEW */
static void realize_copy_source(Sched *s, const LazyBuffer *buf, LazyBuffer *src) {
  realize(
      s, src, WHY_COPY_SOURCE, s->ex ? arena_printf(s->a, "read by %s node %d", op_text(s, buf->op), buf->index) : NULL);
}

/* The base part of _recurse_lb before its sources: returns false on the
 * "can only copy contig" assertion. */
static void recurse_lb_base(Sched *s, LazyBuffer *buf) {
  if (s->f->simple_pads_dict && v0_9_is_reduceop(buf->op)) {   /* 0.9.2: double_reduces */
    LazyBuffer *src = buf->srcs[0];
    if (src->base->op == buf->op && src != src->base) v0_9_lblist_push(s->a, &s->double_reduces, buf);
  }
  buf->in_allbufs = true;
  v0_9_lblist_push(s->a, &s->allbufs, buf);
  if (buf->forced_realize || v0_9_is_loadop(buf->op)) realize_base(s, buf);
  if (buf->op == OP_ASSIGN && s->f->simple_pads_dict) {   /* 0.9.2: assign_targets[buf.srcs[1]] = buf */
    LazyBuffer *target = buf->srcs[1];
    if (target->base != target)
      error_raise("AssertionError", "assign must be to base %s", v0_9_lazybuffer_repr(s, target));
    if (!target->realized)
      error_raise("AssertionError", "assign must be already realized to schedule %s", v0_9_lazybuffer_repr(s, target));
    target->assign = buf;
  }
  if (buf->op == OP_COPY) {
    LazyBuffer *src = buf->srcs[0];
    if (!src->st->contiguous || src->st->size != src->base->st->size)
      error_raise("AssertionError", "can only copy contig");
    realize_copy_source(s, buf, src->base);
  }
  if (buf->op == OP_VIEW) realize_copy_source(s, buf, buf->srcs[0]->base);
}

/* Entering _recurse_lb(buf): *push is the base whose sources are to be
 * walked next, or NULL when the call returns at once; *view is true when
 * buf was a view (its Python frame stays while the base is walked). */
static void recurse_lb_enter(Sched *s, LazyBuffer *buf, LazyBuffer **push, bool *view) {
  *push = NULL;
  *view = false;
  if (buf->in_allbufs || buf->base->realized) return;
  if (buf->base != buf) {
    *view = true;
    recurse_lb_view(s, buf);
    buf = buf->base;   /* return _recurse_lb(buf.base, ...) */
    if (buf->in_allbufs) return;
  }
  recurse_lb_base(s, buf);
  *push = buf;
}

/* children[x.base][buf] = None for the k-th source x of buf: a dict, so buf
 * is added once even when several of its sources share a base. */
static void add_child(Sched *s, LazyBuffer *buf, int k) {
  LazyBuffer *parent = buf->srcs[k]->base;
  if (s->f->simple_pads_dict && parent->realized) return;   /* 0.9.2: `if x.base.realized is None` */
  for (int j = 0; j < k; j++)
    if (buf->srcs[j]->base == parent) return;
  v0_9_lblist_push(s->a, &parent->children, buf);
}

typedef struct LbFrame { LazyBuffer *buf; int next; size_t py; } LbFrame;   /* py: Python frames so far */

/* engine/schedule.py _recurse_lb (0.9.1): "recursively search the entire
 * graph for all LazyBuffers, insert realizes after expands". */
static void recurse_lb(Sched *s, LazyBuffer *root) {
  LazyBuffer *push;
  bool view;
  recurse_lb_enter(s, root, &push, &view);
  if (!push) return;
  size_t depth = 0;
  LbFrame *stack = s->lb_stack = arena_grow(s->a, s->lb_stack, 0, &s->lb_stack_cap, sizeof *stack);
  stack[depth++] = (LbFrame){push, 0, 1};
  while (depth) {
    LbFrame *f = &stack[depth - 1];
    if (f->next == f->buf->nsrcs) { depth--; continue; }
    LazyBuffer *buf = f->buf;
    int k = f->next++;
    add_child(s, buf, k);
    recurse_lb_enter(s, buf->srcs[k], &push, &view);
    if (!push) continue;
    size_t py = f->py + 1 + view;
    v0_9_py_recursion_check(py);
    stack = s->lb_stack = arena_grow(s->a, stack, depth, &s->lb_stack_cap, sizeof *stack);
    stack[depth++] = (LbFrame){push, 0, py};
  }
}

/* ---------------------------------------------------------------- _is_padding_okay */

/* Memo of _is_padding_okay results. A True stays True while realizes only
 * grows; a False is valid only in the epoch (realizes size) it was computed in. */
typedef struct PadMemo { OMap result; size_t epoch; } PadMemo;
enum { PAD_TRUE = 1 };

static bool pad_known(PadMemo *m, const LazyBuffer *x, bool *ok) {
  void *v;
  if (!omap_find(&m->result, omap_ptr(x), &v)) return false;
  uintptr_t code = (uintptr_t)v;
  if (code == PAD_TRUE) { *ok = true; return true; }
  if (code - 2 != m->epoch) return false;   /* a False from an older epoch */
  *ok = false;
  return true;
}

static void pad_store(PadMemo *m, const LazyBuffer *x, bool ok) {
  omap_put(&m->result, omap_ptr(x), (void *)(ok ? (uintptr_t)PAD_TRUE : (uintptr_t)(m->epoch + 2)));
}

/* A node's own answer when its sources do not matter: 1 True, 0 False, -1 ask the sources. */
static int pad_leaf(const Sched *s, const LazyBuffer *buf) {
  if (buf->in_realizes || buf->realized) return 1;
  if (op_in(&s->groups, GROUP_UNSAFE_PAD, buf->op)) return 0;  /* ops.py UNSAFE_PAD_OPS: f(0) != 0 */
  return -1;
}

typedef struct PadFrame { LazyBuffer *buf; int next; } PadFrame;

/* engine/schedule.py _is_padding_okay (0.9.1): all() over the sources' bases,
 * short-circuiting on the first False, as an explicit stack. The answer
 * goes to *okay; false only when the walk is too deep (st says why). */
static void is_padding_okay(Sched *s, PadMemo *m, LazyBuffer *root, bool *okay) {
  bool ok;
  if (pad_known(m, root, okay)) return;
  int leaf = pad_leaf(s, root);
  if (leaf >= 0) { pad_store(m, root, leaf); *okay = leaf; return; }
  size_t cap = 0, depth = 0;
  PadFrame *stack = arena_grow(s->a, NULL, 0, &cap, sizeof *stack);
  stack[depth++] = (PadFrame){root, 0};
  bool last = true;   /* the value returned by the frame popped last */
  while (depth) {
    PadFrame *f = &stack[depth - 1];
    if (!last || f->next == f->buf->nsrcs) {   /* all() done, or a source said False */
      pad_store(m, f->buf, last);
      depth--;
      continue;
    }
    LazyBuffer *x = f->buf->srcs[f->next++]->base;
    if (pad_known(m, x, &ok)) { last = ok; continue; }
    int lx = pad_leaf(s, x);
    if (lx >= 0) { pad_store(m, x, lx); last = lx; continue; }
    v0_9_py_recursion_check(2 * (depth + 1));   /* a frame and all()'s generator per level */
    stack = arena_grow(s->a, stack, depth, &cap, sizeof *stack);
    stack[depth++] = (PadFrame){x, 0};
    last = true;
  }
  *okay = last;
}

/* With explain: the node _is_padding_okay(root) found in UNSAFE_PAD_OPS
 * (the first one in its order; a node seen before answered True). */
static const LazyBuffer *unsafe_pad_node(Sched *s, LazyBuffer *root) {
  if (pad_leaf(s, root) == 0) return root;
  size_t cap = 0, depth = 0;
  PadFrame *stack = arena_grow(s->a, NULL, 0, &cap, sizeof *stack);
  stack[depth++] = (PadFrame){root, 0};
  uint32_t seen = ++s->search_epoch;
  while (depth) {
    PadFrame *f = &stack[depth - 1];
    if (f->next == f->buf->nsrcs) { depth--; continue; }
    LazyBuffer *x = f->buf->srcs[f->next++]->base;
    if (x->search_mark == seen) continue;
    x->search_mark = seen;
    int leaf = pad_leaf(s, x);
    if (leaf == 0) return x;
    if (leaf == 1) continue;
    stack = arena_grow(s->a, stack, depth, &cap, sizeof *stack);
    stack[depth++] = (PadFrame){x, 0};
  }
  return NULL;
}

static const char *unsafe_pad_detail(Sched *s, LazyBuffer *p) {
  if (!s->ex) return NULL;
  const LazyBuffer *view = omap_get(&s->pad_views, omap_ptr(p)), *bad = unsafe_pad_node(s, p);
  const char *by = view ? arena_printf(s->a, "view node %d pads it", view->index) : "it is padded";
  if (!bad) return by;
  if (bad == p) return arena_printf(s->a, "%s, and its own op %s is not 0 at 0 (UNSAFE_PAD_OPS)", by, op_text(s, p->op));
  return arena_printf(
      s->a, "%s, and node %d %s under it is not 0 at 0 (UNSAFE_PAD_OPS)", by, bad->index, op_text(s, bad->op));
}

/* "check if we have to realize pads": simple_pads is an id()-ordered set,
 * tried in the order the capture recorded (set_orders.simple_pads), then
 * any member the record does not list, in post-order. */
static void realize_unsafe_pads(Sched *s) {
  Input *inp = s->inp;
  if (!s->simple_pads.n) return;
  PadMemo memo = {.epoch = 0};
  omap_init(&memo.result, s->a);
  LbList order = {0};
  if (s->f->simple_pads_dict) order = s->simple_pads;   /* 0.9.2: a dict, in insertion order */
  else {
  uint32_t tried = ++s->search_epoch;
  for (int i = 0; i < inp->nsimple_pads_order; i++) {
    LazyBuffer *p = inp->simple_pads_order[i];
    if (p->in_simple_pads && p->search_mark != tried) { p->search_mark = tried; v0_9_lblist_push(s->a, &order, p); }
  }
  for (int i = 0; i < inp->nlbs; i++) {
    LazyBuffer *p = &inp->lbs[i];
    if (p->in_simple_pads && p->search_mark != tried) v0_9_lblist_push(s->a, &order, p);
  }
  }
  for (int i = 0; i < order.n; i++) {
    bool ok;
    is_padding_okay(s, &memo, order.items[i], &ok);
    if (ok) continue;
    realize(s, order.items[i], WHY_UNSAFE_PAD, unsafe_pad_detail(s, order.items[i]));
    memo.epoch++;
  }
}

/* ---------------------------------------------------------------- _recursive_group */

/* dedup(s for s in child.srcs if s.base is parent): *first gets the first one. */
static int srcs_with_base(const LazyBuffer *child, const LazyBuffer *parent, LazyBuffer **first) {
  int n = 0;
  *first = NULL;
  for (int i = 0; i < child->nsrcs; i++) {
    LazyBuffer *x = child->srcs[i];
    if (x->base != parent) continue;
    if (!*first) { *first = x; n = 1; continue; }
    bool dup = false;
    for (int k = 0; k < i && !dup; k++) dup = child->srcs[k] == x;
    if (!dup) n++;
  }
  return n;
}

/* The group being built for one reduce: a set, kept as marks plus a list.
 * With explain, `why` says what first put the reduce itself in it. */
typedef struct Group { LbList members; uint32_t mark; const char *why; bool desc; } Group;

/* The membership mark of x: `desc` groups (_get_isolated_children's descendants) have their own */
static uint32_t *member_mark(const Group *g, LazyBuffer *x) { return g->desc ? &x->desc_mark : &x->group_mark; }

static void group_add(Sched *s, Group *g, LazyBuffer *x) {
  if (*member_mark(g, x) == g->mark) return;
  *member_mark(g, x) = g->mark;
  v0_9_lblist_push(s->a, &g->members, x);
}
static bool group_has(const Group *g, const LazyBuffer *x) { return *member_mark(g, (LazyBuffer *)x) == g->mark; }

/* group.add(r): the reduce cannot fuse into its children (why: for explain) */
static void group_add_reduce(Sched *s, Group *g, LazyBuffer *r, const char *why) {
  if (why && !g->why && !group_has(g, r)) g->why = why;
  group_add(s, g, r);
}

typedef struct GroupFrame { LazyBuffer *tr; const StHandle *st; int pos; } GroupFrame;

typedef struct GroupWalk {
  Sched *s;
  LazyBuffer *r;
  Group *group;
  uint32_t visit;     /* this walk's epoch for visit_mark (the `cache` of 0.9.2) */
  OMap visited;       /* more (tr, st) pairs already walked: a second walk adds nothing new */
  GroupFrame *stack;
  size_t depth, cap;
} GroupWalk;

/* Calling _recursive_group(tr, st, ...): the `tr in realizes` case ends at
 * once; otherwise a frame is pushed to walk tr's children. */
static bool group_visited(GroupWalk *w, LazyBuffer *tr, const StHandle *st) {
  if (tr->visit_mark != w->visit) {   /* the first pair of tr is kept on tr */
    tr->visit_mark = w->visit;
    tr->visit_st = st;
    return false;
  }
  if (tr->visit_st == st) return true;
  uint64_t key = v0_9_st_memo_key(tr, st);
  if (omap_has(&w->visited, key)) return true;
  omap_put(&w->visited, key, (void *)1);
  return false;
}

/* Why realized child tr, which sees r through st, cannot take r in its kernel. */
static const char *realized_child_why(Sched *s, const LazyBuffer *r, const LazyBuffer *tr, const StHandle *st) {
  if (!s->ex) return NULL;
  if (!st->contiguous)
    return arena_printf(s->a, "realized node %d %s reads it through a non-contiguous view (can only fuse contiguous)",
        tr->index, op_text(s, tr->op));
  if (st->size != r->st->size)
    return arena_printf(s->a,
        "realized node %d %s reads it through a view of size %lld, not %lld (can only fuse contiguous)", tr->index,
        op_text(s, tr->op), (long long)st->size, (long long)r->st->size);
  return arena_printf(s->a, "realized node %d %s is already in the kernel of reduce node %d (one reduce per kernel)",
      tr->index, op_text(s, tr->op), tr->reduce_for_op->index);
}

static void group_enter(GroupWalk *w, LazyBuffer *tr, const StHandle *st) {
  Sched *s = w->s;
  v0_9_py_recursion_check(w->depth + 1);
  if (group_visited(w, tr, st)) return;
  if (tr->in_realizes && tr != w->r) {   /* `tr is not r` (0.9.2); r is never realized here in 0.9.1 */
    /* can only fuse contiguous; max one reduceop per kernel */
    if (!st->contiguous || st->size != w->r->st->size || tr->reduce_for_op)
      group_add_reduce(s, w->group, w->r, realized_child_why(s, w->r, tr, st));
    group_add(s, w->group, tr);
    return;
  }
  w->stack = arena_grow(s->a, w->stack, w->depth, &w->cap, sizeof *w->stack);
  w->stack[w->depth++] = (GroupFrame){tr, st, 0};
}

/* Why child tr_next of tr (r itself or a node fused with it) stops the
 * group: it is a reduce, or it reads tr through several views. */
static const char *unfusable_child_why(
    Sched *s, const LazyBuffer *r, const LazyBuffer *tr, const LazyBuffer *tr_next) {
  if (!s->ex) return NULL;
  const char *via = tr == r ? "" : arena_printf(s->a, " (through node %d %s)", tr->index, op_text(s, tr->op));
  LazyBuffer *first;
  if (v0_9_is_reduceop(tr_next->op))
    return arena_printf(s->a, "node %d %s reads it%s and is a reduce itself (one reduce per kernel)", tr_next->index,
                        op_text(s, tr_next->op), via);
  return arena_printf(s->a, "node %d %s reads it%s through %d different views (can only fuse contiguous)",
      tr_next->index, op_text(s, tr_next->op), via, srcs_with_base(tr_next, tr, &first));
}

/* engine/schedule.py _recursive_group (0.9.1): "recursively search the
 * LazyBuffer for groupable children, realize the LazyBuffer if a child
 * can't group". */
static void recursive_group(Sched *s, LazyBuffer *r, Group *group) {
  GroupWalk w = {.s = s, .r = r, .group = group, .visit = ++s->group_epoch};
  omap_init(&w.visited, s->a);
  group_enter(&w, r, r->st);
  while (w.depth) {
    GroupFrame *f = &w.stack[w.depth - 1];
    if (f->pos == f->tr->children.n) { w.depth--; continue; }
    LazyBuffer *tr_next = f->tr->children.items[f->pos++], *child_view;
    if (tr_next->realized) continue;
    /* max one reduceop per kernel; can only fuse contiguous */
    if (v0_9_is_reduceop(tr_next->op) || srcs_with_base(tr_next, f->tr, &child_view) > 1) {
      group_add_reduce(s, group, r, unfusable_child_why(s, r, f->tr, tr_next));
      w.depth--;
      continue;
    }
    group_enter(&w, tr_next, v0_9_st_add(s, f->st, child_view->st));
  }
}

/* ---------------------------------------------------------------- reduce grouping */

/* A depth-first search that reaches each LazyBuffer once. The searches
 * below only ask whether something is reachable, so their order is free. */
typedef struct Search { Sched *s; uint32_t mark; LbList stack; } Search;

static void search_init(Search *q, Sched *s) {
  memset(q, 0, sizeof *q);
  q->s = s;
  q->mark = ++s->search_epoch;
}
static void search_push(Search *q, LazyBuffer *x) {
  if (x->search_mark == q->mark) return;
  x->search_mark = q->mark;
  v0_9_lblist_push(q->s->a, &q->stack, x);
}
static LazyBuffer *search_pop(Search *q) { return q->stack.n ? q->stack.items[--q->stack.n] : NULL; }

static void push_group(Search *q, const Group *g) {
  for (int i = 0; i < g->members.n; i++) search_push(q, g->members.items[i]);
}

/* rc_parents: the ReduceOp that feeds the group (through unrealized bases other than r), or NULL. */
static LazyBuffer *group_reduce_parent(Sched *s, LazyBuffer *r, const Group *g) {
  Search q;
  search_init(&q, s);
  push_group(&q, g);
  for (LazyBuffer *p; (p = search_pop(&q));) {
    if (v0_9_is_reduceop(p->op)) return p;
    for (int i = 0; i < p->nsrcs; i++) {
      LazyBuffer *x = p->srcs[i]->base;
      if (!x->realized && x != r) search_push(&q, x);
    }
  }
  return NULL;
}

/* rc_children: "search descendants of the reduceop that can cleanly group".
 * Every reachable descendant must be a contiguous, same-size, non-reduce
 * buffer not yet paired with a reduce; then the realized ones join the group. */
static void add_realized_descendants(Sched *s, LazyBuffer *r, Group *g) {
  Search q;
  search_init(&q, s);
  push_group(&q, g);
  LbList found = {0};
  for (LazyBuffer *c; (c = search_pop(&q));) {
    if (v0_9_is_reduceop(c->op) || !c->st->contiguous || c->st->size != r->st->size || c->reduce_for_op)
      return;   /* realized_descendants.clear(); break */
    if (c->in_realizes && !group_has(g, c)) v0_9_lblist_push(s->a, &found, c);
    for (int i = 0; i < c->children.n; i++) {
      LazyBuffer *x = c->children.items[i];
      if (!x->realized && x->device == r->device) search_push(&q, x);
    }
  }
  for (int i = 0; i < found.n; i++) group_add(s, g, found.items[i]);
}

/* engine/schedule.py _get_isolated_children (0.9.2): the group, emptied
 * when a reduce feeds it, else with the descendants of its members that can
 * cleanly group (none when a member is among them). */
static void get_isolated_children(Sched *s, LazyBuffer *r, Group *g) {
  LazyBuffer *p = group_reduce_parent(s, r, g);
  if (p) {   /* max one reduceop per kernel: return {} */
    if (s->ex) g->why = arena_printf(s->a, "its kernel would also %s reduce node %d %s (one reduce per kernel)",
                                     group_has(g, p) ? "store" : "compute", p->index, op_text(s, p->op));
    g->members.n = 0;
    g->mark = ++s->group_epoch;
    return;
  }
  Group desc = {.mark = ++s->group_epoch, .desc = true};
  for (int i = 0; i < g->members.n; i++)
    recursive_group(s, g->members.items[i], &desc);
  for (int i = 0; i < g->members.n; i++)
    if (group_has(&desc, g->members.items[i])) return;
  for (int i = 0; i < desc.members.n; i++) group_add(s, g, desc.members.items[i]);
}

/* "can only fuse assign if no other assign_target is used in the kernel":
 * the assign target the kernel would read, or NULL. */
static LazyBuffer *group_other_assign_target(Sched *s, LazyBuffer *r, const Group *g) {
  Search q;
  search_init(&q, s);
  search_push(&q, r);
  push_group(&q, g);
  for (LazyBuffer *p0; (p0 = search_pop(&q));) {
    LazyBuffer *p = p0->base;
    if (p->realized || p->in_realizes) {
      if (p->assign && !group_has(g, p->assign)) return p;
      continue;
    }
    for (int i = 0; i < p->nsrcs; i++) search_push(&q, p->srcs[i]);
  }
  return NULL;
}

static bool group_has_assign(const Group *g) {
  for (int i = 0; i < g->members.n; i++)
    if (g->members.items[i]->op == OP_ASSIGN) return true;
  return false;
}

/* forced_realize: "can chase this down to contiguous children" */
static void chase_contiguous_child(Sched *s, LazyBuffer *r, LazyBuffer **out) {
  LazyBuffer *tr = r;
  const StHandle *acc = tr->st;
  while (tr->children.n == 1) {
    LazyBuffer *tr_next = tr->children.items[0], *child_view;
    if (srcs_with_base(tr_next, tr, &child_view) > 1) break;
    if (acc->size != child_view->st->size) break;
    acc = v0_9_st_add(s, acc, child_view->st);
    if (!acc->contiguous || v0_9_is_reduceop(tr_next->op)) break;
    tr = tr_next;
  }
  /* don't cast to higher size before store (tr cannot be realized if forced_realize) */
  if (tr->op == OP_CAST && tr->arg->u.dtype->itemsize > tr->srcs[0]->dtype->itemsize) tr = tr->srcs[0]->base;
  *out = tr;
}

/* One iteration of the reduce loop of _graph_schedule: "find all reduces,
 * and pair them to a elementwise op. if they can't be cleanly paired, force
 * realize the reduce (or a contig child)". */
static void group_reduce(Sched *s, LazyBuffer *r) {
  Group g = {.mark = ++s->group_epoch};
  recursive_group(s, r, &g);
  /* max one reduceop per kernel */
  bool can_chase = true;
  for (int i = 0; i < g.members.n; i++)
    if (g.members.items[i]->reduce_for_op) can_chase = false;
  bool forced_realize = group_has(&g, r);
  if (!forced_realize && g.members.n > 1 && s->f->isolated_children) {
    get_isolated_children(s, r, &g);
  } else if (!forced_realize && g.members.n > 1) {
    LazyBuffer *p = group_reduce_parent(s, r, &g);
    forced_realize = p != NULL;
    if (!forced_realize) add_realized_descendants(s, r, &g);
    else if (s->ex)
      g.why = arena_printf(s->a, "its kernel would also %s reduce node %d %s (one reduce per kernel)",
                           group_has(&g, p) ? "store" : "compute", p->index, op_text(s, p->op));
  }
  if (!forced_realize && group_has_assign(&g)) {
    LazyBuffer *target = group_other_assign_target(s, r, &g);
    if (target) {
      forced_realize = true;
      can_chase = false;
      if (s->ex)
        g.why = arena_printf(s->a,
            "its kernel has an ASSIGN and would read node %d, the target of ASSIGN node %d in another kernel",
            target->index, target->assign->index);
    }
  }
  /* 0.9.2: `if forced_realize or not group` */
  if (!forced_realize && !(s->f->isolated_children && g.members.n == 0)) {
    for (int i = 0; i < g.members.n; i++) g.members.items[i]->reduce_for_op = r;
    return;
  }
  LazyBuffer *tr = r;
  if (can_chase) {
    chase_contiguous_child(s, r, &tr);
    tr->reduce_for_op = r;
  }
  if (tr == r) realize(s, tr, WHY_REDUCE, g.why);
  else
    realize(s, tr, WHY_REDUCE_CHILD,
        s->ex ? arena_printf(s->a, "chased down from reduce node %d %s, which could not fuse: %s", r->index,
                    op_text(s, r->op), g.why ? g.why : "?")
              : NULL);
}

/* ---------------------------------------------------------------- output groups */

/* prod(buf.shape) != prod(buf.dtype.shape) or no unit-stride axis divisible by 4 */
static void cannot_be_image(Sched *s, LazyBuffer *buf, bool *out) {
  const DType *d = buf->dtype;
  int64_t prod = 1;
  for (int i = 0; i < d->image_ndim; i++) prod *= d->image_shape[i];
  if (buf->st->size != prod) { *out = true; return; }
  int n = v0_9_st_ndim(buf->st);
  bool *unit = arena_array(s->a, n ? (size_t)n : 1, sizeof *unit);
  v0_9_st_unit_stride_axes(s, buf->st, unit);
  *out = true;
  for (int i = 0; i < n; i++)
    if (unit[i] && sint_eq(sint_mod(v0_9_st_shape(buf->st, i), sint_int(4)), sint_int(0))) *out = false;
}

/* "make things that can't be images not images" */
static void image_fallback(Sched *s, LazyBuffer *buf) {
  if (!buf->dtype->is_image) return;
  bool fallback;
  cannot_be_image(s, buf, &fallback);
  if (!fallback) return;
  buf->dtype = dt_float;
  /* hack the underlying buffer too */
  if (buf->base == buf) {
    if (buf->buffer->allocated) error_raise("AssertionError", "can't fixup allocated buffer");
    buf->buffer->dtype = dt_float;
    buf->buffer->options_cleared = true;
  }
}

/* output_groups, then "preschedule all buffers in realizes". */
static void preschedule(Sched *s) {
  LbList keys = {0};   /* output_groups (defaultdict(list)): its keys in order, each value on its key */
  for (int i = 0; i < s->realizes.n; i++) {
    LazyBuffer *buf = s->realizes.items[i];
    if (!buf->in_realizes || buf->realized || buf->op == OP_LOADOPS_CONST || buf->in_seen) continue;
    LazyBuffer *key = buf->reduce_for_op && s->inp->multioutput ? buf->reduce_for_op : buf;
    if (!key->output_group) {
      key->output_group = arena_alloc(s->a, sizeof *key->output_group);
      v0_9_lblist_push(s->a, &keys, key);
    }
    v0_9_lblist_push(s->a, key->output_group, buf);
    image_fallback(s, buf);
  }
  for (int i = 0; i < keys.n; i++) {
    LbList *l = keys.items[i]->output_group;
    LBScheduleItem *item = arena_alloc(s->a, sizeof *item);
    v0_9_schedule_group(s, l->items, l->n, item);
    omap_put(&s->prescheduled, omap_ptr(l->items[0]), item);
  }
}

/* `del realizes[x]` (0.9.2): a KeyError when x is not there */
static void unrealize(Sched *s, LazyBuffer *x) {
  if (!x->in_realizes)
    error_unsupported(
        "del realizes[%s]: a KeyError whose message is the LazyBuffer's repr", v0_9_lazybuffer_repr(s, x));
  x->in_realizes = false;
}

/* FUSE_CONV_BW: "fuse double reduces with no other child" */
static void fuse_double_reduces(Sched *s) {
  for (int i = 0; i < s->double_reduces.n; i++) {
    LazyBuffer *top_reduce = s->double_reduces.items[i]->srcs[0]->base;
    if (top_reduce->children.n == 1) unrealize(s, top_reduce);
  }
}

/* FUSE_ARANGE: a reduce of a const folds into its children's kernels unless
 * it is forced, an output, or has no child kernel (COPY and VIEW do not count) */
static void fuse_arange(Sched *s, LazyBuffer *r) {
  Input *inp = s->inp;
  LbList group = {0};   /* {tr:None for tr,rop in reduce_for_op.items() if rop is r} */
  for (int i = 0; i < inp->nlbs; i++)
    if (inp->lbs[i].reduce_for_op == r) v0_9_lblist_push(s->a, &group, &inp->lbs[i]);
  uint32_t mark = ++s->search_epoch;
  for (int i = 0; i < group.n; i++) {
    if (group.items[i]->forced_realize) return;
    group.items[i]->search_mark = mark;
  }
  for (int i = 0; i < inp->nouts; i++)
    if (inp->outs[i]->base->search_mark == mark) return;
  bool kernel_children = false;
  for (int i = 0; i < group.n && !kernel_children; i++)
    for (int k = 0; k < group.items[i]->children.n; k++) {
      Op op = group.items[i]->children.items[k]->op;
      if (op != OP_COPY && op != OP_VIEW) kernel_children = true;
    }
  if (!kernel_children) return;
  for (int i = 0; i < group.n; i++)
    unrealize(s, group.items[i]);
}

/* engine/schedule.py _graph_schedule (0.9.1, 0.9.2): "create a graph for realizing the outputs". */
void v0_9_graph_schedule(Sched *s) {
  Input *inp = s->inp;
  /* start by just realizing the buffers passed in */
  for (int i = 0; i < inp->nouts; i++)
    if (!inp->outs[i]->base->realized) realize(s, inp->outs[i]->base, WHY_OUTPUT, NULL);
  for (int i = 0; i < inp->nouts; i++)
    recurse_lb(s, inp->outs[i]->base);
  for (int i = 0; i < s->realizes.n && !s->f->simple_pads_dict; i++) {   /* 0.9.2: assign_targets from _recurse_lb */
    LazyBuffer *x = s->realizes.items[i];
    if (x->op == OP_ASSIGN && !x->in_seen && !x->realized) x->srcs[1]->assign = x;
  }
  realize_unsafe_pads(s);
  LbList reduce_of_const = {0};
  for (int i = 0; i < s->allbufs.n; i++) {
    LazyBuffer *r = s->allbufs.items[i];
    if (!v0_9_is_reduceop(r->op) || r->in_realizes) continue;
    group_reduce(s, r);
    if (inp->fuse_arange && r->op == OP_REDUCE_SUM && r->srcs[0]->base->op == OP_LOADOPS_CONST)
      v0_9_lblist_push(s->a, &reduce_of_const, r);
  }
  if (inp->fuse_conv_bw) fuse_double_reduces(s);
  for (int i = 0; i < reduce_of_const.n; i++)
    fuse_arange(s, reduce_of_const.items[i]);
  preschedule(s);
}
