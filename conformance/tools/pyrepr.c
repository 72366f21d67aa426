/* pyrepr.c — tinygrad's reprs of kernel ASTs, per version (pyrepr.h). */
#include "pyrepr.h"
#include "ops.h"
#include <stdlib.h>
#include <string.h>

const char *op_short(const char *op) {
  const char *dot = strchr(op, '.');
  return dot ? dot + 1 : op;
}

/* ---- values ---- */

static void int_repr(StrBuf *out, const JVal *x) {
  if (x->kind == J_UINT) sb_printf(out, "%llu", (unsigned long long)x->u.u);
  else sb_printf(out, "%lld", (long long)x->u.i);
}

static bool is_float_obj(const JVal *x) {
  const JVal *f = json_get(x, "float");
  return x->kind == J_OBJ && x->n == 1 && f && f->kind == J_STR;
}

/* A DT string ("float", "float.ptr(16)") as repr(dtype). */
static void dtype_text(StrBuf *out, const JVal *x) {
  if (!x || x->kind != J_STR) { sb_puts(out, "None"); return; }
  if (strncmp(x->u.s, "PtrDType(", 9) != 0) sb_puts(out, "dtypes."); /* 197f8fd's PtrDType(dtypes.float) is whole */
  sb_putn(out, x->u.s, x->n);
}

static void sym_repr(StrBuf *out, TgVersion v, const JVal *e, int depth);

static void tuple_open(StrBuf *out) { sb_putc(out, '('); }
static void tuple_close(StrBuf *out, size_t n) { sb_puts(out, n == 1 ? ",)" : ")"); }

/* A tuple of sints / pairs: the items are ints, syms or arrays of them. */
static void sint_tuple(StrBuf *out, TgVersion v, const JVal *arr) {
  if (!arr || arr->kind != J_ARR) { value_repr(out, v, arr, false, NULL); return; }
  tuple_open(out);
  for (size_t i = 0; i < arr->n; i++) {
    if (i) sb_puts(out, ", ");
    value_repr(out, v, arr->u.arr[i], false, NULL);
  }
  tuple_close(out, arr->n);
}

/* shape/view.py View and shape/shapetracker.py ShapeTracker: dataclass reprs. */
static void st_repr(StrBuf *out, TgVersion v, const JVal *st) {
  const JVal *views = json_get(st, "views");
  sb_puts(out, "ShapeTracker(views=(");
  size_t n = views && views->kind == J_ARR ? views->n : 0;
  for (size_t i = 0; i < n; i++) {
    const JVal *w = views->u.arr[i];
    if (i) sb_puts(out, ", ");
    sb_puts(out, "View(shape=");
    sint_tuple(out, v, json_get(w, "shape"));
    sb_puts(out, ", strides=");
    sint_tuple(out, v, json_get(w, "strides"));
    sb_puts(out, ", offset=");
    value_repr(out, v, json_get(w, "offset"), false, NULL);
    sb_puts(out, ", mask=");
    const JVal *mask = json_get(w, "mask");
    if (mask && mask->kind == J_ARR) sint_tuple(out, v, mask);
    else sb_puts(out, "None");
    sb_puts(out, ", contiguous=");
    value_repr(out, v, json_get(w, "contiguous"), false, NULL);
    sb_putc(out, ')');
  }
  sb_puts(out, n == 1 ? ",))" : "))");
}

/* ops.py MemBuffer / ConstBuffer (0.9.1): dataclass reprs. */
static void buffer_arg_repr(StrBuf *out, TgVersion v, const char *cls, const JVal *fields) {
  bool ok = fields && fields->kind == J_ARR && fields->n == 3;
  sb_printf(out, "%s(%s=", cls, strcmp(cls, "MemBuffer") == 0 ? "idx" : "val");
  value_repr(out, v, ok ? fields->u.arr[0] : NULL, false, NULL);
  sb_puts(out, ", dtype=");
  dtype_text(out, ok ? fields->u.arr[1] : NULL);
  sb_puts(out, ", st=");
  if (ok) st_repr(out, v, fields->u.arr[2]);
  else sb_puts(out, "None");
  sb_putc(out, ')');
}

