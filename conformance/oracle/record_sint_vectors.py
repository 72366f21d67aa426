#!/usr/bin/env python3
"""record_sint_vectors.py -- record what tinygrad 0.10.x does with symbolic sints (UOps).

  PYTHONHASHSEED=0 /usr/bin/python3 record_sint_vectors.py --tinygrad /work/tg/v0.10.0 \\
      --out conformance/vectors/sint-v0.10.0.jsonl.gz --seed 1 --count 3000

Runs the given tinygrad checkout (0.10.0 or 0.10.2) and writes JSON Lines
(gzipped when --out ends in .gz): a header line, then one case per line. A
case is a random computation on sints, the way View / ShapeTracker code
computes with shapes, strides, offsets and mask bounds: Python ints, bound
and unbound Variables, CONST UOps, combined with the Python operators
(+ - * // %, unary -, comparisons), UOp.maximum / minimum and smax / smin,
in both operand orders. The line holds the result and, when it is a UOp, what
tinygrad's sint helpers make of it (vmin/vmax, simplify, ssimplify, render,
repr, vars, unbind, sym_infer, bool/int, resolve). The format is documented in
docs/shapetracker.md ("sint vectors"). Two runs with the same arguments give
identical files.
"""
from __future__ import annotations
import argparse, json, os, random, sys
from record_st_vectors import enc_uop, guarded, write_jsonl   # the same encodings as the simplifier vectors

FORMAT = "tsched-sint-vectors/1"
NAMES = ["a", "b", "i", "start_pos"]

def load_tinygrad(path: str) -> str:
  sys.path.insert(0, os.path.abspath(path))
  from tinygrad.shape.view import View
  return "0.10.2" if hasattr(View, "flip") else "0.10.0"

# ---------------------------------------------------------------- random sint computations
# TREE = ["int", n]                       a Python int
#      | ["const", n]                     UOp.const(dtypes.int, n)
#      | ["var", name, lo, hi]            UOp.variable(name, lo, hi)
#      | ["bind", name, lo, hi, val]      UOp.variable(name, lo, hi).bind(val)
#      | ["neg", T]                       -T
#      | [OP, T, T]                       OP in add sub mul floordiv mod maximum minimum (T.maximum(T), T a UOp)
#      | ["smax", T, ...] | ["smin", T, ...]
# and at the top only: [CMP, T, T] with CMP in lt gt le ge ne (Python's < > <= >= !=).

