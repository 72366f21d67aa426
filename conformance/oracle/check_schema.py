#!/usr/bin/env python3
"""Schema checker for tsched-capture/1 files (Python 3 standard library only).

  python3 conformance/oracle/check_schema.py [FILE.jsonl[.gz] | DIR ...]

Without arguments it checks every conformance/corpus/*.jsonl.gz next to this
script; a DIR argument stands for its *.jsonl.gz and *.jsonl files
(e.g. conformance/corpus-extra).  It validates each capture against docs/capture-format.md: required
fields and types, generation-specific fields, post-order GRAPHs (every src
index smaller than the node's own) without duplicate nodes, LazyBuffer
post-order, BUFREF ranges ("new:K", "plan:K", "u:K" included), float
encoding (no NaN/Infinity literals, non-finite floats as {"float": ...},
float-typed constants written as floats), sorted var_vals / becomes_map.
Prints per-generation counts; exits 1 on any violation, 2 on unreadable input.
"""
import glob
import gzip
import json
import os
import re
import sys

GENS = ("0.9.1", "0.9.2", "0.9.2+197f8fd", "0.10.0", "0.10.0+2ca41d6", "0.10.1", "0.10.2", "0.10.2+a0b4465")
LAZYOP = ("0.9.1", "0.9.2")   # LazyOp ASTs (dtype null)
WITH_SEEN = ("0.9.1", "0.9.2")   # create_schedule_with_vars(outs, seen)
LAZY_UOP = ("0.10.0", "0.10.0+2ca41d6")   # LazyBuffer input, UOp ASTs with metadata and assign_preloads
UOP_INPUT = ("0.10.1", "0.10.2", "0.10.2+a0b4465")   # section 4 input, becomes_map, new_buffers
CONTEXT_KEYS = {
  "0.9.1": ("MULTIOUTPUT", "USE_COPY_KERNEL", "NO_MEMORY_PLANNER"),
  "0.9.2": ("FUSE_ARANGE", "FUSE_CONV_BW", "MERGE_VIEW", "MULTIOUTPUT", "NO_MEMORY_PLANNER", "USE_COPY_KERNEL"),
  "0.9.2+197f8fd": ("AST_REWRITE", "FUSE_ARANGE", "FUSE_CONV_BW", "MERGE_VIEW", "MULTIOUTPUT", "NO_MEMORY_PLANNER", "USE_COPY_KERNEL"),
  "0.10.0": ("FUSE_ARANGE", "FUSE_CONV_BW", "NO_MEMORY_PLANNER"),
  "0.10.0+2ca41d6": ("FUSE_ARANGE", "FUSE_CONV_BW", "NO_MEMORY_PLANNER", "MERGE_VIEW"),
  "0.10.2": ("FUSE_ARANGE", "FUSE_CONV_BW", "DONT_REALIZE_EXPAND", "SPLIT_REDUCEOP", "REDUCEOP_SPLIT_THRESHOLD",
             "REDUCEOP_SPLIT_SIZE", "MERGE_VIEW", "NO_MEMORY_PLANNER", "TRACEMETA"),
}
CONTEXT_KEYS["0.10.1"] = CONTEXT_KEYS["0.10.2"]
CONTEXT_KEYS["0.10.2+a0b4465"] = CONTEXT_KEYS["0.10.2"] + ("DONT_GROUP_REDUCES", "CAST_AFTER_EXPAND")
FLOAT_DTYPES = re.compile(r"^(float|half|double|bfloat16|float16|float32|float64)$")
NAME_RE = re.compile(r"^.+#\d+$")
MAX_ERRORS_PER_FILE = 50


class Violation(Exception):
  pass


def _reject_constant(name):
  raise Violation(f"non-JSON number literal {name}")


def load_lines(path):
  op = gzip.open if path.endswith(".gz") else open
  with op(path, "rt", encoding="utf-8") as f:
    for lineno, line in enumerate(f, 1):
      if line.strip(): yield lineno, line


