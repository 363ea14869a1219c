"""Tensors, dtypes, indexing and reductions against PyTorch: each case runs
under the real ``torch`` and under ``fad.torch`` and must give the same values,
dtype, shape and ``requires_grad`` (and the same gradient of ``.sum()`` where it
is differentiable), or the same exception type and first line of its message
(skipped without torch)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
import fad.torch as ftorch  # noqa: E402

ERRORS: dict[str, Callable[[Any], Any]] = {
    # promotion and kernels PyTorch does not have
    "sub_bool_tensors": lambda t: t.tensor([1, 2]) - t.tensor([True, False]),
    "sub_bool_scalar": lambda t: t.tensor([1.0]) - True,
    "sub_two_bools": lambda t: t.tensor([True]) - True,
    "rsub_bool": lambda t: 1 - t.tensor([True]),
    "isub_bool": lambda t: t.tensor([True]).__isub__(t.tensor([True])),
    "alpha_float_on_ints": lambda t: t.tensor([1, 2]).add(2, alpha=2.5),
    "compare_complex_lt": lambda t: t.tensor([1, 2]) < 1j,
    "compare_complex_rge": lambda t: 1j >= t.tensor([1.0]),
    "abs_bool": lambda t: t.tensor([True]).abs(),
    "floor_bool": lambda t: t.floor(t.tensor([True])),
    "round_bool": lambda t: t.tensor([True]).round(),
    "round_complex": lambda t: t.tensor([1 + 1j]).round(),
    "sign_complex": lambda t: t.tensor([1 + 1j]).sign(),
    "clamp_complex": lambda t: t.tensor([1 + 1j]).clamp(0, 1),
    "floordiv_bools": lambda t: t.tensor([True]) // t.tensor([True]),
    "mod_bools": lambda t: t.tensor([True]) % True,
    "pow_bools": lambda t: t.tensor([True]) ** t.tensor([True]),
    "rpow_bools": lambda t: True ** t.tensor([True]),
    "lshift_float": lambda t: t.tensor([1, 2]) << 1.5,
    "rshift_bools": lambda t: t.tensor([True]) >> t.tensor([True]),
    "isclose_dtypes": lambda t: t.isclose(t.tensor([1]), t.tensor([1.0])),
    # indexing and assignment
    "negative_step": lambda t: t.arange(4.0)[::-1],
    "negative_step_setitem": lambda t: t.arange(4.0).__setitem__(slice(None, None, -2), 1.0),
    "setitem_dtype_index_array": lambda t: t.zeros(3).__setitem__([0, 1], t.tensor([7, 8])),
    "setitem_dtype_0d_index_array": lambda t: t.zeros(3).__setitem__([0, 1], t.tensor(7)),
    "setitem_dtype_mask": lambda t: t.zeros(3).__setitem__(t.tensor([True, False, True]),
                                                           t.tensor([7, 8])),
    "setitem_list_value": lambda t: t.zeros(2, 3).__setitem__(0, [1, 2, 3]),
    "setitem_uint8_overflow": lambda t: t.zeros(2, dtype=t.uint8).__setitem__(0, 256),
    "setitem_int8_overflow": lambda t: t.zeros(2, dtype=t.int8).__setitem__(0, -129),
    # creation
    "tensor_int8_overflow": lambda t: t.tensor([300, -1], dtype=t.int8),
    "tensor_uint8_negative_float": lambda t: t.tensor([1.7, -2.2], dtype=t.uint8),
    "tensor_uint8_too_large": lambda t: t.tensor([256], dtype=t.uint8),
    "tensor_int64_nan": lambda t: t.tensor(float("nan"), dtype=t.int64),
    "tensor_beyond_int64": lambda t: t.tensor(2 ** 63),
    "tensor_beyond_uint64": lambda t: t.tensor([2 ** 64]),
    "arange_wrong_sign": lambda t: t.arange(5, 0, 1),
    "arange_negative_end": lambda t: t.arange(-1),
    "arange_infinite": lambda t: t.arange(float("inf")),
    "arange_int_step_truncated_to_zero": lambda t: t.arange(0, 3, 0.5, dtype=t.int64),
    "linspace_negative_steps": lambda t: t.linspace(0, 1, -1),
    "eye_negative_n": lambda t: t.eye(-1),
    "eye_negative_m": lambda t: t.eye(2, -1),
    "rand_int64": lambda t: t.rand(2, dtype=t.int64),
    "randn_int64": lambda t: t.randn(2, dtype=t.int64),
    "randint_empty_range": lambda t: t.randint(5, 2, (3,)),
    "randint_zero_high": lambda t: t.randint(0, (3,)),
    # reductions
    "median_empty_dim": lambda t: t.zeros(0, 3).median(0),
    "mode_empty": lambda t: t.tensor([]).mode(),
    "kthvalue_out_of_range": lambda t: t.tensor([1.0, 2.0]).kthvalue(3, 0),
    "nanmean_of_ints": lambda t: t.tensor([1, 2]).nanmean(),
    "std_of_ints": lambda t: t.tensor([1, 2, 3]).std(),
    "var_of_ints_dim": lambda t: t.tensor([[1, 2, 3]]).var(1),
    "std_mean_of_ints": lambda t: t.std_mean(t.tensor([1, 2, 3])),
    "norm_of_ints": lambda t: t.tensor([1, 2]).norm(),
    "norm_of_ints_with_dtype": lambda t: t.tensor([1, 2]).norm(dtype=t.float64),
    "argmax_of_bools": lambda t: t.tensor([True, False]).argmax(),
    "argmin_of_bools_dim": lambda t: t.tensor([[True, False]]).argmin(1),
    "topk_of_bools": lambda t: t.tensor([True, False]).topk(1),
    "take_float_index": lambda t: t.zeros(3).take(t.tensor([0.0])),
    "take_out_of_range": lambda t: t.zeros(2, 2).take(t.tensor([4])),
    "masked_scatter_int_mask": lambda t: t.zeros(2).masked_scatter(t.tensor([1, 0]),
                                                                 t.tensor([1.0])),
    "masked_scatter_short_source": lambda t: t.zeros(2).masked_scatter(
        t.tensor([True, True]), t.tensor([1.0])),
    "getitem_int_out_of_range": lambda t: t.zeros(2, 3)[2],
    "getitem_negative_out_of_range": lambda t: t.zeros(2, 3)[-3],
    "getitem_tensor_out_of_range": lambda t: t.zeros(2, 3)[t.tensor([3])],
    "masked_fill_1d_value": lambda t: t.zeros(3).masked_fill(t.tensor([True, False, True]),
                                                             t.tensor([1.0])),
    "index_select_2d_index": lambda t: t.zeros(3).index_select(0, t.tensor([[0]])),
    "index_select_list": lambda t: t.zeros(3).index_select(0, [0]),
    "take_along_dim_int32": lambda t: t.zeros(2, 3).take_along_dim(
        t.tensor([[0]], dtype=t.int32), dim=1),
    "take_along_dim_ndim": lambda t: t.zeros(2, 3).take_along_dim(t.tensor([0]), dim=1),
    "take_along_dim_broadcast": lambda t: t.take_along_dim(t.zeros(2, 3),
                                                           t.tensor([[0, 1]]), dim=0),
}

VALUES: dict[str, Callable[[Any], Any]] = {
    "compare_uint8_wraps_negative": lambda t: t.tensor([250, 3], dtype=t.uint8) < -1,
    "compare_uint8_wraps_large": lambda t: t.tensor([250, 3], dtype=t.uint8) < 300,
    "compare_int8_eq_wraps": lambda t: t.tensor([1, 2], dtype=t.int8) == 257,
    "compare_int32_wraps": lambda t: t.tensor([5], dtype=t.int32) < 2 ** 40,
    "compare_uint8_eq_wraps": lambda t: t.tensor([5, 3], dtype=t.uint8) == 261,
    "rsub_complex_scalar": lambda t: 1j - t.tensor([1, -2]),
    "rsub_complex_scalar_f64": lambda t: 1j - t.tensor([1.0], dtype=t.float64),
    "clamp_int_float_min": lambda t: t.tensor([1, -2, 3]).clamp(min=0.5),
    "clamp_min_int_float": lambda t: t.tensor([1, -2, 3]).clamp_min(0.5),
    "pow_bool_int": lambda t: t.tensor([True, False]) ** 2,
    "pow_bool_true": lambda t: t.tensor([True, False]) ** True,
    "square_bool": lambda t: t.tensor([True, False]).square(),
    "sgn_complex": lambda t: t.sgn(t.tensor([3j, -2.0])),
    "isclose_bools": lambda t: t.isclose(t.tensor([True, False]), t.tensor([True, True])),
    "floordiv_bool_int": lambda t: t.tensor([True, False]) // 2,
    "uint8_plus_large_int_wraps": lambda t: t.tensor([250, 3], dtype=t.uint8) + 300,
    "uint8_times_minus_one": lambda t: t.tensor([250, 3], dtype=t.uint8) * -1,
    "uint8_floordiv_minus_one": lambda t: t.tensor([250, 3], dtype=t.uint8) // -1,
    "rsub_uint8": lambda t: -1 - t.tensor([250, 3], dtype=t.uint8),
    "int8_and_large": lambda t: t.tensor([120, -128], dtype=t.int8) & 300,
    "rfloordiv_int8_large": lambda t: 300 // t.tensor([120, -128, 7], dtype=t.int8),
    "rmod_int8_large": lambda t: 300 % t.tensor([120, -128, 7], dtype=t.int8),
    "lshift": lambda t: t.tensor([1, -2, 3]) << 2,
    "rshift_tensors": lambda t: t.tensor([8, -8, 3]) >> t.tensor([1, 2, 0]),
    "rlshift": lambda t: 2 << t.tensor([1, 3]),
    "lshift_int8_by_0d": lambda t: t.tensor([1, 3], dtype=t.int8) << t.tensor(2),
    "bitwise_left_shift": lambda t: t.bitwise_left_shift(t.tensor([1, 2], dtype=t.int32), 3),
    "can_cast_int8_uint8": lambda t: t.can_cast(t.int8, t.uint8),
    "can_cast_uint8_int8": lambda t: t.can_cast(t.uint8, t.int8),
    "can_cast_float_int": lambda t: t.can_cast(t.float32, t.int32),
    # indexing: integers select before index arrays, PyTorch's legacy index forms
    "int_ellipsis_index_tensor": lambda t: t.arange(24.0).reshape(2, 3, 4)[
        0, ..., t.tensor([1, 0])],
    "int_none_list": lambda t: t.arange(24.0).reshape(2, 3, 4)[1, None, [0, 2]],
    "int_between_lists": lambda t: t.arange(24.0).reshape(2, 3, 4)[[0, 1], 1, [1, 2]],
    "int_then_mask": lambda t: t.arange(24.0).reshape(2, 3, 4)[
        0, t.tensor([[True, False, True, False]] * 3)],
    "slice_int_list": lambda t: t.arange(24.0).reshape(2, 3, 4)[:, 1, [0, 3]],
    "list_of_lists_is_a_tuple": lambda t: t.arange(24.0).reshape(2, 3, 4)[[[0, 1]]],
    "uint8_index_is_a_mask": lambda t: t.arange(24.0).reshape(2, 3, 4)[
        t.tensor([0, 1], dtype=t.uint8)],
    "setitem_int_then_list": lambda t: _set(t.zeros(2, 3, 4), (0, slice(None), [0, 1]),
                                            t.arange(6.0).reshape(3, 2)),
    "setitem_repeated_index_last_wins": lambda t: _set(t.zeros(2, 3), [0, 0],
                                                       t.tensor([[7.0], [8.0]])),
    "setitem_uint8_negative_wraps": lambda t: _set(t.zeros(3, dtype=t.uint8), [0, 1], -1),
    "setitem_uint8_minus_255": lambda t: _set(t.zeros(3, dtype=t.uint8), 2, -255),
    "setitem_mask_0d_other_dtype": lambda t: _set(t.zeros(3), t.tensor([True, False, True]),
                                                  t.tensor(7)),
    "tensor_uint8_negative_int_wraps": lambda t: t.tensor([-1, 255], dtype=t.uint8),
    "tensor_uint8_truncates": lambda t: t.tensor([1.7, 254.2], dtype=t.uint8),
    "tensor_min_int64": lambda t: t.tensor(-2 ** 63),
    "full_complex": lambda t: t.full((2,), 1 + 2j),
    "arange_int_dtype_truncates_end": lambda t: t.arange(3.5, dtype=t.int64),
    "arange_int_dtype_truncates_step": lambda t: t.arange(0, 10, 3.5, dtype=t.int64),
    "arange_int_dtype_truncates_start": lambda t: t.arange(0.5, 3, dtype=t.int64),
    "arange_end_keyword": lambda t: t.arange(end=3),
    "arange_empty": lambda t: t.arange(1, 1, -1),
    "linspace_complex": lambda t: t.linspace(0j, 1, 3),
    "linspace_complex_dtype": lambda t: t.linspace(0, 1, 3, dtype=t.complex64),
    "randint_size_keyword": lambda t: t.randint(3, size=(2,)).shape,
    "all_uint8_is_uint8": lambda t: t.tensor([[1, 2], [0, 200]], dtype=t.uint8).all(),
    "any_uint8_dim_is_uint8": lambda t: t.tensor([[1, 2], [0, 200]], dtype=t.uint8).any(0),
    "all_empty_dims_tuple": lambda t: t.tensor([[1.0, 0.0], [2.0, 3.0]]).all(dim=()),
    "norm_float16": lambda t: t.tensor([[1.0, 5.0], [3.0, -1.0]], dtype=t.float16).norm(),
    "norm_float16_p1_dim": lambda t: t.tensor([[1.0, 5.0], [3.0, -1.0]],
                                              dtype=t.float16).norm(p=1, dim=0),
    "prod_int32_dtype": lambda t: t.tensor([[1, 2], [3, 4]]).prod(0, dtype=t.int32),
    "prod_int32_dtype_all": lambda t: t.tensor([[1, 2], [3, 4]]).prod(dtype=t.int32),
    "cumsum_int32_dtype": lambda t: t.tensor([[1, 2], [3, 4]]).cumsum(1, dtype=t.int32),
    "nansum_dtype": lambda t: t.tensor([[1.0, float("nan")], [2.0, 3.0]]).nansum(
        0, dtype=t.float64),
    "argsort_0d": lambda t: t.tensor(3.0).argsort(),
    # order statistics and running reductions
    "median_lower_of_two": lambda t: t.tensor([4.0, 1.0, 3.0, 2.0]).median(),
    "median_of_ints": lambda t: t.tensor([4, 1, 3, 2]).median(),
    "median_with_nan": lambda t: t.tensor([1.0, float("nan"), 3.0]).median(),
    "median_dim": lambda t: t.tensor([[1.0, 5.0, 2.0, 4.0], [3.0, -1.0, 0.0, 7.0]]).median(1),
    "median_dim_nan": lambda t: t.tensor([[1.0, float("nan"), 2.0], [3.0, 1.0, 0.0]]).median(
        1, keepdim=True),
    "nanmedian": lambda t: t.tensor([4.0, float("nan"), 1.0, 3.0]).nanmedian(),
    "nanmedian_dim": lambda t: t.tensor([[1.0, float("nan"), 2.0, 5.0], [3.0, 1.0, 0.0, 1.0]]
                                        ).nanmedian(1),
    "kthvalue": lambda t: t.tensor([[1.0, 5.0, 2.0], [3.0, -1.0, 0.0]]).kthvalue(2, 1),
    "mode": lambda t: t.tensor([[1, 3, 3, 1, 2], [2, 2, 0, 5, 5]]).mode(1),
    "msort": lambda t: t.msort(t.tensor([[3.0, 1.0], [1.0, 2.0], [2.0, 0.0]])),
    "aminmax": lambda t: t.aminmax(t.tensor([[3, 1], [4, 2]])),
    "aminmax_dim": lambda t: t.aminmax(t.tensor([[3, 1], [4, 2]]), dim=0, keepdim=True),
    "cummax_ties_latest": lambda t: t.tensor([1.0, 1.0, 0.0, 3.0, 3.0]).cummax(0),
    "cummin_ties_latest": lambda t: t.tensor([5.0, 1.0, 1.0, 2.0]).cummin(0),
    "cummax_nan": lambda t: t.tensor([1.0, float("nan"), 3.0, float("nan")]).cummax(0),
    "cummin_2d": lambda t: t.tensor([[3, 1, 2], [0, 4, -1]]).cummin(1),
    "cumprod_ints": lambda t: t.tensor([1, 2, 3], dtype=t.int8).cumprod(0),
    "cumprod_bools": lambda t: t.tensor([True, False]).cumprod(0),
    "nanmean": lambda t: t.tensor([[1.0, float("nan")], [3.0, 4.0]]).nanmean(0),
    "index_select_0d_index": lambda t: t.tensor([[1, 2], [3, 4]]).index_select(0, t.tensor(1)),
    "take": lambda t: t.take(t.tensor([[1, 2], [3, 4]]), t.tensor([[0, 3], [-1, 1]])),
    "masked_select_broadcast": lambda t: t.tensor([[1, 2], [3, 4]]).masked_select(
        t.tensor([True, False])),
    "argwhere": lambda t: t.tensor([[0, 2], [3, 0]]).argwhere(),
    "index_fill": lambda t: t.zeros(2, 3).index_fill(1, t.tensor([0, 2]), 1.5),
    "index_fill_": lambda t: t.zeros(2, 3).index_fill_(0, t.tensor([1]), -1.0),
    "index_copy": lambda t: t.zeros(3, 2).index_copy(0, t.tensor([2, 0]),
                                                     t.tensor([[1.0, 2.0], [3.0, 4.0]])),
    "masked_scatter": lambda t: t.zeros(2, 2).masked_scatter(
        t.tensor([[True, False], [True, True]]), t.tensor([7.0, 8.0, 9.0, 10.0])),
    "masked_scatter_broadcast_mask": lambda t: t.zeros(2, 2).masked_scatter(
        t.tensor([False, True]), t.tensor([7.0, 8.0, 9.0])),
    "take_along_dim_flat": lambda t: t.tensor([[1, 2, 3], [4, 5, 6]]).take_along_dim(
        t.tensor([3, 0])),
    "take_along_dim_broadcasts": lambda t: t.tensor([[1, 2, 3], [4, 5, 6]]).take_along_dim(
        t.tensor([[2]]), dim=-1),
    "nonzero_0d": lambda t: t.nonzero(t.tensor(2.0)),
    "nonzero_0d_zero": lambda t: t.nonzero(t.tensor(0.0)),
    "nonzero_0d_tuple": lambda t: t.nonzero(t.tensor(2.0), as_tuple=True),
    "where_0d": lambda t: t.where(t.tensor(0.0)),
    "index_put_repeated": lambda t: t.zeros(4).index_put_((t.tensor([0, 0]),),
                                                          t.tensor([1.0, 2.0])),
    "index_put_repeated_accumulate": lambda t: t.zeros(4).index_put_(
        (t.tensor([0, 0]),), t.tensor([1.0, 2.0]), accumulate=True),
}


def _set(x: Any, index: Any, value: Any) -> Any:
    x[index] = value
    return x


def test_float_sizes_are_refused() -> None:
    for make in (ftorch.zeros, ftorch.ones, ftorch.empty, ftorch.rand):
        with pytest.raises(TypeError, match="must be tuple of ints, not float"):
            make(2.5)


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else ""


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_same_error_as_pytorch(name: str) -> None:
    with pytest.raises(Exception) as expected:
        ERRORS[name](real_torch)
    with pytest.raises(Exception) as got:
        ERRORS[name](ftorch)
    assert type(got.value).__name__ == type(expected.value).__name__, got.value
    assert _first_line(got.value) == _first_line(expected.value)


def _plain(v: Any, mod: Any) -> Any:
    """A comparable form of a result: tensors become (dtype, shape, values,
    requires_grad), sequences their items' forms."""
    if isinstance(v, mod.Tensor):
        return (str(v.dtype).split(".")[-1], tuple(v.shape), np.array(v.detach().tolist()),
                v.requires_grad)
    if isinstance(v, mod.dtype):
        return str(v).split(".")[-1]
    if isinstance(v, tuple | list):
        return [_plain(i, mod) for i in v]
    return v


