"""Capture encoding for the LazyBuffer generations, tinygrad 0.9.1 and 0.10.0.

`LazyCall` describes one `create_schedule_with_vars(outs[, seen])` call:
`encode_input` runs before the call (section 3 of the contract: buffers,
lazybuffers in post-order from outs, outs, seen), `encode_output` after it
(section 5: schedule, var_vals, mutations; 0.10.0 assign_preloads).
`release()` drops every tinygrad object it held.
"""
from __future__ import annotations
from encode_common import (BufRegistry, build_graph, enc_dtype, enc_enum, enc_plain, enc_st, sym_expr, tname)


def lb_postorder(outs) -> list:
  """Every LazyBuffer object reachable from outs, children first (view -> base, base -> srcs)."""
  order, seen = [], set()
  stack = [(o, False) for o in reversed(list(outs))]
  while stack:
    lb, expanded = stack.pop()
    if id(lb) in seen: continue
    if expanded:
      seen.add(id(lb)); order.append(lb); continue
    stack.append((lb, True))
    kids = [lb._base] if lb._base is not None else list(getattr(lb, "srcs", ()) or ())
    for k in reversed(kids):
      if id(k) not in seen: stack.append((k, False))
  return order


class LazyCall:
  def __init__(self, gen: str):
    self.gen = gen
    self.reg = BufRegistry()
    self.lbs: list = []
    self.lb_index: dict[int, int] = {}
    self.unsupported: list = []
    self.notes: list = []
    self.pre_dtypes: list = []
    self.pre_buf: list = []
    self.uop_buffers = None   # 0.10.0: the scheduler's local {BUFFER UOp: Buffer} dict

  # ------------------------------------------------------------ input
  def encode_input(self, outs, seen=None) -> dict:
    outs = list(outs)
    self.lbs = lb_postorder(outs)
    self.lb_index = {id(lb): i for i, lb in enumerate(self.lbs)}
    enc = []
    for lb in self.lbs:
      d = {"device": lb.device, "dtype": enc_dtype(lb.dtype), "st": enc_st(lb.st)}
      if lb._base is not None:
        d["base"] = self.lb_index[id(lb._base)]
      else:
        d["op"] = enc_enum(lb.op)
        d["arg"] = enc_plain(lb.arg, self.unsupported)
        srcs = getattr(lb, "srcs", None)
        d["srcs"] = None if srcs is None else [self.lb_index[id(s)] for s in srcs]
        d["buffer"] = self.reg.add_input(lb.buffer)
        d["realized"] = lb.realized is not None
        d["forced_realize"] = bool(lb.forced_realize)
        m = getattr(lb, "metadata", None)
        d["metadata"] = None if m is None else str(m)
        if m is not None and getattr(m, "caller", ""): d["metadata_caller"] = m.caller
      enc.append(d)
    self.pre_dtypes = [lb.dtype for lb in self.lbs]
    self.pre_buf = [(b.dtype, b.options) for b in self.reg.inputs]
    inp = {"buffers": self.reg.input_desc, "lazybuffers": enc, "outs": [self.lb_index[id(o)] for o in outs]}
    if self.gen == "0.9.1":
      inp["seen"] = sorted(self.lb_index[id(x)] for x in (seen or ()) if id(x) in self.lb_index)
    inp["memory_planner_bufs"] = None
    return inp

  def index_of(self, lb):
    return self.lb_index.get(id(lb))

  # ------------------------------------------------------------ output
  def encode_ast(self, ast) -> dict:
    if self.gen == "0.9.1":
      return build_graph(list(ast), lambda x: (enc_enum(x.op), None, enc_plain(x.arg, self.unsupported)), lambda x: x.src)
    return build_graph([ast], lambda x: (enc_enum(x.op), enc_dtype(x.dtype), enc_plain(x.arg, self.unsupported)), lambda x: x.src)

  def encode_output(self, ret) -> dict:
    schedule, var_vals = ret[0], ret[1]
    items = []
    for si in schedule:
      it = {"ast": self.encode_ast(si.ast), "bufs": [self.reg.ref(b) for b in si.bufs]}
      if self.gen == "0.9.1":
        it["metadata"] = []
      else:
        it["metadata"] = sorted(str(m) for m in si.metadata)
        pre = []
        for u in si.assign_preloads:
          b = None if self.uop_buffers is None else self.uop_buffers.get(u)
          if b is None:
            self.notes.append("assign_preload BUFFER without a known Buffer"); pre.append(None)
          else: pre.append(self.reg.ref(b))
        it["assign_preloads"] = pre
      items.append(it)
    if self.reg.new: self.notes.append(f"{len(self.reg.new)} schedule Buffers not reachable from the input")
    out = {"schedule": items, "var_vals": enc_var_vals(var_vals), "memory_plan": None, "memory_plan_buffers": None}
    out["mutations"] = self.mutations()
    return out

  def mutations(self) -> dict:
    lbm = [[i, enc_dtype(lb.dtype)] for i, lb in enumerate(self.lbs) if lb.dtype != self.pre_dtypes[i]]
    bm = [[i, enc_dtype(b.dtype), enc_options_of(b)] for i, b in enumerate(self.reg.inputs)
          if (b.dtype, b.options) != self.pre_buf[i]]
    return {"lazybuffers": lbm, "buffers": bm}

  def release(self):
    self.lbs = []; self.lb_index = {}; self.pre_dtypes = []; self.pre_buf = []; self.uop_buffers = None
    self.reg.release()


def enc_options_of(b):
  from encode_common import enc_options
  return enc_options(b.options)


def enc_var_vals(var_vals) -> list:
  out = []
  for k, v in var_vals.items():
    e = sym_expr(k)
    if isinstance(e, dict): e = {"var": e.get("var"), "min": e.get("min"), "max": e.get("max")}
    out.append([e, int(v)])
  out.sort(key=lambda kv: (str(kv[0]["var"]), kv[0]["min"], kv[0]["max"]))
  return out


def context_091(tg) -> dict:
  from tinygrad.helpers import MULTIOUTPUT, getenv
  return {"MULTIOUTPUT": MULTIOUTPUT.value, "USE_COPY_KERNEL": getenv("USE_COPY_KERNEL"),
          "NO_MEMORY_PLANNER": getenv("NO_MEMORY_PLANNER")}


def context_0100(tg) -> dict:
  from tinygrad.helpers import FUSE_ARANGE, FUSE_CONV_BW, NO_MEMORY_PLANNER
  import tinygrad.engine.schedule as s
  ctx = {"FUSE_ARANGE": FUSE_ARANGE.value, "FUSE_CONV_BW": FUSE_CONV_BW.value, "NO_MEMORY_PLANNER": NO_MEMORY_PLANNER.value}
  for dev, lim in s.BUF_LIMIT.items(): ctx[f"BUF_LIMIT:{dev}"] = int(lim)
  return ctx


__all__ = ["LazyCall", "lb_postorder", "enc_var_vals", "context_091", "context_0100", "tname"]
