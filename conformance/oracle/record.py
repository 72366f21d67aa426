#!/usr/bin/env python3
"""The oracle recorder: runs real tinygrad and writes tsched-capture/1 lines.

  python3 record.py --tinygrad /work/tg/v0.9.1 --suite test_schedule --out x.jsonl.gz
  python3 record.py --tinygrad ~/tinygrad --out mine.jsonl.gz --script mine.py --its-args

It wraps the checkout's `create_schedule_with_vars` (in tinygrad.engine.schedule
and in every module that imported it by name) and the `memory_planner` that
Tensor.schedule_with_vars calls after it, runs a suite (the version's own
test/test_schedule.py, or the workloads in workloads.py), and writes one
capture per scheduler call: input encoded before the call, wall time of the
original call alone, output (or exception) encoded after it, memory planner
result when the planner ran on that schedule.  It holds no tinygrad object
once a wrapped call has returned.

The checkout is only read; nothing of tinygrad is copied or changed on disk.
"""
from __future__ import annotations
import argparse
import functools
import gc
import gzip
import inspect
import io
import json
import os
import random
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
FORMAT = "tsched-capture/1"


def detect_generation(checkout: str) -> str:
  if os.path.exists(os.path.join(checkout, "tinygrad", "lazy.py")):
    from encode_lazy092 import detect
    return detect(checkout) or "0.9.1"
  if os.path.exists(os.path.join(checkout, "tinygrad", "engine", "lazy.py")):
    from encode_2ca41d6 import GENERATION, is_checkout
    return GENERATION if is_checkout(checkout) else "0.10.0"
  if os.path.exists(os.path.join(checkout, "tinygrad", "engine", "multi.py")):
    if is_0101(checkout): return "0.10.1"
    from encode_a0b4465 import GENERATION, is_checkout
    return GENERATION if is_checkout(checkout) else "0.10.2"
  raise SystemExit(f"{checkout}: not a tinygrad 0.9.1 / 0.10.0 / 0.10.2 checkout")


def is_0101(checkout: str) -> bool:
  """0.10.1: the tensor UOp graph whose BUFFERs count themselves (ops.py UOp.buffer_num), no UNIQUE yet."""
  with open(os.path.join(checkout, "tinygrad", "ops.py")) as f: return "buffer_num = itertools.count(0)" in f.read()


UOP_INPUT = ("0.10.1", "0.10.2", "0.10.2+a0b4465")   # generations whose input is the tensor UOp graph (section 4)
LAZY_092 = ("0.9.2", "0.9.2+197f8fd")  # LazyBuffer generations after 0.9.1 (encode_lazy092.py)


class Writer:
  """JSON Lines, gzipped when the name ends in .gz (mtime 0: reproducible bytes)."""

  def __init__(self, path: str):
    self.raw = open(path, "wb")
    self.f = gzip.GzipFile(filename="", mode="wb", fileobj=self.raw, mtime=0, compresslevel=9) if path.endswith(".gz") else self.raw

  def write(self, line: str):
    self.f.write(line.encode("utf-8") + b"\n")

  def close(self):
    if self.f is not self.raw: self.f.close()
    self.raw.close()


