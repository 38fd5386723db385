"""evalmark: offline-first, deterministic evaluation for LLM applications."""

from evalmark._core import __version__

__all__ = ["__version__"]
