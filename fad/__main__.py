"""``python -m fad``: a two-minute tour of what fad does.

Traces a function to the IR, prints it, differentiates it (printing the
gradient program too), and evaluates both, checking against finite differences.
"""

from __future__ import annotations

import numpy as np

import fad
import fad.numpy as fnp


def loss(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    """A tiny model: tanh regression, summed squared error."""
    return fnp.sum((fnp.tanh(x @ w) - 1.0) ** 2)


def main() -> None:
    rng = np.random.default_rng(0)
    w = rng.standard_normal(3).astype(np.float32)
    x = rng.standard_normal((4, 3)).astype(np.float32)

    print("The function, traced to fad's IR:")
    print(fad.make_jaxpr(loss)(w, x))
    print("\nIts gradient with respect to w, as a program:")
    print(fad.make_jaxpr(fad.grad(loss))(w, x))

    value, grad = fad.value_and_grad(loss)(w, x)
    print(f"\nloss(w) = {float(value):.6f}")
    print(f"grad(w) = {np.round(grad, 6)}  (dtype {grad.dtype})")

    eps = 1e-3
    numeric = [(loss(w + eps * e, x) - loss(w - eps * e, x)) / (2 * eps)
               for e in np.eye(3, dtype=np.float32)]
    print(f"finite differences = {np.round(np.array(numeric, dtype=np.float32), 4)}")

    hvp = fad.jvp(fad.grad(loss), (w, x), (np.ones_like(w), np.zeros_like(x)))[1]
    print(f"Hessian-vector product H @ 1 = {np.round(hvp, 6)}")
    fad.check_grads(loss, (w.astype(np.float64), x.astype(np.float64)), order=2)
    print("check_grads(order=2): forward and reverse mode agree with finite differences")


if __name__ == "__main__":
    main()
