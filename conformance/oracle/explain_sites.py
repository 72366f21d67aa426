#!/usr/bin/env python3
"""Where real tinygrad realized each buffer, to check what `tsched explain` reports.

  python3 explain_sites.py --tinygrad /work/tg/v0.10.2 --suite test_schedule --out sites.jsonl
  python3 explain_sites.py --check sites.jsonl --tsched build/tsched conformance/corpus/v0.10.2-test_schedule.jsonl.gz

The first form runs a recorder suite (as record.py does, same capture names)
with the checkout's engine/schedule.py instrumented in memory: every insert
into `realizes` (0.9.1 `realizes[x] = None`, 0.10.0 `realize(ctx, b, ...)`,
0.10.2 `ctx.realizes[tr] = None` and the SINK rule) notes its site, and per
capture the first site of each input node is written: {"name", "sites":
{node index: site}}. Line numbers are those of the v0.9.1 / v0.10.0 / v0.10.2
tags. The checkout is only read.

The second form runs `tsched explain --json` on capture files and compares
the reason reported for each node a kernel writes with the site tinygrad
used: it prints the pairs (site, reason) with their counts and every
mismatch. A node realized for what it is (an output, forced, a meta op, an
ASSIGN) is reported for that even when a reader's view got there first, so
those pairs are expected (docs/explain.md).
"""
from __future__ import annotations
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))

# site -> the reasons tsched may report for it
SITE_REASONS = {
  "output": {"output"}, "forced_realize": {"forced", "output"}, "LoadOps": {"meta op", "forced", "assign", "output"},
  "meta": {"output", "forced", "meta op", "assign"}, "copy source": {"copy source", "meta op", "forced", "assign", "output"},
  "expand": {"expand", "meta op", "forced", "assign", "output"}, "unsafe pad": {"unsafe pad", "output"},
  "reduce": {"reduce"}, "reduce child": {"reduce child"},
}

STATE = {"first": {}, "results": [], "name": None, "call": None}


def _note(d, k, site):
  if k not in d: STATE["first"].setdefault(k, site)


# ---------------------------------------------------------------- per generation: source edits and the node numbering

def edit_091(i, line):
  """realizes[X] = None -> _note first"""
  def sub(m):
    key = m.group(1)
    site = {146: "expand", 152: "forced_realize", 153: "LoadOps", 156: "copy source", 157: "copy source",
            198: "unsafe pad"}.get(i + 1)
    if key == "tr": return "_note(realizes, tr, 'reduce' if tr is r else 'reduce child'); realizes[tr] = None"
    return f"_note(realizes, {key}, {site!r}); realizes[{key}] = None"
  return re.sub(r"realizes\[(.+)\] = None", sub, line)


def edit_0100(i, line):
  if "ctx[b] = UOp.store(" in line: return line.replace("ctx[b] = ", "_note(ctx, b, _site_0100()); ctx[b] = ")
  if line.strip() == "realizes[tr] = tr":
    return line.replace("realizes[tr] = tr", "_note(realizes, tr, 'reduce' if tr is r else 'reduce child'); realizes[tr] = tr")
  if line.strip() == "store_groups = group_realizes(ctx, realizes)": return line + "; _dump_0100(buffers, lazybufs)"
  return line


def _site_0100():
  f = sys._getframe(2)
  if f.f_code.co_name == "realize_view": return {342: "unsafe pad", 344: "expand", 346: "unsafe pad"}[f.f_lineno]
  if f.f_code.co_name == "<lambda>": return {358: "copy source", 360: "break"}[f.f_lineno]
  return "meta"


def edit_0102(i, line):
  if line.startswith("def realize(ctx:GrouperContext, tr:UOp) -> None: ctx.realizes[tr] = None"):
    return line.replace("ctx.realizes[tr] = None", "_note(ctx.realizes, tr, _site_0102(tr)); ctx.realizes[tr] = None")
  if "ctx.realizes.update((x.base, None) for x in s.src" in line:
    return line.replace("ctx.realizes.update((x.base, None) for x in s.src if x.base.op not in {Ops.CONST, Ops.BIND, Ops.BUFFER})",
                        "_realize_sink(ctx.realizes, [x.base for x in s.src if x.base.op not in {Ops.CONST, Ops.BIND, Ops.BUFFER}])")
  if line.strip() == "ctx.realizes[tr] = None":
    return line.replace("ctx.realizes[tr] = None", "_note(ctx.realizes, tr, 'reduce' if tr is r else 'reduce child'); ctx.realizes[tr] = None")
  if line.strip() == "realize_map = group_realizes(sink)": return line + "; _dump_0102(tensor_map)"
  return line


def _realize_sink(d, xs):
  for x in xs:
    _note(d, x, "output")
    d[x] = None


def _site_0102(tr):
  f = sys._getframe(2)
  if f.f_code.co_name == "realize_before_view": return {97: "unsafe pad", 99: "expand", 101: "unsafe pad"}[f.f_lineno]
  # the two rules that call realize directly: the node's own (visited first) or a COPY's source
  return "meta" if tr.op.name in ("ASSIGN", "CONTIGUOUS", "COPY", "BUFFER_VIEW") else "copy source"


def _record(sites):
  STATE["results"].append({"name": STATE["name"], "sites": sites})
  STATE["first"].clear()


def _dump_0100(buffers, lazybufs):
  index = STATE["call"].lb_index
  sites = {}
  for b, site in STATE["first"].items():
    lb = lazybufs.get(buffers.get(b))
    if lb is not None and site != "break": sites[index[id(lb)]] = site
  _record(sites)


def _dump_0102(tensor_map):
  memo = STATE["call"].input_gb.memo
  sites = {}
  for k, v in tensor_map.items():
    if v in STATE["first"] and id(k) in memo: sites.setdefault(memo[id(k)], STATE["first"][v])
  _record(sites)


