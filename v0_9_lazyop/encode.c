/* encode.c — the result of one 0.9.1 scheduler call as the contract's
 * `expected` object (capture-format section 5): schedule items (AST GRAPH,
 * bufs as BUFREFs, metadata), var_vals, the memory plan and the mutations
 * the image-dtype fallback made to the input. */
#include "sched91.h"

JVal *encode_image_options91(Sched91 *s, const DType *image) {
  Arena *a = s->a;
  JVal *o = json_obj(a);
  json_set(a, o, "image", dtype_to_json(&s->codec, image));
  static const char *flags[] = {"uncached", "cpu_access", "host", "nolru", "external_ptr"};
  for (int i = 0; i < 5; i++) json_set(a, o, flags[i], json_bool(a, false));
  return o;
}

/* Buffer.options now: as recorded, or None once the fallback cleared it. */
JVal *encode_options91(Arena *a, const DeviceBuffer *b) {
  if (b->options_cleared || !b->options) return json_null(a);
  return (JVal *)b->options;
}

static JVal *encode_item(Sched91 *s, const ScheduleItem91 *si) {
  Arena *a = s->a;
  JVal *o = json_obj(a), *bufs = json_arr(a);
  json_set(a, o, "ast", graph_encode(&s->codec, si->ast, (size_t)si->nast));
  for (int i = 0; i < si->nbufs; i++) json_push(a, bufs, json_int(a, si->bufs[i]->index));
  json_set(a, o, "bufs", bufs);
  json_set(a, o, "metadata", json_arr(a));   /* 0.9.1's ScheduleItem has no metadata */
  return o;
}

/* {"lazybuffers": [[lb, DT]], "buffers": [[buffer, DT, OPTIONS]]} in index order */
static JVal *encode_mutations(Sched91 *s) {
  Arena *a = s->a;
  Input91 *inp = s->inp;
  JVal *m = json_obj(a), *lbs = json_arr(a), *bufs = json_arr(a);
  for (int i = 0; i < inp->nlbs; i++) {
    const LazyBuffer *lb = &inp->lbs[i];
    if (lb->dtype == lb->orig_dtype) continue;
    JVal *e = json_arr(a);
    json_push(a, e, json_int(a, i));
    json_push(a, e, dtype_to_json(&s->codec, lb->dtype));
    json_push(a, lbs, e);
  }
  for (int i = 0; i < inp->nbuffers; i++) {
    const DeviceBuffer *b = &inp->buffers[i];
    if (b->dtype == b->orig_dtype && !(b->options_cleared && b->options)) continue;
    JVal *e = json_arr(a);
    json_push(a, e, json_int(a, i));
    json_push(a, e, dtype_to_json(&s->codec, b->dtype));
    json_push(a, e, encode_options91(a, b));
    json_push(a, bufs, e);
  }
  json_set(a, m, "lazybuffers", lbs);
  json_set(a, m, "buffers", bufs);
  return m;
}

JVal *encode_result91(Sched91 *s, const Schedule91 *sched) {
  Arena *a = s->a;
  JVal *o = json_obj(a), *items = json_arr(a), *plan_buffers;
  for (int i = 0; i < sched->nitems; i++) json_push(a, items, encode_item(s, &sched->items[i]));
  json_set(a, o, "schedule", items);
  json_set(a, o, "var_vals", json_arr(a));   /* symbolic shapes are reported unsupported before this */
  json_set(a, o, "memory_plan", encode_memory_plan91(s, sched, &plan_buffers));
  json_set(a, o, "memory_plan_buffers", plan_buffers);
  json_set(a, o, "mutations", encode_mutations(s));
  return o;
}
