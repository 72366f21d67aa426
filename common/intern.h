/* intern.h — the hash-consing table behind Value and UOp. One Interner per
 * capture, living in that capture's Arena. */
#ifndef TSCHED_INTERN_H
#define TSCHED_INTERN_H
#include "arena.h"
#include "uop.h"
#include "value.h"
#include "omap.h"

enum { BY_ID_PAGE_BITS = 8, BY_ID_PAGE = 1 << BY_ID_PAGE_BITS }; /* 2 KiB pages: a small capture clears one */

struct Interner {
  Arena *arena;
  /* open-addressing tables of pointers, sized to powers of two */
  const Value **values; size_t nvalues, values_cap;
  /* UOp table: slot = id + 1 in the low bits, some hash bits above (intern.c
   * slot_make), 0 empty; the hash bits let a probe skip most mismatches
   * without touching a node. */
  uint32_t *uop_slots; size_t nuops, uop_slots_cap;
  /* id -> node, in pages of BY_ID_PAGE ids (made as needed, never moved:
   * a growing array would leave its old copies in the arena) */
  const UOp ***by_id_pages; size_t by_id_npages, by_id_dir_cap;
  const Value *none;                             /* v_none(), for uop_new */
  struct RewriteMemo *rewrite_memos;             /* rewrite.c: free RewriteContext tables */
  struct RewriteTrace *trace;                    /* rewrite_trace.h: where this schedule's rewrite
                                                  * steps are recorded (NULL: not traced) */
  struct MemoPage *memo_pages;                   /* rewrite.c: free pages of those tables */
  Arena *memo_arena;                             /* rewrite.c: where those tables live (NULL: arena) */
  Arena *node_arena;                             /* where new nodes go (NULL: arena): a caller's scratch
                                                  * arena while it makes nodes most of which it will
                                                  * forget (interner_compact_since) */
  /* hooks into the ShapeTracker module, for V_ST / V_MEMBUFFER / V_CONSTBUFFER */
  uint64_t (*st_hash)(const ShapeTracker *);
  bool (*st_equal)(const ShapeTracker *, const ShapeTracker *);
};

void interner_init(Interner *in, Arena *a);
/* Sizes the tables for about nuops nodes and nvalues values (a caller that
 * can tell how big its graph will get saves the rehashing as they grow). */
void interner_reserve(Interner *in, size_t nuops, size_t nvalues);
/* Forgets the nodes made since uop_count(in) was `mark` but keep[0..nkeep)
 * and the nodes made since mark among their sources: these are copied into
 * in->arena (sources first, numbered from mark on) and keep[i] becomes its
 * copy. Returns the copies by old id - mark (NULL: forgotten; NULL when
 * nothing was made since mark), in `scratch` with the walk's arrays, for
 * whoever remembers nodes to follow (rewrite_context_compact). Nothing else
 * may hold a node made since mark, nor remember anything by the ids from
 * mark on; the forgotten nodes' memory (node_arena) is the caller's to free
 * once this returns. */
const UOp *const *interner_compact_since(Interner *in, uint32_t mark, const UOp **keep, size_t nkeep, Arena *scratch);
/* The node with that id (id < uop_count(in)). */
static inline const UOp *uop_by_id(const Interner *in, uint32_t id) {
  return in->by_id_pages[id >> BY_ID_PAGE_BITS][id & (BY_ID_PAGE - 1)];
}
#endif
