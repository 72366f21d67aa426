#!/usr/bin/env python3
"""Round-trip check of 0.10.2 captures against real tinygrad 0.10.2.

  python3 selfcheck_0102.py --tinygrad /path/to/v0.10.2 FILE.jsonl.gz [--only SUBSTR]

For every capture: rebuild the input UOp graph from the capture (fresh UNIQUEs,
Buffers recreated and attached to their BUFFER nodes, metadata re-attached,
context flags set), re-encode it and compare with the recorded input, run the
real `create_schedule_with_vars` on it, encode the result with the recorder's
encoder and compare with `expected` (schedule, var_vals, becomes_map,
new_buffers) or `error`; then the real `memory_planner` is run from the
recorded planner-entry state and its result compared (`--no-planner` skips
it). A pass shows the capture holds everything the 0.10.2 scheduler and
planner read -- what a C replayer needs.
"""
import argparse
import gzip
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def same(a, b):
  """JSON equality with the replay rules: int != float, floats by IEEE value (nan == nan)."""
  if isinstance(a, bool) or isinstance(b, bool): return type(a) is type(b) and a == b
  if isinstance(a, float) or isinstance(b, float):
    return isinstance(a, float) and isinstance(b, float) and (a == b or (math.isnan(a) and math.isnan(b)))
  if isinstance(a, dict):
    return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
  if isinstance(a, list):
    return isinstance(b, list) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
  return type(a) is type(b) and a == b


def first_diff(a, b, path="$"):
  if isinstance(a, dict) and isinstance(b, dict):
    for k in sorted(set(a) | set(b)):
      if k not in a or k not in b: return f"{path}.{k} missing"
      d = first_diff(a[k], b[k], f"{path}.{k}")
      if d: return d
    return None
  if isinstance(a, list) and isinstance(b, list):
    if len(a) != len(b): return f"{path}: len {len(a)} vs {len(b)}"
    for i, (x, y) in enumerate(zip(a, b)):
      d = first_diff(x, y, f"{path}[{i}]")
      if d: return d
    return None
  return None if same(a, b) else f"{path}: {json.dumps(a)[:200]} vs {json.dumps(b)[:200]}"


class Rebuilder:
  def __init__(self):
    from tinygrad.ops import UOp, Ops, buffers, all_metadata
    from tinygrad.dtype import dtypes
    from tinygrad.shape.shapetracker import ShapeTracker
    from tinygrad.shape.view import View
    from tinygrad.device import Buffer, BufferSpec
    from tinygrad.helpers import Metadata
    self.UOp, self.Ops, self.buffers, self.all_metadata = UOp, Ops, buffers, all_metadata
    self.dtypes, self.ShapeTracker, self.View, self.Buffer, self.BufferSpec, self.Metadata = dtypes, ShapeTracker, View, Buffer, BufferSpec, Metadata

  def dtype(self, s):
    return eval("dtypes." + s, {"dtypes": self.dtypes})

  def expr(self, e):
    UOp, dtypes = self.UOp, self.dtypes
    if isinstance(e, bool): return UOp.const(dtypes.bool, e)
    if isinstance(e, int): return UOp.const(dtypes.int, e)
    if "var" in e:
      v = UOp.variable(e["var"], e["min"], e["max"])
      return v.bind(e["val"]) if "val" in e else v
    srcs = tuple(self.expr(s) for s in e["src"])
    dt = self.dtype(e["dtype"]) if "dtype" in e else (dtypes.bool if e["op"] in ("CMPLT", "CMPNE") else dtypes.int)
    return UOp(self.Ops[e["op"]], dt, srcs, self.value(e["arg"]) if "arg" in e else None)

  def value(self, v):
    if isinstance(v, list): return tuple(self.value(x) for x in v)
    if isinstance(v, dict):
      if set(v) == {"float"}: return float(v["float"])
      if set(v) == {"sym"}: return self.expr(v["sym"]) if isinstance(v["sym"], dict) else self.UOp.const(self.dtypes.int, v["sym"])
      if "views" in v: return self.st(v)
      raise ValueError(f"cannot decode {v}")
    return v

  def st(self, d):
    views = tuple(self.View(tuple(self.value(s) for s in v["shape"]), tuple(self.value(s) for s in v["strides"]), self.value(v["offset"]),
                            None if v["mask"] is None else tuple(tuple(self.value(x) for x in m) for m in v["mask"]), v["contiguous"])
                  for v in d["views"])
    return self.ShapeTracker(views)

  def arg(self, op, a):
    if op == "REDUCE_AXIS": return (self.Ops[a[0].split(".")[1]], tuple(a[1]))
    if op == "VIEW": return self.st(a)
    return self.value(a)

  def buffer_objs(self, descs):
    out = []
    for d in descs:
      opts = None if d["options"] is None else self.BufferSpec(image=None if d["options"]["image"] is None else self.dtype(d["options"]["image"]),
                                                               uncached=d["options"]["uncached"], cpu_access=d["options"]["cpu_access"],
                                                               host=d["options"]["host"], nolru=d["options"]["nolru"])
      base = None if d["base"] is None else out[d["base"]]
      out.append(self.Buffer(d["device"], d["size"], self.dtype(d["dtype"]), options=opts, base=base, offset=d["offset"]))
    return out

  def graph(self, inp):
    UOp, Ops = self.UOp, self.Ops
    bufs = self.buffer_objs(inp["buffers"])
    node_buffer = dict(tuple(x) for x in inp["node_buffer"])
    uops = []
    for i, (op, dt, arg, src) in enumerate(inp["graph"]["nodes"]):
      name = op.split(".")[1]
      if name == "UNIQUE": u = UOp.unique()
      else: u = UOp(Ops[name], self.dtype(dt), tuple(uops[s] for s in src), self.arg(name, arg))
      if i in node_buffer: self.buffers[u] = bufs[node_buffer[i]]
      uops.append(u)
    for u in uops: self.all_metadata.pop(u, None)   # hash-consed nodes may carry metadata from an earlier capture
    full = {e[0]: self.Metadata(e[1], e[2], e[3]) for e in inp.get("metadata_full", [])}
    for idx, s in inp["metadata"]:
      m = full.get(idx) or (self.Metadata(s[:-3], "", True) if s.endswith(" bw") else self.Metadata(s, "", False))
      self.all_metadata[uops[idx]] = m
    return uops[inp["graph"]["roots"][0]], uops, bufs


