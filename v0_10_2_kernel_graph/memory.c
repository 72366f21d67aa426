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

static bool skip(Buf *b, OMap *noopt) {
  return b->allocated || b->lb_refcount > 0 || omap_has(noopt, omap_ptr(buf_base(b)));
}

/* memory.py memory_planner (the plan and its Buffers in k->a, the rest in a scratch arena) */
void memory_planner(KG *k, const SchedResult *res, const JVal *allocator_offset, MemoryPlan *plan) {
  plan->ran = !k->no_memory_planner;
  plan->bufs = arena_array(k->a, res->n ? res->n : 1, sizeof *plan->bufs);
  Arena *tmp = kg_scratch_begin(k);
  OMap noopt, first, last, assigned, free_segs;
  omap_init(&noopt, tmp);
  omap_init(&first, tmp);
  omap_init(&last, tmp);
  omap_init(&assigned, tmp);
  omap_init(&free_segs, tmp);
  for (size_t i = 0; i < res->n; i++)
    if (res->items[i].ast->op != OP_SINK)
      for (size_t j = 0; j < res->items[i].nbufs; j++) omap_put(&noopt, omap_ptr(res->items[i].bufs[j]), (void *)1);
  if (plan->ran) {
    for (size_t i = 0; i < res->n; i++)
      for (size_t j = 0; j < res->items[i].nbufs; j++) {
        Buf *b = res->items[i].bufs[j];
        if (skip(b, &noopt)) continue;
        omap_setdefault(&first, omap_ptr(buf_base(b)), (void *)(uintptr_t)(i + 1));
        omap_put(&last, omap_ptr(buf_base(b)), (void *)(uintptr_t)(i + 1));
      }
    /* buffer_requests sorted by -nbytes (stable) */
    size_t nreq = omap_len(&first), r = 0;
    Buf **req = arena_array(tmp, nreq ? nreq : 1, sizeof *req);
    uint64_t key;
    for (size_t pos = 0; omap_next(&first, &pos, &key, NULL);) {
      Buf *b = (Buf *)(uintptr_t)key;
      size_t j = r++;
      while (j > 0 && nbytes(req[j - 1]) < nbytes(b)) { req[j] = req[j - 1]; j--; }
      req[j] = b;
    }
    Interner keys;
    interner_init(&keys, tmp);
    for (size_t i = 0; i < nreq; i++) {
      Buf *b = req[i];
      int64_t st = (int64_t)(uintptr_t)omap_get(&first, omap_ptr(b)) - 1, en = (int64_t)(uintptr_t)omap_get(&last, omap_ptr(b)) - 1;
      omap_put(&assigned, omap_ptr(b), find_replace_buffer(k, &free_segs, &keys, b, st, en, (int64_t)res->n - 1, allocator_offset));
    }
    for (size_t i = 0; i < res->n; i++)
      for (size_t j = 0; j < res->items[i].nbufs; j++) {
        Buf *b = res->items[i].bufs[j];
        if (skip(b, &noopt)) continue;
        if (b->base) {
          Buf *ab = omap_get(&assigned, omap_ptr(b->base));
          omap_put(&assigned, omap_ptr(b), new_plan_buffer(k, b, buf_base(ab ? ab : b->base), b->offset));
        } else if (!omap_has(&assigned, omap_ptr(b))) omap_put(&assigned, omap_ptr(b), b);
      }
  }
  for (size_t i = 0; i < res->n; i++) {
    plan->bufs[i] = arena_array(k->a, res->items[i].nbufs ? res->items[i].nbufs : 1, sizeof **plan->bufs);
    for (size_t j = 0; j < res->items[i].nbufs; j++) {
      Buf *b = res->items[i].bufs[j], *nb = omap_get(&assigned, omap_ptr(b));
      plan->bufs[i][j] = nb ? nb : b;
    }
  }
  kg_scratch_end(k, tmp);
}