class Recorder:
  def __init__(self, gen: str, writer: Writer, native_set_order=False):
    from encode_common import dumps
    self.gen, self.writer, self.dumps = gen, writer, dumps
    self.workload = "<unnamed>"
    self.counters: dict[str, int] = {}
    self.pending = None
    self.active = False
    self.stats = {"captures": 0, "errors": 0, "with_memory_plan": 0, "encoder_failures": 0, "nested_calls": 0,
                  "unmatched_planner_calls": 0, "set_order_affected": []}
    self.encoder_failures: list = []
    self.probe = None
    self.native_set_order = native_set_order
    self.uop_buffers_hook = None
    self.max_per_workload = None  # --max-per-test: later scheduler calls of a workload run unrecorded
    self.capped_last = False
    self.torch_mirror = False
    self.dedupe = None  # --dedupe: the set of captures written so far (all but name and oracle_seconds)
    self.trace = None  # --trace: a rewrite_trace.TraceProbe, and the Writer of its lines
    self.trace_writer = None

  # -------------------------------------------------------------- naming
  def next_name(self) -> str:
    n = self.counters.get(self.workload, 0)
    self.counters[self.workload] = n + 1
    return f"{self.workload}#{n}"

  def start_workload(self, name: str):
    self.flush()
    self.workload = name
    gc.collect()
    seed_everything()

  def end_workload(self, after_name: str | None = None):
    self.flush()
    if after_name is not None: self.workload = after_name

  # -------------------------------------------------------------- install
  def install(self):
    import tinygrad.engine.schedule as S
    orig = S.create_schedule_with_vars
    wrapped = self.wrap_scheduler(orig)
    replace_everywhere(orig, wrapped)
    if self.gen == "0.9.1":
      orig_mp = S.memory_planner
    elif self.gen in LAZY_092:
      import tinygrad.engine.realize as R
      orig_mp = R.memory_planner
    else:
      import tinygrad.engine.memory as M
      orig_mp = M.memory_planner
    replace_everywhere(orig_mp, self.wrap_planner(orig_mp))
    if self.gen == "0.9.1" and not self.native_set_order:
      from setorder091 import SetOrderProbe
      self.probe = SetOrderProbe()
    if self.gen == "0.10.0+2ca41d6":
      from encode_2ca41d6 import ParentsAssignsProbe
      self.probe = ParentsAssignsProbe()
    if self.gen in ("0.10.0", "0.10.0+2ca41d6"):
      orig_to_uop = S.to_uop
      rec = self
      def to_uop(buf, ctx, buffers, *a, **kw):
        if rec.uop_buffers_hook is not None and rec.uop_buffers_hook.uop_buffers is None: rec.uop_buffers_hook.uop_buffers = buffers
        return orig_to_uop(buf, ctx, buffers, *a, **kw)
      S.to_uop = to_uop

  def context(self, call=None) -> dict:
    if self.gen in LAZY_092:
      from encode_lazy092 import context_092; return context_092(self.gen, call.devices() if call is not None else ())
    if self.gen == "0.9.1":
      from encode_lazy import context_091; return context_091(None)
    if self.gen == "0.10.0":
      from encode_lazy import context_0100; return context_0100(None)
    if self.gen == "0.10.0+2ca41d6":
      from encode_2ca41d6 import context_2ca41d6; return context_2ca41d6()
    if self.gen == "0.10.1":
      from encode_uop0101 import context_0101; return context_0101()
    if self.gen == "0.10.2+a0b4465":
      from encode_a0b4465 import context_a0b4465; return context_a0b4465()
    from encode_uop import context_0102; return context_0102()

  # -------------------------------------------------------------- scheduler hook
  def wrap_scheduler(self, orig):
    sig = None
    rec = self

    @functools.wraps(orig)
    def create_schedule_with_vars(*args, **kwargs):
      if rec.active:
        rec.stats["nested_calls"] += 1
        return orig(*args, **kwargs)
      rec.flush()
      rec.capped_last = False
      if rec.max_per_workload is not None and rec.counters.get(rec.workload, 0) >= rec.max_per_workload:
        rec.capped_last = True
        rec.stats["capped_calls"] = rec.stats.get("capped_calls", 0) + 1
        cw = rec.stats.setdefault("capped_workloads", {})
        cw[rec.workload] = cw.get(rec.workload, 0) + 1
        return orig(*args, **kwargs)
      rec.active = True
      try:
        return rec.record_call(orig, sig, args, kwargs)
      finally:
        rec.active = False
    return create_schedule_with_vars

  def record_call(self, orig, sig, args, kwargs):
    name = self.next_name()
    call, cap = None, None
    try:
      first = args[0] if args else kwargs.get("big_sink" if self.gen in UOP_INPUT else "outs")
      if self.gen == "0.10.1":
        from encode_uop0101 import UOpCall0101
        call = UOpCall0101()
        inp = call.encode_input(first)
      elif self.gen == "0.10.2":
        from encode_uop import UOpCall
        call = UOpCall()
        inp = call.encode_input(first)
      elif self.gen == "0.10.2+a0b4465":
        from encode_a0b4465 import UOpCallA0b4465
        call = UOpCallA0b4465(self.gen)
        inp = call.encode_input(first)
      elif self.gen in LAZY_092:
        from encode_lazy092 import LazyCall092
        call = LazyCall092(self.gen)
        inp = call.encode_input(first, (args[1] if len(args) > 1 else kwargs.get("seen")) if self.gen == "0.9.2" else None)
      elif self.gen == "0.10.0+2ca41d6":
        from encode_2ca41d6 import LazyCall2ca41d6
        call = LazyCall2ca41d6(self.probe)
        inp = call.encode_input(first)
      else:
        from encode_lazy import LazyCall
        call = LazyCall(self.gen)
        inp = call.encode_input(first, (args[1] if len(args) > 1 else kwargs.get("seen")) if self.gen == "0.9.1" else None)
      if self.gen != "0.9.1": inp["memory_planner_allocator_offset"] = {}
      cap = {"format": FORMAT, "generation": self.gen, "tinygrad": tinygrad_describe(self.gen), "name": name, "context": self.context(call),
             "input": inp, "expected": None, "error": None, "oracle_seconds": 0.0}
    except Exception as e:  # never let the encoder change what tinygrad does
      self.encoder_failure(name, "input", e)
      if call is not None: call.release()
      return orig(*args, **kwargs)
    if self.probe is not None: self.probe.begin()
    self.uop_buffers_hook = call if self.gen in ("0.10.0", "0.10.0+2ca41d6") else None
    if self.trace is not None: self.trace.begin()
    try:
      t0 = time.perf_counter()
      try:
        ret = orig(*args, **kwargs)
      except Exception as e:
        cap["oracle_seconds"] = time.perf_counter() - t0
        if self.trace is not None: self.trace.end()
        try:
          cap["error"] = {"type": type(e).__name__, "message": str(e)}
          if isinstance(e, RecursionError): call.notes.append("RecursionError: a replayer need not reproduce it")
          self.finish_capture(cap, call)
          self.attach_trace(cap, call)
          self.emit(cap)
        except Exception as e2:
          self.encoder_failure(name, "error", e2)
        raise
      cap["oracle_seconds"] = time.perf_counter() - t0
      if self.trace is not None: self.trace.end()
      try:
        cap["expected"] = call.encode_output(ret)
        self.finish_capture(cap, call)
        self.attach_trace(cap, call)
        self.set_pending(cap, call, ret[0])
      except Exception as e:
        self.encoder_failure(name, "output", e)
      return ret
    finally:
      self.uop_buffers_hook = None
      if self.probe is not None: self.probe.end()
      if self.trace is not None: self.trace.release()
      call.release()

  def attach_trace(self, cap, call):
    """--trace: encode the rewrites of this call now (before the planner: tinygrad's tracker held its UOps alive)."""
    if self.trace is None: return
    try:
      cap["_trace"] = self.trace.encode(call, cap["name"], self.gen)
    except Exception as e:
      self.encoder_failure(cap["name"], "trace", e)
    self.trace.release()

  def finish_capture(self, cap, call):
    if self.probe is not None and self.gen == "0.9.1":
      so, notes = self.probe.finish(call, cap["input"]["lazybuffers"])
      # keep memory_planner_bufs last for readability
      mpb = cap["input"].pop("memory_planner_bufs")
      cap["input"]["set_orders"] = so
      cap["input"]["memory_planner_bufs"] = mpb
      call.notes.extend(notes)
      if len(so["simple_pads"]) >= 2 and so["simple_pads"] != sorted(so["simple_pads"]) or so["parents_assigns"]:
        self.stats["set_order_affected"].append(cap["name"])
    elif self.gen == "0.9.1":
      cap["input"]["set_orders"] = {"simple_pads": [], "parents_assigns": []}
      call.notes.append("recorded with native set order: set_orders not instrumented")
    elif hasattr(call, "finish_input"):
      if call.finish_input(cap): self.stats["set_order_affected"].append(cap["name"])
    if call.unsupported: cap["unsupported"] = list(call.unsupported)
    if call.notes: cap["notes"] = list(dict.fromkeys(call.notes))

  def encoder_failure(self, name, phase, e):
    self.stats["encoder_failures"] += 1
    msg = f"{name}: {phase}: {type(e).__name__}: {e}"
    self.encoder_failures.append(msg)
    print("ENCODER FAILURE", msg, file=sys.stderr)
    traceback.print_exc(file=sys.stderr)

  # -------------------------------------------------------------- pending + planner
  def set_pending(self, cap, call, schedule):
    refs = {}
    for si in schedule:
      for b in si.bufs:
        for x in (b, getattr(b, "_base", None)):
          if x is not None and id(x) not in refs: refs[id(x)] = call.reg.ids[id(x)]
    self.pending = {"cap": cap, "sched_id": id(schedule), "buf_ids": [tuple(id(b) for b in si.bufs) for si in schedule], "refs": refs}

  def flush(self):
    if self.pending is not None:
      self.emit(self.pending["cap"]); self.pending = None

  def emit(self, cap):
    trace = cap.pop("_trace", None)
    if self.dedupe is not None:
      key = self.dumps({k: v for k, v in cap.items() if k not in ("name", "oracle_seconds")})
      if key in self.dedupe:
        self.stats["duplicates_dropped"] = self.stats.get("duplicates_dropped", 0) + 1
        return
      self.dedupe.add(key)
    self.writer.write(self.dumps(cap))
    if trace is not None:
      self.trace_writer.write(self.dumps(trace))
      self.stats["traces"] = self.stats.get("traces", 0) + 1
      self.stats["trace_matches"] = self.stats.get("trace_matches", 0) + sum(len(r["matches"]) for r in trace["rewrites"])
    self.stats["captures"] += 1
    if cap["error"] is not None: self.stats["errors"] += 1
    if cap["expected"] is not None and cap["expected"].get("memory_plan") is not None: self.stats["with_memory_plan"] += 1

  def wrap_planner(self, orig):
    rec = self

    @functools.wraps(orig)
    def memory_planner(schedule):
      p = rec.pending
      if rec.active or p is None or id(schedule) != p["sched_id"] or \
          [tuple(id(b) for b in si.bufs) for si in schedule] != p["buf_ids"]:
        if not rec.active:
          if not (p is None and rec.capped_last): rec.stats["unmatched_planner_calls"] += 1
          rec.flush()
        return orig(schedule)
      rec.pending = None
      try:
        return rec.record_planner(orig, schedule, p)
      finally:
        rec.emit(p["cap"])
    return memory_planner

  def record_planner(self, orig, schedule, p):
    from encode_common import BufRegistry
    cap = p["cap"]
    refs = p["refs"]
    entry, seen = [], set()
    for si in schedule:
      for b in si.bufs:
        if id(b) in seen: continue
        seen.add(id(b))
        entry.append([refs[id(b)], bool(b.is_allocated()), int(b.lb_refcount)])
    cap["input"]["memory_planner_bufs"] = entry
    if self.gen != "0.9.1":
      from tinygrad.device import Device
      kernel = "KERNEL" if self.gen == "0.9.2" else "SINK"   # realize.py / memory.py memory_planner's noopt_buffers
      noopt = {id(b) for si in schedule if si.ast.op.name != kernel for b in si.bufs}
      offs = {}
      for si in schedule:
        for b in si.bufs:
          if self.gen == "0.10.2+a0b4465":
            from encode_a0b4465 import OFFSET_ATTR, planner_skips
            if planner_skips(b, noopt) or b.device in offs: continue
            offs[b.device] = hasattr(Device[b.device].allocator, OFFSET_ATTR)
            continue
          if b.is_allocated() or b.lb_refcount > 0 or id(b.base) in noopt or b.device in offs: continue
          offs[b.device] = hasattr(Device[b.device].allocator, "offset")
      cap["input"]["memory_planner_allocator_offset"] = dict(sorted(offs.items()))
    reg = BufRegistry()
    reg.ids = dict(refs)
    try:
      res = orig(schedule)
    except Exception as e:
      cap["expected"]["memory_plan_error"] = {"type": type(e).__name__, "message": str(e)}
      reg.release()
      raise
    try:
      plan, done = [], set()
      for si, ri in zip(schedule, res):
        for b, nb in zip(si.bufs, ri.bufs):
          if id(b) in done: continue
          done.add(id(b))
          if nb is not b: plan.append([refs[id(b)], reg.ref(nb, "plan")])
      cap["expected"]["memory_plan"] = plan
      cap["expected"]["memory_plan_buffers"] = reg.describe_all("plan")
    except Exception as e:
      self.encoder_failure(cap["name"], "memory_plan", e)
    reg.release()
    return res


