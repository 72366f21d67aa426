"""Capture encoding for tinygrad 0.10.1: the tensor UOp graph of section 4, BUFFERs without UNIQUE.

0.10.1's BUFFER is `BUFFER(DEVICE)` with arg `(num, size)`, `num` drawn from
`UOp.buffer_num` (ops.py UOp.new_buffer).  The contract (section 7) writes it
`[NUM, size]` with NUM labelled as a 0.10.2 UNIQUE arg is: the BUFREF of the
Buffer the node has when the call begins, else `"u:K"` (K-th such node, by
first appearance in input post-order, continued through the becomes_map
graphs).  A label is fixed at call time: a node keeps it in becomes_map even
where the call gave it a Buffer.  A BUFFER the scheduler made (add_buffers'
`UOp.new_buffer`) has its Buffer once the call returns and is written with
its "new:K".  Everything else is 0.10.2's encoding (encode_uop.py).
"""
from __future__ import annotations
from encode_common import enc_dtype, enc_enum, enc_plain
from encode_uop import UOpCall


class UOpCall0101(UOpCall):
  def __init__(self):
    super().__init__("0.10.1")
    self.blabels: dict[int, object] = {}   # id(BUFFER) -> its NUM label, fixed when first written

  def _buffer_label(self, u, new_kind: bool):
    lab = self.blabels.get(id(u))
    if lab is not None: return lab
    b = self.buffers_map.get(u)
    if b is not None: lab = self.reg.ref(b) if new_kind else self.reg.ids[id(b)]
    else: lab = f"u:{len(self.ulabels)}"; self.ulabels[id(u)] = lab
    self.blabels[id(u)] = lab
    self.alive.append(u)
    return lab

  def _describe(self, ub, new_kind: bool):
    def describe(u):
      if u.op.name == "BUFFER" and isinstance(u.arg, tuple) and len(u.arg) == 2:
        arg = [self._buffer_label(u, new_kind), enc_plain(u.arg[1], self.unsupported)]
      else:
        arg = enc_plain(u.arg, self.unsupported)
      return (enc_enum(u.op), enc_dtype(u.dtype), arg)
    return describe

  def _unique_buffers(self, order) -> dict:
    return {}   # no UNIQUE nodes in 0.10.1

  def release(self):
    self.blabels = {}
    super().release()



def context_0101() -> dict:
  """0.10.2's keys; DONT_REALIZE_EXPAND is a plain getenv in 0.10.1 (schedule.py realize_before_view)."""
  from tinygrad.helpers import getenv
  from encode_uop import context_0102
  ctx = context_0102()
  ctx["DONT_REALIZE_EXPAND"] = getenv("DONT_REALIZE_EXPAND", 0)
  return ctx
