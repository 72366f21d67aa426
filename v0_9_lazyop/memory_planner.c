/* memory_planner.c — tinygrad 0.9.1 engine/schedule.py memory_planner and
 * _internal_memory_planner: buffers nobody else holds are replaced by
 * fresh ones, reusing a freed (device, size, dtype) slot LRU-style. The
 * Buffers it creates are PlanBuffers, numbered "plan:K" when encoded. */
#include <stdlib.h>
#include <string.h>
#include "memory_planner.h"
#include "pipeline.h"

/* A Buffer created by the planner: Buffer(*key) or a view Buffer(..., base=, offset=). */
struct PlanBuffer {
  const char *device;
  int64_t size, offset;
  const DType *dtype;
  PlanBuffer *plan_base;          /* base when it is another planner Buffer */
  const DeviceBuffer *input_base; /* base when it is an input Buffer */
  bool in_cache;                  /* `assigned[buf] in local_cache[key]` */
};

/* local_cache[(device, size, dtype)]: a stack of free PlanBuffers */
typedef struct FreeList { PlanBuffer **items; int n; size_t cap; } FreeList;

typedef struct Planner {
  Sched *s;
  const Schedule *sched;
  PlanBuffer **assigned;     /* by DeviceBuffer index */
  int *last_appearance;      /* by DeviceBuffer index */
  OMap cache;                /* key hash -> FreeList* chain (see cache_list) */
} Planner;

typedef struct CacheKey { const char *device; int64_t size; const DType *dtype; } CacheKey;
typedef struct CacheEntry { CacheKey key; FreeList list; struct CacheEntry *next; } CacheEntry;

static uint64_t key_hash(CacheKey k) {
  uint64_t h = (uint64_t)(uintptr_t)k.device * 0x9e3779b97f4a7c15ULL;
  h ^= (uint64_t)k.size + 0x7f4a7c159e3779b9ULL + (h << 6) + (h >> 2);
  h ^= (uint64_t)(uintptr_t)k.dtype + (h << 6) + (h >> 2);
  return h;
}

/* local_cache[key] (defaultdict(list)); devices are interned, dtypes too. */
static FreeList *cache_list(Planner *p, CacheKey k) {
  uint64_t h = key_hash(k);
  CacheEntry *e = omap_get(&p->cache, h);
  for (CacheEntry *x = e; x; x = x->next)
    if (x->key.device == k.device && x->key.size == k.size && x->key.dtype == k.dtype) return &x->list;
  CacheEntry *n = arena_alloc(p->s->a, sizeof *n);
  n->key = k;
  n->next = e;
  omap_put(&p->cache, h, n);
  return &n->list;
}

static void freelist_push(Arena *a, FreeList *l, PlanBuffer *b) {
  l->items = arena_grow(a, l->items, (size_t)l->n, &l->cap, sizeof *l->items);
  l->items[l->n++] = b;
}

static PlanBuffer *new_plan_buffer(Planner *p, const DeviceBuffer *b) {
  PlanBuffer *n = arena_alloc(p->s->a, sizeof *n);
  n->device = b->device;
  n->size = b->size;
  n->dtype = b->dtype;
  return n;
}

/* handle_buffer(buf) at schedule item i */
static void handle_buffer(Planner *p, const DeviceBuffer *buf, int i) {
  FreeList *ll = cache_list(p, (CacheKey){buf->device, buf->size, buf->dtype});
  PlanBuffer **slot = &p->assigned[buf->index];
  if (!*slot) {
    if (ll->n) {
      *slot = ll->items[--ll->n];
      (*slot)->in_cache = false;
    } else {
      *slot = new_plan_buffer(p, buf);
    }
  }
  if (i == p->last_appearance[buf->index] && !(*slot)->in_cache) {
    freelist_push(p->s->a, ll, *slot);
    (*slot)->in_cache = true;
  }
}

/* "handle view buffers": a new view of the (replaced) base */
static void handle_view(Planner *p, const DeviceBuffer *buf) {
  PlanBuffer *n = new_plan_buffer(p, buf);
  n->offset = buf->offset;
  n->plan_base = p->assigned[buf->base->index];
  if (!n->plan_base) n->input_base = buf->base;
  p->assigned[buf->index] = n;
}

/* engine/schedule.py _internal_memory_planner (0.9.1) */
static void lru_memory_planner(Planner *p) {
  const Schedule *sc = p->sched;
  Input *inp = p->s->inp;
  if (inp->no_memory_planner) return;
  for (int i = 0; i < sc->nitems; i++)
    for (int j = 0; j < sc->items[i].nbufs; j++) p->last_appearance[sc->items[i].bufs[j]->index] = i;
  for (int i = 0; i < sc->nitems; i++) {
    for (int j = 0; j < sc->items[i].nbufs; j++) {
      const DeviceBuffer *buf = sc->items[i].bufs[j];
      const PlannerBufState *ps = buf->planner;
      if (!ps)
        error_bad_input("memory_planner_bufs has no entry for buffer %d of schedule item %d", buf->index, i);
      /* all unallocated unparented buffers are fair game to replace */
      if (ps->allocated || ps->lb_refcount > 0) continue;
      if (buf->base) handle_view(p, buf);
      else handle_buffer(p, buf, i);
    }
  }
}