class Checker:
  def __init__(self, cap):
    self.c = cap
    self.gen = cap.get("generation")
    self.errs = []

  def err(self, where, msg):
    self.errs.append(f"{where}: {msg}")

  # ---------------------------------------------------------- primitives
  def is_int(self, x): return isinstance(x, int) and not isinstance(x, bool)

  def want(self, cond, where, msg):
    if not cond: self.err(where, msg)
    return cond

  def check_float_objects(self, x, where="$"):
    """every {"float": ...} object is well-formed (anywhere in the capture)."""
    if isinstance(x, dict):
      if "float" in x and len(x) == 1:
        self.want(x["float"] in ("inf", "-inf", "nan"), where, f"bad non-finite float {x['float']!r}")
      for k, v in x.items(): self.check_float_objects(v, f"{where}.{k}")
    elif isinstance(x, list):
      for i, v in enumerate(x): self.check_float_objects(v, f"{where}[{i}]")

  def is_float_value(self, x):
    return isinstance(x, float) or (isinstance(x, dict) and set(x) == {"float"})

  def check_expr(self, e, where):
    if isinstance(e, bool) or self.is_int(e): return
    if isinstance(e, float): return
    if not self.want(isinstance(e, dict), where, f"bad symbolic EXPR {e!r}"): return
    if "var" in e:
      self.want(isinstance(e["var"], str), where, "var name must be a string")
      self.want(self.is_int(e.get("min")) and self.is_int(e.get("max")), where, "var min/max must be ints")
      if "val" in e: self.want(self.is_int(e["val"]), where, "var val must be an int")
    elif "op" in e:
      self.want(isinstance(e["op"], str), where, "EXPR op must be a string")
      if self.want(isinstance(e.get("src"), list), where, "EXPR src must be a list"):
        for i, s in enumerate(e["src"]): self.check_expr(s, f"{where}.src[{i}]")
    else:
      self.err(where, f"bad symbolic EXPR {e!r}")

  def check_sint(self, x, where):
    if self.is_int(x): return
    if isinstance(x, dict) and set(x) == {"sym"}: return self.check_expr(x["sym"], where + ".sym")
    self.err(where, f"bad sint {x!r}")

  def check_st(self, st, where):
    if not self.want(isinstance(st, dict) and isinstance(st.get("views"), list) and st["views"], where, "ST needs a non-empty views list"): return
    for i, v in enumerate(st["views"]):
      w = f"{where}.views[{i}]"
      if not self.want(isinstance(v, dict) and {"shape", "strides", "offset", "mask", "contiguous"} <= set(v), w, "VIEW fields missing"): continue
      if not self.want(isinstance(v["shape"], list) and isinstance(v["strides"], list) and len(v["shape"]) == len(v["strides"]), w,
                       "shape/strides must be lists of the same length"): continue
      for j, s in enumerate(v["shape"]): self.check_sint(s, f"{w}.shape[{j}]")
      for j, s in enumerate(v["strides"]): self.check_sint(s, f"{w}.strides[{j}]")
      self.check_sint(v["offset"], f"{w}.offset")
      if v["mask"] is not None:
        if self.want(isinstance(v["mask"], list) and len(v["mask"]) == len(v["shape"]), w, "mask length != shape length"):
          for j, m in enumerate(v["mask"]):
            if self.want(isinstance(m, list) and len(m) == 2, f"{w}.mask[{j}]", "mask entries are pairs"):
              self.check_sint(m[0], f"{w}.mask[{j}][0]"); self.check_sint(m[1], f"{w}.mask[{j}][1]")
      self.want(isinstance(v["contiguous"], bool), w, "contiguous must be a bool")

  def check_dt(self, dt, where, nullable=False):
    if dt is None and nullable: return
    self.want(isinstance(dt, str) and dt and not dt.startswith("dtypes."), where, f"bad DT {dt!r}")

  # ---------------------------------------------------------- buffers
  def check_options(self, o, where):
    if o is None: return
    if not self.want(isinstance(o, dict), where, "options must be null or an object"): return
    for k in ("image", "uncached", "cpu_access", "host", "nolru", "external_ptr"):
      self.want(k in o, where, f"options.{k} missing")
    self.check_dt(o.get("image"), where + ".image", nullable=True)

  def check_buffer_desc(self, b, where, input_buffer, bufref):
    if not self.want(isinstance(b, dict), where, "buffer must be an object"): return
    need = ["device", "size", "dtype", "base", "offset", "options"] + (["allocated", "lb_refcount"] if input_buffer else [])
    for k in need: self.want(k in b, where, f"{k} missing")
    self.want(isinstance(b.get("device"), str), where, "device must be a string")
    self.want(self.is_int(b.get("size")) and b.get("size", -1) >= 0, where, "size must be an int >= 0")
    self.check_dt(b.get("dtype"), where + ".dtype")
    self.want(self.is_int(b.get("offset")), where, "offset must be an int")
    if input_buffer:
      self.want(isinstance(b.get("allocated"), bool), where, "allocated must be a bool")
      self.want(self.is_int(b.get("lb_refcount")), where, "lb_refcount must be an int")
    self.check_options(b.get("options"), where + ".options")
    if b.get("base") is not None: bufref(b["base"], where + ".base")

  def bufref_checker(self, nbuf, nnew, nplan):
    def check(r, where, allow_plan=False):
      if self.is_int(r): return self.want(0 <= r < nbuf, where, f"BUFREF {r} out of range (buffers: {nbuf})")
      if isinstance(r, str):
        m = re.fullmatch(r"(new|plan):(\d+)", r)
        if m:
          k = int(m.group(2))
          if m.group(1) == "new": return self.want(k < nnew, where, f"BUFREF {r} out of range (new buffers: {nnew})")
          return self.want(allow_plan and k < nplan, where, f"BUFREF {r} not allowed here or out of range (plan buffers: {nplan})")
      self.err(where, f"bad BUFREF {r!r}")
    return check

  # ---------------------------------------------------------- GRAPH
  def check_graph(self, g, where, lazyop=False, bufref=None, ulabels=None):
    if not self.want(isinstance(g, dict) and isinstance(g.get("nodes"), list) and isinstance(g.get("roots"), list), where,
                     "GRAPH needs nodes and roots lists"): return 0
    nodes = g["nodes"]
    seen = set()
    for i, n in enumerate(nodes):
      w = f"{where}.nodes[{i}]"
      if not self.want(isinstance(n, list) and len(n) == 4, w, "node must be [op, dtype, arg, srcs]"): continue
      op, dt, arg, src = n
      self.want(isinstance(op, str) and "." in op, w, f"op must be an enum spelling, got {op!r}")
      if lazyop: self.want(dt is None, w, "0.9.1 / 0.9.2 LazyOp nodes have dtype null")
      else: self.check_dt(dt, w + ".dtype")
      if self.want(isinstance(src, list), w, "srcs must be a list"):
        for s in src: self.want(self.is_int(s) and 0 <= s < i, w, f"src {s!r} breaks post-order (node {i})")
      key = json.dumps(n, sort_keys=True)
      self.want(key not in seen, w, "structurally equal node appears twice")
      seen.add(key)
      self.check_arg(op, dt, arg, w, bufref, ulabels)
    self.want(len(g["roots"]) >= 1, where, "roots is empty")
    for r in g["roots"]: self.want(self.is_int(r) and 0 <= r < len(nodes), where, f"root {r!r} out of range")
    if not lazyop and self.gen != "0.9.1": self.want(len(g["roots"]) == 1, where, "a UOp GRAPH has one root")
    return len(nodes)

  def check_arg(self, op, dt, arg, where, bufref, ulabels):
    if op == "Ops.BUFFER" and self.gen == "0.10.1":  # arg (num, size): [NUM, size], NUM labelled as a UNIQUE arg is
      if self.want(isinstance(arg, list) and len(arg) == 2 and self.is_int(arg[1]) and arg[1] >= 0, where, f"0.10.1 BUFFER arg {arg!r} is not [NUM, size]"):
        self.check_arg("Ops.UNIQUE", None, arg[0], where, bufref, ulabels)
      return
    if op == "Ops.UNIQUE" and self.gen in UOP_INPUT:
      if isinstance(arg, str) and arg.startswith("u:"):
        if self.want(re.fullmatch(r"u:\d+", arg) is not None, where, f"bad UNIQUE label {arg!r}") and ulabels is not None: ulabels.add(arg)
      elif bufref is not None: bufref(arg, where + ".arg(UNIQUE)")
      else: self.err(where, f"UNIQUE arg {arg!r} is not a BUFREF or u:K")
      return
    if op == "Ops.CONST" and isinstance(dt, str) and FLOAT_DTYPES.match(dt) and not isinstance(arg, dict):
      self.want(self.is_float_value(arg), where, f"float CONST written as {arg!r}")
    if op in ("Ops.VIEW",) and arg is not None:
      self.check_st(arg, where + ".arg")
    if isinstance(arg, dict):
      if "MemBuffer" in arg:
        mb = arg["MemBuffer"]
        if self.want(isinstance(mb, list) and len(mb) == 3 and self.is_int(mb[0]), where, "MemBuffer is [idx, DT, ST]"):
          self.check_dt(mb[1], where + ".MemBuffer.dtype"); self.check_st(mb[2], where + ".MemBuffer.st")
      elif "ConstBuffer" in arg:
        cb = arg["ConstBuffer"]
        if self.want(isinstance(cb, list) and len(cb) == 3, where, "ConstBuffer is [val, DT, ST]"):
          self.check_dt(cb[1], where + ".ConstBuffer.dtype"); self.check_st(cb[2], where + ".ConstBuffer.st")
          if isinstance(cb[1], str) and FLOAT_DTYPES.match(cb[1]) and not (isinstance(cb[0], dict) and "sym" in cb[0]):
            self.want(self.is_float_value(cb[0]), where, f"float ConstBuffer value written as {cb[0]!r}")
      elif "sym" in arg:
        self.check_expr(arg["sym"], where + ".sym")
      elif "repr" in arg:
        self.want(isinstance(arg["repr"], str), where, "repr must be a string")

  # ---------------------------------------------------------- input
  def check_lazy_input(self, inp, bufref):
    lbs = inp.get("lazybuffers")
    if not self.want(isinstance(lbs, list), "input", "lazybuffers missing"): return 0
    nbuf = len(inp.get("buffers") or [])
    for i, lb in enumerate(lbs):
      w = f"input.lazybuffers[{i}]"
      if not self.want(isinstance(lb, dict), w, "must be an object"): continue
      self.want(isinstance(lb.get("device"), str), w, "device missing")
      self.check_dt(lb.get("dtype"), w + ".dtype")
      self.check_st(lb.get("st"), w + ".st")
      if "base" in lb:
        b = lb["base"]
        if self.want(self.is_int(b) and 0 <= b < i, w, f"view base {b!r} breaks post-order"):
          self.want("base" not in lbs[b], w, "view base must be a base LazyBuffer")
        continue
      for k in ("op", "arg", "srcs", "buffer", "realized", "forced_realize", "metadata"): self.want(k in lb, w, f"{k} missing")
      self.want(isinstance(lb.get("op"), str) and "." in lb.get("op", ""), w, "op must be an enum spelling")
      if lb.get("srcs") is not None:
        for s in lb["srcs"]: self.want(self.is_int(s) and 0 <= s < i, w, f"src {s!r} breaks post-order")
      self.want(self.is_int(lb.get("buffer")) and 0 <= lb.get("buffer", -1) < nbuf, w, "buffer index out of range")
      self.want(isinstance(lb.get("realized"), bool) and isinstance(lb.get("forced_realize"), bool), w, "realized/forced_realize bools")
      self.want(lb.get("metadata") is None or isinstance(lb["metadata"], str), w, "metadata str|null")
      if self.gen == "0.9.1": self.want(lb.get("metadata") is None, w, "0.9.1 has no metadata")
      if lb.get("op", "").endswith(".CONST") and isinstance(lb.get("dtype"), str) and FLOAT_DTYPES.match(lb["dtype"]) \
          and not isinstance(lb.get("arg"), dict):
        self.want(self.is_float_value(lb.get("arg")), w, f"float CONST arg written as {lb.get('arg')!r}")
    n = len(lbs)
    outs = inp.get("outs")
    if self.want(isinstance(outs, list), "input", "outs missing"):
      for o in outs: self.want(self.is_int(o) and 0 <= o < n, "input.outs", f"{o!r} out of range")
    if self.gen in WITH_SEEN:
      seen = inp.get("seen")
      if self.want(isinstance(seen, list), "input", "seen missing (0.9.1, 0.9.2)"):
        self.want(seen == sorted(seen) and all(self.is_int(s) and 0 <= s < n for s in seen), "input.seen", "must be sorted lb indices")
    if self.gen in ("0.9.2", "0.9.2+197f8fd"): self.want("set_orders" not in inp, "input", "0.9.2 iterates no identity-hashed set: no set_orders")
    if self.gen == "0.9.1":
      so = inp.get("set_orders")
      if self.want(isinstance(so, dict) and isinstance(so.get("simple_pads"), list) and isinstance(so.get("parents_assigns"), list),
                   "input", "set_orders {simple_pads, parents_assigns} missing (0.9.1)"):
        for s in so["simple_pads"]: self.want(self.is_int(s) and 0 <= s < n and "base" not in lbs[s], "input.set_orders.simple_pads", f"{s!r} not a base lb")
        for e in so["parents_assigns"]:
          ok = isinstance(e, list) and len(e) == 2 and self.is_int(e[0]) and isinstance(e[1], list)
          if self.want(ok, "input.set_orders.parents_assigns", f"bad entry {e!r}"):
            for s in [e[0]] + e[1]: self.want(self.is_int(s) and 0 <= s < n, "input.set_orders.parents_assigns", f"{s!r} out of range")
    if self.gen == "0.10.0+2ca41d6": self.check_parents_assigns_order(inp.get("set_orders"), n)
    return n

  def check_parents_assigns_order(self, so, n):
    """0.10.0+2ca41d6 (section 7): set_orders.parents_assigns, [[key lb, [lb, ...]], ...] where the order decides the BFS."""
    if not self.want(isinstance(so, dict) and isinstance(so.get("parents_assigns"), list), "input", "set_orders {parents_assigns} missing"): return
    for e in so["parents_assigns"]:
      ok = isinstance(e, list) and len(e) == 2 and self.is_int(e[0]) and isinstance(e[1], list) and len(e[1]) >= 2
      if self.want(ok, "input.set_orders.parents_assigns", f"bad entry {e!r}"):
        for s in [e[0]] + e[1]: self.want(self.is_int(s) and 0 <= s < n, "input.set_orders.parents_assigns", f"{s!r} out of range")

  def check_uop_input(self, inp, bufref, ulabels):
    n = self.check_graph(inp.get("graph"), "input.graph", bufref=bufref, ulabels=ulabels)
    nodes = (inp.get("graph") or {}).get("nodes") or []
    nbuf = len(inp.get("buffers") or [])
    for k in ("node_buffer", "metadata"):
      self.want(isinstance(inp.get(k), list), "input", f"{k} missing (0.10.2)")
    for e in inp.get("node_buffer") or []:
      if self.want(isinstance(e, list) and len(e) == 2 and self.is_int(e[0]) and self.is_int(e[1]), "input.node_buffer", f"bad entry {e!r}"):
        self.want(0 <= e[0] < n and nodes[e[0]][0] == "Ops.BUFFER", "input.node_buffer", f"node {e[0]} is not a BUFFER")
        self.want(0 <= e[1] < nbuf, "input.node_buffer", f"buffer {e[1]} out of range")
    for e in inp.get("metadata") or []:
      self.want(isinstance(e, list) and len(e) == 2 and self.is_int(e[0]) and 0 <= e[0] < n and isinstance(e[1], str),
                "input.metadata", f"bad entry {e!r}")
    for e in inp.get("metadata_full") or []:
      self.want(isinstance(e, list) and len(e) == 4 and self.is_int(e[0]) and 0 <= e[0] < n and isinstance(e[1], str)
                and isinstance(e[2], str) and isinstance(e[3], bool), "input.metadata_full", f"bad entry {e!r}")
    return n

  # ---------------------------------------------------------- capture
  def run(self):
    c = self.c
    self.check_float_objects(c)
    self.want(c.get("format") == "tsched-capture/1", "format", f"unexpected {c.get('format')!r}")
    if not self.want(self.gen in GENS, "generation", f"unknown {self.gen!r}"): return self.errs
    self.want(isinstance(c.get("tinygrad"), str), "tinygrad", "must be a string")
    self.want(isinstance(c.get("name"), str) and NAME_RE.match(c.get("name", "")), "name", "must be '<workload>#<index>'")
    ctx = c.get("context")
    if self.want(isinstance(ctx, dict), "context", "must be an object"):
      for k in CONTEXT_KEYS[self.gen]: self.want(k in ctx, "context", f"{k} missing")
      for k, v in ctx.items(): self.want(isinstance(v, (int, bool)), "context", f"{k} must be int or bool")
      if self.gen in LAZY_UOP: self.want(any(k.startswith("BUF_LIMIT:") for k in ctx), "context", "BUF_LIMIT:<device> missing")
    self.want(isinstance(c.get("oracle_seconds"), float) and c["oracle_seconds"] >= 0, "oracle_seconds", "must be a float >= 0")
    for k in ("unsupported", "notes"):
      if k in c: self.want(isinstance(c[k], list) and all(isinstance(x, str) for x in c[k]), k, "must be a list of strings")
    err, exp = c.get("error"), c.get("expected")
    self.want("error" in c and "expected" in c, "$", "error and expected must both be present")
    if err is not None:
      self.want(isinstance(err, dict) and isinstance(err.get("type"), str) and isinstance(err.get("message"), str), "error", "needs type and message")
      self.want(exp is None, "expected", "must be null when the call raised")
    else:
      self.want(isinstance(exp, dict), "expected", "must be an object when the call returned")
    inp = c.get("input")
    if not self.want(isinstance(inp, dict), "input", "must be an object"): return self.errs
    bufs = inp.get("buffers")
    if not self.want(isinstance(bufs, list), "input", "buffers missing"): return self.errs
    exp = exp if isinstance(exp, dict) else {}
    nnew = len(exp.get("new_buffers") or [])
    nplan = len(exp.get("memory_plan_buffers") or [])
    bufref = self.bufref_checker(len(bufs), nnew if self.gen in UOP_INPUT else 0, nplan)
    for i, b in enumerate(bufs):
      self.check_buffer_desc(b, f"input.buffers[{i}]", True, bufref)
      if b.get("base") is not None:
        self.want(self.is_int(b["base"]) and b["base"] != i and bufs[b["base"]].get("base") is None, f"input.buffers[{i}]",
                  "base must be another input buffer without a base")
    ulabels = set()
    nin = self.check_uop_input(inp, bufref, ulabels) if self.gen in UOP_INPUT else self.check_lazy_input(inp, bufref)
    mpb = inp.get("memory_planner_bufs", "missing")
    self.want(mpb != "missing", "input", "memory_planner_bufs missing")
    if isinstance(mpb, list):
      for e in mpb:
        if self.want(isinstance(e, list) and len(e) == 3 and isinstance(e[1], bool) and self.is_int(e[2]), "input.memory_planner_bufs", f"bad entry {e!r}"):
          bufref(e[0], "input.memory_planner_bufs")
    if self.gen != "0.9.1":
      ao = inp.get("memory_planner_allocator_offset")
      self.want(isinstance(ao, dict) and all(isinstance(v, bool) for v in ao.values()), "input", "memory_planner_allocator_offset {device: bool} missing")
    if exp: self.check_expected(exp, bufref, nin, mpb, ulabels)
    return self.errs

  def check_expected(self, exp, bufref, nin, mpb, ulabels):
    sched = exp.get("schedule")
    if not self.want(isinstance(sched, list), "expected", "schedule missing"): return
    for i, it in enumerate(sched):
      w = f"expected.schedule[{i}]"
      if not self.want(isinstance(it, dict), w, "must be an object"): continue
      self.check_graph(it.get("ast"), w + ".ast", lazyop=self.gen in LAZYOP)
      if self.want(isinstance(it.get("bufs"), list), w, "bufs missing"):
        for b in it["bufs"]: bufref(b, w + ".bufs")
      md = it.get("metadata")
      if self.want(isinstance(md, list) and all(isinstance(m, str) for m in md), w, "metadata must be a list of str"):
        if self.gen in LAZY_UOP: self.want(md == sorted(md), w, "0.10.0 metadata must be sorted")
        if self.gen == "0.9.1": self.want(md == [], w, "0.9.1 has no metadata")
      if self.gen in LAZY_UOP:
        ap = it.get("assign_preloads")
        if self.gen == "0.10.0+2ca41d6" and isinstance(ap, list):
          self.want(ap == sorted(ap, key=lambda b: (isinstance(b, str), str(b) if isinstance(b, str) else b)), w, "assign_preloads must be sorted (a frozenset)")
        if self.want(isinstance(ap, list), w, "assign_preloads missing (0.10.0)"):
          for b in ap:
            if bufref(b, w + ".assign_preloads"): self.want(b in it.get("bufs", []), w, f"assign_preload {b!r} not in bufs")
    vv = exp.get("var_vals")
    if self.want(isinstance(vv, list), "expected", "var_vals missing"):
      keys = []
      for e in vv:
        ok = isinstance(e, list) and len(e) == 2 and isinstance(e[0], dict) and {"var", "min", "max"} <= set(e[0]) and self.is_int(e[1])
        if self.want(ok, "expected.var_vals", f"bad entry {e!r}"): keys.append((e[0]["var"], e[0]["min"], e[0]["max"]))
      self.want(keys == sorted(keys), "expected.var_vals", "must be sorted by (name, min, max)")
    if self.gen in UOP_INPUT:
      bm = exp.get("becomes_map")
      if self.want(isinstance(bm, list), "expected", "becomes_map missing (0.10.2)"):
        prev = -1
        for j, e in enumerate(bm):
          if self.want(isinstance(e, list) and len(e) == 2 and self.is_int(e[0]), "expected.becomes_map", f"bad entry at {j}"):
            self.want(prev < e[0] < nin, "expected.becomes_map", f"key {e[0]} unsorted or out of range")
            prev = e[0]
            self.check_graph(e[1], f"expected.becomes_map[{j}]", bufref=bufref, ulabels=ulabels)
      nb = exp.get("new_buffers")
      if self.want(isinstance(nb, list), "expected", "new_buffers missing (0.10.2)"):
        for j, b in enumerate(nb): self.check_buffer_desc(b, f"expected.new_buffers[{j}]", False, bufref)
    else:
      mu = exp.get("mutations")
      if self.want(isinstance(mu, dict) and isinstance(mu.get("lazybuffers"), list) and isinstance(mu.get("buffers"), list),
                   "expected", "mutations {lazybuffers, buffers} missing"):
        for e in mu["lazybuffers"]: self.want(isinstance(e, list) and len(e) == 2 and self.is_int(e[0]) and 0 <= e[0] < nin, "expected.mutations", f"bad {e!r}")
        for e in mu["buffers"]:
          if self.want(isinstance(e, list) and len(e) == 3, "expected.mutations", f"bad {e!r}"): bufref(e[0], "expected.mutations.buffers")
    mp, mpbufs = exp.get("memory_plan", "missing"), exp.get("memory_plan_buffers", "missing")
    self.want(mp != "missing" and mpbufs != "missing", "expected", "memory_plan / memory_plan_buffers missing")
    if isinstance(mp, list):
      self.want(isinstance(mpb, list), "expected.memory_plan", "recorded without memory_planner_bufs")
      olds = set()
      for e in mp:
        if self.want(isinstance(e, list) and len(e) == 2, "expected.memory_plan", f"bad entry {e!r}"):
          bufref(e[0], "expected.memory_plan.old"); bufref(e[1], "expected.memory_plan.new", allow_plan=True)
          self.want(json.dumps(e[0]) not in olds, "expected.memory_plan", f"old {e[0]!r} twice"); olds.add(json.dumps(e[0]))
      if self.want(isinstance(mpbufs, list), "expected", "memory_plan_buffers must be a list when memory_plan is"):
        for j, b in enumerate(mpbufs):
          self.check_buffer_desc(b, f"expected.memory_plan_buffers[{j}]", False, lambda r, w: bufref(r, w, allow_plan=True))
    elif mp is None:
      self.want(mpbufs is None, "expected", "memory_plan_buffers must be null when memory_plan is")
      self.want(mpb is None or "memory_plan_error" in exp, "expected.memory_plan", "null, but memory_planner_bufs recorded")
    if "memory_plan_error" in exp:
      e = exp["memory_plan_error"]
      self.want(isinstance(e, dict) and isinstance(e.get("type"), str) and isinstance(e.get("message"), str), "expected.memory_plan_error", "needs type and message")


