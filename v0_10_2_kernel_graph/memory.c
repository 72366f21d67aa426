/* memory.c — tinygrad 0.10.2 engine/memory.py: memory_planner and
 * _internal_memory_planner. Whether a Buffer was allocated and its
 * lb_refcount when the planner ran come from the capture
 * (memory_planner_bufs), whether a device's allocator has `offset` from
 * memory_planner_allocator_offset. */
#include <stdio.h>
#include <string.h>
#include "schedule.h"

static Buf *buf_base(Buf *b) { return b->base ? b->base : b; }
static int64_t nbytes(const Buf *b) { return b->size * b->dtype->itemsize; }

/* BufferSpec as a comparable string (None, or its fields) */
static const char *options_key(Arena *tmp, const Buf *b) {
  char d[128];
  if (b->image) {
    dtype_repr(b->image, TG_0_10_2, d, sizeof d);
    return arena_printf(tmp, "%s|0|0|0|0|0", d);
  }
  if (!b->options || b->options->kind != J_OBJ) return "None";
  const JVal *img = json_get(b->options, "image");
  const char *fields[5] = {"uncached", "cpu_access", "host", "nolru", "external_ptr"};
  char flags[16] = {0};
  for (int i = 0; i < 5; i++) {
    const JVal *f = json_get(b->options, fields[i]);
    flags[2 * i] = f && f->kind == J_BOOL && f->u.b ? '1' : '0';
    flags[2 * i + 1] = '|';
  }
  flags[9] = 0;
  return arena_printf(tmp, "%s|%s", img && img->kind == J_STR ? img->u.s : "None", flags);
}

static bool has_offset(const JVal *allocator_offset, const char *device) {
  const JVal *v = allocator_offset ? json_get(allocator_offset, device) : NULL;
  return v && v->kind == J_BOOL && v->u.b;
}

static Buf *new_plan_buffer(KG *k, const Buf *like, Buf *base, int64_t offset) {
  Buf *b = arena_alloc(k->a, sizeof *b);
  b->input_index = -1;
  b->device = like->device;
  b->size = like->size;
  b->dtype = like->dtype;
  b->image = like->dtype->is_image ? like->dtype : NULL;
  b->base = base;
  b->offset = offset;
  return b;
}

typedef struct Seg { int64_t st, en; Buf *buf; } Seg;
typedef struct SegList { Seg *items; size_t n, cap; } SegList;

static void seg_push(Arena *tmp, SegList *l, Seg s) {
  if (l->n == l->cap) l->items = grow(tmp, l->items, l->n, &l->cap, sizeof *l->items);
  l->items[l->n++] = s;
}

/* find_replace_buffer: free segments are keyed by (device, dtype, options[, nbytes]); the
 * segments and keys live in keys' arena */
static Buf *find_replace_buffer(KG *k, OMap *free_segs, Interner *keys, Buf *buf, int64_t st, int64_t en, int64_t last,
                                const JVal *allocator_offset) {
  char d[128];
  Arena *tmp = keys->arena;
  const char *key = arena_printf(tmp, "%s|%s|%s|%lld", buf->device, dtype_repr(buf->dtype, TG_0_10_2, d, sizeof d),
                                 options_key(tmp, buf), has_offset(allocator_offset, buf->device) ? -1LL : (long long)nbytes(buf));
  const Value *kv = v_str(keys, key);
  SegList *segs = omap_get(free_segs, omap_ptr(kv));
  if (!segs) {
    segs = arena_alloc(tmp, sizeof *segs);
    omap_put(free_segs, omap_ptr(kv), segs);
  }
  Seg seg = {0, last, buf};
  for (size_t i = 0; i < segs->n; i++) {
    if (segs->items[i].st <= st && en <= segs->items[i].en) {
      seg = segs->items[i];
      memmove(segs->items + i, segs->items + i + 1, (segs->n - i - 1) * sizeof *segs->items);
      segs->n--;
      break;
    }
  }
  if (st - 1 >= seg.st) seg_push(tmp, segs, (Seg){seg.st, st - 1, seg.buf});
  if (seg.en >= en + 1) seg_push(tmp, segs, (Seg){en + 1, seg.en, seg.buf});
  return nbytes(seg.buf) == nbytes(buf) ? seg.buf : new_plan_buffer(k, buf, seg.buf, 0);
}