void value_repr(StrBuf *out, TgVersion v, const JVal *x, bool as_str, const char *op) {
  if (!x) { sb_puts(out, "None"); return; }
  char buf[40];
  switch (x->kind) {
    case J_NULL: sb_puts(out, "None"); return;
    case J_BOOL: sb_puts(out, x->u.b ? "True" : "False"); return;
    case J_INT: case J_UINT: int_repr(out, x); return;
    case J_BIGNUM: case J_RAW: sb_putn(out, x->u.s, x->n); return;
    case J_FLOAT: sb_puts(out, py_float_repr(x->u.f, buf, sizeof buf)); return;
    case J_STR:
      /* CAST/BITCAST (0.9.1) and BUFFER_VIEW (0.10.0) args are dtypes */
      if (op && (strcmp(op, "UnaryOps.CAST") == 0 || strcmp(op, "UnaryOps.BITCAST") == 0 || strcmp(op, "Ops.BUFFER_VIEW") == 0))
        dtype_text(out, x);
      else if (as_str) sb_putn(out, x->u.s, x->n);
      else py_str_repr(out, x->u.s, x->n);
      return;
    case J_ARR:
      tuple_open(out);
      for (size_t i = 0; i < x->n; i++) {
        if (i) sb_puts(out, ", ");
        value_repr(out, v, x->u.arr[i], false, NULL);
      }
      tuple_close(out, x->n);
      return;
    case J_OBJ: break;
  }
  const JVal *f;
  if (is_float_obj(x)) { sb_puts(out, json_get(x, "float")->u.s); return; }
  if (json_get(x, "views")) { st_repr(out, v, x); return; }
  if ((f = json_get(x, "MemBuffer"))) { buffer_arg_repr(out, v, "MemBuffer", f); return; }
  if ((f = json_get(x, "ConstBuffer"))) { buffer_arg_repr(out, v, "ConstBuffer", f); return; }
  if ((f = json_get(x, "sym"))) { sym_repr(out, v, f, 0); return; }
  if ((f = json_get(x, "repr")) && f->kind == J_STR) {
    /* a Python function, recorded as "function:module.qualname"; its real
     * repr ends with an address, which the recording does not keep */
    const char *name = strncmp(f->u.s, "function:", 9) == 0 ? f->u.s + 9 : f->u.s;
    const char *qual = strrchr(name, '.');
    sb_printf(out, "<function %s at 0x?>", qual ? qual + 1 : name);
    return;
  }
  sb_puts(out, "<?>");
}

/* ---- symbolic values ----
 * Expressions are small (a shape entry); their nesting is capped at 32. */

enum { SYM_MAX_DEPTH = 32 };

/* 0.9.1 shape/symbolic.py render_python with ctx="REPR". */
static void sym_repr_091(StrBuf *out, const JVal *e, int depth) {
  if (json_is_int(e)) { sb_puts(out, "NumNode("); int_repr(out, e); sb_putc(out, ')'); return; }
  const JVal *var = json_get(e, "var");
  if (var && var->kind == J_STR) {
    sb_printf(out, "Variable('%s', ", var->u.s);
    value_repr(out, TG_0_9_1, json_get(e, "min"), false, NULL);
    sb_puts(out, ", ");
    value_repr(out, TG_0_9_1, json_get(e, "max"), false, NULL);
    sb_putc(out, ')');
    if (json_get(e, "val")) { sb_puts(out, ".bind("); value_repr(out, TG_0_9_1, json_get(e, "val"), false, NULL); sb_putc(out, ')'); }
    return;
  }
  const JVal *op = json_get(e, "op"), *src = json_get(e, "src");
  if (!op || op->kind != J_STR || !src || src->kind != J_ARR || depth >= SYM_MAX_DEPTH) { sb_puts(out, "<?>"); return; }
  static const char *const names[][2] = {{"SUM", "+"}, {"MUL", "*"}, {"DIV", "//"}, {"MOD", "%"}, {"LT", "<"}, {"AND", " and "}};
  const char *sep = "?";
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcmp(op->u.s, names[i][0]) == 0) sep = names[i][1];
  sb_putc(out, '(');
  for (size_t i = 0; i < src->n; i++) {
    if (i) sb_puts(out, sep);
    const JVal *s = src->u.arr[i];
    if (json_is_int(s) && i > 0) int_repr(out, s); /* the int operand renders plainly */
    else sym_repr_091(out, s, depth + 1);
  }
  sb_putc(out, ')');
}

/* 0.10.x: a symbolic value is a UOp; printed with pretty_print like an AST. */
static void sym_uop(StrBuf *out, TgVersion v, const JVal *e, int depth, int indent);