def check_file(path, counts):
  errors = 0
  names = set()
  try:
    for lineno, line in load_lines(path):
      try:
        cap = json.loads(line, parse_constant=_reject_constant)
      except (ValueError, Violation) as e:
        errors += 1; print(f"{path}:{lineno}: not valid JSON: {e}"); continue
      if not isinstance(cap, dict):
        errors += 1; print(f"{path}:{lineno}: a capture must be an object"); continue
      errs = Checker(cap).run()
      gen = cap.get("generation", "?")
      k = counts.setdefault(gen, {"files": set(), "captures": 0, "errors": 0, "memory_plans": 0, "violations": 0})
      k["files"].add(os.path.basename(path)); k["captures"] += 1
      if cap.get("error") is not None: k["errors"] += 1
      if isinstance(cap.get("expected"), dict) and cap["expected"].get("memory_plan") is not None: k["memory_plans"] += 1
      nm = cap.get("name")
      if nm in names: errs.append(f"name: {nm!r} appears twice in the file")
      names.add(nm)
      if errs:
        k["violations"] += 1; errors += 1
        if errors <= MAX_ERRORS_PER_FILE:
          for e in errs[:5]: print(f"{path}:{lineno} [{nm}] {e}")
  except (OSError, EOFError, UnicodeDecodeError) as e:
    print(f"{path}: unreadable: {e}")
    return -1
  return errors


