"""No derivative is lost in silence, and the API names the caller's mistake.

A Python number made from a value being differentiated (``float(x)``,
``math.sin(x)``, ``x.item()``...) carries no derivative: it is an error, not a
zero. Tangents and cotangents must match their values. A transformation given
a non-callable, a bad ``argnums`` or a ``None`` input says so at once.
"""

import math

import numpy as np
import pytest

import fad
import fad.numpy as fnp

X32 = np.array([0.5, 1.5], np.float32)


def _ones(x):
    return np.ones_like(np.asarray(x))


# every differentiating transformation, applied to a function of one array
TRANSFORMS = {
    "grad": lambda f: lambda x: fad.grad(lambda a: fnp.sum(f(a)))(x),
    "value_and_grad": lambda f: lambda x: fad.value_and_grad(lambda a: fnp.sum(f(a)))(x),
    "vjp": lambda f: lambda x: fad.vjp(f, x)[1](_ones(f(np.asarray(x)))),
    "jvp": lambda f: lambda x: fad.jvp(f, (x,), (_ones(x),)),
    "linearize": lambda f: lambda x: fad.linearize(f, x)[1](_ones(x)),
    "jacfwd": lambda f: fad.jacfwd(f),
    "jacrev": lambda f: fad.jacrev(f),
    "hessian": lambda f: fad.hessian(lambda a: fnp.sum(f(a))),
}

# conversions to Python (or plain NumPy) values of a 0-d float array
CONVERSIONS = {
    "float": lambda x: float(x) * x,
    "complex": lambda x: fnp.real(complex(x) * x),
    "math.sin": lambda x: math.sin(x) * x,
    "math.exp": lambda x: math.exp(x) + x,
    "item": lambda x: x.item() * x,
    "tolist": lambda x: x.tolist() * x,
    "np.float64": lambda x: np.float64(x) * x,
    "bool": lambda x: x * 2.0 if x else x,
}


# ---------------------------------------------------------------- A: no silent zeros
@pytest.mark.parametrize("transform", list(TRANSFORMS))
@pytest.mark.parametrize("conversion", list(CONVERSIONS))
def test_a_python_value_of_a_differentiated_float_is_an_error(conversion, transform):
    """A conversion to a plain number would make the derivative through it
    silently zero: it raises, naming the fix."""
    f = CONVERSIONS[conversion]
    with pytest.raises(fad.ConcretizationError) as info:
        TRANSFORMS[transform](f)(np.float64(0.7))
    msg = str(info.value)
    assert "f64[]" in msg and "silently be zero" in msg
    assert "fad.stop_gradient(x)" in msg
    assert "fnp.sin(x) for math.sin(x)" in msg or "fnp.dot for np.dot" in msg
    if conversion == "bool":
        assert "if x > 0:" in msg


def test_conversions_that_lose_no_derivative_still_work():
    """Comparisons, integer values, shapes, stop_gradient and no_grad values carry
    no derivative: converting them is fine, in reverse and forward mode."""
    def f(x):
        n = int(fnp.sum(x > 0.0))                     # an integer tracer (forward mode)
        scale = float(fad.stop_gradient(x[0]))        # a constant on purpose
        with fad.no_grad():
            c = float(x[1])                           # no_grad: a constant too
        y = x * scale * c
        for _ in range(n):                            # __index__ of an int
            y = y * 2.0 if x[0] > 0 else y            # control flow on a comparison
        return fnp.sum(y[: x.shape[0]])

    x = np.array([0.5, 1.5])
    want = 4 * 0.5 * 1.5 * np.ones(2)
    np.testing.assert_allclose(fad.grad(f)(x), want)
    np.testing.assert_allclose(fad.jvp(f, (x,), (np.ones(2),))[1], want.sum())
    np.testing.assert_allclose(fad.jacfwd(f)(x), want)
    # ... while the differentiated value itself refuses
    with pytest.raises(fad.ConcretizationError, match="silently be zero"):
        fad.grad(lambda x: float(x[0]) * fnp.sum(x))(x)


