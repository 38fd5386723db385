"""Properties of code extraction, the static syntax checks and pass@k, for generated inputs."""

from __future__ import annotations

import ast
import itertools
import json
import math
import tomllib
from fractions import Fraction

import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.code import check_data_syntax, check_python_syntax, extract_code, pass_at_k
from evalmark.code._extract import markdown_blocks
from evalmark.code._passk import mean_pass_at_k

# a line of code or prose that is not a fence line (no line starting with ``` or ~~~ after
# indentation), without line breaks of its own
_LINE_CHARS = st.characters(exclude_categories=("Cs", "Zl", "Zp", "Cc"))
line = st.text(_LINE_CHARS, max_size=30).filter(
    lambda s: not s.lstrip(" \t").startswith(("```", "~~~"))
)
code_body = st.lists(line, min_size=1, max_size=8).map("\n".join)
language = st.sampled_from(["python", "py", "json", "yaml", "toml", "sh", "text", ""])


def fenced(code: str, lang: str, fence: str = "```") -> str:
    """``code`` in one fenced block labelled ``lang``."""
    return f"{fence}{lang}\n{code}\n{fence}\n"


@settings(max_examples=examples(100))
@given(code_body, language, st.sampled_from(["```", "````", "~~~"]), line, line)
@example("x = 1", "python", "```", "", "")
def test_a_fenced_block_round_trips(
    code: str, lang: str, fence: str, before: str, after: str
) -> None:
    text = f"{before}\n{fenced(code, lang, fence)}{after}\n"
    blocks = markdown_blocks(text)
    assert len(blocks) == 1
    assert blocks[0].code == code + "\n"
    assert blocks[0].language == lang.lower()
    assert blocks[0].line == 2  # the 1-based line of the opening fence
    found = extract_code(text, skip=())
    if code.strip():
        assert found.code == code + "\n"
    else:
        assert found.code is None and "empty" in found.reason


@settings(max_examples=examples(100))
@given(st.lists(st.tuples(code_body, language), min_size=1, max_size=5), line)
@example([("A = 1", "python"), ("B = 2", "python")], "text")
def test_every_block_is_found_in_order(blocks: list[tuple[str, str]], prose: str) -> None:
    text = "".join(f"{prose}\n{fenced(code, lang)}" for code, lang in blocks)
    found = markdown_blocks(text)
    assert [(b.code, b.language) for b in found] == [(c + "\n", lang) for c, lang in blocks]
    every = extract_code(text, select="all", skip=())
    joined = "\n".join(c + "\n" for c, _ in blocks)
    assert every.code == (joined if joined.strip() else None)
    assert every.blocks == len(blocks)
    first = extract_code(text, skip=())
    assert first.code == (blocks[0][0] + "\n" if blocks[0][0].strip() else None)
    last = extract_code(text, select="last", skip=())
    assert last.code == (blocks[-1][0] + "\n" if blocks[-1][0].strip() else None)


@settings(max_examples=examples(100))
@given(st.lists(st.tuples(code_body, language), min_size=1, max_size=5))
def test_a_language_filter_keeps_its_aliases_and_unlabeled_blocks(
    blocks: list[tuple[str, str]],
) -> None:
    text = "".join(fenced(code, lang) for code, lang in blocks)
    found = extract_code(text, language="python", select="all")
    wanted = [c + "\n" for c, lang in blocks if lang in ("python", "py", "")]
    joined = "\n".join(wanted)
    assert found.code == (joined if joined.strip() else None)


@settings(max_examples=examples(100))
@given(st.text(max_size=60))
@example("x = 1\n")
@example("  \n")
def test_no_extractor_returns_the_text_unless_blank(text: str) -> None:
    found = extract_code(text, "none")
    assert found.code == (text if text.strip() else None)
    assert found.reason == ("" if text.strip() else "the output is empty")


@settings(max_examples=examples(100))
@given(st.text(max_size=200))
@example("```\nunclosed")
def test_any_text_gives_blocks_or_a_reason(text: str) -> None:
    found = extract_code(text)
    assert (found.code is None) == bool(found.reason)
    assert found.blocks == (len(markdown_blocks(text)) if found.blocks else found.blocks)


