"""``fad.lax``: structured control flow that survives abstract tracing, as ``jax.lax``.

>>> import fad, fad.numpy as fnp
>>> float(fad.lax.fori_loop(0, 3, lambda i, x: x * 2.0, 1.0))
8.0
>>> fad.lax.associative_scan(fnp.add, fnp.arange(4.0)).tolist()
[0.0, 1.0, 3.0, 6.0]

Control flow (``cond switch scan map while_loop fori_loop``), selection
(``select select_n stop_gradient``), the parallel prefix ``associative_scan``,
running reductions (``cumsum cumprod cummax cummin cumlogsumexp``) and orderings
(``sort sort_key_val top_k``), ``transpose`` (the primitive itself, no
simplification: NumPy's strides), and the elementwise functions (``add sub mul div
rem pow integer_pow max min neg abs sign exp log sin cos tanh sqrt rsqrt ...``,
``fad.primitives.lax_ops``: ``lax``'s argument rules, no implicit promotion or
broadcasting, and the derivatives of ``fad.numpy``'s functions of the same maths).

The implementations (and their derivative and batching rules) live in
``fad.transforms.control_flow``; the dynamic slices in ``fad.primitives.slicing``;
the convolutions and ``reduce_window`` in ``fad.primitives.convolution`` and
``fad.primitives.windows``.
"""

# convolutions and windowed reductions
from .primitives.convolution import (
    ConvDimensionNumbers,
    conv,
    conv_dimension_numbers,
    conv_general_dilated,
    conv_general_shape_tuple,
    conv_transpose,
    conv_with_general_padding,
)

# slices at run-time offsets
from .primitives.lax_ops import *  # noqa: F403  (the elementwise functions)
from .primitives.lax_ops import __all__ as _ELEMENTWISE
from .primitives.slicing import (
    dynamic_index_in_dim,
    dynamic_slice,
    dynamic_slice_in_dim,
    dynamic_update_index_in_dim,
    dynamic_update_slice,
    dynamic_update_slice_in_dim,
)
from .primitives.structural import lax_transpose as transpose
from .primitives.windows import padtype_to_pads, reduce_window
from .transforms.autodiff import stop_gradient
from .transforms.control_flow import (
    associative_scan,
    cond,
    cumlogsumexp,
    cummax,
    cummin,
    cumprod,
    cumsum,
    fori_loop,
    map,
    scan,
    select,
    select_n,
    sort,
    sort_key_val,
    switch,
    top_k,
    while_loop,
)

__all__ = ["cond", "scan", "while_loop", "fori_loop",
           # slices at run-time offsets
           "dynamic_slice", "dynamic_update_slice", "dynamic_index_in_dim",
           "dynamic_slice_in_dim", "dynamic_update_index_in_dim",
           "dynamic_update_slice_in_dim",
           # convolutions and windowed reductions
           "conv_general_dilated", "conv", "conv_with_general_padding", "conv_transpose",
           "ConvDimensionNumbers", "conv_dimension_numbers", "conv_general_shape_tuple",
           "reduce_window", "padtype_to_pads",
           # control flow, selection, running reductions and orderings
           "switch", "map", "select", "select_n", "stop_gradient", "associative_scan",
           "cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp", "sort", "sort_key_val",
           "top_k",
           # shapes
           "transpose"] + _ELEMENTWISE


def __dir__() -> list[str]:  # the public names only (no imported helpers)
    return list(__all__)
