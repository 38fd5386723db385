"""Properties of code extraction and pass@k at their edges: aliases name one language whatever
their case, a block's line is its opening fence, an indented fence's block is dedented, the other
fence character never closes a block, first/last/all pick the ends of the same list, the first
block not skipped is taken, a function extractor's blank answer is no code, a Python syntax
error is reported at its line, and pass@k meets its closed forms at k = 1 and k = n."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.code import check_python_syntax, extract_code
from evalmark.code._extract import _ALIASES, language_aliases, markdown_blocks
from evalmark.code._passk import mean_pass_at_k, pass_at_k

# one line of prose or code: no fence characters, no line breaks of any kind
LINE = st.text(
    st.characters(
        whitelist_categories=("Lu", "Ll", "Nd", "Zs"), whitelist_characters="=+-*/()[]:;,.#"
    ),
    max_size=30,
)
BODY = st.lists(LINE.filter(lambda s: s.strip() != ""), min_size=1, max_size=5)
ALIASES = st.sampled_from(sorted(a for names in _ALIASES.values() for a in names))


@settings(max_examples=examples(200))
@given(ALIASES, st.sampled_from(["", " ", "\t"]), st.booleans())
def test_every_alias_names_its_whole_group_in_any_case(alias: str, pad: str, upper: bool) -> None:
    (group,) = [names for names in _ALIASES.values() if alias in names]
    written = pad + (alias.upper() if upper else alias) + pad
    assert language_aliases(written) == group
    for other in group:
        assert language_aliases(other) == group


@settings(max_examples=examples(200))
@given(st.lists(st.tuples(st.sampled_from(["", "py", "js", "text"]), BODY), max_size=5), LINE)
def test_each_blocks_line_is_its_opening_fence(
    blocks: list[tuple[str, list[str]]], prose: str
) -> None:
    parts: list[str] = []
    for language, body in blocks:
        parts += [prose, f"```{language}", *body, "```"]
    text = "\n".join(parts)
    lines = text.splitlines()
    found = markdown_blocks(text)
    assert len(found) == len(blocks)
    for block, (language, body) in zip(found, blocks, strict=True):
        assert lines[block.line - 1] == f"```{language}"
        assert block.code == "\n".join(body) + "\n"


@settings(max_examples=examples(200))
@given(BODY, st.sampled_from([" ", "  ", "   ", "\t"]))
def test_an_indented_fences_block_loses_exactly_that_indentation(
    body: list[str], indent: str
) -> None:
    stripped = [line.lstrip(" \t") for line in body]
    text = "\n".join(
        ["- item", f"{indent}```python", *(indent + line for line in stripped), f"{indent}```"]
    )
    (block,) = markdown_blocks(text)
    assert block.language == "python"
    assert block.code == "\n".join(stripped) + "\n"


@settings(max_examples=examples(200))
@given(BODY, BODY, st.sampled_from([("```", "~~~"), ("~~~", "```")]))
def test_the_other_fence_character_never_closes_a_block(
    first: list[str], second: list[str], fences: tuple[str, str]
) -> None:
    outer, inner = fences
    text = "\n".join([outer, *first, inner, *second, outer])
    (block,) = markdown_blocks(text)
    assert block.code == "\n".join([*first, inner, *second]) + "\n"


@settings(max_examples=examples(200))
@given(st.lists(BODY, min_size=1, max_size=5))
def test_first_last_and_all_pick_the_ends_of_the_same_blocks(bodies: list[list[str]]) -> None:
    text = "\n\n".join("\n".join(["```python", *body, "```"]) for body in bodies)
    codes = ["\n".join(body) + "\n" for body in bodies]
    first = extract_code(text, language="py", select="first")
    last = extract_code(text, language="python", select="last")
    every = extract_code(text, language="python3", select="all")
    assert first.code == codes[0] and last.code == codes[-1]
    assert every.code == "\n".join(codes)
    assert first.blocks == last.blocks == every.blocks == len(bodies)


@settings(max_examples=examples(300))
@given(st.integers(1, 300).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))))
def test_pass_at_one_is_the_share_correct_and_pass_at_n_is_any_correct(
    drawn: tuple[int, int],
) -> None:
    n, c = drawn
    assert pass_at_k(n, c, 1) == pytest.approx(c / n, abs=1e-12)
    assert pass_at_k(n, c, n) == (1.0 if c > 0 else 0.0)


@settings(max_examples=examples(200))
@given(st.integers(1, 50), st.integers(-5, 60), st.integers(-5, 60))
def test_pass_at_k_refuses_exactly_the_impossible_counts(n: int, c: int, k: int) -> None:
    if 0 <= c <= n and 1 <= k <= n:
        assert 0.0 <= pass_at_k(n, c, k) <= 1.0
    else:
        with pytest.raises(ValueError, match="pass@"):
            pass_at_k(n, c, k)


@settings(max_examples=examples(200))
@given(
    st.lists(
        st.integers(1, 40).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))),
        min_size=1,
        max_size=8,
    ),
    st.integers(1, 3),
)
def test_repeating_every_task_leaves_the_mean_pass_at_k_unchanged(
    tasks: list[tuple[int, int]], times: int
) -> None:
    k = min(n for n, _ in tasks)
    assert mean_pass_at_k(tasks * times, k) == pytest.approx(mean_pass_at_k(tasks, k), abs=1e-12)


@settings(max_examples=examples(200))
@given(
    st.lists(
        st.tuples(st.sampled_from(["", "python", "text", "console", "output"]), BODY), max_size=5
    ),
    st.sets(st.sampled_from(["text", "console", "output", "python"])),
)
def test_without_a_language_the_first_block_not_skipped_is_taken(
    blocks: list[tuple[str, list[str]]], skip: set[str]
) -> None:
    text = "\n".join("\n".join([f"```{lang}", *body, "```"]) for lang, body in blocks)
    found = extract_code(text, skip=skip)
    kept = [body for lang, body in blocks if lang not in skip]
    if kept:
        assert found.code == "\n".join(kept[0]) + "\n"
    else:
        assert found.code is None and found.reason


@settings(max_examples=examples(200))
@given(st.none() | st.text(max_size=8), st.text(max_size=8))
def test_a_function_extractor_gives_its_code_or_nothing_when_blank(
    returned: str | None, reply: str
) -> None:
    found = extract_code(reply, lambda _: returned)
    if returned is None or not returned.strip():
        assert not found.ok and "found no code" in found.reason
    else:
        assert found.ok and found.code == returned


@settings(max_examples=examples(200))
@given(st.integers(0, 8), st.integers(0, 8), st.sampled_from(["x = = 1", "def f(:", "1 +* 2"]))
def test_a_python_syntax_error_is_reported_at_its_line(before: int, after: int, bad: str) -> None:
    lines = [f"v{i} = {i}" for i in range(before)] + [bad] + [f"w{i} = {i}" for i in range(after)]
    result = check_python_syntax("\n".join(lines) + "\n")
    assert not result.passed
    assert result.metadata["line"] == before + 1
    assert f"line {before + 1}," in result.explanation
