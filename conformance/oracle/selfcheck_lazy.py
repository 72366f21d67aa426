#!/usr/bin/env python3
"""Round-trip check of 0.9.1 / 0.10.0 captures against real tinygrad.

  python3 selfcheck_lazy.py --tinygrad /path/to/v0.9.1 FILE.jsonl.gz [--only SUBSTR]

For every capture: rebuild the LazyBuffer graph from the capture (Buffers from
`input.buffers`, LazyBuffers built attribute by attribute so that they share
exactly the recorded Buffers, `srcs` left out where the capture says they are
gone), re-encode it and compare with the recorded input, run the real
`create_schedule_with_vars` (0.9.1 with the same insertion-ordered set
instrumentation the recorder uses, so `set_orders` is checked too), encode the
result with the recorder's encoder and compare with `expected` (schedule,
var_vals, mutations, assign_preloads) or `error`; then the real
`memory_planner` is run from the recorded planner-entry state and its result
compared (`--no-planner` skips that).
"""
import argparse
import gzip
import importlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


class Rebuilder:
  def __init__(self, gen):
    self.gen = gen
    import tinygrad.dtype as D
    from tinygrad.shape.shapetracker import ShapeTracker
    from tinygrad.shape.view import View
    from tinygrad.device import Buffer, BufferOptions
    self.dtypes, self.ShapeTracker, self.View, self.Buffer, self.BufferOptions = D.dtypes, ShapeTracker, View, Buffer, BufferOptions
    if gen == "0.9.1":
      from tinygrad.lazy import LazyBuffer
      import tinygrad.ops as O
      self.enums = {c.__name__: c for c in (O.UnaryOps, O.BinaryOps, O.TernaryOps, O.ReduceOps, O.LoadOps, O.BufferOps)}
      from tinygrad.shape.symbolic import Variable, NumNode, Node, create_lt_node
      self.Variable, self.NumNode, self.Node, self.create_lt_node = Variable, NumNode, Node, create_lt_node
    else:
      from tinygrad.engine.lazy import LazyBuffer
      from tinygrad.ops import Ops, UOp
      from tinygrad.helpers import Metadata
      self.enums, self.UOp, self.Metadata = {"Ops": Ops}, UOp, Metadata
    self.LazyBuffer = LazyBuffer

  def dtype(self, s):
    if s.startswith("_"):  # 0.9.1 vector spelling _float4
      import re
      m = re.fullmatch(r"_([a-z]+?)(\d+)", s)
      return getattr(self.dtypes, m.group(1)).vec(int(m.group(2)))
    return eval("dtypes." + s, {"dtypes": self.dtypes})

  def enum(self, s):
    cls, name = s.split(".")
    return self.enums[cls][name]

  def expr(self, e):
    if self.gen == "0.9.1":
      if isinstance(e, int): return self.NumNode(e)
      if "var" in e:
        v = self.Variable(e["var"], e["min"], e["max"])
        return v.bind(e["val"]) if "val" in e else v
      s = [self.expr(x) if isinstance(x, dict) else x for x in e["src"]]
      if e["op"] == "SUM": return self.Node.sum([self.expr(x) if isinstance(x, int) else x for x in s])
      if e["op"] == "AND": return self.Node.ands(s)
      a, b = s
      return {"MUL": lambda: a * b, "DIV": lambda: a // b, "MOD": lambda: a % b, "LT": lambda: self.create_lt_node(a, b)}[e["op"]]()
    UOp, dtypes = self.UOp, self.dtypes
    if isinstance(e, int): return UOp.const(dtypes.int, e)
    if "var" in e:
      v = UOp.variable(e["var"], e["min"], e["max"])
      return v.bind(e["val"]) if "val" in e else v
    dt = self.dtype(e["dtype"]) if "dtype" in e else (dtypes.bool if e["op"] in ("CMPLT", "CMPNE") else dtypes.int)
    return UOp(self.enums["Ops"][e["op"]], dt, tuple(self.expr(x) for x in e["src"]), self.value(e["arg"]) if "arg" in e else None)

  def value(self, v):
    if isinstance(v, list): return tuple(self.value(x) for x in v)
    if isinstance(v, dict):
      if set(v) == {"float"}: return float(v["float"])
      if set(v) == {"sym"}: return self.expr(v["sym"]) if isinstance(v["sym"], dict) or self.gen == "0.9.1" else self.UOp.const(self.dtypes.int, v["sym"])
      if "views" in v: return self.st(v)
      if "repr" in v and v["repr"].startswith("function:"):
        path = v["repr"][len("function:"):]
        mod, _, name = path.rpartition(".")
        return getattr(importlib.import_module(mod), name)
      raise ValueError(f"cannot decode {v}")
    return v

  def st(self, d):
    views = tuple(self.View(tuple(self.value(s) for s in v["shape"]), tuple(self.value(s) for s in v["strides"]), self.value(v["offset"]),
                            None if v["mask"] is None else tuple(tuple(self.value(x) for x in m) for m in v["mask"]), v["contiguous"])
                  for v in d["views"])
    return self.ShapeTracker(views)

  def arg(self, op, a):
    name = op.split(".")[1]
    if name in ("CAST", "BITCAST") or (name == "BUFFER_VIEW" and a is not None): return self.dtype(a)
    if self.gen != "0.9.1" and name == "REDUCE_AXIS": return (self.enum(a[0]), tuple(a[1]))
    return self.value(a)

  def buffers(self, descs):
    out = []
    for d in descs:
      o = d["options"]
      opts = None if o is None else self.BufferOptions(image=None if o["image"] is None else self.dtype(o["image"]), uncached=o["uncached"],
                                                       cpu_access=o["cpu_access"], host=o["host"], nolru=o["nolru"])
      base = None if d["base"] is None else out[d["base"]]
      b = self.Buffer(d["device"], d["size"], self.dtype(d["dtype"]), options=opts, base=base, offset=d["offset"])
      if base is None: b._lb_refcount = d["lb_refcount"]
      out.append(b)
    return out

  def graph(self, inp):
    bufs = self.buffers(inp["buffers"])
    lbs = []
    for d in inp["lazybuffers"]:
      lb = self.LazyBuffer.__new__(self.LazyBuffer)
      st = self.st(d["st"])
      lb.device, lb.st, lb.dtype, lb.shape, lb.size = d["device"], st, self.dtype(d["dtype"]), st.shape, st.size
      if self.gen != "0.9.1": lb.metadata = None
      if "base" in d:
        lb._base = lbs[d["base"]]
      else:
        lb._base = None
        lb.op, lb.arg = self.enum(d["op"]), self.arg(d["op"], d["arg"])
        if d["srcs"] is not None: lb.srcs = tuple(lbs[s] for s in d["srcs"])
        lb.buffer = bufs[d["buffer"]]
        lb.contiguous_child, lb.forced_realize = None, d["forced_realize"]
        if self.gen != "0.9.1" and d["metadata"] is not None:
          s = d["metadata"]
          bw = s.endswith(" bw")
          lb.metadata = self.Metadata(s[:-3] if bw else s, d.get("metadata_caller", ""), bw)
      lbs.append(lb)
    outs = [lbs[i] for i in inp["outs"]]
    seen = {lbs[i] for i in inp.get("seen", [])}
    return outs, seen, lbs, bufs


def set_context(gen, ctx):
  from tinygrad.helpers import ContextVar
  if gen == "0.9.1":
    from tinygrad.helpers import MULTIOUTPUT
    MULTIOUTPUT.value = ctx["MULTIOUTPUT"]
  else:
    for k, v in ctx.items():
      if k in getattr(ContextVar, "_cache", {}): ContextVar._cache[k].value = v
    import tinygrad.engine.schedule as S
    S.BUF_LIMIT.clear()
    S.BUF_LIMIT.update({k.split(":", 1)[1]: v for k, v in ctx.items() if k.startswith("BUF_LIMIT:")})


def main():
  from selfcheck_0102 import first_diff
  ap = argparse.ArgumentParser()
  ap.add_argument("--tinygrad", required=True)
  ap.add_argument("--only")
  ap.add_argument("--no-planner", dest="planner", action="store_false", help="do not re-run the memory planner")
  ap.add_argument("files", nargs="+")
  a = ap.parse_args()
  if os.environ.get("PYTHONHASHSEED") != "0":
    os.environ["PYTHONHASHSEED"] = "0"; os.execv(sys.executable, [sys.executable] + sys.argv)
  checkout = os.path.abspath(a.tinygrad)
  sys.path[:0] = [HERE, os.path.join(HERE, "stubs"), checkout]
  os.chdir(checkout)
  from record import detect_generation
  gen = detect_generation(checkout)
  import tinygrad.engine.schedule as S
  from selfcheck_planner import replay_planner, recorded_planner
  from encode_lazy import LazyCall
  probe = None
  if gen == "0.9.1":
    from setorder091 import SetOrderProbe
    probe = SetOrderProbe()
  current = {}
  if gen == "0.10.0":
    orig_to_uop = S.to_uop
    def to_uop(buf, ctx, buffers, *x, **kw):
      c = current.get("call")
      if c is not None and c.uop_buffers is None: c.uop_buffers = buffers
      return orig_to_uop(buf, ctx, buffers, *x, **kw)
    S.to_uop = to_uop
  rb = Rebuilder(gen)
  ok = bad = 0
  for f in a.files:
    with gzip.open(f, "rt") if f.endswith(".gz") else open(f) as fh:
      for line in fh:
        cap = json.loads(line)
        if cap["generation"] != gen or (a.only and a.only not in cap["name"]): continue
        set_context(gen, cap["context"])
        try:
          outs, seen, lbs, bufs = rb.graph(cap["input"])
        except Exception as e:
          bad += 1; print(f"FAIL {cap['name']}: rebuild: {type(e).__name__}: {e}"); continue
        call = LazyCall(gen)
        inp = call.encode_input(outs, seen if gen == "0.9.1" else None)
        keys = ("lazybuffers", "outs", "seen")
        d = first_diff({k: cap["input"][k] for k in keys if k in cap["input"]}, {k: inp[k] for k in keys if k in inp}, "input")
        want_bufs = [{k: v for k, v in b.items() if k not in ("allocated",)} for b in cap["input"]["buffers"]]
        got_bufs = [{k: v for k, v in b.items() if k not in ("allocated",)} for b in inp["buffers"]]
        d = d or first_diff(want_bufs, got_bufs, "input.buffers")
        if probe is not None: probe.begin()
        current["call"] = call
        got = None
        try:
          ret = S.create_schedule_with_vars(outs, seen) if gen == "0.9.1" else S.create_schedule_with_vars(outs)
          got = call.encode_output(ret)
          if cap["error"] is not None: d = d or f"expected {cap['error']['type']}, got a schedule"
        except Exception as e:
          if cap["error"] is None: d = d or f"raised {type(e).__name__}: {e}"
          elif type(e).__name__ != cap["error"]["type"] or str(e).split("\n")[0] != cap["error"]["message"].split("\n")[0]:
            d = d or f"raised {type(e).__name__}: {e}, expected {cap['error']}"
        if probe is not None:
          so, _ = probe.finish(call, inp["lazybuffers"])
          d = d or first_diff(cap["input"]["set_orders"], so, "input.set_orders")
          probe.end()
        current["call"] = None
        if got is not None and d is None and cap["error"] is None:
          want = {k: v for k, v in cap["expected"].items() if k in ("schedule", "var_vals", "mutations")}
          d = first_diff(want, {k: got[k] for k in want}, "expected")
          if d is None and a.planner:
            d = first_diff(recorded_planner(gen, cap), replay_planner(gen, ret[0], call, cap), "planner")
        call.release(); del outs, seen, lbs, bufs
        if d is None: ok += 1
        else:
          bad += 1; print(f"FAIL {cap['name']}: {d}")
  print(f"{ok} passed, {bad} failed")
  sys.stdout.flush()
  os._exit(1 if bad else 0)


if __name__ == "__main__":
  main()
