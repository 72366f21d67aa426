"""Stand-in for pytest (not installed here; the recorder runs tests with
unittest).  Only what tinygrad's unittest-style test files touch at import
time: `pytest.mark.filterwarnings(...)` (a no-op) and `pytest.mark.xfail(...)`
(unittest.expectedFailure on what it decorates).  Anything else raises
StubUsed, counted as skipped "needs pytest"."""
import unittest
from _tsched_stub import StubUsed, make_getattr


def _identity_marker(*a, **kw):
  if len(a) == 1 and callable(a[0]) and not kw: return a[0]
  return lambda obj: obj


def _xfail(*a, **kw):
  if len(a) == 1 and callable(a[0]) and not kw: return unittest.expectedFailure(a[0])
  if a and not a[0]: return lambda obj: obj  # xfail(condition=False, ...)
  return unittest.expectedFailure


class _Mark:
  filterwarnings = staticmethod(_identity_marker)
  xfail = staticmethod(_xfail)

  def __getattr__(self, name):
    if name.startswith("__"): raise AttributeError(name)
    raise StubUsed("pytest", f"mark.{name}")


mark = _Mark()
__getattr__ = make_getattr("pytest")
