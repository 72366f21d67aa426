"""Capture encoding for the UOp generation, tinygrad 0.10.2.

`UOpCall` describes one `create_schedule_with_vars(big_sink)` call:
`encode_input` (before the call; contract section 4: buffers, graph,
node_buffer, metadata) and `encode_output` (after it; section 5: schedule,
var_vals, becomes_map, new_buffers).  BUFFER nodes are named through their
UNIQUE source, whose process-local counter is replaced by the BUFREF of the
Buffer it names, or "u:K" when that BUFFER has no Buffer.
`release()` drops every tinygrad object it held.
"""
from __future__ import annotations
from encode_common import BufRegistry, GraphBuilder, enc_dtype, enc_enum, enc_plain
from encode_lazy import enc_var_vals


def uop_postorder(roots) -> list:
  order, seen = [], set()
  stack = [(r, False) for r in reversed(list(roots))]
  while stack:
    u, expanded = stack.pop()
    if id(u) in seen: continue
    if expanded:
      seen.add(id(u)); order.append(u); continue
    stack.append((u, True))
    for s in reversed(u.src):
      if id(s) not in seen: stack.append((s, False))
  return order


class UOpCall:
  def __init__(self, gen: str = "0.10.2"):
    import tinygrad.ops as ops
    self.buffers_map = ops.buffers      # WeakKeyDictionary BUFFER UOp -> Buffer; never use UOp.buffer (it creates one)
    self.all_metadata = ops.all_metadata
    self.reg = BufRegistry()
    self.unsupported: list = []
    self.notes: list = []
    self.ulabels: dict[int, str] = {}   # id(UNIQUE) -> "u:K"
    self.alive: list = []
    self.input_gb = None

  # UNIQUE naming -----------------------------------------------------
  def _unique_buffers(self, order) -> dict:
    """id(UNIQUE) -> Buffer, for BUFFER nodes that have one right now."""
    ub = {}
    for u in order:
      if u.op.name == "BUFFER" and len(u.src) >= 2 and u.src[1].op.name == "UNIQUE":
        b = self.buffers_map.get(u)
        if b is not None:
          if id(u.src[1]) in ub and ub[id(u.src[1])] is not b: self.notes.append("UNIQUE shared by BUFFERs with different Buffers")
          ub[id(u.src[1])] = b
    return ub

  def _describe(self, ub, new_kind: bool):
    def describe(u):
      if u.op.name == "UNIQUE":
        b = ub.get(id(u))
        if b is not None: arg = self.reg.ref(b) if new_kind else self.reg.ids[id(b)]
        else:
          arg = self.ulabels.get(id(u))
          if arg is None:
            arg = self.ulabels[id(u)] = f"u:{len(self.ulabels)}"
            self.alive.append(u)
      else:
        arg = enc_plain(u.arg, self.unsupported)
      return (enc_enum(u.op), enc_dtype(u.dtype), arg)
    return describe

  # input ---------------------------------------------------------------
  def encode_input(self, big_sink) -> dict:
    order = uop_postorder([big_sink])
    self.alive.extend(order)
    for u in order:   # register Buffers by first appearance of their BUFFER node
      if u.op.name == "BUFFER" and (b := self.buffers_map.get(u)) is not None: self.reg.add_input(b)
    ub = self._unique_buffers(order)
    gb = self.input_gb = GraphBuilder(self._describe(ub, new_kind=False), lambda u: u.src)
    root = gb.add(big_sink)
    graph = {"nodes": gb.nodes, "roots": [root]}
    node_buffer, metadata, full, any_caller = [], [], [], False
    done = set()
    for u in order:
      idx = gb.memo[id(u)]
      if idx in done: continue
      done.add(idx)
      if u.op.name == "BUFFER" and (b := self.buffers_map.get(u)) is not None: node_buffer.append([idx, self.reg.ids[id(b)]])
      m = self.all_metadata.get(u)
      if m is not None:
        metadata.append([idx, str(m)])
        full.append([idx, m.name, m.caller, bool(m.backward)])
        any_caller = any_caller or bool(m.caller)
    inp = {"buffers": self.reg.input_desc, "graph": graph, "node_buffer": node_buffer, "metadata": metadata}
    if any_caller: inp["metadata_full"] = full
    inp["memory_planner_bufs"] = None
    return inp

  # output --------------------------------------------------------------
  def encode_ast(self, ast) -> dict:
    gb = GraphBuilder(lambda x: (enc_enum(x.op), enc_dtype(x.dtype), enc_plain(x.arg, self.unsupported)), lambda x: x.src)
    r = gb.add(ast)
    out = {"nodes": gb.nodes, "roots": [r]}
    gb.release()
    return out

  def encode_output(self, ret) -> dict:
    schedule, var_vals, becomes_map = ret
    items = [{"ast": self.encode_ast(si.ast), "bufs": [self.reg.ref(b) for b in si.bufs],
              "metadata": [str(m) for m in si.metadata]} for si in schedule]
    bm = []
    for k, v in becomes_map.items():
      idx = self.input_gb.memo.get(id(k))
      if idx is None:
        self.notes.append("becomes_map key not in the input graph"); continue
      bm.append((idx, v))
    bm.sort(key=lambda kv: kv[0])
    bm_enc = []
    for idx, v in bm:
      order = uop_postorder([v])
      gb = GraphBuilder(self._describe(self._unique_buffers(order), new_kind=True), lambda u: u.src)
      r = gb.add(v)
      bm_enc.append([idx, {"nodes": gb.nodes, "roots": [r]}])
      gb.release()
    return {"schedule": items, "var_vals": enc_var_vals(var_vals), "becomes_map": bm_enc,
            "new_buffers": self.reg.describe_all("new"), "memory_plan": None, "memory_plan_buffers": None}

  def release(self):
    self.alive = []; self.ulabels = {}
    if self.input_gb is not None: self.input_gb.release()
    self.input_gb = None
    self.reg.release()


def context_0102() -> dict:
  from tinygrad.helpers import ContextVar, getenv
  c = ContextVar._cache
  ctx = {k: c[k].value for k in ("FUSE_ARANGE", "FUSE_CONV_BW", "DONT_REALIZE_EXPAND", "SPLIT_REDUCEOP") if k in c}
  ctx["REDUCEOP_SPLIT_THRESHOLD"] = getenv("REDUCEOP_SPLIT_THRESHOLD", 32768)
  ctx["REDUCEOP_SPLIT_SIZE"] = getenv("REDUCEOP_SPLIT_SIZE", 22)
  ctx["MERGE_VIEW"] = getenv("MERGE_VIEW", 1)
  for k in ("NO_MEMORY_PLANNER", "TRACEMETA"):
    if k in c: ctx[k] = c[k].value
  return ctx
