"""The rewrite steps of one scheduler call, as tinygrad's own tracker records them (record.py --trace).

tinygrad 0.10.x keeps, when TRACK_MATCH_STATS >= 2, every `graph_rewrite` call made inside a function decorated
with `track_rewrites` (create_schedule_with_vars is one): the caller's (file, line), the sink it was given, and
each match as (before UOp, after UOp, UPat), the UPat carrying the (file, line) it was built at.  Two shapes of
the same tracker:

- 0.9.2+197f8fd (ops.py `TrackedRewriteContext`): every call appended to `contexts` when it starts, its matches
  in `.rewrites` as (before, after, UPat); a match goes to `contexts[-1]`, the call started last.
- 0.10.0, 0.10.0+2ca41d6 (ops.py `TrackedRewriteContext`): `rewrite_stack` while the call runs, popped into
  `contexts` when it returns; `matches` also lists every node that matched nothing, as (uop, None, None, 0).
- 0.10.1, 0.10.2 (ops.py `TrackedGraphRewrite`): `tracked_ctxs[-1]`, one list per decorated call.

The tracker only exists when TRACK_MATCH_STATS is set before tinygrad is imported (ops.py swaps PatternMatcher
for TrackedPatternMatcher at import).  `install()` does that, then turns tracking off (value 0) everywhere but
inside a recorded scheduler call, so code generation between calls is not tracked.

A trace line (tsched-trace/1, docs/capture-format.md "Trace files") names its capture and holds one GRAPH of
every sink, before and after node, the rule table, and the rewrite calls in order.
"""
from __future__ import annotations
import os
from encode_common import GraphBuilder, enc_dtype, enc_enum, enc_plain, mro_names

FORMAT = "tsched-trace/1"


def prepare_env():
  """Before tinygrad is imported: make ops.py build the tracking PatternMatcher, quietly."""
  os.environ["TRACK_MATCH_STATS"] = "2"
  os.environ["PRINT_MATCH_STATS"] = "0"


