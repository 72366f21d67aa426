"""Memory-planner part of the self-checks (selfcheck_lazy.py, selfcheck_0102.py):
put the returned schedule's Buffers into the recorded planner-entry state
(`memory_planner_bufs`: allocated flag, lb_refcount), run the version's real
`memory_planner` through the recorder's own planner encoding, and return the
re-encoded planner fields for comparison with the capture."""
import json


def replay_planner(gen, schedule, call, cap):
  mpb = cap["input"].get("memory_planner_bufs")
  if mpb is None: return None
  if gen == "0.9.1":
    from tinygrad.engine.schedule import memory_planner
  else:
    from tinygrad.engine.memory import memory_planner
  from record import Recorder
  by_ref, refs = {}, {}
  for si in schedule:
    for b in si.bufs:
      for x in (b, getattr(b, "_base", None)):
        if x is not None: refs[id(x)] = call.reg.ids[id(x)]
      by_ref[json.dumps(call.reg.ids[id(b)])] = b
  faked = []
  try:
    for ref, allocated, rc in mpb:
      b = by_ref[json.dumps(ref)]
      b.base._lb_refcount = rc
      if allocated and not b.is_allocated():
        b._buf = None; faked.append(b)
      elif not allocated and b.is_allocated():
        return {"error": f"buffer {ref} is allocated in the replay but not in the capture"}
    rec = Recorder(gen, writer=None)
    p = {"cap": {"name": cap["name"], "input": {}, "expected": {}}, "refs": refs}
    rec.record_planner(memory_planner, schedule, p)
    out = {"memory_planner_bufs": p["cap"]["input"]["memory_planner_bufs"]}
    if gen != "0.9.1": out["memory_planner_allocator_offset"] = p["cap"]["input"]["memory_planner_allocator_offset"]
    for k in ("memory_plan", "memory_plan_buffers", "memory_plan_error"):
      if k in p["cap"]["expected"]: out[k] = p["cap"]["expected"][k]
    return out
  finally:
    for b in faked: del b._buf


def recorded_planner(gen, cap):
  if cap["input"].get("memory_planner_bufs") is None: return None
  out = {"memory_planner_bufs": cap["input"]["memory_planner_bufs"]}
  if gen != "0.9.1": out["memory_planner_allocator_offset"] = cap["input"]["memory_planner_allocator_offset"]
  for k in ("memory_plan", "memory_plan_buffers", "memory_plan_error"):
    if k in cap["expected"]: out[k] = cap["expected"][k]
  return out
