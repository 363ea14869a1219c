"""Pictures of a facade tensor's graph: the ``grad_fn`` nodes recorded behind it,
named after the caller's variables, and the order the gradient flows through them."""

from __future__ import annotations

import re
import types
from typing import Any, Callable, Mapping

from .graph import (
    _BWD_OP,
    _COTANGENT,
    _FWD_OP,
    _GRAD_OUT,
    _INPUT,
    _OUTPUT,
    Graph,
    _Canvas,
    _label,
    _names_by_identity,
)


def _is_tensor(obj: Any) -> bool:
    return (not isinstance(obj, type) and hasattr(obj, "grad_fn")
            and hasattr(obj, "requires_grad"))


def _is_grad_node(obj: Any) -> bool:
    return not isinstance(obj, type) and hasattr(obj, "next_functions")


def _node_name(fn: Any) -> str:
    name = getattr(fn, "name", None)
    try:
        text = name() if callable(name) else (name or type(fn).__name__)
    except Exception:  # noqa: BLE001
        text = type(fn).__name__
    text = str(text)
    return text.rsplit("::", 1)[-1]


def _next_functions(fn: Any) -> list[tuple[Any, int]]:
    try:
        nxt = fn.next_functions
    except Exception:  # noqa: BLE001
        return []
    out = []
    for entry in nxt or ():
        if isinstance(entry, tuple):
            out.append((entry[0], entry[1] if len(entry) > 1 else 0))
        else:
            out.append((entry, 0))
    return out


def _is_accumulate(fn: Any) -> bool:
    return hasattr(fn, "variable")


def _shape_text(t: Any) -> str:
    try:
        shape = tuple(int(s) for s in t.shape)
    except Exception:  # noqa: BLE001
        return ""
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


_SKIP_TYPES = (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType,
               types.MethodType)


def _scan_frame(frame: Any, want_tensor: set[int], want_fn: set[int]
                ) -> tuple[dict[int, str], dict[int, tuple[str, Any]]]:
    """Names of wanted tensors, and of tensors whose ``grad_fn`` is a wanted node,
    among ``frame``'s local then global variables (names starting with ``_`` skipped)."""
    tensor_names: dict[int, str] = {}
    fn_names: dict[int, tuple[str, Any]] = {}
    if frame is None:
        return tensor_names, fn_names
    scopes = [frame.f_locals]
    if frame.f_globals is not frame.f_locals:
        scopes.append(frame.f_globals)
    for scope in scopes:
        for key, val in list(scope.items()):
            if not isinstance(key, str) or key.startswith("_") or isinstance(val, _SKIP_TYPES):
                continue
            if id(val) in want_tensor and id(val) not in tensor_names:
                tensor_names[id(val)] = key
            if not want_fn:
                continue
            try:
                gf = getattr(val, "grad_fn", None)
            except Exception:  # noqa: BLE001
                continue
            if gf is not None and id(gf) in want_fn and id(gf) not in fn_names:
                fn_names[id(gf)] = (key, val)
    return tensor_names, fn_names


def _draw_tensors(roots: list, *, backward: bool, names: Any, frame: Any) -> Graph:
    given = _names_by_identity(names)
    # ---- walk the grad_fn graph (iteratively, from every root)
    fns: list[Any] = []
    index: dict[int, int] = {}
    stack: list[Any] = []
    root_fns: list[Any] = []

    def visit(fn: Any) -> None:
        if fn is not None and id(fn) not in index:
            index[id(fn)] = len(fns)
            fns.append(fn)
            stack.append(fn)

    for r in roots:
        fn = r if _is_grad_node(r) and not _is_tensor(r) else getattr(r, "grad_fn", None)
        root_fns.append(fn)
        visit(fn)
    inputs: dict[int, list[tuple[Any, int]]] = {}
    while stack:
        fn = stack.pop()
        nxt = _next_functions(fn)
        inputs[id(fn)] = nxt
        for child, _ in nxt:
            visit(child)

    # ---- names: explicit first, then the caller's variables
    leaf_vars = {id(fn): fn.variable for fn in fns if _is_accumulate(fn)}
    want_tensor = {id(v) for v in leaf_vars.values()} | {id(r) for r in roots}
    want_fn = {id(fn) for fn in fns if not _is_accumulate(fn)}
    tensor_names, fn_names = _scan_frame(frame, want_tensor, want_fn)
    if isinstance(names, Mapping):
        for k, v in names.items():
            obj, nm = (v, k) if isinstance(k, str) else (k, v)
            gf = getattr(obj, "grad_fn", None) if _is_tensor(obj) else None
            if gf is not None and id(gf) in want_fn:
                fn_names[id(gf)] = (nm, obj)
    tensor_names.update(given)

    root_names = {id(fn): fn_names.pop(id(fn))[0] for r, fn in zip(roots, root_fns)
                  if fn is not None and fn_names.get(id(fn), (None, None))[1] is r}

    def node_tensor_name(fn: Any) -> tuple[str, str]:
        """(name, shape) of the tensor a node produced, when known."""
        if _is_accumulate(fn):
            var = fn.variable
            return tensor_names.get(id(var), ""), _shape_text(var)
        if id(fn) in fn_names:
            nm, t = fn_names[id(fn)]
            return nm, _shape_text(t)
        return "", ""

    root_info = []
    for i, (r, fn) in enumerate(zip(roots, root_fns)):
        if _is_tensor(r):
            nm = tensor_names.get(id(r), "") or root_names.get(id(fn), "")
            root_info.append((nm or ("output" if len(roots) == 1 else f"output[{i}]"),
                              _shape_text(r)))
        else:
            root_info.append((_node_name(r), ""))

    canvas = _Canvas()
    if backward:
        with canvas.graph.subgraph(name="cluster_forward") as sub:
            sub.attr(label="forward graph", style="rounded", color="#999999",
                     fontname="Helvetica-Bold")
            _tensor_forward(canvas, sub, fns, index, inputs, roots, root_fns, root_info,
                            node_tensor_name, op_names=True)
        with canvas.graph.subgraph(name="cluster_backward") as sub:
            sub.attr(label="backward graph: the grad_fn nodes, gradients flow down",
                     style="rounded", color="#cc4125", fontname="Helvetica-Bold")
            _tensor_backward(canvas, sub, fns, index, inputs, roots, root_fns, root_info,
                             node_tensor_name)
    else:
        _tensor_forward(canvas, canvas.graph, fns, index, inputs, roots, root_fns, root_info,
                        node_tensor_name, op_names=False)
    return canvas.finish()


