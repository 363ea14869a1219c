"""Caches never keep user data alive; jit's per-function cache is bounded and
explains re-tracing; arrays a staged program closes over are captured at trace
time, on every path (JAX's rule)."""

import gc
import tracemalloc
import warnings
import weakref

import numpy as np
import pytest

import fad
import fad.numpy as fnp

N = 1 << 17  # elements of the closed-over arrays: 1 MiB of float64


class Tracked(np.ndarray):
    """An ndarray subclass: a weak reference to one shows whether the user's own
    object is still alive (a copy made by a program is a plain ndarray)."""


def _tracked(n: int = N) -> Tracked:
    return np.linspace(0.5, 1.5, n).view(Tracked)


def _assert_freed(build):
    """``build()`` makes and uses functions closing over arrays and returns weak
    references (to the arrays, the functions): once it returns and the garbage
    collector has run, all must be dead and the memory it allocated released."""
    build()  # warm up what is kept on purpose (pytree structures, signatures)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        refs = build()
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    alive = [type(r()).__name__ for r in refs if r() is not None]
    assert not alive, f"still alive: {alive}"
    assert kept < N * 8 // 4, f"{kept} bytes kept after everything was dropped"


# ---------------------------------------------------------------- caches free user data
def test_jit_under_grad_jvp_vmap_frees_its_closure():
    def build():
        c = _tracked()
        f = fad.jit(lambda a: fnp.sum(fnp.sin(a * c)))
        x = np.ones(N)
        f(x)
        fad.grad(f)(x)
        fad.jvp(f, (x,), (x,))
        fad.vmap(f)(np.ones((2, N)))
        fad.grad(lambda a: fad.jit(lambda b: fnp.sum(b * c))(a))(x)
        return [weakref.ref(c), weakref.ref(f)]
    _assert_freed(build)


def test_control_flow_bodies_free_their_closure():
    def build():
        c = _tracked()

        def body(x):
            y = fad.lax.cond(x[0] > 0, lambda y: y * c, lambda y: y - c, x)
            y = fad.lax.scan(lambda cr, xi: (cr * c + xi, cr), y, fnp.ones((2, 1)))[0]
            return fnp.sum(y * y)
        x = np.ones(N)
        f = fad.jit(body)
        f(x)
        fad.grad(f)(x)
        fad.jvp(f, (x,), (x,))
        fad.jit(fad.grad(body))(x)
        loop = fad.jit(lambda x: fad.lax.while_loop(lambda v: v[0] < 3.0, lambda v: v + c, x))
        loop(x)
        fad.jvp(loop, (x,), (x,))
        fad.vmap(loop)(np.ones((2, N)))
        return [weakref.ref(c), weakref.ref(f)]
    _assert_freed(build)


def test_eager_cond_frees_the_objects_its_branches_close_over():
    """An eager ``cond`` remembers that its branches agree in type (so a loop of
    conds traces the branch not taken once), but not by holding what they close
    over: an object used by a branch dies with the caller."""
    class Model:
        def __init__(self):
            self.w = _tracked()

    def build():
        model = Model()
        x = np.ones(N)
        fad.lax.cond(x[0] > 0, lambda y: y * model.w, lambda y: y - model.w, x)
        fad.grad(lambda a: fnp.sum(fad.lax.cond(a[0] > 0, lambda y: y * model.w,
                                                lambda y: y - model.w, a)))(x)
        return [weakref.ref(model), weakref.ref(model.w)]
    _assert_freed(build)


def test_custom_rules_and_checkpoint_free_their_closure():
    def build():
        c = _tracked()
        rules = _custom_functions(c)
        f, g, h = rules["custom_jvp"], rules["custom_vjp"], rules["checkpoint"]

        def loss(x):
            return fnp.sum(f(x) + g(x) + h(x))
        x = np.ones(N)
        j = fad.jit(loss)
        j(x)
        fad.grad(j)(x)
        fad.jit(fad.grad(loss))(x)
        fad.jit(fad.vmap(loss))(np.ones((2, N)))
        fad.grad(loss)(x)
        return [weakref.ref(c), weakref.ref(f), weakref.ref(g), weakref.ref(j)]
    _assert_freed(build)


# ---------------------------------------------------------------- bounded, explained retracing
def _traces_warnings(fn, calls):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for args in calls:
            fn(*args)
    return [w for w in caught if issubclass(w.category, fad.RetraceWarning)]


