"""The PyTorch autograd tutorials the facade grew from run under
``import fad.torch as torch`` with their documented values and errors.

Each test runs a tutorial's code cells unchanged (only the import differs).
Where a tutorial prints fixed values, the exact text is checked; where it uses
random values, the relations it teaches (the gradients' closed forms) are.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import fad.torch as torch

ADDR = r"0x[0-9a-f]+"


def run(code: str, env: dict | None = None) -> dict:
    """Execute a tutorial cell with ``torch`` bound to the facade."""
    env = {"torch": torch} if env is None else env
    exec(compile(code.replace("import torch", "import fad.torch as torch"), "<seed>", "exec"),
         env)
    return env


def close(a: torch.Tensor, b: torch.Tensor) -> bool:
    return np.allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)


# ====================================================================== seed 000
GRAPH = """
import torch

a = torch.randn((3,3), requires_grad = True)

w1 = torch.randn((3,3), requires_grad = True)
w2 = torch.randn((3,3), requires_grad = True)
w3 = torch.randn((3,3), requires_grad = True)
w4 = torch.randn((3,3), requires_grad = True)

b = w1*a
c = w2*a

d = w3*b + w4*c
"""


def _check_closed_forms(env: dict) -> None:
    a, w1, w2, w3, w4, b, c = (env[k] for k in ("a", "w1", "w2", "w3", "w4", "b", "c"))
    with torch.no_grad():
        assert close(a.grad, -(w3 * w1 + w4 * w2))
        assert close(w1.grad, -(w3 * a))
        assert close(w2.grad, -(w4 * a))
        assert close(w3.grad, -b)
        assert close(w4.grad, -c)


def test_seed000_tensor_constructor_prints(capsys: pytest.CaptureFixture) -> None:
    env = run("import torch\n\ntsr = torch.Tensor(3,5)\n\nprint(tsr)\n")
    out = capsys.readouterr().out
    # the tutorial shows uninitialised memory; fad's "uninitialised" tensors are zeros
    assert env["tsr"].shape == (3, 5) and env["tsr"].dtype is torch.float32
    assert out.startswith("tensor([[0., 0., 0., 0., 0.],\n        [0.")


def test_seed000_requires_grad_set_after_creation() -> None:
    env = run("""
t1 = torch.randn((3,3), requires_grad = True)

t2 = torch.FloatTensor(3,3) # No way to specify requires_grad while initiating
t2.requires_grad = True
""")
    assert env["t1"].requires_grad and env["t2"].requires_grad
    assert env["t2"].is_leaf and env["t2"].dtype is torch.float32


def test_seed000_grad_fn_of_leaf_and_sum(capsys: pytest.CaptureFixture) -> None:
    run(GRAPH + """
L = 10 - d

print("The grad fn for a is", a.grad_fn)
print("The grad fn for d is", d.grad_fn)
""")
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "The grad fn for a is None"
    assert re.fullmatch(f"The grad fn for d is <AddBackward0 object at {ADDR}>", out[1])


def test_seed000_vector_backward_raises() -> None:
    with pytest.raises(RuntimeError, match="^grad can be implicitly created only for scalar "
                                           "outputs$"):
        run(GRAPH + "\nL = (10 - d)\n\nL.backward()\n")


def test_seed000_sum_then_backward_gives_closed_forms() -> None:
    env = run(GRAPH + "\n# Replace L = (10 - d) by\nL = (10 -d).sum()\n\nL.backward()\n")
    _check_closed_forms(env)


def test_seed000_backward_with_ones_gradient() -> None:
    env = run(GRAPH + "\nL = (10 -d)\n\nL.backward(torch.ones(L.shape))\n")
    _check_closed_forms(env)


def test_seed000_update_step() -> None:
    env = run(GRAPH + "\nL = (10 -d).sum()\nL.backward()\n")
    w1_before, g = env["w1"].detach().clone(), env["w1"].grad.clone()
    run("learning_rate = 0.5\nw1 = w1 - learning_rate * w1.grad\n", env)
    assert close(env["w1"], w1_before - 0.5 * g)
    assert env["w1"].grad_fn.name() == "SubBackward0" and not env["w1"].is_leaf


# ====================================================================== seed 001
def test_seed001_one_layer_network_reprs() -> None:
    env = run("""
