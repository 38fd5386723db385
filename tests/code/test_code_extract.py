"""Code extraction: fenced blocks, language filters, skipped kinds, selection, functions."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalmark.code import extract_code
from evalmark.code._extract import language_aliases, markdown_blocks

REPLY = """Here is the function:

```python
def add(a, b):
    return a + b
```

Try it:

```bash
python -c 'print(add(1, 2))'
```

Output:

```text
3
```

```json
{"a": 1}
```
"""


def test_blocks_are_found_in_order_with_their_language_and_line() -> None:
    blocks = markdown_blocks(REPLY)
    assert [b.language for b in blocks] == ["python", "bash", "text", "json"]
    assert blocks[0].code == "def add(a, b):\n    return a + b\n"
    assert blocks[0].line == 3
    assert blocks[3].code == '{"a": 1}\n'


def test_shell_console_text_and_json_blocks_are_skipped_by_default() -> None:
    reply = "```console\n$ ls\n```\n```json\n{}\n```\n```sh\nls\n```\n```\nx = 1\n```\n"
    found = extract_code(reply)
    assert found.code == "x = 1\n"
    assert found.blocks == 4


def test_a_language_filter_takes_its_aliases_and_unlabeled_blocks() -> None:
    reply = "```js\nlet a\n```\n```py\nA = 1\n```\n```\nB = 2\n```\n"
    assert extract_code(reply, language="python", select="all").code == "A = 1\n\nB = 2\n"
    strict = extract_code(reply, language="python", select="all", unlabeled=False)
    assert strict.code == "A = 1\n"
    assert extract_code(reply, language="javascript").code == "let a\n"


def test_an_explicit_language_overrides_the_skip_list() -> None:
    assert extract_code(REPLY, language="json").code == '{"a": 1}\n'
    assert extract_code(REPLY, language="shell").code == "python -c 'print(add(1, 2))'\n"


def test_tilde_fences_longer_fences_and_fences_inside_blocks() -> None:
    reply = "~~~python\nA = '```'\n~~~\n"
    assert extract_code(reply).code == "A = '```'\n"
    nested = "````markdown\n```python\nX = 1\n```\n````\n"
    blocks = markdown_blocks(nested)
    assert len(blocks) == 1 and blocks[0].language == "markdown"
    assert "```python" in blocks[0].code


def test_indented_fences_in_list_items_are_dedented() -> None:
    reply = "1. Write it:\n   ```python\n   def f():\n       return 1\n   ```\n"
    assert extract_code(reply).code == "def f():\n    return 1\n"


def test_an_unclosed_fence_runs_to_the_end() -> None:
    assert extract_code("```python\nX = 1\nY = 2").code == "X = 1\nY = 2\n"


def test_info_string_attributes_and_case() -> None:
    reply = "```Python title=solution.py\nX = 1\n```\n```{.py}\nY = 2\n```\n"
    assert [b.language for b in markdown_blocks(reply)] == ["python", "py"]
    assert extract_code(reply, language="python", select="all").code == "X = 1\n\nY = 2\n"


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("just prose, no code", "no fenced code block in the output"),
        ("```bash\nls\n```\n```text\nout\n```", "no code block to check in the output"),
        ("```\n\n```", "the code block is empty"),
    ],
)
def test_nothing_to_extract_says_why(reply: str, reason: str) -> None:
    found = extract_code(reply)
    assert found.code is None and not found.ok
    assert found.reason.startswith(reason)


def test_the_reason_lists_the_blocks_that_were_there() -> None:
    found = extract_code("```bash\nls\n```\n```js\nx\n```", language="python", unlabeled=False)
    assert found.reason == "no python code block in the output (found: bash, js)"


def test_a_function_extractor() -> None:
    def between_tags(text: str) -> str | None:
        if "<code>" not in text:
            return None
        return text.split("<code>", 1)[1].split("</code>", 1)[0]

    assert extract_code("<code>X = 1</code>", between_tags).code == "X = 1"
    found = extract_code("nothing", between_tags)
    assert found.code is None and "extractor function" in found.reason
    assert extract_code("<code> </code>", between_tags).code is None


def test_bad_options_are_errors() -> None:
    with pytest.raises(ValueError, match="unknown extractor"):
        extract_code("x", "html")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="select"):
        extract_code("```\nx\n```", select="middle")  # type: ignore[arg-type]


def test_language_aliases() -> None:
    assert "py" in language_aliases("Python")
    assert language_aliases("rust") == frozenset({"rust"})


@given(st.lists(st.text(alphabet="abc =\n'xyz()", max_size=40), min_size=1, max_size=4))
def test_blocks_round_trip(bodies: list[str]) -> None:
    # Any code without fence lines comes back exactly from a reply that fences it.
    clean = [b.replace("`", "").replace("~", "").rstrip("\n") for b in bodies]
    reply = "".join(f"intro\n```python\n{body}\n```\n" for body in clean)
    blocks = markdown_blocks(reply)
    assert [b.code for b in blocks] == [body + "\n" for body in clean]
