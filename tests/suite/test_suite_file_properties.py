"""Properties of suite files: for generated option values the suite file's JSON Schema accepts
what ``load_suite`` accepts (exactly, where the schema can say it), a bad value or an unknown
key gives one typed error naming the key and its line, and the order of keys changes nothing."""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path
from typing import Any

import jsonschema
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.errors import SuiteError
from evalmark.suite import Suite, suite_file_schema
from evalmark.suite._loader import load_suite

VALIDATOR = jsonschema.Draft202012Validator(suite_file_schema())
SAMPLES = "- name: one\n  parameters: [What is one?]\n  expected-output: One.\n  tags: [smoke]\n"
BASE: dict[str, Any] = {
    "name": "demo",
    "samples": "samples.yaml",
    "application": {"model-id": "demo-app", "builds": {"first": "builds/first.jsonl"}},
    "strategies": ["contains-facts", {"token-f1": {"threshold": 0.5}}],
    "judge": {"kind": "rule"},
    "gate": {"pass-rate": 0.9},
    "report": {"formats": ["md"]},
    "concurrency": 2,
}
TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=8)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-5, 12)
    | st.integers()
    | st.floats(-2, 3, allow_nan=False)
    | st.sampled_from([0, 1, 0.0, 1.0, 0.5, -0.0, 90, "0.5", "4", ""])
    | TEXT
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=2),
    max_leaves=4,
)
FRACTIONS = st.floats(0, 1) | st.sampled_from([0, 1])


def _load(folder: str, doc: dict[str, Any]) -> Suite | SuiteError:
    (Path(folder) / "samples.yaml").write_text(SAMPLES, encoding="utf-8")
    path = Path(folder) / "suite.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True), "utf-8")
    try:
        return load_suite(path)
    except SuiteError as error:
        return error


def outcome(doc: dict[str, Any]) -> Suite | SuiteError:
    """What ``load_suite`` makes of ``doc`` written as a suite file beside a samples file."""
    with tempfile.TemporaryDirectory() as folder:
        return _load(folder, doc)


def with_value(where: tuple[str, ...], value: Any) -> dict[str, Any]:
    doc = yaml.safe_load(yaml.safe_dump(BASE))  # a deep copy
    target = doc
    for key in where[:-1]:
        target = target[key]
    target[where[-1]] = value
    return doc


def schema_accepts(doc: dict[str, Any]) -> bool:
    return VALIDATOR.is_valid(doc)


def without(where: tuple[str, ...]) -> dict[str, Any]:
    doc = with_value(where, None)
    target = doc
    for key in where[:-1]:
        target = target[key]
    del target[where[-1]]
    return doc


def leaf(suite: Any, where: tuple[str, ...]) -> Any:
    """The loaded value of the key at ``where`` (``gate.pass-rate`` is ``suite.gate.pass_rate``)."""
    for key in where:
        suite = getattr(suite, key.replace("-", "_"))
    return suite


def agrees_exactly(where: tuple[str, ...], value: Any) -> Suite | SuiteError:
    """The loader and the schema agree on ``value`` at ``where``, but for the two things a JSON
    Schema cannot say: ``null`` may mean the key is left out (the schema, for editors, asks
    for a value) and an integral float such as ``1.0`` is an integer to JSON Schema only."""
    doc = with_value(where, value)
    loaded = outcome(doc)
    if value is None and isinstance(loaded, Suite) and not schema_accepts(doc):
        with tempfile.TemporaryDirectory() as folder:
            absent = _load(folder, without(where))
            assert isinstance(absent, Suite)
            assert leaf(_load(folder, doc), where) == leaf(absent, where)
    elif isinstance(value, float) and value.is_integer() and "integer" in str(VALIDATOR.schema):
        assert not isinstance(loaded, Suite) or schema_accepts(doc), (where, value)
    else:
        assert isinstance(loaded, Suite) == schema_accepts(doc), (where, value, loaded)
    return loaded


def test_the_base_suite_loads_and_is_valid() -> None:
    assert isinstance(outcome(BASE), Suite)
    assert schema_accepts(BASE)