import torch
x = torch.ones(5)
y = torch.zeros(3)
w = torch.randn(5, 3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
z = torch.matmul(x, w) + b
loss=torch.nn.functional.binary_cross_entropy_with_logits(z, y)
""")
    x, y, w, b, z, loss = (env[k] for k in "x y w b z loss".split())
    assert repr(x) == "tensor([1., 1., 1., 1., 1.])"
    assert repr(y) == "tensor([0., 0., 0.])"
    assert repr(w).endswith("requires_grad=True)") and repr(w).startswith("tensor([[")
    assert re.fullmatch(r"tensor\(\[ ?-?\d\.\d{4}, +-?\d\.\d{4}, +-?\d\.\d{4}\], "
                        r"grad_fn=<AddBackward0>\)", repr(z))
    assert re.fullmatch(r"tensor\(\d\.\d{4}, grad_fn=<BinaryCrossEntropyWithLogitsBackward0>\)",
                        repr(loss))
    with torch.no_grad():  # y = 0: the loss is the mean of softplus(z)
        assert close(z, x @ w + b)
        assert close(loss, torch.log1p(torch.exp(z)).mean())


def test_seed001_documented_values() -> None:
    """With the tutorial's printed w and b, z and the loss are the printed ones."""
    w = torch.tensor([[0.1120, -0.0213, 0.5249], [-0.3198, -0.0042, -0.7752],
                      [0.8590, 1.2993, -0.1937], [-0.1327, -0.9119, 0.6002],
                      [0.4720, -1.5287, 0.9750]], requires_grad=True)
    b = torch.tensor([0.6012, -0.2897, 2.4452], requires_grad=True)
    z = torch.matmul(torch.ones(5), w) + b
    loss = torch.nn.functional.binary_cross_entropy_with_logits(z, torch.zeros(3))
    assert np.allclose(z.detach().numpy(), [1.5918, -1.4565, 3.5764], atol=2e-4)
    assert abs(loss.item() - 1.8635) < 2e-4
    assert repr(w) == ("tensor([[ 0.1120, -0.0213,  0.5249],\n"
                       "        [-0.3198, -0.0042, -0.7752],\n"
                       "        [ 0.8590,  1.2993, -0.1937],\n"
                       "        [-0.1327, -0.9119,  0.6002],\n"
                       "        [ 0.4720, -1.5287,  0.9750]], requires_grad=True)")
    assert repr(b) == "tensor([ 0.6012, -0.2897,  2.4452], requires_grad=True)"


def test_seed001_grad_fn_prints(capsys: pytest.CaptureFixture) -> None:
    env = run("""
x = torch.ones(5)
y = torch.zeros(3)
w = torch.randn(5, 3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
z = torch.matmul(x, w) + b
loss=torch.nn.functional.binary_cross_entropy_with_logits(z, y)
print(f"Gradient function for z = {z.grad_fn}")
print(f"Gradient function for loss = {loss.grad_fn}")
""")
    out = capsys.readouterr().out.splitlines()
    assert re.fullmatch(f"Gradient function for z = <AddBackward0 object at {ADDR}>", out[0])
    assert re.fullmatch("Gradient function for loss = <BinaryCrossEntropyWithLogitsBackward0 "
                        f"object at {ADDR}>", out[1])
    env["loss"].backward()  # "After computing the backward pass, a gradient ... .grad"
    s = torch.sigmoid(env["z"]).detach() / 3
    assert close(env["b"].grad, s) and close(env["w"].grad, torch.ones(5, 1) * s)


def test_seed001_zero_tensor_repr() -> None:
    env = run("import torch\ntsr = torch.Tensor(3, 5)\n")
    assert repr(env["tsr"]) == ("tensor([[0., 0., 0., 0., 0.],\n"
                                "        [0., 0., 0., 0., 0.],\n"
                                "        [0., 0., 0., 0., 0.]])")


def test_seed001_printed_random_tensor_format() -> None:
    t1 = torch.tensor([[0.0759, 1.0211, 0.0208], [-1.6086, -0.2280, -1.8427],
                       [-0.3586, -0.8975, 0.4918]], requires_grad=True)
    assert repr(t1) == ("tensor([[ 0.0759,  1.0211,  0.0208],\n"
                        "        [-1.6086, -0.2280, -1.8427],\n"
                        "        [-0.3586, -0.8975,  0.4918]], requires_grad=True)")


SEED001_GRAPH = """
a = torch.randn((3,3), requires_grad = True)
w1 = torch.randn((3, 3), requires_grad = True)
w2 = torch.randn((3, 3),requires_grad = True)
w3 = torch.randn((3, 3), requires_grad = True)
w4 = torch.rand((3, 3), requires_grad = True)

b = w1 * a
c = w2 * a
d = w3*b + w4*c
L = 10 - d
"""


def test_seed001_graph_cells(capsys: pytest.CaptureFixture) -> None:
    env = run("t2 = torch.FloatTensor(3,3)\nt2.requires_grad = True\n" + SEED001_GRAPH + """
print(f"The grad fn for a is, {a.grad_fn}")
print(f"The grad fn for d is, {d.grad_fn}")
""")
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "The grad fn for a is, None"
    assert re.fullmatch(f"The grad fn for d is, <AddBackward0 object at {ADDR}>", out[1])
    w4 = env["w4"]
    assert w4.min().item() >= 0 and w4.max().item() < 1  # torch.rand is uniform [0, 1)
    pretty = pytest.importorskip("IPython.lib.pretty")
    # the notebook's display of `c.grad_fn` is IPython's: <MulBackward0 at 0x...>
    assert re.fullmatch(f"<MulBackward0 at {ADDR}>", pretty.pretty(env["c"].grad_fn))


def test_seed001_grad_of_non_leaf_warns() -> None:
    env = run(SEED001_GRAPH)
    with pytest.warns(UserWarning, match="not a leaf Tensor is being accessed"):
        assert env["d"].grad is None


def test_seed001_backward_cells_and_second_backward() -> None:
    env = run(SEED001_GRAPH + "\nL = (10 - d)\n")
    assert env["d"].grad_fn.name() == "AddBackward0"
    assert env["L"].grad_fn.name() == "RsubBackward1"
    assert re.fullmatch(f"<RsubBackward1 object at {ADDR}>", repr(env["L"].grad_fn))
    assert env["L"].is_leaf is False and env["a"].is_leaf is True
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar"):
        env["L"].backward()
    run('print("Overwriting L")\nL = (10 -d).sum()\nL.backward()\n', env)
    _check_closed_forms(env)
    # "If you call backward more than once on a graph with non-leaf nodes ... error"
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second "
                                           "time"):
        env["L"].backward()


