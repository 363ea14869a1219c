"""Errors that depend on values, against PyTorch: integer division by zero (NumPy
gives 0 with a warning, PyTorch raises), ``narrow`` out of range or with a
negative start, ``one_hot`` of classes outside ``[0, num_classes)``, and
``pad`` cropping more than a dimension holds. Same exception type and first
line; and the accepted neighbours give PyTorch's values (skipped without torch)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
from torch_compare import raises_alike  # noqa: E402

import fad.torch as ftorch  # noqa: E402

X = np.arange(12.0).reshape(4, 3)

ERRORS: dict[str, Callable[[Any], Any]] = {
    "floordiv": lambda t: t.tensor([1, 2]) // t.tensor([0, 1]),
    "mod": lambda t: t.tensor([1, 2]) % t.tensor([0, 1]),
    "rfloordiv": lambda t: 5 // t.tensor([0, 1]),
    "rmod": lambda t: 5 % t.tensor([1, 0]),
    "floordiv_scalar": lambda t: t.tensor([1, 2], dtype=t.uint8) // 0,
    "remainder": lambda t: t.remainder(t.tensor([1, 2]), 0),
    "remainder_": lambda t: t.tensor([1, 2]).remainder_(0),
    "floordiv_": lambda t: t.tensor([1, 2]).__ifloordiv__(0),
    "fmod": lambda t: t.fmod(t.tensor([1, 2]), 0),
    "div_trunc": lambda t: t.div(t.tensor([1, 2]), 0, rounding_mode="trunc"),
    "div_floor": lambda t: t.div(t.tensor([1, 2]), t.tensor([1, 0]), rounding_mode="floor"),
    "narrow_start": lambda t: t.tensor(X).narrow(0, 5, 0),
    "narrow_negative_start": lambda t: t.tensor(X).narrow(0, -5, 1),
    "narrow_length": lambda t: t.tensor(X).narrow(1, 1, -1),
    "narrow_past_the_end": lambda t: t.tensor(X).narrow(0, -1, 2),
    "narrow_0d": lambda t: t.tensor(1.0).narrow(0, 0, 1),
    "one_hot_too_large": lambda t: t.nn.functional.one_hot(t.tensor([3]), 2),
    "one_hot_negative": lambda t: t.nn.functional.one_hot(t.tensor([-1]), 2),
    "one_hot_empty": lambda t: t.nn.functional.one_hot(t.tensor([], dtype=t.long)),
    "pad_crop_too_much": lambda t: t.nn.functional.pad(t.tensor(X), (-5, 0)),
    "pad_crop_then_pad": lambda t: t.nn.functional.pad(t.tensor(X), (-4, 1)),
    "pad_crop_rows": lambda t: t.nn.functional.pad(t.tensor(X), (0, 0, -2, -3)),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_value_errors_match_pytorch(name: str) -> None:
    raises_alike(ERRORS[name], (real_torch, ftorch))


ACCEPTED: dict[str, Callable[[Any], Any]] = {
    "float_floordiv_by_zero": lambda t: t.tensor([1.0, -2.0, 0.0]) // 0,
    "int_true_division_by_zero": lambda t: t.tensor([1, -2]) / 0,
    "int_floordiv": lambda t: t.tensor([7, -7, 7]) // t.tensor([2, 2, -3]),
    "int_mod": lambda t: t.tensor([7, -7, 7]) % t.tensor([2, 2, -3]),
    "narrow_negative_start": lambda t: t.tensor(X).narrow(0, -3, 2),
    "narrow_tensor_start": lambda t: t.tensor(X).narrow(1, t.tensor(1), 2),
    "narrow_to_the_end": lambda t: t.tensor(X).narrow(0, 4, 0),
    "one_hot_empty_with_classes": lambda t: t.nn.functional.one_hot(
        t.tensor([], dtype=t.long), 3),
    "pad_crop_all": lambda t: t.nn.functional.pad(t.tensor(X), (-3, 0)),
    "pad_crop_and_pad": lambda t: t.nn.functional.pad(t.tensor(X), (-1, 2, 1, -2), value=7.0),
}


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_accepted_neighbours_match_pytorch(name: str) -> None:
    with np.errstate(divide="ignore", invalid="ignore"):
        want, got = (ACCEPTED[name](lib) for lib in (real_torch, ftorch))
    assert tuple(got.shape) == tuple(want.shape)
    assert str(got.dtype) == str(want.dtype)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
