"""Properties of the command line over generated broken input files: a truncated JSON Lines row,
a row of the wrong shape, a CSV without the columns, invalid UTF-8, a malformed YAML suite, a
suite key or check kind that does not exist, a JSON file that is not a report, a text file that
is not a cassette. Each command exits 2 (``cassette verify``: 1, it reports problems) with an
error that starts ``evalmark <command>: error:`` and names the file (and line), never a
traceback.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from budget import examples
from cli_runs import in_folder, run_cli
from evalmark.models import ScriptedChat, record_replay

FIELD_TEXT = st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=8)
ROWS = st.lists(
    st.fixed_dictionaries({"expected": FIELD_TEXT, "actual": FIELD_TEXT}), min_size=0, max_size=4
)


folder = in_folder


def run(argv: list[str]) -> tuple[int, str]:
    """``main(argv)`` in-process: (exit code, stderr then stdout)."""
    code, out, err = run_cli(argv)
    return code, err + out


def assert_one_line_error(code: int, err: str, command: str, *names: str) -> None:
    """Exit 2 with one line ``evalmark <command>: error: ...`` naming each of ``names``."""
    assert code == 2, err
    assert "Traceback" not in err
    assert err.startswith(f"evalmark {command}: error: "), err
    assert err.count("\n") <= 1, err
    for name in names:
        assert name in err, (name, err)


def not_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return True
    return False


def score(path: str) -> tuple[int, str]:
    return run(["score", path, "--metrics", "token_f1", "-o", "out.jsonl"])


@settings(max_examples=examples(60), deadline=None)
@given(ROWS, st.fixed_dictionaries({"expected": FIELD_TEXT, "actual": FIELD_TEXT}), st.data())
def test_a_truncated_json_lines_row_names_its_line(
    rows: list[dict[str, str]], last: dict[str, str], data: Any
) -> None:
    whole = json.dumps(last)
    cut = whole[: data.draw(st.integers(1, len(whole) - 1))]
    assume(cut.strip() and not_json(cut))
    text = "".join(json.dumps(r) + "\n" for r in rows) + cut + "\n"
    with folder() as here:
        (here / "pairs.jsonl").write_text(text, encoding="utf-8")
        code, err = score("pairs.jsonl")
    assert_one_line_error(code, err, "score", "pairs.jsonl", f"line {len(rows) + 1}")


@settings(max_examples=examples(60), deadline=None)
@given(ROWS, st.sampled_from(["expected", "actual"]), st.integers(0, 4))
def test_a_row_missing_a_field_names_the_line_and_the_field(
    rows: list[dict[str, str]], field: str, at: int
) -> None:
    at = min(at, len(rows))
    broken = [dict(r) for r in rows]
    broken.insert(at, {"expected": "x", "actual": "y"})
    del broken[at][field]
    text = "".join(json.dumps(r) + "\n" for r in broken)
    with folder() as here:
        (here / "pairs.jsonl").write_text(text, encoding="utf-8")
        code, err = score("pairs.jsonl")
    assert_one_line_error(code, err, "score", f"line {at + 1}", f"'{field}'")


@settings(max_examples=examples(60), deadline=None)
@given(
    ROWS,
    st.one_of(
        st.lists(st.integers(), max_size=3),
        st.integers(),
        st.text(max_size=5),
        st.none(),
        st.booleans(),
    ),
)
def test_a_row_that_is_not_an_object_names_its_line(rows: list[dict[str, str]], value: Any) -> None:
    text = "".join(json.dumps(r) + "\n" for r in rows) + json.dumps(value) + "\n"
    with folder() as here:
        (here / "pairs.jsonl").write_text(text, encoding="utf-8")
        code, err = score("pairs.jsonl")
    assert_one_line_error(code, err, "score", f"line {len(rows) + 1}", "JSON object")


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(st.text(alphabet="abcxyz", min_size=1, max_size=5), min_size=1, max_size=4))
def test_a_csv_without_the_expected_column_names_the_columns_it_has(columns: list[str]) -> None:
    assume("expected" not in columns and len(set(columns)) == len(columns))
    text = ",".join(columns) + "\n" + ",".join("v" for _ in columns) + "\n"
    with folder() as here:
        (here / "pairs.csv").write_text(text, encoding="utf-8")
        code, err = score("pairs.csv")
    assert_one_line_error(code, err, "score", "pairs.csv", "--expected-col")


@settings(max_examples=examples(40), deadline=None)
@given(ROWS, st.binary(min_size=1, max_size=4).filter(lambda b: not_utf8(b)))
@example(rows=[], junk=b"\xff")
def test_invalid_utf8_in_a_pairs_file_is_a_one_line_error(
    rows: list[dict[str, str]], junk: bytes
) -> None:
    data = "".join(json.dumps(r) + "\n" for r in rows).encode() + b'{"expected": "' + junk + b'"}\n'
    with folder() as here:
        (here / "pairs.jsonl").write_bytes(data)
        code, err = score("pairs.jsonl")
    assert_one_line_error(code, err, "score", "pairs.jsonl")


def not_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


@settings(max_examples=examples(40), deadline=None)
@given(st.text(alphabet="abcxyz_", min_size=1, max_size=8))
def test_a_missing_file_is_a_one_line_error_naming_it(name: str) -> None:
    with folder():
        code, err = score(f"{name}.jsonl")
        assert_one_line_error(code, err, "score", f"{name}.jsonl")
        code, err = run(["report", "render", f"{name}.json"])
        assert_one_line_error(code, err, "report", f"{name}.json")


REPORTISH = st.one_of(
    st.text(max_size=30),
    st.recursive(
        st.none() | st.integers() | st.text(max_size=4),
        lambda inner: (
            st.lists(inner, max_size=3)
            | st.dictionaries(
                st.sampled_from(["format", "name", "samples", "a"]), inner, max_size=3
            )
        ),
        max_leaves=6,
    ).map(json.dumps),
)


@settings(max_examples=examples(60), deadline=None)
@given(REPORTISH)
@example('{"format": "evalmark-report"}')
@example('{"format": "evalmark-report", "samples": 1}')
def test_a_file_that_is_not_a_report_is_refused_by_render_diff_and_compare(text: str) -> None:
    with folder() as here:
        (here / "bad.json").write_text(text, encoding="utf-8")
        code, err = run(["report", "render", "bad.json"])
        assert_one_line_error(code, err, "report", "bad.json")
        code, err = run(["report", "diff", "bad.json", "bad.json"])
        assert_one_line_error(code, err, "report", "bad.json")
        code, err = run(["compare", "bad.json", "bad.json"])
        assert_one_line_error(code, err, "compare", "bad.json")


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.text(max_size=20), min_size=1, max_size=4))
def test_a_file_that_is_not_a_cassette_is_refused(lines: list[str]) -> None:
    text = "\n".join(lines) + "\n"
    assume("evalmark-cassette" not in text and text.strip())  # an empty file is an empty cassette
    with folder() as here:
        (here / "c.jsonl").write_text(text, encoding="utf-8")
        code, err = run(["cassette", "ls", "c.jsonl"])
        assert_one_line_error(code, err, "cassette", "c.jsonl")
        code, out = run(["cassette", "verify", "c.jsonl"])
        assert code in (1, 2) and "Traceback" not in out and "c.jsonl" in out


SUITE = """\
name: s
samples: samples.yaml
application: {{model-id: app, builds: {{current: app.jsonl}}}}
strategies: [{strategy}]
"""


@settings(max_examples=examples(40), deadline=None)
@given(
    st.text(alphabet="abc: -[]{}'\"\n", max_size=20).filter(
        lambda t: t.count("[") != t.count("]") or t.count("{") != t.count("}")
    )
)
@example("samples: [\n")
def test_malformed_suite_yaml_is_an_error_naming_the_file(text: str) -> None:
    with folder() as here:
        (here / "suite.yaml").write_text(text, encoding="utf-8")
        code, err = run(["run", "suite.yaml"])
    assert code == 2 and "Traceback" not in err, err
    assert err.startswith("evalmark run: error: ") and "suite.yaml" in err, err


@settings(max_examples=examples(40), deadline=None)
@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=10))
@example(key="aae")  # close to a known key: the message suggests it instead of listing them all
def test_an_unknown_suite_key_is_named_with_the_accepted_keys(key: str) -> None:
    assume(key not in ("name", "samples", "application", "strategies", "tags", "gate", "judge"))
    with folder() as here:
        (here / "samples.yaml").write_text("- {name: a, expected-output: x}\n", encoding="utf-8")
        suite = SUITE.format(strategy="exact-match") + f"{key}: 1\n"
        (here / "suite.yaml").write_text(suite, encoding="utf-8")
        code, err = run(["run", "suite.yaml"])
    assert code == 2 and "Traceback" not in err, err
    assert err.startswith("evalmark run: error: ")
    if "unknown key" in err:
        assert f"'{key}'" in err and ("accepted keys" in err or "did you mean" in err), err


YAML_WORDS = {"null", "true", "false", "yes", "no", "on", "off"}


@settings(max_examples=examples(40), deadline=None)
@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz-", min_size=3, max_size=12))
@example(kind="nul")
def test_an_unknown_check_kind_is_an_error_naming_it(kind: str) -> None:
    from evalmark.strategies._registry import STRATEGY_KINDS

    # words YAML reads as null or a bool are not names: the error says so without the word
    assume(kind not in STRATEGY_KINDS and not kind.startswith("-") and kind not in YAML_WORDS)
    with folder() as here:
        (here / "samples.yaml").write_text("- {name: a, expected-output: x}\n", encoding="utf-8")
        (here / "suite.yaml").write_text(SUITE.format(strategy=kind), encoding="utf-8")
        code, err = run(["run", "suite.yaml"])
    assert code == 2 and "Traceback" not in err, err
    assert err.startswith("evalmark run: error: ") and kind in err, err


@settings(max_examples=examples(40), deadline=None)
@given(
    st.text(alphabet="abc: -[]{}'\"\n", max_size=20).filter(
        lambda t: t.count("[") != t.count("]") or t.count("{") != t.count("}")
    )
)
def test_malformed_samples_yaml_is_an_error_naming_the_samples_file(text: str) -> None:
    with folder() as here:
        app = record_replay(ScriptedChat(["x"]), here / "app.jsonl", "rewrite", model_id="app")
        app.chat([{"role": "user", "content": "q"}])
        (here / "samples.yaml").write_text(text, encoding="utf-8")
        (here / "suite.yaml").write_text(SUITE.format(strategy="exact-match"), encoding="utf-8")
        code, err = run(["run", "suite.yaml"])
    assert code == 2 and "Traceback" not in err, err
    assert err.startswith("evalmark run: error: ") and "samples.yaml" in err, err


@settings(max_examples=examples(30), deadline=None)
@given(
    st.integers().filter(lambda n: n != -1 and not 1 <= n <= 1024).map(str)
    | st.sampled_from(["abc", "1.5", ""])
)
def test_a_bad_worker_count_is_a_usage_error(workers: str) -> None:
    with folder() as here:
        (here / "p.jsonl").write_text('{"expected": "a", "actual": "a"}\n', encoding="utf-8")
        code, err = run(["score", "p.jsonl", "--metrics", "token_f1", "--workers", workers])
    assert code == 2 and "Traceback" not in err, err
    assert err.startswith(("usage:", "evalmark score: error: ")), err
    assert "--workers" in err