# ====================================================================== seed 002
def test_seed002_snippet_as_written() -> None:
    """The snippet rebinds ``y`` to a fresh leaf before ``z = 4 * y - 1``, so, exactly
    as in PyTorch, ``z`` does not depend on ``x`` and ``x.grad`` stays None."""
    env = run("""
import torch
x = torch.randn([3,3], requires_grad=True)
y = 2 * x + 3
y_first = y
y = torch.randn([3,3], requires_grad=True)
z = 4 * y - 1
z.sum().backward()
""")
    assert env["y_first"].grad_fn.name() == "AddBackward0"
    assert re.fullmatch(r"tensor\(\[\[.*\]\], grad_fn=<AddBackward0>\)", repr(env["y_first"]),
                        re.S)
    assert env["z"].grad_fn.name() == "SubBackward0"
    assert env["x"].grad is None
    assert repr(env["y"].grad) == ("tensor([[4., 4., 4.],\n        [4., 4., 4.],\n"
                                   "        [4., 4., 4.]])")


def test_seed002_chain_rule_gives_eights() -> None:
    """The derivation the tutorial prints: z = 4 y - 1 with y = 2 x + 3 gives 8s."""
    env = run("""
import torch
x = torch.randn([3,3], requires_grad=True)
y = 2 * x + 3
z = 4 * y - 1
z.sum().backward()
""")
    assert repr(env["x"].grad) == ("tensor([[8., 8., 8.],\n        [8., 8., 8.],\n"
                                   "        [8., 8., 8.]])")
    assert env["z"].grad_fn.name() == "SubBackward0"


