"""Stand-in for PIL.Image: the names modules touch at import or in annotations exist (the `Image`
class, the resampling constants with Pillow's values, `Resampling`); opening or making an image, or any
other name, raises StubUsed."""
import enum
from _tsched_stub import StubUsed, make_getattr
__getattr__ = make_getattr("PIL")


class Resampling(enum.IntEnum):
  NEAREST = 0
  LANCZOS = 1
  BILINEAR = 2
  BICUBIC = 3
  BOX = 4
  HAMMING = 5


NEAREST, LANCZOS, BILINEAR, BICUBIC, BOX, HAMMING = (int(r) for r in Resampling)
ANTIALIAS = LANCZOS


class Image:
  def __init__(self, *args, **kwargs): raise StubUsed("PIL", "Image")


def open(*args, **kwargs): raise StubUsed("PIL", "open")
def fromarray(*args, **kwargs): raise StubUsed("PIL", "fromarray")
def new(*args, **kwargs): raise StubUsed("PIL", "new")
