"""tinygrad 0.9.2 and 0.9.2+197f8fd (commit 197f8fd986): the LazyBuffer generation after 0.9.1 (contract section 7).

Both keep 0.9.1's input (section 3: lazybuffers in post-order from outs; 0.9.2 also `seen`), so
encode_lazy.LazyCall encodes it.  What differs from 0.9.1:

* `MetaOps` replaced `LoadOps` (LazyBuffer ops, EXT item args);
* 0.9.2's `ScheduleItem.ast` is one `LazyOp(MetaOps.KERNEL, stores)` or `LazyOp(MetaOps.EXT, (), (op, arg))`,
  written with dtype null as 0.9.1's LazyOps (0.9.2's LazyOp.dtype raises on EXT); 197f8fd's is a UOp
  (`UOps.SINK` of STOREs, or `UOps.EXT`), written with its dtypes;
* `ScheduleItem.metadata` is a dedup list / tuple (built from a dict): written in its order;
* no identity-hashed set decides the result (`simple_pads` is a dict): no `set_orders`;
* the memory planner lives in tinygrad.engine.realize (the interval planner with noopt_buffers);
* `context` gains FUSE_ARANGE, FUSE_CONV_BW and MERGE_VIEW (ShapeTracker.reshape, which the scheduler now
  calls); 197f8fd also AST_REWRITE, and `BUF_MAX:<device>` for
  each device an input buffer lives on (its renderer's buf_max, 0 where it sets none).
"""
from __future__ import annotations
import os

from encode_common import build_graph, enc_dtype, enc_enum, enc_plain
from encode_lazy import LazyCall

GEN_092, GEN_197 = "0.9.2", "0.9.2+197f8fd"
DESCRIBE = {GEN_092: GEN_092, GEN_197: "v0.9.2-533-g197f8fd986"}  # the `tinygrad` field (section 7)


def detect(checkout: str) -> str | None:
  """0.9.2 or 0.9.2+197f8fd for a tinygrad/lazy.py checkout with MetaOps (0.9.1 has LoadOps), else None."""
  with open(os.path.join(checkout, "tinygrad", "ops.py")) as f: src = f.read()
  if "class MetaOps" not in src: return None
  return GEN_197 if "class UOps" in src else GEN_092


def context_092(gen: str, devices=()) -> dict:
  from tinygrad.helpers import FUSE_ARANGE, FUSE_CONV_BW, MULTIOUTPUT, getenv
  ctx = {"FUSE_ARANGE": FUSE_ARANGE.value, "FUSE_CONV_BW": FUSE_CONV_BW.value, "MULTIOUTPUT": MULTIOUTPUT.value,
         "NO_MEMORY_PLANNER": getenv("NO_MEMORY_PLANNER"), "USE_COPY_KERNEL": getenv("USE_COPY_KERNEL"),
         "MERGE_VIEW": getenv("MERGE_VIEW", 1)}  # shape/shapetracker.py ShapeTracker.reshape reads it
  if gen == GEN_197:
    from tinygrad.helpers import AST_REWRITE
    from tinygrad.device import Device
    ctx["AST_REWRITE"] = AST_REWRITE.value
    for dev in sorted(set(devices)): ctx[f"BUF_MAX:{dev}"] = int(Device[dev].renderer.buf_max or 0)
  return dict(sorted(ctx.items()))


class LazyCall092(LazyCall):
  """LazyCall with 0.9.2's / 197f8fd's output: one AST root, metadata in order."""

  def encode_input(self, outs, seen=None) -> dict:
    inp = super().encode_input(outs, seen)
    if self.gen == GEN_092:  # 0.9.2 still takes `seen` (section 3); LazyCall writes it only for 0.9.1
      mpb = inp.pop("memory_planner_bufs")
      inp["seen"] = sorted(self.lb_index[id(x)] for x in (seen or ()) if id(x) in self.lb_index)
      inp["memory_planner_bufs"] = mpb
    return inp

  def devices(self) -> list:
    return [b.device for b in self.reg.inputs]

  def encode_ast(self, ast) -> dict:
    if self.gen == GEN_092:
      return build_graph([ast], lambda x: (enc_enum(x.op), None, enc_plain(x.arg, self.unsupported)), lambda x: x.src)
    return build_graph([ast], lambda x: (enc_enum(x.op), enc_dtype(x.dtype), enc_plain(x.arg, self.unsupported)), lambda x: x.src)

  def encode_output(self, ret) -> dict:
    schedule, var_vals = ret[0], ret[1]
    from encode_lazy import enc_var_vals
    items = []
    for si in schedule:
      items.append({"ast": self.encode_ast(si.ast), "bufs": [self.reg.ref(b) for b in si.bufs],
                    "metadata": [str(m) for m in (si.metadata or ())]})
    if self.reg.new: self.notes.append(f"{len(self.reg.new)} schedule Buffers not reachable from the input")
    out = {"schedule": items, "var_vals": enc_var_vals(var_vals), "memory_plan": None, "memory_plan_buffers": None}
    out["mutations"] = self.mutations()
    return out