def test_seed002_no_grad_context_and_decorator() -> None:
    env = run("""
x = torch.randn([3,3], requires_grad=True)
with torch.no_grad():
    # Your Custom code to implement
    inside = x * 2

@torch.no_grad()
def test_function(x):
   # do something with x
   return x * 2

decorated = test_function(x)
outside = x * 2
""")
    assert not env["inside"].requires_grad and env["inside"].grad_fn is None
    assert not env["decorated"].requires_grad
    assert env["outside"].requires_grad and torch.is_grad_enabled()


# ====================================================================== seed 003
def test_seed003_no_requires_grad_is_contagious_only_if_set() -> None:
    env = run("""
import torch

x = torch.randn(3,3) #requires_grad=False by default
y = torch.randn(3,3) #requires_grad=False by default

a = x+y # since both x and y don't require gradients, a also doesn't require gradients
""")
    assert env["a"].requires_grad is False and env["a"].grad_fn is None
    assert env["a"].is_leaf  # requires_grad=False tensors are leaves by convention


def test_seed003_div_backward() -> None:
    a = torch.tensor(2.0, requires_grad=True)
    b = torch.tensor(3.0, requires_grad=True)
    c = a / b
    assert c.grad_fn.name() == "DivBackward0"


def test_seed003_olah_graph() -> None:
    env = {"torch": torch,
           "a": torch.tensor(2.0, requires_grad=True), "b": torch.tensor(3.0, requires_grad=True),
           "c": torch.tensor(4.0, requires_grad=True), "d": torch.tensor(5.0, requires_grad=True)}
    ipython = "from IPython.display import display, Math\n" if _has_ipython() else ""
    run("""
import torch
""" + ipython + """# Define the graph a,b,c,d are leaf nodes and e is the root node
# The graph is constructed with every line since the
# computational graphs are dynamic in PyTorch

u = a*b
t = torch.log(d)
v = t*c
e = u+v
""", env)
    a, b, c, d, u, t, v, e = (env[k] for k in "a b c d u t v e".split())
    # "The leaves don't have grad_fn but will have gradients. Non leaf nodes have grad_fn
    # but don't have gradients. Before the backward() is called there are no grad values."
    for leaf in (a, b, c, d):
        assert leaf.is_leaf and leaf.grad_fn is None and leaf.grad is None
    for node, name in ((u, "MulBackward0"), (t, "LogBackward0"), (v, "MulBackward0"),
                       (e, "AddBackward0")):
        assert not node.is_leaf and node.grad_fn.name() == name
    run("e.backward()\nprint()\n", env)
    assert a.grad.item() == pytest.approx(3.0) and b.grad.item() == pytest.approx(2.0)
    assert c.grad.item() == pytest.approx(np.log(5.0))
    assert d.grad.item() == pytest.approx(4.0 / 5.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert u.grad is None


def _has_ipython() -> bool:
    try:
        import IPython.display  # noqa: F401
    except ImportError:
        return False
    return True


# ====================================================================== seed 004
SEED004 = """
import torch

a = torch.tensor([3.], requires_grad=True)
b = torch.tensor([1.], requires_grad=True)

c = a + b
d = b + 1
e = c * d

# grads populated for non-leaf nodes
c.retain_grad()
d.retain_grad()
e.retain_grad()

print(e)
"""


def test_seed004_all_cells(capsys: pytest.CaptureFixture) -> None:
    env = run(SEED004)
    assert capsys.readouterr().out == "tensor([8.], grad_fn=<MulBackward0>)\n"
    run("e.backward()\n", env)
    run("print(a.grad)\n", env)
    assert capsys.readouterr().out == "tensor([2.])\n"
    run("print(b.grad)\n", env)
    assert capsys.readouterr().out == "tensor([6.])\n"
    run("print(a.grad, b.grad, c.grad, d.grad, e.grad)\n", env)
    assert capsys.readouterr().out == \
        "tensor([2.]) tensor([6.]) tensor([2.]) tensor([4.]) tensor([1.])\n"
