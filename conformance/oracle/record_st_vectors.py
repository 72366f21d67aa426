#!/usr/bin/env python3
"""record_st_vectors.py -- record ShapeTracker/View test vectors with real tinygrad.

  record_st_vectors.py --tinygrad /work/tg/v0.10.2 --out st-v0.10.2.jsonl.gz --seed 1 --count 4000

Runs the given tinygrad checkout (0.9.1, 0.10.0 or 0.10.2, detected from the
code) and writes JSON Lines (gzipped when --out ends in .gz): a header line,
then one case per line. A case is a start ShapeTracker plus a chain of
movement ops; the line holds the resulting ShapeTracker (or the exception
tinygrad raised) and what simplify / invert / real_strides / unit_stride_axes /
contiguous / consecutive / size / minify / ShapeTracker.__add__ return for it.
The format is documented in docs/shapetracker.md. Cases come from
  * random op chains on random shapes (--count of them, reproducible by --seed),
  * every movement op, View.create and ShapeTracker that tinygrad's own
    test/unit/test_shapetracker*.py and test_view.py exercise (hooked while
    those tests run in this process),
  * a share of random chains run with MERGE_VIEW=0,
  * every ShapeTracker found in the capture files given with --captures (the schedulers' real inputs).
Run with PYTHONHASHSEED=0; two runs with the same arguments give identical files.
"""
from __future__ import annotations
import argparse, gzip, io, json, os, random, sys, unittest, contextlib, functools, math

FORMAT = "tsched-st-vectors/1"
MAX_DIM = 12          # largest random dimension
MAX_NDIM = 6
MAX_NUMEL = 20000

# ---------------------------------------------------------------- tinygrad

def load_tinygrad(path: str):
  sys.path.insert(0, os.path.abspath(path))
  global View, ShapeTracker, GEN, tg_helpers
  from tinygrad.shape.view import View
  from tinygrad.shape.shapetracker import ShapeTracker
  import tinygrad.helpers as tg_helpers
  if hasattr(View, "flip"): GEN = "0.10.2"
  elif os.path.exists(os.path.join(path, "tinygrad", "shape", "symbolic.py")): GEN = "0.9.1"
  else: GEN = "0.10.0"
  return GEN

def set_merge_view(on: bool):
  os.environ["MERGE_VIEW"] = "1" if on else "0"
  tg_helpers.getenv.cache_clear()

# ---------------------------------------------------------------- encoding (capture-format.md section 2)

def enc_expr(x):
  """EXPR of a sint: int | var | op node (0.9.1 Node or 0.10.x UOp)."""
  if isinstance(x, bool): return x
  if isinstance(x, int): return x
  if GEN == "0.9.1":
    from tinygrad.shape.symbolic import NumNode, Variable, MulNode, SumNode, DivNode, ModNode, LtNode, AndNode
    if isinstance(x, NumNode): return x.b
    if isinstance(x, Variable):
      d = {"var": x.expr, "min": x.min, "max": enc_expr(x.max)}
      if x._val is not None: d["val"] = x._val
      return d
    name = {MulNode: "MUL", SumNode: "SUM", DivNode: "DIV", ModNode: "MOD", LtNode: "LT", AndNode: "AND"}[type(x)]
    src = x.nodes if name in ("SUM", "AND") else [x.a, x.b]
    return {"op": name, "src": [enc_expr(s) for s in src]}
  from tinygrad.ops import Ops
  from tinygrad.dtype import dtypes
  if x.op is Ops.CONST: return x.arg
  if x.op is Ops.DEFINE_VAR: return {"var": x.arg[0], "min": x.arg[1], "max": x.arg[2]}
  if x.op is Ops.BIND:
    d = enc_expr(x.src[0]); d["val"] = x.src[1].arg
    return d
  d = {"op": x.op.name, "src": [enc_expr(s) for s in x.src]}
  if x.arg is not None: d["arg"] = x.arg
  if x.dtype not in (dtypes.int, dtypes.bool): d["dtype"] = repr(x.dtype).replace("dtypes.", "")
  return d

def enc_sint(x):
  if isinstance(x, int) and not isinstance(x, bool): return x
  return {"sym": enc_expr(x)}

