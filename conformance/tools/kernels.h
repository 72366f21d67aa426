/* kernels.h — one schedule item summarised in words every generation shares:
 * what kind of item it is, which buffers it writes, its compute ops, its
 * reduces and their axes. Used by diff, compare and explain. */
#ifndef TSCHED_KERNELS_H
#define TSCHED_KERNELS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "capture.h"
#include "json.h"
#include "tools.h"

enum { KERNEL_MAX_OUTS = 64 };

typedef struct KernelInfo {
  char kind[24];            /* "kernel", or the meta op: "copy", "empty", "custom", "buffer_view", "view" */
  const JVal *bufs;         /* the item's BUFREF array (an empty one when malformed) */
  size_t nout;              /* bufs[out[i]] are written */
  size_t out[KERNEL_MAX_OUTS];
  StrBuf ops;               /* compute ops in post-order, "MUL ADD REDUCE.ADD EXP2"; repeats as "MUL*2" */
  StrBuf reduces;           /* "ADD(1) MAX(0, 2)" */
  size_t nops, nreduces;
} KernelInfo;

/* Summarises schedule item `item` of generation v; false if malformed. */
bool kernel_info(const JVal *item, TgVersion v, KernelInfo *k);
void kernel_info_free(KernelInfo *k);

/* A buffer as "float[20]" (dtype, element count) looked up in the capture's
 * input.buffers ("5"), the result's new_buffers ("new:0") or
 * memory_plan_buffers ("plan:0"); "?" when unknown. */
const char *buf_desc(const JVal *ref, const Capture *c, const JVal *result, char *buf, size_t n);
/* A BUFREF as a map key: an int as itself, "new:K" / "plan:K" / "u:K" tagged above bit 40. */
uint64_t bufref_key(const JVal *ref);
/* The BUFREF as text: "5", "new:0". */
const char *bufref_text(const JVal *ref, char *buf, size_t n);
#endif