def test_retrace_warning_names_the_changed_shape_once():
    def loss(x):
        return fnp.sum(x * x)
    f = fad.jit(loss)
    caught = _traces_warnings(f, [(np.ones(n),) for n in range(1, 21)])
    assert f.trace_count == 20 and len(caught) == 1
    assert issubclass(fad.RetraceWarning, UserWarning)
    msg = str(caught[0].message)
    assert "loss has been traced 9 times" in msg
    assert "argument 0 (x) changed shape: f64[8] -> f64[9]" in msg
    assert "pad arrays to a few fixed shapes" in msg
    assert caught[0].filename == __file__  # points at the user's call


def test_retrace_warning_names_a_changed_static_value():
    f = fad.jit(lambda x, n: x * n, static_argnums=1)
    caught = _traces_warnings(f, [(np.ones(3), n) for n in range(1, 10)])
    assert len(caught) == 1
    msg = str(caught[0].message)
    assert "static argument 1 (n) changed: 8 (int) -> 9 (int)" in msg
    assert "do not mark it static" in msg


def test_retrace_warning_names_a_changed_dtype():
    f = fad.jit(lambda x: x * 2)
    calls = [(np.ones(k, np.float32),) for k in range(1, 9)] + [(np.ones(8),)]
    caught = _traces_warnings(f, calls)
    assert len(caught) == 1
    msg = str(caught[0].message)
    assert "argument 0 (x) changed dtype: f32[8] -> f64[8]" in msg
    assert "cast the arguments to one dtype" in msg


def test_retrace_warning_pytree_path_structure_and_python_scalars():
    f = fad.jit(lambda params, s: params["w"] * s)
    calls = [({"w": np.ones(k)}, 2.0) for k in range(1, 9)]
    msg = str(_traces_warnings(f, calls + [({"w": np.ones(8)}, 2)])[0].message)
    assert "argument 1 (s) changed: a Python float (traced as f64[]) -> a Python int " \
           "(traced as i64[])" in msg and "instead of Python numbers" in msg
    g = fad.jit(lambda params, s: params["w"] * s)
    msg = str(_traces_warnings(g, calls + [({"w": np.ones(9)}, 2.0)])[0].message)
    assert "argument 0 (params)['w'] changed shape: f64[8] -> f64[9]" in msg
    h = fad.jit(lambda params, s: params["w"] * s)
    msg = str(_traces_warnings(h, calls + [({"w": np.ones(8), "b": 1.0}, 2.0)])[0].message)
    assert "argument 0 (params) changed pytree structure" in msg
    assert "keep the structure of the arguments fixed" in msg


def test_retrace_warning_names_keyword_arguments(monkeypatch):
    monkeypatch.setattr("fad.jit_cache.RETRACE_WARNING_AFTER", 2)
    f = fad.jit(lambda x, **kw: x * kw["scale"])
    calls = [lambda: f(np.ones(2), scale=1.0), lambda: f(np.ones(3), scale=1.0),
             lambda: f(np.ones(3), scale=np.float32(1.0), extra=np.ones(1))]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for call in calls:
            call()
    (w,) = [w for w in caught if issubclass(w.category, fad.RetraceWarning)]
    msg = str(w.message)
    assert "keyword argument extra (f64[1]) is new" in msg
    assert "keyword argument scale changed: a Python float (traced as f64[]) -> f32[]" in msg


def test_retrace_warning_threshold_is_configurable(monkeypatch):
    monkeypatch.setattr("fad.jit_cache.RETRACE_WARNING_AFTER", 2)
    f = fad.jit(lambda x: x + 1.0)
    assert len(_traces_warnings(f, [(np.ones(1),), (np.ones(2),)])) == 0
    caught = _traces_warnings(f, [(np.ones(3),)])
    assert len(caught) == 1 and "traced 3 times" in str(caught[0].message)


def test_retrace_warning_for_a_closure_over_a_traced_value(monkeypatch):
    monkeypatch.setattr("fad.jit_cache.RETRACE_WARNING_AFTER", 3)
    holder = []
    scaled = fad.jit(lambda x: x * holder[0])

    def loss(w):
        holder[:] = [w]
        return fnp.sum(scaled(np.ones(3)))
    caught = _traces_warnings(fad.grad(loss), [(1.0,)] * 5)
    assert scaled.trace_count == 5 and len(caught) == 1
    assert "closes over a value traced by an enclosing transformation" in \
        str(caught[0].message)


