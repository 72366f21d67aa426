"""tinygrad 0.9.1 set-order instrumentation (contract section 3, `set_orders`).

0.9.1 hashes LazyBuffers by id(), so two Python sets in `_graph_schedule` are
iterated in memory-address order, and that order can change the schedule:
`simple_pads` (the `_is_padding_okay` loop: realizes insertion order) and each
schedule item's `parents_assigns` (edge order of the BFS).  Address order
differs from run to run, which would make recordings irreproducible, so at
runtime (tinygrad itself is untouched) the recorder makes exactly those two
sets iterate in insertion order -- one of the orders real tinygrad can take --
and records it:

* the module global `set` of tinygrad.engine.schedule is shadowed by a function
  that returns an insertion-ordered set at those two lines (a builtin set
  everywhere else);
* `_graph_schedule` is wrapped to see the graph the BFS will walk.

After the call `finish()` decides where the order matters and returns the
`set_orders` object: `simple_pads` is sorted ascending unless at least two
pads had to be realized (their realizes insertion order then decides the
kernel order); a `parents_assigns` entry is written only when at least two of
its members become ready at the same BFS step.
"""
from __future__ import annotations
import builtins
import sys
from collections import deque


class OrderedSet(builtins.set):
  """A set that iterates in insertion order."""

  def __init__(self, it=()):
    super().__init__()
    self._order: dict = {}
    for x in it: self.add(x)

  def add(self, x):
    if not super().__contains__(x):
      super().add(x); self._order[x] = None

  def update(self, *its):
    for it in its:
      for x in it: self.add(x)

  def discard(self, x):
    super().discard(x); self._order.pop(x, None)

  def remove(self, x):
    super().remove(x); self._order.pop(x)

  def pop(self):
    x = next(iter(self._order)); self.remove(x); return x

  def clear(self):
    super().clear(); self._order.clear()

  def __iter__(self):
    return iter(list(self._order))


class SimplePads(OrderedSet):
  def __init__(self, probe):
    super().__init__(); self._probe = probe

  def __iter__(self):
    order = list(self._order)
    if self._probe.active and self._probe.sp_order is None:
      realizes = sys._getframe(1).f_locals.get("realizes", {})
      self._probe.sp_order, self._probe.sp_r0 = order, list(realizes)
    return iter(order)


class SetOrderProbe:
  def __init__(self):
    import tinygrad.engine.schedule as S
    self.S = S
    self.active = False
    self.code = S._graph_schedule.__code__
    src = open(S.__file__).read().splitlines()
    self.sp_line = next(i + 1 for i, l in enumerate(src) if "simple_pads" in l and "= set()" in l)
    self.pa_line = next(i + 1 for i, l in enumerate(src) if "parents_assigns = set(" in l)
    from tinygrad.ops import UNSAFE_PAD_OPS
    self.unsafe = {f"{type(o).__name__}.{o.name}" for o in UNSAFE_PAD_OPS}
    self.reset()
    probe = self

    def _set(*args):
      f = sys._getframe(1)
      if f.f_code is probe.code:
        if f.f_lineno == probe.sp_line: return SimplePads(probe)
        if f.f_lineno == probe.pa_line:
          s = OrderedSet(*args)
          if probe.active: probe.pa.append((f.f_locals.get("key"), list(s._order)))
          return s
      return builtins.set(*args)
    S.set = _set

    orig_gs = S._graph_schedule
    def _graph_schedule(*a, **kw):
      ret = orig_gs(*a, **kw)
      if probe.active:
        graph, in_degree, prescheduled = ret
        probe.graph = {k: list(v) for k, v in graph.items()}
        probe.in_degree = dict(in_degree)
        probe.keys = list(prescheduled.keys())
      return ret
    S._graph_schedule = _graph_schedule

  def reset(self):
    self.sp_order = None; self.sp_r0 = None; self.pa = []
    self.graph = None; self.in_degree = None; self.keys = None

  def begin(self):
    self.reset(); self.active = True

  def end(self):
    self.active = False; self.reset()

  # ------------------------------------------------------------------ analysis
  def finish(self, call, lb_enc: list) -> tuple[dict, list]:
    """set_orders for the capture, and notes. lb_enc: the encoded input lazybuffers."""
    notes = []
    idx = call.index_of
    sp = [] if self.sp_order is None else [idx(x) for x in self.sp_order]
    if None in sp: notes.append("simple_pads member outside the input graph"); sp = [i for i in sp if i is not None]
    if self.sp_order is not None and len(sp) >= 2:
      r0 = {i for i in (idx(x) for x in self.sp_r0) if i is not None}
      failing = [p for p in sp if not self._padding_okay(p, r0, lb_enc, {})]
      if len(failing) < 2: sp = sorted(sp)
      else: notes.append(f"set_orders.simple_pads: {len(failing)} pads realized, insertion order recorded")
    pa_out = []
    if self.graph is not None:
      deciding = self._deciding_pa()
      for key, members in self.pa:
        if len(members) >= 2 and id(key) in deciding:
          ki, mi = idx(key), [idx(m) for m in members]
          if ki is None or None in mi: notes.append("parents_assigns member outside the input graph"); continue
          pa_out.append([ki, mi])
      if pa_out: notes.append(f"set_orders.parents_assigns: {len(pa_out)} entries decide the BFS")
    return {"simple_pads": sp, "parents_assigns": pa_out}, notes

  def _padding_okay(self, i, realizes, lbs, memo) -> bool:
    # _is_padding_okay on the encoded (pre-call) graph
    if i in memo: return memo[i]
    d = lbs[i]
    if "base" in d: return self._padding_okay(d["base"], realizes, lbs, memo)
    if i in realizes or d["realized"]: r = True
    elif d["op"] in self.unsafe: r = False
    else:
      r = all(self._padding_okay(lbs[s]["base"] if "base" in lbs[s] else s, realizes, lbs, memo) for s in (d["srcs"] or []))
    memo[i] = r
    return r

  def _deciding_pa(self) -> set:
    """ids of keys whose parents_assigns members (>=2) get ready at the same BFS pop."""
    pa = {id(k): {id(m) for m in ms} for k, ms in self.pa if len(ms) >= 2}
    if not pa: return set()
    indeg = dict(self.in_degree)
    q = deque(k for k in self.keys if indeg.get(k, 0) == 0)
    out = set()
    while q:
      k = q.popleft()
      ready = 0
      for x in self.graph.get(k, []):
        indeg[x] -= 1
        if indeg[x] == 0:
          q.append(x)
          if id(k) in pa and id(x) in pa[id(k)]: ready += 1
      if ready >= 2: out.add(id(k))
    return out
