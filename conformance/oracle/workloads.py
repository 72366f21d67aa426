"""Oracle workloads, written once against the Tensor API common to tinygrad
0.9.1, 0.10.0 and 0.10.2, so the same program is captured in every generation.

SUITES["workloads"]: small programs that are scheduled and run (every
scheduler call they make becomes a capture).  SUITES["big"]: three large
graphs (ResNet-50 train step, GPT-2 small forward+backward, deep MLP + Adam)
that are only scheduled (Tensor.schedule), never run.  SUITES["symbolic"]:
programs with bound Variables in shapes and as values (conformance/corpus,
recorded with --dedupe).  SUITES["images"]: image-dtype graphs, only
scheduled (conformance/corpus-extra).  SUITES["bigint"]: uint64 constants
above int64, only scheduled (conformance/corpus-extra).  SUITES["models"]: small
configurations of extra/models/ and more nn layers and Tensor ops, forward
passes run and training steps scheduled (conformance/corpus-extra).  SUITES["stress"]:
big graphs that take other paths than "big" (unrealized parameters, other
sizes and optimizers, many heads, a wide elementwise DAG), scheduled only, for
the speed targets (conformance/corpus-extra).

Each workload is a function without arguments; the recorder seeds random,
numpy and Tensor.manual_seed before calling it.  Inputs are made from numpy
arrays and realized first (those small calls are captures too).
"""
import inspect

import numpy as np
from tinygrad import Tensor, dtypes, nn
from tinygrad.nn.optim import SGD, Adam, AdamW, LAMB
from tinygrad.nn.state import get_parameters, get_state_dict


def rnd(*shape, scale=1.0):
  return Tensor((np.random.randn(*shape) * scale).astype(np.float32)).realize()


def rint(lo, hi, *shape):
  return Tensor(np.random.randint(lo, hi, size=shape).astype(np.int32)).realize()


# ------------------------------------------------------------------ elementwise / reduce

def elementwise_chain():
  a, b, c = rnd(4, 8), rnd(4, 8), rnd(4, 8)
  ((a * b + c).relu().exp() - (b.abs() + 1).log() * c.sigmoid()).realize()
  (a.maximum(b).sqrt().neg() / (c * c + 1)).realize()
  ((a < b).where(a, c) + (a == b).cast(dtypes.float32)).realize()


def broadcast_chain():
  a, b, c = rnd(4, 1), rnd(1, 5), rnd(5)
  ((a + b) * c).realize()
  ((a * b).sum() + c.mean()).realize()
  (a.expand(4, 5) - b.expand(4, 5) * 2).realize()


def casts():
  a = rnd(4, 4)
  a.cast(dtypes.float16).realize()
  (a.cast(dtypes.int32) + 1).realize()
  (a > 0).cast(dtypes.uint8).realize()
  a.cast(dtypes.float16).cast(dtypes.float32).sum().realize()


def reductions():
  a = rnd(4, 6, 8)
  a.sum(axis=1).realize()
  a.max(axis=(0, 2)).realize()
  a.mean().realize()
  (a.sum(axis=2) + a.max(axis=2)).realize()
  a.std(axis=-1).realize()
  a.min(axis=0).realize()
  (a - a.max(axis=-1, keepdim=True)).exp().sum(axis=-1).realize()


def softmax_norms():
  a = rnd(4, 10)
  a.softmax().realize()
  a.log_softmax(axis=0).realize()
  a.layernorm().realize()
  x = rnd(2, 3, 4, 4)
  mean, invstd = rnd(3), rnd(3).abs() + 1
  x.batchnorm(rnd(3), rnd(3), mean, invstd).realize()
  bn = nn.BatchNorm2d(3)
  with Tensor.train():
    bn(x).realize()
  ln = nn.LayerNorm(10)
  ln(a).realize()


def matmul():
  a, b = rnd(8, 16), rnd(16, 4)
  (a @ b).realize()
  (a @ b).relu().sum().realize()
  x, y = rnd(2, 3, 4), rnd(2, 4, 5)
  x.matmul(y).realize()
  (a.T @ a).realize()
  rnd(16).dot(rnd(16, 3)).realize()


def conv2d_fwd_bwd():
  x = Tensor((np.random.randn(2, 3, 8, 8)).astype(np.float32), requires_grad=True)
  w = Tensor((np.random.randn(4, 3, 3, 3)).astype(np.float32), requires_grad=True)
  x.conv2d(w).realize()
  x.conv2d(w, padding=1, stride=2).relu().realize()
  out = x.conv2d(w, padding=1).relu().mean()
  out.backward()
  Tensor.realize(out, x.grad, w.grad)


def pooling():
  x = Tensor((np.random.randn(1, 2, 8, 8)).astype(np.float32), requires_grad=True)
  x.max_pool2d().realize()
  x.avg_pool2d().realize()
  y = x.max_pool2d(kernel_size=(3, 3), stride=2).sum() + x.avg_pool2d(kernel_size=(2, 2)).sum()
  y.backward()
  x.grad.realize()


def movement_chain():
  a = rnd(4, 6)
  a.pad(((1, 1), (2, 0))).realize()
  a.shrink(((1, 3), (0, 4))).realize()
  a.flip(0).permute(1, 0).realize()
  (a.pad(((1, 1), (1, 1))).shrink(((0, 4), (1, 7))) + 1).realize()
  a.reshape(2, 3, 4).permute(2, 0, 1).flip(1).contiguous().realize()
  (a.pad(((0, 0), (0, 2))).exp().sum(axis=0)).realize()
  a.reshape(24).shrink(((4, 20),)).reshape(4, 4).T.realize()
  (a[1:3, ::2] * 2).realize()


def cat_stack():
  a, b, c = rnd(2, 3), rnd(2, 3), rnd(4, 3)
  a.cat(b, dim=0).realize()
  a.cat(b, c, dim=0).sum(axis=1).realize()
  a.stack(b, dim=1).realize()
  a.cat(b, dim=1).relu().realize()


def arange_onehot_cumsum():
  Tensor.arange(10).realize()
  (Tensor.arange(12).reshape(3, 4) * 2).realize()
  rint(0, 5, 6).one_hot(5).realize()
  rnd(8).cumsum().realize()
  rnd(3, 5).cumsum(axis=1).realize()
  idx = rint(0, 10, 4)
  (Tensor.arange(10).reshape(1, 10) == idx.reshape(4, 1)).sum(axis=0).realize()
  Tensor.eye(4).realize()
  Tensor.ones(3, 3).tril().realize()


def assign_inplace():
  a = rnd(4, 4)
  a.assign(a + 1).realize()
  a.assign(a * 2 + a.sum()).realize()
  b = rnd(4, 4)
  b += 3
  b.realize()
  c = Tensor.zeros(4, 4).contiguous().realize()
  c.assign(a @ b).realize()
  d = rnd(8)
  d.assign(d.flip(0).contiguous() + 1).realize()
  e = rnd(4, 4)
  e.assign(e.T.contiguous()).realize()


def multi_output():
  a, b = rnd(4, 8), rnd(4, 8)
  s = a + b
  Tensor.realize(s.sum(axis=1), s.max(axis=1), (s * 2).mean())
  x = a.sum(axis=1)
  Tensor.realize(x, x + 1, x * a.mean(axis=1))
  Tensor.realize(a.exp(), a.exp().sum(), b)


def detach_contiguous():
  a = rnd(4, 4)
  (a.contiguous() + 1).realize()
  (a.detach() * a).realize()
  a.T.contiguous().T.contiguous().realize()
  (a.reshape(16).contiguous().reshape(4, 4) + a).realize()


def randomness():
  Tensor.rand(4, 4).realize()
  Tensor.randn(8).realize()
  (Tensor.uniform(3, 3, low=-1, high=1) * 2).realize()
  Tensor.randint(5, low=0, high=3).realize()


def cross_entropy():
  logits = Tensor(np.random.randn(4, 5).astype(np.float32), requires_grad=True)
  y = rint(0, 5, 4)
  loss = logits.sparse_categorical_crossentropy(y)
  loss.backward()
  Tensor.realize(loss, logits.grad)