def expand(args):
  paths = []
  for a in args:
    if os.path.isdir(a):
      found = sorted(glob.glob(os.path.join(a, "*.jsonl.gz")) + glob.glob(os.path.join(a, "*.jsonl")))
      if not found: print(f"{a}: no capture files")
      paths += found
    else: paths.append(a)
  return paths


def main(argv):
  paths = expand(argv[1:])
  if argv[1:] and not paths: return 2
  if not paths:
    corpus = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "corpus")
    paths = sorted(glob.glob(os.path.join(corpus, "*.jsonl.gz")) + glob.glob(os.path.join(corpus, "*.jsonl")))
    if not paths:
      print(f"no capture files under {os.path.normpath(corpus)}"); return 2
  counts, bad, unreadable = {}, 0, False
  for p in paths:
    r = check_file(p, counts)
    if r < 0: unreadable = True
    else: bad += r
  total = 0
  print(f"{'generation':<10} {'files':>5} {'captures':>9} {'errors':>7} {'mem.plans':>9} {'violations':>10}")
  for gen in sorted(counts):
    k = counts[gen]; total += k["captures"]
    print(f"{gen:<10} {len(k['files']):>5} {k['captures']:>9} {k['errors']:>7} {k['memory_plans']:>9} {k['violations']:>10}")
  print(f"{total} captures in {len(paths)} files: {'OK' if not bad and not unreadable else 'FAILED'}")
  if unreadable: return 2
  return 1 if bad else 0


if __name__ == "__main__":
  sys.exit(main(sys.argv))