/* ---------------------------------------------------------------- 0.9.2: engine/realize.py */

/* (buf.device, buf.dtype, buf.options) + ((buf.nbytes,) unless the allocator has "offset"), interned */
static bool segment_key(void *ctx, int64_t b, uint64_t *key) {
  Sched *s = ctx;
  const DeviceBuffer *x = &s->inp->buffers[b];
  const JVal *has = s->inp->allocator_offset ? json_get(s->inp->allocator_offset, x->device) : NULL;
  if (!has || has->kind != J_BOOL)
    error_bad_input("input.memory_planner_allocator_offset: no entry for device %s", x->device);
  const Value *none = v_none(s->in), *opts = none;
  if (x->options && !x->options_cleared) {
    size_t n;
    char *text = json_to_string(x->options, &n);
    opts = v_strn(s->in, V_STR, text, n);
    free(text);
  }
  const Value *items[4] = {v_str(s->in, x->device), v_dtype(s->in, x->dtype), opts,
                           has->u.b ? none : v_int(s->in, x->size * x->dtype->itemsize)};
  *key = omap_ptr(v_tuple(s->in, 4, items));
  return true;
}

/* realize.py memory_planner (0.9.2): noopt_buffers are the Buffers of the non-KERNEL items */
static void interval_memory_planner(Sched *s, Schedule *sched) {
  Input *inp = s->inp;
  size_t nb = (size_t)inp->nbuffers, n = (size_t)sched->nitems;
  PlanBuf *bufs = arena_array(s->a, nb + 1, sizeof *bufs);
  bool *noopt = arena_array(s->a, nb + 1, sizeof *noopt);
  const int64_t **items = arena_array(s->a, n + 1, sizeof *items);
  size_t *nitems = arena_array(s->a, n + 1, sizeof *nitems);
  for (size_t i = 0; i < n; i++) {
    const ScheduleItem *si = &sched->items[i];
    int64_t *ix = arena_array(s->a, (size_t)si->nbufs + 1, sizeof *ix);
    for (int j = 0; j < si->nbufs; j++) {
      const DeviceBuffer *b = si->bufs[j];
      if (!b->planner)
        error_bad_input("memory_planner_bufs has no entry for buffer %d of schedule item %zu", b->index, i);
      ix[j] = b->index;
      if (si->ast[0]->op != OP_KERNEL && si->ast[0]->op != OP_SINK)
        noopt[b->index] = true; /* MetaOps.KERNEL, UOps.SINK (197f8fd) */
    }
    items[i] = ix;
    nitems[i] = (size_t)si->nbufs;
  }
  for (size_t b = 0; b < nb; b++) {
    const DeviceBuffer *x = &inp->buffers[b];
    int64_t base = x->base ? x->base->index : -1;
    bufs[b] = (PlanBuf){base, x->size * x->dtype->itemsize, x->offset, false};
    bufs[b].skipped =
        x->planner && (x->planner->allocated || x->planner->lb_refcount > 0 || noopt[base >= 0 ? base : (int64_t)b]);
  }
  sched->interval_assigned = arena_array(s->a, nb + 1, sizeof *sched->interval_assigned);
  if (inp->no_memory_planner) {   /* `if getenv("NO_MEMORY_PLANNER"): return {}` */
    for (size_t b = 0; b < nb; b++) sched->interval_assigned[b] = -1;
    return;
  }
  PlanSchedule ps = {items, nitems, n};
  internal_memory_planner(s->a, bufs, nb, &ps, segment_key, s, sched->interval_assigned, &sched->news, &sched->nnew);
}

/* memory_plan and memory_plan_buffers of the 0.9.2 planner: a pair per Buffer replaced by another
 * object, by first appearance; "plan:K" numbered the same way */
static JVal *encode_interval_plan(Sched *s, const Schedule *sched, JVal **plan_buffers) {
  Arena *a = s->a;
  size_t nb = (size_t)s->inp->nbuffers;
  bool *listed = arena_array(a, nb + 1, sizeof *listed);
  int64_t *renum = arena_array(a, sched->nnew + 1, sizeof *renum);
  for (size_t k = 0; k < sched->nnew; k++) renum[k] = -1;
  JVal *plan = json_arr(a), *bufs = json_arr(a);
  int64_t nplan = 0;
  for (int i = 0; i < sched->nitems; i++)
    for (int j = 0; j < sched->items[i].nbufs; j++) {
      int64_t b = sched->items[i].bufs[j]->index, r = sched->interval_assigned[b];
      if (listed[b]) continue;
      listed[b] = true;
      if (r == -1 || r == b) continue;
      JVal *pair = json_arr(a);
      json_push(a, pair, json_int(a, b));
      if (r >= 0) {
        json_push(a, pair, json_int(a, r));
      } else {
        const PlanNewBuf *nbuf = &sched->news[-2 - r];
        if (renum[-2 - r] < 0) {
          const DeviceBuffer *like = &s->inp->buffers[nbuf->like];
          JVal *o = json_obj(a);
          renum[-2 - r] = nplan++;
          json_set(a, o, "device", json_str(a, like->device));
          json_set(a, o, "size", json_int(a, like->size));
          json_set(a, o, "dtype", dtype_to_json(&s->codec, like->dtype));
          json_set(a, o, "base", json_int(a, nbuf->base));
          json_set(a, o, "offset", json_int(a, nbuf->offset));
          json_set(a, o, "options", like->dtype->is_image ? v0_9_encode_image_options(s, like->dtype) : json_null(a));
          json_push(a, bufs, o);
        }
        json_push(a, pair, json_str(a, arena_printf(a, "plan:%lld", (long long)renum[-2 - r])));
      }
      json_push(a, plan, pair);
    }
  *plan_buffers = bufs;
  return plan;
}

