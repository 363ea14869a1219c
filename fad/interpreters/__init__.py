"""Transformations as interpreters: forward mode (``jvp``), the reverse-mode tape
(``tape``), linearize/transpose (``linearize``), batching, staging and evaluation;
jit's passes over the IR (``optimize``) and its generated code (``codegen``)."""
