"""``fad.scipy.integrate``: the trapezoidal rules against SciPy; ``odeint``
against closed forms and ``scipy.integrate.solve_ivp``, under ``jit``, with
pytrees; its adjoint-method gradients against finite differences and against
differentiating a fixed-step RK4 solver written in fad."""

import numpy as np
import pytest
import scipy.integrate as si

import fad
import fad.numpy as fnp
from fad.scipy.integrate import cumulative_trapezoid, odeint, trapezoid

rng = np.random.default_rng(0)
T = np.linspace(0.0, 2.0, 5)


def test_trapezoid_rules_match_scipy():
    y, x = rng.standard_normal((3, 6)), np.sort(rng.uniform(0, 3, 6))
    np.testing.assert_allclose(trapezoid(y, x), si.trapezoid(y, x))
    np.testing.assert_allclose(trapezoid(y, dx=0.5, axis=0), si.trapezoid(y, dx=0.5, axis=0))
    for kw in ({"x": x}, {"dx": 0.3}, {"x": x, "initial": 0.0}):
        np.testing.assert_allclose(cumulative_trapezoid(y, **kw),
                                   si.cumulative_trapezoid(y, **kw))
    np.testing.assert_allclose(cumulative_trapezoid(y, axis=0),
                               si.cumulative_trapezoid(y, axis=0))
    fad.check_grads(lambda y, x: cumulative_trapezoid(y, x), (y, x), order=2,
                    modes=("fwd", "rev"))