def dec_node(e, top=True):
  """A 0.9.x Node from an EXPR, built with the Node classes' constructors (no simplification, as enc_expr saw
  it): a var with "val" a bound Variable; an int a NumNode where a Node stands (SUM/AND terms, the left
  operand) and an int where the class keeps one (MulNode/DivNode/ModNode/LtNode's b)."""
  from tinygrad.shape.symbolic import NumNode, Variable, MulNode, SumNode, DivNode, ModNode, LtNode, AndNode
  if isinstance(e, bool) or isinstance(e, int): return e if top else NumNode(e)
  if "var" in e:
    v = Variable(e["var"], e["min"], dec_node(e["max"]) if isinstance(e["max"], dict) else e["max"])
    return v.bind(e["val"]) if "val" in e else v
  cls = {"MUL": MulNode, "SUM": SumNode, "DIV": DivNode, "MOD": ModNode, "LT": LtNode, "AND": AndNode}[e["op"]]
  if e["op"] in ("SUM", "AND"): return cls([dec_node(x, False) for x in e["src"]])
  a, b = e["src"]
  return cls(dec_node(a, False), b if isinstance(b, int) else dec_node(b, False))

def dec_expr(e):
  """A UOp from an EXPR (0.10.x): an int inside an expression is a CONST, a var with "val" a bound Variable,
  an op node UOp(op, dtype, src, arg) with UOp.alu's dtype (bool for comparisons, else the last source's)
  unless the node names one. 0.9.x: a Node (dec_node)."""
  if GEN == "0.9.1": return dec_node(e)
  from tinygrad.ops import UOp, Ops
  from tinygrad.dtype import dtypes
  if isinstance(e, bool): return UOp.const(dtypes.bool, e)
  if isinstance(e, int): return UOp.const(dtypes.int, e)
  if "var" in e:
    v = UOp.variable(e["var"], e["min"], e["max"])
    return v.bind(e["val"]) if "val" in e else v
  src = tuple(dec_expr(x) for x in e["src"])
  dtype = getattr(dtypes, e["dtype"]) if "dtype" in e else dtypes.bool if e["op"] in ("CMPLT", "CMPNE") else src[-1].dtype
  arg = tuple(e["arg"]) if isinstance(e.get("arg"), list) else e.get("arg")
  return UOp(Ops[e["op"]], dtype, src, arg)

def dec_sint(x):
  """A sint of the contract (an int or {"sym": EXPR})."""
  if isinstance(x, dict) and "sym" in x: return dec_expr(x["sym"])
  return x

def dec_arg(a):
  """A movement op's argument or a View.create field: nested lists of sints become tuples."""
  if isinstance(a, list): return tuple(dec_arg(x) for x in a)
  return dec_sint(a)

def enc_view(v):
  return {"shape": [enc_sint(s) for s in v.shape], "strides": [enc_sint(s) for s in v.strides], "offset": enc_sint(v.offset),
          "mask": None if v.mask is None else [[enc_sint(b), enc_sint(e)] for b, e in v.mask], "contiguous": bool(v.contiguous)}

def enc_st(st): return {"views": [enc_view(v) for v in st.views]}

def enc_arg(a):
  if isinstance(a, (tuple, list)): return [enc_arg(x) for x in a]
  if isinstance(a, bool): return a
  if isinstance(a, int): return a
  return enc_sint(a)

def enc_err(e: BaseException): return {"type": type(e).__name__, "message": str(e)}

def guarded(fn):
  try: return {"ok": fn()}
  except Exception as e: return {"error": enc_err(e)}

# ---------------------------------------------------------------- case evaluation

def apply_op(st, op, arg):
  arg = dec_arg(arg)
  if op == "reshape": return st.reshape(tuple(arg))
  if op == "permute": return st.permute(tuple(arg))
  if op == "expand": return st.expand(tuple(arg))
  if op == "pad": return st.pad(tuple(tuple(p) for p in arg))
  if op == "shrink": return st.shrink(tuple(tuple(p) for p in arg))
  if op == "stride": return st.stride(tuple(arg))
  if op == "flip": return st.flip(tuple(arg))
  raise ValueError(op)

def build_start(start):
  if "shape" in start: return ShapeTracker.from_shape(dec_arg(start["shape"]))
  if "create" in start:   # list of View.create(shape, strides, offset, mask) calls
    views = []
    for shape, strides, offset, mask in start["create"]:
      views.append(View.create(dec_arg(shape), None if strides is None else dec_arg(strides), dec_sint(offset),
                               None if mask is None else dec_arg(mask)))
    return ShapeTracker(tuple(views))
  raise ValueError(start)

