"""``torch.save`` / ``torch.load``: PyTorch's checkpoint format, loaded without
running the file's code.

``save`` writes PyTorch's zip layout (``<name>/data.pkl`` plus one record per
storage under ``<name>/data/``), so real PyTorch reads fad's files and fad reads
PyTorch's (and PyTorch's legacy non-zip format). ``load`` defaults to
``weights_only=True``, as PyTorch >= 2.6 does: the pickle is read by an
unpickler that resolves only allow-listed globals (tensors, NumPy arrays,
dtypes, containers, plain Python values) and lets no opcode call anything else,
so a file cannot run code by being loaded. PyTorch's rebuild functions
(``torch._utils._rebuild_tensor_v2``...) are mapped to fad's own: torch is never
imported. ``bfloat16`` storages load as float32 (fad has no bfloat16).

>>> import io, fad.torch as torch
>>> buf = io.BytesIO()
>>> torch.save({"w": torch.tensor([1.5, 2.0], requires_grad=True), "step": 3}, buf)
>>> _ = buf.seek(0)
>>> torch.load(buf)
{'w': tensor([1.5000, 2.0000], requires_grad=True), 'step': 3}
"""

from ._allowlist import add_safe_globals, clear_safe_globals, get_safe_globals, safe_globals
from ._read import get_unsafe_globals_in_checkpoint, load
from ._write import DEFAULT_PROTOCOL, save

__all__ = ["DEFAULT_PROTOCOL", "add_safe_globals", "clear_safe_globals", "get_safe_globals",
           "get_unsafe_globals_in_checkpoint", "load", "safe_globals", "save"]

# The public names keep the module they had before this package was split (their
# repr, the names pickle writes for them and the names error messages print).
for _obj in (add_safe_globals, clear_safe_globals, get_safe_globals, safe_globals,
             get_unsafe_globals_in_checkpoint, load, save):
    _obj.__module__ = __name__
del _obj
