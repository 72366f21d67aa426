"""The torch *mirror*: a stand-in for torch used only with `record.py
--torch-mirror` (test_ops).  tinygrad's test_ops computes every op twice, with
torch and with tinygrad, and compares; without torch the stub in stubs/torch
stops each test at its first torch call, before tinygrad has scheduled
anything.  The mirror lets the tinygrad half run as it would next to real torch:

- `torch.tensor(data)` / `torch.from_numpy` keep the data (numpy), with
  torch's dtype inference (Python floats -> float32, ints -> int64), so
  `x.detach().numpy()` hands tinygrad exactly the array real torch would;
- every torch computation yields an `Echo`, whose `.numpy()` is a copy of the
  array tinygrad's `Tensor.numpy()` returned last (test_ops always evaluates
  tinygrad's side first: `compare(s, ret.numpy(), out.detach().numpy())`), so
  the comparison passes and the test goes on to the backward pass;
- `Echo.numpy()` and `Echo.backward()` work only when called from
  `helper_test_op` itself (its comparisons and its torch backward pass).
  Anywhere else a torch result could flow into tinygrad (`torch.randint(...)
  .numpy()` used as tinygrad's indices) or a test could depend on what torch
  does (`assertRaises(RuntimeError, torch_out.backward)`), so they raise
  StubUsed: the test stops there and counts as "needs torch", and tinygrad
  never sees data a real run would not have given it;
- using a torch result as a Python value (bool, int, len, iteration, item)
  raises StubUsed as well.

Nothing here touches what tinygrad computes: the `Tensor.numpy` hook calls
the original and keeps a copy of its result (no reference to any tinygrad
object).  The captures are the scheduler calls of tinygrad's half of each test.
"""
import builtins
import functools
import sys
import types
import numpy as np
from _tsched_stub import StubUsed

_last = []  # copy of the last array tinygrad's Tensor.numpy() returned


def _install_numpy_hook():
  from tinygrad import Tensor
  orig = Tensor.numpy
  if getattr(orig, "_tsched_mirror", False): return

  @functools.wraps(orig)
  def numpy(self, *a, **kw):
    r = orig(self, *a, **kw)
    _last[:] = [np.array(r, copy=True)]
    return r
  numpy._tsched_mirror = True
  Tensor.numpy = numpy


def _stop(what): raise StubUsed("torch", f"mirror: {what}")


def _from_helper(what):
  """Only helper_test_op (test_ops' torch-vs-tinygrad comparison) may turn a torch result into data."""
  if sys._getframe(2).f_code.co_name != "helper_test_op": _stop(f"{what} outside helper_test_op")


class Echo:
  """A torch result: stands for whatever tinygrad computed last."""
  __array_ufunc__ = None  # numpy defers to our reflected operators
  __hash__ = object.__hash__

  def __getattr__(self, name):
    if name.startswith("__") and name.endswith("__"): raise AttributeError(name)
    return Echo()

  def __call__(self, *a, **kw): return Echo()
  def numpy(self, *a, **kw):
    _from_helper("numpy() of a torch result")
    if not _last: _stop("no tinygrad result to mirror")
    return _last[0].copy()
  def detach(self, *a, **kw): return self
  def cpu(self, *a, **kw): return self
  def backward(self, *a, **kw):
    _from_helper("backward() of a torch result")
    return None
  def __enter__(self): return self
  def __exit__(self, *a): return False
  def __setitem__(self, k, v): pass
  def __bool__(self): _stop("truth value of a torch result")
  def __len__(self): _stop("len of a torch result")
  def __iter__(self): _stop("iteration over a torch result")
  def __int__(self): _stop("int of a torch result")
  def __float__(self): _stop("float of a torch result")
  def __index__(self): _stop("index of a torch result")
  def item(self, *a, **kw): _stop("item of a torch result")
  def tolist(self, *a, **kw): _stop("tolist of a torch result")


def _echo_op(*a, **kw): return Echo()