def tinygrad_describe(gen: str) -> str:
  """The capture's `tinygrad` field: the generation string of a tag, the `git describe` of a commit (section 7)."""
  if gen == "0.10.0+2ca41d6":
    from encode_2ca41d6 import DESCRIBE; return DESCRIBE
  if gen == "0.10.2+a0b4465":
    from encode_a0b4465 import DESCRIBE; return DESCRIBE
  if gen in LAZY_092:
    from encode_lazy092 import DESCRIBE; return DESCRIBE[gen]
  return gen


def replace_everywhere(orig, new):
  """Rebind every module global that is `orig` (the function was imported by name)."""
  n = 0
  for mod in list(sys.modules.values()):
    d = getattr(mod, "__dict__", None)
    if not d: continue
    for k, v in list(d.items()):
      if v is orig:
        d[k] = new; n += 1
  return n


class SeededTempNames:
  """tempfile's name generator, made deterministic: tests put temporary paths into device names
  ("DISK:/tmp/tmpab12cd34"), which end up in captures.  One sequence for the whole recording, never
  restarted: names must not repeat within the process (0.9.1/0.10.0's CLANG runtime dlopens each kernel
  from a temporary file, and dlopen of a path already loaded returns the old library)."""
  characters = "abcdefghijklmnopqrstuvwxyz0123456789_"

  def __init__(self, seed): self.rng = random.Random(seed)
  def __iter__(self): return self
  def __next__(self): return "".join(self.rng.choices(self.characters, k=8))


