"""Shared pieces of the stand-in modules for packages the recorder cannot install
(torch, hypothesis, tiktoken, cv2, PIL, sentencepiece, librosa).  Using a stand-in raises StubUsed, which the
recorder counts as "skipped: needs <package>"."""


class StubUsed(Exception):
  def __init__(self, package, what=""):
    super().__init__(f"tsched stub: {package} is not available ({what})")
    self.package = package


def make_getattr(package):
  def __getattr__(name):
    if name.startswith("__") and name.endswith("__"): raise AttributeError(name)
    raise StubUsed(package, name)
  return __getattr__
