"""PyTorch's tensor printing (``tensor([1.0000, 2.5000], requires_grad=True)``),
reimplemented on NumPy: 4 decimals, integer mode ``1.``, scientific mode when the
range demands it, 80-column lines and summarisation above 1000 elements."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from . import _dtype
from ._graph import host


@dataclasses.dataclass
class _PrinterOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


PRINT_OPTS = _PrinterOptions()


def set_printoptions(precision: int | None = None, threshold: float | None = None,
                     edgeitems: int | None = None, linewidth: int | None = None,
                     profile: str | None = None, sci_mode: bool | None = None) -> None:
    """As ``torch.set_printoptions``."""
    if profile is not None:
        PRINT_OPTS.precision = 2 if profile == "short" else 4
        PRINT_OPTS.threshold = math.inf if profile == "full" else 1000
        PRINT_OPTS.edgeitems = 2 if profile == "short" else 3
        PRINT_OPTS.linewidth = 80
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


class _Formatter:
    def __init__(self, values: np.ndarray):
        self.floating = values.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = values.reshape(-1)
        if not self.floating:
            for v in flat.tolist():
                self.max_width = max(self.max_width, len(_int_str(v)))
            return
        finite = flat[np.isfinite(flat) & (flat != 0)].astype(np.float64)
        if finite.size == 0:
            return
        absv = np.abs(finite)
        lo, hi = float(absv.min()), float(absv.max())
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        p = PRINT_OPTS.precision
        self.sci_mode = (hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
                         if PRINT_OPTS.sci_mode is None else PRINT_OPTS.sci_mode)
        vals = finite.tolist()
        if self.sci_mode:
            widths = (len(f"{v:.{p}e}") for v in vals)
        elif self.int_mode:
            widths = (len(f"{v:.0f}") + 1 for v in vals)
        else:
            widths = (len(f"{v:.{p}f}") for v in vals)
        self.max_width = max(self.max_width, max(widths))

    def width(self) -> int:
        return self.max_width

    def format(self, value: Any) -> str:
        if self.floating:
            p = PRINT_OPTS.precision
            if self.sci_mode:
                ret = f"{value:{self.max_width}.{p}e}"
            elif self.int_mode:
                ret = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = f"{value:.{p}f}"
        else:
            ret = _int_str(value)
        return (self.max_width - len(ret)) * " " + ret


def _int_str(v: Any) -> str:
    return str(v)


def _summarized(a: np.ndarray) -> np.ndarray:
    e = PRINT_OPTS.edgeitems
    if a.ndim == 0:
        return a
    if a.ndim == 1:
        return np.concatenate([a[:e], a[-e:]]) if a.shape[0] > 2 * e else a
    if a.shape[0] > 2 * e:
        rows = list(range(e)) + list(range(a.shape[0] - e, a.shape[0]))
    else:
        rows = list(range(a.shape[0]))
    return np.stack([_summarized(a[i]) for i in rows])


def _vector_str(a: np.ndarray, indent: int, summarize: bool, fmt: _Formatter,
                fmt_i: _Formatter | None) -> str:
    element_length = fmt.width() + 2
    if fmt_i is not None:
        element_length += fmt_i.max_width + 1
    per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / element_length))
    e = PRINT_OPTS.edgeitems

    def f(v: Any) -> str:
        return _val_str(v, fmt, fmt_i)

    if summarize and not e:
        data = ["..."]
    elif summarize and a.shape[0] > 2 * e:
        data = [f(v) for v in a[:e].tolist()] + [" ..."] + [f(v) for v in a[-e:].tolist()]
    else:
        data = [f(v) for v in a.tolist()]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _val_str(v: Any, fmt: _Formatter, fmt_i: _Formatter | None) -> str:
    if fmt_i is None:
        return fmt.format(v)
    real = fmt.format(v.real)
    imag = (fmt_i.format(v.imag) + "j").lstrip()
    return real + imag if imag[0] in "+-" else real + "+" + imag


def _str_with(a: np.ndarray, indent: int, summarize: bool, fmt: _Formatter,
              fmt_i: _Formatter | None) -> str:
    if a.ndim == 0:
        return _val_str(a.item(), fmt, fmt_i)
    if a.ndim == 1:
        return _vector_str(a, indent, summarize, fmt, fmt_i)
    e = PRINT_OPTS.edgeitems
    if summarize and a.shape[0] > 2 * e:
        slices = ([_str_with(a[i], indent + 1, summarize, fmt, fmt_i) for i in range(e)]
                  + ["..."] +
                  [_str_with(a[i], indent + 1, summarize, fmt, fmt_i)
                   for i in range(a.shape[0] - e, a.shape[0])])
    else:
        slices = [_str_with(a[i], indent + 1, summarize, fmt, fmt_i)
                  for i in range(a.shape[0])]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(slices) + "]"


def tensor_str(a: np.ndarray, indent: int) -> str:
    """The bracketed contents of a tensor with values ``a`` (a NumPy array)."""
    if a.size == 0:
        return "[]"
    summarize = a.size > PRINT_OPTS.threshold
    if a.dtype == np.float16:
        a = a.astype(np.float32)
    data = _summarized(a) if summarize else a
    if a.dtype.kind == "c":
        fmt, fmt_i = _Formatter(data.real), _Formatter(data.imag)
        return _str_with(a, indent, summarize, fmt, fmt_i)
    return _str_with(a, indent, summarize, _Formatter(data), None)


def _add_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    parts = [text]
    last_line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def tensor_repr(t: Any, prefix: str = "tensor(") -> str:
    """``repr`` of a facade Tensor, in PyTorch's format."""
    indent = len(prefix)
    suffixes = []
    dev = t.device
    if dev.type != "cpu":
        suffixes.append(f"device='{dev}'")
    if dev.type == "meta":  # (no data: the size stands for the values)
        suffixes.append(f"size={tuple(t.shape)}")
        if t.dtype is not _dtype.get_default_dtype():
            suffixes.append(f"dtype={t.dtype!r}")
        _grad_suffix(t, suffixes)
        return _add_suffixes(prefix + "...", suffixes, indent)
    a = host(t._value)
    dt = t.dtype
    default = (_dtype.get_default_dtype(), _dtype.int64, _dtype.bool,
               _dtype.get_default_dtype().to_complex())
    if a.size == 0:
        if a.ndim != 1:
            suffixes.append(f"size={tuple(a.shape)}")
        if dt is not _dtype.get_default_dtype():
            suffixes.append(f"dtype={dt!r}")
        body = "[]"
    else:
        if dt not in default:
            suffixes.append(f"dtype={dt!r}")
        body = tensor_str(a, indent)
    _grad_suffix(t, suffixes)
    return _add_suffixes(prefix + body, suffixes, indent)


def _grad_suffix(t: Any, suffixes: list) -> None:
    fn = t._grad_fn
    if fn is not None:
        suffixes.append(f"grad_fn=<{type(fn).__name__}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
