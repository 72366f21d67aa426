"""Encodings shared by every generation (capture format tsched-capture/1, section 2).

Values, dtypes, symbolic ints, ShapeTrackers, op args, device Buffers (BUFREF
numbering) and GRAPH (post-order, structurally deduplicated DAG) encodings.
Nothing in here imports tinygrad: objects are recognised by class name, so the
same code serves tinygrad 0.9.1, 0.10.0 and 0.10.2.

Lifetime rule: an encoder object may hold tinygrad objects (it keys maps by
id(), so it must keep them alive), but only for the duration of one scheduler
call; the recorder calls `release()` before the wrapped call returns.
"""
from __future__ import annotations
import enum
import json
import math


class EncodeError(Exception):
  pass


def tname(x) -> str:
  return type(x).__name__


def mro_names(x) -> set:
  return {c.__name__ for c in type(x).__mro__}


# ---------------------------------------------------------------- scalars

def enc_float(f: float):
  f = float(f)
  if math.isnan(f): return {"float": "nan"}
  if math.isinf(f): return {"float": "inf" if f > 0 else "-inf"}
  return f  # json writes repr(f): always has '.' or 'e'


def enc_enum(m) -> str:
  # Enum.__str__ spelling, also for IntEnums (python 3.11 prints their int)
  return f"{type(m).__name__}.{m.name}"


def enc_dtype(dt) -> str:
  r = repr(dt)
  return r[len("dtypes."):] if r.startswith("dtypes.") else r


def is_dtype(x) -> bool:
  return "DType" in mro_names(x)


def is_uop(x) -> bool:
  return tname(x) == "UOp"


def is_symnode(x) -> bool:
  # tinygrad 0.9.1 symbolic Node (Variable, NumNode, SumNode, ...)
  return "Node" in mro_names(x) and hasattr(x, "min") and hasattr(x, "max") and not is_uop(x)


# ---------------------------------------------------------------- symbolic

_NODE_NAMES = {"SumNode": "SUM", "MulNode": "MUL", "DivNode": "DIV", "ModNode": "MOD", "LtNode": "LT", "AndNode": "AND"}


def sym_expr(x):
  """EXPR of a symbolic value (0.9.1 Node or 0.10.x UOp), ints pass through."""
  if isinstance(x, bool): return x
  if isinstance(x, int): return int(x)
  if is_uop(x):
    op = x.op.name
    if op == "CONST": return x.arg if isinstance(x.arg, int) else enc_float(x.arg) if isinstance(x.arg, float) else x.arg
    if op == "DEFINE_VAR":
      name, mn, mx = x.arg[0], x.arg[1], x.arg[2]
      return {"var": name, "min": sym_expr(mn), "max": sym_expr(mx)}
    if op == "BIND" and len(x.src) == 2 and x.src[0].op.name == "DEFINE_VAR" and x.src[1].op.name == "CONST":
      d = sym_expr(x.src[0]); d["val"] = x.src[1].arg
      return d
    d = {"op": op, "src": [sym_expr(s) for s in x.src]}
    if x.arg is not None: d["arg"] = enc_plain(x.arg)
    dt = enc_dtype(x.dtype)
    if dt not in ("int", "bool"): d["dtype"] = dt
    return d
  n = tname(x)
  if n == "NumNode": return int(x.b)
  if n == "Variable":
    d = {"var": x.expr, "min": sym_expr(x.min), "max": sym_expr(x.max)}
    if getattr(x, "_val", None) is not None: d["val"] = int(x._val)
    return d
  if n in ("SumNode", "AndNode"): return {"op": _NODE_NAMES[n], "src": [sym_expr(s) for s in x.nodes]}
  if n in _NODE_NAMES: return {"op": _NODE_NAMES[n], "src": [sym_expr(x.a), sym_expr(x.b)]}
  raise EncodeError(f"unknown symbolic node {n}")


def enc_sint(x):
  if isinstance(x, bool): return x
  if isinstance(x, int): return int(x)
  if is_uop(x) or is_symnode(x): return {"sym": sym_expr(x)}
  return enc_plain(x)


# ---------------------------------------------------------------- shapetracker

def enc_view(v):
  return {"shape": [enc_sint(s) for s in v.shape], "strides": [enc_sint(s) for s in v.strides],
          "offset": enc_sint(v.offset),
          "mask": None if v.mask is None else [[enc_sint(a), enc_sint(b)] for a, b in v.mask],
          "contiguous": bool(v.contiguous)}


def enc_st(st):
  return {"views": [enc_view(v) for v in st.views]}


# ---------------------------------------------------------------- generic values

def enc_plain(v, unsupported: list | None = None):
  """ARG / value encoding of section 2 (no BUFREFs: those need a BufRegistry)."""
  if v is None or isinstance(v, (bool, str)): return v
  if isinstance(v, enum.Enum): return enc_enum(v)
  if isinstance(v, int): return int(v)
  if isinstance(v, float): return enc_float(v)
  names = mro_names(v)
  if "DType" in names: return enc_dtype(v)
  if "ShapeTracker" in names: return enc_st(v)
  if "View" in names and hasattr(v, "strides"): return enc_view(v)
  if is_uop(v) or is_symnode(v): return {"sym": sym_expr(v)}
  if "MemBuffer" in names: return {"MemBuffer": [v.idx, enc_dtype(v.dtype), enc_st(v.st)]}
  if "ConstBuffer" in names: return {"ConstBuffer": [enc_plain(v.val, unsupported), enc_dtype(v.dtype), enc_st(v.st)]}
  if isinstance(v, (tuple, list)): return [enc_plain(x, unsupported) for x in v]
  # numpy scalars
  if "integer" in names or "signedinteger" in names or "unsignedinteger" in names: return int(v)
  if "floating" in names: return enc_float(float(v))
  if "bool_" in names: return bool(v)
  if callable(v) and hasattr(v, "__qualname__"):
    r = f"function:{getattr(v, '__module__', '?')}.{v.__qualname__}"
  else:
    r = f"{tname(v)}:{v!r}"
  if unsupported is not None and r not in unsupported: unsupported.append(r)
  return {"repr": r}


