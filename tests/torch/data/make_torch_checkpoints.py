"""Write the checkpoints that ``tests/torch/test_reliability_loading.py`` reads, with
real PyTorch, and the values fad must find in them::

    python tests/torch/data/make_torch_checkpoints.py

``torch_mlp.pt`` is the state dict of a small ``nn.Sequential`` (``torch_mlp.npz``:
its parameters, an input ``x`` and the model's output ``y``); ``torch_tensors.pt``
(zip format) and ``torch_tensors_legacy.pt`` (PyTorch's older non-zip format)
hold tensors of many dtypes and layouts (``torch_tensors.npz``: their values,
keyed by their path in the object, bfloat16 as float32).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REQUIRES_GRAD = ("param", "leaf")  # the paths of tensors saved with requires_grad


def mlp(torch: Any) -> tuple[Any, dict[str, np.ndarray]]:
    """A state dict of ``Linear(3, 4), ReLU, Linear(4, 2)`` and its expected values."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    x = torch.linspace(-1.0, 1.0, 15).reshape(5, 3)
    with torch.no_grad():
        y = model(x)
    state = model.state_dict()
    expected = {k: v.numpy().copy() for k, v in state.items()}
    return state, expected | {"x": x.numpy(), "y": y.numpy()}


def tensors(torch: Any) -> tuple[dict, dict[str, np.ndarray]]:
    """Tensors of every dtype fad reads, views (non-contiguous, with an offset, two
    sharing one storage), 0-d and empty tensors, a Parameter, nested containers."""
    torch.manual_seed(1)
    base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    obj = {
        "float32": torch.randn(2, 3),
        "float64": torch.randn(3, dtype=torch.float64),
        "float16": torch.randn(4).half(),
        "bfloat16": torch.tensor([1.5, -2.25, 3.0e38, 1e-3]).bfloat16(),
        "int64": torch.arange(-2, 3),
        "int32": torch.tensor([7, -8], dtype=torch.int32),
        "int8": torch.tensor([-128, 127], dtype=torch.int8),
        "uint8": torch.tensor([0, 255, 3], dtype=torch.uint8),
        "bool": torch.tensor([True, False, True]),
        "base": base,
        "transposed": base.t(),
        "column": base[:, 1],
        "row": base[2],
        "scalar": torch.tensor(2.5),
        "empty": torch.zeros(0, 3),
        "param": torch.nn.Parameter(torch.randn(3)),
        "leaf": torch.ones(2, requires_grad=True),
        "nested": {"list": [torch.arange(3), (torch.tensor(True), torch.tensor([1.0]))]},
        "dtype": torch.float16,
        "step": 7,
    }
    return obj, flatten(obj)


def flatten(obj: Any, prefix: str = "") -> dict[str, np.ndarray]:
    """``{path: values}`` of the tensors in nested dicts, lists and tuples
    (anything with ``.detach()``; bfloat16 as float32)."""
    out: dict[str, np.ndarray] = {}
    if isinstance(obj, dict):
        items = obj.items()
    elif isinstance(obj, (list, tuple)):
        items = enumerate(obj)
    else:
        if hasattr(obj, "detach"):
            t = obj.detach()
            if str(t.dtype) == "torch.bfloat16":
                t = t.float()
            out[prefix] = np.array(t.numpy())
        return out
    for k, v in items:
        out.update(flatten(v, f"{prefix}.{k}" if prefix else str(k)))
    return out


def main() -> None:
    import torch

    state, expected = mlp(torch)
    torch.save(state, os.path.join(HERE, "torch_mlp.pt"))
    np.savez(os.path.join(HERE, "torch_mlp.npz"), **expected)
    obj, expected = tensors(torch)
    torch.save(obj, os.path.join(HERE, "torch_tensors.pt"))
    torch.save(obj, os.path.join(HERE, "torch_tensors_legacy.pt"),
               _use_new_zipfile_serialization=False)
    np.savez(os.path.join(HERE, "torch_tensors.npz"), **expected)


if __name__ == "__main__":
    main()
