/* memory.c — engine/memory.py (0.10.0) memory_planner: buffers that live in
 * disjoint intervals of the schedule share memory. A buffer is replaced by an
 * earlier (bigger or equal) buffer, or by a view into one when the device's
 * allocator supports offsets. Result: the contract's memory_plan (old ->
 * new, "plan:K" for Buffers the planner created) and their descriptions. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "memory_planner.h"
#include "pipeline.h"

typedef struct PBuf {     /* a Buffer as the planner sees it */
  bool allocated;
  int64_t lb_refcount;
  bool known;             /* listed in memory_planner_bufs */
  bool noopt;             /* in noopt_buffers */
  bool listed;            /* in memory_plan already (its first appearance passed) */
} PBuf;

/* a Buffer the planner created: Buffer(device, size, dtype, base=..., offset=...) */
typedef struct NewBuf {
  int64_t like;           /* input Buffer whose device/size/dtype it copies */
  int64_t base;           /* input Buffer index */
  int64_t offset;
} NewBuf;

/* a replacement: an input Buffer (>= 0) or NewBuf k (encoded -2 - k) */
typedef int64_t Repl;

typedef struct Planner {
  Sched *s;
  PBuf *pb;
  NewBuf *news;
  size_t nnew, capnew;
} Planner;

static int64_t nbytes(const InBuf *b) { return b->size * b->dtype->itemsize; }
static int64_t base_of(Sched *s, int64_t b) { return s->bufs[b].base >= 0 ? s->bufs[b].base : b; }

static Repl new_buffer(Planner *p, int64_t like, int64_t base, int64_t offset) {
  if (p->nnew == p->capnew) {
    size_t cap = p->capnew ? p->capnew * 2 : 8;
    NewBuf *bigger = arena_array(p->s->tmp, cap, sizeof *bigger);
    if (p->nnew) memcpy(bigger, p->news, p->nnew * sizeof *bigger);
    p->news = bigger, p->capnew = cap;
  }
  p->news[p->nnew] = (NewBuf){like, base, offset};
  return -2 - (Repl)p->nnew++;
}

/* buf.is_allocated() or buf.lb_refcount > 0 or buf.base in noopt_buffers */
static bool skipped(Planner *p, int64_t b) {
  return p->pb[b].allocated || p->pb[b].lb_refcount > 0 || p->pb[base_of(p->s, b)].noopt;
}

static bool read_planner_bufs(Planner *p) {
  Sched *s = p->s;
  const JVal *arr = s->mp_bufs;
  for (size_t i = 0; i < arr->n; i++) {
    const JVal *e = arr->u.arr[i];
    if (e->kind != J_ARR || e->n != 3 || e->u.arr[0]->kind != J_INT || e->u.arr[0]->u.i < 0 ||
        (uint64_t)e->u.arr[0]->u.i >= s->nbufs || e->u.arr[1]->kind != J_BOOL || e->u.arr[2]->kind != J_INT)
      error_bad_input("input.memory_planner_bufs[%zu]: must be [buffer index, allocated, lb_refcount]", i);
    PBuf *b = &p->pb[e->u.arr[0]->u.i];
    b->allocated = e->u.arr[1]->u.b, b->lb_refcount = e->u.arr[2]->u.i, b->known = true;
  }
  return true;
}

/* the free-segment key: (device, dtype, options) + ((nbytes,) if the allocator has no offset),
 * interned so that keys compare by pointer (BufferOptions, a dataclass, by its encoding) */
static const Value *segment_key(Planner *p, int64_t b, bool offset) {
  Sched *s = p->s;
  InBuf *x = &s->bufs[b];
  const Value *opts = s->none;
  if (x->options) {
    size_t n;
    char *text = json_to_string(x->options, &n);
    opts = v_strn(s->in, V_STR, text, n);
    free(text);
  }
  const Value *items[4] = {v0_10_device_value(s, x), v_dtype(s->in, x->dtype), opts,
                           offset ? s->none : v_int(s->in, nbytes(x))};
  return v_tuple(s->in, 4, items);
}

static bool allocator_has_offset(Planner *p, const char *device, bool *out) {
  const JVal *v = p->s->mp_offset ? json_get(p->s->mp_offset, device) : NULL;
  if (!v || v->kind != J_BOOL)
    error_bad_input("input.memory_planner_allocator_offset: no entry for device %s", device);
  *out = v->u.b;
  return true;
}

/* The free-segment key of base Buffer b (memory_planner.h PlanKeyFn) */
static bool plan_key(void *ctx, int64_t b, uint64_t *key) {
  Planner *p = ctx;
  bool offset = false;
  if (!allocator_has_offset(p, p->s->bufs[b].device, &offset)) return false;
  *key = omap_ptr(segment_key(p, b, offset));
  return true;
}

/* _internal_memory_planner(buffers, noopt_buffers): Repl per Buffer index (-1: not in assigned), by
 * common/memory_planner.c (the same Python as 0.9.2's realize.py) */