for _n in ("add radd sub rsub mul rmul truediv rtruediv floordiv rfloordiv mod rmod pow rpow matmul rmatmul "
           "and rand or ror xor rxor lshift rlshift rshift rrshift lt le gt ge eq ne neg pos abs invert getitem").split():
  setattr(Echo, f"__{_n}__", _echo_op)


class dtype:
  def __init__(self, name, np_dtype): self.name, self.np = name, np.dtype(np_dtype)
  def __repr__(self): return f"torch.{self.name}"
  is_floating_point = property(lambda self: self.np.kind == "f")


_DTYPES = {"float32": "float32", "float16": "float16", "float64": "float64", "bfloat16": "float32", "int8": "int8",
           "int16": "int16", "int32": "int32", "int64": "int64", "uint8": "uint8", "uint16": "uint16", "uint32": "uint32",
           "uint64": "uint64", "bool": "bool"}
_ALIASES = {"float": "float32", "half": "float16", "double": "float64", "short": "int16", "int": "int32", "long": "int64"}
for _n, _d in _DTYPES.items(): globals()[_n] = dtype(_n, _d)
for _n, _t in _ALIASES.items(): globals()[_n] = globals()[_t]
_BY_NP = {globals()[n].np: globals()[n] for n in _DTYPES if n != "bfloat16"}


def _dt(d):
  if d is None: return None
  if isinstance(d, dtype): return d.np
  return np.dtype(d)


class Tensor(Echo):
  """A torch tensor made from data (torch.tensor, torch.from_numpy): keeps the data."""

  def __init__(self, data, requires_grad=False):
    self.data, self.requires_grad, self.grad = data, requires_grad, Echo()

  def detach(self, *a, **kw): return Tensor(self.data)
  def numpy(self, *a, **kw): return self.data
  def cpu(self, *a, **kw): return self
  def contiguous(self, *a, **kw): return self
  def requires_grad_(self, v=True): self.requires_grad = v; return self
  def type(self, d=None): return Tensor(self.data.astype(_dt(d)), self.requires_grad)
  def to(self, *a, **kw):
    d = kw.get("dtype", next((x for x in a if isinstance(x, dtype)), None))
    return self.type(d) if d is not None else self
  def size(self, dim=None): return self.data.shape if dim is None else self.data.shape[dim]
  def dim(self): return self.data.ndim
  def numel(self): return builtins.int(self.data.size)
  shape = property(lambda self: Size(self.data.shape))
  ndim = property(lambda self: self.data.ndim)
  dtype = property(lambda self: _BY_NP.get(self.data.dtype, Echo()))


class Size(tuple):
  def numel(self): return builtins.int(np.prod(self))


def tensor(data, dtype=None, requires_grad=False, **kw):
  if isinstance(data, Tensor): arr = data.data
  elif isinstance(data, Echo): return Echo()
  elif isinstance(data, np.ndarray): arr = data
  else:
    arr = np.array(data)
    if arr.dtype.kind == "f": arr = arr.astype(np.float32)
    elif arr.dtype.kind in "iu": arr = arr.astype(np.int64)
  if dtype is not None: arr = arr.astype(_dt(dtype))
  return Tensor(arr, requires_grad)


def from_numpy(arr): return Tensor(arr)
def manual_seed(*a, **kw): return None
def is_tensor(x): return isinstance(x, Echo)


class _Function(Echo):
  """torch.add, torch.nn.functional.relu, ...: callable, with a __name__ (tests label subTests with it)."""
  def __init__(self, name): self.__name__ = self.__qualname__ = name


def __getattr__(name):
  if name.startswith("__") and name.endswith("__"): raise AttributeError(name)
  return _Function(name)


def _submodule(name):
  m = types.ModuleType(f"torch.{name}")
  m.__getattr__ = __getattr__
  m.__path__ = []
  sys.modules[f"torch.{name}"] = m
  return m


nn = _submodule("nn")
nn.functional = _submodule("nn.functional")
for _n in ("autograd", "linalg", "fft", "special", "testing", "cuda", "backends"): globals()[_n] = _submodule(_n)

_install_numpy_hook()
