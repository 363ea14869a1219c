"""The NumPy memory under a Tensor, for in-place writes: PyTorch's rule for tensors
some of whose elements share one memory cell (an ``expand()``ed view), and writes
through NumPy's read-only broadcast views into the buffer they view.

``x.expand(3, 4)`` is, in NumPy, a read-only view with a zero stride. PyTorch writes
through such a view into ``x`` when the operation is a fill (``fill_``, ``zero_``),
an indexed write (``masked_fill_``, ``index_fill_``, ``index_put_``: with a
deprecation warning) or ``y[index] = v`` whose selected part has no shared cells;
every other in-place operation refuses (``OVERLAP_MESSAGE``).
"""

from __future__ import annotations

import warnings

import numpy as np

OVERLAP_MESSAGE = ("unsupported operation: more than one element of the written-to tensor "
                   "refers to a single memory location. Please clone() the tensor before "
                   "performing the operation.")

# the indexed writes PyTorch still lets into an expanded tensor, and the example its
# deprecation warning gives for each
_INDEXED_WRITES = {"masked_fill_": "tensor[mask] = scalar", "index_fill_": "tensor[mask] = scalar",
                   "index_put_": "tensor[indices] = tensor"}


def internal_overlap(a: np.ndarray) -> bool:
    """Whether two elements of ``a`` are one memory cell (a zero stride over more than
    one element: PyTorch's test, which leaves other overlaps alone).

    >>> internal_overlap(np.broadcast_to(np.zeros((3, 1)), (3, 4)))
    True
    >>> internal_overlap(np.zeros((3, 1))), internal_overlap(np.zeros((3, 4)).T)
    (False, False)
    """
    for n, s in zip(a.shape, a.strides):
        if s == 0 and n > 1:
            return True
    return False


def writable_alias(a: np.ndarray) -> np.ndarray | None:
    """``a`` itself when writable, else a writable array on the same memory cells when
    they belong to a writable NumPy array (``a`` is a broadcast view of it), else
    ``None`` (memory the user handed over read-only).

    >>> x = np.zeros((3, 1))
    >>> w = writable_alias(np.broadcast_to(x, (3, 4)))
    >>> w[1, 2] = 5.0; x.ravel().tolist()
    [0.0, 5.0, 0.0]
    """
    if a.flags.writeable:
        return a
    root = owner(a)
    if not root.flags.writeable:
        return None
    if not root.flags.c_contiguous:  # (an F-ordered owner's memory, as a 1-d view)
        if not root.flags.f_contiguous:
            return None
        root = root.ravel(order="K")
    offset = address(a) - address(root)
    return np.ndarray(a.shape, a.dtype, buffer=root, offset=offset, strides=a.strides)


def owner(a: np.ndarray) -> np.ndarray:
    """The array owning ``a``'s memory: the last NumPy array among its bases, through
    the wrapper objects some strided views have for a base (their own ``base`` is
    the array they view: see ``fad.primitives.strided``)."""
    while True:
        b = a.base
        if b is not None and type(b) is not np.ndarray:
            b = getattr(b, "base", None)
        if not isinstance(b, np.ndarray):
            return a
        a = b


def address(a: np.ndarray) -> int:
    """The address of ``a``'s first element."""
    return a.__array_interface__["data"][0]


def store(a: np.ndarray, new: np.ndarray) -> bool:
    """Write ``new`` into the memory of ``a`` (through ``writable_alias``); ``False``
    when that memory cannot be written. Where cells are shared, only the elements
    whose value changes are written, so that a cell takes the value written to it
    whichever of its elements comes last."""
    w = writable_alias(a)
    if w is None:
        return False
    if w is a or not internal_overlap(a):
        np.copyto(w, new, casting="unsafe")
        return True
    new = np.broadcast_to(np.asarray(new, a.dtype), a.shape)
    changed = ~((a == new) | (np.isnan(a) & np.isnan(new)) if a.dtype.kind in "fc"
                else a == new)
    w[changed] = new[changed]
    return True


def check_overlapping_write(a: object, write: str | None) -> None:
    """PyTorch's refusal to write into a tensor whose elements share memory cells
    (its array ``a``): ``write`` is ``"fill"`` for the fills, the method's name for an
    indexed write (a deprecation warning), ``None`` for any other operation (the
    error)."""
    if type(a) is not np.ndarray or a.flags.writeable or not internal_overlap(a):
        return
    if write is None:
        raise RuntimeError(OVERLAP_MESSAGE)
    if write != "fill":
        warnings.warn(f"Use of {write} on expanded tensors is deprecated. Please clone() the "
                      "tensor before performing this operation. This also applies to advanced "
                      f"indexing e.g. {_INDEXED_WRITES[write]}", UserWarning, stacklevel=4)
