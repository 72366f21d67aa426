"""Stand-in for hypothesis: `given` runs the test once per combination of
deterministically enumerated examples (sampled_from: every element,
integers/floats: the two bounds, booleans: both, just: the value); any other
strategy raises StubUsed."""
import functools, itertools
from _tsched_stub import StubUsed, make_getattr
from hypothesis import strategies

MAX_EXAMPLES = 16


def given(*sargs, **skw):
  def deco(fn):
    @functools.wraps(fn)
    def run(*a, **kw):
      pos = [s.examples() for s in sargs]
      names = list(skw)
      kws = [skw[n].examples() for n in names]
      for i, combo in enumerate(itertools.product(*pos, *kws)):
        if i >= MAX_EXAMPLES: break
        fn(*a, *combo[:len(pos)], **kw, **dict(zip(names, combo[len(pos):])))
    return run
  return deco


def settings(*a, **kw):
  if a and callable(a[0]) and not kw: return a[0]
  return lambda fn: fn


settings.register_profile = lambda *a, **kw: None
settings.load_profile = lambda *a, **kw: None
settings.get_profile = lambda *a, **kw: None
settings.default = "tsched hypothesis stand-in"


class HealthCheck:
  all = staticmethod(lambda: [])
  too_slow = filter_too_much = data_too_large = function_scoped_fixture = None


def assume(cond):
  if not cond: raise StubUsed("hypothesis", "assume")


def example(*a, **kw):
  return lambda fn: fn


__getattr__ = make_getattr("hypothesis")