def test_no_grad_as_a_function_and_a_decorator_reads_values():
    @fad.no_grad
    def as_float(x):
        return float(x)

    got = fad.grad(lambda x: as_float(x) * x)(3.0)
    assert float(got) == 3.0
    with pytest.raises(fad.ConcretizationError):
        fad.grad(lambda x: float(x) * x)(3.0)


def test_under_jit_and_vmap_the_abstract_messages_stay():
    """Where the value is not known, the existing messages (structured control
    flow, per-example values) are kept; eagerly, the derivative message."""
    f = lambda x: float(x) * x
    with pytest.raises(fad.ConcretizationError, match="tracing abstractly"):
        fad.jit(fad.grad(f))(2.0)
    with pytest.raises(fad.ConcretizationError, match="each example has its own value"):
        fad.vmap(fad.grad(f))(np.ones(3))
    with pytest.raises(fad.ConcretizationError, match="silently be zero"):
        fad.grad(f)(2.0)


def test_a_nested_differentiation_is_seen_through_an_inner_constant():
    """grad around jvp: an integer's tangent is zero, so ``n * x`` inside the jvp
    has no inner tangent, but its primal is still differentiated by the grad."""
    def outer(x, convert):
        def inner(n):
            y = n * x
            return (float(y) if convert else y) * x
        return fad.jvp(inner, (np.int64(2),), (np.int64(0),))[0]

    with pytest.raises(fad.ConcretizationError, match="silently be zero"):
        fad.grad(lambda x: outer(x, True))(2.0)
    assert float(fad.grad(lambda x: outer(x, False))(2.0)) == 8.0


def test_the_facade_item_of_a_tensor_that_requires_grad_is_fine():
    """PyTorch's .item() and float() of a tensor that requires grad are allowed:
    only fad's tracers refuse."""
    import fad.torch as torch
    t = torch.tensor(2.0, requires_grad=True)
    loss = t * t
    assert loss.item() == 4.0 and float(loss) == 4.0
    loss.backward()
    assert t.grad.item() == 4.0
    with pytest.raises(fad.ConcretizationError):
        fad.grad(lambda x: x.item() * x)(2.0)


@pytest.mark.parametrize("argnums, want", [
    ((0, 0), (3.0, 3.0)),
    ((0, -2), (3.0, 3.0)),
    ((1, 0, 1), (2.0, 3.0, 2.0)),
    ((-1, 1), (2.0, 2.0)),
])
def test_repeated_and_negative_argnums_each_get_the_derivative(argnums, want):
    """A position named twice gets its derivative twice (the second copy was a
    silent zero), for grad, value_and_grad, jacrev, jacfwd and hessian."""
    f = lambda x, y: x * y
    for transform in (fad.grad, fad.jacrev, fad.jacfwd):
        got = transform(f, argnums=argnums)(2.0, 3.0)
        np.testing.assert_allclose(np.asarray(got, dtype=float), want)
    value, got = fad.value_and_grad(f, argnums=argnums)(2.0, 3.0)
    np.testing.assert_allclose(np.asarray(got, dtype=float), want)
    assert float(value) == 6.0


def test_hessian_with_repeated_argnums():
    f = lambda x, y: x ** 2 * y
    h = fad.hessian(f, argnums=(0, 0))(2.0, 3.0)
    np.testing.assert_allclose(np.asarray(h, dtype=float), [[6.0, 6.0], [6.0, 6.0]])


# ---------------------------------------------------------------- B: tangents checked
@pytest.mark.parametrize("check", ["jvp", "linearize"])
def test_a_tangent_of_another_dtype_is_an_error(check):
    f = lambda x: fnp.sin(x) * 2.0
    t64 = np.ones(2)
    run = {"jvp": lambda: fad.jvp(f, (X32,), (t64,)),
           "linearize": lambda: fad.linearize(f, X32)[1](t64)}[check]
    with pytest.raises(TypeError, match=r"tangent f64\[2\] for primals\[0\] f32\[2\]: .*"
                                        r"float32.*astype\('float32'\)"):
        run()


