"""Properties of the catalog and schema commands over generated choices: ``prompts ls --json``
lists exactly the catalog, each prompt's required variables among its variables; a
group lists exactly its members and an unknown group is exit 2 naming the groups; ``prompts
show`` of any catalog prompt names it; ``schema`` prints the same JSON Schema to standard output
and to ``-o``, every time.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from budget import examples
from cli_runs import run_cli
from evalmark.models._prompts.catalog import prompt_names

SCHEMAS = st.sampled_from(["conversations", "samples", "suite", "testcases"])


run = run_cli


def listing(*options: str) -> list[dict[str, Any]]:
    code, out, err = run(["prompts", "ls", "--json", *options])
    assert code == 0, err
    rows: list[dict[str, Any]] = json.loads(out)
    return rows


GROUPS = sorted({row["group"] for row in listing()})


def test_the_listing_is_the_catalog_with_required_among_variables() -> None:
    rows = listing()
    names = [row["name"] for row in rows]
    assert sorted(names) == sorted(prompt_names())
    for row in rows:
        assert set(row["required"]) <= set(row["variables"]), row["name"]


@settings(max_examples=examples(20), deadline=None)
@given(st.sampled_from(GROUPS))
def test_a_group_lists_exactly_its_members(group: str) -> None:
    every = listing()
    assert listing("--group", group) == [row for row in every if row["group"] == group]


@settings(max_examples=examples(30), deadline=None)
@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz-", min_size=1, max_size=10))
def test_an_unknown_group_is_exit_2_naming_the_groups(group: str) -> None:
    assume(group not in GROUPS)
    code, _, err = run(["prompts", "ls", f"--group={group}"])  # "-a" is a value, not a flag
    assert code == 2 and err.startswith("evalmark prompts: error: no group ")
    assert all(g in err for g in GROUPS)


@settings(max_examples=examples(30), deadline=None)
@given(st.sampled_from(sorted(prompt_names())), st.sampled_from([[], ["--raw"], ["--render"]]))
def test_every_catalog_prompt_shows(name: str, options: list[str]) -> None:
    code, out, err = run(["prompts", "show", name, *options])
    assert (code, err) == (0, ""), err
    assert out.strip()
    if not options:
        assert out.startswith(name)


@settings(max_examples=examples(12), deadline=None)
@given(SCHEMAS)
def test_a_schema_is_the_same_on_standard_output_and_in_a_file(kind: str) -> None:
    code, out, err = run(["schema", kind])
    assert code == 0, err
    schema = json.loads(out)
    assert isinstance(schema, dict) and schema
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "s.json"
        code, _, err = run(["schema", kind, "-o", str(path)])
        assert code == 0, err
        assert json.loads(path.read_text(encoding="utf-8")) == schema
    assert run(["schema", kind])[1] == out
