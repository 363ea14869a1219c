"""Builders of a distribution's public functions from its standard-form kernels:
every family shares the shells (arguments parsed, ``z = (x - loc) / scale``
standardised, NaN for an invalid parameter), so each module writes only its
mathematics.

>>> fns = location_scale_family("fad.scipy.stats.norm", {
...     "logpdf": lambda z: -(z * z) / 2, "cdf": lambda z: z, "logcdf": lambda z: z,
...     "sf": lambda z: z, "logsf": lambda z: z, "ppf": lambda q: q, "isf": lambda q: q},
...     {"logpdf": ("``-z^2 / 2``.", "float(fst.norm.logpdf(0.0))", "0.0")})
>>> fns[0].__qualname__, float(fns[0](2.0, 0.0, 2.0))
('logpdf', -1.1931471805599454)
"""

from __future__ import annotations

import inspect
from typing import Any, Callable

from ... import numpy as fnp
from ._common import arguments, location_scale, log_probability, nan_unless

_FUNCTIONS = ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf")
_DEFAULT_DOCS = {"pdf": "The density ``exp(logpdf)``."}


def _docstring(summary: str, example: tuple[str, str] | None) -> str:
    if example is None:
        return summary
    expression, result = example
    imports = "fad.numpy as fnp, fad.scipy.stats" if "fnp." in expression else "fad.scipy.stats"
    return (f"{summary}\n\n    >>> import {imports} as fst\n"
            f"    >>> {expression}\n    {result}\n    ")


def _named(fn: Callable, module: str, name: str, doc: tuple) -> Callable:
    """``fn`` given the public identity ``module.name`` and its docstring."""
    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = module
    summary, *example = doc
    fn.__doc__ = _docstring(summary, tuple(example) if example else None)
    return fn


def exponential_of(log_fn: Callable, name: str, summary: str, expression: str,
                   result: str) -> Callable:
    """``exp(log_fn(...))`` (a density from its logarithm), named ``name`` in
    ``log_fn``'s module, with ``log_fn``'s signature and a docstring of ``summary``
    and the doctest ``expression``, which shows ``result``."""
    def fn(*args: Any, **kwargs: Any) -> Any:
        return fnp.exp(log_fn(*args, **kwargs))
    fn.__signature__ = inspect.signature(log_fn)  # type: ignore[attr-defined]
    return _named(fn, log_fn.__module__, name, (summary, expression, result))


def log_tails(cdf: Callable, sf: Callable, cdf_example: tuple[str, str] | None = None,
              sf_example: tuple[str, str] | None = None) -> tuple[Callable, Callable]:
    """``(logcdf, logsf)``: ``log(cdf)`` and ``log(sf)``, each accurate in both tails
    through the other (``1 - p`` computed with its own digits), named, signed and
    documented (with the doctests ``(expression, result)``) as ``cdf``'s module's."""
    def tail(fn: Callable, complement: Callable, name: str, example: tuple | None) -> Callable:
        def log_fn(*args: Any, **kwargs: Any) -> Any:
            return log_probability(fn(*args, **kwargs), complement(*args, **kwargs))
        log_fn.__signature__ = inspect.signature(fn)  # type: ignore[attr-defined]
        summary = f"``log({fn.__name__})``, accurate in both tails."
        return _named(log_fn, fn.__module__, name, (summary, *(example or ())))
    return tail(cdf, sf, "logcdf", cdf_example), tail(sf, cdf, "logsf", sf_example)


def location_scale_family(module: str, kernels: dict[str, Callable],
                          docs: dict[str, tuple]) -> tuple[Callable, ...]:
    """``logpdf pdf cdf logcdf sf logsf ppf isf`` of a location-scale family.

    ``kernels`` holds the standard form's ``logpdf cdf logcdf sf logsf`` (of
    ``z``) and ``ppf isf`` (of ``q``); the public ``logpdf`` subtracts
    ``log(scale)``, the quantiles are ``loc + scale * kernel(q)``. ``docs`` maps a
    name to ``(summary, doctest expression, expected output)``.
    """
    family = module.rsplit(".", 1)[-1]

    def of_x(name: str) -> Callable:
        kernel, label = kernels[name], f"{family}.{name}"

        def fn(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
            z, _, ok, _ = location_scale(label, x, loc, scale)
            return nan_unless(ok, kernel(z))
        return fn

    def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
        z, scale, ok, _ = location_scale(f"{family}.logpdf", x, loc, scale)
        return nan_unless(ok, kernels["logpdf"](z) - fnp.log(scale))

    def of_q(name: str) -> Callable:
        kernel, label = kernels[name], f"{family}.{name}"

        def fn(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
            q, loc, scale = arguments(label, q, loc, scale)
            return nan_unless(scale > 0, loc + scale * kernel(q))
        return fn

    def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
        return fnp.exp(logpdf(x, loc, scale))

    made = {"logpdf": logpdf, "pdf": pdf,
            **{name: of_x(name) for name in ("cdf", "logcdf", "sf", "logsf")},
            **{name: of_q(name) for name in ("ppf", "isf")}}
    return tuple(_named(made[name], module, name, docs.get(name, (_DEFAULT_DOCS.get(name, ""),)))
                 for name in _FUNCTIONS)


__all__: list[str] = []
