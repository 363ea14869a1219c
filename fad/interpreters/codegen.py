"""Turn an optimised jaxpr into one generated Python function for a backend.

Every equation becomes one line calling the primitive's kernel for the backend
(``prim.kernel(xp, **params)``, or its implementation with the parameters
bound), values are deleted after their last use, and an elementwise kernel
writes into a dead input buffer of the same shape and dtype (``out=``) when that
buffer was freshly produced by an earlier kernel and never viewed by another
equation — so intermediates cost no new allocations.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from ..core.ir import ClosedJaxpr, Literal, Var
from .evaluate import last_uses


def _kernel(eqn: Any, xp: Any) -> Callable:
    prim = eqn.primitive
    if prim.kernel is not None:
        return prim.kernel(xp, **eqn.params)
    return functools.partial(prim._impl, xp, **eqn.params)


def _copy(x: Any) -> Any:
    return x.copy() if hasattr(x, "copy") else x


def compile_jaxpr(closed: ClosedJaxpr, xp: Any) -> Callable:
    """A function ``(*args) -> list of outputs`` that runs ``closed`` on ``xp``."""
    jaxpr = closed.jaxpr
    ns: dict[str, Any] = {}
    names: dict[Var, str] = {}
    for i, (v, c) in enumerate(zip(jaxpr.constvars, closed.consts)):
        names[v] = f"c{i}"
        ns[f"c{i}"] = c
    args = []
    for i, v in enumerate(jaxpr.invars):
        names[v] = f"a{i}"
        args.append(f"a{i}")
    lit_count = 0

    def name(a: Any) -> str:
        nonlocal lit_count
        if type(a) is Literal:
            lit_count += 1
            ns[f"l{lit_count}"] = a.val
            return f"l{lit_count}"
        return names[a]

    lines = [f"def compiled({', '.join(args)}):"]
    dead_after = last_uses(jaxpr)
    outputs = set(v for v in jaxpr.outvars if type(v) is Var)
    fresh: set[Var] = set()      # buffers a kernel allocated that nobody views
    viewed: set[Var] = set()
    reuse_out = xp.__name__ in ("numpy", "cupy")
    for i, eqn in enumerate(jaxpr.eqns):
        ns[f"k{i}"] = _kernel(eqn, xp)
        ins = ", ".join(name(a) for a in eqn.invars)
        for k, v in enumerate(eqn.outvars):
            names[v] = f"v{i}_{k}"
        outs = ", ".join(names[v] for v in eqn.outvars)
        if eqn.primitive.multiple_results:
            outs += ","
        out_kw = ""
        writes_fresh = getattr(eqn.primitive, "fresh_output", False)
        if writes_fresh and reuse_out and len(eqn.outvars) == 1:
            target = eqn.outvars[0]
            for a in dict.fromkeys(eqn.invars):
                if type(a) is Var and a in fresh and a not in viewed and a in dead_after[i] \
                        and a not in outputs and a.aval == target.aval and target.aval.shape:
                    out_kw = f", out={names[a]}"
                    fresh.discard(a)
                    break
        lines.append(f"    {outs} = k{i}({ins}{out_kw})" if eqn.outvars else f"    k{i}({ins})")
        if writes_fresh:
            fresh.update(eqn.outvars)
        else:
            viewed.update(a for a in eqn.invars if type(a) is Var)
        dead = [names[v] for v in dead_after[i] if v not in outputs and v in names
                and not names[v].startswith("c")]
        if dead:
            lines.append(f"    del {', '.join(dead)}")
    # an output that is a constant (folded, or closed over), a literal or another
    # output is copied: the caller may write into it, which must not change the
    # cached program or a second output
    rets, seen = [], set()
    for v in jaxpr.outvars:
        ret = name(v)
        if ret[0] in "cl" or ret in seen:
            ns["_copy"] = _copy
            ret = f"_copy({ret})"
        seen.add(name(v) if type(v) is Var else ret)
        rets.append(ret)
    lines.append(f"    return [{', '.join(rets)}]")
    source = "\n".join(lines)
    exec(compile(source, "<fad.jit>", "exec"), ns)
    fn = ns.pop("compiled")  # (no cycle through its own globals)
    fn.source = source
    return fn
