"""tinygrad 0.10.2+a0b4465 (commit a0b4465412): what its captures add to 0.10.2's (contract section 7).

a0b4465 is a 0.10.2-style tensor UOp scheduler (encode_uop.UOpCall encodes its input and output), with
three differences the recorder must know:

* `context` gains `DONT_GROUP_REDUCES` (a ContextVar, helpers.py) and `CAST_AFTER_EXPAND` (a getenv in
  engine/schedule.py reorder_view);
* the memory planner (engine/memory.py) suballocates where `hasattr(allocator, "_offset")` (the tags test
  `offset`), and skips a buffer whose base is allocated too;
* a UNIQUE's label is decided at call time: a BUFFER that had no Buffer when the call began keeps its "u:K"
  in becomes_map even though the call gave it one (ScheduleItem.bufs asks `.buffer`, which creates it).
"""
from __future__ import annotations
import os

from encode_common import enc_dtype, enc_enum
from encode_uop import UOpCall, context_0102

GENERATION = "0.10.2+a0b4465"
DESCRIBE = "v0.10.2-339-ga0b4465412"   # `git describe` of the commit (contract section 7: the `tinygrad` field)
OFFSET_ATTR = "_offset"                 # engine/memory.py _internal_memory_planner: hasattr(allocator, "_offset")


def is_checkout(checkout: str) -> bool:
  """A tinygrad/engine/multi.py checkout whose schedule.py has split_reduceop in the tensor rules (a0b4465, not 0.10.2)."""
  try:
    with open(os.path.join(checkout, "tinygrad", "engine", "schedule.py")) as f: src = f.read()
  except OSError:
    return False
  return "def split_reduceop" in src and "DONT_GROUP_REDUCES" in src


def context_a0b4465() -> dict:
  from tinygrad.helpers import ContextVar, getenv
  ctx = context_0102()
  c = ContextVar._cache
  ctx["DONT_GROUP_REDUCES"] = c["DONT_GROUP_REDUCES"].value if "DONT_GROUP_REDUCES" in c else getenv("DONT_GROUP_REDUCES", 0)
  ctx["CAST_AFTER_EXPAND"] = getenv("CAST_AFTER_EXPAND")
  return ctx


def planner_skips(b, noopt: set) -> bool:
  """engine/memory.py _internal_memory_planner's should_skip (noopt holds id()s of the noopt buffers)."""
  return b.is_allocated() or b.base.is_allocated() or b.lb_refcount > 0 or id(b.base) in noopt


class UOpCallA0b4465(UOpCall):
  """UOpCall whose becomes_map labels each UNIQUE as the input did (the state at call time)."""

  def _describe(self, ub, new_kind: bool):
    inner = super()._describe(ub, new_kind)
    if not new_kind: return inner
    def describe(u):
      if u.op.name == "UNIQUE" and (lab := self.ulabels.get(id(u))) is not None: return (enc_enum(u.op), enc_dtype(u.dtype), lab)
      return inner(u)
    return describe
