"""Stand-in for torch: importable, raises StubUsed on any use."""
from _tsched_stub import make_getattr
__getattr__ = make_getattr("torch")
