"""Set routines with NaNs and ``assume_unique`` against NumPy (one NaN in a
union, a difference, a symmetric difference, as NumPy's ``equal_nan`` unique),
eagerly and under ``jit`` with ``size=``; ``in1d`` (NumPy's before 2.4)."""

import numpy as np
import pytest

import fad
import fad.numpy as fnp

nan = np.nan
A = np.array([3, 1, 2, 3, 1, 5, nan, nan])
B = np.array([1.0, 5.0, 7.0])
CASES = [(A, B), (B, A), (A, A), (np.array([nan]), np.array([1.0])), (B, B[:0]),
         (np.array([4.0, nan, 2.0, 4.0]), np.array([2.0, nan]))]
ROUTINES = ["union1d", "intersect1d", "setdiff1d", "setxor1d"]


@pytest.mark.parametrize("name", ROUTINES)
@pytest.mark.parametrize("case", range(len(CASES)))
def test_set_routines_with_nan_match_numpy(name, case):
    a, b = CASES[case]
    want = getattr(np, name)(a, b)
    if name == "setxor1d" and np.isnan(a).any() and np.isnan(b).any():
        # (NumPy keeps both arrays' NaNs; a NaN in both is not in exactly one of them)
        want = want[~np.isnan(want)]
    got = getattr(fnp, name)(a, b)
    np.testing.assert_array_equal(got, want)
    n = len(want) + 2
    padded = fad.jit(lambda a, b: getattr(fnp, name)(a, b, size=n, fill_value=-1.0))(a, b)
    np.testing.assert_array_equal(padded, np.concatenate([want, [-1.0, -1.0]]))


def test_assume_unique_keeps_the_order():
    for a, b in (([3, 1, 2], [1, 5, 7]), ([5.0, -1.0, 4.0, 0.5], [4.0])):
        want = np.setdiff1d(a, b, assume_unique=True)
        np.testing.assert_array_equal(fnp.setdiff1d(np.array(a), np.array(b),
                                                    assume_unique=True), want)
        got = fad.jit(lambda a: fnp.setdiff1d(a, np.array(b), assume_unique=True,
                                              size=len(want)))(np.array(a))
        np.testing.assert_array_equal(got, want)
    g = fad.grad(lambda a: fnp.sum(fnp.setdiff1d(a, B, assume_unique=True) ** 2))(
        np.array([3.0, 1.0, 2.0]))
    np.testing.assert_array_equal(g, [6.0, 0.0, 4.0])


def test_in1d_as_numpy():
    a = np.array([[1.0, 2.0], [3.0, nan]])
    for invert in (False, True):
        want = np.isin(a.ravel(), [2.0, 3.0, nan], invert=invert)  # (NumPy's in1d)
        np.testing.assert_array_equal(fnp.in1d(a, [2.0, 3.0, nan], invert=invert), want)
        np.testing.assert_array_equal(
            fad.jit(lambda a: fnp.in1d(a, np.array([2.0, 3.0, nan]), invert=invert))(a), want)
    assert fnp.in1d(np.arange(4), [1, 2], assume_unique=True).tolist() == [False, True, True,
                                                                           False]
    if hasattr(np, "in1d"):
        np.testing.assert_array_equal(fnp.in1d(a, [3.0]), np.in1d(a, [3.0]))
