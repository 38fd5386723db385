"""Generated evaluation cases for the engine's property tests: short answers and expected
outputs drawn from a few words, their tags, the samples they make and the application that
answers each sample with its own parameter."""

from __future__ import annotations

from hypothesis import strategies as st

from evalmark import Sample, Samples

# A case is (expected output, the application's answer, tags).
Case = tuple[str, str, list[str]]

_WORDS = ("yes", "no", "maybe", "the answer", "42", "Paris")

WORDS = st.sampled_from(_WORDS)
# the same words and one that differs from another only by its case ("Paris" / "paris")
WORDS_AND_CASE = st.sampled_from((*_WORDS, "paris"))


def cases_of(words: st.SearchStrategy[str]) -> st.SearchStrategy[list[Case]]:
    """Lists of 1 to 10 cases whose expected outputs and answers are drawn from ``words``."""
    return st.lists(
        st.tuples(words, words, st.lists(st.sampled_from(["a", "b"]), max_size=2, unique=True)),
        min_size=1,
        max_size=10,
    )


CASES = cases_of(WORDS)
CASES_AND_CASE = cases_of(WORDS_AND_CASE)


def samples_of(cases: list[Case]) -> Samples:
    """One sample per case, named ``s0``, ``s1``...: the answer is its parameter."""
    return Samples(
        tuple(
            Sample(name=f"s{i}", parameters=[answer], expected_output=want, tags=tuple(tags))
            for i, (want, answer, tags) in enumerate(cases)
        )
    )


def echo(answer: str) -> str:
    """The application under test: answers with its parameter."""
    return answer
