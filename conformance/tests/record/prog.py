"""A small program to record (conformance/tests/record/record.sh): a
softmax and a matmul with its backward pass, scheduled with Tensor.realize."""
import sys
from tinygrad import Tensor

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 1
x = Tensor.rand(4, 8)
w = Tensor.rand(8, 3, requires_grad=True)
for _ in range(steps):
  x.softmax(axis=1).realize()
  loss = (x @ w).relu().sum()
  loss.backward()
  w.grad.realize()
