"""``gc_paused``: the collector is off inside and back on after; with ``promote`` what was
made is moved into the oldest generation, unless something is frozen (then it is left be)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from evalmark._files.source import gc_paused


@pytest.fixture
def collector_on() -> Iterator[None]:
    """The collector enabled and nothing frozen, as a program usually runs."""
    was_enabled = gc.isenabled()
    gc.unfreeze()
    gc.enable()
    yield
    gc.unfreeze()
    if not was_enabled:
        gc.disable()


def _in_oldest(value: object) -> bool:
    return any(item is value for item in gc.get_objects(generation=2))


@pytest.mark.usefixtures("collector_on")
def test_promote_moves_what_was_made_into_the_oldest_generation() -> None:
    with gc_paused(promote=True):
        assert not gc.isenabled()
        kept = [[index] for index in range(10)]
    assert gc.isenabled()
    assert _in_oldest(kept) and _in_oldest(kept[0])


@pytest.mark.usefixtures("collector_on")
def test_promote_leaves_frozen_objects_frozen() -> None:
    frozen = [[1]]
    gc.freeze()
    count = gc.get_freeze_count()
    with gc_paused(promote=True):
        assert not gc.isenabled()
    assert gc.isenabled()
    assert gc.get_freeze_count() == count  # nothing unfrozen
    assert not _in_oldest(frozen)