@pytest.mark.parametrize("check", ["jvp", "linearize"])
def test_a_tangent_of_another_shape_or_structure_is_an_error(check):
    f = lambda p: fnp.sum(p["w"]) * p["b"]
    p = {"w": np.ones(3), "b": np.float64(2.0)}
    bad_shape = {"w": np.ones(4), "b": np.float64(1.0)}
    bad_tree = {"w": np.ones(3)}
    call = {"jvp": lambda t: fad.jvp(f, (p,), (t,)),
            "linearize": lambda t: fad.linearize(f, p)[1](t)}[check]
    with pytest.raises(TypeError, match=r"tangent f64\[4\] for primals\[0\]\['w'\] "
                                        r"f64\[3\]: shapes \(4,\) and \(3,\) differ"):
        call(bad_shape)
    with pytest.raises(TypeError, match="structure of the primals"):
        call(bad_tree)


def test_integer_primals_take_zero_tangents_only():
    """An integer primal has no derivative: its tangent must be an integer (or
    boolean) zero; a float or nonzero tangent raises rather than being dropped."""
    f = lambda x, n: x * n
    x, n = np.float64(2.0), np.int64(3)
    y, t = fad.jvp(f, (x, n), (np.float64(1.0), np.int64(0)))
    assert float(y) == 6.0 and float(t) == 3.0
    y, t = fad.jvp(f, (x, n), (1.0, 0))                   # Python scalars are weak
    assert float(t) == 3.0
    for bad in (np.float64(1.0), np.int64(1), 1.0):
        with pytest.raises(TypeError, match="int64 values have no derivative"):
            fad.jvp(f, (x, n), (np.float64(1.0), bad))


def test_python_scalar_tangents_take_the_primals_dtype():
    y, t = fad.jvp(lambda x: x * 3.0, (np.float32(2.0),), (1.0,))
    assert t.dtype == np.float32 and float(t) == 3.0
    lin = fad.linearize(lambda x: x * 3.0, np.float32(2.0))[1]
    assert lin(1.0).dtype == np.float32
    with pytest.raises(TypeError, match="cast it with"):
        fad.jvp(lambda x: x * 3.0, (np.float32(2.0),), (np.float64(1.0),))


def test_vjp_cotangents_are_checked_by_the_same_rule():
    out, f_vjp = fad.vjp(lambda x: (x * 2.0, fnp.argmax(x)), X32)
    g = f_vjp((np.ones(2, np.float32), np.int64(0)))
    np.testing.assert_allclose(g[0], [2.0, 2.0])
    with pytest.raises(TypeError, match=r"cotangent f64\[2\] for the output\[0\] f32\[2\]"):
        f_vjp((np.ones(2), np.int64(0)))
    with pytest.raises(TypeError, match="int64 values have no derivative"):
        f_vjp((np.ones(2, np.float32), np.int64(1)))


def _custom_with_bwd(bwd):
    @fad.custom_vjp
    def f(x, w):
        return x * w

    f.defvjp(lambda x, w: (x * w, (x, w)), bwd)
    return f


def test_a_custom_vjp_cotangent_of_the_wrong_shape_names_the_argument():
    f = _custom_with_bwd(lambda res, g: (g * res[1], fnp.ones(7)))
    with pytest.raises(TypeError, match=r"backward rule of f returned a cotangent f64\[7\] "
                                        r"for argument 1 \(w\) f64\[3\]"):
        fad.grad(lambda x, w: fnp.sum(f(x, w)), argnums=(0, 1))(np.ones(3), np.ones(3))


