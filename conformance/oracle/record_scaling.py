#!/usr/bin/env python3
"""Scaling captures: one synthetic program recorded at size N and 10N.

  python3 record_scaling.py --tinygrad /work/tg/v0.10.0 --out v0.10.0-scaling.jsonl.gz
  python3 record_scaling.py --all /work/tg/v0.9.1 /work/tg/v0.10.0 /work/tg/v0.10.2
      (writes conformance/corpus-scaling/v<version>-scaling.jsonl.gz for each)

The program is K independent MLP towers (16 -> 32 -> 32 -> 4, ReLU) trained
by one Adam step on the sum of their losses, scheduled but not run (like the
"big" suite). The graph grows linearly with K while its depth does not (the
losses are summed as a balanced tree), so tinygrad's recursive scheduler
stays far from its recursion limit at 10N and the pair measures how a
scheduler's time grows with graph size alone. Only the Tensor API common to
0.9.1, 0.10.0 and 0.10.2 is used.

Inputs and parameters are made in one realize each (numpy copies), so each
size gives three captures: `#0` the inputs, `#1` the zeroed parameters and
`#2` the train step, the one to time. The recorder is record.py's Recorder.
"""
from __future__ import annotations
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SIZES = (8, 80)  # towers at N and 10N
WIDTHS = [16, 32, 32, 4]
BATCH = 8


def tree_sum(xs):
  """((a + b) + (c + d)) ...: depth log2(len(xs)) instead of len(xs)."""
  while len(xs) > 1:
    xs = [xs[i] + xs[i + 1] if i + 1 < len(xs) else xs[i] for i in range(0, len(xs), 2)]
  return xs[0]


def parallel_mlp_adam(k: int):
  import numpy as np
  from tinygrad import Tensor
  from tinygrad.nn.optim import Adam
  from tinygrad.nn.state import get_parameters
  import workloads
  towers = [workloads.MLP(WIDTHS) for _ in range(k)]
  params = [p for t in towers for p in get_parameters(t)]
  x = Tensor(np.random.randn(k, BATCH, WIDTHS[0]).astype(np.float32))
  y = Tensor(np.random.randint(0, WIDTHS[-1], size=(k, BATCH)).astype(np.int32))
  Tensor.realize(x, y)
  zs = [Tensor(np.zeros(p.shape, dtype=np.float32)) for p in params]
  Tensor.realize(*zs)
  for p, z in zip(params, zs): p.replace(z)
  opt = Adam(params, lr=1e-3)
  with Tensor.train():
    opt.zero_grad()
    loss = tree_sum([t(x[i]).sparse_categorical_crossentropy(y[i]) for i, t in enumerate(towers)])
    loss.backward()
    workloads.schedule_only(loss, *opt.schedule_step())


def record_one(checkout: str, out: str, summary_path: str | None):
  if os.environ.get("PYTHONHASHSEED") != "0":
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable] + sys.argv)
  checkout, out = os.path.abspath(checkout), os.path.abspath(out)
  sys.path[:0] = [HERE, os.path.join(HERE, "stubs"), checkout]
  import record
  gen = record.detect_generation(checkout)
  os.chdir(checkout)
  for k in ("DEBUG", "GRAPH", "VIZ", "SAVE_SCHEDULE", "FUZZ_SCHEDULE", "RUN_PROCESS_REPLAY", "CAPTURE_PROCESS_REPLAY"):
    os.environ.pop(k, None)
  import tinygrad  # noqa: F401
  writer = record.Writer(out)
  rec = record.Recorder(gen, writer)
  rec.install()
  summary = {"generation": gen, "suite": "scaling", "checkout": os.path.basename(checkout.rstrip("/")), "sizes": list(SIZES)}
  try:
    for k in SIZES:
      rec.start_workload(f"scaling.parallel_mlp_adam_x{k}")
      try: parallel_mlp_adam(k)
      finally: rec.end_workload(after_name=f"scaling.parallel_mlp_adam_x{k}.after")
  finally:
    rec.flush()
    writer.close()
  summary.update({k: v for k, v in rec.stats.items() if k != "set_order_affected"})
  summary["encoder_failure_messages"] = rec.encoder_failures[:50]
  if summary_path:
    with open(summary_path, "w") as f: json.dump(summary, f, indent=1, sort_keys=True)
  print(json.dumps({k: summary[k] for k in ("generation", "captures", "errors", "encoder_failures")}), file=sys.stderr)
  sys.stderr.flush()
  os._exit(0)  # skip tinygrad's atexit hooks, as record.py does


def record_all(checkouts: list[str]):
  outdir = os.path.join(HERE, "..", "corpus-scaling")
  os.makedirs(outdir, exist_ok=True)
  py = os.environ.get("PYTHON", "/usr/bin/python3")
  env = dict(os.environ, PYTHONHASHSEED="0")
  for tg in checkouts:
    sys.path[:0] = [HERE]
    import record
    gen = record.detect_generation(os.path.abspath(tg))
    out = os.path.join(outdir, f"v{gen}-scaling.jsonl.gz")
    print(f"== {gen} -> {os.path.relpath(out)}", file=sys.stderr)
    subprocess.run([py, os.path.abspath(__file__), "--tinygrad", tg, "--out", out], env=env, check=True)


def main():
  ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  ap.add_argument("--tinygrad", help="path of a tinygrad 0.9.1 / 0.10.0 / 0.10.2 checkout")
  ap.add_argument("--out", help="output .jsonl or .jsonl.gz")
  ap.add_argument("--summary", help="write counts as JSON here")
  ap.add_argument("--all", nargs="+", metavar="CHECKOUT", help="record every checkout into conformance/corpus-scaling/")
  a = ap.parse_args()
  if a.all: record_all(a.all)
  elif a.tinygrad and a.out: record_one(a.tinygrad, a.out, a.summary)
  else: ap.error("give --tinygrad and --out, or --all")


if __name__ == "__main__":
  main()
