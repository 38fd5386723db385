"""Properties of suite files: for generated suite documents (valid ones, and ones with values of
every type put in their keys) the suite file's JSON Schema accepts exactly what ``load_suite``
accepts, a refused document gives a typed error naming the key, a bad value or an unknown key
gives one typed error naming the key and its line, and the order of keys changes nothing.

The rules both follow: a key is given with a value or left out (``null``, or ``key:`` alone,
is refused: a forgotten value is never read as the default), and a float with no fraction is
a whole number (``concurrency: 1.0`` is 1). The one rule the schema cannot state: in
``repeats: {runs: n, k: k}``, k is at most n."""

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
from evalmark.errors import EvalmarkError, SuiteError
from evalmark.strategies._kinds import option_schema
from evalmark.strategies._registry import STRATEGY_KINDS
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


def names_the_key(error: SuiteError, where: tuple[str, ...]) -> bool:
    """True when a problem of ``error`` names the key at ``where`` (or the part holding it)."""
    return any(any(str(k) in str(p) for k in where) for p in error.problems)


def agrees_exactly(where: tuple[str, ...], value: Any) -> Suite | SuiteError:
    """The loader accepts ``value`` at ``where`` exactly when the schema does; when it does
    not, its typed error names the key."""
    doc = with_value(where, value)
    loaded = outcome(doc)
    assert isinstance(loaded, Suite) == schema_accepts(doc), (where, value, loaded)
    if isinstance(loaded, SuiteError):
        assert isinstance(loaded, EvalmarkError)
        assert names_the_key(loaded, where), (where, value, loaded)
    return loaded


def test_the_base_suite_loads_and_is_valid() -> None:
    assert isinstance(outcome(BASE), Suite)
    assert schema_accepts(BASE)


@settings(max_examples=examples(60), deadline=None)
@given(VALUES | st.integers(-3, 40))
@example(True)
@example(1.0)
@example(None)
@example(1e300)
def test_the_schema_accepts_exactly_the_concurrency_the_loader_accepts(value: Any) -> None:
    loaded = agrees_exactly(("concurrency",), value)
    if isinstance(loaded, Suite):
        assert loaded.concurrency == value and type(loaded.concurrency) is int


@settings(max_examples=examples(60), deadline=None)
@given(VALUES | FRACTIONS)
@example(True)
@example(90)
def test_the_schema_accepts_exactly_the_pass_rate_the_loader_accepts(value: Any) -> None:
    loaded = agrees_exactly(("gate", "pass-rate"), value)
    if isinstance(loaded, Suite):
        assert loaded.gate.pass_rate == value


@settings(max_examples=examples(60), deadline=None)
@given(VALUES | FRACTIONS)
def test_the_schema_accepts_exactly_the_max_drop_the_loader_accepts(value: Any) -> None:
    loaded = agrees_exactly(("gate", "max-drop"), value)
    if isinstance(loaded, Suite):
        assert loaded.gate.max_drop == value


@settings(max_examples=examples(60), deadline=None)
@given(VALUES | st.dictionaries(TEXT.filter(str.strip), FRACTIONS | VALUES, max_size=3))
def test_the_schema_accepts_exactly_the_tag_gates_the_loader_accepts(value: Any) -> None:
    loaded = agrees_exactly(("gate", "tags"), value)
    if isinstance(loaded, Suite):
        assert loaded.gate.tags == value


@settings(max_examples=examples(60), deadline=None)
@given(VALUES | FRACTIONS)
def test_the_schema_accepts_exactly_the_check_threshold_the_loader_accepts(value: Any) -> None:
    doc = with_value(("strategies",), ["contains-facts", {"token-f1": {"threshold": value}}])
    loaded = outcome(doc)
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
def test_the_schema_accepts_exactly_the_repeats_the_loader_accepts(value: Any) -> None:
    doc = with_value(("repeats",), value)
    loaded = outcome(doc)
    if isinstance(loaded, Suite):
        assert schema_accepts(doc), value
        runs = value if not isinstance(value, dict) else value["runs"]
        assert loaded.repeats == runs and type(loaded.repeats) is int
        assert loaded.repeat_k == (value.get("k") if isinstance(value, dict) else None)
        assert loaded.repeat_k is None or 1 <= loaded.repeat_k <= loaded.repeats
    else:  # the one rule the schema cannot state: k is at most runs
        assert names_the_key(loaded, ("repeats",))
        assert not schema_accepts(doc) or value["k"] > value["runs"], value