def results(st, out_shape, add_rhs):
  r = {}
  r["shape"] = [enc_sint(s) for s in st.shape]
  r["size"] = guarded(lambda: enc_sint(st.size))
  r["contiguous"] = bool(st.contiguous)
  r["consecutive"] = bool(st.consecutive)
  r["simplify"] = guarded(lambda: enc_st(st.simplify())["views"])
  def inv():
    x = st.invert(tuple(out_shape))
    return None if x is None else enc_st(x)["views"]
  r["invert"] = {"out_shape": [enc_sint(s) for s in out_shape], **guarded(inv)}
  for iv, key in ((False, "real_strides"), (True, "real_strides_iv")):
    r[key] = guarded(lambda: [None if s is None else enc_sint(s) for s in st.real_strides(ignore_valid=iv)])
  for iv, key in ((False, "unit_stride_axes"), (True, "unit_stride_axes_iv")):
    r[key] = guarded(lambda: list(st.unit_stride_axes(ignore_valid=iv)))
  r["minify"] = [guarded(lambda v=v: enc_view(v.minify())) for v in st.views]
  if add_rhs is not None:
    r["add"] = {"rhs": enc_st(add_rhs)["views"], **guarded(lambda: enc_st(st + add_rhs)["views"])}
  return r

def run_case(name, start, ops, add_ops=None, merge_view=True, out_shape=None):
  set_merge_view(merge_view)
  case = {"name": name, "start": start, "ops": ops}
  if not merge_view: case["merge_view"] = 0
  try: st = build_start(start)
  except Exception as e:
    case["error"] = {**enc_err(e), "at": -1}
    set_merge_view(True)
    return case
  for i, (op, arg) in enumerate(ops):
    try: st = apply_op(st, op, arg)
    except Exception as e:
      case["error"] = {**enc_err(e), "at": i}
      set_merge_view(True)
      return case
  case["st"] = enc_st(st)
  if out_shape is None:
    out_shape = list(dec_arg(start["shape"])) if "shape" in start else list(build_start(start).views[0].shape)
  add_rhs = None
  if add_ops is not None:
    try:
      add_rhs = ShapeTracker.from_shape(st.shape)
      for op, arg in add_ops: add_rhs = apply_op(add_rhs, op, arg)
    except Exception: add_rhs = None
  case["results"] = results(st, out_shape, add_rhs)
  set_merge_view(True)
  return case

# ---------------------------------------------------------------- random chains

def prime_factors(n):
  out, p = [], 2
  while n > 1 and p * p <= n:
    while n % p == 0: out.append(p); n //= p
    p += 1
  if n > 1: out.append(n)
  return out

def prod(xs): return functools.reduce(lambda a, b: a * b, xs, 1)

def rand_shape(rng):
  nd = rng.choice([0, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 5])
  dims = [rng.choice([1, 1, 2, 2, 3, 4, 4, 5, 6, 8, 10, 12]) for _ in range(nd)]
  if dims and rng.random() < 0.03: dims[rng.randrange(nd)] = 0
  return dims

def rand_reshape(rng, shape):
  n = prod(shape)
  r = rng.random()
  if r < 0.06:   # invalid: wrong size or a negative dimension
    bad = list(shape) + [2] if rng.random() < 0.7 else [-1, max(1, n)]
    return bad
  if n == 0:
    return rng.choice([[0], [0, 3], [2, 0], [0, 0, 1], [1, 0]])
  if r < 0.40 and len(shape) >= 2:   # merge two adjacent dims
    i = rng.randrange(len(shape) - 1)
    return list(shape[:i]) + [shape[i] * shape[i + 1]] + list(shape[i + 2:])
  if r < 0.65 and shape:             # split one dim
    i = rng.randrange(len(shape))
    pf = prime_factors(shape[i])
    if len(pf) >= 2:
      rng.shuffle(pf); k = rng.randrange(1, len(pf))
      return list(shape[:i]) + [prod(pf[:k]), prod(pf[k:])] + list(shape[i + 1:])
  if r < 0.78:                       # insert or remove 1s
    s = [d for d in shape if d != 1] if rng.random() < 0.5 else list(shape)
    for _ in range(rng.randrange(0, 3)): s.insert(rng.randrange(len(s) + 1), 1)
    if s != list(shape): return s
  pf = prime_factors(n)              # random regrouping of the prime factors
  rng.shuffle(pf)
  k = rng.randrange(1, min(MAX_NDIM, max(1, len(pf))) + 1)
  groups = [[] for _ in range(k)]
  for f in pf: groups[rng.randrange(k)].append(f)
  s = [prod(g) for g in groups]
  for _ in range(rng.choice([0, 0, 1])): s.insert(rng.randrange(len(s) + 1), 1)
  return s