static void sym_uop_line(StrBuf *out, TgVersion v, int indent, const char *op, const char *dtype, const JVal *arg,
                         const JVal *const *src, size_t nsrc, int depth) {
  sb_spaces(out, (size_t)indent);
  sb_printf(out, "UOp(Ops.%s, dtypes.%s, arg=", op, dtype);
  value_repr(out, v, arg, tg_features(v)->uop_argstr_str, NULL);
  sb_puts(out, ", src=(");
  for (size_t i = 0; i < nsrc; i++) {
    sb_putc(out, '\n');
    sym_uop(out, v, src[i], depth + 1, indent + 2);
    sb_putc(out, ',');
  }
  sb_puts(out, "))");
}

static void sym_uop(StrBuf *out, TgVersion v, const JVal *e, int depth, int indent) {
  if (depth >= SYM_MAX_DEPTH) { sb_puts(out, "<?>"); return; }
  if (json_is_int(e)) { sym_uop_line(out, v, indent, "CONST", "int", e, NULL, 0, depth); return; }
  const JVal *var = json_get(e, "var");
  if (var && var->kind == J_STR) {
    /* UOp.variable(name, min, max): DEFINE_VAR with arg (name, min, max); bound: BIND(var, CONST val) */
    const JVal *arr_items[3] = {var, json_get(e, "min"), json_get(e, "max")};
    JVal arg = {.kind = J_ARR, .n = 3, .u.arr = (JVal **)arr_items};
    const JVal *val = json_get(e, "val");
    if (!val) { sym_uop_line(out, v, indent, "DEFINE_VAR", "int", &arg, NULL, 0, depth); return; }
    sb_spaces(out, (size_t)indent);
    sb_puts(out, "UOp(Ops.BIND, dtypes.int, arg=None, src=(\n");
    sym_uop_line(out, v, indent + 2, "DEFINE_VAR", "int", &arg, NULL, 0, depth + 1);
    sb_puts(out, ",\n");
    sym_uop_line(out, v, indent + 2, "CONST", "int", val, NULL, 0, depth + 1);
    sb_puts(out, ",))");
    return;
  }
  const JVal *op = json_get(e, "op"), *src = json_get(e, "src"), *dt = json_get(e, "dtype");
  if (!op || op->kind != J_STR || !src || src->kind != J_ARR) { sb_puts(out, "<?>"); return; }
  bool cmp = strcmp(op->u.s, "CMPLT") == 0 || strcmp(op->u.s, "CMPNE") == 0;
  const char *dtype = dt && dt->kind == J_STR ? dt->u.s : cmp ? "bool" : "int";
  sym_uop_line(out, v, indent, op->u.s, dtype, json_get(e, "arg"), (const JVal *const *)src->u.arr, src->n, depth);
}

static void sym_repr(StrBuf *out, TgVersion v, const JVal *e, int depth) {
  if (tg_features(v)->symbolic == SYM_NODE) sym_repr_091(out, e, depth);
  else sym_uop(out, v, e, depth, 0);
}

/* ---- graphs ---- */

typedef struct Node { const char *op; const JVal *dtype, *arg; size_t nsrc; size_t *src; } Node;

/* Checks the GRAPH shape and unpacks it into nodes (malloc'd; free nodes[0].src block and nodes). */
static Node *unpack_graph(const JVal *g, size_t *nnodes, const JVal **roots, char *err, size_t errlen) {
  const JVal *nodes = json_get(g, "nodes");
  *roots = json_get(g, "roots");
  if (!nodes || nodes->kind != J_ARR || !*roots || (*roots)->kind != J_ARR) {
    snprintf(err, errlen, "not a GRAPH (needs \"nodes\" and \"roots\" arrays)");
    return NULL;
  }
  size_t n = nodes->n, total = 0;
  for (size_t i = 0; i < n; i++) {
    const JVal *x = nodes->u.arr[i];
    if (x->kind != J_ARR || x->n != 4 || x->u.arr[0]->kind != J_STR || x->u.arr[3]->kind != J_ARR) {
      snprintf(err, errlen, "node %zu is not [op, dtype, arg, [src...]]", i);
      return NULL;
    }
    total += x->u.arr[3]->n;
  }
  Node *out = calloc(n ? n : 1, sizeof *out);
  size_t *srcs = malloc((total ? total : 1) * sizeof *srcs);
  if (!out || !srcs) abort();
  for (size_t i = 0, used = 0; i < n; i++) {
    const JVal *x = nodes->u.arr[i], *s = x->u.arr[3];
    out[i] = (Node){x->u.arr[0]->u.s, x->u.arr[1], x->u.arr[2], s->n, srcs + used};
    for (size_t k = 0; k < s->n; k++) {
      const JVal *si = s->u.arr[k];
      if (!json_is_int(si) || si->u.i < 0 || (size_t)si->u.i >= i) {
        snprintf(err, errlen, "node %zu: source %zu is not an earlier node", i, k);
        free(srcs);
        free(out);
        return NULL;
      }
      out[i].src[k] = (size_t)si->u.i;
    }
    used += s->n;
  }
  for (size_t k = 0; k < (*roots)->n; k++) {
    const JVal *r = (*roots)->u.arr[k];
    if (!json_is_int(r) || r->u.i < 0 || (size_t)r->u.i >= n) {
      snprintf(err, errlen, "root %zu is not a node", k);
      free(srcs);
      free(out);
      return NULL;
    }
  }
  *nnodes = n;
  return out;
}

