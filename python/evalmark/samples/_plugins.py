"""Sample loader plug-ins: sources of samples the built-in file readers do not read (a URL
scheme, a database), registered in code or installed as ``evalmark.sample_loaders`` entry
points."""

from __future__ import annotations

import threading
from importlib import metadata as importlib_metadata
from typing import Protocol, runtime_checkable

from evalmark.errors import SampleError
from evalmark.samples._sample import Samples

__all__ = [
    "ENTRY_POINT_GROUP",
    "SampleLoader",
    "loader_for",
    "register_sample_loader",
    "unregister_sample_loader",
]

ENTRY_POINT_GROUP = "evalmark.sample_loaders"


@runtime_checkable
class SampleLoader(Protocol):
    """A source of samples that the built-in file loaders do not read."""

    def supports(self, source: object) -> bool:
        """True if this loader can load ``source``."""
        ...

    def load(self, source: object) -> Samples:
        """Load ``source`` into samples."""
        ...


_lock = threading.Lock()
_registered: list[SampleLoader] = []
_from_entry_points: list[SampleLoader] | None = None


def register_sample_loader(loader: SampleLoader) -> SampleLoader:
    """Register a loader; registered loaders are asked, in order, before the built-in ones."""
    if isinstance(loader, type):
        raise TypeError(
            f"register an instance, not the class: register_sample_loader({loader.__name__}())"
        )
    if not (
        callable(getattr(loader, "supports", None)) and callable(getattr(loader, "load", None))
    ):
        raise TypeError(
            f"a sample loader needs supports(source) and load(source) methods; "
            f"{type(loader).__name__} lacks them"
        )
    with _lock:
        if loader not in _registered:
            _registered.append(loader)
    return loader


def unregister_sample_loader(loader: SampleLoader) -> None:
    """Forget a loader registered with ``register_sample_loader``."""
    with _lock:
        try:
            _registered.remove(loader)
        except ValueError:
            raise ValueError(f"{loader!r} is not a registered sample loader") from None


def _entry_point_loaders() -> list[SampleLoader]:
    global _from_entry_points
    with _lock:
        if _from_entry_points is None:
            found: list[SampleLoader] = []
            points = importlib_metadata.entry_points(group=ENTRY_POINT_GROUP)
            for point in sorted(points, key=lambda p: p.name):
                try:
                    obj = point.load()
                    loader = obj() if isinstance(obj, type) else obj
                except Exception as exc:
                    raise SampleError(
                        f"the sample loader plug-in '{point.name}' ({point.value}) failed to "
                        f"load: {exc}; fix or uninstall the package that provides it"
                    ) from exc
                found.append(loader)
            _from_entry_points = found
        return list(_from_entry_points)


def loader_for(source: object) -> SampleLoader | None:
    """The first registered (then installed) loader that supports ``source``, or None."""
    with _lock:
        registered = list(_registered)
    for loader in [*registered, *_entry_point_loaders()]:
        if loader.supports(source):
            return loader
    return None
