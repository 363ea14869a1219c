"""``import fad.torch as torch``: a stateful, PyTorch-compatible facade over fad.

Tensors record their operations into a dynamic graph of ``grad_fn`` nodes; each
node's backward is the core's reverse mode of the operation's fad function, so
the facade owns no derivative rule. Code from a PyTorch autograd tutorial runs
with only its import line changed:

>>> import fad.torch as torch
>>> a = torch.tensor([3.], requires_grad=True)
>>> b = torch.tensor([1.], requires_grad=True)
>>> e = (a + b) * (b + 1)
>>> e
tensor([8.], grad_fn=<MulBackward0>)
>>> e.backward()
>>> a.grad, b.grad
(tensor([2.]), tensor([6.]))
"""

from __future__ import annotations

from . import _double, _dtype, _methods  # noqa: F401 (_double: the double-backward hook)
from ._creation import (
    BoolTensor,
    ByteTensor,
    CharTensor,
    DoubleTensor,
    FloatTensor,
    Generator,
    HalfTensor,
    IntTensor,
    LongTensor,
    ShortTensor,
    arange,
    as_tensor,
    asarray,
    bernoulli,
    multinomial,
    default_generator,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    get_default_device,
    get_rng_state,
    initial_seed,
    linspace,
    logspace,
    manual_seed,
    normal,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
    scalar_tensor,
    empty_strided,
    seed,
    set_default_device,
    set_rng_state,
    tensor,
    zeros,
    zeros_like,
)
from ._dtype import (
    bool,
    cdouble,
    cfloat,
    complex64,
    complex128,
    double,
    dtype,
    float,
    float16,
    float32,
    float64,
    get_default_dtype,
    half,
    int,
    int8,
    int16,
    int32,
    int64,
    long,
    set_default_dtype,
    short,
    uint8,
)
from ._functions import *  # noqa: F401,F403  (the torch.* functions)
from ._functions import inplace as _inplace  # noqa: F401
from ._grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from ._tensor_str import set_printoptions
from .tensor import Size, Tensor, device

_methods.install(globals())
from ._functions import rsub  # noqa: E402,F401

from . import autograd, backends, cuda, nn, optim, profiler, serialization, utils  # noqa: E402
from . import accelerator, random  # noqa: E402
from .random import poisson  # noqa: E402,F401
# torch.func, torch.linalg, torch.special and their top-level aliases
from . import amp, distributions, fft, func, jit, linalg, special, testing  # noqa: E402
from .amp import GradScaler, autocast, get_autocast_dtype, is_autocast_enabled  # noqa: E402,F401
from ._functions.strided import TypedStorage, UntypedStorage  # noqa: E402,F401
from .func import vmap  # noqa: E402,F401
from .linalg import _inverse as inverse, _torch_svd as svd, det  # noqa: E402,F401
from .linalg import _pinverse as pinverse, _torch_slogdet as slogdet  # noqa: E402,F401
from .linalg import logdet, matrix_exp, matrix_power  # noqa: E402,F401
from .linalg import _torch_cholesky as cholesky, _torch_qr as qr  # noqa: E402,F401
from .linalg import cholesky_inverse, cholesky_solve  # noqa: E402,F401
from ._householder import geqrf, orgqr  # noqa: E402,F401

Tensor.geqrf, Tensor.orgqr = geqrf, orgqr
from ._signal_windows import *  # noqa: E402,F403
from ._nn_aliases import *  # noqa: E402,F403
from ._utilities import *  # noqa: E402,F403
from ._warnings import is_warn_always_enabled, set_warn_always  # noqa: E402
from ._spectral import istft, stft  # noqa: E402,F401

is_signed, is_same_size = Tensor.is_signed, Tensor.is_same_size
is_inference = Tensor.is_inference
from .serialization import load, save  # noqa: E402,F401

autograd.profiler = profiler  # (``torch.autograd.profiler.profile``, as PyTorch's)
from . import forward_ad  # noqa: E402

autograd.forward_ad = forward_ad
autograd.function = autograd  # (``Function``, ``once_differentiable``... live there)
# ``import fad.torch.autograd.forward_ad as fwAD`` (autograd is a module, not a package)
__import__("sys").modules.update({"fad.torch.autograd.forward_ad": forward_ad,
                                  "fad.torch.autograd.profiler": profiler,
                                  "fad.torch.autograd.function": autograd})
from .utils.dlpack import from_dlpack  # noqa: E402,F401
from ._functions import abs, all, any, max, min, pow, round, sum  # noqa: E402,F401
from ._functions.writes import accepts_out as _accepts_out  # noqa: E402

# the torch.* functions that take PyTorch's ``out=`` (the others that do already
# handle it themselves); Tensor methods keep the plain functions
_OUT = """addmm all amax amin any argmax argmin bmm cat clamp clip concat concatenate cumsum
dot eq float_power floor_divide fmax fmin fmod gather ge ger greater greater_equal gt hstack
index_select inner le less less_equal logical_and logical_or logical_xor logsumexp lt matmul
max maximum mean min minimum mm mv nansum ne nonzero not_equal outer pow prod remainder round
sort stack std std_mean sum take_along_dim topk tril triu var var_mean vdot vstack where
full arange eye linspace asinh arcsinh acosh arccosh atanh arctanh deg2rad rad2deg i0 sinc angle
signbit isneginf isposinf isreal hypot logaddexp logaddexp2 copysign xlogy heaviside
ldexp nan_to_num lerp addcmul addcdiv logit""".split()
for _name in _OUT:
    if _name in globals():
        globals()[_name] = _accepts_out(globals()[_name], _name)


def is_inference_mode_enabled() -> bool:
    return not is_grad_enabled()


strided = "torch.strided"
inf = __import__("math").inf
nan = __import__("math").nan
pi = __import__("math").pi
e = __import__("math").e
__version__ = "2.13.0+fad"


def set_num_threads(n: int) -> None:
    """Accepted and ignored (threads are the backend's business)."""


def get_num_threads() -> int:
    return 1


from operator import truth as _truth  # noqa: E402

_DETERMINISTIC = [False, False]  # (requested, warn_only): fad's operations are deterministic


def use_deterministic_algorithms(mode: object, *, warn_only: object = False) -> None:
    """Recorded (``are_deterministic_algorithms_enabled``); fad's operations are
    deterministic anyway."""
    _DETERMINISTIC[:] = [_truth(mode), _truth(warn_only)]  # (``bool`` is torch.bool here)


def are_deterministic_algorithms_enabled() -> bool:
    """Whether ``use_deterministic_algorithms(True)`` was called last.

    >>> import fad.torch as torch
    >>> torch.are_deterministic_algorithms_enabled()
    False
    """
    return _DETERMINISTIC[0]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """Whether ``use_deterministic_algorithms`` was last given ``warn_only=True``."""
    return _DETERMINISTIC[1]


class memory_format:
    """PyTorch's memory layouts (``torch.channels_last``...): accepted by
    ``.to(memory_format=...)`` and ``.contiguous(memory_format=...)``; fad's
    tensors keep their row-major layout."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"torch.{self.name}"


contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")


def compile(model: object = None, **kwargs: object) -> object:
    """``torch.compile`` is the identity here (see ``fad.jit`` for compilation)."""
    if model is None:
        return lambda m: m
    return model


del _dtype, _name, annotations

