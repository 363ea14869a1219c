"""Transformations as interpreters: jvp, vjp (tape), linearize/transpose, staging, evaluation."""