static void free_graph(Node *nodes) {
  if (nodes) free(nodes[0].src);
  free(nodes);
}

typedef struct Frame { size_t node, next; int indent; } Frame;
typedef struct Stack { Frame *items; size_t n, cap; } Stack;

static void push(Stack *s, Frame f) {
  if (s->n == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 64;
    Frame *bigger = realloc(s->items, s->cap * sizeof *bigger);
    if (!bigger) abort();
    s->items = bigger;
  }
  s->items[s->n++] = f;
}

/* LazyOp(op=..., src=(...), arg=...) — ops.py LazyOp.__repr__ (0.9.1), which
 * prints the whole tree (shared sub-trees once per use), arg with str(). */
static void lazyop_repr(StrBuf *out, const Node *nodes, size_t root) {
  Stack st = {0};
  push(&st, (Frame){root, 0, 0});
  sb_printf(out, "LazyOp(op=%s, src=(", nodes[root].op);
  while (st.n && !out->over) { /* shared sub-trees print once per use: a DAG can be far longer than its graph */
    Frame *f = &st.items[st.n - 1];
    const Node *x = &nodes[f->node];
    if (f->next < x->nsrc) {
      if (f->next) sb_puts(out, ", ");
      size_t child = x->src[f->next++];
      sb_printf(out, "LazyOp(op=%s, src=(", nodes[child].op);
      push(&st, (Frame){child, 0, 0});
      continue;
    }
    sb_puts(out, x->nsrc == 1 ? ",), arg=" : "), arg=");
    value_repr(out, TG_0_9_1, x->arg, true, x->op);
    sb_putc(out, ')');
    st.n--;
  }
  free(st.items);
}

/* ops.py pretty_print (0.10.x), first part: dfs numbering nodes in the order
 * they are first reached and counting references. */
typedef struct PPInfo { size_t idx, count; bool seen, printed; } PPInfo;

static void pp_dfs(const Node *nodes, PPInfo *info, size_t *ncache, size_t root) {
  Stack st = {0};
  push(&st, (Frame){root, 0, 0});
  while (st.n) {
    Frame *f = &st.items[st.n - 1];
    const Node *x = &nodes[f->node];
    if (f->next == x->nsrc) { st.n--; continue; }
    size_t s = x->src[f->next++];
    if (!info[s].seen) info[s] = (PPInfo){(*ncache)++, 0, true, false};
    if (++info[s].count == 1) push(&st, (Frame){s, 0, 0});
  }
  free(st.items);
}

/* An EXT's (op, arg) tuple (0.9.2 MetaOps.EXT, 197f8fd UOps.EXT): str() of the tuple prints the op
 * as its enum repr, <MetaOps.COPY: 3>; false when the arg is not such a pair */
static bool ext_arg_repr(StrBuf *out, TgVersion v, const Node *x) {
  const JVal *a = x->arg;
  if (strcmp(op_short(x->op), "EXT") != 0 || !a || a->kind != J_ARR || a->n != 2 || a->u.arr[0]->kind != J_STR) return false;
  const char *name = a->u.arr[0]->u.s;
  sb_printf(out, "(<%s: %d>, ", name, op_value(op_parse(name, v), v));
  value_repr(out, v, a->u.arr[1], false, NULL);
  sb_putc(out, ')');
  return true;
}