class TraceProbe:
  def __init__(self, checkout: str):
    import tinygrad.ops as ops
    self.ops = ops
    self.checkout = checkout.rstrip("/") + "/"
    self.new_style = hasattr(ops, "tracked_ctxs")
    if not hasattr(ops, "TRACK_MATCH_STATS") or (not self.new_style and not hasattr(ops, "contexts")):
      raise SystemExit("record.py --trace: this tinygrad has no rewrite tracker (TRACK_MATCH_STATS)")
    if ops.PatternMatcher is not ops.TrackedPatternMatcher:
      raise SystemExit("record.py --trace: TRACK_MATCH_STATS was not set when tinygrad was imported")
    ops.TRACK_MATCH_STATS.value = 0
    self.taken = None

  def _clear(self):
    o = self.ops
    if self.new_style:
      o.tracked_ctxs.clear(); o.tracked_keys.clear()
      if hasattr(o, "active_rewrites"): o.active_rewrites.clear()
    else:
      if hasattr(o, "rewrite_stack"): o.rewrite_stack.clear()
      o.contexts.clear()

  def begin(self):
    self._clear()
    self.taken = None
    self.ops.TRACK_MATCH_STATS.value = 2

  def end(self):
    """Right after the call returned or raised: take the rewrites it made, leave tinygrad holding none."""
    o = self.ops
    o.TRACK_MATCH_STATS.value = 0
    if self.new_style: ctxs = [r for x in o.tracked_ctxs for r in x]
    elif not hasattr(o, "rewrite_stack"): ctxs = list(o.contexts)   # 0.9.2+197f8fd
    else: ctxs = [r for _, x in o.contexts for r in x] + [r for _, x in o.rewrite_stack for r in x]
    self.taken = ctxs
    self._clear()

  def release(self):
    self.taken = None

  def _loc(self, loc) -> list:
    fn, line = loc
    fn = os.path.abspath(fn)
    return [fn[len(self.checkout):] if fn.startswith(self.checkout) else os.path.basename(fn), int(line)]

  def encode(self, call, name: str, gen: str) -> dict:
    """The trace line of capture `name`; `call` is the capture's encoder (its BUFREFs name the Buffers)."""
    holder: list = []
    describe = self._describer(call, self.taken or [], holder)
    gb = GraphBuilder(describe, lambda u: u.src)
    holder.append(gb)
    rules, rule_idx, rewrites, roots = [], {}, [], []
    for r in self.taken or []:
      sink = gb.add(r.sink)
      roots.append(sink)
      matches = []
      for m in (r.matches if hasattr(r, "matches") else r.rewrites):
        before, after, upat = m[0], m[1], m[2]
        if upat is None or after is None: continue   # 0.10.0 also lists the nodes no rule matched
        k = id(upat)
        if k not in rule_idx:
          rule_idx[k] = len(rules)
          rules.append(self._loc(upat.location) + [upat.printable()])
        matches.append([gb.add(before), gb.add(after), rule_idx[k]])
      rw = {"loc": self._loc(r.loc), "sink": sink, "matches": matches}
      if getattr(r, "bottom_up", False): rw["bottom_up"] = True
      if getattr(r, "name", None) is not None: rw["name"] = r.name
      rewrites.append(rw)
    out = {"format": FORMAT, "generation": gen, "name": name, "graph": {"nodes": gb.nodes, "roots": roots},
           "rules": rules, "rewrites": rewrites}
    gb.release()
    return out

  def _describer(self, call, taken, holder):
    """UNIQUE args (0.10.2) and BUFFER nums (0.10.1) as the capture names them: a label fixed at call time (the
    input's BUFREF or "u:K", contract section 7: a `Tensor.empty` input stays "u:K"), else the BUFREF of the
    Buffer the node has after the call, else a new "u:K" (continuing the capture's numbering); a 0.10.2 KERNEL's
    Kernel arg as {"Kernel": [its ast's node, [str(metadata)...]]}; a 0.9.2+197f8fd DEFINE_GLOBAL's Buffer arg
    (before enumerate_bufs numbers it) as {"Buffer": BUFREF}; other args as everywhere."""
    from encode_uop import uop_postorder
    bmap = getattr(self.ops, "buffers", None)
    reg = call.reg
    ulabels = getattr(call, "ulabels", None)
    blabels = getattr(call, "blabels", None)   # 0.10.1: id(BUFFER) -> its NUM label
    unsupported: list = []   # opaque args are named in the capture already
    unique_buf: dict = {}    # id(UNIQUE) -> Buffer of its BUFFER
    if ulabels is not None and bmap is not None:
      tops = [u for r in taken for u in [r.sink] + [x for m in r.matches for x in m[:2] if x is not None]]
      for u in uop_postorder(tops):
        if u.op.name == "BUFFER" and len(u.src) >= 2 and u.src[1].op.name == "UNIQUE" and (b := bmap.get(u)) is not None:
          unique_buf[id(u.src[1])] = b

    def label(key, b, owner):
      """The label of a UNIQUE / 0.10.1 BUFFER: fixed at call time, else its Buffer's BUFREF, else a new u:K."""
      lab = ulabels.get(key)
      if lab is not None: return lab
      if b is not None and reg.known(b): return reg.ids[id(b)]
      lab = ulabels[key] = f"u:{len(ulabels)}"
      call.alive.append(owner)
      return lab

    def describe(u):
      if u.op.name == "UNIQUE" and ulabels is not None:
        return (enc_enum(u.op), enc_dtype(u.dtype), label(id(u), unique_buf.get(id(u)), u))
      if blabels is not None and u.op.name == "BUFFER" and isinstance(u.arg, tuple) and len(u.arg) == 2:
        lab = blabels.get(id(u))
        if lab is None: lab = label(id(u), bmap.get(u) if bmap is not None else None, u)
        return (enc_enum(u.op), enc_dtype(u.dtype), [lab, enc_plain(u.arg[1], unsupported)])
      if u.op.name == "DEFINE_GLOBAL" and "Buffer" in mro_names(u.arg):
        return (enc_enum(u.op), enc_dtype(u.dtype), {"Buffer": reg.ref(u.arg)})
      if u.op.name == "KERNEL" and hasattr(u.arg, "ast"):
        return (enc_enum(u.op), enc_dtype(u.dtype), {"Kernel": [holder[0].add(u.arg.ast), [str(m) for m in u.arg.metadata]]})
      return (enc_enum(u.op), enc_dtype(u.dtype), enc_plain(u.arg, unsupported))
    return describe


def same_captures(committed: str, recorded: str) -> list:
  """Names of the captures of `recorded` that differ from `committed` (apart from oracle_seconds) or are not in it."""
  import gzip, json
  def load(p):
    out = {}
    with (gzip.open(p, "rt") if p.endswith(".gz") else open(p)) as f:
      for ln in f:
        d = json.loads(ln); d.pop("oracle_seconds", None); out[d["name"]] = d
    return out
  a, b = load(committed), load(recorded)
  return [n for n in b if a.get(n) != b[n]]


if __name__ == "__main__":
  import sys
  if len(sys.argv) != 4 or sys.argv[1] != "--same": raise SystemExit("usage: rewrite_trace.py --same COMMITTED RECORDED")
  diff = same_captures(sys.argv[2], sys.argv[3])
  print(f"captures differing from {os.path.basename(sys.argv[2])}: {len(diff)}" + "".join(f"\n  {n}" for n in diff))