@settings(max_examples=examples(60), deadline=None)
@given(
    VALUES
    | st.lists(st.sampled_from(["md", "json", "html", "xml", "markdown", "pdf", ""]), max_size=3)
    | st.sampled_from(["md", "json", "junit", "inspect", ""])
)
def test_the_schema_accepts_exactly_the_report_formats_the_loader_accepts(value: Any) -> None:
    loaded = agrees_exactly(("report", "formats"), value)
    if isinstance(loaded, Suite):
        given = [value] if isinstance(value, str) else value
        assert loaded.report.formats == (tuple(given) or ("md", "json"))  # none: the defaults


@settings(max_examples=examples(60), deadline=None)
@given(st.sampled_from(["name", "description"]), VALUES)
def test_the_schema_accepts_exactly_the_names_and_descriptions_the_loader_accepts(
    key: str, value: Any
) -> None:
    loaded = agrees_exactly((key,), value)
    if isinstance(loaded, Suite):
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
def test_the_schema_accepts_exactly_the_judge_sections_the_loader_accepts(
    judge: dict[str, Any],
) -> None:
    loaded = agrees_exactly(("judge",), judge)
    if isinstance(loaded, Suite) and "min-overlap" in judge:
        assert loaded.judge.min_overlap == judge["min-overlap"]


# Every key a generated document may change, and values that fit some of them: each key gets
# values of every type (VALUES) and values meant for other keys.
PATHS = [
    ("name",),
    ("description",),
    ("tags",),
    ("concurrency",),
    ("repeats",),
    ("judge-rates",),
    ("judge-certificate",),
    ("source",),
    ("application",),
    ("application", "model-id"),
    ("application", "system-prompt"),
    ("application", "function"),
    ("application", "builds"),
    ("strategies",),
    ("judge",),
    ("judge", "kind"),
    ("judge", "min-overlap"),
    ("judge", "flip-rate"),
    ("judge", "seed"),
    ("judge", "model-id"),
    ("judge", "cassette"),
    ("judge", "model"),
    ("judge", "judge"),
    ("gate",),
    ("gate", "pass-rate"),
    ("gate", "max-drop"),
    ("gate", "tags"),
    ("gate", "baseline"),
    ("gate", "budget"),
    ("gate", "pass-at-k"),
    ("gate", "pass-hat-k"),
    ("report",),
    ("report", "dir"),
    ("report", "formats"),
    ("evaluations",),
    ("turn-strategies",),
    ("trajectory",),
    ("user-model",),
    *(("evaluations", 0, key) for key in ("name", "tags", "application", "strategies", "extra")),
]
FITTING = st.sampled_from(
    [
        "rule",
        "noisy",
        "recorded",
        "md",
        ["md", "json"],
        "pkg.mod:answer",
        "judge.jsonl",
        " ",
        1,
        2.0,
        0.5,
        0,
        {},
        {"kind": "rule"},
        {"kind": "noisy"},
        {"runs": 3, "k": 2},
        {"runs": 2.0},
        {"smoke": 0.5},
        {"first": "builds/first.jsonl"},
        {"latency-ms": {"per-case": 100}},
        {"cost": {"total": None}},
        ["contains-facts"],
        [{"token-f1": None}],
        [{"name": "x", "samples": "samples.yaml", "strategies": ["contains-facts"]}],
        {"mode": "superset"},
        {"cassette": "users.jsonl"},
    ]
)
# Values the loader accepts at some keys, so that generated documents are often valid.
VALID: dict[tuple[Any, ...], list[Any]] = {
    ("name",): ["other", "a b"],
    ("description",): ["what it checks"],
    ("tags",): ["smoke", ["smoke", "billing"], []],
    ("concurrency",): [1, 8, 3.0],
    ("repeats",): [1, 4.0, {"runs": 3}, {"runs": 3, "k": 3}],
    ("judge",): [{}, {"kind": "noisy", "flip-rate": 0.1, "judge": {"kind": "rule"}}],
    ("judge", "kind"): ["rule", "noisy"],
    ("judge", "seed"): [-3, 7.0],
    ("judge", "min-overlap"): [0, 1, 0.25],
    ("gate", "tags"): [{}, {"smoke": 1}],
    ("gate", "budget"): [{}, {"tokens": {"per-case": 10, "total": 100.5}}],
    ("report", "formats"): ["json", ["md", "html", "xml", "inspect"], []],
    ("report", "dir"): ["out"],
    ("application", "function"): ["pkg.mod:answer"],
    ("application", "system-prompt"): ["", "Be brief."],
    ("strategies",): [["exact-match", {"rouge-n": {"n": 2.0}}], [{"bleu": None}]],
    ("evaluations", 0, "name"): ["part"],
}


