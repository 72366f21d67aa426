/* kernels.c — schedule items in generation-neutral words (kernels.h). */
#include "kernels.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pyrepr.h"

/* Ops that only move data or name buffers: not listed as compute. */
static bool is_plumbing(const char *op) {
  static const char *const names[] = {"LOAD", "STORE", "CONST", "DEFINE_GLOBAL", "VIEW", "VALID", "SINK",
                                      "KERNEL", "EXT", "DEVICE", "DEFINE_VAR", "BIND", "NOOP",
                                      "SHAPETRACKER", "SWIZZLE"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcmp(op, names[i]) == 0) return true;
  return false;
}

static const JVal *node_at(const JVal *nodes, const JVal *idx) {
  if (!json_is_int(idx) || idx->u.i < 0 || (size_t)idx->u.i >= nodes->n) return NULL;
  const JVal *x = nodes->u.arr[idx->u.i];
  return x->kind == J_ARR && x->n == 4 && x->u.arr[0]->kind == J_STR && x->u.arr[3]->kind == J_ARR ? x : NULL;
}

/* 197f8fd: VALID(st).where(CONST, CONST), a const */
static bool is_valid_where(const JVal *nodes, const JVal *x) {
  const JVal *srcs = x->u.arr[3];
  const JVal *c = srcs->n == 3 ? node_at(nodes, srcs->u.arr[0]) : NULL;
  return c && strcmp(c->u.arr[0]->u.s, "UOps.VALID") == 0;
}

/* The buffer index a STORE writes: 0.9.1 MemBuffer idx, 0.10.x DEFINE_GLOBAL arg of src[0]. */
static bool store_index(const JVal *nodes, const JVal *store, size_t *out) {
  const JVal *mb = json_get(store->u.arr[2], "MemBuffer");
  if (mb && mb->kind == J_ARR && mb->n == 3 && json_is_int(mb->u.arr[0])) { *out = (size_t)mb->u.arr[0]->u.i; return true; }
  const JVal *srcs = store->u.arr[3];
  const JVal *g = srcs->n ? node_at(nodes, srcs->u.arr[0]) : NULL;
  if (g && strcmp(op_short(g->u.arr[0]->u.s), "DEFINE_GLOBAL") == 0 && json_is_int(g->u.arr[2])) {
    *out = (size_t)g->u.arr[2]->u.i;
    return true;
  }
  return false;
}

static void add_output(KernelInfo *k, size_t idx) {
  for (size_t i = 0; i < k->nout; i++)
    if (k->out[i] == idx) return;
  if (k->nout < KERNEL_MAX_OUTS) k->out[k->nout++] = idx;
}

/* Roots: 0.9.1 a tuple of STOREs (or one meta op); 0.9.2 a KERNEL of STOREs (or an EXT of
 * (meta op, arg)); 0.10.x a SINK of STOREs (or one meta op). */
static void find_outputs(KernelInfo *k, const JVal *nodes, const JVal *roots) {
  for (size_t r = 0; r < roots->n; r++) {
    const JVal *root = node_at(nodes, roots->u.arr[r]);
    if (!root) continue;
    const char *op = op_short(root->u.arr[0]->u.s);
    const JVal *ext = root->u.arr[2];
    if (strcmp(op, "EXT") == 0 && ext->kind == J_ARR && ext->n == 2 && ext->u.arr[0]->kind == J_STR) op = op_short(ext->u.arr[0]->u.s);
    if (strcmp(op, "SINK") == 0 || strcmp(op, "KERNEL") == 0) {
      const JVal *srcs = root->u.arr[3];
      for (size_t i = 0; i < srcs->n; i++) {
        const JVal *st = node_at(nodes, srcs->u.arr[i]);
        size_t idx;
        if (st && strcmp(op_short(st->u.arr[0]->u.s), "STORE") == 0 && store_index(nodes, st, &idx)) add_output(k, idx);
      }
    } else if (strcmp(op, "STORE") == 0) {
      size_t idx;
      if (store_index(nodes, root, &idx)) add_output(k, idx);
    } else {
      snprintf(k->kind, sizeof k->kind, "%s", op);
      for (char *p = k->kind; *p; p++) *p = (char)tolower((unsigned char)*p);
      add_output(k, 0);
    }
  }
}

/* "REDUCE.ADD" and "ADD(1, 2)" from 0.9.1 ReduceOps.SUM/MAX + axes or 0.10.x REDUCE_AXIS (op, axes). */
static void add_reduce(KernelInfo *k, TgVersion v, const char *op, const JVal *arg) {
  const char *kind = "?";
  const JVal *axes = arg;
  if (tg_features(v)->ast_is_lazyop) kind = strcmp(op, "SUM") == 0 ? "ADD" : "MAX"; /* ReduceOps.SUM / MAX */
  else if (arg && arg->kind == J_ARR && arg->n == 2 && arg->u.arr[0]->kind == J_STR) {
    kind = op_short(arg->u.arr[0]->u.s);
    axes = arg->u.arr[1];
  }
  if (k->ops.n) sb_putc(&k->ops, ' ');
  sb_printf(&k->ops, "REDUCE.%s", kind);
  if (k->reduces.n) sb_putc(&k->reduces, ' ');
  sb_puts(&k->reduces, kind);
  value_repr(&k->reduces, v, axes, false, NULL);
  k->nreduces++;
}

