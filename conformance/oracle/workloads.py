"""Workloads for the oracle, written once against the Tensor API common to
tinygrad 0.9.1, 0.10.0 and 0.10.2 (filled in below)."""
from tinygrad import Tensor


def w_add():
  a = Tensor.rand(4, 4); b = Tensor.rand(4, 4)
  (a + b).realize()


def w_sum():
  a = Tensor.rand(4, 4)
  a.sum(axis=1).realize()


WORKLOADS = [("add", w_add), ("sum", w_sum)]
BIG = []
SUITES = {"workloads": WORKLOADS, "big": BIG}