def test_a_custom_vjp_cotangent_of_another_float_dtype_is_cast():
    """The backward's float64 cotangent for a float32 argument becomes float32
    (the gradient keeps its argument's dtype); a complex cotangent for a real
    argument would lose its imaginary part: an error."""
    f = _custom_with_bwd(lambda res, g: ((g * res[1]).astype(np.float64),
                                         (g * res[0]).astype(np.float64)))
    gx, gw = fad.grad(lambda x, w: fnp.sum(f(x, w)), argnums=(0, 1))(X32, X32)
    assert gx.dtype == np.float32 and gw.dtype == np.float32
    np.testing.assert_allclose(gx, X32)
    bad = _custom_with_bwd(lambda res, g: (g * (1 + 1j), g))
    with pytest.raises(TypeError, match=r"cotangent c64\[2\] for argument 0 \(x\) f32\[2\]: "
                                        "a complex cotangent for a real value would lose"):
        fad.grad(lambda x, w: fnp.sum(bad(x, w)))(X32, X32)


# ---------------------------------------------------------------- C: the API's messages
@pytest.mark.parametrize("call, what", [
    (lambda f: fad.grad(f)(None), "fad.grad"),
    (lambda f: fad.value_and_grad(f)(None), "fad.grad"),
    (lambda f: fad.jacrev(f)(None), "fad.jacrev"),
    (lambda f: fad.jacfwd(f)(None), "fad.jacfwd"),
    (lambda f: fad.vjp(f, None), "fad.vjp"),
    (lambda f: fad.jvp(f, (None,), (None,)), "fad.jvp"),
    (lambda f: fad.linearize(f, None), "fad.linearize"),
], ids=["grad", "value_and_grad", "jacrev", "jacfwd", "vjp", "jvp", "linearize"])
def test_a_none_input_is_named(call, what):
    def loss(params):
        return fnp.sum(params)

    with pytest.raises(TypeError, match=rf"{what} of .*loss: argument 0 \(params\) is None.*"
                                        "float arrays"):
        call(loss)


def test_a_none_input_among_several_is_named_by_position():
    with pytest.raises(TypeError, match=r"argument 1 \(y\) is None"):
        fad.grad(lambda x, y: x * y, argnums=1)(2.0, None)


@pytest.mark.parametrize("argnums", ["0", 1.0, [0, "a"], True, None])
@pytest.mark.parametrize("transform", [fad.grad, fad.value_and_grad, fad.jacrev,
                                       fad.jacfwd, fad.hessian])
def test_argnums_of_the_wrong_type_fail_at_once(transform, argnums):
    with pytest.raises(TypeError, match=r"argnums must be an int or a tuple of ints, got "
                                        rf"{type(argnums).__name__}"):
        transform(lambda x: x, argnums=argnums)


def test_argnums_out_of_range_names_the_number_of_positional_arguments():
    with pytest.raises(ValueError, match=r"argnums=\(0, 2\) is out of range: fad.grad of "
                                         r".*called with 2 positional argument\(s\)"):
        fad.grad(lambda x, y: x * y, argnums=(0, 2))(1.0, 2.0)
    with pytest.raises(ValueError, match=r"called with 1 positional argument"):
        fad.jacrev(lambda x, y=1.0: x * y, argnums=-2)(1.0)


@pytest.mark.parametrize("name, make", [
    ("grad", lambda f: fad.grad(f)),
    ("value_and_grad", lambda f: fad.value_and_grad(f)),
    ("jacrev", lambda f: fad.jacrev(f)),
    ("jacfwd", lambda f: fad.jacfwd(f)),
    ("hessian", lambda f: fad.hessian(f)),
    ("jit", lambda f: fad.jit(f)),
    ("vmap", lambda f: fad.vmap(f)),
    ("checkpoint", lambda f: fad.checkpoint(f)),
    ("custom_vjp", lambda f: fad.custom_vjp(f)),
    ("custom_jvp", lambda f: fad.custom_jvp(f)),
    ("make_jaxpr", lambda f: fad.make_jaxpr(f)),
    ("jvp", lambda f: fad.jvp(f, (1.0,), (1.0,))),
    ("vjp", lambda f: fad.vjp(f, 1.0)),
    ("linearize", lambda f: fad.linearize(f, 1.0)),
])
@pytest.mark.parametrize("value", [3, "abc", None])
def test_a_non_callable_fails_at_the_transformation(name, make, value):
    with pytest.raises(TypeError, match=rf"fad.{name} expected a callable \(the function "
                                        rf"to transform\), got {type(value).__name__}: "
                                        + repr(value).replace("'", ".")):
        make(value)


