"""inspect_ai's model-graded scorers stay refused, with a message that says whose prompt it is
and what to do: inspect's built-in template (not in the log; evalmark does not copy it) or a
template the log records (the user's; its import is not done yet). The log is built from the
test fixtures' maker, after inspect's published log schema."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from evalmark.errors import ImportFormatError
from evalmark.interop import read

_MAKER = Path(__file__).parent / "fixtures" / "inspect" / "make_fixtures.py"
_SPEC = importlib.util.spec_from_file_location("inspect_graded_fixtures", _MAKER)
assert _SPEC is not None and _SPEC.loader is not None
make_fixtures = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(make_fixtures)


def _refusal(tmp_path: Path, scorer: str, params: dict[str, Any]) -> str:
    log = make_fixtures.json_log()
    log["results"]["scores"][0]["scorer"] = scorer
    log["results"]["scores"][0]["params"] = params
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    with pytest.raises(ImportFormatError) as caught:
        read("inspect", path)
    return str(caught.value)


@pytest.mark.parametrize(
    "params",
    [{}, {"partial_credit": True}, {"template": "Q {question} A {answer} {instructions}"}],
)
@pytest.mark.parametrize("scorer", ["model_graded_qa", "model_graded_fact"])
def test_the_built_in_prompt_is_named_as_inspects(
    tmp_path: Path, scorer: str, params: dict[str, Any]
) -> None:
    message = _refusal(tmp_path, scorer, params)
    assert "inspect's built-in prompt" in message and "does not copy" in message
    assert f"--allow-loss scorer:{scorer}" in message and "--check" in message


def test_a_recorded_template_is_named_as_the_users(tmp_path: Path) -> None:
    params = {"template": "Q {question} A {answer} {instructions}", "instructions": "Say GRADE"}
    message = _refusal(tmp_path, "model_graded_qa", params)
    assert "template recorded in the log" in message and "not do yet" in message
    assert "--allow-loss scorer:model_graded_qa" in message
