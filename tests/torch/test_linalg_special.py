"""``fad.torch.linalg`` and ``fad.torch.special`` against PyTorch: values, gradients
and result types."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import fad.torch as ftorch  # noqa: E402

TOL = dict(rtol=1e-10, atol=1e-12)
RNG = np.random.default_rng(0)
M = RNG.normal(size=(3, 3))
SPD = M @ M.T + 3 * np.eye(3)
LOPSIDED = SPD + np.triu(RNG.normal(size=(3, 3)), 1)  # SPD below the diagonal only
B = RNG.normal(size=(2, 3, 3))
V = RNG.normal(size=3)
R = RNG.normal(size=(4, 3))


def _np(t) -> np.ndarray:
    return np.asarray(t.detach().numpy() if isinstance(t, torch.Tensor) else t.tolist())


def _both(fn, *arrays):
    """``fn(lib, *tensors)`` in PyTorch and the facade: outputs and the gradients of
    the sum of the (floating) outputs."""
    res = []
    for lib in (torch, ftorch):
        ts = [lib.tensor(a, requires_grad=True) for a in arrays]
        out = fn(lib, *ts)
        outs = list(out) if isinstance(out, tuple) else [out]
        loss = sum((o * o).sum() for o in outs if o.is_floating_point() and o.requires_grad)
        grads = []
        if not isinstance(loss, int):
            loss.backward()
            grads = [t.grad for t in ts]
        res.append((out, outs, grads))
    return res


LINALG = {
    "det": (lambda m, a: m.linalg.det(a), [M]),
    "det_batch": (lambda m, a: m.linalg.det(a), [B]),
    "torch_det": (lambda m, a: m.det(a), [M]),
    "inv": (lambda m, a: m.linalg.inv(a), [M]),
    "inverse": (lambda m, a: m.inverse(a), [B]),
    "solve": (lambda m, a, b: m.linalg.solve(a, b), [M, V]),
    "solve_matrix": (lambda m, a, b: m.linalg.solve(a, b), [M, R.T]),
    "solve_batch_vec": (lambda m, a, b: m.linalg.solve(a, b), [B, B[:, 0]]),
    "solve_right": (lambda m, a, b: m.linalg.solve(a, b, left=False), [M, R]),
    "slogdet": (lambda m, a: m.linalg.slogdet(a), [M]),
    "cholesky": (lambda m, a: m.linalg.cholesky((a + a.T) / 2), [SPD]),
    # an input that is not symmetric: the value reads one triangle, the gradient is
    # the Hermitian one in both
    "cholesky_one_triangle": (lambda m, a: m.linalg.cholesky(a), [LOPSIDED]),
    "cholesky_upper_one_triangle": (lambda m, a: m.linalg.cholesky(a, upper=True),
                                    [LOPSIDED.T.copy()]),
    "eigh_one_triangle": (lambda m, a: (lambda w, v: (v * w ** 2) @ v.T)(*m.linalg.eigh(a)),
                          [LOPSIDED]),
    "eigh_upper_one_triangle": (lambda m, a: m.linalg.eigh(a, UPLO="U").eigenvalues,
                                [LOPSIDED.T.copy()]),
    "eigvalsh_one_triangle": (lambda m, a: m.linalg.eigvalsh(a), [LOPSIDED]),
    "cholesky_upper": (lambda m, a: m.linalg.cholesky((a + a.T) / 2, upper=True), [SPD]),
    "qr": (lambda m, a: m.linalg.qr(a), [R]),
    "qr_complete": (lambda m, a: m.linalg.qr(a, mode="complete")[1], [R.T.copy()]),
    "svdvals": (lambda m, a: m.linalg.svdvals(a), [R]),
    "svd_S": (lambda m, a: m.linalg.svd(a, full_matrices=False).S, [R]),
    "svd_recon": (lambda m, a: (lambda u, s, vh: (u * s) @ vh)(*m.linalg.svd(
        a, full_matrices=False)), [R]),
    "torch_svd_recon": (lambda m, a: (lambda u, s, v: (u * s) @ v.T)(*m.svd(a)), [R]),
    "eigvalsh": (lambda m, a: m.linalg.eigvalsh((a + a.T) / 2), [SPD]),
    "eigh_values": (lambda m, a: m.linalg.eigh((a + a.T) / 2).eigenvalues, [SPD]),
    "eigh_proj": (lambda m, a: (lambda w, v: (v * w) @ v.T)(*m.linalg.eigh((a + a.T) / 2)), [SPD]),
    "pinv": (lambda m, a: m.linalg.pinv(a), [R]),
    "lstsq": (lambda m, a, b: m.linalg.lstsq(a, b).solution, [R, R[:, :2]]),
    "norm": (lambda m, a: m.linalg.norm(a), [R]),
    "norm_dim": (lambda m, a: m.linalg.norm(a, dim=1), [R]),
    "norm_ord1": (lambda m, a: m.linalg.norm(a, ord=1), [R]),
    "norm_nuc": (lambda m, a: m.linalg.norm(a, ord="nuc"), [R]),
    "vector_norm_3": (lambda m, a: m.linalg.vector_norm(a, ord=3, dim=0, keepdim=True), [R]),
    "vector_norm_inf": (lambda m, a: m.linalg.vector_norm(a, ord=float("inf")), [R]),
    "matrix_norm_fro": (lambda m, a: m.linalg.matrix_norm(a), [B]),
    "matrix_norm_2": (lambda m, a: m.linalg.matrix_norm(a, ord=2), [M]),
    "matrix_norm_dims": (lambda m, a: m.linalg.matrix_norm(a, ord=-1, dim=(0, 2)), [B]),
    "cross": (lambda m, a, b: m.linalg.cross(a, b), [R[:, :3], R[::-1].copy()]),
    "vecdot": (lambda m, a, b: m.linalg.vecdot(a, b, dim=0), [R, R[::-1].copy()]),
    "multi_dot": (lambda m, a, b, c: m.linalg.multi_dot([a, b, c]), [R, M, V]),
    "matrix_power": (lambda m, a: m.linalg.matrix_power(a, 3), [M]),
    "matrix_power_0": (lambda m, a: m.matrix_power(a, 0) * a, [B]),
    "matrix_power_neg": (lambda m, a: a.matrix_power(-2), [SPD]),
    "matrix_exp": (lambda m, a: m.linalg.matrix_exp(a / 3), [M]),
    "matrix_exp_batch": (lambda m, a: m.matrix_exp(a / 3), [B]),
    "logdet": (lambda m, a: m.logdet(a), [SPD]),
    "logdet_negative": (lambda m, a: a.logdet().isnan(), [-M if np.linalg.det(M) > 0 else M]),
    "torch_slogdet": (lambda m, a: m.slogdet(a), [M]),
    "pinverse": (lambda m, a: m.pinverse(a), [R]),
}


@pytest.mark.parametrize("name", list(LINALG))
def test_linalg_values_and_gradients_match_pytorch(name: str) -> None:
    fn, arrays = LINALG[name]
    (tout, touts, tgrads), (fout, fouts, fgrads) = _both(fn, *arrays)
    assert len(touts) == len(fouts)
    for a, b in zip(fouts, touts):
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(_np(a), _np(b), **TOL)
    for a, b in zip(fgrads, tgrads):
        np.testing.assert_allclose(_np(a), _np(b), **TOL)


def test_linalg_result_types_match_pytorch() -> None:
    for name, fields in (("qr", ("Q", "R")), ("svd", ("U", "S", "Vh")),
                         ("eigh", ("eigenvalues", "eigenvectors")),
                         ("slogdet", ("sign", "logabsdet"))):
        arg = SPD if name == "eigh" else M
        t = getattr(torch.linalg, name)(torch.tensor(arg))
        f = getattr(ftorch.linalg, name)(ftorch.tensor(arg))
        assert f._fields == fields == tuple(type(t).__match_args__)
        assert type(f).__name__ == type(t).__name__
    r = ftorch.linalg.lstsq(ftorch.tensor(R), ftorch.tensor(R[:, :2]))
    assert r._fields == ("solution", "residuals", "rank", "singular_values")
    assert ftorch.svd(ftorch.tensor(R))._fields == ("U", "S", "V")
    assert type(ftorch.slogdet(ftorch.tensor(M))).__name__ == type(torch.slogdet(
        torch.tensor(M))).__name__ == "slogdet"
    assert int(ftorch.linalg.matrix_rank(ftorch.tensor(np.outer(V, V)))) == int(
        torch.linalg.matrix_rank(torch.tensor(np.outer(V, V))))


def test_linalg_errors() -> None:
    with pytest.raises(RuntimeError, match="Expected a floating point or complex tensor"):
        ftorch.linalg.inv(ftorch.tensor([[1, 2], [3, 4]]))
    with pytest.raises(RuntimeError, match="unrecognized mode"):
        ftorch.linalg.qr(ftorch.tensor(M), mode="economic")


X = np.array([0.1, 0.4, 0.7, 0.9])
SPECIAL = {
    "erf": lambda m, x: m.special.erf(x),
    "erfc": lambda m, x: m.special.erfc(x),
    "erfinv": lambda m, x: m.special.erfinv(x),
    "expit": lambda m, x: m.special.expit(x),
    "logit": lambda m, x: m.special.logit(x),
    "logit_eps": lambda m, x: m.special.logit(x, eps=0.2),
    "gammaln": lambda m, x: m.special.gammaln(x),
    "digamma": lambda m, x: m.special.digamma(x),
    "psi": lambda m, x: m.special.psi(x),
    "polygamma": lambda m, x: m.special.polygamma(2, x),
    "xlogy": lambda m, x: m.special.xlogy(x, x.flip(0)),
    "xlog1py": lambda m, x: m.special.xlog1py(x, x.flip(0)),
    "log_softmax": lambda m, x: m.special.log_softmax(x, 0),
    "softmax": lambda m, x: m.special.softmax(x, 0),
    "logsumexp": lambda m, x: m.special.logsumexp(x, 0),
    "log1p": lambda m, x: m.special.log1p(x),
    "expm1": lambda m, x: m.special.expm1(x),
    "exp2": lambda m, x: m.special.exp2(x),
    "sinc": lambda m, x: m.special.sinc(x),
    "round": lambda m, x: m.special.round(x * 10, decimals=1),
    "entr": lambda m, x: m.special.entr(x),
    "ndtr": lambda m, x: m.special.ndtr(x),
    "ndtri": lambda m, x: m.special.ndtri(x * 0.9),
    "log_ndtr": lambda m, x: m.special.log_ndtr(x * -8),
    "i0e": lambda m, x: m.special.i0e(x * 3),
    "i1": lambda m, x: m.special.i1(x * 3),
    "i1e": lambda m, x: m.special.i1e(x * 3),
    "igamma": lambda m, x: m.special.gammainc(x.detach() + 1, x),
    "igammac": lambda m, x: m.special.gammaincc(x.detach() + 1, x),
    "multigammaln": lambda m, x: m.special.multigammaln(x + 2, 3),
    "zeta": lambda m, x: m.special.zeta(x.detach() + 2, 1.5),
}


@pytest.mark.parametrize("name", list(SPECIAL))
def test_special_values_and_gradients_match_pytorch(name: str) -> None:
    (tout, _, tg), (fout, _, fg) = _both(SPECIAL[name], X)
    np.testing.assert_allclose(_np(fout), _np(tout), **TOL)
    # (PyTorch's polygamma(n >= 1) is accurate to ~1e-9 only; fad's agrees with
    # SciPy's and mpmath's to rounding)
    tol = dict(rtol=1e-8, atol=1e-12) if name in ("polygamma", "digamma", "psi") else TOL
    for a, b in zip(fg, tg):
        np.testing.assert_allclose(_np(a), _np(b), **tol)


def test_special_keeps_float32_and_promotes_integers() -> None:
    x32 = ftorch.tensor([0.5], dtype=ftorch.float32)
    assert ftorch.special.erf(x32).dtype is ftorch.float32
    assert str(ftorch.special.expit(ftorch.tensor([1, 2])).dtype) == str(
        torch.special.expit(torch.tensor([1, 2])).dtype)


def test_linalg_failures_raise_linalg_error() -> None:
    for fn, a in ((ftorch.linalg.inv, ftorch.zeros(2, 2)),
                  (ftorch.linalg.cholesky, -ftorch.eye(2))):
        with pytest.raises(ftorch.linalg.LinAlgError, match=f"linalg.{fn.__name__}: "):
            fn(a)
        with pytest.raises(RuntimeError):
            fn(a)


def test_linalg_edge_cases_match_pytorch() -> None:
    for lib in (torch, ftorch):
        assert tuple(lib.linalg.det(lib.zeros(0, 3, 3)).shape) == (0,)
        assert str(lib.linalg.inv(lib.eye(3)).dtype) == "torch.float32"
        assert float(lib.linalg.norm(lib.tensor(3.0))) == 3.0
    assert tuple(ftorch.linalg.norm(ftorch.ones(2, 3, 4), dim=(0, 2)).shape) == (3,)


def test_eig_values_and_gauge_invariant_gradients_match_pytorch() -> None:
    """``linalg.eig``/``eigvals`` (complex results): the eigenvalues, and the
    gradients of functions that do not depend on the eigenvectors' phases."""
    A = np.array([[2.0, 1.0, 0.3], [0.5, 3.0, 0.2], [0.1, 0.4, 1.0]])
    got = []
    for lib in (torch, ftorch):
        a = lib.tensor(A, requires_grad=True)
        w, v = lib.linalg.eig(a)
        assert type(w.grad_fn).__name__ == "LinalgEigBackward0" and w.is_complex()
        loss = ((w * w.conj()).real.sum() + (v.abs() ** 2 * lib.arange(3.0)).sum()
                + (w.real ** 3).sum())
        loss.backward()
        b = lib.tensor(A, requires_grad=True)
        lib.linalg.eigvals(b).real.sum().backward()
        got.append((np.sort_complex(_np(w)), _np(a.grad), _np(b.grad)))
    for x, y in zip(*got):
        np.testing.assert_allclose(y, x, **TOL)
    r = ftorch.linalg.eig(ftorch.tensor(A))
    assert r._fields == ("eigenvalues", "eigenvectors") and type(r).__name__ == "linalg_eig"


@pytest.mark.parametrize("case", [
    lambda m: m.matrix_power(m.ones(2, 3), 2),
    lambda m: m.matrix_power(m.tensor([[1, 1], [0, 1]]), 3),
    lambda m: m.logdet(m.zeros(2, 2)),
    lambda m: m.linalg.matrix_exp(m.zeros(3)),
])
def test_matrix_functions_edge_cases_as_pytorch(case) -> None:
    def run(m):
        try:
            r = case(m)
        except RuntimeError as e:
            return str(e)
        return r.tolist(), str(r.dtype)
    assert run(ftorch) == run(torch)