def private_tempdir(gen: str, suite: str) -> str:
  """A temporary directory whose path depends only on the recording (so temporary paths in captures are the same
  in every recording), emptied first so earlier leftovers cannot change which names tempfile picks."""
  import re, shutil, tempfile
  base = "/tmp" if os.path.isdir("/tmp") else tempfile.gettempdir()
  d = os.path.join(base, "tsched-oracle-" + re.sub(r"[^A-Za-z0-9_.-]", "_", f"{gen}-{suite}"))
  shutil.rmtree(d, ignore_errors=True)
  os.makedirs(d)
  tempfile.tempdir = d
  tempfile._name_sequence = SeededTempNames(0)
  try:  # shared-memory names ("DISK:shm:psm_..." devices) likewise; SharedMemory retries a name that exists
    import multiprocessing.shared_memory as shm
    rng = random.Random(0)
    shm._make_filename = lambda: shm._SHM_NAME_PREFIX + "%08x" % rng.getrandbits(32)
  except ImportError:
    pass
  return d


def seed_everything():
  random.seed(0)
  try:
    import numpy as np
    np.random.seed(0)
  except ImportError:
    pass
  from tinygrad import Tensor
  Tensor.manual_seed(0)


# ------------------------------------------------------------------ suites

def run_unittest_module(rec: Recorder, modname: str, only: str | None, summary: dict):
  import unittest
  short = modname[len("test."):] if modname.startswith("test.") else modname
  rec.start_workload(f"{short}.<import>")
  try:
    mod = __import__(modname, fromlist=["*"])
  except Exception as e:
    rec.flush()
    summary["module_import_error"] = f"{type(e).__name__}: {e}"
    print(f"cannot import {modname}: {e}", file=sys.stderr)
    return
  rec.end_workload()
  suite = unittest.defaultTestLoader.loadTestsFromModule(mod)
  tests = list(iter_tests(suite))
  if only: tests = [t for t in tests if only in t.id()]
  if rec.torch_mirror:
    # an expected failure fails at some torch comparison, which the mirror always passes: the test would go on
    # past the point where a real run stops, so it is not run at all
    for t in tests:
      meth = getattr(type(t), t._testMethodName, None)
      if getattr(meth, "__unittest_expecting_failure__", False) or getattr(type(t), "__unittest_expecting_failure__", False):
        setattr(type(t), t._testMethodName, unittest.skip("expected failure (not run under the torch mirror)")(meth))
  # name class- and module-level fixtures
  for cls in dict.fromkeys(type(t) for t in tests):
    for fx in ("setUpClass", "tearDownClass"):
      if fx in cls.__dict__:
        wrap_fixture(rec, cls, fx, f"{short}.{cls.__name__}.{fx}")
  if hasattr(mod, "tearDownModule"):
    orig_tdm = mod.tearDownModule
    def tearDownModule():
      rec.start_workload(f"{short}.<teardown>")
      try: orig_tdm()
      finally: rec.end_workload()
    mod.tearDownModule = tearDownModule

  class Result(unittest.TestResult):
    def startTest(self, test):
      super().startTest(test)
      tid = test.id()
      rec.start_workload(tid[len("test."):] if tid.startswith("test.") else tid)

    def stopTest(self, test):
      tid = test.id()
      rec.end_workload(after_name=(tid[len("test."):] if tid.startswith("test.") else tid) + ".after")
      super().stopTest(test)

  result = Result()
  t0 = time.time()
  unittest.TestSuite(tests).run(result)
  rec.flush()
  summary.update(classify_results(tests, result, torch_mirror=rec.torch_mirror))
  summary["seconds"] = round(time.time() - t0, 1)


