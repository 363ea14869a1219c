"""The user-facing transformations, built on the interpreters.

``autodiff`` (grad, vjp, jvp, linearize, make_jaxpr, no_grad), ``jacobians``
(jacfwd, jacrev, hessian), ``vmap``, ``jit`` (with its signature cache
``jit_cache``), ``custom`` (custom_jvp, custom_vjp, checkpoint),
``control_flow`` (cond, scan, while_loop, fori_loop: ``fad.lax``) and ``check``
(check_grads). What they share: ``arguments`` (argnums, names for messages),
``leaves`` (the arguments' leaves as arrays, tangents checked against values)
and ``programs`` (a staged body run, and its jvp and vjp programs). The
primitives these define (jit's call, cond, scan, the custom rules' calls) sit
here because their rules re-enter the interpreters.
"""