/* engine/schedule.py memory_planner (0.9.1): the replacements are kept in
 * sched->assigned, applied when the schedule is encoded; realize.py's (0.9.2). */
void v0_9_memory_planner(Sched *s, Schedule *sched) {
  sched->planned = s->inp->planner_ran;
  if (!sched->planned) return;
  if (s->f->interval_memory_planner) {
    interval_memory_planner(s, sched);
    return;
  }
  int nb = s->inp->nbuffers;
  Planner p = {.s = s, .sched = sched};
  p.assigned = arena_array(s->a, nb ? (size_t)nb : 1, sizeof *p.assigned);
  p.last_appearance = arena_array(s->a, nb ? (size_t)nb : 1, sizeof *p.last_appearance);
  omap_init(&p.cache, s->a);
  lru_memory_planner(&p);
  sched->assigned = p.assigned;
}

/* ---------------------------------------------------------------- encoding */

typedef struct PlanRefs { OMap index; PlanBuffer **order; int n; size_t cap; } PlanRefs;

/* "plan:K" of b, numbering b when it is new. */
static int plan_ref(Arena *a, PlanRefs *r, PlanBuffer *b) {
  intptr_t k = (intptr_t)omap_get(&r->index, omap_ptr(b));
  if (k) return (int)k - 1;
  r->order = arena_grow(a, r->order, (size_t)r->n, &r->cap, sizeof *r->order);
  r->order[r->n] = b;
  omap_put(&r->index, omap_ptr(b), (void *)(intptr_t)(r->n + 1));
  return r->n++;
}

static JVal *plan_ref_json(Arena *a, PlanRefs *r, PlanBuffer *b) {
  return json_str(a, arena_printf(a, "plan:%d", plan_ref(a, r, b)));
}

static JVal *describe_plan_buffer(Sched *s, PlanRefs *r, PlanBuffer *b) {
  Arena *a = s->a;
  JVal *o = json_obj(a);
  json_set(a, o, "device", json_str(a, b->device));
  json_set(a, o, "size", json_int(a, b->size));
  json_set(a, o, "dtype", dtype_to_json(&s->codec, b->dtype));
  JVal *base = b->plan_base ? plan_ref_json(a, r, b->plan_base)
               : b->input_base ? json_int(a, b->input_base->index) : json_null(a);
  json_set(a, o, "base", base);
  json_set(a, o, "offset", json_int(a, b->offset));
  /* Buffer.__init__: an ImageDType brings BufferOptions(image=dtype) */
  json_set(a, o, "options", b->dtype->is_image ? v0_9_encode_image_options(s, b->dtype) : json_null(a));
  return o;
}

/* memory_plan: [[old, new], ...] by first appearance of old; memory_plan_buffers: the "plan:K" Buffers. */
JVal *v0_9_encode_memory_plan(Sched *s, const Schedule *sched, JVal **plan_buffers) {
  Arena *a = s->a;
  if (!sched->planned) { *plan_buffers = json_null(a); return json_null(a); }
  if (s->f->interval_memory_planner) return encode_interval_plan(s, sched, plan_buffers);
  PlanRefs refs = {0};
  omap_init(&refs.index, a);
  OMap done;
  omap_init(&done, a);
  JVal *plan = json_arr(a);
  for (int i = 0; i < sched->nitems; i++) {
    for (int j = 0; j < sched->items[i].nbufs; j++) {
      const DeviceBuffer *b = sched->items[i].bufs[j];
      if (omap_has(&done, omap_ptr(b))) continue;
      omap_put(&done, omap_ptr(b), (void *)1);
      PlanBuffer *nb = sched->assigned[b->index];
      if (!nb) continue;
      JVal *pair = json_arr(a);
      json_push(a, pair, json_int(a, b->index));
      json_push(a, pair, plan_ref_json(a, &refs, nb));
      json_push(a, plan, pair);
    }
  }
  JVal *bufs = json_arr(a);
  for (int k = 0; k < refs.n; k++) json_push(a, bufs, describe_plan_buffer(s, &refs, refs.order[k]));
  *plan_buffers = bufs;
  return plan;
}