@settings(max_examples=examples(60), deadline=None)
@given(VALUES | st.integers(-3, 40))
@example(True)
@example(1.0)
def test_the_schema_accepts_exactly_the_concurrency_the_loader_accepts(value: Any) -> None:
    loaded = agrees_exactly(("concurrency",), value)
    if isinstance(loaded, Suite) and value is not None:
        assert loaded.concurrency == value


@settings(max_examples=examples(60), deadline=None)
@given(VALUES | FRACTIONS)
@example(True)
@example(90)
def test_the_schema_accepts_exactly_the_pass_rate_the_loader_accepts(value: Any) -> None:
    loaded = agrees_exactly(("gate", "pass-rate"), value)
    if isinstance(loaded, Suite) and value is not None:
        assert loaded.gate.pass_rate == value


@settings(max_examples=examples(60), deadline=None)
@given(VALUES | FRACTIONS)
def test_the_schema_accepts_exactly_the_max_drop_the_loader_accepts(value: Any) -> None:
    loaded = agrees_exactly(("gate", "max-drop"), value)
    if isinstance(loaded, Suite) and value is not None:
        assert loaded.gate.max_drop == value


@settings(max_examples=examples(60), deadline=None)
@given(VALUES | st.dictionaries(TEXT.filter(str.strip), FRACTIONS | VALUES, max_size=3))
def test_the_schema_accepts_exactly_the_tag_gates_the_loader_accepts(value: Any) -> None:
    loaded = agrees_exactly(("gate", "tags"), value)
    if isinstance(loaded, Suite) and value is not None:
        assert loaded.gate.tags == value


@settings(max_examples=examples(60), deadline=None)
@given(VALUES | FRACTIONS)
def test_the_schema_accepts_exactly_the_check_threshold_the_loader_accepts(value: Any) -> None:
    doc = with_value(("strategies",), ["contains-facts", {"token-f1": {"threshold": value}}])
    loaded = outcome(doc)
    if value is None or (isinstance(value, float) and value.is_integer()):
        return
    assert isinstance(loaded, Suite) == schema_accepts(doc), (value, loaded)
    if isinstance(loaded, Suite):
        assert loaded.evaluations[0].strategies[1].options == {"threshold": value}


@settings(max_examples=examples(60), deadline=None)
@given(
    VALUES
    | st.integers(-2, 9)
    | st.fixed_dictionaries(
        {"runs": VALUES | st.integers(0, 6)}, optional={"k": VALUES | st.integers(0, 6)}
    )
)
def test_repeats_the_loader_accepts_are_valid_under_the_schema(value: Any) -> None:
    doc = with_value(("repeats",), value)
    loaded = outcome(doc)
    if isinstance(loaded, Suite):
        if isinstance(value, dict):  # null is the key left out
            doc["repeats"] = {k: v for k, v in value.items() if v is not None}
        assert value is None or schema_accepts(doc), value
        runs = 1 if value is None else value if isinstance(value, int) else value["runs"]
        assert loaded.repeats == runs
        assert loaded.repeat_k == (value.get("k") if isinstance(value, dict) else None)
        assert loaded.repeat_k is None or 1 <= loaded.repeat_k <= loaded.repeats
    elif not schema_accepts(doc):
        assert any("repeats" in str(p) for p in loaded.problems)


@settings(max_examples=examples(60), deadline=None)
@given(
    VALUES | st.lists(st.sampled_from(["md", "json", "html", "xml", "markdown", "pdf"]), max_size=3)
)
def test_report_formats_the_loader_accepts_are_valid_under_the_schema(value: Any) -> None:
    doc = with_value(("report", "formats"), value)
    loaded = outcome(doc)
    if isinstance(loaded, Suite) and value is not None:
        assert schema_accepts(doc), value
        assert loaded.report.formats == (tuple(value) or ("md", "json"))  # none: the defaults


@settings(max_examples=examples(60), deadline=None)
@given(st.sampled_from(["name", "description"]), VALUES)
def test_the_schema_accepts_exactly_the_names_and_descriptions_the_loader_accepts(
    key: str, value: Any
) -> None:
    loaded = agrees_exactly((key,), value)
    if isinstance(loaded, Suite) and value is not None:
        assert getattr(loaded, key) == value