# ---------------------------------------------------------------- D: deferred derivatives
def _write_everything(arrays):
    for a in arrays:
        a[...] = -3.0


@pytest.mark.parametrize("api", ["vjp", "linearize"])
def test_a_returned_derivative_function_keeps_the_values_of_its_call(api):
    """``vjp``'s and ``linearize``'s functions run later; writing into the input,
    an array the function closes over or the returned output in between does not
    change their result (JAX captures the values, PyTorch raises)."""
    c = np.array([1.0, 2.0, 3.0])
    x = np.array([0.5, 1.0, 1.5])
    f = lambda a: fnp.exp(a) * c + a * a
    want = np.exp(x) * c + 2 * x
    if api == "vjp":
        y, f_vjp = fad.vjp(f, x)
        run = lambda: f_vjp(np.ones(3))[0]
    else:
        y, f_jvp = fad.linearize(f, x)
        run = lambda: f_jvp(np.ones(3))
    np.testing.assert_allclose(run(), want)
    _write_everything([c, x, y])
    np.testing.assert_allclose(run(), want)


def test_vjp_aux_and_custom_rule_residuals_are_the_calls_values():
    @fad.custom_vjp
    def scale(x, w):
        return x * w

    scale.defvjp(lambda x, w: (x * w, (x, w)), lambda r, g: (g * r[1], g * r[0]))
    x, w = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    def f(x, w):
        e = fnp.exp(x)
        return e * scale(x, w), e  # the backward reads the aux

    y, f_vjp, aux = fad.vjp(f, x, w, has_aux=True)
    want = [g.copy() for g in f_vjp(np.ones(2))]
    _write_everything([x, w, y, aux])
    for got, expected in zip(f_vjp(np.ones(2)), want):
        np.testing.assert_allclose(got, expected)
    y2, _ = fad.vjp(lambda a: a, x)
    y2[0] = 7.0  # outputs stay the caller's to write into


def test_code_in_a_file_whose_name_starts_like_the_package_is_the_users():
    """A script ``fad_demo.py`` beside the ``fad`` package directory is the
    user's code, not fad's own: its ``math.sin(x)`` of a differentiated value is
    an error (not a silent zero derivative), and errors show its lines."""
    import os

    from fad.core.errors import FAD_DIR
    script = os.path.join(os.path.dirname(FAD_DIR.rstrip(os.sep)), "fad_demo.py")
    scope = {"fad": fad, "math": math}
    exec(compile("def f(x):\n    return math.sin(x) * x\n", script, "exec"), scope)
    with pytest.raises(fad.ConcretizationError, match="silently be zero"):
        fad.grad(scope["f"])(0.7)
    exec(compile("def g(x):\n    return fnp.sin(x) + fnp.ones(4)\n", script, "exec"),
         scope := {**scope, "fnp": fnp})
    with pytest.raises(fad.ShapeError, match="fad_demo.py:2"):  # the line is the user's
        fad.jit(scope["g"])(np.ones(3))


def test_vjp_of_a_custom_jvp_rule_reads_its_closure_at_the_call():
    """Reverse mode linearizes a ``custom_jvp`` rule; for ``vjp`` that happens at
    the call (as JAX does), so the rule sees the arrays it closes over then."""
    c = np.array([1.0, 2.0, 3.0])

    @fad.custom_jvp
    def scale(x):
        return x * c

    scale.defjvp(lambda p, t: (scale(*p), t[0] * c))
    x = np.ones(3)
    _, f_vjp = fad.vjp(lambda a: fnp.sum(fnp.sort(scale(a))), x)
    c[...] = 100.0
    np.testing.assert_allclose(f_vjp(1.0)[0], [1.0, 2.0, 3.0])
