"""Optional integrations with other tools; each one needs its own extra."""

__all__: list[str] = []
