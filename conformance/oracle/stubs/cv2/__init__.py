"""Stand-in for OpenCV (cv2): importable (examples/yolov8.py imports it), raises StubUsed on any use."""
from _tsched_stub import make_getattr
__getattr__ = make_getattr("cv2")