def instrument(gen: str):
  """Re-executes engine/schedule.py with the edits and moves the new code into the module's functions."""
  import tinygrad.engine.schedule as S
  edit = {"0.9.1": edit_091, "0.10.0": edit_0100, "0.10.2": edit_0102}[gen]
  lines = [edit(i, l) for i, l in enumerate(open(S.__file__).read().split("\n"))]
  helpers = {"_note": _note, "_site_0100": _site_0100, "_site_0102": _site_0102, "_dump_0100": _dump_0100, "_dump_0102": _dump_0102,
             "_realize_sink": _realize_sink}
  S.__dict__.update(helpers)
  ns = dict(S.__dict__)
  exec(compile("\n".join(lines), S.__file__, "exec"), ns)
  for k, v in ns.items():
    old = S.__dict__.get(k)
    if not isinstance(v, types.FunctionType) or not isinstance(old, types.FunctionType): continue
    if v.__closure__ and old.__closure__ and "func" in v.__code__.co_freevars:   # a decorator's wrapper (track_rewrites)
      fv = dict(zip(v.__code__.co_freevars, v.__closure__)); fo = dict(zip(old.__code__.co_freevars, old.__closure__))
      fo["func"].cell_contents.__code__ = fv["func"].cell_contents.__code__
    elif not v.__closure__ and v.__module__ == S.__name__: old.__code__ = v.__code__
  for pm in ("do_realize", "break_sched"):   # PatternMatchers hold copies of their functions
    if pm in ns: S.__dict__[pm] = ns[pm]
  if gen == "0.9.1":
    orig = S._graph_schedule
    def _graph_schedule(outs, seen):
      from encode_lazy import lb_postorder
      STATE["first"].clear()
      for o in outs:
        if o.base.realized is None: STATE["first"].setdefault(o.base, "output")
      ret = orig(outs, seen)
      index = {id(lb): i for i, lb in enumerate(lb_postorder(outs))}
      _record({index[id(lb)]: site for lb, site in STATE["first"].items() if id(lb) in index})
      return ret
    S._graph_schedule = _graph_schedule


def run(a):
  import record
  if os.environ.get("PYTHONHASHSEED") != "0":
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable] + sys.argv)
  checkout = os.path.abspath(a.tinygrad)
  out = os.path.abspath(a.out)
  gen = record.detect_generation(checkout)
  sys.path[:0] = [HERE, os.path.join(HERE, "stubs"), checkout]
  os.chdir(checkout)
  for k in ("DEBUG", "GRAPH", "VIZ", "SAVE_SCHEDULE"): os.environ.pop(k, None)
  instrument(gen)
  import encode_lazy, encode_uop
  cls = encode_uop.UOpCall if gen == "0.10.2" else encode_lazy.LazyCall
  orig_ei = cls.encode_input
  def encode_input(self, *args, **kw):
    STATE["call"] = self
    STATE["first"].clear()
    return orig_ei(self, *args, **kw)
  cls.encode_input = encode_input
  orig_nn = record.Recorder.next_name
  def next_name(self):
    STATE["name"] = orig_nn(self)
    return STATE["name"]
  record.Recorder.next_name = next_name
  rec = record.Recorder(gen, record.Writer(os.devnull))
  rec.install()
  summary = {}
  if a.suite in ("workloads", "big"): record.run_workloads(rec, a.suite, a.only, summary)
  else: record.run_unittest_module(rec, "test." + (a.suite[5:] if a.suite.startswith("test:") else "test_schedule"), a.only, summary)
  rec.flush()
  with open(out, "w") as f:
    for r in STATE["results"]: f.write(json.dumps(r) + "\n")
  print(f"{len(STATE['results'])} captures", file=sys.stderr)
  sys.stderr.flush()
  os._exit(0)


def check(a):
  sites = {}
  for line in open(a.check):
    r = json.loads(line)
    sites[r["name"]] = {int(k): v for k, v in r["sites"].items()}
  pairs, bad = collections.Counter(), 0
  for path in a.captures:
    out = subprocess.run([a.tsched, "explain", "--json", path], capture_output=True, text=True).stdout
    for line in out.splitlines():
      e = json.loads(line)
      if e["name"] not in sites or e["reasons"] != "reported": continue
      for k in e["kernels"]:
        for w in k["writes"]:
          site = sites[e["name"]].get(w["node"], "not realized")
          pairs[(site, w["why"])] += 1
          if w["why"] not in SITE_REASONS.get(site, set()):
            bad += 1
            print(f"MISMATCH {e['name']} node {w['node']}: tinygrad {site}, tsched {w['why']} ({w['detail']})")
  for (site, why), n in sorted(pairs.items()): print(f"{n:6d}  {site:15s} -> {why}")
  print(f"{sum(pairs.values())} written nodes, {bad} mismatches")
  return 1 if bad else 0


def main():
  ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  ap.add_argument("--tinygrad", help="a tinygrad 0.9.1 / 0.10.0 / 0.10.2 checkout")
  ap.add_argument("--suite", default="test_schedule", help="test_schedule | workloads | big | test:<module>")
  ap.add_argument("--only", help="only tests/workloads whose id contains this")
  ap.add_argument("--out", help="sites .jsonl to write")
  ap.add_argument("--check", metavar="SITES", help="compare SITES with `tsched explain` on the capture files")
  ap.add_argument("--tsched", default="build/tsched")
  ap.add_argument("captures", nargs="*")
  a = ap.parse_args()
  if a.check: sys.exit(check(a))
  if not a.tinygrad or not a.out: ap.error("--tinygrad and --out (or --check)")
  run(a)


if __name__ == "__main__":
  main()