KEYS = sorted(BASE)


def view(suite: Suite) -> tuple[Any, ...]:
    """What a suite holds, without the lines its parts were read from."""
    (evaluation,) = suite.evaluations
    return (
        suite.name,
        suite.concurrency,
        suite.gate.pass_rate,
        suite.report.formats,
        suite.judge.kind,
        evaluation.samples,
        evaluation.application.builds,
        evaluation.application.model_id,
        [(s.kind, s.options) for s in evaluation.strategies],
    )


@settings(max_examples=examples(40), deadline=None)
@given(
    st.from_regex(r"[a-z]{2,8}(-[a-z]{2,6})?", fullmatch=True).filter(
        lambda k: k not in suite_file_schema()["properties"] and yaml.safe_load(k) == k
    ),
    st.permutations(KEYS),
    st.data(),
)
def test_an_unknown_top_key_is_one_problem_naming_it_and_its_line(
    key: str, order: list[str], data: st.DataObject
) -> None:
    at = data.draw(st.integers(0, len(order)))
    keys = [*order[:at], key, *order[at:]]
    doc = {k: BASE.get(k, 1) for k in keys}
    loaded = outcome(doc)
    assert not schema_accepts(doc)
    assert isinstance(loaded, SuiteError)
    (problem,) = loaded.problems
    lines = yaml.safe_dump(doc, sort_keys=False).splitlines()
    assert problem.line == next(i for i, t in enumerate(lines, 1) if t.startswith(f"{key}:"))
    assert f"unknown key {key!r}" in problem.message


@settings(max_examples=examples(40), deadline=None)
@given(st.permutations(KEYS), st.integers(-3, 0) | st.booleans() | TEXT)
def test_a_bad_concurrency_is_one_problem_on_its_own_line_in_any_key_order(
    order: list[str], bad: Any
) -> None:
    doc = {k: BASE[k] for k in order}
    doc["concurrency"] = bad
    loaded = outcome(doc)
    assert isinstance(loaded, SuiteError)
    (problem,) = loaded.problems
    lines = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True).splitlines()
    assert problem.line == next(i for i, t in enumerate(lines, 1) if t.startswith("concurrency:"))
    assert "concurrency" in str(problem)


@settings(max_examples=examples(30), deadline=None)
@given(st.permutations(KEYS))
def test_the_order_of_keys_does_not_change_the_suite(order: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        first, again = _load(folder, BASE), _load(folder, {k: BASE[k] for k in order})
    assert isinstance(first, Suite) and isinstance(again, Suite)
    assert view(again) == view(first)


@settings(max_examples=examples(60), deadline=None)
@given(st.binary(max_size=80) | TEXT.map(str.encode))
@example(b"\xff")
@example(b"a: &x [*x]")
def test_any_bytes_give_a_suite_or_a_suite_error(content: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "suite.yaml"
        path.write_bytes(content)
        with contextlib.suppress(SuiteError):
            load_suite(path)


JUDGES = st.fixed_dictionaries(
    {},
    optional={
        "kind": st.sampled_from(["rule", "noisy", "rules", "", "RULE"]) | VALUES,
        "min-overlap": FRACTIONS | VALUES,
        "flip-rate": FRACTIONS | VALUES,
        "seed": st.integers(-5, 5) | VALUES,
    },
)


@settings(max_examples=examples(60), deadline=None)
@given(JUDGES)
def test_a_judge_section_the_loader_accepts_is_valid_under_the_schema(
    judge: dict[str, Any],
) -> None:
    doc = with_value(("judge",), judge)
    loaded = outcome(doc)
    stated = {k: v for k, v in judge.items() if v is not None}  # null is the key left out
    if isinstance(loaded, Suite):
        assert schema_accepts(with_value(("judge",), stated)), judge
        if "min-overlap" in stated and judge.get("kind", "rule") == "rule":
            assert loaded.judge.min_overlap == stated["min-overlap"]
    elif not schema_accepts(doc):
        assert any("judge" in str(p) for p in loaded.problems)