def _values(where: tuple[Any, ...]) -> st.SearchStrategy[tuple[tuple[Any, ...], Any]]:
    valid = st.sampled_from(VALID[where]) if where in VALID else FITTING
    other = st.none() | VALUES | FITTING
    return st.tuples(st.just(where), st.integers(0, 4).flatmap(lambda i: valid if i < 3 else other))


CHANGES = st.lists(
    st.sampled_from(PATHS).flatmap(_values), max_size=4, unique_by=lambda change: change[0]
)


def changed(changes: list[tuple[tuple[Any, ...], Any]], dropped: list[str]) -> dict[str, Any]:
    """BASE with each change made, in order, where its section is still a mapping (or its
    list still has the item), and top keys dropped."""
    doc = with_value(("name",), BASE["name"])
    for where, value in changes:
        target: Any = doc
        for key in where[:-1]:
            if isinstance(target, dict) or (isinstance(target, list) and key < len(target)):
                target = target[key] if isinstance(target, list) else target.get(key)
            else:
                target = None
        if isinstance(target, dict):
            target[where[-1]] = value
    for key in dropped:
        doc.pop(key, None)
    return doc


@settings(max_examples=examples(150), deadline=None)
@given(CHANGES, st.just([]) | st.lists(st.sampled_from(KEYS), max_size=4))
@example([(("concurrency",), 1.0)], [])
@example([(("gate", "pass-rate"), None)], [])
@example([(("judge", "cassette"), 5)], [])
@example([(("evaluations",), [])], [])
@example([(("report", "formats"), "md")], [])
@example([(("tags",), "smoke")], [])
@example([(("description",), "")], [])
@example([(("turn-strategies",), 5)], [])
@example(
    [
        (
            ("evaluations",),
            [{"name": "x", "samples": "samples.yaml", "strategies": ["exact-match"]}],
        ),
        (("evaluations", 0, "application"), {"function": "pkg.mod:answer"}),
    ],
    ["samples", "application", "strategies"],
)
def test_a_generated_document_is_valid_exactly_when_it_loads(
    changes: list[tuple[tuple[Any, ...], Any]], dropped: list[str]
) -> None:
    doc = changed(changes, dropped)
    loaded = outcome(doc)
    if isinstance(loaded, Suite):
        assert schema_accepts(doc), (doc, loaded)
        return
    assert isinstance(loaded, EvalmarkError)
    repeats = doc.get("repeats")
    k_over_runs = (
        isinstance(repeats, dict)
        and isinstance(repeats.get("k"), int | float)
        and isinstance(repeats.get("runs"), int | float)
        and repeats["k"] > repeats["runs"]
    )
    assert not schema_accepts(doc) or k_over_runs, (doc, loaded.problems)
    named = {k for where, _ in changes for k in where} | set(dropped)
    assert any(any(str(k) in str(p) for k in named) for p in loaded.problems), loaded


def check_of(kind: str, option: str) -> Any:
    """The checker of ``option`` of the check ``kind``."""
    return STRATEGY_KINDS[kind].accepted[option]


OPTIONS = sorted(
    (kind.name, option) for kind in STRATEGY_KINDS.values() for option in kind.accepted
)


@settings(max_examples=examples(150), deadline=None)
@given(st.sampled_from(OPTIONS), VALUES | st.sampled_from([2.0, 64.0, 3, "majority", "llm"]))
@example(("semantic-similarity", "dim"), 64.0)
@example(("rubric", "min-grade"), 5.0)
@example(("token-f1", "name"), " ")
@example(("lm-eval-exact-match", "ignore-case"), 0)
@example(("lm-eval-exact-match", "ignore-case"), 1)
def test_the_schema_accepts_exactly_the_check_options_the_loader_accepts(
    option: tuple[str, str], value: Any
) -> None:
    kind, name = option
    loaded = agrees_exactly(("strategies",), [{kind: {name: value}}])
    if isinstance(loaded, Suite):
        (check,) = loaded.evaluations[0].strategies
        assert check.options == {name: value}
        if (
            isinstance(value, float)
            and option_schema(check_of(kind, name)).get("type") == "integer"
        ):
            assert type(check.options[name]) is int
