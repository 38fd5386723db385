"""Multimodal judging: images and audio go to the judge as OpenAI-compatible content parts,
are recorded in a cassette by content hash (bytes once, beside it, never inline) and replay
offline; a missing blob is a typed error naming the cassette and the hash."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from evalmark.errors import CassetteError
from evalmark.models import chat_from_callable, record_replay
from evalmark.models._attachments import AttachmentBlobMissing, AttachmentError, blob_dir
from evalmark.samples._samples import Sample
from evalmark.strategies._llm_judge import LLMJudge

PNG = bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489")
WAV = b"RIFF$\x00\x00\x00WAVEfmt " + bytes(range(40))
REPLY = json.dumps({"reasoning": "the picture is a plain square", "score": True})


def _model(seen: list[list[dict[str, Any]]]) -> Any:
    def answer(messages: list[dict[str, Any]], **params: Any) -> str:
        seen.append(messages)
        return REPLY

    return chat_from_callable(answer, model_id="vision-judge")


def _offline() -> Any:
    def refuse(messages: Any, **params: Any) -> str:
        raise AssertionError("replay must not call the model")

    return chat_from_callable(refuse, model_id="vision-judge")


def _grade(model: Any, cassette: Path, mode: str, image: Path) -> Any:
    judge = LLMJudge("sensitive-imagery", record_replay(model, cassette, mode), mode="prompted")
    audio = "data:audio/wav;base64," + base64.b64encode(WAV).decode()
    return judge.grade(outputs="a product photo", attachments=[image, audio])


def test_attachments_are_sent_as_parts_recorded_by_hash_and_replayed(tmp_path: Path) -> None:
    image = tmp_path / "photo.png"
    image.write_bytes(PNG)
    cassette = tmp_path / "judge.jsonl"
    seen: list[list[dict[str, Any]]] = []
    recorded = _grade(_model(seen), cassette, "record-missing", image)
    _grade(_model(seen), cassette, "record-missing", image)  # the same call: replayed
    assert recorded.passed and len(seen) == 1
    parts = seen[0][-1]["content"]
    assert parts[0]["type"] == "text" and parts[0]["text"].startswith("evalmark-prompt: ")
    assert parts[1] == {
        "type": "image_url",
        "image_url": {"url": "data:image/png;base64," + base64.b64encode(PNG).decode()},
    }
    assert parts[2] == {
        "type": "input_audio",
        "input_audio": {"data": base64.b64encode(WAV).decode(), "format": "wav"},
    }
    text = cassette.read_text(encoding="utf-8")
    assert base64.b64encode(PNG).decode() not in text
    assert base64.b64encode(WAV).decode() not in text
    digests = {hashlib.sha256(PNG).hexdigest(), hashlib.sha256(WAV).hexdigest()}
    assert {f"blob:sha256:{d}" in text for d in digests} == {True}
    stored = sorted(p.name for p in blob_dir(cassette).iterdir())
    assert stored == sorted(digests)
    assert (blob_dir(cassette) / hashlib.sha256(PNG).hexdigest()).read_bytes() == PNG
    replayed = _grade(_offline(), cassette, "replay", image)
    assert replayed.reply == recorded.reply


def test_one_image_in_two_recordings_is_stored_once(tmp_path: Path) -> None:
    image = tmp_path / "photo.png"
    image.write_bytes(PNG)
    cassette = tmp_path / "judge.jsonl"
    judge = LLMJudge("explicit-content", record_replay(_model([]), cassette, "record-missing"))
    judge.grade(outputs="first caption", attachments=[image])
    judge.grade(outputs="second caption", attachments=[image])
    assert len(cassette.read_text(encoding="utf-8").splitlines()) >= 2
    assert [p.name for p in blob_dir(cassette).iterdir()] == [hashlib.sha256(PNG).hexdigest()]


def test_a_missing_blob_is_a_typed_error_naming_cassette_and_hash(tmp_path: Path) -> None:
    image = tmp_path / "photo.png"
    image.write_bytes(PNG)
    cassette = tmp_path / "judge.jsonl"
    _grade(_model([]), cassette, "record-missing", image)
    digest = hashlib.sha256(PNG).hexdigest()
    (blob_dir(cassette) / digest).unlink()
    with pytest.raises(AttachmentBlobMissing) as caught:
        _grade(_offline(), cassette, "replay", image)
    assert isinstance(caught.value, CassetteError)
    assert str(cassette) in str(caught.value) and digest in str(caught.value)
    assert caught.value.digest == digest


def test_a_sample_carries_attachments_in_its_metadata(tmp_path: Path) -> None:
    image = tmp_path / "scan.png"
    image.write_bytes(PNG)
    seen: list[list[dict[str, Any]]] = []
    judge = LLMJudge("sensitive-imagery", _model(seen), mode="prompted")
    sample = Sample(
        name="scan",
        parameters=["x-ray"],
        expected_output="safe",
        metadata={"attachments": [str(image)]},
    )
    assert judge.evaluate(sample, "an x-ray of a hand").passed
    assert [p["type"] for p in seen[0][-1]["content"]] == ["text", "image_url"]


def test_an_attachment_that_cannot_be_sent_is_refused_by_name(tmp_path: Path) -> None:
    judge = LLMJudge("audio-quality", _model([]))
    with pytest.raises(AttachmentError, match=r"attachments\[0\].*notes\.txt"):
        judge.grade(outputs="hello", attachments=[tmp_path / "notes.txt"])
    with pytest.raises(AttachmentError, match="base64"):
        judge.grade(outputs="hello", attachments=["data:audio/wav;base64,@@@"])
    with pytest.raises(AttachmentError, match="wav or mp3"):
        judge.grade(outputs="hello", attachments=["data:audio/ogg;base64,AAAA"])


def test_cassette_verify_checks_the_blobs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from evalmark.cli import main

    image = tmp_path / "photo.png"
    image.write_bytes(PNG)
    cassette = tmp_path / "judge.jsonl"
    _grade(_model([]), cassette, "record-missing", image)
    assert main(["cassette", "verify", str(cassette)]) == 0
    capsys.readouterr()
    blob = blob_dir(cassette) / hashlib.sha256(WAV).hexdigest()
    blob.write_bytes(b"not the recording")
    assert main(["cassette", "verify", str(cassette)]) == 1
    assert "does not hold the bytes" in capsys.readouterr().out
    blob.unlink()
    assert main(["cassette", "verify", str(cassette)]) == 1
    assert f"sha256:{hashlib.sha256(WAV).hexdigest()} is not in" in capsys.readouterr().out


def test_cassette_prune_removes_the_blobs_no_kept_entry_refers_to(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from evalmark.cli import main
    from evalmark.models._attachments import blob_refs
    from evalmark.models._cassette_file import read_cassette
    from evalmark.models._recorder import append_usage

    kept_image, dropped_image = tmp_path / "kept.png", tmp_path / "dropped.png"
    kept_image.write_bytes(PNG)
    dropped_image.write_bytes(PNG + b"\x00")
    cassette = tmp_path / "judge.jsonl"
    judge = LLMJudge("sensitive-imagery", record_replay(_model([]), cassette, "record-missing"))
    judge.grade(outputs="kept", attachments=[kept_image])
    judge.grade(outputs="dropped", attachments=[dropped_image])
    kept_digest = hashlib.sha256(PNG).hexdigest()
    entries = read_cassette(cassette).entries
    kept = [e for e in entries if kept_digest in blob_refs(e.request)]
    usage = tmp_path / "usage.jsonl"
    append_usage(usage, str(cassette), [(e.key, e.index) for e in kept])
    assert main(["cassette", "prune", str(cassette), "--usage", str(usage)]) == 0
    assert "removed attachment" in capsys.readouterr().out
    assert [p.name for p in blob_dir(cassette).iterdir()] == [kept_digest]
    assert main(["cassette", "verify", str(cassette)]) == 0
