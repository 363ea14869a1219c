"""The reverse-mode tape: a one-entry tape's shortcut vector-Jacobian product
(``entry_vjp``, which the facade uses for an operation that is one primitive)
gives exactly what the general ``tape_pullback`` gives, for every kind of entry."""

from __future__ import annotations

import numpy as np
import pytest

from fad.interpreters.tape import TapeEntry, entry_vjp, tape_pullback
from fad.primitives import contractions as C
from fad.primitives import elementwise as E
from fad.primitives import reductions as R

X = np.array([0.3, -1.2, 2.5])
Y = np.array([1.5, 0.7, -0.4])

ENTRIES = {  # name -> (primitive, params, operands, their input positions)
    "sin": (E.sin_p, {}, (X,), (0,)),
    "mul of two inputs": (E.mul_p, {}, (X, Y), (0, 1)),
    "mul of one input twice": (E.mul_p, {}, (X, X), (0, 0)),
    "mul by a constant": (E.mul_p, {}, (X, Y), (None, 0)),
    "sub (a lazily negated cotangent)": (E.sub_p, {}, (X, Y), (0, 1)),
    "sub of one input twice": (E.sub_p, {}, (X, X), (0, 0)),
    "sub of a broadcast input": (E.sub_p, {}, (X, Y[:1]), (None, 0)),
    "add, both broadcast": (E.add_p, {}, (X.reshape(3, 1), Y), (1, 0)),
    "pow (partials with two operands)": (E.pow_p, {}, (np.abs(X), Y), (0, 1)),
    "reduce_max (linearized)": (R.reduce_max_p, {"axes": (0,)}, (X,), (0,)),
    "matmul (a transpose rule)": (C.matmul_p, {}, (X.reshape(1, 3), Y.reshape(3, 1)), (0, 1)),
}


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_entry_vjp_matches_the_general_tape(name: str) -> None:
    prim, params, operands, nodes = ENTRIES[name]
    ans = prim.impl(*operands, **params)
    entry = TapeEntry(prim, params, operands, ans, nodes, -1)
    n = max(i for i in nodes if i is not None) + 1
    ct = np.linspace(0.5, 1.5, np.size(ans)).reshape(np.shape(ans))
    want = tape_pullback([entry], [-1], list(range(n)))([ct])
    vjp = entry_vjp(prim, params, nodes, n)
    got = vjp((*operands, ans), ct)
    assert len(got) == len(want) == n
    for g, w in zip(got, want):
        if w is None:
            assert g is None
        else:
            np.testing.assert_array_equal(g, w)
    again = vjp((*operands, ans), ct)  # callable again: nothing is consumed
    for g, w in zip(again, want):
        if w is not None:
            np.testing.assert_array_equal(g, w)
