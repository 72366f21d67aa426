"""Stand-in for tiktoken.load: examples/llama3.py imports load_tiktoken_bpe by name, so it exists and raises
StubUsed when called; any other attribute raises StubUsed."""
from _tsched_stub import StubUsed, make_getattr
__getattr__ = make_getattr("tiktoken")


def load_tiktoken_bpe(*args, **kwargs): raise StubUsed("tiktoken", "load_tiktoken_bpe")
