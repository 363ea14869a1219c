"""The operator table's laws on ``array_api_strict``, the Array API standard's
reference namespace (no extension beyond the standard, no implicit conversion).

The same law functions as ``tests/primitives/test_properties.py`` (they live in
``operator_table.py``), with every input moved to ``array_api_strict``: values
against NumPy, derivatives to second order forward and reverse against finite
differences, ``jvp`` against ``vjp``, symmetric Hessians, dtypes kept, 0-d and
empty inputs, ``jit`` against eager and ``vmap`` against a loop; every result
must stay an ``array_api_strict`` array. Rows the standard does not define (or
that fad cannot run there yet) are in ``NOT_ON_STRICT``, each with its reason.
Fewer examples per law than the NumPy run (``STRICT_EXAMPLES``) keep CI time low.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from operator_table import (
    BY_NAME,
    OPS,
    check_grads_law,
    dtype_law,
    empty_law,
    examples,
    hessian_symmetric_law,
    jit_law,
    jvp_vjp_law,
    ops_with,
    values_law,
    vmap_law,
    zero_dim_law,
)

import fad

xp = pytest.importorskip("array_api_strict")

STRICT_EXAMPLES = 2
COMPLEX = np.complex128

# The rows that do not run on array_api_strict, each with its reason. A reason
# starting "complex128:" drops the row's complex run only.
_SPECIAL = "special functions are not in the standard (fad raises NotImplementedError)"
_ARRAY_INDEX = ("the row indexes with NumPy index arrays; on a concrete input that is "
                "array_api_strict's own __getitem__, which takes its own arrays only")
_SCATTER = ("under vmap, a NumPy cotangent reaches the scatter_add of the derivative's "
            "diagonal (backends mixed); the other laws pass")
_ORDER = "complex128: the standard orders real numbers only (max, min, sort, >)"
NOT_ON_STRICT: dict[str, str] = {
    "cbrt": "not in the standard (fad raises NotImplementedError: no cbrt)",
    "logaddexp2": "not in the standard (fad raises NotImplementedError: no logaddexp2)",
    **dict.fromkeys(["erf", "erfc", "erfinv", "gammaln", "digamma", "polygamma"], _SPECIAL),
    "getitem_basic": ("an index that leaves axes out: on a concrete input (the finite "
                      "differences) that is array_api_strict's own __getitem__, which "
                      "wants a trailing ellipsis"),
    **dict.fromkeys(["getitem_int_array", "getitem_mask"], _ARRAY_INDEX),
    "lstsq": "fad.numpy's lstsq multiplies array_api_strict arrays by a NumPy scalar (rcond)",
    "quantile": "fad.numpy's quantile selects with a NumPy condition (backends mixed)",
    "matrix_power": ("n = 0: fad.numpy's matrix_power returns NumPy's identity (its "
                     "tangent is NumPy's zeros) whatever the input's backend"),
    "median": ("fad.numpy's median calls isnan on a bool array, which the standard "
               "defines for numeric dtypes only"),
    "methods": "the row uses x.T on 1-d and 0-d arrays; the standard defines .T for 2-d only",
    "prod_with_zero": "the row calls the NumPy method .reshape, which the standard lacks",
    **dict.fromkeys(["maximum", "minimum", "sort", "partition", "ptp", "clip",
                     "clip_arrays", "where"], _ORDER),
}

@pytest.fixture(autouse=True)
def strict_default_backend():
    """Constants fad makes without an array to follow (a gradient's seed inside
    ``vmap``, a ``jit`` trace's literals) come from the default backend."""
    fad.set_backend("array_api_strict")
    yield
    fad.set_backend("numpy")


SKIPPED = {name for name, why in NOT_ON_STRICT.items() if not why.startswith("complex128:")}
REAL_ON_STRICT = {name for name, why in NOT_ON_STRICT.items() if why.startswith("complex128:")}
STRICT_OPS = [op for op in OPS if op.name not in SKIPPED]
strict_settings = settings(max_examples=STRICT_EXAMPLES)
dtypes = pytest.mark.parametrize("dtype", (np.float32, np.float64),
                                 ids=lambda d: np.dtype(d).name)


def rows(kind: str = "any", complex_: bool = False) -> pytest.MarkDecorator:
    ops = [op for op in ops_with(kind) if op.name not in SKIPPED
           and not (complex_ and (op.real_only or op.name in REAL_ON_STRICT))]
    return pytest.mark.parametrize("op", ops, ids=str)


def draw(data, op, dtype, kind="any"):
    return data.draw(examples(op, dtype, kind)).on(xp)


@dtypes
@rows()
@strict_settings
@given(data=st.data())
def test_values_match_numpy(op, dtype, data):
    values_law(draw(data, op, dtype), dtype)


@dtypes
@rows()
@strict_settings
@given(data=st.data())
def test_dtype_preserved(op, dtype, data):
    dtype_law(draw(data, op, dtype), dtype)


@rows()
@strict_settings
@given(data=st.data())
def test_check_grads_order_2(op, data):
    check_grads_law(draw(data, op, np.float64), np.float64)


@rows()
@strict_settings
@given(data=st.data())
def test_jvp_vjp_agree(op, data):
    jvp_vjp_law(draw(data, op, np.float64), np.float64)


@rows()
@settings(max_examples=1)
@given(data=st.data())
def test_hessian_symmetric(op, data):
    hessian_symmetric_law(draw(data, op, np.float64), np.float64)


@rows()
@settings(max_examples=1)
@given(data=st.data())
def test_jit_matches_eager(op, data):
    jit_law(draw(data, op, np.float64), np.float64)


@rows()
@settings(max_examples=1)
@given(data=st.data())
def test_vmap_matches_a_loop(op, data):
    vmap_law(draw(data, op, np.float64), np.float64)


@rows(complex_=True)
@settings(max_examples=1)
@given(data=st.data())
def test_complex128(op, data):
    ex = draw(data, op, COMPLEX)
    values_law(ex, COMPLEX)
    jvp_vjp_law(ex, COMPLEX)


@rows("scalar")
@settings(max_examples=1)
@given(data=st.data())
def test_zero_dim(op, data):
    zero_dim_law(draw(data, op, np.float64, "scalar"), np.float64)


@rows("empty")
@settings(max_examples=1)
@given(data=st.data())
def test_empty(op, data):
    empty_law(draw(data, op, np.float64, "empty"), np.float64)


def test_the_opt_outs_are_rows_with_reasons():
    """Every name in ``NOT_ON_STRICT`` is a row of the table, and says why."""
    assert set(NOT_ON_STRICT) <= set(BY_NAME)
    assert all(len(why) > 10 for why in NOT_ON_STRICT.values())
    assert len(STRICT_OPS) + len(SKIPPED) == len(OPS)