# ------------------------------------------------------------------ training steps

class MLP:
  def __init__(self, sizes):
    self.layers = [nn.Linear(i, o) for i, o in zip(sizes[:-1], sizes[1:])]

  def __call__(self, x):
    for i, l in enumerate(self.layers):
      x = l(x)
      if i != len(self.layers) - 1: x = x.relu()
    return x


def init(model):
  """Realize every parameter (random init kernels) before the step."""
  Tensor.realize(*get_state_dict(model).values())


def train_step(model, opt, x, y):
  with Tensor.train():
    opt.zero_grad()
    loss = model(x).sparse_categorical_crossentropy(y)
    loss.backward()
    Tensor.realize(loss, *opt.schedule_step())


def mlp_sgd():
  m = MLP([8, 16, 4]); init(m)
  opt = SGD(get_parameters(m), lr=0.1, momentum=0.9)
  x, y = rnd(6, 8), rint(0, 4, 6)
  train_step(m, opt, x, y)
  train_step(m, opt, x, y)


def mlp_adam():
  m = MLP([8, 16, 16, 4]); init(m)
  opt = Adam(get_parameters(m), lr=1e-3)
  x, y = rnd(6, 8), rint(0, 4, 6)
  train_step(m, opt, x, y)
  train_step(m, opt, x, y)


class MnistCNN:
  def __init__(self):
    self.c1 = nn.Conv2d(1, 4, 3)
    self.c2 = nn.Conv2d(4, 8, 3)
    self.bn = nn.BatchNorm2d(8)
    self.fc = nn.Linear(8 * 5 * 5, 10)

  def __call__(self, x):
    x = self.c1(x).relu()
    x = self.bn(self.c2(x)).relu().max_pool2d((2, 2))
    return self.fc(x.flatten(1))


def mnist_cnn_step():
  m = MnistCNN(); init(m)
  opt = Adam(get_parameters(m), lr=1e-3)
  x, y = rnd(4, 1, 14, 14), rint(0, 10, 4)
  train_step(m, opt, x, y)


class Block:
  def __init__(self, cin, cout, stride):
    self.c1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
    self.b1 = nn.BatchNorm2d(cout)
    self.c2 = nn.Conv2d(cout, cout, 3, padding=1, bias=False)
    self.b2 = nn.BatchNorm2d(cout)
    self.sc = [nn.Conv2d(cin, cout, 1, stride=stride, bias=False), nn.BatchNorm2d(cout)] if stride != 1 or cin != cout else []

  def __call__(self, x):
    out = self.b2(self.c2(self.b1(self.c1(x)).relu()))
    return (out + x.sequential(self.sc)).relu()


class SmallResNet:
  def __init__(self, width=8, nclass=10):
    self.stem = nn.Conv2d(3, width, 3, padding=1, bias=False)
    self.bn = nn.BatchNorm2d(width)
    self.blocks = [Block(width, width, 1), Block(width, 2 * width, 2)]
    self.fc = nn.Linear(2 * width, nclass)

  def __call__(self, x):
    x = self.bn(self.stem(x)).relu()
    x = x.sequential(self.blocks)
    return self.fc(x.mean(axis=(2, 3)))


def small_resnet_fwd_bwd():
  m = SmallResNet(); init(m)
  x, y = rnd(2, 3, 8, 8), rint(0, 10, 2)
  with Tensor.train():
    loss = m(x).sparse_categorical_crossentropy(y)
    loss.backward()
    Tensor.realize(loss, *[p.grad for p in get_parameters(m) if p.grad is not None])