def _parses_as_python(code: str) -> bool:
    try:
        compile(ast.parse(code), "s.py", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


python_text = st.lists(
    st.sampled_from(
        ["x", "=", "1", "(", ")", ":", "def f", "return", "\n", "    ", " ", "if x", "'", "\0", "#"]
    ),
    max_size=12,
).map("".join)


@settings(max_examples=examples(120))
@given(python_text | st.text(max_size=30))
@example("return 1")
@example("x = '\0'")
def test_python_syntax_agrees_with_the_compiler(code: str) -> None:
    result = check_python_syntax(code)
    assert result.passed == _parses_as_python(code)
    if not result.passed:
        assert result.metadata["reason"] == "syntax_error"


_leaves = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=10)
)
_nested = st.lists(_leaves, max_size=3) | st.dictionaries(st.text(max_size=5), _leaves, max_size=3)
# JSON values nested up to three levels
json_values = (
    _leaves
    | _nested
    | st.lists(_nested, max_size=3)
    | st.dictionaries(st.text(max_size=5), _nested, max_size=3)
)


def _json_ok(text: str) -> bool:
    def refuse(name: str) -> object:
        raise ValueError(name)

    try:
        json.loads(text, parse_constant=refuse)
    except ValueError:
        return False
    return True


@settings(max_examples=examples(120))
@given(json_values.map(json.dumps) | st.text(st.sampled_from('{}[]",:0 1e-\nNaN tru'), max_size=15))
@example("NaN")
@example('{"a": 1,}')
def test_json_syntax_agrees_with_json_loads(text: str) -> None:
    result = check_data_syntax(text, "json")
    assert result.passed == _json_ok(text)
    if not result.passed:
        lines = text.count("\n") + 1
        assert 1 <= result.metadata.get("line", 1) <= lines


def _yaml_ok(text: str) -> bool:
    try:
        for _ in yaml.safe_load_all(text):
            pass
    except yaml.YAMLError:
        return False
    return True


@settings(max_examples=examples(100))
@given(
    json_values.map(lambda v: yaml.safe_dump(v, allow_unicode=True))
    | st.text(st.sampled_from("ab:- \n[]{}'\"#&*!|>%@`\t"), max_size=20)
)
@example("a: [")
@example("--- 1\n--- 2\n")
def test_yaml_syntax_agrees_with_safe_load(text: str) -> None:
    result = check_data_syntax(text, "yaml")
    assert result.passed == _yaml_ok(text)


def _toml_ok(text: str) -> bool:
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return False
    return True


@settings(max_examples=examples(100))
@given(st.text(st.sampled_from("ab=[]{}.\"' \n1#,-_:"), max_size=20))
@example('a = "x"\n[t]\nb = [1, 2]\n')
@example("a = 1\na = 2\n")
def test_toml_syntax_agrees_with_tomllib(text: str) -> None:
    result = check_data_syntax(text, "toml")
    assert result.passed == _toml_ok(text)


@settings(max_examples=examples(100))
@given(
    st.integers(1, 10).flatmap(
        lambda n: st.tuples(st.just(n), st.integers(0, n), st.integers(1, n))
    )
)
@example((1, 0, 1))
@example((10, 10, 10))
def test_pass_at_k_equals_counting_every_draw(nck: tuple[int, int, int]) -> None:
    n, c, k = nck
    samples = [True] * c + [False] * (n - c)
    draws = list(itertools.combinations(range(n), k))
    hits = sum(any(samples[i] for i in draw) for draw in draws)
    assert math.isclose(
        pass_at_k(n, c, k), float(Fraction(hits, len(draws))), rel_tol=1e-12, abs_tol=1e-15
    )


@settings(max_examples=examples(100))
@given(
    st.integers(1, 300).flatmap(
        lambda n: st.tuples(st.just(n), st.integers(0, n), st.integers(1, n))
    )
)
def test_pass_at_k_is_monotone_in_correct_samples_and_k(nck: tuple[int, int, int]) -> None:
    n, c, k = nck
    value = pass_at_k(n, c, k)
    assert 0.0 <= value <= 1.0
    if c < n:
        assert pass_at_k(n, c + 1, k) >= value
    if k < n:
        assert pass_at_k(n, c, k + 1) >= value
    assert (value == 0.0) == (c == 0)


@settings(max_examples=examples(100))
@given(
    st.lists(
        st.integers(2, 20).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))),
        min_size=1,
        max_size=8,
    )
)
def test_mean_pass_at_k_is_the_mean_of_the_tasks(counts: list[tuple[int, int]]) -> None:
    values = [pass_at_k(n, c, 2) for n, c in counts]
    assert mean_pass_at_k(counts, 2) == math.fsum(values) / len(values)
    assert mean_pass_at_k(reversed(counts), 2) == mean_pass_at_k(counts, 2)
