"""``fad.debug``: looking at values inside transformed functions."""

__all__: list[str] = []
