"""Stand-in for librosa: importable (examples/whisper.py imports it), raises StubUsed on any use."""
from _tsched_stub import make_getattr
__getattr__ = make_getattr("librosa")
