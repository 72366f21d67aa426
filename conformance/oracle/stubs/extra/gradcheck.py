"""Stand-in for tinygrad's extra/gradcheck.py, which the release checkouts used
here do not contain (their extra/ has models/ only).  `extra` stays a namespace
package (no __init__.py here), so extra.models still comes from the checkout.
Importing works; calling a function raises StubUsed, and the recorder counts
the test as skipped "needs extra.gradcheck"."""
from _tsched_stub import StubUsed


def numerical_jacobian(*a, **kw): raise StubUsed("extra.gradcheck", "numerical_jacobian")
def jacobian(*a, **kw): raise StubUsed("extra.gradcheck", "jacobian")
def gradcheck(*a, **kw): raise StubUsed("extra.gradcheck", "gradcheck")