def _same(a: Any, b: Any) -> None:
    if isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    elif isinstance(a, tuple):
        assert a[0] == b[0] and a[1] == b[1] and a[3] == b[3], (a, b)
        np.testing.assert_allclose(b[2], a[2], rtol=1e-6, atol=1e-6, equal_nan=True)
    else:
        assert a == b


@pytest.mark.parametrize("name", sorted(VALUES))
def test_same_result_as_pytorch(name: str) -> None:
    _same(_plain(VALUES[name](real_torch), real_torch), _plain(VALUES[name](ftorch), ftorch))


def _grad_of_sum(fn: Callable[[Any, Any], Any], data: Any, mod: Any) -> tuple:
    x = mod.tensor(data, requires_grad=True)
    out = fn(mod, x)
    out.sum().backward()
    return _plain(out, mod), np.array(x.grad.tolist())


GRADS: dict[str, tuple[Callable[[Any, Any], Any], Any]] = {
    "clamp_float_of_float": (lambda t, x: x.clamp(min=0.5), [0.0, 1.0, 2.0]),
    "int_ellipsis_index_tensor": (lambda t, x: x[0, ..., t.tensor([2, 0, 2])],
                                  np.arange(24.0).reshape(2, 3, 4).tolist()),
    "norm_float16_grad": (lambda t, x: x.double().norm(p=3, dim=1), [[1.0, -2.0], [3.0, 0.5]]),
    "median_ties_share_gradient": (lambda t, x: x.median(), [[1.0, 2.0, 2.0], [3.0, 2.0, 0.0]]),
    "median_nan_gradient": (lambda t, x: x.median(), [1.0, float("nan"), float("nan")]),
    "median_dim_gradient": (lambda t, x: x.median(1).values, [[1.0, 2.0, 2.0], [3.0, 2.0, 0.0]]),
    "nanmedian_gradient": (lambda t, x: x.nanmedian(), [1.0, float("nan"), 3.0, 2.0]),
    "kthvalue_gradient": (lambda t, x: x.kthvalue(2, 1).values,
                          [[1.0, 5.0, 2.0], [3.0, -1.0, 0.0]]),
    "cummax_gradient": (lambda t, x: x.cummax(1).values, [[1.0, 0.0, 3.0], [2.0, 5.0, 4.0]]),
    "cumprod_gradient": (lambda t, x: x.cumprod(1), [[1.0, 2.0, 3.0], [-1.0, 0.5, 4.0]]),
    "cumprod_gradient_with_zero": (lambda t, x: x.cumprod(0), [2.0, 0.0, 3.0]),
    "logcumsumexp_gradient": (lambda t, x: x.logcumsumexp(0), [[1.0, 2.0], [3.0, -1.0]]),
    "nanmean_gradient": (lambda t, x: x.nanmean(1), [[1.0, float("nan")], [3.0, 4.0]]),
    "take_gradient": (lambda t, x: x.take(t.tensor([0, 3, 3])), [[1.0, 2.0], [3.0, 4.0]]),
    "masked_select_gradient": (lambda t, x: x.masked_select(x > 1.5), [[1.0, 2.0], [3.0, 4.0]]),
    "index_fill_gradient": (lambda t, x: x.index_fill(0, t.tensor([1]), 0.5) * x,
                            [[1.0, 2.0], [3.0, 4.0]]),
    "masked_scatter_gradient": (lambda t, x: t.ones(2, 2).masked_scatter(
        t.tensor([[True, False], [False, True]]), x * 2), [[1.0, 2.0], [3.0, 4.0]]),
    "take_along_dim_broadcasts": (lambda t, x: x.take_along_dim(t.tensor([[2], [0]]), dim=1),
                                  [[1.0, 2.0, 3.0]]),
    "setitem_int_then_list": (lambda t, x: _set(x * 1, (slice(None), 1, [0, 2]),
                                                x[:, 0, :2] ** 2),
                              np.arange(24.0).reshape(2, 3, 4).tolist()),
    # a position written twice keeps the last value; every value gets its position's
    # gradient (the weights tell the positions apart)
    "setitem_repeated_index": (lambda t, x: _set(t.zeros(3), t.tensor([0, 2, 0]), x * 1)
                               * t.tensor([5.0, 6.0, 7.0]), [1.0, 2.0, 3.0]),
    "setitem_repeated_rows": (lambda t, x: _set(t.zeros(2, 3), [1, 1], x * 1)
                              * t.arange(6.0).reshape(2, 3), [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
    "index_put_repeated": (lambda t, x: t.index_put(t.zeros(3), (t.tensor([2, 2]),), x)
                           * t.tensor([5.0, 6.0, 7.0]), [1.0, 2.0]),
    "index_copy_repeated": (lambda t, x: t.zeros(4, 2).index_copy(0, t.tensor([1, 3, 1]), x)
                            * t.arange(8.0).reshape(4, 2), [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_same_gradient_as_pytorch(name: str) -> None:
    fn, data = GRADS[name]
    (va, ga), (vb, gb) = _grad_of_sum(fn, data, real_torch), _grad_of_sum(fn, data, ftorch)
    _same(va, vb)
    np.testing.assert_allclose(gb, ga, rtol=1e-6, atol=1e-6)
