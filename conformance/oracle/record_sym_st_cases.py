#!/usr/bin/env python3
"""record_sym_st_cases.py -- give the symbolic cases of a 0.9.1 ShapeTracker vector file their results.

  PYTHONHASHSEED=0 record_sym_st_cases.py --tinygrad /work/tg/v0.9.1 conformance/vectors/st-v0.9.1.jsonl.gz

A case appended to the file by hand (the sym-add-K cases of docs/shapetracker.md) is input only,
marked "symbolic": true. This script rebuilds its symbolic values as live tinygrad 0.9.1 Nodes (a
Variable with "val" is bound; SUM/AND/MUL/DIV/MOD/LT are the node classes' constructors, as
recorded), runs the case with record_st_vectors.py's own evaluation, and rewrites the file with
the results in place; every other line is kept byte for byte.
"""
import argparse, gzip, json, os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import record_st_vectors as rsv

def live(x):
  """JSON of a case's arguments -> Python values with Nodes for {"sym"}."""
  if isinstance(x, dict) and set(x) == {"sym"}: return rsv.dec_node(x["sym"], False)
  if isinstance(x, list): return [live(y) for y in x]
  return x

def run(case):
  from tinygrad.shape.view import View
  from tinygrad.shape.shapetracker import ShapeTracker
  out = {k: v for k, v in case.items() if k != "symbolic"}
  start, ops = case["start"], case["ops"]
  try:
    if "create" in start:
      views = [View.create(tuple(live(sh)), None if st is None else tuple(live(st)), live(off),
                           None if m is None else tuple(tuple(live(p)) for p in m)) for sh, st, off, m in start["create"]]
    elif "views" in start:
      views = [View(tuple(live(v["shape"])), tuple(live(v["strides"])), live(v["offset"]),
                    None if v["mask"] is None else tuple(tuple(live(p)) for p in v["mask"]), v["contiguous"]) for v in start["views"]]
    else:
      views = [View.create(tuple(live(start["shape"])))]
    st = ShapeTracker(tuple(views))
  except Exception as e:
    out["error"] = {**rsv.enc_err(e), "at": -1}
    return out
  out_shape = list(st.views[0].shape)
  for i, (op, arg) in enumerate(ops):
    try: st = rsv.apply_op(st, op, live(arg))
    except Exception as e:
      out["error"] = {**rsv.enc_err(e), "at": i}
      return out
  out["st"] = rsv.enc_st(st)
  out["results"] = rsv.results(st, out_shape, None)
  return out

def main():
  ap = argparse.ArgumentParser()
  ap.add_argument("--tinygrad", required=True)
  ap.add_argument("path")
  args = ap.parse_args()
  if rsv.load_tinygrad(args.tinygrad) != "0.9.1": sys.exit("only 0.9.1 symbolic cases are recorded here")
  with gzip.open(args.path, "rt") as f: lines = f.read().splitlines()
  rows = []
  for line in lines:
    c = json.loads(line) if line.strip() else None
    rows.append(json.dumps(run(c), separators=(",", ":")) if c and c.get("symbolic") else line)
  tmp = args.path + ".tmp"
  with open(tmp, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as gz:
    gz.write(("\n".join(rows) + "\n").encode())
  os.replace(tmp, args.path)

if __name__ == "__main__": main()
