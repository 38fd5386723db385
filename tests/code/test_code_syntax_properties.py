"""Property of the data syntax check: any text in any format gives a result (passed, or failed
with the reason), never an exception, and it passes exactly when the format's own parser reads
the text; the same for Python source and the compiler."""

from __future__ import annotations

import json
import tomllib
from typing import Any

import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.code import check_data_syntax, check_python_syntax

PIECES = st.sampled_from(["[", "]", "{", "}", '"a"', ":", ",", "- ", "a = ", "1", "\n", " "])
TEXTS = st.text(max_size=30) | st.lists(PIECES, max_size=30).map("".join)


def parses(text: str, format: str) -> bool:
    def no_constants(name: str) -> Any:
        raise ValueError(name)

    try:
        if format == "json":
            json.loads(text, parse_constant=no_constants)
        elif format == "yaml":
            for _ in yaml.safe_load_all(text):
                pass
        else:
            tomllib.loads(text)
    except (ValueError, yaml.YAMLError, RecursionError):
        return False
    return True


@settings(max_examples=examples(100), deadline=None)
@given(TEXTS, st.sampled_from(["json", "yaml", "toml"]))
@example("[" * 100_000, "json")  # was a raw RecursionError
@example("- " * 50_000, "yaml")  # was a raw RecursionError
@example("a = " + "[" * 100_000, "toml")  # was a raw RecursionError
def test_any_text_gives_a_result_that_passes_exactly_when_the_parser_reads_it(
    text: str, format: Any
) -> None:
    result = check_data_syntax(text, format)
    assert result.passed == parses(text, format)
    if not result.passed:
        assert result.metadata["reason"] == "parse_error"
        assert result.explanation.startswith(f"not valid {format.upper()}")


OPERATORS = st.sampled_from(["-", "not ", "(", "[", ".a", "x", "+", "1", " ", "\n", ":", "lambda:"])


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(OPERATORS, max_size=40).map("".join) | st.text(max_size=20))
@example("-" * 100_000 + "1")  # was a raw MemoryError from the parser
@example("x" + ".a" * 100_000)  # was a raw RecursionError
@example("not " * 100_000 + "x")  # was a raw MemoryError
def test_any_text_gives_a_python_syntax_result_never_an_exception(code: str) -> None:
    result = check_python_syntax(code)
    try:
        compile(code, "solution.py", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        assert not result.passed
        assert result.metadata["reason"] == "syntax_error"
    else:
        assert result.passed
