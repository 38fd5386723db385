"""Properties of ``Sample`` and ``Samples`` values for generated fields: a sample is made exactly
when its fields are well formed (else a ``SampleError`` naming it), lists are kept as tuples;
``Samples`` behaves as the sequence of its samples (index, name look-up, slices, ``+``, ``in``)
and refuses a repeated name; and ``tags`` is every tag carried, sorted."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import Sample, Samples
from evalmark.errors import SampleError

TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=6)
NAMES = TEXT.filter(str.strip)
ANY = st.one_of(st.none(), st.integers(), TEXT, st.lists(TEXT, max_size=2), st.booleans())


@settings(max_examples=examples(100), deadline=None)
@given(
    st.one_of(NAMES, TEXT, st.integers(), st.none()),
    st.one_of(st.lists(ANY, max_size=2), st.lists(ANY, max_size=2).map(tuple), TEXT, st.integers()),
    st.one_of(st.none(), TEXT, st.integers()),
    st.one_of(st.none(), st.lists(TEXT, max_size=2)),
    st.lists(TEXT, max_size=2),
    st.one_of(st.lists(TEXT, max_size=2), st.lists(TEXT, max_size=2).map(tuple)),
)
def test_a_sample_is_made_exactly_when_its_fields_are_well_formed(
    name: Any, parameters: Any, output: Any, outputs: Any, facts: list[str], tags: Any
) -> None:
    good = (
        isinstance(name, str)
        and name.strip() != ""
        and isinstance(parameters, list | tuple)
        and (output is None or outputs is None)
        and (output is None or isinstance(output, str))
        and (output is not None or outputs is not None or bool(facts))
    )
    fields = dict(name=name, parameters=parameters, expected_output=output)
    fields.update(expected_outputs=outputs, expected_facts=facts, tags=tags)
    if not good:
        with pytest.raises(SampleError) as caught:
            Sample(**fields)
        if isinstance(name, str) and name.strip():
            assert repr(name) in str(caught.value) or f"'{name}'" in str(caught.value)
        return
    sample = Sample(**fields)
    assert list(sample.parameters) == list(parameters)
    assert sample.expected_facts == tuple(facts) and sample.tags == tuple(tags)
    assert sample.expected_outputs == (None if outputs is None else tuple(outputs))


def samples(names: list[str], tags: list[tuple[str, ...]] | None = None) -> Samples:
    tags = tags or [()] * len(names)
    return Samples(
        tuple(
            Sample(name=n, parameters=[n], expected_output=n, tags=t)
            for n, t in zip(names, tags, strict=True)
        )
    )


UNIQUE = st.lists(NAMES, max_size=6, unique=True)


@settings(max_examples=examples(100), deadline=None)
@given(UNIQUE, st.integers(-8, 8), st.integers(-8, 8))
def test_samples_behave_as_the_sequence_of_their_samples(names: list[str], a: int, b: int) -> None:
    items = samples(names)
    plain = list(items)
    assert len(items) == len(names) and items.names == tuple(names)
    assert list(items[a:b]) == plain[a:b] and isinstance(items[a:b], Samples)
    assert list(reversed(items)) == plain[::-1]
    for i, name in enumerate(names):
        assert items[i] is plain[i] and items[name] is plain[i] and items.index(name) == i
        assert name in items and plain[i] in items and items.count(plain[i]) == 1
    with pytest.raises(KeyError):
        items["\x00 no such sample"]


@settings(max_examples=examples(100), deadline=None)
@given(UNIQUE, UNIQUE)
def test_adding_samples_keeps_order_or_refuses_a_repeated_name(
    first: list[str], second: list[str]
) -> None:
    if set(first) & set(second):
        with pytest.raises(SampleError):
            samples(first) + samples(second)
    else:
        assert (samples(first) + samples(second)).names == tuple(first + second)


@settings(max_examples=examples(100), deadline=None)
@given(
    st.lists(
        st.tuples(NAMES, st.lists(st.sampled_from(["a", "b", "名", "z"]), max_size=3).map(tuple)),
        max_size=6,
        unique_by=lambda t: t[0],
    )
)
def test_the_tags_of_samples_are_every_tag_carried_sorted(
    rows: list[tuple[str, tuple[str, ...]]],
) -> None:
    items = samples([n for n, _ in rows], [t for _, t in rows])
    assert items.tags == tuple(sorted({t for _, tags in rows for t in tags}))
    for tag in items.tags:
        kept = items.filter_by_tags(tag)
        assert kept.names == tuple(n for n, tags in rows if tag in tags)
        assert all(s.has_tag(tag) for s in kept)
