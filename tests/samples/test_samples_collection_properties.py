"""Properties of the ``Samples`` collection and ``Parameters`` for generated values: ``get`` is
indexing with a default, a predicate and its negation split the samples in order, a tag filter
over several tags is the in-order union of the single-tag filters, names find their positions,
slices add back to the whole, and any iterable makes the same collection as its tuple."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import Sample, Samples
from evalmark.errors import SampleError
from evalmark.samples._sample import Parameters

NAMES = st.lists(
    st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=6).filter(str.strip),
    max_size=10,
    unique=True,
)
TAGS = st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=3, unique=True)


@st.composite
def collections(draw: st.DrawFn) -> Samples:
    names = draw(NAMES)
    return Samples(
        tuple(
            Sample(name=name, parameters=[i], expected_output=str(i), tags=draw(TAGS))
            for i, name in enumerate(names)
        )
    )


@settings(max_examples=examples(200))
@given(st.lists(st.integers() | st.text(max_size=3) | st.none(), max_size=6), st.integers(-9, 9))
def test_parameters_get_is_indexing_with_a_default(values: list[Any], index: int) -> None:
    parameters = Parameters(values)
    inside = -len(values) <= index < len(values)
    sentinel = object()
    assert parameters.get(index, sentinel) is (values[index] if inside else sentinel)
    with pytest.raises(TypeError, match="integers"):
        parameters.get(True)  # type: ignore[arg-type]


@settings(max_examples=examples(200))
@given(collections(), st.sets(st.integers(0, 9)))
def test_a_predicate_and_its_negation_split_the_samples_in_order(
    samples: Samples, chosen: set[int]
) -> None:
    def keep(sample: Sample) -> bool:
        return sample.parameters[0] in chosen

    kept = samples.filter(keep)
    dropped = samples.filter(lambda sample: not keep(sample))
    assert len(kept) + len(dropped) == len(samples)
    position = {name: i for i, name in enumerate(samples.names)}
    for part in (kept, dropped):
        assert [position[n] for n in part.names] == sorted(position[n] for n in part.names)
    assert set(kept.names).isdisjoint(dropped.names)


@settings(max_examples=examples(200))
@given(collections(), st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=1, unique=True))
def test_filtering_by_several_tags_is_the_in_order_union_of_each(
    samples: Samples, tags: list[str]
) -> None:
    if not set(tags) <= set(samples.tags):
        with pytest.raises(SampleError):
            samples.filter_by_tags(*tags)
        return
    union = set().union(*(samples.filter_by_tags(tag).names for tag in tags))
    together = samples.filter_by_tags(*tags)
    assert together.names == tuple(n for n in samples.names if n in union)
    assert all(sample.has_tag(*tags) for sample in together)


@settings(max_examples=examples(200))
@given(collections(), st.text(max_size=4))
def test_a_name_finds_its_position_and_an_unknown_name_is_a_key_error(
    samples: Samples, other: str
) -> None:
    for i, name in enumerate(samples.names):
        assert samples.index(name) == i
        assert samples[name] is samples[i]
        assert name in samples and samples.count(samples[i]) == 1
    if other not in samples.names:
        assert other not in samples
        with pytest.raises(KeyError):
            samples.index(other)
        with pytest.raises(KeyError):
            samples[other]


@settings(max_examples=examples(200))
@given(collections(), st.integers(-12, 12))
def test_slices_add_back_to_the_whole_and_reverse_as_a_list(samples: Samples, cut: int) -> None:
    assert samples[:cut] + samples[cut:] == samples
    assert list(reversed(samples)) == list(samples)[::-1]
    assert Samples(sample for sample in samples) == samples
    assert Samples(list(samples)) == samples


@settings(max_examples=examples(200))
@given(collections(), st.data())
def test_adding_a_sample_already_held_is_refused_naming_it(
    samples: Samples, data: st.DataObject
) -> None:
    if not samples:
        return
    repeated = data.draw(st.sampled_from(list(samples)))
    with pytest.raises(SampleError) as caught:
        samples + Samples((repeated,))
    assert repr(repeated.name) in str(caught.value) or repeated.name in str(caught.value)
