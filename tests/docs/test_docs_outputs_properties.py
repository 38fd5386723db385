"""Properties of the docs-outputs checker's parser (tools/docs_outputs.py) on generated Markdown:
every marked fenced block is found with its commands and its place on the page, a block showing
output without a marker is refused naming its line, a command continued over lines stays one
command, and ``show`` keeps exactly the lines it names with ``...`` for each gap."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples

ROOT = Path(__file__).resolve().parents[2]


def _tool() -> ModuleType:
    if "docs_outputs" in sys.modules:
        return sys.modules["docs_outputs"]
    path = ROOT / "tools" / "docs_outputs.py"
    spec = importlib.util.spec_from_file_location("docs_outputs", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["docs_outputs"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


tool = _tool()

WORD = st.text("abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=8)
COMMAND = st.lists(WORD, min_size=1, max_size=3).map(lambda words: "echo " + " ".join(words))
PROSE = st.lists(WORD, min_size=1, max_size=4).map(" ".join)
OUTPUT = st.lists(PROSE, max_size=4)


@st.composite
def pages(draw: st.DrawFn) -> tuple[str, list[tuple[list[str], list[str]]]]:
    """A page of prose and marked blocks, and each block's commands and shown lines."""
    lines = ["# A page"]
    blocks = []
    for _ in range(draw(st.integers(0, 4))):
        lines += ["", draw(PROSE), ""]
        commands = draw(st.lists(COMMAND, min_size=1, max_size=3))
        if len(commands) == 1 and draw(st.booleans()):
            lines.append(f"<!-- output: {commands[0]} -->")
        else:
            lines += ["<!-- output", *(f"$ {c}" for c in commands), "-->"]
        fence = "`" * draw(st.integers(3, 5))
        shown = [f"$ {commands[0]}", *draw(OUTPUT)]
        lines += [fence, *shown, fence]
        blocks.append((commands, shown))
    lines += ["", draw(PROSE), ""]
    return "\n".join(lines), blocks


@settings(max_examples=examples(150))
@given(pages())
def test_every_marked_block_is_found_with_its_commands_and_its_place(
    drawn: tuple[str, list[tuple[list[str], list[str]]]],
) -> None:
    text, expected = drawn
    blocks, files = tool.find_blocks(text, "page.md")
    lines = text.split("\n")
    assert files == []
    assert len(blocks) == len(expected)
    for block, (commands, shown) in zip(blocks, expected, strict=True):
        assert [" ".join(e.command) for e in block.entries] == commands
        assert lines[block.start - 1] == block.fence == lines[block.end]
        assert lines[block.start : block.end] == shown


@settings(max_examples=examples(150))
@given(PROSE, COMMAND, st.lists(PROSE, min_size=1, max_size=3), st.sampled_from(["", "console"]))
def test_a_block_showing_output_without_a_marker_is_refused_at_its_line(
    prose: str, command: str, output: list[str], info: str
) -> None:
    lines = ["# A page", "", prose, "", f"```{info}", f"$ {command}", *output, "```", ""]
    with pytest.raises(tool.MarkerError, match=r"page\.md:5: .*no <!-- output --> marker"):
        tool.find_blocks("\n".join(lines), "page.md")
    # the same block with only commands shows no output and needs no marker
    assert tool.find_blocks("\n".join(lines[:6] + lines[-2:]), "page.md") == ([], [])


@settings(max_examples=examples(150))
@given(st.lists(st.lists(WORD, min_size=1, max_size=3), min_size=1, max_size=4))
def test_a_command_continued_over_lines_stays_one_command(parts: list[list[str]]) -> None:
    written = [" ".join(words) for words in parts]
    body = [f"$ {written[0]}" + (" \\" if len(written) > 1 else "")]
    body += [part + (" \\" if i < len(written) - 2 else "") for i, part in enumerate(written[1:])]
    (entry,) = tool._parse_entries(body, "page.md:1")
    assert entry.command == [body[0][2:], *body[1:]]


@settings(max_examples=examples(200))
@given(st.lists(PROSE, min_size=1, max_size=12), st.data())
def test_show_keeps_exactly_the_lines_named_with_dots_for_each_gap(
    lines: list[str], data: st.DataObject
) -> None:
    first = data.draw(st.integers(1, len(lines)))
    last = data.draw(st.integers(first, len(lines)))
    shown = tool.select(lines, f"{first}..{last}", "page.md:1")
    expected = (["..."] if first > 1 else []) + lines[first - 1 : last]
    expected += ["..."] if last < len(lines) else []
    assert shown == expected
    assert tool.select(lines, f"1..{len(lines)}", "page.md:1") == lines
    with pytest.raises(tool.MarkerError, match="beyond"):
        tool.select(lines, str(len(lines) + 1), "page.md:1")
