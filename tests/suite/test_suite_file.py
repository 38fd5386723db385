"""Suite files: what a correct file loads into, and the error for each kind of mistake (file,
line, key and a suggestion)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from evalmark.errors import SuiteError
from evalmark.suite._loader import load_suite

SAMPLES = """\
- name: one
  parameters: [What is one?]
  expected-output: One.
  expected-facts: [One]
  tags: [smoke]
"""

GOOD = """\
name: demo
samples: samples.yaml
application:
  model-id: demo-app
  builds:
    first: builds/first.jsonl
    second: builds/second.jsonl
strategies:
  - contains-facts
  - token-f1: {threshold: 0.5}
  - relevancy
judge: {kind: rule, min-overlap: 0.5}
gate: {pass-rate: 0.9, tags: {smoke: 1.0}, max-drop: 0.1}
report: {dir: out, formats: [md, json, html]}
concurrency: 2
"""


def write_suite(tmp_path: Path, text: str, name: str = "suite.yaml") -> Path:
    (tmp_path / "samples.yaml").write_text(SAMPLES, encoding="utf-8")
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def error_of(tmp_path: Path, text: str) -> SuiteError:
    path = write_suite(tmp_path, text)
    with pytest.raises(SuiteError) as info:
        load_suite(path)
    return info.value


def test_a_good_suite_loads_every_part(tmp_path: Path) -> None:
    suite = load_suite(write_suite(tmp_path, GOOD))
    assert suite.name == "demo"
    (evaluation,) = suite.evaluations
    assert evaluation.samples == (tmp_path / "samples.yaml",)
    assert evaluation.application.model_id == "demo-app"
    assert evaluation.application.build_names == ("first", "second")
    assert evaluation.application.builds["second"] == tmp_path / "builds/second.jsonl"
    assert [s.kind for s in evaluation.strategies] == ["contains-facts", "token-f1", "relevancy"]
    assert evaluation.strategies[1].options == {"threshold": 0.5}
    assert [s.judged for s in evaluation.strategies] == [False, False, True]
    assert suite.judge.kind == "rule" and suite.judge.min_overlap == 0.5
    assert suite.gate.pass_rate == 0.9 and suite.gate.tags == {"smoke": 1.0}
    assert suite.gate.max_drop == 0.1
    assert suite.report.dir == Path("out") and suite.report.formats == ("md", "json", "html")
    assert suite.concurrency == 2
    assert suite.build_names == ("first", "second")


def test_a_folder_means_its_suite_yaml(tmp_path: Path) -> None:
    write_suite(tmp_path, GOOD)
    assert load_suite(tmp_path).path == tmp_path / "suite.yaml"


def test_a_folder_without_suite_yaml_lists_what_it_holds(tmp_path: Path) -> None:
    (tmp_path / "other.yaml").write_text("name: x\n", encoding="utf-8")
    with pytest.raises(SuiteError, match=r"holds no suite.yaml \(other.yaml\)"):
        load_suite(tmp_path)


def test_an_unknown_top_key_names_the_line_and_the_key_meant(tmp_path: Path) -> None:
    text = GOOD.replace("strategies:", "checks:")
    error = error_of(tmp_path, text)
    assert error.line == 8
    assert "unknown key 'checks' in the suite; did you mean 'strategies'?" in str(error)
    assert str(error).startswith(f"{tmp_path / 'suite.yaml'}:8:1: checks:")


def test_a_misspelt_check_gets_the_known_name(tmp_path: Path) -> None:
    error = error_of(tmp_path, GOOD.replace("- contains-facts", "- contains_facts"))
    assert error.line == 9
    assert "unknown check 'contains_facts'; did you mean 'contains-facts'?" in str(error)


def test_an_unknown_check_lists_the_known_ones(tmp_path: Path) -> None:
    error = error_of(tmp_path, GOOD.replace("- relevancy", "- vibes"))
    assert "unknown check 'vibes'; the known checks are exact-match, contains" in str(error)


def test_an_unknown_option_of_a_check(tmp_path: Path) -> None:
    error = error_of(tmp_path, GOOD.replace("{threshold: 0.5}", "{treshold: 0.5}"))
    assert error.line == 10
    assert "unknown option 'treshold' of 'token-f1'; did you mean 'threshold'?" in str(error)


def test_a_threshold_out_of_range(tmp_path: Path) -> None:
    error = error_of(tmp_path, GOOD.replace("{threshold: 0.5}", "{threshold: 5}"))
    assert "strategies[1].token-f1.threshold: expected a number between 0 and 1, got 5" in str(
        error
    )


def test_a_percentage_pass_rate_is_explained(tmp_path: Path) -> None:
    error = error_of(tmp_path, GOOD.replace("pass-rate: 0.9", "pass-rate: 90"))
    assert error.line == 13
    assert "gate.pass-rate: expected a fraction between 0 and 1 (write 0.9, not 90)" in str(error)


def test_a_missing_samples_file_suggests_the_close_name(tmp_path: Path) -> None:
    error = error_of(tmp_path, GOOD.replace("samples: samples.yaml", "samples: sample.yaml"))
    assert error.line == 2
    assert "no such file 'sample.yaml'" in str(error)
    assert "did you mean 'samples.yaml'?" in str(error)


def test_every_problem_is_listed_at_once(tmp_path: Path) -> None:
    text = GOOD.replace("checks", "x").replace("kind: rule", "kind: rules")
    text = text.replace("formats: [md, json, html]", "formats: [markdown]")
    error = error_of(tmp_path, text)
    message = str(error)
    assert message.startswith("2 problems found:")
    assert "unknown judge kind 'rules'; did you mean 'rule'?" in message
    assert "unknown report format 'markdown'; did you mean 'md'?" in message


def test_malformed_yaml_names_the_line(tmp_path: Path) -> None:
    error = error_of(tmp_path, "name: demo\nsamples: [a.yaml\nstrategies: []\n")
    assert "malformed YAML" in str(error)
    assert error.line is not None and error.line >= 2


def test_a_list_instead_of_a_mapping(tmp_path: Path) -> None:
    error = error_of(tmp_path, "- name: demo\n")
    assert "a suite file is a mapping of keys" in str(error) and "found a list" in str(error)


def test_missing_samples_and_strategies(tmp_path: Path) -> None:
    error = error_of(tmp_path, "name: demo\napplication: {function: 'app:answer'}\n")
    assert "missing 'samples'" in str(error)
    assert "missing 'strategies'" in str(error)


def test_a_function_needs_module_and_name(tmp_path: Path) -> None:
    error = error_of(tmp_path, GOOD.replace("model-id: demo-app", "function: answer"))
    assert "application.function: expected 'package.module:function'" in str(error)


def test_a_duplicated_check_needs_a_name(tmp_path: Path) -> None:
    error = error_of(tmp_path, GOOD.replace("- relevancy", "- contains-facts"))
    assert "the check 'contains-facts' appears twice (item 1)" in str(error)
    named = GOOD.replace("- relevancy", "- contains-facts: {name: facts-again}")
    suite = load_suite(write_suite(tmp_path, named))
    assert [s.label for s in suite.evaluations[0].strategies][-1] == "facts-again"


def test_yaml_python_tags_are_refused(tmp_path: Path) -> None:
    error = error_of(tmp_path, "name: !!python/object/apply:os.system [echo hi]\n")
    assert "malformed YAML" in str(error) or "tag" in str(error)


def test_several_evaluations(tmp_path: Path) -> None:
    text = """\
    name: two
    evaluations:
      - name: a
        samples: samples.yaml
        application: {function: "app.py:answer"}
        strategies: [contains-facts]
      - name: b
        samples: [samples.yaml]
        tags: [smoke]
        application: {function: "app.py:answer"}
        strategies: [exact-match]
    """
    suite = load_suite(write_suite(tmp_path, text))
    assert [e.name for e in suite.evaluations] == ["a", "b"]
    assert suite.evaluations[1].tags == ("smoke",)


def test_several_evaluations_with_top_level_samples_is_an_error(tmp_path: Path) -> None:
    text = """\
    samples: samples.yaml
    evaluations:
      - name: a
        samples: samples.yaml
        application: {function: "app.py:answer"}
        strategies: [contains-facts]
      - name: a
        samples: samples.yaml
        application: {function: "app.py:answer"}
        strategies: [contains-facts]
    """
    message = str(error_of(tmp_path, text))
    assert "'samples' belongs inside each item of 'evaluations'" in message
    assert "duplicate evaluation name 'a'" in message


def test_the_bundled_suites_load() -> None:
    root = Path(__file__).resolve().parents[2] / "golden"
    support = load_suite(root / "support")
    assert support.build_names == ("healthy", "regressed")
    assert support.gate.pass_rate == 0.9
    assert [s.kind for s in support.evaluations[0].strategies] == [
        "contains-facts",
        "relevancy",
        "groundedness",
    ]


def test_the_json_schema_accepts_the_bundled_suites_and_rejects_mistakes() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    import yaml

    from evalmark.suite import suite_file_schema

    schema = suite_file_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    root = Path(__file__).resolve().parents[2] / "golden"
    for name in ("support", "car-rental"):
        document = yaml.safe_load((root / name / "suite.yaml").read_text(encoding="utf-8"))
        assert list(validator.iter_errors(document)) == [], name
    document = yaml.safe_load(GOOD)
    assert list(validator.iter_errors(document)) == []
    for mistake in (
        {**document, "checks": []},
        {**document, "strategies": ["vibes"]},
        {**document, "strategies": [{"token-f1": {"treshold": 0.5}}]},
        {**document, "gate": {"pass-rate": 90}},
        {**document, "report": {"formats": ["markdown"]}},
    ):
        assert list(validator.iter_errors(mistake)), mistake