def rand_op(rng, shape, gen):
  kinds = ["reshape", "reshape", "permute", "expand", "pad", "pad", "shrink", "shrink", "stride" if gen != "0.10.2" else "flip"]
  kind = rng.choice(kinds)
  nd = len(shape)
  if kind == "reshape": return ["reshape", rand_reshape(rng, shape)]
  if kind == "permute":
    p = list(range(nd)); rng.shuffle(p)
    if nd and rng.random() < 0.03: p[0] = p[-1] if nd > 1 else 1
    return ["permute", p]
  if kind == "expand":
    s = [rng.choice([1, 2, 3, 4]) if d == 1 else d for d in shape]
    if nd and rng.random() < 0.04:
      i = rng.randrange(nd); s[i] = s[i] + 1
    if rng.random() < 0.02: s = s + [1]
    return ["expand", s]
  if kind == "pad":
    p = [[rng.choice([0, 0, 0, 1, 2, 3]), rng.choice([0, 0, 0, 1, 2, 3])] for _ in range(nd)]
    if nd and rng.random() < 0.03: p[rng.randrange(nd)][0] = -1
    return ["pad", p]
  if kind == "shrink":
    s = []
    for d in shape:
      b = rng.randint(0, d); e = rng.randint(b, d)
      if rng.random() < 0.45: b, e = 0, d
      s.append([b, e])
    if nd and rng.random() < 0.03: s[rng.randrange(nd)][1] = shape[0] + 1
    return ["shrink", s]
  if kind == "stride":
    m = [rng.choice([1, 1, 1, -1, -1, 2, -2, 3]) for _ in range(nd)]
    if nd and rng.random() < 0.02: m[rng.randrange(nd)] = 0
    return ["stride", m]
  return ["flip", [rng.random() < 0.4 for _ in range(nd)]]

def simulate_shape(st, op):
  try: return list(apply_op(st, op[0], op[1]).shape), apply_op(st, op[0], op[1])
  except Exception: return None, None

def rand_create(rng):
  shape = rand_shape(rng)
  if not shape: shape = [rng.choice([2, 3, 4])]
  strides = [rng.choice([0, 1, 2, 3, 4, 6, 8, 12, -1, -2]) for _ in shape] if rng.random() < 0.8 else None
  offset = rng.choice([0, 0, 0, 1, 3, 7, -2])
  mask = None
  if rng.random() < 0.5:
    mask = []
    for d in shape:
      b = rng.randint(0, d); e = rng.randint(b, d)
      if rng.random() < 0.5: b, e = 0, d
      mask.append([b, e])
  return [shape, strides, offset, mask]

LONG_SHARE = 0.2      # share of random chains with 8-16 ops (--long-share)

def rand_case(rng, gen, idx, seed, merge_view=True):
  r = rng.random()
  if r < 0.08:
    start = {"create": [rand_create(rng)]}
  elif r < 0.14:
    c2 = rand_create(rng)
    n2 = prod(c2[0])
    # the first view is indexed by the second: give it a shape of the same size when the second has no strides
    c1 = rand_create(rng)
    if rng.random() < 0.5 and n2 > 0: c1[0], c1[1], c1[3] = [n2 + rng.choice([0, 0, 3])], None, None
    start = {"create": [c1, c2]}
  else:
    start = {"shape": rand_shape(rng)}
  try: st = build_start(start)
  except Exception: st = None
  ops = []
  n_ops = rng.choice([1, 2, 2, 3, 3, 4, 4, 5, 6, 8])
  if rng.random() < LONG_SHARE: n_ops = rng.randint(8, 16)
  for _ in range(n_ops):
    if st is None: break
    shape = list(st.shape)
    if not all(isinstance(s, int) for s in shape): break
    op = rand_op(rng, shape, gen)
    ops.append(op)
    new_shape, new_st = simulate_shape(st, op)
    if new_shape is None: break   # tinygrad raised: the case records the error
    if prod(new_shape) > MAX_NUMEL or len(new_shape) > MAX_NDIM + 2 or any(s > 64 for s in new_shape):
      ops.pop(); continue
    st = new_st
  add_ops = None
  if st is not None and rng.random() < 0.5:
    add_ops, cur = [], ShapeTracker.from_shape(st.shape)
    for _ in range(rng.choice([1, 1, 2, 3])):
      op = rand_op(rng, list(cur.shape), gen)
      ns, nst = simulate_shape(cur, op)
      if ns is None or prod(ns) > MAX_NUMEL or len(ns) > MAX_NDIM + 2: continue
      add_ops.append(op); cur = nst
  tag = "rand" if merge_view else "rand-mv0"
  return run_case(f"{tag}-{seed}-{idx}", start, ops, add_ops, merge_view)

# ---------------------------------------------------------------- random symbolic chains (0.10.x, --sym-chains)
# Shapes with Variables in them, as Tensors with symbolic shapes have (bound, as in the schedulers' inputs,
# or unbound, as in their ASTs), and the movement ops Tensor code applies to them.

