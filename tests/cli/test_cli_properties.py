"""Properties of the command line: any argument list ends with exit 0, 1 or 2, never a traceback.

The words are drawn from the commands' own option names, a few file names that exist (with
odd contents) and arbitrary text, and run in-process through ``evalmark.cli.main`` in an empty
temporary folder. Commands that start subprocesses or servers (``code``, ``run``, ``traces``,
``init``, ``label``, ``judge``) are left to their own tests.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.cli import build_parser, main
from evalmark.models._prompts.catalog import prompt_names

COMMANDS = ("report", "history", "score", "tune", "compare", "cassette", "schema", "prompts")
FILES = {
    "a.jsonl": '{"expected": "a", "actual": "b"}\n',
    "b.json": '{"not": "a report"}',
    "c.csv": "expected,actual\nx,y\n",
    "d.yaml": "a: [\n",
    "e.txt": "\udcff".encode("utf-8", "surrogateescape").decode("latin-1"),
}


VALUES = st.sampled_from(
    [
        *sorted(FILES),
        "0",
        "1",
        "3",
        "-1",
        "0.5",
        "nan",
        "1e9",
        "out.json",
        "out.csv",
        "-",
        "",
        "token_f1",
        "rouge_l,bleu",
    ]
) | st.text(max_size=6)


def _values(action: argparse.Action) -> st.SearchStrategy[list[str]]:
    """Values for one argument: from its choices when it has some, else from ``VALUES``."""
    one = st.sampled_from([str(c) for c in action.choices]) if action.choices else VALUES
    if action.nargs in (None, 1):
        return st.lists(one, min_size=1, max_size=1)
    if action.nargs == 0:
        return st.just([])
    if action.nargs == "?":
        return st.lists(one, max_size=1)
    if action.nargs == "+":
        return st.lists(one, min_size=1, max_size=2)
    if isinstance(action.nargs, int):
        return st.lists(one, min_size=action.nargs, max_size=action.nargs)
    return st.lists(one, max_size=2)


def command_line(parser: argparse.ArgumentParser) -> st.SearchStrategy[list[str]]:
    """Argument lists shaped like ``parser``'s grammar: an action for each level of
    subcommands, every positional, the required options and up to four more, with values."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if subs:
        choices = subs[0].choices
        return st.sampled_from(sorted(choices)).flatmap(
            lambda name: command_line(choices[name]).map(lambda rest: [name, *rest])
        )
    positionals = [a for a in parser._actions if not a.option_strings]
    optionals = [a for a in parser._actions if a.option_strings and "-h" not in a.option_strings]
    options = st.just([])
    if optionals:
        option = st.sampled_from(optionals).flatmap(
            lambda a: _values(a).map(lambda values: [a.option_strings[-1], *values])
        )
        options = st.lists(option, max_size=4)
    required = [a for a in optionals if a.required]
    fixed = st.tuples(
        *(_values(a).map(lambda v, a=a: [a.option_strings[-1], *v]) for a in required)
    )
    parts = st.tuples(
        st.tuples(*(_values(a) for a in positionals)),
        st.tuples(fixed, options).map(lambda t: [*t[0], *t[1]]),
    )
    return parts.map(lambda p: [w for ws in p[0] for w in ws] + [w for ws in p[1] for w in ws])


_TOP = next(
    a for a in build_parser(load=COMMANDS)._actions if isinstance(a, argparse._SubParsersAction)
)
well_formed = st.sampled_from(COMMANDS).flatmap(
    lambda name: command_line(_TOP.choices[name]).map(lambda rest: [name, *rest])
)
# a well-formed command line, now and then with one word of arbitrary text put in
argument_lists = well_formed | st.tuples(well_formed, st.integers(0, 8), st.text(max_size=8)).map(
    lambda t: [*t[0][: t[1]], t[2], *t[0][t[1] :]]
)


@contextlib.contextmanager
def _in_folder() -> Iterator[Path]:
    before = Path.cwd()
    with tempfile.TemporaryDirectory() as folder:
        for name, text in FILES.items():
            Path(folder, name).write_text(text, encoding="utf-8")
        os.chdir(folder)
        try:
            yield Path(folder)
        finally:
            os.chdir(before)


def _run(argv: list[str]) -> tuple[int, str]:
    """``main(argv)`` with stdout and stderr captured: (exit code, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse: --help (0) and usage errors (2)
            code = exc.code if isinstance(exc.code, int) else 2
    return code, err.getvalue()


@settings(
    max_examples=examples(100),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(argument_lists)
@example(["score", "a.jsonl", "--metrics", "nan"])
@example(["report", "render", "e.txt"])
@example(["score", "--help"])
def test_any_arguments_exit_0_1_or_2_without_a_traceback(words: list[str]) -> None:
    with _in_folder():
        code, err = _run(words)
    assert code in (0, 1, 2), (code, err)
    assert "Traceback" not in err
    if code == 2:  # a usage message, or the command's own error naming it
        assert err.startswith(("usage:", f"evalmark {words[0]}: error: ")), err


@settings(max_examples=examples(60))
@given(st.lists(st.text(max_size=8), max_size=3))
@example(["--version"])
@example([])
def test_words_that_name_no_command_exit_0_or_2(words: list[str]) -> None:
    if words and words[0] in (*COMMANDS, "code", "run", "traces", "init", "label", "judge"):
        words = ["x", *words]
    with _in_folder():
        code, err = _run(words)
    assert code in (0, 2)
    assert "Traceback" not in err


@settings(max_examples=examples(60))
@given(st.sampled_from(sorted(prompt_names())) | st.text(max_size=12))
def test_prompts_show_knows_exactly_the_catalog(name: str) -> None:
    with _in_folder():
        code, err = _run(["prompts", "show", "--", name])
    if name in prompt_names():
        assert (code, err) == (0, "")
    else:
        assert code == 2
        assert err.startswith("evalmark prompts: error: no judge prompt named ")
