#!/usr/bin/env python3
"""Prints repr(si.ast) of selected scheduler calls with real tinygrad, in the
layout of `tsched ast --recorded`, to make the golden files of the `ast`
command (conformance/tests/golden/ast_*.txt): the text is tinygrad's own.

  python3 print_asts.py --tinygrad /work/tg/v0.10.2 workloads.matmul#3 workloads.softmax_norms#2

Each NAME is a capture name of the `workloads` or `big` suite, or of a
test module (`test_schedule.TestSchedule.test_fold_conv#0`; each such test is
run alone, in sorted order), with the call index numbered from 0 exactly as
record.py numbers them.
"""
import argparse
import gc
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
  ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  ap.add_argument("--tinygrad", required=True, help="path of a tinygrad 0.9.1 / 0.10.0 / 0.10.2 checkout")
  ap.add_argument("names", nargs="+", help="capture names, e.g. workloads.matmul#3")
  a = ap.parse_args()
  if os.environ.get("PYTHONHASHSEED") != "0":
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable] + sys.argv)
  checkout = os.path.abspath(a.tinygrad)
  sys.path[:0] = [HERE, os.path.join(HERE, "stubs"), checkout]
  import record
  gen = record.detect_generation(checkout)
  os.chdir(checkout)
  for k in ("DEBUG", "GRAPH", "VIZ", "SAVE_SCHEDULE"): os.environ.pop(k, None)
  import tinygrad.engine.schedule as S
  import workloads

  wanted = {}
  for n in a.names:
    wl, k = n.rsplit("#", 1)
    wanted.setdefault(wl, set()).add(int(k))
  state = {"workload": None, "calls": 0, "active": False}
  orig = S.create_schedule_with_vars

  def create_schedule_with_vars(*args, **kwargs):
    if state["active"]: return orig(*args, **kwargs)
    k = state["calls"]
    state["calls"] += 1
    state["active"] = True
    try:
      ret = orig(*args, **kwargs)
    finally:
      state["active"] = False
    if k in wanted.get(state["workload"], ()):
      sched = ret[0]
      n = len(sched)
      print(f"=== {state['workload']}#{k}  {gen}  {n} kernel{'' if n == 1 else 's'}  from the recording")
      for i, si in enumerate(sched):
        print(f"--- kernel {i}")
        print(repr(si.ast))
    return ret

  record.replace_everywhere(orig, create_schedule_with_vars)
  # unittest ids ("test_schedule.TestSchedule.test_fold_conv"): each test run alone
  import unittest
  for wl in sorted(w for w in wanted if w.startswith("test_")):
    gc.collect()
    record.seed_everything()
    state.update(workload=wl, calls=0)
    try:
      unittest.TestSuite([unittest.defaultTestLoader.loadTestsFromName("test." + wl)]).run(unittest.TestResult())
    except Exception as e:  # a test that cannot load prints nothing
      print(f"# {wl}: {type(e).__name__}: {e}", file=sys.stderr)
  for suite in ("workloads", "big"):
    for name, fn in workloads.SUITES[suite]:
      wl = f"{suite}.{name}"
      if wl not in wanted: continue
      gc.collect()
      record.seed_everything()
      state.update(workload=wl, calls=0)
      fn()
  sys.stdout.flush()
  os._exit(0)


if __name__ == "__main__":
  main()
