"""``Tensor.untyped_storage()``/``storage()`` (shared memory seen through
``data_ptr()``, sizes) and the legacy ``Tensor.new`` against PyTorch (skipped
without it)."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

real_torch = pytest.importorskip("torch")
import fad.torch as ftorch  # noqa: E402


def run(t: Any) -> list:
    x = t.arange(6.0)
    y = x[2:]
    z = x.clone()
    s = x.untyped_storage()
    out = [
        type(s).__name__,
        s.data_ptr() == y.untyped_storage().data_ptr(),
        s.data_ptr() == z.untyped_storage().data_ptr(),
        s.nbytes(),
        len(s),
        s.size(),
        x.storage().data_ptr() == s.data_ptr(),
        type(x.storage()).__name__,
        len(x.storage()),
        x.storage().size(),
        str(x.storage().dtype),
    ]
    out += [
        x.view(2, 3).t().untyped_storage().data_ptr() == s.data_ptr(),
        x.new(2, 3).shape,
        str(x.new([1, 2]).dtype),
        x.new().shape,
        x.new(t.Size([2])).shape,
        str(t.ones(2, dtype=t.int64).new([1.5]).dtype),
        t.ones(2, dtype=t.int64).new([1.5]).tolist(),
    ]
    return out


def test_as_pytorch():
    with warnings.catch_warnings():  # (storage()'s deprecation warning)
        warnings.simplefilter("ignore")
        assert run(ftorch) == run(real_torch)