def rand_sym_dim(rng, var):
  r = rng.random()
  if r < 0.7: return var
  if r < 0.85: return var + 1
  return var * 2

def rand_sym_op(rng, shape, var, gen):
  nd = len(shape)
  kind = rng.choice(["reshape", "reshape", "permute", "expand", "pad", "shrink", "shrink", "stride" if gen != "0.10.2" else "flip"])
  if kind == "reshape":
    r = rng.random()
    if r < 0.4:                                    # insert or remove 1s
      s = [d for d in shape if not (isinstance(d, int) and d == 1)] if rng.random() < 0.5 else list(shape)
      for _ in range(rng.randrange(0, 3)): s.insert(rng.randrange(len(s) + 1), 1)
      return ["reshape", s]
    if r < 0.7 and nd >= 2:                        # merge two adjacent dims (Python's * of sints)
      i = rng.randrange(nd - 1)
      return ["reshape", list(shape[:i]) + [shape[i] * shape[i + 1]] + list(shape[i + 2:])]
    if r < 0.85:                                   # a symbolic dim where an int was (cannot reshape unless it matches)
      s = list(shape)
      if s: s[rng.randrange(nd)] = var
      return ["reshape", s]
    ints = [i for i, d in enumerate(shape) if isinstance(d, int) and d % 2 == 0 and d > 2]
    if ints:                                       # split an int dim
      i = rng.choice(ints)
      return ["reshape", list(shape[:i]) + [2, shape[i] // 2] + list(shape[i + 1:])]
    return ["reshape", list(shape)]
  if kind == "permute":
    p = list(range(nd)); rng.shuffle(p)
    return ["permute", p]
  if kind == "expand":
    return ["expand", [rng.choice([var, 3, 1]) if isinstance(d, int) and d == 1 else d for d in shape]]
  if kind == "pad":
    return ["pad", [[rng.choice([0, 0, 1, 2]), rng.choice([0, 0, 1, 3])] for _ in range(nd)]]
  if kind == "shrink":
    out = []
    for d in shape:
      r = rng.random()
      if r < 0.4: out.append([0, d])
      elif isinstance(d, int) and d >= var.vmax and r < 0.8: out.append([0, var])   # x[:v]
      elif not isinstance(d, int) and r < 0.7: out.append([1, d])
      elif isinstance(d, int): b = rng.randint(0, d); out.append([b, rng.randint(b, d)])
      else: out.append([0, d])
    return ["shrink", out]
  if kind == "stride": return ["stride", [rng.choice([1, 1, -1, 2]) for _ in range(nd)]]
  return ["flip", [rng.random() < 0.4 for _ in range(nd)]]

def rand_sym_case(rng, gen, idx, seed):
  from tinygrad.ops import UOp
  name = rng.choice(["i", "j", "start_pos"])
  lo, hi = rng.choice([(1, 10), (0, 20), (1, 8)])
  var = UOp.variable(name, lo, hi)
  if rng.random() < 0.7: var = var.bind(rng.randint(max(lo, 1), hi))
  nd = rng.randint(1, 3)
  shape = [rng.choice([1, 2, 3, 4, 10]) for _ in range(nd)]
  for _ in range(rng.choice([1, 1, 2])): shape[rng.randrange(nd)] = rand_sym_dim(rng, var)
  start = {"shape": enc_arg(shape)}
  ops, st = [], ShapeTracker.from_shape(tuple(shape))
  for _ in range(rng.randint(1, 5)):
    op = rand_sym_op(rng, list(st.shape), var, gen)
    op = [op[0], enc_arg(op[1])]
    ops.append(op)
    try: st = apply_op(st, op[0], op[1])
    except Exception: break
  return run_case(f"rand-sym-{seed}-{idx}", start, ops)

# ---------------------------------------------------------------- tinygrad's own tests, hooked

def harvest_unit_tests(tg_path):
  """Run tinygrad's ShapeTracker/View unit tests with hooks that remember every movement op on a
  ShapeTracker or View, every View.create and every ShapeTracker built from views."""
  seen_ops, seen_creates, seen_sts = {}, {}, {}
  mops = ["reshape", "permute", "expand", "pad", "shrink", "stride", "flip"]
  originals = []

  def key_of(x):
    try: return json.dumps(x, sort_keys=True)
    except TypeError: return None

  def hook_method(cls, name, kind):
    if not hasattr(cls, name): return
    orig = cls.__dict__[name]
    originals.append((cls, name, orig))
    def wrapper(self, *args, **kwargs):
      try:
        st = self if kind == "st" else ShapeTracker((self,))
        rec = {"views": enc_st(st)["views"], "op": name, "arg": enc_arg(args[0]) if args else None}
        k = key_of(rec)
        if k is not None and k not in seen_ops: seen_ops[k] = rec
      except Exception: pass
      return orig(self, *args, **kwargs)
    setattr(cls, name, wrapper)

  for m in mops:
    hook_method(ShapeTracker, m, "st")
    hook_method(View, m, "view")
  # View.create is a staticmethod wrapping an lru_cache
  create_orig = View.__dict__["create"]
  create_fn = create_orig.__func__
  def create_hook(shape, strides=None, offset=0, mask=None):
    try:
      rec = [enc_arg(shape), None if strides is None else enc_arg(strides), enc_sint(offset), None if mask is None else enc_arg(mask)]
      k = key_of(rec)
      if k is not None and k not in seen_creates: seen_creates[k] = rec
    except Exception: pass
    return create_fn(shape, strides, offset, mask)
  View.create = staticmethod(create_hook)
  st_init = ShapeTracker.__init__
  def st_init_hook(self, views):
    st_init(self, views)
    try:
      rec = enc_st(self)["views"]
      k = key_of(rec)
      if k is not None and k not in seen_sts: seen_sts[k] = rec
    except Exception: pass
  ShapeTracker.__init__ = st_init_hook

  sys.path.insert(0, os.path.abspath(tg_path))
  loader = unittest.TestLoader()
  suite = unittest.TestSuite()
  for mod in ["test.unit.test_shapetracker", "test.unit.test_shapetracker_math", "test.unit.test_view"]:
    try: suite.addTests(loader.loadTestsFromName(mod))
    except Exception as e: print(f"warning: cannot load {mod}: {e}", file=sys.stderr)
  with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(suite)

  for cls, name, orig in originals: setattr(cls, name, orig)
  View.create = create_orig
  ShapeTracker.__init__ = st_init
  return list(seen_ops.values()), list(seen_creates.values()), list(seen_sts.values())

def views_literal_st(views):
  """Rebuild a ShapeTracker from encoded views with the View constructor itself (no canonicalisation)."""
  return ShapeTracker(tuple(View(dec_arg(v["shape"]), dec_arg(v["strides"]), dec_sint(v["offset"]),
                                 None if v["mask"] is None else dec_arg(v["mask"]), v["contiguous"]) for v in views))

def run_views_case(name, views, ops, merge_view=True):
  """Like run_case, but the start is a literal ShapeTracker (views as given, not View.create)."""
  case = {"name": name, "start": {"views": views}, "ops": ops}
  set_merge_view(merge_view)
  st = views_literal_st(views)
  for i, (op, arg) in enumerate(ops):
    try: st = apply_op(st, op, arg)
    except Exception as e:
      case["error"] = {**enc_err(e), "at": i}
      return case
  case["st"] = enc_st(st)
  case["results"] = results(st, list(views_literal_st(views).views[0].shape), None)
  return case

# ---------------------------------------------------------------- ShapeTrackers of capture files

def harvest_captures(paths):
  """Every distinct ST ({"views": [...]}) inside capture files (tsched-capture/1 JSON Lines), in first-seen order."""
  seen = {}
  def walk(x):
    if isinstance(x, dict):
      if isinstance(x.get("views"), list) and all(isinstance(v, dict) and "shape" in v for v in x["views"]):
        k = json.dumps(x["views"], sort_keys=True)
        if k not in seen: seen[k] = x["views"]
      for v in x.values(): walk(v)
    elif isinstance(x, list):
      for v in x: walk(v)
  for path in paths:
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
      for line in f:
        if line.strip(): walk(json.loads(line))
  return list(seen.values())

# ---------------------------------------------------------------- symbolic vectors (--sym-out)
# Random index-like expressions (sums of scaled variables, //, %, comparisons, conjunctions), built
# with tinygrad's own operators, and what its simplifier makes of them. TREE is
#   ["var", name, lo, hi] | ["range", axis, end] (0.10.x) | ["const", c] | ["add", T, T] | ["mul", T, c]
#   | ["idiv", T, c] | ["mod", T, c] | ["lt", T, c] | ["ge", T, c] | ["and", T, T]

def rand_tree(rng, gen, depth=0):
  r = rng.random()
  if depth >= 3 or r < 0.25:
    if gen != "0.9.1" and rng.random() < 0.5: return ["range", rng.randrange(4), rng.choice([1, 2, 3, 4, 6, 8, 12, 16])]
    if rng.random() < 0.15: return ["const", rng.randint(-6, 20)]
    lo = rng.choice([0, 0, 0, 1, 2]); return ["var", f"v{rng.randrange(4)}", lo, lo + rng.choice([1, 2, 3, 5, 7, 11, 15])]
  if r < 0.55:
    terms = [["mul", rand_tree(rng, gen, depth + 1), rng.choice([1, 1, 2, 3, 4, 6, 8, 12, -1, -2])] for _ in range(rng.randint(1, 3))]
    t = terms[0]
    for x in terms[1:]: t = ["add", t, x]
    if rng.random() < 0.6: t = ["add", t, ["const", rng.randint(-8, 30)]]
    return t
  if r < 0.75: return ["idiv", rand_tree(rng, gen, depth + 1), rng.choice([1, 2, 3, 4, 5, 6, 8, 12, 16])]
  return ["mod", rand_tree(rng, gen, depth + 1), rng.choice([1, 2, 3, 4, 5, 6, 8, 12, 16])]

def rand_valid(rng, gen, expr):
  conds = []
  for _ in range(rng.randint(1, 3)):
    sub = expr if rng.random() < 0.3 else rand_tree(rng, gen, 2)
    conds.append(["ge", sub, rng.randint(-2, 6)] if rng.random() < 0.5 else ["lt", sub, rng.randint(1, 40)])
  v = conds[0]
  for x in conds[1:]: v = ["and", v, x]
  return v

def build_tree(t):
  """The expression, built with the version's operators the way its View/ShapeTracker code builds indices."""
  k = t[0]
  if GEN == "0.9.1":
    from tinygrad.shape.symbolic import Variable, NumNode, Node, create_lt_node, create_ge_node
    if k == "var": return Variable(t[1], t[2], t[3])
    if k == "const": return NumNode(t[1])
    if k == "add": return build_tree(t[1]) + build_tree(t[2])
    if k == "mul": return build_tree(t[1]) * t[2]
    if k == "idiv": return build_tree(t[1]) // t[2]
    if k == "mod": return build_tree(t[1]) % t[2]
    if k == "lt": return create_lt_node(build_tree(t[1]), t[2])
    if k == "ge": return create_ge_node(build_tree(t[1]), t[2])
    if k == "and": return Node.ands([build_tree(t[1]), build_tree(t[2])])
  from tinygrad.ops import UOp
  from tinygrad.dtype import dtypes
  if k == "var": return UOp.variable(t[1], t[2], t[3])
  if k == "range": return UOp.range(dtypes.int, 0, t[2], t[1])
  if k == "const": return UOp.const(dtypes.int, t[1])
  if k == "add": return build_tree(t[1]) + build_tree(t[2])
  if k == "mul": return build_tree(t[1]) * t[2]
  if k == "idiv": return build_tree(t[1]) // t[2]
  if k == "mod": return build_tree(t[1]) % t[2]
  if k == "lt": return build_tree(t[1]) < t[2]
  if k == "ge": return build_tree(t[1]) >= t[2]
  if k == "and": return build_tree(t[1]) * build_tree(t[2])   # as to_indexed_uops combines valids
  raise ValueError(k)

def enc_uop(u):
  """[op, dtype, arg, [src...]] with arg: the CONST value, [name, lo, hi] of a DEFINE_VAR, the RANGE axis."""
  from tinygrad.ops import Ops
  arg = u.arg
  if u.op is Ops.RANGE and isinstance(arg, tuple): arg = arg[0]
  if u.op is Ops.DEFINE_VAR: arg = list(arg)
  return [u.op.name, repr(u.dtype).replace("dtypes.", ""), arg, [enc_uop(x) for x in u.src]]

def sym_case(rng, i, seed):
  expr = rand_tree(rng, GEN)
  valid = rand_valid(rng, GEN, expr) if rng.random() < 0.5 else None
  case = {"name": f"sym-{seed}-{i}", "expr": expr, "valid": valid}
  if GEN == "0.9.1":
    def node_res(t):
      n = build_tree(t)
      return {"key": n.key, "min": n.min, "max": n.max}
    case["results"] = {"expr": guarded(lambda: node_res(expr))}
    if valid is not None: case["results"]["valid"] = guarded(lambda: node_res(valid))
    return case
  from tinygrad.ops import graph_rewrite
  try: from tinygrad.codegen.symbolic import symbolic_flat, simplify_valid, uop_given_valid   # 0.10.2 on
  except ImportError: from tinygrad.ops import symbolic_flat, simplify_valid, uop_given_valid   # 0.10.0, 0.10.1
  res = {}
  def raw(): u = build_tree(expr); return [u.vmin, u.vmax]
  res["bounds"] = guarded(raw)
  res["simplify"] = guarded(lambda: enc_uop(build_tree(expr).simplify()))
  res["flat"] = guarded(lambda: enc_uop(graph_rewrite(build_tree(expr), symbolic_flat)))
  if valid is not None:
    def sv():
      x = simplify_valid(graph_rewrite(build_tree(valid), symbolic_flat))
      return None if x is None else enc_uop(x)
    def gv():
      v = graph_rewrite(build_tree(valid), symbolic_flat)
      if (nv := simplify_valid(v)) is not None: v = nv
      x = uop_given_valid(v, graph_rewrite(build_tree(expr), symbolic_flat))
      return None if x is None else enc_uop(x)
    res["simplify_valid"] = guarded(sv)
    res["uop_given_valid"] = guarded(gv)
  case["results"] = res
  return case

# ---------------------------------------------------------------- main

def write_jsonl(path, rows):
  """JSON Lines, gzipped without a timestamp when the name ends in .gz (same input, same bytes)."""
  text = "".join(json.dumps(x, separators=(",", ":")) + "\n" for x in rows).encode()
  with open(path, "wb") as raw:
    if path.endswith(".gz"):
      with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as gz: gz.write(text)
    else: raw.write(text)

def main():
  ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  ap.add_argument("--tinygrad", required=True, help="tinygrad checkout (directory holding tinygrad/ and test/)")
  ap.add_argument("--out", required=True)
  ap.add_argument("--seed", type=int, default=0)
  ap.add_argument("--count", type=int, default=3000, help="number of random chains (MERGE_VIEW=1)")
  ap.add_argument("--mv0-count", type=int, default=None, help="random chains run with MERGE_VIEW=0 (default count/20)")
  ap.add_argument("--long-share", type=float, default=LONG_SHARE, help="share of random chains with 8-16 ops")
  ap.add_argument("--no-unit-tests", action="store_true")
  ap.add_argument("--captures", nargs="*", default=[], help="capture files whose ShapeTrackers become cases (corpus-K)")
  ap.add_argument("--sym-chains", type=int, default=0, help="random chains on symbolic shapes (0.10.x; rand-sym-SEED-K)")
  ap.add_argument("--sym-out", default=None, help="also write symbolic vectors (random index expressions) here")
  ap.add_argument("--sym-count", type=int, default=3000)
  ap.add_argument("--generation", default=None,
                  help="the version the files are labelled with (e.g. 0.10.2+a0b4465); default: the release detected")
  args = ap.parse_args()
  globals()["LONG_SHARE"] = args.long_share
  if os.environ.get("PYTHONHASHSEED") != "0": print("note: run with PYTHONHASHSEED=0 for byte-identical output", file=sys.stderr)

  gen = load_tinygrad(args.tinygrad)
  cases = []
  if not args.no_unit_tests:
    ops, creates, sts = harvest_unit_tests(args.tinygrad)
    for i, c in enumerate(creates):
      cases.append(run_case(f"unit-create-{i}", {"create": [c]}, []))
    for i, views in enumerate(sts): cases.append(run_views_case(f"unit-st-{i}", views, []))
    for i, rec in enumerate(ops): cases.append(run_views_case(f"unit-op-{i}", rec["views"], [[rec["op"], rec["arg"]]]))
  for i, views in enumerate(harvest_captures(sorted(args.captures))): cases.append(run_views_case(f"corpus-{i}", views, []))
  rng = random.Random(args.seed)
  for i in range(args.count): cases.append(rand_case(rng, gen, i, args.seed))
  mv0 = args.count // 20 if args.mv0_count is None else args.mv0_count
  rng0 = random.Random(args.seed * 7919 + 1)
  for i in range(mv0): cases.append(rand_case(rng0, gen, i, args.seed, merge_view=False))

  if gen != "0.9.1":
    rngs = random.Random(args.seed * 15485863 + 3)
    for i in range(args.sym_chains): cases.append(rand_sym_case(rngs, gen, i, args.seed))

  label = args.generation or gen
  header = {"format": FORMAT, "generation": label, "tinygrad": label, "seed": args.seed, "count": args.count, "cases": len(cases)}
  write_jsonl(args.out, [header] + cases)
  if args.sym_out:
    srng = random.Random(args.seed * 104729 + 7)
    scases = [sym_case(srng, i, args.seed) for i in range(args.sym_count)]
    sheader = {"format": "tsched-sym-vectors/1", "generation": label, "tinygrad": label, "seed": args.seed, "cases": len(scases)}
    write_jsonl(args.sym_out, [sheader] + scases)
  n_err = sum(1 for c in cases if "error" in c)
  print(f"{label}: wrote {len(cases)} cases ({n_err} raising) to {args.out}", file=sys.stderr)

if __name__ == "__main__":
  main()
