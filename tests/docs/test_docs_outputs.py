"""tools/docs_outputs.py writes the outputs the docs show from the real commands, and
``--check`` (CI's ``make docs-check``) fails when a shown output differs from what its command
prints, or when a page shows output that no marker produces."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _tool() -> ModuleType:
    path = ROOT / "tools" / "docs_outputs.py"
    spec = importlib.util.spec_from_file_location("docs_outputs", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["docs_outputs"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


tool = _tool()

PAGE = """# A page

<!-- output
$ printf 'one\\ntwo\\nthree\\nfour\\n'
  show: 2..3
$ sh -c 'echo "took 1.23s"; exit 3'
  sub: /\\d+\\.\\d+s/0.50s/
-->
```
$ printf 'one\\ntwo\\nthree\\nfour\\n'
stale
```

after
"""

WRITTEN = """# A page

<!-- output
$ printf 'one\\ntwo\\nthree\\nfour\\n'
  show: 2..3
$ sh -c 'echo "took 1.23s"; exit 3'
  sub: /\\d+\\.\\d+s/0.50s/
-->
```
$ printf 'one\\ntwo\\nthree\\nfour\\n'
...
two
three
...
[exit 0]

$ sh -c 'echo "took 1.23s"; exit 3'
took 0.50s
[exit 3]
```

after
"""


def _main(root: Path, *args: str) -> int:
    code: int = tool.main(["--root", str(root), *args])
    return code


def test_a_stale_output_fails_the_check_and_is_rewritten_from_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "page.md"
    page.write_text(PAGE, encoding="utf-8")
    assert _main(tmp_path, "--check", str(page)) == 1
    assert "-stale" in capsys.readouterr().out
    assert page.read_text(encoding="utf-8") == PAGE  # --check writes nothing
    assert _main(tmp_path, str(page)) == 0
    assert page.read_text(encoding="utf-8") == WRITTEN
    assert _main(tmp_path, "--check", str(page)) == 0  # idempotent
    assert _main(tmp_path, str(page)) == 0
    assert page.read_text(encoding="utf-8") == WRITTEN


def test_an_output_without_a_marker_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "page.md"
    page.write_text("text\n\n```\n$ evalmark run x\noverall 86.1%\n```\n", encoding="utf-8")
    assert _main(tmp_path, "--check", str(page)) == 2
    assert "page.md:3: this block shows a command's output but has no" in capsys.readouterr().err
    # commands alone, with no output, need no marker
    page.write_text("```\n$ evalmark run x \\\n    --build y\n$ evalmark tune x\n```\n")
    assert _main(tmp_path, "--check", str(page)) == 0


def test_file_blocks_hidden_setup_and_regex_ranges(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "<!-- file: out/data.txt -->\n```text\nalpha\nbeta\ngamma\ndelta\n```\n\n"
        "<!-- output\n$ cp out/data.txt out/copy.txt\n  hidden\n"
        "$ cd out && cat copy.txt\n  show: /^b/ .. /^g/\n  exit: hide\n-->\n```\n```\n",
        encoding="utf-8",
    )
    assert _main(tmp_path, str(page)) == 0
    text = page.read_text(encoding="utf-8")
    assert text.endswith("-->\n```\n$ cd out && cat copy.txt\n...\nbeta\ngamma\n...\n```\n")


def test_a_marker_names_its_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "page.md"
    page.write_text("<!-- output\n$ echo a\n  shw: 1\n-->\n```\n```\n", encoding="utf-8")
    assert _main(tmp_path, str(page)) == 2
    assert "page.md:1: unknown marker option 'shw: 1'" in capsys.readouterr().err
    page.write_text("<!-- output\n$ echo a\n  show: /^b/\n-->\n```\n```\n", encoding="utf-8")
    assert _main(tmp_path, str(page)) == 2
    assert "show: no output line matches /^b/" in capsys.readouterr().err


def test_every_shown_output_of_the_docs_has_a_marker() -> None:
    marked = 0
    for page in tool.pages():
        blocks, _files = tool.find_blocks(page.read_text(encoding="utf-8"), page.name)
        marked += len(blocks)
    assert marked >= 15
    demo = (ROOT / "docs" / "demo.md").read_text(encoding="utf-8")
    assert "<!-- output: evalmark report diff" in demo


def test_a_block_needing_a_missing_program_is_left_as_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "page.md"
    marker = "<!-- output\n$ echo new\n  requires: no-such-program-here\n-->\n"
    text = marker + "```\n$ echo new\nold\n```\n"
    page.write_text(text, encoding="utf-8")
    assert _main(tmp_path, "--check", str(page)) == 0
    assert "page.md:5: not run, no-such-program-here is not installed" in capsys.readouterr().err
    assert page.read_text(encoding="utf-8") == text