def test_cache_is_bounded_least_recently_used_out(monkeypatch):
    monkeypatch.setattr("fad.jit_cache.MAX_ENTRIES", 3)
    monkeypatch.setattr("fad.jit_cache.RETRACE_WARNING_AFTER", 4)
    f = fad.jit(lambda x: x * 2.0)
    a, b, c, d = (np.ones(n) for n in (1, 2, 3, 4))
    for x in (a, b, c, a, a):  # a is used last (through the fast path)
        f(x)
    assert f.trace_count == 3
    f(d)  # evicts b, the least recently used
    assert f.trace_count == 4 and len(f._cache) == 3
    f(a), f(c), f(d)
    assert f.trace_count == 4
    caught = _traces_warnings(f, [(b,)])
    assert f.trace_count == 5 and len(f._cache) == 3
    assert "repeats an earlier signature whose program was evicted" in str(caught[0].message)
    np.testing.assert_array_equal(f(b), 2.0 * b)


def test_cache_holds_at_most_64_signatures_by_default():
    f = fad.jit(lambda x: x * 2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fad.RetraceWarning)
        for n in range(1, 101):
            f(np.ones(n))
    assert fad.jit_cache.MAX_ENTRIES == 64 and len(f._cache) == 64
    assert len(f._fast) == 64


# ---------------------------------------------------------------- captured at trace time
def _mutated(c):
    c[...] = -7.0


def test_plain_and_folded_closures_are_captured_at_trace_time():
    c = np.arange(3.0)
    x = np.ones(3)
    plain, folded = fad.jit(lambda a: a + c), fad.jit(lambda a: a + c * 2.0)
    const_out = fad.jit(lambda a: c)
    before = [plain(x), folded(x), const_out(x)]
    _mutated(c)
    np.testing.assert_array_equal(plain(x), before[0])
    np.testing.assert_array_equal(folded(x), before[1])
    np.testing.assert_array_equal(const_out(x), before[2])
    np.testing.assert_array_equal((lambda a: a + c)(x), x - 7.0)  # un-jitted: live
    out = const_out(x)
    out[0] = 100.0  # outputs are the caller's to write into
    np.testing.assert_array_equal(const_out(x), before[2])
    closed = plain.lower(x)
    assert all(k is not c and not k.flags.writeable for k in closed.consts)


def test_outputs_are_the_callers_never_a_program_constant():
    c = np.arange(3.0)
    x = np.ones(3)
    picks = fad.jit(lambda x: fad.lax.cond(x[0] > 0, lambda y: c, lambda y: y, x))
    loops = fad.jit(lambda x: fad.lax.while_loop(lambda v: v[0] > 0.5, lambda v: v * x, c))
    for f in (picks, loops):
        out = f(x)
        assert out is not c
        out[...] = 99.0  # the caller may write into its result...
        np.testing.assert_array_equal(f(x), np.arange(3.0))  # ...without changing the program


def test_make_jaxpr_constants_are_captured_at_trace_time():
    c = np.arange(3.0)
    scalar = np.array(2.0)
    closed = fad.make_jaxpr(lambda a: a * c + scalar)(np.ones(3))
    _mutated(c)
    scalar[...] = 100.0
    from fad.interpreters.evaluate import eval_jaxpr
    np.testing.assert_array_equal(eval_jaxpr(closed.jaxpr, closed.consts, np.ones(3))[0],
                                  np.arange(3.0) + 2.0)
    with pytest.raises(ValueError):
        closed.consts[0][0] = 1.0  # the program's constants are read-only


@pytest.mark.parametrize("path", ["cond", "scan", "while_loop", "fori_loop"])
def test_control_flow_closures_are_captured_at_trace_time(path):
    c = np.arange(1.0, 4.0)
    bodies = {
        "cond": lambda x: fad.lax.cond(x[0] > 0, lambda y: y * c, lambda y: y - c, x),
        "scan": lambda x: fad.lax.scan(lambda cr, xi: (cr * c + xi, cr), x,
                                       fnp.ones((2, 3)))[0],
        "while_loop": lambda x: fad.lax.while_loop(lambda v: v[0] < 5.0,
                                                   lambda v: v + c, x),
        "fori_loop": lambda x: fad.lax.fori_loop(0, x[0].astype("int32"),
                                                 lambda i, v: v * c, x),
    }
    f = bodies[path]
    x = np.array([2.0, 1.0, 1.0])
    jitted = fad.jit(f)
    expected = jitted(x)
    grad_of_jit = fad.grad(lambda a: fnp.sum(jitted(a)))
    g_expected = grad_of_jit(x) if path != "while_loop" and path != "fori_loop" else None
    _mutated(c)
    c[0] = 1.5  # (keeps the loops finite)
    np.testing.assert_array_equal(jitted(x), expected)
    if g_expected is not None:
        np.testing.assert_array_equal(grad_of_jit(x), g_expected)
    assert not np.array_equal(f(x), expected)  # un-jitted: live