def enc_metadata_str(m) -> str | None:
  return None if m is None else str(m)


def enc_error(e: BaseException) -> dict:
  return {"type": tname(e), "message": str(e)}


# ---------------------------------------------------------------- buffers

def enc_options(opts):
  if opts is None: return None
  return {"image": None if getattr(opts, "image", None) is None else enc_dtype(opts.image),
          "uncached": bool(getattr(opts, "uncached", False)), "cpu_access": bool(getattr(opts, "cpu_access", False)),
          "host": bool(getattr(opts, "host", False)), "nolru": bool(getattr(opts, "nolru", False)),
          "external_ptr": getattr(opts, "external_ptr", None) is not None}


class BufRegistry:
  """Maps device Buffers to BUFREFs: input index (int), "new:K", "plan:K".

  Holds the Buffers it has seen (id()-keyed), so it must be released after the
  call it describes."""

  def __init__(self):
    self.inputs: list = []          # Buffer objects, in input.buffers order
    self.input_desc: list = []      # their encodings (taken at call time)
    self.ids: dict[int, object] = {}   # id -> BUFREF
    self.new: list = []
    self.plan: list = []
    self.alive: list = []

  def add_input(self, buf) -> int:
    if id(buf) in self.ids: return self.ids[id(buf)]
    base = getattr(buf, "_base", None)
    bidx = self.add_input(base) if base is not None else None
    idx = len(self.inputs)
    self.inputs.append(buf); self.alive.append(buf); self.ids[id(buf)] = idx
    self.input_desc.append({"device": buf.device, "size": int(buf.size), "dtype": enc_dtype(buf.dtype),
                            "allocated": bool(buf.is_allocated()), "base": bidx, "offset": int(buf.offset),
                            "options": enc_options(buf.options), "lb_refcount": int(buf.lb_refcount)})
    return idx

  def ref(self, buf, kind="new"):
    """BUFREF of buf, registering it as the next new:K / plan:K when unseen."""
    if id(buf) in self.ids: return self.ids[id(buf)]
    lst = self.new if kind == "new" else self.plan
    r = f"{kind}:{len(lst)}"
    lst.append(buf); self.alive.append(buf); self.ids[id(buf)] = r
    return r

  def known(self, buf) -> bool:
    return id(buf) in self.ids

  def describe(self, buf, kind="new") -> dict:
    base = getattr(buf, "_base", None)
    return {"device": buf.device, "size": int(buf.size), "dtype": enc_dtype(buf.dtype),
            "base": None if base is None else self.ref(base, kind), "offset": int(buf.offset),
            "options": enc_options(buf.options)}

  def describe_all(self, kind="new") -> list:
    lst = self.new if kind == "new" else self.plan
    out, i = [], 0
    while i < len(lst):  # describe() may append bases
      out.append(self.describe(lst[i], kind)); i += 1
    return out

  def release(self):
    self.inputs = []; self.new = []; self.plan = []; self.alive = []; self.ids = {}


# ---------------------------------------------------------------- GRAPH

class GraphBuilder:
  """Builds a GRAPH: nodes in post-order, structurally equal nodes once.

  `describe(obj) -> (op, dtype|None, arg)` and `srcs(obj) -> list` read one
  node.  Node identity during the walk is id(obj); objects are kept alive."""

  def __init__(self, describe, srcs):
    self.describe, self.srcs = describe, srcs
    self.nodes: list = []
    self.keys: dict = {}
    self.memo: dict[int, int] = {}
    self.alive: list = []

  def add(self, root) -> int:
    memo = self.memo
    if id(root) in memo: return memo[id(root)]
    stack = [(root, False)]
    while stack:
      obj, expanded = stack.pop()
      if id(obj) in memo: continue
      if not expanded:
        stack.append((obj, True))
        for c in reversed(list(self.srcs(obj))):
          if id(c) not in memo: stack.append((c, False))
        continue
      op, dt, arg = self.describe(obj)
      src = [memo[id(c)] for c in self.srcs(obj)]
      key = (op, dt, json.dumps(arg, allow_nan=False), tuple(src))
      idx = self.keys.get(key)
      if idx is None:
        idx = self.keys[key] = len(self.nodes)
        self.nodes.append([op, dt, arg, src])
      memo[id(obj)] = idx
      self.alive.append(obj)
    return memo[id(root)]

  def graph(self, roots: list) -> dict:
    return {"nodes": self.nodes, "roots": [self.add(r) for r in roots]}

  def release(self):
    self.alive = []; self.memo = {}


def build_graph(roots, describe, srcs) -> dict:
  gb = GraphBuilder(describe, srcs)
  idx = [gb.add(r) for r in roots]
  out = {"nodes": gb.nodes, "roots": idx}
  gb.release()
  return out


def dumps(obj) -> str:
  return json.dumps(obj, separators=(",", ":"), allow_nan=False, ensure_ascii=False)