def set_context(ctx):
  from tinygrad.helpers import ContextVar
  for k, v in ctx.items():
    if k in ContextVar._cache: ContextVar._cache[k].value = v


def main():
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
  import tinygrad.engine.schedule as S
  from selfcheck_planner import replay_planner, recorded_planner
  from encode_uop import UOpCall
  rb = Rebuilder()
  ok = bad = 0
  for f in a.files:
    with gzip.open(f, "rt") if f.endswith(".gz") else open(f) as fh:
      for line in fh:
        cap = json.loads(line)
        if cap["generation"] != "0.10.2" or (a.only and a.only not in cap["name"]): continue
        set_context(cap["context"])
        try:
          sink, uops, bufs = rb.graph(cap["input"])
        except Exception as e:
          bad += 1; print(f"FAIL {cap['name']}: rebuild: {type(e).__name__}: {e}"); continue
        call = UOpCall()
        inp = call.encode_input(sink)
        want_in = {k: v for k, v in cap["input"].items() if k not in ("buffers", "memory_planner_bufs", "memory_planner_allocator_offset")}
        got_in = {k: v for k, v in inp.items() if k in want_in}
        d = first_diff(want_in, got_in, "input")
        try:
          ret = S.create_schedule_with_vars(sink)
          got = call.encode_output(ret)
          if cap["error"] is not None: d = d or f"expected {cap['error']['type']}, got a schedule"
        except Exception as e:
          got = None
          if cap["error"] is None: d = d or f"raised {type(e).__name__}: {e}"
          elif type(e).__name__ != cap["error"]["type"] or str(e).split("\n")[0] != cap["error"]["message"].split("\n")[0]:
            d = d or f"raised {type(e).__name__}: {e}, expected {cap['error']}"
        if got is not None and d is None and cap["error"] is None:
          want = {k: cap["expected"][k] for k in ("schedule", "var_vals", "becomes_map", "new_buffers")}
          d = first_diff(want, {k: got[k] for k in want}, "expected")
          if d is None and a.planner:
            d = first_diff(recorded_planner("0.10.2", cap), replay_planner("0.10.2", ret[0], call, cap), "planner")
        call.release(); del sink, uops, bufs
        if d is None: ok += 1
        else:
          bad += 1; print(f"FAIL {cap['name']}: {d}")
  print(f"{ok} passed, {bad} failed")
  sys.stdout.flush()
  os._exit(1 if bad else 0)


if __name__ == "__main__":
  main()
