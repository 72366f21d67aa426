"""Stand-in for hypothesis.strategies (see hypothesis/__init__.py)."""
from _tsched_stub import StubUsed, make_getattr


class Strategy:
  def __init__(self, values=None, what=""):
    self.values, self.what = values, what

  def examples(self):
    if self.values is None: raise StubUsed("hypothesis", self.what)
    return list(self.values)

  def map(self, f): return Strategy(None if self.values is None else [f(v) for v in self.values], self.what)

  def filter(self, f): return Strategy(None if self.values is None else [v for v in self.values if f(v)], self.what)


def sampled_from(xs): return Strategy(list(xs), "sampled_from")
def integers(min_value=0, max_value=10): return Strategy(sorted({min_value, max_value}), "integers")
def floats(min_value=0.0, max_value=1.0, **kw): return Strategy(sorted({min_value, max_value}), "floats")
def booleans(): return Strategy([False, True], "booleans")
def just(x): return Strategy([x], "just")
def composite(f): return lambda *a, **kw: Strategy(None, "composite")
def lists(*a, **kw): return Strategy(None, "lists")
def data(): return Strategy(None, "data")


__getattr__ = make_getattr("hypothesis")
