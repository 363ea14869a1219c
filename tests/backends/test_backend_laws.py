"""The operator table's laws on another backend than NumPy: by default
``array_api_strict``, the Array API standard's reference namespace (no
extension beyond the standard, no implicit conversion); with
``FAD_TEST_BACKEND=cupy``, CuPy's arrays on the GPU.

The same law functions as ``tests/primitives/test_properties.py`` (they live in
``operator_table.py``), with every input moved to the chosen backend: values
against NumPy, derivatives to second order forward and reverse against finite
differences, ``jvp`` against ``vjp``, symmetric Hessians, dtypes kept, 0-d and
empty inputs, ``jit`` against eager and ``vmap`` against a loop; every result
must stay an array of that backend. ``tests/law_backends.py`` holds the
backends and, for each, the rows it opts out of with the reason. A backend that
cannot run here (CuPy not installed, no CUDA device) skips this whole module
with that reason; an unknown ``FAD_TEST_BACKEND`` is a usage error. Fewer
examples per law than the NumPy run (``BACKEND_EXAMPLES``) keep CI time low.

    FAD_TEST_BACKEND=cupy python -m pytest tests/backends/test_backend_laws.py
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from law_backends import chosen
from operator_table import (
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

BACKEND = chosen()
xp, _why_not = BACKEND.load()
# Every test is collected, then skipped with the reason (a pytest run stays a success).
pytestmark = [pytest.mark.skipif(xp is None,
                                 reason=f"FAD_TEST_BACKEND={BACKEND.name}: {_why_not}")]

BACKEND_EXAMPLES = 2
COMPLEX = np.complex128


@pytest.fixture(autouse=True)
def backend_by_default():
    """Constants fad makes without an array to follow (a gradient's seed inside
    ``vmap``, a ``jit`` trace's literals) come from the default backend."""
    fad.set_backend(BACKEND.name)
    yield
    fad.set_backend("numpy")


SKIPPED = BACKEND.skipped()
REAL_ONLY = BACKEND.real_only()
backend_settings = settings(max_examples=BACKEND_EXAMPLES)
dtypes = pytest.mark.parametrize("dtype", (np.float32, np.float64),
                                 ids=lambda d: np.dtype(d).name)


def rows(kind: str = "any", complex_: bool = False) -> pytest.MarkDecorator:
    ops = [op for op in ops_with(kind) if op.name not in SKIPPED
           and not (complex_ and (op.real_only or op.name in REAL_ONLY))]
    return pytest.mark.parametrize("op", ops, ids=str)


def draw(data, op, dtype, kind="any"):
    return data.draw(examples(op, dtype, kind)).on(xp)


@dtypes
@rows()
@backend_settings
@given(data=st.data())
def test_values_match_numpy(op, dtype, data):
    values_law(draw(data, op, dtype), dtype)


@dtypes
@rows()
@backend_settings
@given(data=st.data())
def test_dtype_preserved(op, dtype, data):
    dtype_law(draw(data, op, dtype), dtype)


@rows()
@backend_settings
@given(data=st.data())
def test_check_grads_order_2(op, data):
    check_grads_law(draw(data, op, np.float64), np.float64)


@rows()
@backend_settings
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