def rand_leaf(rng):
  r = rng.random()
  if r < 0.35: return ["int", rng.choice([0, 1, 1, 2, 3, 4, 5, 8, -1, -2, 10, 16])]
  if r < 0.42: return ["const", rng.choice([0, 1, 2, 3, -1, 4])]
  name = rng.choice(NAMES)
  lo = {"a": 0, "b": 1, "i": 1, "start_pos": 0}[name]
  hi = {"a": 50, "b": 10, "i": 10, "start_pos": 8192}[name]
  if rng.random() < 0.5: return ["var", name, lo, hi]
  return ["bind", name, lo, hi, rng.choice([lo, hi, (lo + hi) // 2, lo + 1])]

def is_uop_tree(t):
  if t[0] in ("int",): return False
  if t[0] in ("const", "var", "bind"): return True
  return any(is_uop_tree(x) for x in t[1:] if isinstance(x, list))

def rand_tree(rng, depth=0):
  if depth >= 3 or rng.random() < 0.3: return rand_leaf(rng)
  r = rng.random()
  if r < 0.06: return ["neg", rand_tree(rng, depth + 1)]
  if r < 0.14: return [rng.choice(["smax", "smin"])] + [rand_tree(rng, depth + 1) for _ in range(rng.randint(1, 3))]
  op = rng.choice(["add", "add", "add", "sub", "mul", "mul", "mul", "floordiv", "mod", "maximum", "minimum"])
  a, b = rand_tree(rng, depth + 1), rand_tree(rng, depth + 1)
  if op in ("floordiv", "mod") and rng.random() < 0.7: b = ["int", rng.choice([1, 2, 3, 4, 8, -2])]
  if op in ("maximum", "minimum") and not is_uop_tree(a): a, b = b, a   # a method of the UOp
  return [op, a, b]

def rand_case_tree(rng):
  t = rand_tree(rng)
  if rng.random() < 0.3: return [rng.choice(["lt", "gt", "le", "ge", "ne"]), t, rand_tree(rng, 2)]
  return t

def build(t):
  from tinygrad.ops import UOp, smax, smin
  from tinygrad.dtype import dtypes
  k = t[0]
  if k == "int": return t[1]
  if k == "const": return UOp.const(dtypes.int, t[1])
  if k == "var": return UOp.variable(t[1], t[2], t[3])
  if k == "bind": return UOp.variable(t[1], t[2], t[3]).bind(t[4])
  if k == "neg": return -build(t[1])
  if k == "smax": return smax(*[build(x) for x in t[1:]])
  if k == "smin": return smin(*[build(x) for x in t[1:]])
  a, b = build(t[1]), build(t[2])
  if k == "add": return a + b
  if k == "sub": return a - b
  if k == "mul": return a * b
  if k == "floordiv": return a // b
  if k == "mod": return a % b
  if k == "maximum": return a.maximum(b)
  if k == "minimum": return a.minimum(b)
  if k == "lt": return a < b
  if k == "gt": return a > b
  if k == "le": return a <= b
  if k == "ge": return a >= b
  if k == "ne": return a != b
  raise ValueError(k)

# ---------------------------------------------------------------- encoding

def enc_value(x):
  """a sint result: {"int": n} | {"bool": b} | {"uop": U}"""
  from tinygrad.ops import UOp
  if isinstance(x, UOp): return {"uop": enc_uop(x)}
  if isinstance(x, bool): return {"bool": x}
  return {"int": x}

def uop_results(rng, u):
  from tinygrad.ops import UOp, Ops, resolve, sym_infer, ssimplify
  from tinygrad.dtype import dtypes
  res = {}
  res["bounds"] = guarded(lambda: [u.vmin, u.vmax])
  res["simplify"] = guarded(lambda: enc_uop(u.simplify()))
  res["ssimplify"] = guarded(lambda: enc_value(ssimplify(u)))
  res["render"] = guarded(lambda: u.render())
  res["render_raw"] = guarded(lambda: u.render(simplify=False))
  res["repr"] = repr(u)
  res["vars"] = sorted([enc_uop(v) for v in u.vars()], key=json.dumps)
  unbound = {v: v.unbind()[0] for v in u.vars() if v.op is Ops.BIND}
  res["unbind"] = guarded(lambda: enc_uop(u.substitute(unbound)))
  # a value for every variable (by DEFINE_VAR), some left out now and then
  dvars = sorted({(v.unbind()[0] if v.op is Ops.BIND else v).arg for v in u.vars()})
  vals = [[n, lo, hi, rng.randint(lo, min(hi, lo + 20))] for (n, lo, hi) in dvars if rng.random() < 0.95]
  res["var_vals"] = vals
  res["sym_infer"] = guarded(lambda: sym_infer(u, {UOp.variable(n, lo, hi): v for n, lo, hi, v in vals}))
  if u.dtype == dtypes.bool:
    res["bool"] = guarded(lambda: bool(u))
    res["resolve"] = guarded(lambda: [resolve(u), resolve(u, False)])
  else:
    res["int"] = guarded(lambda: int(u))
  return res

def case(rng, i, seed):
  from tinygrad.ops import UOp
  t = rand_case_tree(rng)
  c = {"name": f"sint-{seed}-{i}", "tree": t}
  try: x = build(t)
  except Exception as e:
    c["error"] = {"type": type(e).__name__, "message": str(e)}
    return c
  c["value"] = enc_value(x)
  if isinstance(x, UOp): c["results"] = uop_results(rng, x)
  return c

def main():
  ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  ap.add_argument("--tinygrad", required=True, help="tinygrad checkout (directory holding tinygrad/)")
  ap.add_argument("--out", required=True)
  ap.add_argument("--seed", type=int, default=1)
  ap.add_argument("--count", type=int, default=3000)
  ap.add_argument("--generation", default=None,
                  help="the version the file is labelled with (e.g. 0.10.2+a0b4465); default: the release detected")
  args = ap.parse_args()
  if os.environ.get("PYTHONHASHSEED") != "0": print("note: run with PYTHONHASHSEED=0 for byte-identical output", file=sys.stderr)
  gen = load_tinygrad(args.tinygrad)
  rng = random.Random(args.seed)
  cases = [case(rng, i, args.seed) for i in range(args.count)]
  label = args.generation or gen
  header = {"format": FORMAT, "generation": label, "tinygrad": label, "seed": args.seed, "cases": len(cases)}
  write_jsonl(args.out, [header] + cases)
  n_uop = sum(1 for c in cases if "results" in c)
  print(f"{label}: wrote {len(cases)} cases ({n_uop} UOp results) to {args.out}", file=sys.stderr)

if __name__ == "__main__":
  main()
