"""The errors users hit: each names what went wrong and where."""

import re

import numpy as np
import pytest

import fad
import fad.numpy as fnp

X = np.array([1.0, 2.0, 3.0])


# ---------------------------------------------------------------- grad's contract
@pytest.mark.parametrize("f, match", [
    (lambda x: x * 2.0, r"scalar.*shape \(3,\)"),
    (lambda x: (fnp.sum(x), fnp.sum(x)), r"scalar"),
    (lambda x: fnp.sum(x > 1), r"int64.*integer"),
    (lambda x: fnp.argmax(x), r"int64.*integer"),
    (lambda x: fnp.any(x > 1), r"bool"),
], ids=["vector", "tuple", "int-sum", "argmax", "bool"])
def test_grad_needs_a_scalar_float_output(f, match):
    with pytest.raises(TypeError, match=match):
        fad.grad(f)(X)


@pytest.mark.parametrize("transform", [
    fad.grad, fad.jacfwd, fad.jacrev, fad.hessian,
    lambda f: lambda x: fad.vjp(f, x), lambda f: lambda x: fad.linearize(f, x),
], ids=["grad", "jacfwd", "jacrev", "hessian", "vjp", "linearize"])
@pytest.mark.parametrize("x", [np.arange(3), 3, True, np.array([True])],
                         ids=["int-array", "int", "bool", "bool-array"])
def test_differentiating_with_respect_to_an_integer_input(transform, x):
    with pytest.raises(TypeError, match=r"(int64|bool).*[Ii]nteger"):
        transform(lambda x: fnp.sum(x * 1.5))(x)


def test_integer_arguments_are_fine_when_not_differentiated():
    f = lambda x, n: fnp.sum(x ** n)
    np.testing.assert_array_equal(fad.grad(f)(X, 2), 2 * X)
    with pytest.raises(TypeError, match="(?i)integer"):
        fad.grad(f, argnums=(0, 1))(X, 2)
    # jvp accepts integer primals and gives them no tangent
    _, t = fad.jvp(f, (X, 2), (np.ones(3), 0))
    assert float(t) == pytest.approx(12.0)


# ---------------------------------------------------------------- shapes
def bad_add(x):
    return fnp.add(x, np.ones(4))


def bad_matmul(x):
    return fnp.matmul(x.reshape(1, 3), np.ones((2, 3)))


def bad_reshape(x):
    return fnp.reshape(x, (4,))


def bad_concat(x):
    return fnp.concatenate([x.reshape(1, 3), np.ones((1, 2))], axis=0)


SHAPE_ERRORS = [(bad_add, "add", ["3", "4"]), (bad_matmul, "matmul", ["1,3", "2,3"]),
                (bad_reshape, "reshape", ["3", "4"]), (bad_concat, "concatenate", ["1,3", "1,2"])]
CONTEXTS = {
    "eager": lambda f: f(X),
    "grad": lambda f: fad.grad(lambda x: fnp.sum(f(x)))(X),
    "jvp": lambda f: fad.jvp(f, (X,), (X,)),
    "vjp": lambda f: fad.vjp(f, X),
    "make_jaxpr": lambda f: fad.make_jaxpr(f)(X),
}


@pytest.mark.parametrize("context", list(CONTEXTS))
@pytest.mark.parametrize("f, prim, shapes", SHAPE_ERRORS, ids=[p for _, p, _ in SHAPE_ERRORS])
def test_shape_mismatch_names_primitive_shapes_and_line(f, prim, shapes, context):
    with pytest.raises(fad.ShapeError) as info:
        CONTEXTS[context](f)
    msg = str(info.value)
    assert isinstance(info.value, TypeError | ValueError)
    assert f"'{prim}'" in msg
    for shape in shapes:
        assert re.search(rf"[\[(]{shape.replace(',', ', ?')}[,)\]]", msg), (shape, msg)
    assert f"{__file__}:{f.__code__.co_firstlineno + 1}" in msg


# ---------------------------------------------------------------- leaked tracers
LEAKERS = {
    "grad": lambda f: fad.grad(f)(X),
    "jvp": lambda f: fad.jvp(f, (X,), (X,)),
    "vjp": lambda f: fad.vjp(f, X),
    "make_jaxpr": lambda f: fad.make_jaxpr(f)(X),
}


@pytest.mark.parametrize("use", [
    lambda t: t + 1, lambda t: fnp.sin(t), lambda t: t[0],
    lambda t: fad.grad(lambda y: fnp.sum(t * y))(X),
], ids=["operator", "function", "index", "inside-grad"])
@pytest.mark.parametrize("transform", list(LEAKERS))
def test_leaked_tracer_used_later(transform, use):
    box = []

    def leaky(x):
        box.append(x)
        return fnp.sum(x * 2)

    LEAKERS[transform](leaky)
    with pytest.raises(fad.UnexpectedTracerError) as info:
        use(box[0])
    msg = str(info.value)
    assert transform in msg and "leaky" in msg  # which transformation, of which function
    assert __file__ in msg  # where it was called


# ---------------------------------------------------------------- jvp / vjp arguments
@pytest.mark.parametrize("call, match", [
    (lambda: fad.jvp(fnp.sin, (X,), (np.ones(4),)), r"\(4,\).*\(3,\)"),
    (lambda: fad.jvp(lambda a, b: a * b, (X, X), (X,)), "structure"),
    (lambda: fad.jvp(fnp.sin, X, X), "tuple"),
    (lambda: fad.vjp(fnp.sin, X)[1](np.ones(4)), r"\(4,\).*\(3,\)"),
    (lambda: fad.vjp(fnp.sin, X)[1](np.ones((3, 1))), r"\(3, 1\).*\(3,\)"),
    (lambda: fad.vjp(lambda x: (x, x), X)[1](np.ones(3)), "structure"),
    (lambda: fad.grad(lambda x: fnp.sum(x), has_aux=True)(X), "aux"),
], ids=["jvp-shape", "jvp-structure", "jvp-not-tuple", "vjp-shape", "vjp-rank",
        "vjp-structure", "has_aux"])
def test_bad_transformation_arguments(call, match):
    with pytest.raises(TypeError, match=match):
        call()


def test_argnums_out_of_range():
    with pytest.raises(ValueError, match="argnums"):
        fad.grad(lambda x: fnp.sum(x), argnums=1)(X)


def test_singular_matrices_raise_numpys_linalg_error():
    """A singular matrix is NumPy's LinAlgError (not a shape error), with the
    primitive and the caller's line; so is the unbounded derivative of slogdet."""
    a = np.array([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(np.linalg.LinAlgError, match=r"primitive 'inv'.*test_errors.py"):
        fnp.linalg.inv(a)
    with pytest.raises(np.linalg.LinAlgError, match="Singular"):
        fad.grad(lambda a: fnp.linalg.slogdet(a)[1])(a)
