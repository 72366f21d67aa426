"""Stand-in for sentencepiece: importable (examples/llama.py and extra/models/t5.py import
SentencePieceProcessor by name), raises StubUsed when a processor is made or anything else is used."""
from _tsched_stub import StubUsed, make_getattr
__getattr__ = make_getattr("sentencepiece")


class SentencePieceProcessor:
  def __init__(self, *args, **kwargs): raise StubUsed("sentencepiece", "SentencePieceProcessor")