bool kernel_info(const JVal *item, TgVersion v, KernelInfo *k) {
  memset(k, 0, sizeof *k);
  snprintf(k->kind, sizeof k->kind, "kernel");
  const JVal *ast = json_get(item, "ast"), *nodes = json_get(ast, "nodes"), *roots = json_get(ast, "roots");
  static JVal no_bufs = {.kind = J_ARR};
  k->bufs = json_get(item, "bufs");
  if (!k->bufs || k->bufs->kind != J_ARR) k->bufs = &no_bufs; /* malformed: callers may still read k->bufs->n */
  if (!nodes || nodes->kind != J_ARR || !roots || roots->kind != J_ARR || k->bufs == &no_bufs) return false;
  find_outputs(k, nodes, roots);
  const char *last = NULL;
  size_t repeat = 0;
  for (size_t i = 0; i < nodes->n; i++) {
    const JVal *x = nodes->u.arr[i];
    if (x->kind != J_ARR || x->n != 4 || x->u.arr[0]->kind != J_STR) return false;
    const char *full = x->u.arr[0]->u.s, *op = op_short(full);
    if (is_plumbing(op)) continue;
    const JVal *arg = x->u.arr[2];
    if (strcmp(full, "UOps.ALU") == 0 && arg->kind == J_STR) op = op_short(arg->u.s);   /* 197f8fd: the op is the arg */
    if (strcmp(op, "WHERE") == 0 && is_valid_where(nodes, x)) continue;                /* 197f8fd's CONST */
    k->nops++;
    bool reduce = strncmp(full, "ReduceOps.", 10) == 0 || strcmp(op, "REDUCE_AXIS") == 0;
    if (reduce) {
      if (repeat > 1) sb_printf(&k->ops, "*%zu", repeat);
      add_reduce(k, v, op, arg);
      last = NULL, repeat = 0;
      continue;
    }
    if (last && strcmp(last, op) == 0) { repeat++; continue; }
    if (repeat > 1) sb_printf(&k->ops, "*%zu", repeat);
    if (k->ops.n) sb_putc(&k->ops, ' ');
    sb_puts(&k->ops, op);
    last = op;
    repeat = 1;
  }
  if (repeat > 1) sb_printf(&k->ops, "*%zu", repeat);
  return true;
}

void kernel_info_free(KernelInfo *k) {
  sb_free(&k->ops);
  sb_free(&k->reduces);
}

uint64_t bufref_key(const JVal *ref) {
  if (json_is_int(ref)) return (uint64_t)ref->u.i;
  static const char *const tags[] = {"new:", "plan:", "u:"};
  for (size_t t = 0; ref && ref->kind == J_STR && t < 3; t++)
    if (strncmp(ref->u.s, tags[t], strlen(tags[t])) == 0)
      return ((uint64_t)(t + 1) << 40) | (uint64_t)strtoull(ref->u.s + strlen(tags[t]), NULL, 10);
  return UINT64_MAX;
}

const char *bufref_text(const JVal *ref, char *buf, size_t n) {
  if (json_is_int(ref)) snprintf(buf, n, "%lld", (long long)ref->u.i);
  else if (ref && ref->kind == J_STR) snprintf(buf, n, "%s", ref->u.s);
  else snprintf(buf, n, "?");
  return buf;
}

const char *buf_desc(const JVal *ref, const Capture *c, const JVal *result, char *buf, size_t n) {
  const JVal *list = NULL;
  long long idx = -1;
  if (json_is_int(ref)) list = json_get(c->input, "buffers"), idx = ref->u.i;
  else if (ref && ref->kind == J_STR) {
    if (strncmp(ref->u.s, "new:", 4) == 0) list = json_get(result, "new_buffers"), idx = atoll(ref->u.s + 4);
    else if (strncmp(ref->u.s, "plan:", 5) == 0) list = json_get(result, "memory_plan_buffers"), idx = atoll(ref->u.s + 5);
  }
  const JVal *b = list && list->kind == J_ARR && idx >= 0 && (size_t)idx < list->n ? list->u.arr[idx] : NULL;
  const JVal *dt = json_get(b, "dtype"), *size = json_get(b, "size");
  if (!dt || dt->kind != J_STR || !json_is_int(size)) { snprintf(buf, n, "?"); return buf; }
  snprintf(buf, n, "%s[%lld]", dt->u.s, (long long)size->u.i);
  return buf;
}
