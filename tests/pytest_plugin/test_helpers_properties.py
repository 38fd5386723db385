"""Properties of the pytest helpers over generated samples: ``per_sample`` makes one test per
sample, in order, with the sample's name as its id, and a tag filter keeps exactly the samples
that ``load_samples`` keeps for it."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import Sample, Samples, load_samples
from evalmark.errors import SampleError
from evalmark.pytest import per_sample

NAMES = st.text(alphabet=st.characters(exclude_categories=["Cs"]), min_size=1, max_size=6).filter(
    str.strip
)
TAGS = st.lists(st.sampled_from(["a", "b", "c"]), max_size=2, unique=True).map(tuple)


def parametrized(test: Any) -> Any:
    (mark,) = [m for m in test.pytestmark if m.name == "parametrize"]
    return mark


@settings(max_examples=examples(100), deadline=None)
@given(
    st.lists(st.tuples(NAMES, TAGS), max_size=6, unique_by=lambda t: t[0]),
    st.none() | st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=2),
)
def test_per_sample_makes_one_test_per_sample_kept_named_by_the_sample(
    rows: list[tuple[str, tuple[str, ...]]], tags: list[str] | None
) -> None:
    items = Samples(
        tuple(Sample(name=n, parameters=[], expected_output="x", tags=t) for n, t in rows)
    )

    def test_it(sample: Sample) -> None:
        """A test."""

    try:
        kept = list(load_samples(items, tags=tags)) if tags else list(items)
    except SampleError:  # no sample carries the tag: a misspelt tag, refused alike
        with pytest.raises(SampleError):
            per_sample(items, tags=tags)(test_it)
        return
    mark = parametrized(per_sample(items, tags=tags)(test_it))
    assert mark.args[0] == "sample"
    assert list(mark.args[1]) == kept
    assert list(mark.kwargs["ids"]) == [s.name for s in kept]
