"""tinygrad 0.10.0+2ca41d6 (commit 2ca41d6a44): what its captures add to 0.10.0's (contract section 7).

2ca41d6 is a 0.10.0-style LazyBuffer scheduler (encode_lazy.LazyCall encodes its input and output), with
three differences the recorder must know:

* `context` gains `MERGE_VIEW` (shape/shapetracker.py ShapeTracker.reshape reads it; the scheduler reaches
  it through generate_valid -> UOp.const_with_shape);
* `ScheduleItem.assign_preloads` is a frozenset of BUFFER UOps, hashed by id(): written sorted by BUFREF;
* create_schedule_with_vars iterates that frozenset to build each item's `parents_assigns` (the order of
  the BFS edges), in address order, which differs from run to run.  As for 0.9.1 (setorder091.py), the
  recorder shadows the module global `frozenset` of tinygrad.engine.schedule at runtime (nothing on disk
  changes) with one that iterates in insertion order -- an order real tinygrad can take -- at exactly that
  call, and writes the order to `input.set_orders.parents_assigns` where it decides the BFS: an entry
  `[key, [member, ...]]` (each schedule item named by the input LazyBuffer behind its first output) only
  when at least two members become ready at the same BFS step.
"""
from __future__ import annotations
import builtins
import sys
from collections import deque

from encode_lazy import LazyCall, context_0100

GENERATION = "0.10.0+2ca41d6"
DESCRIBE = "v0.10.0-88-g2ca41d6a44"   # `git describe` of the commit (contract section 7: the `tinygrad` field)


def is_checkout(checkout: str) -> bool:
  """A tinygrad/engine/lazy.py checkout whose ScheduleItem.assign_preloads is a frozenset (2ca41d6, not 0.10.0)."""
  import os
  try:
    with open(os.path.join(checkout, "tinygrad", "engine", "schedule.py")) as f: return "assign_preloads: FrozenSet[UOp]" in f.read()
  except OSError:
    return False


def context_2ca41d6() -> dict:
  from tinygrad.helpers import getenv
  ctx = context_0100(None)
  ctx["MERGE_VIEW"] = getenv("MERGE_VIEW", 1)
  return dict(sorted(ctx.items()))


class OrderedFrozenSet(builtins.frozenset):
  """A frozenset that iterates in insertion order (equality and hashing are frozenset's)."""

  def __new__(cls, it=()):
    order = list(dict.fromkeys(it))
    self = super().__new__(cls, order)
    self._order = order
    return self

  def __iter__(self):
    return iter(self._order)


class ParentsAssignsProbe:
  """Shadows tinygrad.engine.schedule.frozenset; remembers, per prescheduled item, its assign_preloads
  frozenset (in creation order) and the LazyBuffer behind its first output."""

  def __init__(self):
    import tinygrad.engine.schedule as S
    self.active = False
    self.items: list = []   # (OrderedFrozenSet, LazyBuffer of the first output), prescheduled order
    probe = self

    def _frozenset(*args):
      f = sys._getframe(1)
      if f.f_code.co_name != "create_schedule_with_vars": return builtins.frozenset(*args)
      s = OrderedFrozenSet(*args)
      if probe.active:
        ast_ctx = f.f_locals.get("ast_ctx")
        first = next(iter(ast_ctx.sinked)) if ast_ctx is not None and ast_ctx.sinked else None
        probe.items.append((s, None if first is None else ast_ctx.lazybufs.get(first)))
      return s
    S.frozenset = _frozenset

  def begin(self):
    self.items = []; self.active = True

  def end(self):
    self.active = False; self.items = []

  def finish(self, call, schedule) -> tuple[list, list]:
    """set_orders.parents_assigns of a returned schedule, and notes."""
    notes = []
    pos = {id(s): i for i, (s, _) in enumerate(self.items)}
    if any(id(si.assign_preloads) not in pos for si in schedule):
      return [], ["set_orders.parents_assigns: a schedule item the probe did not see"]
    pre = sorted(schedule, key=lambda si: pos[id(si.assign_preloads)])
    name = {id(si): call.index_of(self.items[pos[id(si.assign_preloads)]][1]) for si in pre}
    buffers = call.uop_buffers or {}
    # create_schedule_with_vars' BFS graph, edges in the order it appends them
    targets = {id(out): si for si in pre for out in si.outputs}
    graph: dict = {id(si): [] for si in pre}
    indeg = {id(si): 0 for si in pre}
    pas = {}
    for si in pre:
      pa = list({id(x): x for x in (targets.get(id(buffers.get(u))) for u in si.assign_preloads) if x is not None and x is not si}.values())
      pas[id(si)] = pa
      for a in pa:
        graph[id(si)].append(a); indeg[id(a)] += 1
      pa_ids = {id(a) for a in pa}
      parents = list({id(x): x for x in (targets.get(id(b)) for b in si.inputs) if x is not None and id(x) not in pa_ids}.values())
      for x in parents:
        graph[id(x)].append(si); indeg[id(si)] += 1
    deciding = set()
    q = deque(si for si in pre if indeg[id(si)] == 0)
    while q:
      si = q.popleft()
      ready = 0
      members = {id(a) for a in pas[id(si)]}
      for x in graph[id(si)]:
        indeg[id(x)] -= 1
        if indeg[id(x)] == 0:
          q.append(x)
          if id(x) in members: ready += 1
      if ready >= 2: deciding.add(id(si))
    out = []
    for si in pre:
      if id(si) not in deciding: continue
      entry = [name[id(si)], [name[id(a)] for a in pas[id(si)]]]
      if None in [entry[0]] + entry[1]: notes.append("parents_assigns member outside the input graph"); continue
      out.append(entry)
    if out: notes.append(f"set_orders.parents_assigns: {len(out)} entries decide the BFS")
    return out, notes


def bufref_key(r):
  return (1, str(r)) if isinstance(r, str) else (0, r)


class LazyCall2ca41d6(LazyCall):
  """LazyCall with 2ca41d6's output: assign_preloads sorted, set_orders.parents_assigns from the probe."""

  def __init__(self, probe: ParentsAssignsProbe):
    super().__init__(GENERATION)
    self.probe = probe
    self.parents_assigns: list = []

  def encode_output(self, ret) -> dict:
    out = super().encode_output(ret)
    for it in out["schedule"]:
      it["assign_preloads"] = sorted(it["assign_preloads"], key=bufref_key)
    self.parents_assigns, notes = self.probe.finish(self, ret[0])
    self.notes.extend(notes)
    return out

  def finish_input(self, cap):
    """input.set_orders, before memory_planner_bufs (as 0.9.1 writes it)."""
    mpb = cap["input"].pop("memory_planner_bufs")
    cap["input"]["set_orders"] = {"parents_assigns": self.parents_assigns}
    cap["input"]["memory_planner_bufs"] = mpb
    return bool(self.parents_assigns)