def _custom_functions(c):
    @fad.custom_jvp
    def f_jvp(x):
        return x * c
    f_jvp.defjvp(lambda p, t: (f_jvp(*p), t[0] * c))

    @fad.custom_vjp
    def f_vjp(x):
        return x * c
    f_vjp.defvjp(lambda x: (f_vjp(x), None), lambda r, ct: (ct * c,))
    return {"custom_jvp": f_jvp, "custom_vjp": f_vjp,
            "checkpoint": fad.checkpoint(lambda x: x * c)}


@pytest.mark.parametrize("kind", ["custom_jvp", "custom_vjp", "checkpoint"])
@pytest.mark.parametrize("wrap", ["jit", "jit_vmap", "jit_grad"])
def test_custom_rule_closures_under_jit_are_captured_at_trace_time(kind, wrap):
    c = np.arange(1.0, 4.0)
    f = _custom_functions(c)[kind]
    eager = {"jit": f, "jit_vmap": fad.vmap(f),
             "jit_grad": fad.grad(lambda a: fnp.sum(f(a)))}[wrap]
    jitted = fad.jit(eager)
    x = np.ones((2, 3)) if wrap == "jit_vmap" else np.ones(3)
    expected = jitted(x)
    np.testing.assert_array_equal(expected, eager(x))
    _mutated(c)
    np.testing.assert_array_equal(jitted(x), expected)
    np.testing.assert_array_equal(eager(x), -7.0 * np.ones_like(x))  # un-jitted: live


def test_jit_inside_grad_and_vmap_uses_trace_time_constants():
    c = np.arange(1.0, 4.0)
    scaled = fad.jit(lambda a: fnp.sin(a * c))
    x = np.ones(3)
    grad_f = fad.grad(lambda a: fnp.sum(scaled(a)))
    vmapped = fad.vmap(scaled)
    expected = grad_f(x), vmapped(np.ones((2, 3))), fad.jvp(scaled, (x,), (x,))[1]
    _mutated(c)
    np.testing.assert_array_equal(grad_f(x), expected[0])
    np.testing.assert_array_equal(vmapped(np.ones((2, 3))), expected[1])
    np.testing.assert_array_equal(fad.jvp(scaled, (x,), (x,))[1], expected[2])
    live = fad.grad(lambda a: fnp.sum(fnp.sin(a * c)))(x)
    np.testing.assert_allclose(live, -7.0 * np.cos(-7.0 * x))  # un-jitted: live


def test_derived_programs_share_the_constants_instead_of_copying():
    from fad.interpreters.staging import owned
    c = np.arange(1.0, 4.0)
    f = fad.jit(lambda a: fnp.sin(a * c))
    x = np.ones(3)
    (k,) = f.lower(x).consts
    assert k is not c and owned(k) is k  # a program-owned copy is never copied again
    outer = fad.make_jaxpr(lambda a: fad.jvp(f, (a,), (a,)))(x)
    jvp_bodies = [e.params["jaxpr"] for e in outer.eqns if e.primitive.name == "jit"]
    assert any(any(kk is k for kk in body.consts) for body in jvp_bodies)


def test_nested_programs_share_one_copy_of_a_closed_over_array():
    c = np.arange(1.0, 4.0)
    f = fad.jit(lambda x: fad.lax.cond(x[0] > 0, lambda y: y * c, lambda y: y - c, x) + c)
    closed = f.lower(np.ones(3))
    (k,) = closed.consts
    (branches,) = [e.params["branches"] for e in closed.eqns if e.primitive.name == "cond"]
    assert k is not c and all(b.consts[0] is k for b in branches)


def test_an_array_written_between_two_uses_in_one_trace_is_read_at_each_use():
    """A traced function that writes into an array it closes over between two
    uses: each use sees the value it had then, as eagerly (not the first value
    for both)."""
    buf = np.zeros(3)

    def f(x):
        buf[:] = 1.0
        y = x * buf
        buf[:] = 2.0
        return y + x * fnp.sin(buf)

    x = np.array([1.0, 2.0, 3.0])
    want = x + x * np.sin(2.0)
    np.testing.assert_allclose(f(x), want)
    np.testing.assert_allclose(fad.jit(f)(x), want)
    closed = fad.make_jaxpr(f)(x)
    assert sorted(float(k[0]) for k in closed.consts) == [1.0, 2.0]
    body = lambda c, _: (f(c), None)  # the same inside a control-flow body
    np.testing.assert_allclose(fad.jit(lambda x: fad.lax.scan(body, x, None, length=1)[0])(x),
                               want)
