"""Primitives named after NumPy's functions run on a namespace that has only the
Array API standard's names for them (``bitwise_left_shift``...)."""

import numpy as np
import pytest

import fad.numpy as fnp


def test_shifts_and_invert_on_array_api_strict():
    xp = pytest.importorskip("array_api_strict")
    x = np.array([1, 0x80000001, 0xFFFFFFFF], np.uint32)
    a = xp.asarray(x)
    for got, want in [(fnp.left_shift(a, 3), x << 3), (fnp.right_shift(a, 3), x >> 3),
                      (fnp.invert(a), ~x)]:
        assert type(got) is type(a)
        assert np.array_equal(np.asarray(got), want)
