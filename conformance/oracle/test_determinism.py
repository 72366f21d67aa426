#!/usr/bin/env python3
"""Determinism test for the oracle: records the same selection twice, in two
fresh processes, and checks that the captures are identical except for
`oracle_seconds`.

  python3 test_determinism.py [--only SUBSTR] [--suite S] CHECKOUT [CHECKOUT ...]

With no checkout given, the paths come from $TSCHED_TG091 $TSCHED_TG0100
$TSCHED_TG0102; a checkout that does not exist is skipped with a message.
When none exists it prints a single SKIP line and exits 0 (the machine has no
tinygrad), without a pass/fail count.
"""
import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SELECTION = [("workloads", "assign_inplace"), ("workloads", "multi_output"), ("workloads", "mlp_adam"),
                     ("workloads", "movement_chain"), ("test_schedule", "TestSchedule.test_fold_conv"),
                     ("symbolic", "sym_jit_kv_decode")]


def load(path):
  with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
    out = []
    for line in f:
      c = json.loads(line)
      c.pop("oracle_seconds", None)
      out.append(c)
    return out


def record(checkout, suite, only, out):
  cmd = [sys.executable, os.path.join(HERE, "record.py"), "--tinygrad", checkout, "--suite", suite, "--out", out]
  if only: cmd += ["--only", only]
  r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=1800)
  if r.returncode != 0:
    print(r.stderr[-3000:]); raise SystemExit(f"recorder failed: {' '.join(cmd)}")


def first_difference(a, b, path=""):
  if type(a) is not type(b): return f"{path}: {type(a).__name__} vs {type(b).__name__}"
  if isinstance(a, dict):
    for k in sorted(set(a) | set(b)):
      if k not in a or k not in b: return f"{path}.{k}: missing on one side"
      d = first_difference(a[k], b[k], f"{path}.{k}")
      if d: return d
    return None
  if isinstance(a, list):
    if len(a) != len(b): return f"{path}: length {len(a)} vs {len(b)}"
    for i, (x, y) in enumerate(zip(a, b)):
      d = first_difference(x, y, f"{path}[{i}]")
      if d: return d
    return None
  return None if a == b else f"{path}: {a!r} vs {b!r}"


def main():
  ap = argparse.ArgumentParser()
  ap.add_argument("checkouts", nargs="*")
  ap.add_argument("--suite")
  ap.add_argument("--only")
  a = ap.parse_args()
  checkouts = a.checkouts or [os.environ.get(k, "") for k in ("TSCHED_TG091", "TSCHED_TG0100", "TSCHED_TG0102")]
  selection = [(a.suite or "workloads", a.only)] if (a.suite or a.only) else DEFAULT_SELECTION
  present = [co for co in checkouts if co and os.path.isdir(os.path.join(co, "tinygrad"))]
  if not present:
    named = ", ".join(repr(co) for co in checkouts if co) or "none given, TSCHED_TG091/TSCHED_TG0100/TSCHED_TG0102 unset"
    print(f"SKIP: no tinygrad checkout ({named})")
    return 0
  ran = failed = 0
  for co in checkouts:
    if co not in present:
      print(f"SKIP: no tinygrad checkout at {co!r}"); continue
    for suite, only in selection:
      with tempfile.TemporaryDirectory() as td:
        p1, p2 = os.path.join(td, "a.jsonl"), os.path.join(td, "b.jsonl")
        record(co, suite, only, p1); record(co, suite, only, p2)
        x, y = load(p1), load(p2)
        ran += 1
        label = f"{os.path.basename(co.rstrip('/'))} {suite} {only or ''}"
        if len(x) == 0: print(f"WARN {label}: no captures")
        if len(x) != len(y):
          failed += 1; print(f"FAIL {label}: {len(x)} vs {len(y)} captures"); continue
        bad = [(c1["name"], first_difference(c1, c2)) for c1, c2 in zip(x, y) if c1 != c2]
        if bad:
          failed += 1; print(f"FAIL {label}: {len(bad)} captures differ, first {bad[0][0]}: {bad[0][1]}")
        else: print(f"ok   {label}: {len(x)} captures identical")
  print(f"{ran - failed} passed, {failed} failed")
  return 1 if failed else 0


if __name__ == "__main__":
  sys.exit(main())