class Attention:
  def __init__(self, dim, heads):
    self.c_attn, self.c_proj, self.heads = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim), heads

  def __call__(self, x, mask):
    B, T, C = x.shape
    q, k, v = [t.reshape(B, T, self.heads, C // self.heads).transpose(1, 2) for t in self.c_attn(x).chunk(3, dim=2)]
    att = (q @ k.transpose(2, 3)) * (1.0 / np.sqrt(C // self.heads)) + mask
    return self.c_proj((att.softmax() @ v).transpose(1, 2).reshape(B, T, C))


class GPTBlock:
  def __init__(self, dim, heads):
    self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
    self.attn = Attention(dim, heads)
    self.fc, self.proj = nn.Linear(dim, 4 * dim), nn.Linear(4 * dim, dim)

  def __call__(self, x, mask):
    x = x + self.attn(self.ln1(x), mask)
    return x + self.proj(self.fc(self.ln2(x)).gelu())


class GPT:
  def __init__(self, vocab, ctx, dim, heads, layers):
    self.wte, self.wpe = nn.Embedding(vocab, dim), nn.Embedding(ctx, dim)
    self.blocks = [GPTBlock(dim, heads) for _ in range(layers)]
    self.ln_f = nn.LayerNorm(dim)
    self.lm_head = nn.Linear(dim, vocab, bias=False)

  def __call__(self, tok):
    B, T = tok.shape
    mask = Tensor.full((1, 1, T, T), float("-inf")).triu(1)
    x = self.wte(tok) + self.wpe(Tensor.arange(T).reshape(1, T))
    for b in self.blocks: x = b(x, mask)
    return self.lm_head(self.ln_f(x))


def gpt_loss(m, tok, tgt):
  logits = m(tok)
  return logits.reshape(-1, logits.shape[-1]).sparse_categorical_crossentropy(tgt.reshape(-1))


def tiny_gpt2_fwd_bwd():
  m = GPT(vocab=32, ctx=8, dim=16, heads=2, layers=2); init(m)
  tok, tgt = rint(0, 32, 2, 8), rint(0, 32, 2, 8)
  with Tensor.train():
    loss = gpt_loss(m, tok, tgt)
    loss.backward()
    Tensor.realize(loss, *[p.grad for p in get_parameters(m) if p.grad is not None])


def symbolic_shapes():
  try:
    from tinygrad import Variable
  except ImportError:
    from tinygrad.shape.symbolic import Variable
  a = rnd(3, 10)
  vi = Variable("i", 1, 10).bind(4)
  a.shrink(((0, 3), (0, vi))).sum(axis=1).realize()
  b = rnd(10, 4)
  (a.shrink(((0, 3), (0, vi))) @ b.shrink(((0, vi), (0, 4)))).realize()


def scheduler_errors():
  """Programs the scheduler rejects (recorded with `error`); the workload goes on."""
  a = rnd(4, 4)
  try: a.assign(a.T + 1).realize()
  except Exception: pass
  b = rnd(4, 4)
  try:
    b += b.T
    b.realize()
  except Exception: pass
  c, d = rnd(4), rnd(4)
  try:
    c.assign(d + 1); d.assign(c + 1)
    Tensor.realize(c, d)
  except Exception: pass


WORKLOADS = [(f.__name__, f) for f in (
  elementwise_chain, broadcast_chain, casts, reductions, softmax_norms, matmul, conv2d_fwd_bwd, pooling,
  movement_chain, cat_stack, arange_onehot_cumsum, assign_inplace, multi_output, detach_contiguous,
  randomness, cross_entropy, mlp_sgd, mlp_adam, mnist_cnn_step, small_resnet_fwd_bwd, tiny_gpt2_fwd_bwd,
  symbolic_shapes, scheduler_errors)]


# ------------------------------------------------------------------ big graphs (scheduled, not run)

def zero_params(model):
  """Give every state tensor a realized zero buffer (copied from numpy: no kernels)."""
  ts = list(get_state_dict(model).values())
  zs = [Tensor(np.zeros(t.shape, dtype=np.float32)) if t.dtype == dtypes.float32 else Tensor.zeros(*t.shape, dtype=t.dtype).contiguous()
        for t in ts]
  Tensor.realize(*zs)
  for t, z in zip(ts, zs): t.replace(z)


def schedule_only(*ts):
  ts[0].schedule(*ts[1:])


def resnet50_train_step():
  from extra.models.resnet import ResNet50
  m = ResNet50(); zero_params(m)
  opt = SGD(get_parameters(m), lr=0.01, momentum=0.9)
  x, y = rnd(2, 3, 64, 64), rint(0, 1000, 2)
  with Tensor.train():
    opt.zero_grad()
    loss = m(x).sparse_categorical_crossentropy(y)
    loss.backward()
    schedule_only(loss, *opt.schedule_step())


def gpt2_small_fwd_bwd():
  m = GPT(vocab=50257, ctx=1024, dim=768, heads=12, layers=12); zero_params(m)
  tok, tgt = rint(0, 50257, 1, 32), rint(0, 50257, 1, 32)
  with Tensor.train():
    loss = gpt_loss(m, tok, tgt)
    loss.backward()
    schedule_only(loss, *[p.grad for p in get_parameters(m) if p.grad is not None])


def deep_mlp_adam():
  m = MLP([64] + [128] * 24 + [10]); zero_params(m)
  opt = Adam(get_parameters(m), lr=1e-3)
  x, y = rnd(16, 64), rint(0, 10, 16)
  with Tensor.train():
    opt.zero_grad()
    loss = m(x).sparse_categorical_crossentropy(y)
    loss.backward()
    schedule_only(loss, *opt.schedule_step())


BIG = [(f.__name__, f) for f in (resnet50_train_step, gpt2_small_fwd_bwd, deep_mlp_adam)]

# ------------------------------------------------------------------ symbolic shapes (suite "symbolic", conformance/corpus)
# Bound Variables in shapes, shrinks, pads, reductions, movement ops, attention (causal, KV cache), as values,
# and in JIT'd forward, decode and training steps; every program runs in 0.9.1, 0.10.0 and 0.10.2 (a program a
# version rejects is caught where it raises, with a comment saying which version and why).

def _variable(name, lo, hi, val):
  try:
    from tinygrad import Variable
  except ImportError:
    from tinygrad.shape.symbolic import Variable
  return Variable(name, lo, hi).bind(val)


def sym_elementwise():
  """Elementwise ops, broadcasts and a matmul on tensors reshaped to a bound variable."""
  vi = _variable("i", 1, 10, 3)
  a, b, c = rnd(3, 3), rnd(3, 3), rnd(3, 5)
  (a.reshape(3, vi) + 1).realize()
  (a.reshape(3, vi) * b.reshape(3, vi)).relu().realize()
  (a.reshape(3, vi) + rnd(3, 1)).exp().realize()
  (a.reshape(3, vi) @ c.reshape(vi, 5)).realize()
  (a.reshape(vi, 3).T.contiguous() + 2).realize()
  a.reshape(3, vi).cast(dtypes.float16).realize()


def sym_shrink_pad():
  """Shrink to a variable length / at a variable offset, pad by a variable amount, pad a variable-length tensor."""
  vi = _variable("i", 1, 10, 3)
  a = rnd(7, 11)
  a.shrink(((0, 7), (0, vi))).realize()
  a.shrink(((3, 5), (vi, vi + 2))).realize()
  (a.shrink(((0, 7), (0, vi))) * 2 + 1).realize()
  a.shrink(((0, vi), (0, 11))).sum(axis=1).realize()
  b = rnd(3, 4)
  b.pad(((0, 0), (0, vi))).realize()
  b.pad(((vi, 0), (0, 0))).relu().realize()
  c = rnd(3, 3)
  c.reshape(3, vi).pad(((0, 0), (1, 1))).realize()
  (c.reshape(3, vi).pad(((1, 0), (0, 2))) + 1).sum().realize()
  a.shrink(((0, 7), (0, vi))).pad(((0, 0), (0, 2))).realize()


def sym_reduce():
  """Reductions over an axis of variable length (and over the fixed axis of a variable-shaped tensor)."""
  vi = _variable("i", 1, 10, 3)
  a = rnd(3, 4)
  x = a.reshape(vi, 4)
  x.sum(axis=0).realize()
  x.sum(axis=1).realize()
  x.sum().realize()
  x.max(axis=0).realize()
  x.mean(axis=0).realize()
  x.mean().realize()
  x.var(axis=0).realize()
  x.softmax(axis=0).realize()
  (x - x.max(axis=0, keepdim=True)).exp().sum(axis=0).realize()
  vj = _variable("j", 1, 10, 4)
  a.reshape(vi, vj).sum().realize()
  a.reshape(vi, vj).mean(axis=1).realize()
  Tensor.ones(3).reshape(vi).sum().realize()


def sym_cat():
  """Concatenation along a variable axis (one and two variables)."""
  vi, vj = _variable("i", 1, 10, 3), _variable("j", 1, 10, 2)
  a, b, c = rnd(3, 3), rnd(2, 3), rnd(3, 2)
  a.reshape(vi, 3).cat(b, dim=0).realize()
  a.reshape(3, vi).cat(c, dim=1).realize()
  a.reshape(vi, 3).cat(b.reshape(vj, 3), dim=0).realize()


def sym_attention():
  """Attention over a variable number of keys (sequence length i), then a KV cache at a variable position."""
  q = rnd(2, 1, 4, 8)
  for i in (3, 5):
    vi = _variable("i", 1, 10, i)
    k, v = rnd(2, i, 4, 8), rnd(2, i, 4, 8)
    q.transpose(1, 2).scaled_dot_product_attention(k.reshape(2, vi, 4, 8).transpose(1, 2),
                                                     v.reshape(2, vi, 4, 8).transpose(1, 2)).realize()
  dim, heads, maxlen = 16, 2, 8
  wq, wk, wv = rnd(dim, dim), rnd(dim, dim), rnd(dim, dim)
  cache_kv = Tensor.zeros(2, 1, maxlen, heads, dim // heads).contiguous().realize()
  for pos in range(3):
    sp = _variable("start_pos", 0, maxlen - 1, pos)
    x = rnd(1, 1, dim)
    xq, xk, xv = [(x @ w).reshape(1, 1, heads, dim // heads) for w in (wq, wk, wv)]
    cache_kv.shrink((None, None, (sp, sp + 1), None, None)).assign(xk.stack(xv)).realize()
    keys = cache_kv[0].shrink((None, (0, sp + 1), None, None))
    values = cache_kv[1].shrink((None, (0, sp + 1), None, None))
    xq.transpose(1, 2).scaled_dot_product_attention(keys.transpose(1, 2), values.transpose(1, 2)).transpose(1, 2) \
      .reshape(1, 1, dim).realize()


def sym_jit_step():
  """A TinyJit'd step called with a variable sequence length: the JIT's first two calls schedule, the rest replay."""
  from tinygrad.engine.jit import TinyJit
  w1, w2 = rnd(4, 8), rnd(8, 4)

  @TinyJit
  def step(x):
    h = (x @ w1).relu()
    return ((h @ w2).softmax(axis=0) * x).sum(axis=0).realize()

  for i in (2, 3, 4, 5):
    vi = _variable("i", 1, 10, i)
    step(rnd(i, 4).reshape(vi, 4)).numpy()


def sym_jit_kv_decode():
  """A TinyJit'd decode step of one attention layer with a KV cache, the position passed as a bound Variable
  (as examples/gpt2.py does): assign into the cache at start_pos, attend over the first start_pos+1 entries."""
  from tinygrad.engine.jit import TinyJit
  dim, heads, maxlen = 16, 2, 8
  wq, wk, wv, wo = rnd(dim, dim), rnd(dim, dim), rnd(dim, dim), rnd(dim, dim)
  cache_kv = Tensor.zeros(2, 1, maxlen, heads, dim // heads).contiguous().realize()

  @TinyJit
  def decode(x, start_pos):
    xq, xk, xv = [(x @ w).reshape(1, 1, heads, dim // heads) for w in (wq, wk, wv)]
    cache_kv.shrink((None, None, (start_pos, start_pos + 1), None, None)).assign(xk.stack(xv)).realize()
    keys = cache_kv[0].shrink((None, (0, start_pos + 1), None, None))
    values = cache_kv[1].shrink((None, (0, start_pos + 1), None, None))
    att = xq.transpose(1, 2).scaled_dot_product_attention(keys.transpose(1, 2), values.transpose(1, 2))
    return (att.transpose(1, 2).reshape(1, 1, dim) @ wo).realize()

  for pos in range(5):
    decode(rnd(1, 1, dim), _variable("start_pos", 0, maxlen - 1, pos)).numpy()


def sym_const_arange():
  """Constants, ones and arange shrunk or reshaped to a variable length, then reduced."""
  vi = _variable("i", 1, 10, 3)
  (rnd(3).reshape(vi) + Tensor.ones(3).reshape(vi)).realize()
  Tensor.arange(10).shrink(((0, vi),)).sum().realize()
  rnd(5, 10).shrink(((0, 5), (0, vi))).max(axis=1).realize()
  try:  # 0.10.2's scheduler rejects this one ("cannot symbolic reshape non-contiguous View"): recorded with `error`
    (rnd(5, 10).shrink(((0, 5), (0, vi))) * Tensor.arange(10).reshape(1, 10).shrink(((0, 1), (0, vi)))).sum(axis=1).realize()
  except ValueError: pass
  (rnd(5, 10).shrink(((0, 5), (0, vi))) * rnd(10).shrink(((0, vi),))).sum(axis=1).realize()


def sym_causal_attention():
  """Causal self-attention over a variable sequence length i (the prefill of a decoder): q, k, v of length i,
  the causal mask a realized (8, 8) triu shrunk to (i, i), softmax over the variable key axis; then a two-token chunk at a variable position start_pos (mask rows [start_pos, start_pos+2))."""
  dim, heads, maxlen = 16, 2, 8
  hd = dim // heads
  wq, wk, wv, wo = rnd(dim, dim), rnd(dim, dim), rnd(dim, dim), rnd(dim, dim)
  mask = Tensor.full((1, 1, maxlen, maxlen), float("-inf")).triu(1).realize()
  for i in (3, 5):
    vi = _variable("i", 1, maxlen, i)
    x = rnd(1, i, dim).reshape(1, vi, dim)
    h = x.layernorm()
    q, k, v = [(h @ w).reshape(1, vi, heads, hd).transpose(1, 2) for w in (wq, wk, wv)]
    att = (q @ k.transpose(2, 3)) * (1.0 / np.sqrt(hd)) + mask.shrink((None, None, (0, vi), (0, vi)))
    (x + (att.softmax(-1) @ v).transpose(1, 2).reshape(1, vi, dim) @ wo).realize()
  cache_k, cache_v = rnd(1, heads, maxlen, hd), rnd(1, heads, maxlen, hd)
  for pos in (2, 4):
    sp = _variable("start_pos", 0, maxlen - 2, pos)
    q = rnd(1, heads, 2, hd)
    keys, values = cache_k.shrink((None, None, (0, sp + 2), None)), cache_v.shrink((None, None, (0, sp + 2), None))
    att = (q @ keys.transpose(2, 3)) * (1.0 / np.sqrt(hd)) + mask.shrink((None, None, (sp, sp + 2), (0, sp + 2)))
    (att.softmax(-1) @ values).realize()


def sym_movement():
  """Reshape, expand, permute and flip of tensors with a variable axis."""
  vi = _variable("i", 1, 10, 3)
  a, b = rnd(3, 4), rnd(2, 3, 4)
  (rnd(3).reshape(vi, 1).expand(vi, 4) * rnd(1, 4)).realize()
  (Tensor.ones(1, 4).expand(vi, 4) + a.reshape(vi, 4)).sum(axis=0).realize()
  rnd(4).reshape(1, 4).expand(vi, 4).contiguous().realize()
  b.reshape(2, vi, 4).permute(2, 0, 1).contiguous().realize()
  (b.reshape(2, vi, 4).permute(1, 0, 2) + 1).sum(axis=0).realize()
  a.reshape(vi, 4).reshape(vi * 4).sum().realize()
  a.reshape(vi, 4).flip(0).contiguous().realize()
  a.reshape(vi, 4).reshape(vi, 2, 2).permute(2, 1, 0).contiguous().realize()


def sym_var_value():
  """A bound Variable used as a value: Tensor(var), tensor op var, a variable expression, a CONST of a
  variable-sized shape (ones, zeros, full) and, where the version has it (0.10.x), arange of a variable length."""
  va = _variable("a", 0, 10, 3)
  (Tensor(va) + 3).realize()
  (Tensor(va) * 2 + 1).realize()
  (rnd(4) * va).realize()
  (rnd(4) + va * 2 + 1).realize()
  (Tensor.ones(3, 4) * va).realize()
  vi = _variable("i", 1, 10, 3)
  x = rnd(3, 4).reshape(vi, 4)
  (x.sum(axis=0) / vi + vi).realize()
  Tensor.full((3, vi), 2.0).sum().realize()
  Tensor.ones(vi).sum().realize()
  (Tensor.zeros(3, vi) + rnd(3, 3).reshape(3, vi)).sum(axis=1).realize()
  vj = _variable("j", 1, 10, 4)
  try:  # 0.9.1's Tensor.arange asserts "symbolic arange not supported" before anything is scheduled
    Tensor.arange(vj).realize()
    (Tensor.arange(vj) * rnd(4).reshape(vj)).sum().realize()
  except AssertionError: pass


def sym_jit_train_step():
  """A TinyJit'd training step (MLP, SGD with momentum, MSE loss) on a batch of variable size i, called with
  i = 2..5.  i's lower bound is 2: 0.10.2's gradient of an expand asks `1 != i`, which must be decidable."""
  from tinygrad.engine.jit import TinyJit
  w1 = Tensor(np.random.randn(4, 8).astype(np.float32), requires_grad=True).realize()
  w2 = Tensor(np.random.randn(8, 4).astype(np.float32), requires_grad=True).realize()
  opt = SGD([w1, w2], lr=0.01, momentum=0.9)

  @TinyJit
  def step(x, y):
    with Tensor.train():
      opt.zero_grad()
      loss = ((x @ w1).relu() @ w2 - y).square().mean()
      loss.backward()
      opt.step()
      return loss.realize()

  for i in (2, 3, 4, 5):
    vi = _variable("i", 2, 10, i)
    step(rnd(i, 4).reshape(vi, 4), rnd(i, 4).reshape(vi, 4)).numpy()


SYMBOLIC = [(f.__name__, f) for f in (sym_elementwise, sym_shrink_pad, sym_reduce, sym_cat, sym_const_arange, sym_attention,
                                      sym_jit_step, sym_jit_kv_decode, sym_causal_attention, sym_movement, sym_var_value,
                                      sym_jit_train_step)]

# ------------------------------------------------------------------ image dtypes (suite "images", corpus-extra)
# tinygrad's image tests need a GPU/QCOM device; on the CPU image kernels cannot run, but they can be
# scheduled.  Tensor.image_dot / image_conv2d (the IMAGE=1/2 paths of matmul and conv2d, present in all three
# versions) are called directly under Context(IMAGE=...), and the graphs are only scheduled, never run.

def _image_ctx(level):
  from tinygrad.helpers import Context
  return Context(IMAGE=level)


def img_dot():
  """image_dot: matmuls through image-typed casts (IMAGE=2) and the IMAGE=1 variant."""
  a, b = rnd(4, 16), rnd(16, 8)
  for level in (2, 1):
    with _image_ctx(level):
      schedule_only(a.image_dot(b))
      schedule_only(a.image_dot(b).relu() + 1)
  with _image_ctx(2):
    schedule_only(rnd(2, 4, 16).image_dot(rnd(16, 12)))
    schedule_only(a.image_dot(rnd(16, 6)))  # 6 outputs: not a multiple of 4


def img_conv2d():
  """image_conv2d forward: plain, padded, strided, grouped, with bias; IMAGE=2 and IMAGE=1."""
  x, w = rnd(1, 16, 8, 8), rnd(8, 16, 3, 3)
  for level in (2, 1):
    with _image_ctx(level):
      schedule_only(x.image_conv2d(w, padding=1).relu())
      schedule_only(x.image_conv2d(w, stride=2))
  with _image_ctx(2):
    schedule_only(x.image_conv2d(rnd(16, 4, 3, 3), groups=4, padding=1))
    schedule_only(x.image_conv2d(rnd(8, 16, 1, 1), bias=rnd(8)))
    schedule_only(rnd(1, 3, 8, 8).image_conv2d(rnd(8, 3, 3, 3), padding=1))  # 3 input channels: padded to 4


def img_small_net():
  """Two image convolutions and an image matmul head, forward and backward, scheduled together."""
  x = rnd(1, 8, 8, 8)
  w1 = Tensor((np.random.randn(8, 8, 3, 3)).astype(np.float32), requires_grad=True).realize()
  w2 = Tensor((np.random.randn(16, 8, 3, 3)).astype(np.float32), requires_grad=True).realize()
  wf = Tensor((np.random.randn(16 * 4 * 4, 4)).astype(np.float32), requires_grad=True).realize()
  with _image_ctx(2):
    h = x.image_conv2d(w1, padding=1).relu()
    h = h.image_conv2d(w2, padding=1, stride=2).relu()
    loss = h.reshape(1, -1).image_dot(wf).sum()
    loss.backward()
    schedule_only(loss, w1.grad, w2.grad, wf.grad)


IMAGES = [(f.__name__, f) for f in (img_dot, img_conv2d, img_small_net)]

# ------------------------------------------------------------------ big ints (suite "bigint", corpus-extra)
# uint64 constants above int64 (Python ints in [2**63, 2**64)): a CONST arg the C schedulers cannot hold in an
# int64, on its own and through each release's constant folding (0.9.1/0.10.0 fold in the lazy graph before the
# scheduler, 0.10.2 in the scheduler's `sym` rules).  Only scheduled: 0.9.1's CLANG renderer rejects such literals.

U64_MAX = 2**64 - 1


def _schedule_each(*makers):
  """Schedule each tensor a maker builds, made contiguous (so that a constant gets a kernel).  A maker using an
  operator this release's Tensor lacks (0.9.1 has no // or & on tensors, no idiv) is left out."""
  for make in makers:
    try: t = make()
    except (TypeError, AttributeError): continue
    schedule_only(t.contiguous())


def big_const():
  """A uint64 constant above int64 alone and folded with small constants: x+0, x*1, x//1 keep it, x-1, x//2,
  comparisons, max, bit ops and casts fold it, x+1 and x*2 overflow uint64 (2**64, 2**65-2 in 0.10.2)."""
  x = lambda: Tensor(U64_MAX, dtype=dtypes.uint64)
  _schedule_each(x, lambda: Tensor(2**63, dtype=dtypes.uint64), lambda: Tensor(1e19, dtype=dtypes.uint64),
                 lambda: x() + 0, lambda: x() * 1, lambda: x() // 1, lambda: x().idiv(1), lambda: x() - 1,
                 lambda: x() // 2, lambda: x() < 5, lambda: x() == U64_MAX, lambda: x().maximum(7), lambda: x() & 255,
                 lambda: x() ^ 1, lambda: x() >> 60, lambda: x() << 1, lambda: x() + 1, lambda: x() * 2, lambda: -x(),
                 lambda: x().cast(dtypes.float64), lambda: x().cast(dtypes.int64), lambda: x().cast(dtypes.bool),
                 lambda: x().bitcast(dtypes.int64), lambda: x().bitcast(dtypes.float64),
                 lambda: Tensor(-1, dtype=dtypes.int64).bitcast(dtypes.uint64),
                 lambda: Tensor(-2.0, dtype=dtypes.float64).bitcast(dtypes.uint64),
                 lambda: Tensor(1.5e19, dtype=dtypes.float64).cast(dtypes.uint64))


def big_const_tensor():
  """uint64 buffers combined with constants above int64 (no folding: the constant stays a CONST in the kernel)."""
  y = Tensor(np.array([1, 2, 3], dtype=np.uint64)).realize()
  _schedule_each(lambda: y + 2**63, lambda: y * U64_MAX, lambda: y ^ U64_MAX, lambda: y.maximum(2**63),
                 lambda: y < 2**63, lambda: y == U64_MAX, lambda: (y < 2).where(U64_MAX, y),
                 lambda: Tensor.full((2, 3), 2**63 + 5, dtype=dtypes.uint64).sum(),
                 lambda: Tensor.full((3,), U64_MAX, dtype=dtypes.uint64) // y)


BIGINT = [(f.__name__, f) for f in (big_const, big_const_tensor)]

# ------------------------------------------------------------------ models (suite "models", corpus-extra)
# Small configurations of the models in the checkout's extra/models/ (the same files in all three releases) and
# of nn layers and Tensor ops the other suites leave out, with seeded random weights (copied from numpy, no
# download): forward passes realized on the CPU, training steps (backward + optimizer) scheduled only.  A program
# using something a release lacks raises Skip there (counted in summary.json as workloads_skipped).


class Skip(Exception):
  """This release lacks something the program needs: the recorder counts the program as skipped."""


def _need(ok, why):
  if not ok: raise Skip(why)


def seeded_params(model, scale=0.1):
  """Replace every float32 state tensor by seeded random numbers from numpy (running variances by positive ones),
  realize all state tensors."""
  sd = get_state_dict(model)
  for k, t in sd.items():
    if t.dtype != dtypes.float32: continue
    a = np.random.randn(*t.shape).astype(np.float32) * scale
    t.replace(Tensor(np.abs(a) + 1 if k.endswith("running_var") else a))
  Tensor.realize(*sd.values())


def train_schedule(model_loss, opt):
  """One training step, scheduled only: zero_grad, loss, backward, optimizer step."""
  with Tensor.train():
    opt.zero_grad()
    loss = model_loss()
    loss.backward()
    schedule_only(loss, *opt.schedule_step())


def efficientnet_tiny():
  """extra/models/efficientnet.py, the four-block variant (number=-1), 10 classes, a 32x32 image: eval forward
  realized, then a train-mode step (BatchNorm batch statistics, SGD with momentum) scheduled."""
  from extra.models.efficientnet import EfficientNet
  m = EfficientNet(number=-1, classes=10); seeded_params(m)
  x, y = rnd(1, 3, 32, 32), rint(0, 10, 2)
  m.forward(x).realize()
  train_schedule(lambda: m.forward(rnd(2, 3, 32, 32)).sparse_categorical_crossentropy(y),
                 SGD(get_parameters(m), lr=0.01, momentum=0.9))


def vit_tiny():
  """extra/models/vit.py (2 pre-norm blocks of extra/models/transformer.py, width 32, 2 heads) on a 224x224
  image: forward realized, then a train step with dropout and Adam scheduled."""
  from extra.models.vit import ViT
  m = ViT(layers=2, embed_dim=32, num_heads=2); seeded_params(m)
  x = rnd(1, 3, 224, 224)
  m.forward(x).realize()
  train_schedule(lambda: m.forward(x).sparse_categorical_crossentropy(rint(0, 1000, 1)), Adam(get_parameters(m), lr=1e-3))


def transformer_adam():
  """extra/models/transformer.py's Transformer (one-hot embedding, 2 post-norm blocks, dropout): two training
  steps with Adam, realized, then an eval forward."""
  from extra.models.transformer import Transformer
  m = Transformer(syms=10, maxlen=6, layers=2, embed_dim=16, num_heads=2, ff_dim=32); seeded_params(m)
  opt = Adam(get_parameters(m), lr=1e-3)
  x, y = rint(0, 10, 2, 6), rint(0, 10, 2, 6)
  for _ in range(2):
    with Tensor.train():
      opt.zero_grad()
      loss = m.forward(x).reshape(-1, 10).sparse_categorical_crossentropy(y.reshape(-1))
      loss.backward()
      Tensor.realize(loss, *opt.schedule_step())
  m.forward(x).argmax(axis=-1).realize()


def llama_generate():
  """extra/models/llama.py (2 layers, dim 32, grouped-query attention 4/2 heads, rotary embedding, KV cache): a
  4-token prompt at start_pos 0, then 4 greedy decode steps through the model's TinyJit (start_pos a Variable);
  then a 1-layer model sampling (temperature, top-k, top-p, alpha counters)."""
  from extra.models.llama import Transformer
  m = Transformer(dim=32, hidden_dim=64, n_heads=4, n_layers=2, norm_eps=1e-5, vocab_size=64, n_kv_heads=2, max_context=16)
  seeded_params(m)
  tok = m(Tensor([[1, 5, 9, 3]]), 0).item()
  for pos in range(4, 8):
    tok = m(Tensor([[tok]]), pos).item()
  # sampling: temperature, top-k (a loop of max/where), approximate top-p, alpha counters, multinomial
  m = Transformer(dim=32, hidden_dim=64, n_heads=4, n_layers=1, norm_eps=1e-5, vocab_size=64, max_context=16)
  seeded_params(m)
  tok = m(Tensor([[2, 7, 4]]), 0, 0.7, 4, 0.8, 0.1, 0.1).item()
  for pos in range(3, 6):
    tok = m(Tensor([[tok]]), pos, 0.7, 4, 0.8, 0.1, 0.1).item()


def _llama3(quantize, device):
  """examples/llama3.py's build_transformer at a tiny size (2 layers, dim 32, 4/2 heads, vocab 64), with seeded
  float weights instead of a checkpoint: half weights (fix_bf16's dtype) or Int8Linear quantized ones, sharded as
  it shards them when device is a tuple, loaded with load_state_dict; then a prompt and 3 sampled tokens (the
  decode steps through the model's TinyJit)."""
  from examples.llama3 import Int8Linear
  from extra.models.llama import Transformer
  from tinygrad.nn.state import load_state_dict
  args = dict(dim=32, hidden_dim=64, n_heads=4, n_layers=2, norm_eps=1e-5, vocab_size=64, n_kv_heads=2, max_context=16)
  shapes = {k: v.shape for k, v in get_state_dict(Transformer(**args)).items() if k != "freqs_cis"}
  model = Transformer(**args, linear=Int8Linear if quantize else nn.Linear, jit=True)
  weights = {k: Tensor((np.random.randn(*sh) * 0.1).astype(np.float32)) for k, sh in shapes.items()}
  if quantize:
    weights = Int8Linear.quantize(weights, device)
    for v in weights.values(): v.realize()
  else: weights = {k: v.half() for k, v in weights.items()}
  if isinstance(device, tuple):
    for k, v in get_state_dict(model).items():
      if 'scale' in k: v.shard_(device, axis=None)
      elif '.attention.' in k: v.shard_(device, axis=-1)
      elif '.feed_forward.w1.' in k: v.shard_(device, axis=0)
      elif '.feed_forward.w3.' in k: v.shard_(device, axis=0)
      elif '.feed_forward.' in k: v.shard_(device, axis=-1)
      elif 'tok_embeddings.weight' in k: v.shard_(device, axis=0)
      elif 'output.weight' in k: v.shard_(device, axis=0)
      else: v.shard_(device, axis=None)
  load_state_dict(model, weights, strict=False, verbose=False, consume=True)
  toks, start_pos = [5, 9, 2], 0
  for _ in range(4):
    tok = model(Tensor([toks[start_pos:]], device=device), start_pos, 0.85, 4, 0.9, 0.0, 0.0).item()
    start_pos = len(toks)
    toks.append(tok)


def llama3_half():
  """examples/llama3.py's model with half weights on one device (see _llama3)."""
  from tinygrad import Device
  _llama3(False, Device.DEFAULT)


def llama3_int8_sharded():
  """examples/llama3.py's model with Int8Linear weights sharded on two CPU devices (see _llama3)."""
  from tinygrad import Device
  _llama3(True, tuple(f"{Device.DEFAULT}:{i}" for i in range(2)))


def gpt2_generate():
  """examples/gpt2.py's Transformer (2 layers, dim 32, vocab 64, its MAX_CONTEXT 128) generating as GPT2.generate
  does: batch 1 greedy (the prompt, then each token a bound Variable "tokens" shrinking the embedding, start_pos
  a Variable), then batch 2 sampled with temperature (multinomial)."""
  from tinygrad import Variable
  from examples.gpt2 import Transformer, MAX_CONTEXT
  for toks, temperature in (([[3, 1, 4, 1]], 0.0), ([[3, 1, 4], [2, 7, 1]], 0.8)):
    m = Transformer(dim=32, n_heads=2, n_layers=2, norm_eps=1e-5, vocab_size=64, max_seq_len=MAX_CONTEXT); seeded_params(m)
    start_pos = 0
    for _ in range(4):
      if len(toks) == 1 and len(toks[0][start_pos:]) == 1: tokens = Variable("tokens", 0, 64).bind(toks[0][start_pos])
      else: tokens = Tensor([x[start_pos:] for x in toks])
      tok = m(tokens, Variable("start_pos", 1 if start_pos else 0, MAX_CONTEXT).bind(start_pos), temperature).numpy().tolist()
      start_pos = len(toks[0])
      toks = [x + [t] for x, t in zip(toks, tok)]


def mixtral_generate():
  """examples/mixtral.py's MixtureFeedForward (4 experts, the top two picked on the host from the gate's output)
  in extra/models/llama.py's Transformer, as the example builds it (jit=False): a prompt, then 3 sampled tokens."""
  import functools
  from examples.mixtral import MixtureFeedForward
  from extra.models.llama import Transformer
  m = Transformer(n_layers=2, dim=16, hidden_dim=32, n_heads=2, n_kv_heads=1, norm_eps=1e-5, vocab_size=32, max_context=16,
                  feed_forward=functools.partial(MixtureFeedForward, 4), jit=False); seeded_params(m)
  toks, start_pos = [1, 2, 3], 0
  for _ in range(4):
    tok = m(Tensor([toks[start_pos:]]), start_pos, 0.7).item()
    start_pos = len(toks)
    toks.append(tok)


def _mnist_jit(Model, gpus=None):
  """The training loop of examples/beautiful_mnist(_multigpu).py on 32 random 28x28 uint8 images: its TinyJit'd
  train step (Adam, batch 8 drawn with Tensor.randint, a gather of the samples; with gpus the model copied to
  every device and the batch sharded on axis 0) 3 times (run, capture, replay), its test accuracy twice."""
  from tinygrad.engine.jit import TinyJit
  X_train = Tensor(np.random.randint(0, 256, (32, 1, 28, 28)).astype(np.uint8)).realize()
  Y_train = Tensor(np.random.randint(0, 10, 32).astype(np.int32)).realize()
  X_test, Y_test = X_train[:16].contiguous().realize(), Y_train[:16].contiguous().realize()
  if gpus: X_test.shard_(gpus, axis=0); Y_test.shard_(gpus, axis=0)
  model = Model(); seeded_params(model)
  if gpus:
    for x in get_state_dict(model).values(): x.to_(gpus)
  opt = Adam(get_parameters(model))

  @TinyJit
  def train_step():
    with Tensor.train():
      opt.zero_grad()
      samples = Tensor.randint(8, high=X_train.shape[0])
      Xt, Yt = X_train[samples], Y_train[samples]
      if gpus: Xt, Yt = Xt.shard_(gpus, axis=0), Yt.shard_(gpus, axis=0)
      loss = model(Xt).sparse_categorical_crossentropy(Yt).backward()
      opt.step()
      return loss

  @TinyJit
  def get_test_acc(): return (model(X_test).argmax(axis=1) == Y_test).mean() * 100

  for _ in range(3): train_step().item()
  for _ in range(2): get_test_acc().item()


def beautiful_mnist_jit():
  """examples/beautiful_mnist.py's Model, trained as that example does (see _mnist_jit)."""
  from examples.beautiful_mnist import Model
  _mnist_jit(Model)


def beautiful_mnist_multigpu():
  """examples/beautiful_mnist_multigpu.py's Model on its GPUS (two CPU devices), data-parallel (see _mnist_jit)."""
  from examples.beautiful_mnist_multigpu import Model, GPUS
  _mnist_jit(Model, GPUS)


def unet_tiny():
  """extra/models/unet.py's UNetModel (0.10.x only; skipped in 0.9.1): width 32, two levels, one ResBlock each,
  cross-attention SpatialTransformers with a context of width 16, timestep embedding; half precision inside
  where the device has float16.  Forward realized, then a backward scheduled."""
  try: from extra.models.unet import UNetModel
  except ImportError as e: raise Skip(f"no extra/models/unet.py ({e})")
  m = UNetModel(adm_in_ch=None, in_ch=4, out_ch=4, model_ch=32, attention_resolutions=[2], num_res_blocks=1, channel_mult=[1, 2],
                transformer_depth=[1, 1], ctx_dim=16, n_heads=2); seeded_params(m)
  x, ctx = rnd(1, 4, 8, 8), rnd(1, 3, 16)
  m(x, Tensor([10.0]), ctx).realize()
  out = m(x, Tensor([500.0]), ctx).float().square().mean()
  out.backward()
  schedule_only(out, *[p.grad for p in get_parameters(m) if p.grad is not None])


def yolov8n():
  """examples/yolov8.py's YOLOv8, variant n (depth 0.33, width 0.25), 80 classes, on a 64x64 image: backbone
  (C2f, SPPF), FPN (nearest upsample, concat), detection head (DFL, anchors); forward realized."""
  from examples.yolov8 import YOLOv8, get_variant_multiples
  depth, width, ratio = get_variant_multiples("n")
  m = YOLOv8(w=width, r=ratio, d=depth, num_classes=80); seeded_params(m)
  m(rnd(1, 3, 64, 64)).realize()


def convnext_tiny():
  """extra/models/convnext.py, one block per stage, widths 8-32 (depthwise 7x7 convs, LayerNorm2d, GELU): eval
  forward realized, then a train step with AdamW scheduled."""
  from extra.models.convnext import ConvNeXt
  m = ConvNeXt(depths=[1, 1, 1, 1], dims=[8, 16, 16, 32], num_classes=10); seeded_params(m)
  x, y = rnd(2, 3, 32, 32), rint(0, 10, 2)
  m(x).realize()
  train_schedule(lambda: m(x).sparse_categorical_crossentropy(y), AdamW(get_parameters(m), lr=1e-3))


def rnnt_tiny():
  """extra/models/rnnt.py at width 8, one LSTM layer each, each LSTM stepping through a TinyJit of its own: the
  encoder, the prediction network and the joint, called one by one as the model's forward does (the model's
  own TinyJit'd call nests those TinyJits, which 0.9.1 rejects)."""
  from extra.models.rnnt import RNNT
  m = RNNT(input_features=8, vocab_size=29, enc_hidden_size=8, pred_hidden_size=8, joint_hidden_size=8, pre_enc_layers=1,
           post_enc_layers=1, pred_layers=1)
  seeded_params(m)
  f = m.encoder(rnd(6, 2, 8), None)[0].realize()
  g = m.prediction(rint(0, 28, 2, 2), None, Tensor.ones(1))[0].realize()
  m.joint(f, g).realize()


def bert_tiny_pretrain():
  """extra/models/bert.py's BertForPretraining (2 layers, width 16, vocab 64, padding mask, masked-LM gather by
  one-hot matmul): eval forward and loss realized, then a train step with dropout and LAMB scheduled."""
  from extra.models.bert import BertForPretraining
  m = BertForPretraining(hidden_size=16, intermediate_size=32, max_position_embeddings=16, num_attention_heads=2,
                         num_hidden_layers=2, type_vocab_size=2, vocab_size=64); seeded_params(m)
  ids, types = rint(0, 64, 2, 8), rint(0, 2, 2, 8)
  mask = Tensor(np.array([[1] * 8, [1] * 5 + [0] * 3], dtype=np.float32)).realize()
  pos, lm_ids = rint(0, 8, 2, 3), rint(1, 64, 2, 3)
  lm_w, nsp = Tensor(np.array([[1, 1, 0], [1, 0, 0]], dtype=np.float32)).realize(), rint(0, 2, 2)
  def loss():
    return m.loss(*m(ids, mask, pos, types), lm_ids, lm_w, nsp)
  loss().realize()
  train_schedule(loss, LAMB(get_parameters(m), lr=1e-3))


def resnet18_eval():
  """extra/models/resnet.py's ResNet18 (10 classes), eval forward on two 32x32 images (BatchNorm running
  statistics), scheduled only."""
  from extra.models.resnet import ResNet18
  m = ResNet18(num_classes=10); seeded_params(m)
  schedule_only(m(rnd(2, 3, 32, 32)).softmax())


def nn_layers():
  """nn layers the other suites leave out, forward realized and backward scheduled: Conv1d, ConvTranspose1d/2d,
  GroupNorm, InstanceNorm, LayerNorm2d, BatchNorm2d in train mode (running statistics assigned), Embedding,
  an LSTM cell over three steps, attention with a padding mask and a causal one, dropout."""
  x1, x2 = rnd(2, 4, 10), rnd(2, 4, 6, 6)
  c1, ct1, ct2 = nn.Conv1d(4, 6, 3, padding=1), nn.ConvTranspose1d(4, 3, 3, stride=2), nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1)
  gn, inn, ln2, bn = nn.GroupNorm(2, 4), nn.InstanceNorm(4), nn.LayerNorm2d(4), nn.BatchNorm2d(4)
  emb = nn.Embedding(10, 8)
  wx, wh, b = nn.Linear(8, 32), nn.Linear(8, 32, bias=False), rnd(32)
  for layer in (c1, ct1, ct2, gn, inn, ln2, bn, emb, wx, wh): seeded_params(layer)
  c1(x1).relu().realize()
  ct1(x1).realize()
  ct2(x2).realize()
  gn(x2).realize()
  inn(x2).realize()
  ln2(x2).realize()
  with Tensor.train():
    bn(x2).realize()
    bn(x2 * 2).realize()
  toks = rint(0, 10, 2, 3)
  h, c = Tensor.zeros(2, 8).contiguous().realize(), Tensor.zeros(2, 8).contiguous().realize()
  e = emb(toks)  # 0.9.1's Embedding wants a 2-d index
  for t in range(3):
    i, f, g, o = (wx(e[:, t]) + wh(h) + b).chunk(4, dim=1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    h = (o.sigmoid() * c.tanh()).realize()
  q, k, v = rnd(2, 2, 4, 8), rnd(2, 2, 5, 8), rnd(2, 2, 5, 8)
  pad = Tensor(np.array([[True] * 5, [True] * 3 + [False] * 2])).reshape(2, 1, 1, 5)
  q.scaled_dot_product_attention(k, v, attn_mask=pad).realize()
  q.scaled_dot_product_attention(rnd(2, 2, 4, 8), rnd(2, 2, 4, 8), is_causal=True).realize()
  w = Tensor(np.random.randn(8, 8).astype(np.float32), requires_grad=True).realize()
  with Tensor.train():
    out = (c1(x1).sum() + ct2(x2).mean() + gn(x2).square().mean() + bn(x2).sum() + (emb(toks) @ w).dropout(0.25).sum() +
           q.scaled_dot_product_attention(k, v, attn_mask=pad).sum())
    out.backward()
    schedule_only(out, *[p.grad for p in get_parameters([c1, ct2, gn, bn, emb]) + [w] if p.grad is not None])


def tensor_ops():
  """Tensor ops of all three releases the other suites leave out: einsum, gather, cumsum, logsumexp, masked_fill,
  strided/dilated conv_transpose2d, argmax, lerp, repeat, split, triu, binary_crossentropy_logits, multinomial,
  dilated pools, fancy indexing; realized, and a backward through several of them."""
  a, b = rnd(3, 4), rnd(4, 5)
  Tensor.einsum("ij,jk->ik", a, b).realize()
  Tensor.einsum("bij,bkj->bik", rnd(2, 3, 4), rnd(2, 5, 4)).realize()
  a.gather(1, rint(0, 4, 3, 2)).realize()
  a.cumsum(axis=1).realize()
  rnd(40).cumsum().realize()
  a.logsumexp(axis=1).realize()
  a.masked_fill(a > 0, -1.0).realize()
  x, wt = rnd(1, 4, 5, 5), rnd(4, 2, 3, 3)
  x.conv_transpose2d(wt, stride=2, padding=1, output_padding=1).realize()
  x.conv_transpose2d(wt, dilation=2).realize()
  Tensor.realize(a.argmax(axis=1), a.argmax())
  a.lerp(rnd(3, 4), 0.3).realize()
  a.repeat((2, 1)).realize()
  Tensor.realize(*a.split([1, 3], dim=1))
  rnd(4, 4).triu(1).realize()
  a.binary_crossentropy_logits(Tensor(np.random.rand(3, 4).astype(np.float32))).realize()
  a.softmax().multinomial(2, replacement=True).realize()
  xp = rnd(1, 2, 9, 9)
  xp.max_pool2d(kernel_size=(3, 3), stride=2, dilation=2).realize()
  xp.avg_pool2d(kernel_size=(3, 3), stride=1, dilation=(1, 2)).realize()
  a[rint(0, 3, 2)].realize()
  a[:, rint(0, 4, 3)].realize()
  a[rint(0, 3, 2), rint(0, 4, 2)].realize()
  p = Tensor(np.random.randn(3, 4).astype(np.float32), requires_grad=True).realize()
  loss = Tensor.einsum("ij,jk->ik", p, b).logsumexp(axis=1).sum() + p.gather(1, rint(0, 4, 3, 2)).sum() + p.cumsum(axis=1).mean()
  loss.backward()
  Tensor.realize(loss, p.grad)


def tensor_ops_010():
  """Tensor ops and nn layers of 0.10.x only (skipped in 0.9.x): interpolate, pad modes, cross_entropy with
  label smoothing, nll_loss, logcumsumexp, roll, repeat_interleave, rearrange, std_mean, linspace, isnan, RMSNorm,
  LSTMCell, padded pools."""
  _need("mode" in inspect.signature(Tensor.pad).parameters,  # 0.9.2 has interpolate, linear only, and no pad modes
        "no pad modes, nearest interpolate, cross_entropy (0.10.x API)")
  x = rnd(1, 2, 4, 4)
  x.interpolate((8, 8)).realize()
  x.interpolate((6, 7), mode="nearest").realize()
  x.interpolate((8, 8), align_corners=True).realize()
  for mode in ("reflect", "replicate", "circular"):
    try: x.pad((1, 2, 2, 1), mode=mode).realize()
    except NotImplementedError: pass  # 0.10.0 has reflect only
  logits, y = rnd(4, 5), rint(0, 5, 4)
  logits.cross_entropy(y, label_smoothing=0.1).realize()
  logits.log_softmax().nll_loss(y).realize()
  logits.logcumsumexp(axis=1).realize()
  logits.roll(2, dims=1).realize()
  logits.repeat_interleave(2, dim=0).realize()
  rnd(2, 3, 4).rearrange("b c h -> b (c h)").realize()
  Tensor.realize(*logits.std_mean(axis=1))
  Tensor.linspace(0, 1, 7).realize()
  (logits / (logits - logits)).isnan().realize()
  x.max_pool2d(kernel_size=(3, 3), stride=1, padding=1).realize()
  x.avg_pool2d(kernel_size=(3, 3), padding=1, count_include_pad=False).realize()
  rms, cell = nn.RMSNorm(5), nn.LSTMCell(5, 6)
  seeded_params(rms); seeded_params(cell)
  rms(logits).realize()
  h, c = cell(logits)
  Tensor.realize(*cell(logits, (h, c)))


# llama3_half first: in 0.9.1 its captures depend on what the process scheduled before (see corpus-extra/README.md)
MODELS = [(f.__name__, f) for f in (llama3_half, llama3_int8_sharded, efficientnet_tiny, vit_tiny, transformer_adam, llama_generate,
                                    gpt2_generate, mixtral_generate,
                                    convnext_tiny, rnnt_tiny, bert_tiny_pretrain, resnet18_eval, beautiful_mnist_jit,
                                    beautiful_mnist_multigpu, yolov8n, unet_tiny, nn_layers, tensor_ops, tensor_ops_010)]

# ------------------------------------------------------------------ stress graphs (suite "stress", scheduled, not run)
# Big graphs that take other paths than SUITES["big"], for the speed targets (docs/performance.md): parameters
# left unrealized (their random init is part of the one schedule), other sizes and optimizers, many attention
# heads, an Adam step's first call, a conv-heavy backward pass, a wide random elementwise DAG.

def _classify_step(model, opt, x, y):
  """train_schedule of a classifier's cross-entropy loss."""
  train_schedule(lambda: model(x).sparse_categorical_crossentropy(y), opt)


def resnet50_init_sgd():
  from extra.models.resnet import ResNet50
  m = ResNet50()
  opt = SGD(get_parameters(m), lr=0.01, momentum=0.9)
  _classify_step(m, opt, rnd(2, 3, 64, 64), rint(0, 1000, 2))


def resnet50_adamw_b4():
  from extra.models.resnet import ResNet50
  m = ResNet50(); zero_params(m)
  opt = AdamW(get_parameters(m), lr=1e-3)
  _classify_step(m, opt, rnd(4, 3, 32, 32), rint(0, 1000, 4))


def resnet18_lamb_b8():
  from extra.models.resnet import ResNet18
  m = ResNet18(); zero_params(m)
  opt = LAMB(get_parameters(m), lr=1e-3)
  _classify_step(m, opt, rnd(8, 3, 48, 48), rint(0, 1000, 8))


def attention_many_heads():
  m = GPT(vocab=512, ctx=64, dim=512, heads=32, layers=4); zero_params(m)
  opt = Adam(get_parameters(m), lr=1e-3)
  tok, tgt = rint(0, 512, 2, 64), rint(0, 512, 2, 64)
  train_schedule(lambda: gpt_loss(m, tok, tgt), opt)


def mlp40_adam_first_step():
  m = MLP([256] * 41)
  opt = Adam(get_parameters(m), lr=1e-3)
  _classify_step(m, opt, rnd(32, 256), rint(0, 256, 32))


class ConvStack:
  def __init__(self, ch, depth):
    self.convs = [nn.Conv2d(3 if i == 0 else ch, ch, 3, padding=1) for i in range(depth)]
    self.head = nn.Linear(ch, 10)

  def __call__(self, x):
    for i, c in enumerate(self.convs):
      x = c(x).relu()
      if i % 3 == 2: x = x.max_pool2d()
    return self.head(x.mean(axis=(2, 3)))


def conv_stack_bwd():
  m = ConvStack(32, 12); zero_params(m)
  x, y = rnd(4, 3, 64, 64), rint(0, 10, 4)
  with Tensor.train():
    loss = m(x).sparse_categorical_crossentropy(y)
    loss.backward()
    schedule_only(loss, *[p.grad for p in get_parameters(m) if p.grad is not None])


def elementwise_dag_10k():
  rng = np.random.RandomState(0)
  nodes = [rnd(64, 64) for _ in range(16)]
  for i in range(10000):
    a, b = nodes[rng.randint(len(nodes))], nodes[max(0, len(nodes) - 1 - rng.randint(min(len(nodes), 64)))]
    k = rng.randint(5)
    nodes.append(a + b if k == 0 else a * b if k == 1 else a.maximum(b) if k == 2 else a - b if k == 3 else (a * 0.5).relu())
  outs = [nodes[j] for j in sorted(set(rng.randint(16, len(nodes), size=48).tolist()))]
  schedule_only(*outs)


STRESS = [(f.__name__, f) for f in (resnet50_init_sgd, resnet50_adamw_b4, resnet18_lamb_b8, attention_many_heads,
                                    mlp40_adam_first_step, conv_stack_bwd, elementwise_dag_10k)]


SUITES = {"workloads": WORKLOADS, "big": BIG, "symbolic": SYMBOLIC, "images": IMAGES, "bigint": BIGINT, "models": MODELS, "stress": STRESS}