static bool skip(Buf *b) { return b->allocated || b->lb_refcount > 0 || buf_base(b)->plan_noopt; }

/* the planner's fields of the schedule's Buffers and their bases cleared */
static void plan_fields_clear(const SchedResult *res) {
  for (size_t i = 0; i < res->n; i++)
    for (size_t j = 0; j < res->items[i].nbufs; j++) {
      Buf *bs[2] = {res->items[i].bufs[j], buf_base(res->items[i].bufs[j])};
      for (int t = 0; t < 2; t++) bs[t]->plan_noopt = false, bs[t]->plan_first = bs[t]->plan_last = 0, bs[t]->plan_to = NULL;
    }
}

/* _internal_memory_planner's first_appearance / last_appearance (on the
 * bases' plan_first / plan_last); returns the bases in first-appearance
 * order, in tmp */
static Buf **plan_appearances(Arena *tmp, const SchedResult *res, size_t *nreq) {
  size_t total = 0, n = 0;
  for (size_t i = 0; i < res->n; i++) total += res->items[i].nbufs;
  Buf **req = arena_array(tmp, total ? total : 1, sizeof *req);
  for (size_t i = 0; i < res->n; i++)
    for (size_t j = 0; j < res->items[i].nbufs; j++) {
      Buf *b = res->items[i].bufs[j], *base = buf_base(b);
      if (skip(b)) continue;
      if (!base->plan_first) base->plan_first = (uint32_t)(i + 1), req[n++] = base;
      base->plan_last = (uint32_t)(i + 1);
    }
  *nreq = n;
  return req;
}

/* memory.py memory_planner (the plan and its Buffers in k->a, the rest in a
 * scratch arena; noopt_buffers, the appearances and `assigned` in the
 * Buffers' plan_ fields) */
void memory_planner(KG *k, const SchedResult *res, const JVal *allocator_offset, MemoryPlan *plan) {
  plan->ran = !k->no_memory_planner;
  plan->bufs = arena_array(k->a, res->n ? res->n : 1, sizeof *plan->bufs);
  Arena *tmp = kg_scratch_begin(k);
  plan_fields_clear(res);
  for (size_t i = 0; i < res->n; i++)
    if (res->items[i].ast->op != OP_SINK)
      for (size_t j = 0; j < res->items[i].nbufs; j++) res->items[i].bufs[j]->plan_noopt = true;
  if (plan->ran) {
    size_t nreq;
    Buf **req = plan_appearances(tmp, res, &nreq);
    /* buffer_requests sorted by -nbytes (stable) */
    for (size_t r = 1; r < nreq; r++) {
      Buf *b = req[r];
      size_t j = r;
      while (j > 0 && nbytes(req[j - 1]) < nbytes(b)) { req[j] = req[j - 1]; j--; }
      req[j] = b;
    }
    OMap free_segs;
    omap_init(&free_segs, tmp);
    Interner keys;
    interner_init(&keys, tmp);
    for (size_t i = 0; i < nreq; i++) {
      Buf *b = req[i];
      req[i]->plan_to = find_replace_buffer(k, &free_segs, &keys, b, (int64_t)b->plan_first - 1, (int64_t)b->plan_last - 1,
                                            (int64_t)res->n - 1, allocator_offset);
    }
    for (size_t i = 0; i < res->n; i++)
      for (size_t j = 0; j < res->items[i].nbufs; j++) {
        Buf *b = res->items[i].bufs[j];
        if (skip(b)) continue;
        if (b->base) {
          Buf *ab = b->base->plan_to;
          b->plan_to = new_plan_buffer(k, b, buf_base(ab ? ab : b->base), b->offset);
        } else if (!b->plan_to) b->plan_to = b;
      }
  }
  for (size_t i = 0; i < res->n; i++) {
    plan->bufs[i] = arena_array(k->a, res->items[i].nbufs ? res->items[i].nbufs : 1, sizeof **plan->bufs);
    for (size_t j = 0; j < res->items[i].nbufs; j++) {
      Buf *b = res->items[i].bufs[j], *nb = b->plan_to;
      plan->bufs[i][j] = nb ? nb : b;
    }
  }
  kg_scratch_end(k, tmp);
}
