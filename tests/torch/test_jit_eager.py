"""``torch.jit`` in fad.torch: ``script`` and ``trace`` return what they are given
(run eagerly, with PyTorch 2.13's deprecation warning), the decorators scripted
code uses leave their functions as they are, and the queries answer as eager
PyTorch does; saving or loading a TorchScript archive is refused with advice."""

from __future__ import annotations

import warnings

import pytest

import fad.torch as torch


def test_script_and_trace_run_eagerly_with_pytorchs_warning():
    def double(x: torch.Tensor) -> torch.Tensor:
        return x * 2 if x.sum() > 0 else -x  # (data-dependent: still followed per call)
    layer = torch.nn.Linear(2, 1)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        scripted = torch.jit.script(double)
        traced = torch.jit.trace(layer, torch.ones(1, 2))
    assert scripted is double and traced is layer
    assert [str(w.message) for w in seen] == [
        "`torch.jit.script` is deprecated. Please switch to `torch.compile` or `torch.export`.",
        "`torch.jit.trace` is deprecated. Please switch to `torch.compile` or `torch.export`."]
    assert all(w.category is DeprecationWarning for w in seen)
    assert scripted(torch.ones(2)).tolist() == [2.0, 2.0]
    assert scripted(-torch.ones(2)).tolist() == [1.0, 1.0]


def test_decorators_and_queries():
    class Model(torch.nn.Module):
        @torch.jit.ignore
        def helper(self, x: torch.Tensor) -> torch.Tensor:
            return x + 1

        @torch.jit.unused
        def debug(self) -> str:
            return "debug"

        @torch.jit.export
        def twice(self, x: torch.Tensor) -> torch.Tensor:
            return 2 * x

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.twice(self.helper(x)) if not torch.jit.is_scripting() else x

    m = Model()
    assert m(torch.zeros(1)).tolist() == [2.0] and m.debug() == "debug"
    assert torch.jit.ignore(drop=True)(len) is len
    assert not torch.jit.is_scripting() and not torch.jit.is_tracing()
    assert torch.jit.annotate(list, [1]) == [1] and torch.jit.Attribute(3, int) == 3
    assert torch.jit.wait(torch.jit.fork(lambda a, b: a * b, 3, b=4)) == 12
    assert torch.jit.freeze(m) is m and torch.jit.optimize_for_inference(m) is m


@pytest.mark.parametrize("call", [lambda: torch.jit.save(torch.nn.Linear(1, 1), "m.pt"),
                                  lambda: torch.jit.load("m.pt")])
def test_archives_are_refused_with_advice(call):
    with pytest.raises(NotImplementedError, match="state_dict"):
        call()