static bool internal_planner(Planner *p, const SchedItem *items, size_t n, Repl *assigned) {
  Sched *s = p->s;
  PlanBuf *bufs = arena_array(s->tmp, s->nbufs + 1, sizeof *bufs);
  for (size_t b = 0; b < s->nbufs; b++)
    bufs[b] = (PlanBuf){s->bufs[b].base, nbytes(&s->bufs[b]), s->bufs[b].offset, skipped(p, (int64_t)b)};
  const int64_t **ib = arena_array(s->tmp, n + 1, sizeof *ib);
  size_t *in = arena_array(s->tmp, n + 1, sizeof *in);
  for (size_t i = 0; i < n; i++) ib[i] = items[i].bufs, in[i] = items[i].nbufs;
  PlanSchedule ps = {ib, in, n};
  PlanNewBuf *news;
  size_t nnew;
  if (!internal_memory_planner(s->tmp, bufs, s->nbufs, &ps, plan_key, p, assigned, &news, &nnew)) return false;
  for (size_t k = 0; k < nnew; k++) new_buffer(p, news[k].like, news[k].base, news[k].offset);
  return true;
}

/* an input Buffer's index, or "plan:K" for new Buffer K */
static JVal *bufref(Sched *s, Repl r) {
  if (r >= 0) return json_int(s->a, r);
  char text[32], digits[24];
  size_t nd = 0, n = 0;
  uint64_t k = (uint64_t)(-2 - r);
  do digits[nd++] = (char)('0' + k % 10), k /= 10; while (k);
  memcpy(text, "plan:", 5), n = 5;
  while (nd) text[n++] = digits[--nd];
  return json_strn(s->a, text, n);
}

/* an object member whose key is a string literal */
static JMember member(const char *key, JVal *val) { return (JMember){key, (uint32_t)strlen(key), val}; }

/* the contract's "plan:K" numbering is by first appearance in memory_plan */
static JVal *describe(Planner *p, const NewBuf *nb) {
  Sched *s = p->s;
  const InBuf *like = &s->bufs[nb->like];
  JVal *o = json_obj(s->a);
  JVal *options = like->dtype->is_image && like->options0 ? (JVal *)like->options0 : json_null(s->a);
  JMember *m = arena_array(s->a, 8, sizeof *m); /* the capacity json_set expects of 6 members */
  m[0] = member("device", json_str(s->a, like->device));
  m[1] = member("size", json_int(s->a, like->size));
  m[2] = member("dtype", dtype_to_json(&s->codec, like->dtype));
  m[3] = member("base", json_int(s->a, nb->base));
  m[4] = member("offset", json_int(s->a, nb->offset));
  m[5] = member("options", options);
  o->u.obj = m, o->n = 6;
  return o;
}

bool v0_10_memory_planner(Sched *s, const SchedItem *items, size_t n, MemPlan *out) {
  memset(out, 0, sizeof *out);
  if (!s->mp_bufs) return true;
  out->ran = true;
  out->plan = json_arr(s->a);
  out->plan_buffers = json_arr(s->a);
  if (s->no_memory_planner) return true;
  s->tmp = arena_scratch_begin(&s->scratch); /* the planner's own state; the plan in s->a */
  Planner p = {s, arena_array(s->tmp, s->nbufs + 1, sizeof(PBuf)), NULL, 0, 0};
  if (!read_planner_bufs(&p)) return false;
  for (size_t i = 0; i < n; i++) {
    for (size_t k = 0; k < items[i].nbufs; k++) {
      if (!p.pb[items[i].bufs[k]].known)
        error_bad_input("input.memory_planner_bufs: buffer %lld of the schedule is not listed", (long long)items[i].bufs[k]);
      if (items[i].ast->op != OP_SINK) p.pb[items[i].bufs[k]].noopt = true;
    }
  }
  Repl *assigned = arena_array(s->tmp, s->nbufs + 1, sizeof *assigned);
  for (size_t i = 0; i < s->nbufs; i++) assigned[i] = -1;
  if (!internal_planner(&p, items, n, assigned)) return false;
  /* one pair per Buffer replaced by another object, by first appearance; plan:K renumbered the same way */
  int64_t *renum = arena_array(s->tmp, p.nnew + 1, sizeof *renum);
  for (size_t k = 0; k < p.nnew; k++) renum[k] = -1;
  size_t nplan = 0;
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < items[i].nbufs; k++) {
      int64_t b = items[i].bufs[k];
      if (p.pb[b].listed) continue;
      p.pb[b].listed = true;
      Repl r = assigned[b];
      if (r == -1 || r == b) continue;
      if (r < 0 && renum[-2 - r] < 0) {
        renum[-2 - r] = (int64_t)nplan++;
        json_push(s->a, out->plan_buffers, describe(&p, &p.news[-2 - r]));
      }
      JVal *pair = json_arr(s->a);
      json_push(s->a, pair, json_int(s->a, b));
      json_push(s->a, pair, bufref(s, r >= 0 ? r : -2 - renum[-2 - r]));
      json_push(s->a, out->plan, pair);
    }
  arena_scratch_end(&s->scratch, s->tmp);
  s->tmp = s->a;
  return true;
}