def iter_tests(suite):
  import unittest
  for t in suite:
    if isinstance(t, unittest.TestSuite): yield from iter_tests(t)
    else: yield t


def wrap_fixture(rec, cls, fx, name):
  orig = cls.__dict__[fx]
  func = orig.__func__ if isinstance(orig, classmethod) else orig
  def fixture(klass):
    rec.start_workload(name)
    try: return func(klass)
    finally: rec.end_workload()
  setattr(cls, fx, classmethod(fixture))


def classify_results(tests, result, torch_mirror=False) -> dict:
  from _tsched_stub import StubUsed
  out = {"tests": len(tests), "passed": 0, "test_failed": 0, "test_errors": 0, "skipped": 0,
         "skipped_reasons": {}, "stub_skipped": {}, "failures": []}
  bad = {}
  for t, err in result.errors: bad[t.id()] = ("error", err)
  for t, err in result.failures: bad[t.id()] = ("failure", err)
  if getattr(result, "unexpectedSuccesses", []): out["unexpected_successes"] = len(result.unexpectedSuccesses)
  skipped = {t.id(): reason for t, reason in result.skipped}
  for t, _ in getattr(result, "expectedFailures", []): skipped.setdefault(t.id(), "expected failure")
  for t in tests:
    tid = t.id()
    if tid in skipped:
      out["skipped"] += 1
      r = skipped[tid]
      out["skipped_reasons"][r] = out["skipped_reasons"].get(r, 0) + 1
    elif tid in bad:
      kind, err = bad[tid]
      m = [ln for ln in err.strip().splitlines() if ln.strip()]
      last = m[-1] if m else ""
      mirror_exc = torch_mirror and "in helper_test_exception" in err and last.endswith("not raised")
      missing = last.startswith("ModuleNotFoundError: No module named '") and "tinygrad" not in last
      if "tsched stub:" in last or "URLError" in last or mirror_exc or missing:
        pkg = last.split("tsched stub:")[1].split()[0] if "tsched stub:" in last else "network" if "URLError" in last else \
          "torch (to raise)" if mirror_exc else "module " + last.split("'")[1]
        out["stub_skipped"][pkg] = out["stub_skipped"].get(pkg, 0) + 1
      else:
        out["test_failed" if kind == "failure" else "test_errors"] += 1
        out["failures"].append(f"{tid}: {last[:200]}")
    else:
      out["passed"] += 1
  return out