_BACKWARD_SUFFIX = re.compile(r"Backward\d*$")


def _tensor_forward(canvas: _Canvas, sub: Any, fns: list, index: dict, inputs: dict,
                    roots: list, root_fns: list, root_info: list, tname: Callable,
                    op_names: bool) -> None:
    """Forward direction: leaves and constants -> operator nodes -> outputs."""
    n_const = 0
    for k, fn in enumerate(fns):
        nid = f"fwd_n{k}"
        name, shape = tname(fn)
        if _is_accumulate(fn):
            canvas.node(sub, nid, _label(name or "leaf", shape), shape="box",
                        style="filled,rounded", fillcolor=_INPUT,
                        tooltip=f"leaf tensor {name} {shape}".strip())
            continue
        op = _node_name(fn)
        shown = (_BACKWARD_SUFFIX.sub("", op) or op) if op_names else op
        canvas.node(sub, nid, _label(shown, f"{name} {shape}".strip()), shape="box",
                    fillcolor=_FWD_OP, tooltip=f"grad_fn={op}")
        for child, _ in inputs.get(id(fn), []):
            if child is None:
                cid = f"fwd_const{n_const}"
                n_const += 1
                canvas.node(sub, cid, "constant", shape="plaintext", style="", fontsize="9",
                            fontcolor="#666666")
                canvas.edge(cid, nid, style="dotted")
            else:
                canvas.edge(f"fwd_n{index[id(child)]}", nid)
    for i, (r, fn) in enumerate(zip(roots, root_fns)):
        nid = f"fwd_out{i}"
        name, shape = root_info[i]
        canvas.node(sub, nid, _label(name, shape), shape="box", style="filled,bold",
                    fillcolor=_OUTPUT)
        if fn is not None:
            canvas.edge(f"fwd_n{index[id(fn)]}", nid)


def _tensor_backward(canvas: _Canvas, sub: Any, fns: list, index: dict, inputs: dict,
                     roots: list, root_fns: list, root_info: list, tname: Callable) -> None:
    """Gradient direction: grad of the output -> grad_fn nodes -> AccumulateGrad (leaf.grad)."""
    for i, fn in enumerate(root_fns):
        if fn is None:
            continue
        name, shape = root_info[i]
        nid = f"bwd_seed{i}"
        canvas.node(sub, nid, _label(f"grad of {name}", "ones" if shape in ("", "()") else shape),
                    shape="box", style="filled,rounded", fillcolor=_COTANGENT)
        canvas.edge(nid, f"bwd_n{index[id(fn)]}")
    for k, fn in enumerate(fns):
        nid = f"bwd_n{k}"
        op = _node_name(fn)
        name, shape = tname(fn)
        if _is_accumulate(fn):
            target = f"{name or 'leaf'}.grad"
            canvas.node(sub, nid, _label(op, f"into {target} {shape}".strip()), shape="box",
                        fillcolor=_GRAD_OUT, tooltip=f"accumulates the gradient into {target}")
            continue
        canvas.node(sub, nid, _label(op, f"gets grad of {name}" if name else ""), shape="box",
                    fillcolor=_BWD_OP, tooltip=f"{op}: backward of the operation" +
                    (f" that made {name}" if name else ""))
        for child, _ in inputs.get(id(fn), []):
            if child is not None:
                canvas.edge(nid, f"bwd_n{index[id(child)]}")
