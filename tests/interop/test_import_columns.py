"""What the fast import path must keep: ``Imported.columns`` gives a build's expected outputs
and answers (the samples are built only when read, and equal what they were), an inspect
log's unknown sample fields are refused by the typed decoder under their own names, and text
that is not JSON or not UTF-8 deep inside a sample is refused when the log is read."""

from __future__ import annotations

import importlib.util
import json
import pickle
import zipfile
from pathlib import Path
from typing import Any

import pytest

from evalmark.errors import ImportFormatError
from evalmark.interop import read

FIXTURES = Path(__file__).parent / "fixtures"


def _inspect_log() -> dict[str, Any]:
    spec = importlib.util.spec_from_file_location(
        "inspect_log_fixtures_columns", FIXTURES / "inspect" / "make_fixtures.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    log: dict[str, Any] = module.json_log()
    return log


def _write(tmp_path: Path, log: dict[str, Any]) -> Path:
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("format", "path"),
    [
        ("inspect", FIXTURES / "inspect" / "capitals.json"),
        ("inspect", FIXTURES / "inspect" / "capitals.eval"),
        ("promptfoo", FIXTURES / "promptfoo" / "results.json"),
        ("promptfoo", FIXTURES / "promptfoo" / "promptfooconfig.yaml"),
    ],
)
def test_columns_are_each_builds_expected_outputs_and_answers(format: str, path: Path) -> None:
    imported = read(format, path)
    before = {build: imported.columns(build) for build in imported.outputs}
    samples = imported.samples
    assert samples == read(format, path).samples  # built once, the same every time
    for build, answers in imported.outputs.items():
        expected = [(s.expected_output, answers[s.name]) for s in samples if s.name in answers]
        assert list(zip(*before[build], strict=True)) == expected
        assert imported.columns(build) == before[build]


def test_deferred_samples_carry_every_recorded_field(tmp_path: Path) -> None:
    log = _inspect_log()
    sample = log["samples"][0]
    imported = read("inspect", _write(tmp_path, log))
    (build,) = imported.outputs
    results = imported.samples[0].metadata["inspect-results"][build]
    assert results["messages"] == sample["messages"]
    assert results["output"] == sample["output"]
    assert results["scores"] == sample["scores"]
    assert results["model-usage"] == sample["model_usage"]
    assert "store" not in results or results["store"] == sample["store"]


@pytest.mark.parametrize("field", ["my field", "x_0", "épreuve"])
def test_an_unknown_sample_field_is_refused_by_name_unless_allowed(
    tmp_path: Path, field: str
) -> None:
    log = _inspect_log()
    log["samples"][1][field] = {"kept": "nowhere"}
    log["samples"][0][field] = None  # set to nothing: not a loss
    path = _write(tmp_path, log)
    with pytest.raises(ImportFormatError, match=f"sample field '{field}' is not carried"):
        read("inspect", path)
    allowed = read("inspect", path, allow_loss=[field])
    assert allowed.lost == (field,)
    assert [s.name for s in allowed.samples] == [
        s.name for s in read("inspect", _write_clean(tmp_path)).samples
    ]


def _write_clean(tmp_path: Path) -> Path:
    path = tmp_path / "clean.json"
    path.write_text(json.dumps(_inspect_log()), encoding="utf-8")
    return path


def test_two_unknown_fields_are_each_named(tmp_path: Path) -> None:
    log = _inspect_log()
    log["samples"][0]["sandbox_extra"] = 1
    log["samples"][2]["another"] = [1]
    path = _write(tmp_path, log)
    with pytest.raises(ImportFormatError, match="'another' is not carried"):
        read("inspect", path, allow_loss=["sandbox_extra"])
    both = read("inspect", path, allow_loss=["sandbox_extra", "another"])
    assert both.lost == ("sandbox_extra", "another")


def test_bytes_that_are_not_utf8_inside_a_recorded_field_are_refused_on_read(
    tmp_path: Path,
) -> None:
    path = _write(tmp_path, _inspect_log())
    data = path.read_bytes().replace(b'"assistant"', b'"assist\xffnt"', 1)
    path.write_bytes(data)
    with pytest.raises(ImportFormatError, match=r"not JSON: .*UTF-8"):
        read("inspect", path)


def test_a_bad_escape_inside_a_recorded_field_is_refused_in_the_decoders_words(
    tmp_path: Path,
) -> None:
    path = _write(tmp_path, _inspect_log())
    data = path.read_bytes().replace(b'"assistant"', b'"assist\\xnt"', 1)
    path.write_bytes(data)
    with pytest.raises(ImportFormatError, match="not JSON: JSON is malformed: invalid escape"):
        read("inspect", path)


def test_an_unknown_field_of_an_eval_zip_member_is_refused_naming_the_member(
    tmp_path: Path,
) -> None:
    spec = importlib.util.spec_from_file_location(
        "inspect_eval_fixtures_columns", FIXTURES / "inspect" / "make_fixtures.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    members: dict[str, Any] = module.eval_members()
    members["samples/b_epoch_2.json"]["odd field"] = "set"
    path = tmp_path / "log.eval"
    with zipfile.ZipFile(path, "w") as archive:
        for name, value in members.items():
            archive.writestr(name, json.dumps(value))
    with pytest.raises(ImportFormatError, match=r"b_epoch_2\.json: odd field: sample field"):
        read("inspect", path)
    assert read("inspect", path, allow_loss=["odd field"]).lost == ("odd field",)


def test_an_import_with_deferred_samples_pickles_with_its_samples() -> None:
    imported = read("inspect", FIXTURES / "inspect" / "capitals.json")
    again = pickle.loads(pickle.dumps(imported))
    assert again == imported
    assert again.samples == imported.samples
