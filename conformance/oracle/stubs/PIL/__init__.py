"""Stand-in for Pillow: `from PIL import Image` works (examples/stable_diffusion.py, extra/models/clip.py,
test/models/test_efficientnet.py, test/unit/test_helpers.py and others import it); see PIL/Image.py.
Anything else raises StubUsed."""
from _tsched_stub import make_getattr
__getattr__ = make_getattr("PIL")
import PIL.Image  # noqa: E402  (binds PIL.Image first: `from PIL import Image` asks the module __getattr__ before importing)