def run_workloads(rec: Recorder, suite: str, only: str | None, summary: dict):
  import workloads
  table = workloads.SUITES[suite]
  done, skipped, not_here = 0, {}, {}
  t0 = time.time()
  for name, fn in table:
    if only and only not in name: continue
    rec.start_workload(f"{suite}.{name}")
    try:
      fn()
      done += 1
    except workloads.Skip as e:  # the release lacks something the program needs
      rec.flush()
      not_here[name] = str(e)
    except Exception as e:
      rec.flush()
      skipped[name] = f"{type(e).__name__}: {str(e)[:200]}"
      print(f"workload {name} failed: {type(e).__name__}: {e}", file=sys.stderr)
      traceback.print_exc(file=sys.stderr)
    finally:
      rec.end_workload(after_name=f"{suite}.{name}.after")
      gc.collect()
  rec.flush()
  summary.update({"workloads": done, "workloads_failed": skipped, "seconds": round(time.time() - t0, 1)})
  if not_here: summary["workloads_skipped"] = not_here


def run_script(rec: Recorder, name: str, argv: list, summary: dict) -> int:
  """Runs a program as `python3 PROGRAM ARG...` would (in the current folder, as __main__), its scheduler calls
  recorded as NAME#0, NAME#1, ... Returns its exit status."""
  import runpy
  sys.argv = list(argv)
  rec.start_workload(name)
  t0 = time.time()
  status = 0
  try:
    runpy.run_path(argv[0], run_name="__main__")
  except SystemExit as e:
    status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
  except BaseException:
    traceback.print_exc(file=sys.stderr)
    status = 1
  finally:
    rec.end_workload()
  summary.update({"program": argv[0], "exit_status": status, "seconds": round(time.time() - t0, 1)})
  return status


