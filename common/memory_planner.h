/* memory_planner.h — _internal_memory_planner(buffers, noopt_buffers) of
 * tinygrad 0.9.2's engine/realize.py, the same code as 0.10.0's
 * engine/memory.py: buffers that live in disjoint intervals of the
 * schedule share memory, the largest placed first. One C function serves
 * every version with this planner; each scheduler describes its Buffers. */
#ifndef TSCHED_MEMORY_PLANNER_H
#define TSCHED_MEMORY_PLANNER_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arena.h"

/* One Buffer of the schedule, by its index */
typedef struct PlanBuf {
  int64_t base;      /* the index of its base Buffer, -1 for a base */
  int64_t nbytes, offset;
  bool skipped;      /* buf.is_allocated() or buf.lb_refcount > 0 or buf.base in noopt_buffers */
} PlanBuf;

/* A Buffer the planner creates: Buffer(like.device, like.size, like.dtype, base=base, offset=offset) */
typedef struct PlanNewBuf { int64_t like, base, offset; } PlanNewBuf;

/* The schedule: item i uses bufs[i][0 .. nbufs[i]) */
typedef struct PlanSchedule { const int64_t *const *bufs; const size_t *nbufs; size_t n; } PlanSchedule;

/* The free-segment key of base Buffer b, (buf.device, buf.dtype, buf.options) + ((buf.nbytes,) unless
 * Device[buf.device].allocator has "offset"), as a number equal keys share; false (error raised) when unknown. */
typedef bool (*PlanKeyFn)(void *ctx, int64_t b, uint64_t *key);

/* Writes assigned[b] for every Buffer index b < nbufs: -1 when not in `assigned`, b' >= 0 an input
 * Buffer, -2 - k the k-th of *news (in creation order; a view gets a new Buffer at each appearance,
 * the last one kept). Scratch memory comes from tmp. */
bool internal_memory_planner(Arena *tmp, const PlanBuf *bufs, size_t nbufs, const PlanSchedule *sched, PlanKeyFn key, void *ctx,
                             int64_t *assigned, PlanNewBuf **news, size_t *nnew);
#endif
