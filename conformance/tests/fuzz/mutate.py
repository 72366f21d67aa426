#!/usr/bin/env python3
"""mutate.py SEED IN.jsonl[.gz] OUT.jsonl N [--expected | --bytes]

Bad-input fuzzing for `tsched replay`: writes N captures made from random
captures of IN with one to three random changes each to their `input` and
`context` (with --expected: to their `expected` instead): a number, string
or list replaced by another value (0, -1, 2**63-1, -2**63, 2**64, 1e308,
null, an op name, a huge shape, ...), a key deleted, a list element
deleted or duplicated, a list grown by thousands of copies of its last
element. Deterministic for a given SEED and IN. A replay of the result may
report any verdict; what it must never do is crash, leak or hit undefined
behaviour (run it with the ASan+UBSan build: `fuzz.sh`). With --bytes the
changes are to the text itself (a character replaced, inserted or cut, the
line truncated): what the JSON reader must reject cleanly."""
import copy, gzip, json, random, sys

VALUES = [0, -1, 1, 2, 3, -7, 2**31, 2**62, -2**62, 2**63 - 1, -2**63, 2**64, 10**30, 0.5, -0.0, 1e308, None, True,
          "", "x", "Ops.ADD", "Ops.VIEW", "Ops.BUFFER", "Ops.SINK", "float", "int", "CPU", "(1,)", "\u00ff",
          [], {}, [0], [[0]], [-1], [1, 2, 3], [10**9, 10**9], [2**62, 2**62], [[0, 2**62]], [-2**63, 2**63 - 1]]


def value(rng):
  return copy.deepcopy(rng.choice(VALUES))


def paths(o, p=(), skip=()):
  yield p
  if isinstance(o, dict):
    for k, v in o.items():
      if k not in skip: yield from paths(v, p + (k,), skip)
  elif isinstance(o, list):
    for i, v in enumerate(o): yield from paths(v, p + (i,), skip)


def at(o, p):
  for k in p: o = o[k]
  return o


def mutate(rng, d, expected):
  roots = ["expected"] if expected and isinstance(d.get("expected"), dict) else ["input", "context"]
  ps = [(r,) + p for r in roots if r in d for p in paths(d[r])][1:]
  if not ps: return
  p = rng.choice(ps)
  parent, key, v = at(d, p[:-1]), p[-1], at(d, p)
  r = rng.random()
  if r < 0.55:
    if isinstance(v, bool) or v is None: new = value(rng)
    elif isinstance(v, int): new = rng.choice([v + 1, v - 1, -v, v * 1000, 0, value(rng)])
    elif isinstance(v, float): new = rng.choice([-v, 0.0, float(int(v)) if abs(v) < 1e18 else 0.0, value(rng)])
    else: new = value(rng)
    parent[key] = new
  elif r < 0.62 and isinstance(v, list) and v:
    v.extend(copy.deepcopy(v[-1]) for _ in range(rng.choice([40, 100, 3000])))
  elif r < 0.7 and isinstance(parent, dict):
    del parent[key]
  elif r < 0.85 and isinstance(v, list) and v:
    j = rng.randrange(len(v))
    if rng.random() < 0.5: del v[j]
    else: v.insert(j, copy.deepcopy(rng.choice(v)))
  else:
    parent[key] = value(rng)


CHARS = list('{}[],:"\\0123456789-+.eE ') + ["\u00e9", "\x00", "\x7f", "\\u", "\\ud800", "1e999", "-0", "99999999999999999999999",
                                           '""', "null", "true"]


def mutate_text(rng, line):
  for _ in range(rng.choice([1, 1, 2, 4, 8])):
    if not line: break
    p, r = rng.randrange(len(line)), rng.random()
    if r < 0.4: line = line[:p] + rng.choice(CHARS) + line[p + 1:]
    elif r < 0.7: line = line[:p] + rng.choice(CHARS) + line[p:]
    elif r < 0.9: line = line[:p] + line[p + rng.randrange(1, 20):]
    else: line = line[:p]
  return line.replace("\n", " ")


def main():
  seed, src, out, n = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
  expected = "--expected" in sys.argv[5:]
  rng = random.Random(seed)
  opener = gzip.open if src.endswith(".gz") else open
  with opener(src, "rt") as f: lines = [l for l in f if len(l) < 60000]
  with open(out, "w") as f:
    for i in range(n):
      if "--bytes" in sys.argv[5:]:
        f.write(mutate_text(rng, rng.choice(lines).rstrip("\n")) + "\n")
        continue
      d = json.loads(rng.choice(lines))
      for _ in range(rng.choice([1, 1, 1, 2, 3])): mutate(rng, d, expected)
      d["name"] = f"{d.get('name')}~m{i}"
      f.write(json.dumps(d) + "\n")


if __name__ == "__main__":
  main()
