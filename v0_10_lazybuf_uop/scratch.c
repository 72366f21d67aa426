/* scratch.c — the memory the scheduler only needs for a while: scratch
 * arenas (a pass's temporaries, the caches of UOp properties and ShapeTracker
 * memos, the big graph's bookkeeping), the visited marks and stacks of its
 * walks, and id-indexed caches (functools.cached_property of a UOp).
 * A raise skips every arena_scratch_end: the entry point ends what is still
 * open (v0_10_scratch_end_all). */
#include <string.h>
#include "pipeline.h"

/* ---- scratch arenas ---- */

void v0_10_scratch_end_all(Sched *s) {
  arena_scratch_end_all(&s->scratch);
  s->in->memo_arena = s->in->node_arena = NULL;
  s->caches = s->graph = s->tmp = s->a;
}

/* the ShapeTracker memos of st.c, empty, in a */
static void st_memos_init(Sched *s, Arena *a) {
  OMap *maps[] = {&s->st_reduce_cache, &s->st_add_cache, &s->st_unbound, &s->st_simplify_cache, &s->st_full_cache};
  for (size_t i = 0; i < sizeof maps / sizeof *maps; i++) omap_init(maps[i], a);
}

void v0_10_caches_begin(Sched *s) {
  s->caches_kernels = 0;
  s->caches = s->in->memo_arena = arena_scratch_begin(&s->scratch);
  s->st_cache.arena = s->unsafe_cache.arena = s->caches;
  st_memos_init(s, s->caches);
}

void v0_10_caches_drop(Sched *s) {
  Arena *caches = s->caches;
  rewrite_memos_forget(s->in);
  s->in->memo_arena = NULL;
  memset(&s->view_left_rc, 0, sizeof s->view_left_rc);
  memset(&s->view_right_rc, 0, sizeof s->view_right_rc);
  s->st_cache = s->unsafe_cache = (IdCache){0};
  st_memos_init(s, s->a);
  s->st_stack = s->pad_stack = s->rf_stack = s->parents = (UStack){0};
  s->pad_marks = (Marks){0};
  s->to_uop_stack = s->rg_stack = s->sparents_stack = NULL;
  s->to_uop_cap = s->rg_cap = s->sparents_cap = 0;
  s->caches = s->a; /* from here on, what is remembered goes into s->a */
  arena_scratch_end(&s->scratch, caches);
}

void v0_10_graph_begin(Sched *s) {
  s->graph = arena_scratch_begin(&s->scratch);
  omap_init(&s->allbufs, s->graph);
  s->allbuf_of.arena = s->children.arena = s->reduce_free.arena = s->graph;
}

void v0_10_graph_end(Sched *s) {
  Arena *graph = s->graph;
  omap_init(&s->allbufs, s->a);
  s->allbuf_of = s->children = s->reduce_free = (IdCache){0};
  s->graph = s->a;
  arena_scratch_end(&s->scratch, graph);
}

/* the bytes Sched.caches may grow to before it is renewed */
static size_t caches_budget(const Sched *s) {
  size_t b = V0_10_CACHES_PER_LB * s->nlbs;
  return b < V0_10_CACHES_MIN ? V0_10_CACHES_MIN : b > V0_10_CACHES_MAX ? V0_10_CACHES_MAX : b;
}

void v0_10_caches_renew(Sched *s) {
  if (++s->caches_kernels < V0_10_CACHES_KERNELS || s->caches->chunk_bytes <= caches_budget(s)) return;
  v0_10_caches_drop(s);
  v0_10_caches_begin(s);
}

/* ---- marks, stacks, id caches ---- */

void v0_10_marks_begin(Marks *m) { m->epoch++; }

bool v0_10_marks_set(Sched *s, Marks *m, const UOp *u) {
  if (u->id >= m->cap) {
    size_t cap = m->cap ? m->cap : 64;
    while (cap <= u->id) cap *= 2;
    uint32_t *bigger = arena_array(s->caches, cap, sizeof *bigger);
    if (m->cap) memcpy(bigger, m->stamp, m->cap * sizeof *bigger);
    m->stamp = bigger, m->cap = cap;
  }
  if (m->stamp[u->id] == m->epoch) return false;
  m->stamp[u->id] = m->epoch;
  return true;
}


/* room in c for u's id: the page directory grown, u's page made */
void v0_10_idcache_grow(Sched *s, IdCache *c, const UOp *u) {
  size_t p = u->id >> IDC_PAGE_BITS;
  if (p >= c->npages) {
    size_t n = c->npages ? c->npages * 2 : 64;
    while (n <= p) n *= 2;
    const void ***pages = arena_array(c->arena ? c->arena : s->a, n, sizeof *pages);
    if (c->npages) memcpy(pages, c->pages, c->npages * sizeof *pages);
    c->pages = pages, c->npages = n;
  }
  if (!c->pages[p]) c->pages[p] = arena_array(c->arena ? c->arena : s->a, IDC_PAGE, sizeof **c->pages);
}

void v0_10_idcache_forget_since(IdCache *c, uint32_t mark) {
  size_t first = mark >> IDC_PAGE_BITS;
  for (size_t p = first; p < c->npages; p++) {
    size_t from = p == first ? (mark & (IDC_PAGE - 1)) : 0;
    if (c->pages[p]) memset(c->pages[p] + from, 0, (IDC_PAGE - from) * sizeof **c->pages);
  }
}