def main():
  ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  ap.add_argument("--tinygrad", required=True, help="path of a tinygrad 0.9.1 / 0.10.0 / 0.10.2 checkout")
  ap.add_argument("--suite", help="test_schedule | workloads | big | test:<module> (e.g. test:test_assign)")
  ap.add_argument("--script", nargs=argparse.REMAINDER, metavar="PROGRAM [ARG ...]",
                  help="instead of a suite, run this Python program with its arguments (everything after --script), "
                       "in the current folder, recording its scheduler calls as NAME#0, NAME#1, ...")
  ap.add_argument("--name", help="with --script: the captures' workload name (default: the program's file name without .py)")
  ap.add_argument("--out", required=True, help="output .jsonl or .jsonl.gz")
  ap.add_argument("--summary", help="write counts as JSON here")
  ap.add_argument("--only", help="only tests/workloads whose id contains this")
  ap.add_argument("--native-set-order", action="store_true", help="0.9.1: leave set iteration in address order (not reproducible)")
  ap.add_argument("--max-per-test", type=int, metavar="N",
                  help="record at most N scheduler calls per test/workload; later calls run unrecorded (counted as capped_calls)")
  ap.add_argument("--dedupe", action="store_true",
                  help="write a capture only when no earlier one of this recording is identical apart from name and "
                       "oracle_seconds (counted as duplicates_dropped)")
  ap.add_argument("--trace", metavar="FILE",
                  help="0.10.x: also write each call's rewrite steps (TRACK_MATCH_STATS=2) to this companion "
                       ".trace.jsonl(.gz), one tsched-trace/1 line per capture (rewrite_trace.py)")
  ap.add_argument("--torch-mirror", action="store_true",
                  help="use stubs/mirror/torch instead of the torch stub, so test_ops runs its tinygrad half (see that file)")
  a = ap.parse_args()
  if (a.suite is None) == (not a.script):
    ap.error("give either --suite or --script PROGRAM [ARG ...]")

  if os.environ.get("PYTHONHASHSEED") != "0":
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable] + sys.argv)

  checkout = os.path.abspath(a.tinygrad)
  out = os.path.abspath(a.out)
  trace_out = os.path.abspath(a.trace) if a.trace else None
  summary_path = os.path.abspath(a.summary) if a.summary else None
  gen = detect_generation(checkout)
  stubs = ([os.path.join(HERE, "stubs", "mirror")] if a.torch_mirror else []) + [os.path.join(HERE, "stubs")]
  if a.script:  # as `python3 PROGRAM` would: its folder first, then the checkout's tinygrad before any installed one
    program = os.path.abspath(a.script[0])
    if not os.path.isfile(program): raise SystemExit(f"record.py: {a.script[0]}: no such program")
    a.script[0] = program
    name = a.name or os.path.splitext(os.path.basename(program))[0]
    a.suite = f"script:{name}"
    sys.path[:0] = [os.path.dirname(program), checkout, HERE] + stubs
  else:
    sys.path[:0] = [HERE] + stubs + [checkout]
    os.chdir(checkout)
  # keep the recording free of env-dependent scheduler behaviour
  for k in ("DEBUG", "GRAPH", "VIZ", "SAVE_SCHEDULE", "FUZZ_SCHEDULE", "RUN_PROCESS_REPLAY", "CAPTURE_PROCESS_REPLAY"):
    os.environ.pop(k, None)

  tmpdir = private_tempdir(gen, a.suite + (f"-{a.only}" if a.only else ""))
  if trace_out:
    if gen == "0.9.1": raise SystemExit("record.py --trace: 0.9.1 has no rewrite tracker (no PatternMatcher in its scheduler)")
    import rewrite_trace
    rewrite_trace.prepare_env()
  import tinygrad  # noqa: F401
  writer = Writer(out)
  rec = Recorder(gen, writer, native_set_order=a.native_set_order)
  rec.max_per_workload = a.max_per_test
  rec.torch_mirror = a.torch_mirror
  if a.dedupe: rec.dedupe = set()
  if trace_out:
    rec.trace = rewrite_trace.TraceProbe(checkout)
    rec.trace_writer = Writer(trace_out)
  rec.install()
  summary = {"generation": gen, "suite": a.suite, "checkout": os.path.basename(checkout.rstrip("/"))}
  if a.max_per_test is not None: summary["max_per_test"] = a.max_per_test
  if a.torch_mirror: summary["torch_mirror"] = True
  if a.dedupe: summary["dedupe"] = True
  status = 0
  try:
    if a.script: status = run_script(rec, name, a.script, summary)
    elif a.suite == "test_schedule": run_unittest_module(rec, "test.test_schedule", a.only, summary)
    elif a.suite.startswith("test:"): run_unittest_module(rec, "test." + a.suite[5:], a.only, summary)
    else: run_workloads(rec, a.suite, a.only, summary)
  finally:
    rec.flush()
    writer.close()
    if rec.trace_writer is not None: rec.trace_writer.close()
  st = dict(rec.stats)
  st["set_order_affected"] = sorted(st["set_order_affected"])
  summary.update(st)
  summary["encoder_failure_messages"] = rec.encoder_failures[:50]
  if summary_path:
    with open(summary_path, "w") as f: json.dump(summary, f, indent=1, sort_keys=True)
  brief = {k: summary.get(k) for k in ("generation", "suite", "captures", "errors", "with_memory_plan", "tests", "passed", "test_failed",
                                        "test_errors", "skipped", "stub_skipped", "workloads", "workloads_failed", "encoder_failures", "traces", "trace_matches", "capped_calls", "duplicates_dropped", "exit_status", "seconds")
           if k in summary}
  import shutil
  shutil.rmtree(tmpdir, ignore_errors=True)
  sys.stdout.flush()
  print(json.dumps(brief), file=sys.stderr)
  sys.stderr.flush()
  os._exit(status)  # skip interpreter teardown (tinygrad atexit hooks); everything is flushed


if __name__ == "__main__":
  main()
