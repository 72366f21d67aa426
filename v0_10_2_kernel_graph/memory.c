/* memory.c — tinygrad 0.10.2 engine/memory.py: memory_planner and
 * _internal_memory_planner. Whether a Buffer was allocated and its
 * lb_refcount when the planner ran come from the capture
 * (memory_planner_bufs), whether a device's allocator has `offset` from
 * memory_planner_allocator_offset. */
#include <stdio.h>
#include <string.h>
#include "schedule.h"
#include "tlsf.h"

static Buf *buf_base(Buf *b) { return b->base ? b->base : b; }
static int64_t nbytes(const Buf *b) { return b->size * b->dtype->itemsize; }

/* BufferSpec as a comparable string (None, or its fields) */
static const char *options_key(const KG *k, Arena *tmp, const Buf *b) {
  char d[128];
  if (b->image) {
    dtype_repr(b->image, k->cap->generation, d, sizeof d);
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
  if (l->n == l->cap) l->items = arena_grow(tmp, l->items, l->n, &l->cap, sizeof *l->items);
  l->items[l->n++] = s;
}

/* find_replace_buffer: free segments are keyed by (device, dtype, options[, nbytes]); the
 * segments and keys live in keys' arena */
static Buf *find_replace_buffer(KG *k, OMap *free_segs, Interner *keys, Buf *buf, int64_t st, int64_t en, int64_t last,
                                const JVal *allocator_offset) {
  char d[128];
  Arena *tmp = keys->arena;
  const char *key =
      arena_printf(tmp, "%s|%s|%s|%lld", buf->device, dtype_repr(buf->dtype, k->cap->generation, d, sizeof d),
          options_key(k, tmp, buf), has_offset(allocator_offset, buf->device) ? -1LL : (long long)nbytes(buf));
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

/* ---------------------------------------------------------------- a0b4465 */

static bool skip_a0b4465(Buf *b) { return b->allocated || buf_base(b)->allocated || b->lb_refcount > 0 || buf_base(b)->plan_noopt; }
static int64_t round_up(int64_t x, int64_t a) { return (x + a - 1) / a * a; }

/* one request of buffer_requests: ((time, is_open_ev), buf) */
typedef struct Request { int64_t time; bool open; Buf *buf; } Request;

/* a device's global_planner entry: (size, TLSFAllocator) and its global buffer */
typedef struct Global { int64_t size; Tlsf alloc; Buf *buffer; } Global;

static Global *global_of(Arena *tmp, OMap *planners, Interner *keys, const char *dev, const char ***order, size_t *n) {
  const Value *kv = v_str(keys, dev);
  Global *g = omap_get(planners, omap_ptr(kv));
  if (g) return g;
  g = arena_alloc(tmp, sizeof *g);
  g->size = 0, g->buffer = NULL;
  v0_10_2_tlsf_init(&g->alloc, tmp, (int64_t)1 << 44, 0x1000, 32);
  omap_put(planners, omap_ptr(kv), g);
  (*order)[(*n)++] = dev;
  return g;
}

/* a0b4465 memory.py _internal_memory_planner: the bases' plan_to (buffer_replace resolved), timeline order */
static void plan_timeline(KG *k, Arena *tmp, const SchedResult *res, const JVal *allocator_offset) {
  size_t nbase;
  size_t total = 0;
  for (size_t i = 0; i < res->n; i++) total += res->items[i].nbufs;
  Buf **bases = arena_array(tmp, total ? total : 1, sizeof *bases);
  nbase = 0;
  for (size_t i = 0; i < res->n; i++)
    for (size_t j = 0; j < res->items[i].nbufs; j++) {
      Buf *b = res->items[i].bufs[j], *base = buf_base(b);
      if (skip_a0b4465(b)) continue;
      if (!base->plan_first) base->plan_first = (uint32_t)(i + 1), bases[nbase++] = base;
      base->plan_last = (uint32_t)(i + 1);
    }
  /* sorted(opens + closes, key=(time, is_open)): stable, closes before opens at one time */
  Request *req = arena_array(tmp, 2 * nbase + 1, sizeof *req);
  size_t nreq = 0;
  for (size_t i = 0; i < nbase; i++) req[nreq++] = (Request){(int64_t)bases[i]->plan_first - 1, true, bases[i]};
  for (size_t i = 0; i < nbase; i++) req[nreq++] = (Request){(int64_t)bases[i]->plan_last, false, bases[i]};
  for (size_t r = 1; r < nreq; r++) {
    Request x = req[r];
    size_t j = r;
    while (j > 0 && (req[j - 1].time > x.time || (req[j - 1].time == x.time && req[j - 1].open && !x.open))) { req[j] = req[j - 1]; j--; }
    req[j] = x;
  }
  OMap planners, reuse;
  omap_init(&planners, tmp);
  omap_init(&reuse, tmp);
  Interner keys;
  interner_init(&keys, tmp);
  const char **devs = arena_array(tmp, nbase + 1, sizeof *devs);
  size_t ndevs = 0;
  int64_t *offs = arena_array(tmp, nbase + 1, sizeof *offs);   /* buffer_replace[buf][1], by position in bases */
  OMap position;   /* base -> its index in bases + 1 */
  omap_init(&position, tmp);
  for (size_t i = 0; i < nbase; i++) omap_put(&position, omap_ptr(bases[i]), (void *)(uintptr_t)(i + 1));
  Buf **replace = arena_array(tmp, nbase + 1, sizeof *replace);
  for (size_t r = 0; r < nreq; r++) {
    Buf *buf = req[r].buf;
    size_t pos = (size_t)(uintptr_t)omap_get(&position, omap_ptr(buf)) - 1;
    if (has_offset(allocator_offset, buf->device) && !buf->dtype->is_image && !buf->image) {
      Global *g = global_of(tmp, &planners, &keys, buf->device, &devs, &ndevs);
      if (req[r].open) replace[pos] = NULL, offs[pos] = v0_10_2_tlsf_alloc(&g->alloc, round_up(nbytes(buf), 0x1000));
      else v0_10_2_tlsf_free(&g->alloc, offs[pos]);
      if (offs[pos] + nbytes(buf) > g->size) g->size = offs[pos] + nbytes(buf);
      continue;
    }
    char d[128];
    const char *key = arena_printf(tmp, "%s|%s|%s|%lld", buf->device,
        dtype_repr(buf->dtype, k->cap->generation, d, sizeof d), options_key(k, tmp, buf), (long long)nbytes(buf));
    const Value *kv = v_str(&keys, key);
    SegList *l = omap_get(&reuse, omap_ptr(kv));
    if (!l) {
      l = arena_alloc(tmp, sizeof *l);
      omap_put(&reuse, omap_ptr(kv), l);
    }
    if (req[r].open) replace[pos] = l->n ? l->items[--l->n].buf : buf, offs[pos] = -1;
    else seg_push(tmp, l, (Seg){0, 0, replace[pos]});
  }
  /* global_buffers = {dev: Buffer(dev, round_up(sz, 0x1000), dtypes.int8)} */
  for (size_t i = 0; i < ndevs; i++) {
    Global *g = omap_get(&planners, omap_ptr(v_str(&keys, devs[i])));
    Buf *gb = arena_alloc(k->a, sizeof *gb);
    memset(gb, 0, sizeof *gb);
    gb->input_index = -1, gb->device = devs[i], gb->size = round_up(g->size, 0x1000), gb->dtype = dt_char;
    g->buffer = gb;
  }
  /* assign full buffers (not sub-buffers) */
  for (size_t i = 0; i < nbase; i++) {
    Buf *buf = bases[i];
    if (replace[i] == NULL) {
      Global *g = omap_get(&planners, omap_ptr(v_str(&keys, buf->device)));
      buf->plan_to = new_plan_buffer(k, buf, g->buffer, offs[i]);
    } else if (replace[i] != buf) buf->plan_to = replace[i];
  }
}

/* memory.py memory_planner (the plan and its Buffers in k->a, the rest in a
 * scratch arena; noopt_buffers, the appearances and `assigned` in the
 * Buffers' plan_ fields) */
void v0_10_2_memory_planner(KG *k, const SchedResult *res, const JVal *allocator_offset, MemoryPlan *plan) {
  plan->ran = !k->no_memory_planner;
  plan->bufs = arena_array(k->a, res->n ? res->n : 1, sizeof *plan->bufs);
  Arena *tmp = arena_scratch_begin(&k->scratch);
  plan_fields_clear(res);
  for (size_t i = 0; i < res->n; i++)
    if (res->items[i].ast->op != OP_SINK)
      for (size_t j = 0; j < res->items[i].nbufs; j++) res->items[i].bufs[j]->plan_noopt = true;
  if (plan->ran && k->f->planner_tlsf) {
    plan_timeline(k, tmp, res, allocator_offset);
    /* now assign sub-buffers: Buffer(..., base=(pbuf:=assigned.get(buf.base, buf.base)).base, offset=pbuf.offset+buf.offset) */
    for (size_t i = 0; i < res->n; i++)
      for (size_t j = 0; j < res->items[i].nbufs; j++) {
        Buf *b = res->items[i].bufs[j];
        if (skip_a0b4465(b) || !b->base || b->plan_to) continue;
        Buf *pbuf = b->base->plan_to ? b->base->plan_to : b->base;
        b->plan_to = new_plan_buffer(k, b, buf_base(pbuf), (pbuf->base ? pbuf->offset : 0) + b->offset);
      }
  } else if (plan->ran) {
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
  arena_scratch_end(&k->scratch, tmp);
}
