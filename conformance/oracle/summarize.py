#!/usr/bin/env python3
"""Merge the recorder's per-run --summary files into one JSON (stdout), or,
with --table, print that JSON as the per-version count table of
conformance/README.md.

  summarize.py RUN.json ... > conformance/corpus/summary.json
  summarize.py --merge OLD.json RUN.json ... > NEW.json          # RUNs replace OLD's runs of the same version+suite
  summarize.py --table conformance/corpus/summary.json
  summarize.py --pivot conformance/corpus-extra/summary.json     # suites x versions
  summarize.py --reasons conformance/corpus-extra/summary.json   # skip reasons, missing packages, caps
"""
import json
import sys

KEEP = ("generation", "suite", "captures", "errors", "with_memory_plan", "tests", "passed", "test_failed", "test_errors",
        "skipped", "skipped_reasons", "stub_skipped", "failures", "workloads", "workloads_failed", "workloads_skipped", "encoder_failures",
        "set_order_affected", "unmatched_planner_calls", "nested_calls", "module_import_error", "max_per_test", "capped_calls",
        "capped_workloads", "torch_mirror", "dedupe", "duplicates_dropped")

SUITE_ORDER = ("test_schedule", "workloads", "big", "symbolic")  # conformance/corpus's suites, in this order
# the versions of the capture contract (section 7), in commit order: tables list them so
VERSIONS = ("0.9.1", "0.9.2", "0.9.2+197f8fd", "0.10.0", "0.10.0+2ca41d6", "0.10.1", "0.10.2", "0.10.2+a0b4465")


def merge(paths, base=None):
  """base: an earlier merged summary whose runs the new ones replace (same generation and suite)."""
  runs = []
  for p in paths:
    with open(p) as f: s = json.load(f)
    runs.append({k: s[k] for k in KEEP if k in s})
  if base:
    with open(base) as f: old = json.load(f)["runs"]
    new = {(r["generation"], r["suite"]) for r in runs}
    runs = [r for r in old if (r["generation"], r["suite"]) not in new] + runs
    runs.sort(key=lambda r: r["suite"])
  runs.sort(key=lambda r: (VERSIONS.index(r["generation"]), SUITE_ORDER.index(r["suite"])
                           if r["suite"] in SUITE_ORDER else 9))
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
    for w, e in sorted((r.get("workloads_skipped") or {}).items()): why.append(f"{w} skipped: {e[:60]}")
    if r.get("module_import_error"): why.append(f"import failed: {r['module_import_error'][:60]}")
    if r.get("capped_calls"): why.append(f"{r['capped_calls']} calls over the cap of {r.get('max_per_test')} per test not recorded")
    if r.get("duplicates_dropped"): why.append(f"{r['duplicates_dropped']} identical captures dropped (--dedupe)")
    ran = r.get("tests", r.get("workloads", 0))
    print(f"| {r['generation']} | {r['suite']} | {r['captures']} | {r['errors']} | {r['with_memory_plan']} | {ran} | {', '.join(why) or '-'} |")


def suite_name(r): return r["suite"][5:] if r["suite"].startswith("test:") else r["suite"]


def pivot(path):
  """One row per suite, one column per version: captures (errors), and the tests' fate."""
  with open(path) as f: runs = json.load(f)["runs"]
  by = {(suite_name(r), r["generation"]): r for r in runs}
  GENS = [v for v in VERSIONS if any(r["generation"] == v for r in runs)]  # a column per version recorded
  suites = sorted({s for s, _ in by}, key=lambda s: (not s.startswith(("test_", "unit.")), s))
  print("| suite | " + " | ".join(GENS) + " |")
  print("|---|" + "---:|" * len(GENS))
  tot = {g: [0, 0] for g in GENS}
  for s in suites:
    cells = []
    for g in GENS:
      r = by.get((s, g))
      if r is None: cells.append("-"); continue
      tot[g][0] += r["captures"]; tot[g][1] += r["errors"]
      c = f"{r['captures']}" + (f" ({r['errors']} err)" if r["errors"] else "")
      if "tests" in r:
        stub = ", ".join(f"{n} need {k}" for k, n in sorted((r.get("stub_skipped") or {}).items()))
        bad = r.get("test_failed", 0) + r.get("test_errors", 0)
        c += f" · {r['passed']}/{r['tests']} pass" + (f", {r['skipped']} skip" if r.get("skipped") else "") + \
          (f", {stub}" if stub else "") + (f", {bad} fail" if bad else "")
      elif "workloads" in r:
        c += f" · {r['workloads']} workloads" + (f", {len(r['workloads_skipped'])} skipped" if r.get("workloads_skipped") else "")
      if r.get("module_import_error"): c += " · import failed"
      cells.append(c)
    print(f"| {s} | " + " | ".join(cells) + " |")
  print("| **total** | " + " | ".join(f"**{tot[g][0]}** ({tot[g][1]} err)" for g in GENS) + " |")


def reasons(path):
  """Why tests did not run to the end: per suite and version, the skip reasons and missing packages."""
  with open(path) as f: runs = json.load(f)["runs"]
  for r in runs:
    parts = [f"{n}x {k}" for k, n in sorted((r.get("skipped_reasons") or {}).items(), key=lambda kv: -kv[1])]
    parts += [f"{n}x needs {k}" for k, n in sorted((r.get("stub_skipped") or {}).items())]
    parts += [f"failed: {x.split(': ', 1)[-1][:90]}" for x in r.get("failures", [])]
    if r.get("module_import_error"): parts.append(f"import failed: {r['module_import_error'][:90]}")
    parts += [f"workload {w} skipped: {why[:90]}" for w, why in sorted((r.get("workloads_skipped") or {}).items())]
    if r.get("capped_calls"): parts.append(f"{r['capped_calls']} calls over the cap in {len(r.get('capped_workloads') or {})} tests")
    if parts: print(f"- {r['generation']} {suite_name(r)}: " + "; ".join(parts))


if __name__ == "__main__":
  if len(sys.argv) == 3 and sys.argv[1] == "--table": table(sys.argv[2])
  elif len(sys.argv) == 3 and sys.argv[1] == "--pivot": pivot(sys.argv[2])
  elif len(sys.argv) == 3 and sys.argv[1] == "--reasons": reasons(sys.argv[2])
  elif len(sys.argv) >= 3 and sys.argv[1] == "--merge":
    json.dump(merge(sys.argv[3:], base=sys.argv[2]), sys.stdout, indent=1, sort_keys=True); print()
  else: json.dump(merge(sys.argv[1:]), sys.stdout, indent=1, sort_keys=True); print()
