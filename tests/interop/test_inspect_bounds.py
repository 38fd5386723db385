"""What the inspect importer's fast paths must not change: a tool call whose key is written
with JSON escapes is still read, and a log whose samples hold many unknown fields is read in
a bounded number of typed decodes, with the same result and wording as one at a time."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import evalmark.interop._inspect_log as inspect_log
from evalmark.errors import ImportFormatError
from evalmark.interop import read
from inspect_logs import json_log, write_log


def _calls(path: Path) -> list[Any]:
    imported = read("inspect", path)
    return [case.tool_calls for case in imported.test_cases("mockllm-model") if case.tool_calls]


@pytest.mark.parametrize("suffix", [".json", ".eval"])
@pytest.mark.parametrize(
    "escaped", [b'"tool\\u005fcalls"', b'"\\u0074ool_calls"', b'"tool_c\\u0061lls"']
)
def test_a_tool_call_key_written_with_escapes_is_still_read(
    tmp_path: Path, suffix: str, escaped: bytes
) -> None:
    plain = _calls(write_log(tmp_path / f"plain{suffix}", json_log()))
    assert plain and plain[0][0].name == "lookup"
    odd = write_log(tmp_path / f"escaped{suffix}", json_log(), escaped)
    assert b'"tool_calls"' not in odd.read_bytes()
    assert _calls(odd) == plain


def _count_decodes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the typed decodes of a whole ``.json`` log."""
    count = [0]
    typed = inspect_log._read_json

    def counted(path: Path, rows: Any) -> Any:
        count[0] += 1
        return typed(path, rows)

    monkeypatch.setattr(inspect_log, "_read_json", counted)
    return count


FIELDS = [f"field {index:03d}" for index in range(200)]


@pytest.mark.parametrize("spread", [False, True])
def test_two_hundred_unknown_fields_are_read_in_a_bounded_number_of_decodes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spread: bool
) -> None:
    log = json_log()
    samples = log["samples"]
    for index, field in enumerate(FIELDS):
        # spread: each field in one sample (a copy of the first), else all in the second
        if spread:
            sample = {**samples[0], "id": f"extra-{index}", field: None}
            samples.append(sample)
        else:
            samples[1][field] = None
    samples[1][FIELDS[7]] = {"kept": "nowhere"}  # the one field holding something
    path = write_log(tmp_path / "log.json", log)
    count = _count_decodes(monkeypatch)
    with pytest.raises(ImportFormatError) as error:
        read("inspect", path)
    (problem,) = error.value.problems
    assert problem.message == (
        f"sample field {FIELDS[7]!r} is not carried; importing it would lose it. Pass "
        f"--allow-loss {FIELDS[7]} to import without it"
    )
    assert (problem.path, problem.record) == (str(path), FIELDS[7])
    assert count[0] <= 4
    count[0] = 0
    imported = read("inspect", path, allow_loss=[FIELDS[7]])
    assert imported.lost == (FIELDS[7],)
    assert len(imported.samples) == len(samples)
    assert count[0] <= 4


def test_a_sample_with_many_unknown_fields_in_an_eval_zip_is_refused_by_its_first(
    tmp_path: Path,
) -> None:
    log = json_log()
    for field in FIELDS:
        log["samples"][2][field] = "set"
    path = write_log(tmp_path / "log.eval", log)
    with pytest.raises(ImportFormatError, match=f"3_epoch_1.json: {FIELDS[0]}: sample field"):
        read("inspect", path)
    imported = read("inspect", path, allow_loss=FIELDS)
    assert imported.lost == tuple(FIELDS)


def test_unknown_fields_spread_over_an_eval_zips_members_are_read_in_bounded_decodes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = json_log()
    samples = log["samples"]
    for index, field in enumerate(FIELDS[:50]):
        samples.append({**samples[0], "id": f"extra-{index}", field: None})
    samples[-1][FIELDS[49]] = "set"
    path = write_log(tmp_path / "log.eval", log)
    count = [0]
    typed = inspect_log._read_zip

    def counted(path: Path, rows: Any) -> Any:
        count[0] += 1
        return typed(path, rows)

    monkeypatch.setattr(inspect_log, "_read_zip", counted)
    with pytest.raises(ImportFormatError, match=f"extra-49_epoch_1.json: {FIELDS[49]}: sample"):
        read("inspect", path)
    assert count[0] <= 5
    assert read("inspect", path, allow_loss=[FIELDS[49]]).lost == (FIELDS[49],)
