/* tlsf.h — TLSFAllocator of tinygrad 0.10.2+a0b4465 (runtime/support/allocator.py), tlsf.c. */
#ifndef KG_TLSF_H
#define KG_TLSF_H
#include <stdbool.h>
#include <stdint.h>
#include "arena.h"
#include "omap.h"
#include "error.h"

typedef struct TlsfBlock { int64_t size, next, prev; bool is_free; } TlsfBlock;   /* next/prev -1: None */
typedef struct TlsfBucket { int64_t *items; size_t n, cap; } TlsfBucket;
typedef struct Tlsf {
  Arena *a;
  int64_t size, block_size;
  int l2_cnt, nl1;
  TlsfBucket *storage;      /* storage[l1][l2] at l1 << l2_cnt | l2 */
  int64_t *lv1_entries;
  OMap blocks;              /* start -> TlsfBlock */
} Tlsf;

/* TLSFAllocator(size, block_size=block_size, lv2_cnt=lv2_cnt), in a */
void v0_10_2_tlsf_init(Tlsf *t, Arena *a, int64_t size, int64_t block_size, int lv2_cnt);
int64_t v0_10_2_tlsf_alloc(Tlsf *t, int64_t req_size);   /* alloc(req_size): the start (base 0) */
void v0_10_2_tlsf_free(Tlsf *t, int64_t start);
#endif
