"""The ``inspect`` report format: an evalmark run written as an inspect_ai ``.json`` eval log,
read back through evalmark's own inspect importer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalmark.cli import main
from evalmark.interop import read
from evalmark.report import Report, render_report, write_report
from evalmark.report._formatters import formatter_for_path
from evalmark.results._result import EvaluationResult
from evalmark.results._result_column import ResultColumn
from evalmark.samples._sample import Parameters, Sample

FIXTURE = Path(__file__).parent / "fixtures" / "inspect" / "capitals.json"

# The top-level fields of inspect_ai's ``EvalLog`` and of its ``EvalSample`` (log version 2).
LOG_FIELDS = {"version", "status", "eval", "plan", "results", "stats", "samples"}
SPEC_FIELDS = {"run_id", "created", "task", "task_id", "dataset", "model", "config"}
SAMPLE_FIELDS = {"id", "epoch", "input", "target", "messages", "output", "scores"}


def _samples() -> list[Sample]:
    return [
        Sample(
            name="paris", parameters=Parameters(["Capital of France?"]), expected_output="Paris"
        ),
        Sample(
            name="berlin",
            parameters=Parameters(
                [
                    [
                        {"role": "system", "content": "One word."},
                        {"role": "user", "content": "Capital of Germany?"},
                    ]
                ]
            ),
            expected_outputs=("Berlin", "Berlin, Germany"),
        ),
        Sample(name="lima", parameters=Parameters(["Capital of Peru?"]), expected_output="Lima"),
    ]


def _report() -> Report:
    def result(passed: bool) -> EvaluationResult:
        return EvaluationResult(passed, 1.0 if passed else 0.0, "" if passed else "no match")

    return Report(
        name="capitals",
        sample_names=["paris", "berlin", "lima"],
        sample_tags=[(), (), ()],
        columns={
            "exact-match": ResultColumn.from_results([result(True), result(True), result(False)]),
            "contains": ResultColumn.from_results([result(True), result(False), result(False)]),
        },
        outputs=["Paris", "Berlin", "Cusco"],
        metadata={"build": "v2"},
    )


def test_the_log_has_inspects_top_level_fields() -> None:
    log = json.loads(render_report(_report(), "inspect", samples=_samples()))
    assert log.keys() >= LOG_FIELDS
    assert (log["version"], log["status"]) == (2, "success")
    assert log["eval"].keys() >= SPEC_FIELDS
    assert log["eval"]["model"] == "evalmark/v2"
    assert all(s.keys() >= SAMPLE_FIELDS for s in log["samples"])
    scores = {s["name"]: s["metrics"] for s in log["results"]["scores"]}
    assert scores["exact-match"]["accuracy"]["value"] == pytest.approx(2 / 3)
    assert scores["contains"]["accuracy"]["value"] == pytest.approx(1 / 3)
    berlin = log["samples"][1]
    assert berlin["input"][0] == {"role": "system", "content": "One word."}
    assert berlin["messages"][-1] == {
        "role": "assistant",
        "content": "Berlin",
        "source": "generate",
    }


def test_the_log_round_trips_through_the_inspect_importer(tmp_path: Path) -> None:
    path = write_report(_report(), tmp_path / "run.inspect.json", samples=_samples())
    imported = read("inspect", path, allow_loss=["scorer:exact-match", "scorer:contains"])
    assert [s.name for s in imported.samples] == [
        "capitals-paris",
        "capitals-berlin",
        "capitals-lima",
    ]
    paris, berlin, lima = imported.samples
    assert (paris.expected_output, lima.expected_output) == ("Paris", "Lima")
    assert berlin.expected_outputs == ("Berlin", "Berlin, Germany")
    assert paris.parameters[0] == "Capital of France?"
    assert imported.outputs == {
        "evalmark-v2": {
            "capitals-paris": "Paris",
            "capitals-berlin": "Berlin",
            "capitals-lima": "Cusco",
        }
    }
    verdicts = {
        s.name: {
            check: score["value"]
            for check, score in s.metadata["inspect-results"]["evalmark-v2"]["scores"].items()
        }
        for s in imported.samples
    }
    assert verdicts == {
        "capitals-paris": {"exact-match": "C", "contains": "C"},
        "capitals-berlin": {"exact-match": "C", "contains": "I"},
        "capitals-lima": {"exact-match": "I", "contains": "I"},
    }


def test_messages_of_a_role_inspect_lacks_are_sent_as_their_json() -> None:
    samples = _samples()
    question = [{"role": "developer", "content": "One word."}]
    samples[0] = Sample(name="paris", parameters=Parameters([question]), expected_output="Paris")
    log = json.loads(render_report(_report(), "inspect", samples=samples))
    assert json.loads(log["samples"][0]["input"]) == [question]


def test_the_same_report_gives_the_same_bytes_and_the_extension_picks_the_format() -> None:
    report, samples = _report(), _samples()
    assert render_report(report, "inspect", samples=samples) == render_report(
        report, "inspect", samples=samples
    )
    assert formatter_for_path(Path("x.inspect.json")).name == "inspect"
    assert formatter_for_path(Path("x.json")).name == "json"


def test_a_log_without_the_samples_names_the_cases_it_lacks() -> None:
    with pytest.raises(ValueError, match=r"needs the samples the run read.*lima"):
        render_report(_report(), "inspect", samples=_samples()[:2])


def test_evalmark_run_writes_an_inspect_log_of_an_imported_suite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = tmp_path / "suite"
    assert main(["import", "inspect", str(FIXTURE), "-o", str(suite), "--name", "caps"]) == 0
    out = tmp_path / "reports"
    code = main(
        ["run", str(suite), "--report-dir", str(out), "--no-history", "--report-format", "inspect"]
    )
    assert code == 1  # one case of three fails the imported gate of 100%
    log = json.loads((out / "caps-mockllm-model.inspect.json").read_text(encoding="utf-8"))
    assert [s["id"] for s in log["samples"]] == ["capitals-1", "capitals-2", "capitals-3"]
    assert [s["scores"]["inspect-match"]["value"] for s in log["samples"]] == ["C", "C", "I"]
    assert log["samples"][0]["target"] == "Paris"
    assert log["eval"]["created"] != "1970-01-01T00:00:00+00:00"
    assert sorted(p.name for p in out.iterdir()) == ["caps-mockllm-model.inspect.json"]
    capsys.readouterr()


def test_an_unknown_report_format_exits_2_naming_the_known_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", str(tmp_path), "--report-format", "nope"]) == 2
    assert "--report-format nope: no such report format; known: " in capsys.readouterr().err


def test_report_render_writes_the_log_of_a_json_report_with_its_samples(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = write_report(_report(), tmp_path / "run.json")
    samples = tmp_path / "samples.yaml"
    samples.write_text(
        "- name: paris\n  parameters: [Capital of France?]\n  expected-output: Paris\n"
        "- name: berlin\n  parameters: [Capital of Germany?]\n  expected-output: Berlin\n"
        "- name: lima\n  parameters: [Capital of Peru?]\n  expected-output: Lima\n",
        encoding="utf-8",
    )
    assert main(["report", "render", str(report), "--format", "inspect"]) == 2
    assert "--format inspect needs the run's sample files" in capsys.readouterr().err
    out = tmp_path / "run.inspect.json"
    args = ["report", "render", str(report), "--format", "inspect", "--samples", str(samples)]
    assert main([*args, "-o", str(out)]) == 0
    log = json.loads(out.read_text(encoding="utf-8"))
    assert [(s["id"], s["target"]) for s in log["samples"]] == [
        ("paris", "Paris"),
        ("berlin", "Berlin"),
        ("lima", "Lima"),
    ]


def test_a_suite_report_without_samples_is_a_suite_error_naming_the_format(
    tmp_path: Path,
) -> None:
    from evalmark.errors import SuiteError
    from evalmark.suite._output import _render

    with pytest.raises(SuiteError, match=r"report format inspect: .*drop inspect"):
        _render(_report(), (), "inspect", tmp_path / "x.inspect.json")
