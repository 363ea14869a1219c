"""The IR, tracing machinery, primitive objects and errors: fad's core."""
