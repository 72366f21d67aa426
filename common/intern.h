/* intern.h — the hash-consing table behind Value and UOp. One Interner per
 * capture, living in that capture's Arena. */
#ifndef TSCHED_INTERN_H
#define TSCHED_INTERN_H
#include "arena.h"
#include "uop.h"
#include "value.h"
#include "omap.h"

/* A scope (interner_scope_begin .. interner_scope_end, _finish): the UOps
 * made inside it live in the scope's own arena, so that the caller can free
 * them all when the scope is over (Python's UOp cache is weak: a kernel's
 * intermediate UOps die with its AST). They are in the one table while the
 * scope is open, so a node is still equal to another exactly when their
 * pointers are. A node without sources always goes to the main arena
 * (leaves are few and shared: DEVICE, DEFINE_VAR, ...). When the scope
 * ends, the nodes the caller named (interner_scope_keep), with everything
 * under them, are copied into the main arena; a copy keeps the node's id
 * and slot (it is the same node, so what an id-keyed cache holds for the
 * id stays true). interner_scope_finish kills the others: their ids map to
 * no node, are never given again, and nothing may point to them any more.
 * Between the two, the caller moves what it keeps to the copies
 * (interner_scope_copy_of). Values are not scoped. */
typedef struct InternScope {
  Arena *arena;                       /* the scope's nodes */
  uint32_t first_id, end_id;          /* the scope's nodes have ids in [first_id, end_id) */
  size_t bytes;                       /* of its nodes */
  const UOp ***cells; size_t ncells, cells_cap;   /* interner_scope_keep's cells */
  uint32_t *leaves; size_t nleaves, leaves_cap;   /* the ids of the leaves made while it was open */
  const UOp **copies;                 /* at the end: scope node id - first_id -> its main copy */
  uint32_t *kept; size_t nkept;       /* at the end: the ids that live on, in order */
} InternScope;

struct Interner {
  Arena *arena;
  /* open-addressing tables of pointers, sized to powers of two */
  const Value **values; size_t nvalues, values_cap;
  /* UOp table: slot = (high 32 bits of the hash) << 32 | (id + 1), 0 empty;
   * the hash bits let a probe skip most mismatches without touching a node. */
  uint64_t *uop_slots; size_t nuops, uop_slots_cap;
  size_t nslots, ntombs;                         /* slots used: live nodes, and dead ones' tombstones */
  const UOp **uop_by_id; size_t uop_by_id_cap;   /* id -> node; NULL for a dead one (an ended scope's) */
  InternScope *scope;                            /* the open scope, or NULL */
  const Value *none;                             /* v_none(), for uop_new */
  struct RewriteMemo *rewrite_memos;             /* rewrite.c: free RewriteContext tables */
  Arena *memo_arena;                             /* rewrite.c: where those tables live (NULL: arena) */
  /* hooks into the ShapeTracker module, for V_ST / V_MEMBUFFER / V_CONSTBUFFER */
  uint64_t (*st_hash)(const ShapeTracker *);
  bool (*st_equal)(const ShapeTracker *, const ShapeTracker *);
};

void interner_init(Interner *in, Arena *a);
/* Sizes the tables for about nuops nodes and nvalues values (a caller that
 * can tell how big its graph will get saves the rehashing as they grow). */
void interner_reserve(Interner *in, size_t nuops, size_t nvalues);

/* Opens a scope (none may be open) whose nodes live in arena a; s lives as long as the scope. */
void interner_scope_begin(Interner *in, InternScope *s, Arena *a);
/* *cell (a UOp pointer that outlives the scope) is replaced by the main
 * copy of its node when the scope ends, if it is then one of the scope's. */
void interner_scope_keep(Interner *in, const UOp **cell);
/* Closes the scope: the kept cells get the main copies of their nodes,
 * made then, sources first. No node may be made until interner_scope_finish. */
void interner_scope_end(Interner *in);
/* For a node made while s was open: its copy (a leaf's is itself), NULL
 * when it has none (it dies); an older node: itself. */
static inline const UOp *interner_scope_copy_of(const InternScope *s, const UOp *u) {
  return u->id >= s->first_id && u->id < s->end_id ? s->copies[u->id - s->first_id] : u;
}
/* The nodes of s without a copy die; the caller may then free s's arena. */
void interner_scope_finish(Interner *in, InternScope *s);
/* Forgets an open scope without copying anything: its nodes die (an exception unwound). */
void interner_scope_abandon(Interner *in);
/* Is u one of the open scope's nodes? */
static inline bool uop_in_scope(const Interner *in, const UOp *u) {
  return in->scope && u->id >= in->scope->first_id && u->nsrc;
}
#endif
