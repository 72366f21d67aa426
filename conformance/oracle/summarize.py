#!/usr/bin/env python3
"""Merge the recorder's per-run --summary files into one JSON (stdout), or,
with --table, print that JSON as the per-version count table of
conformance/README.md.

  summarize.py RUN.json ... > conformance/corpus/summary.json
  summarize.py --table conformance/corpus/summary.json
"""
import json
import sys

KEEP = ("generation", "suite", "captures", "errors", "with_memory_plan", "tests", "passed", "test_failed", "test_errors",
        "skipped", "skipped_reasons", "stub_skipped", "failures", "workloads", "workloads_failed", "encoder_failures",
        "set_order_affected", "unmatched_planner_calls", "nested_calls", "module_import_error", "max_per_test", "capped_calls",
        "capped_workloads", "torch_mirror")


def merge(paths):
  runs = []
  for p in paths:
    with open(p) as f: s = json.load(f)
    runs.append({k: s[k] for k in KEEP if k in s})
  runs.sort(key=lambda r: (["0.9.1", "0.10.0", "0.10.2"].index(r["generation"]), ["test_schedule", "workloads", "big"].index(r["suite"])
                           if r["suite"] in ("test_schedule", "workloads", "big") else 9))
  return {"runs": runs}


def table(path):
  with open(path) as f: runs = json.load(f)["runs"]
  print("| version | suite | captures | of them errors | with memory plan | tests/workloads run | skipped (why) |")
  print("|---|---|---:|---:|---:|---:|---|")
  for r in runs:
    why = []
    if r.get("skipped"): why.append(f"{r['skipped']} skipped by the test itself")
    for pkg, n in sorted((r.get("stub_skipped") or {}).items()): why.append(f"{n} need {pkg}")
    if r.get("test_errors") or r.get("test_failed"): why.append(f"{r.get('test_errors', 0) + r.get('test_failed', 0)} failed: " +
                                                               "; ".join(x.split(": ", 1)[-1][:60] for x in r.get("failures", [])))
    for w, e in sorted((r.get("workloads_failed") or {}).items()): why.append(f"{w}: {e[:60]}")
    if r.get("module_import_error"): why.append(f"import failed: {r['module_import_error'][:60]}")
    if r.get("capped_calls"): why.append(f"{r['capped_calls']} calls over the cap of {r.get('max_per_test')} per test not recorded")
    ran = r.get("tests", r.get("workloads", 0))
    print(f"| {r['generation']} | {r['suite']} | {r['captures']} | {r['errors']} | {r['with_memory_plan']} | {ran} | {', '.join(why) or '-'} |")


if __name__ == "__main__":
  if len(sys.argv) == 3 and sys.argv[1] == "--table": table(sys.argv[2])
  else: json.dump(merge(sys.argv[1:]), sys.stdout, indent=1, sort_keys=True); print()