/* 0.9.2 LazyOp.__repr__'s rep: LazyOp({x.op}, arg={x.arg}, src=( with str(arg) */
static void lazyop_head(StrBuf *out, TgVersion v, const Node *x) {
  sb_printf(out, "LazyOp(%s, arg=", x->op);
  if (!ext_arg_repr(out, v, x)) value_repr(out, v, x->arg, true, x->op);
  sb_puts(out, ", src=(");
}

/* UOp.argstr: a REDUCE_AXIS arg as f'({", ".join(map(str, self.arg))})', an EXT's pair, else the arg */
static void uop_argstr(StrBuf *out, TgVersion v, const Node *x) {
  const JVal *a = x->arg;
  if (ext_arg_repr(out, v, x)) return;
  if (strcmp(op_short(x->op), "REDUCE_AXIS") == 0 && a && a->kind == J_ARR && a->n == 2) {
    sb_putc(out, '(');
    value_repr(out, v, a->u.arr[0], true, NULL);
    sb_puts(out, ", ");
    value_repr(out, v, a->u.arr[1], true, NULL);
    sb_putc(out, ')');
    return;
  }
  value_repr(out, v, a, tg_features(v)->uop_argstr_str, x->op);
}

/* One UOp's text up to its sources: UOp(Ops.X, dtypes.y, arg=..., src=( */
static void uop_head(StrBuf *out, TgVersion v, const Node *x, const PPInfo *in, int indent) {
  sb_spaces(out, (size_t)indent);
  if (in->count > 1) sb_printf(out, "x%zu:=", in->idx);
  if (tg_features(v)->lazyop_pretty_print) { lazyop_head(out, v, x); return; }
  sb_printf(out, "UOp(%s, ", x->op);
  dtype_text(out, x->dtype);
  sb_puts(out, ", arg=");
  uop_argstr(out, v, x);
  sb_puts(out, ", src=(");
}

/* Second part: print, sharing nodes already printed as " xN". */
static void uop_repr(StrBuf *out, TgVersion v, const Node *nodes, size_t nnodes, size_t root) {
  PPInfo *info = calloc(nnodes, sizeof *info);
  if (!info) abort();
  size_t ncache = 0;
  pp_dfs(nodes, info, &ncache, root);
  if (!info[root].seen) info[root] = (PPInfo){0, 0, true, false}; /* cache.setdefault(x, [0,0,False]) */
  Stack st = {0};
  info[root].printed = true;
  uop_head(out, v, &nodes[root], &info[root], 0);
  push(&st, (Frame){root, 0, 0});
  while (st.n && !out->over) { /* indentation grows with depth: a deep graph is a long text */
    Frame *f = &st.items[st.n - 1];
    const Node *x = &nodes[f->node];
    if (f->next < x->nsrc) {
      size_t s = x->src[f->next++];
      int indent = f->indent + 2;
      sb_putc(out, '\n');
      if (info[s].printed) {
        sb_spaces(out, (size_t)indent);
        sb_printf(out, " x%zu,", info[s].idx);
        continue;
      }
      info[s].printed = true;
      uop_head(out, v, &nodes[s], &info[s], indent);
      push(&st, (Frame){s, 0, indent});
      continue;
    }
    sb_puts(out, "))");
    st.n--;
    if (st.n) sb_putc(out, ',');
  }
  free(st.items);
  free(info);
}

bool ast_repr(StrBuf *out, TgVersion v, const JVal *g, char *err, size_t errlen) {
  size_t n = 0;
  const JVal *roots;
  Node *nodes = unpack_graph(g, &n, &roots, err, errlen);
  if (!nodes) return false;
  if (tg_features(v)->ast_is_lazyop && !tg_features(v)->lazyop_pretty_print) { /* si.ast is a tuple of LazyOps */
    sb_putc(out, '(');
    for (size_t k = 0; k < roots->n && !out->over; k++) {
      if (k) sb_puts(out, ", ");
      lazyop_repr(out, nodes, (size_t)roots->u.arr[k]->u.i);
    }
    sb_puts(out, roots->n == 1 ? ",)" : ")");
  } else {
    for (size_t k = 0; k < roots->n && !out->over; k++) {
      if (k) sb_putc(out, '\n');
      uop_repr(out, v, nodes, n, (size_t)roots->u.arr[k]->u.i);
    }
  }
  free_graph(nodes);
  return true;
}
