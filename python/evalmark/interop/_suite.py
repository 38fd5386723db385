"""Write an :class:`~evalmark.interop.Imported` evaluation as an evalmark suite folder."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path

from evalmark._files.atomic import write_atomically
from evalmark._files.yaml_write import dump_yaml
from evalmark.errors import ImportFormatError, Problem
from evalmark.interop._conversation_builds import MODEL_ID, record_conversations
from evalmark.interop._model import Imported
from evalmark.models import ScriptedChat, record_replay
from evalmark.samples._write import write_samples, write_test_cases
from evalmark.strategies._registry import STRATEGY_KINDS
from evalmark.suite._application import question_of

__all__ = ["MODEL_ID", "write_suite"]


def write_suite(
    imported: Imported,
    directory: str | os.PathLike[str],
    *,
    name: str,
    checks: Iterable[str] = (),
    judge_cassette: str | os.PathLike[str] | None = None,
    judge_model: str | None = None,
) -> Path:
    """Write ``samples.yaml``, ``suite.yaml``, ``source.json`` and one cassette per build
    (``builds/NAME.jsonl``, the first the default) into ``directory``; returns the suite file.
    ``checks`` are check kinds added to the ones the source declared (there must be one);
    when the source's cases carry more than an answer (retrieved context, tool calls),
    ``testcases/BUILD.jsonl`` keeps each build's test cases.

    Each build's cassette holds the request the suite sends for a sample (its first parameter
    as the user message) and the recorded answer, so ``evalmark run DIRECTORY`` replays it.

    A source with model-graded checks gets a recorded judge: ``judge.jsonl`` (a copy of
    ``judge_cassette`` when given) answered by ``judge_model`` (``module:factory``; a ``.py``
    file is written relative to the suite). Without a model, ``evalmark run`` says the judge
    must be named and recorded.
    """
    added = list(checks)
    for kind in added:
        if kind not in STRATEGY_KINDS:
            raise ImportFormatError([Problem(f"unknown check kind {kind!r}", record="--check")])
    strategies = [*imported.checks, *added]
    if not strategies:
        raise ImportFormatError(
            [
                Problem(
                    f"the {imported.format} source declares no check evalmark can run; name "
                    "one with --check KIND (e.g. --check exact-match)",
                    path=imported.files[0],
                )
            ]
        )
    folder = Path(directory)
    (folder / "builds").mkdir(parents=True, exist_ok=True)
    if not imported.conversations:
        write_samples(imported.samples, folder / "samples.yaml")
    builds = record_conversations(imported.conversations, folder)
    by_name = {sample.name: sample for sample in imported.samples}
    for build, answers in imported.outputs.items():
        cassette = folder / "builds" / f"{build}.jsonl"
        cassette.unlink(missing_ok=True)
        order = [n for n in by_name if n in answers]
        chat = ScriptedChat([answers[n] for n in order], model_id=MODEL_ID)
        recorded = record_replay(chat, cassette, "rewrite", model_id=MODEL_ID)
        with recorded.buffered():  # one write of the cassette, not one per answer
            for sample_name in order:
                question = question_of(by_name[sample_name])
                recorded.chat([{"role": "user", "content": question}])
        builds[build] = f"builds/{build}.jsonl"
    for lock in (folder / "builds").glob("*.lock"):  # ours, released: nobody else writes here
        lock.unlink()
    suite: dict[str, object] = {
        "name": name,
        "description": (
            f"Imported from {imported.format} ({imported.version}); source hash "
            f"sha256:{imported.sha256} (see source.json)"
        ),
        **_cases(imported),
        "source": {
            "format": imported.format,
            "version": imported.version,
            "sha256": imported.sha256,
            "files": [Path(f).name for f in imported.files],
            **({"lost": list(imported.lost)} if imported.lost else {}),
        },
    }
    if builds:
        suite["application"] = {"model-id": MODEL_ID, "builds": builds}
    suite["strategies"] = strategies
    if any(_uses_judge(c) for c in strategies):
        suite["judge"] = _judge(folder, judge_cassette, judge_model)
    if imported.extra:
        for build in imported.outputs:
            write_test_cases(imported.test_cases(build), folder / "testcases" / f"{build}.jsonl")
    suite["gate"] = {"pass-rate": 1.0}
    suite["report"] = {"dir": f"out/{name}", "formats": ["md", "json"]}
    header = b"# Written by `evalmark import`; source.json records what was imported.\n"
    write_atomically(folder / "suite.yaml", header + dump_yaml(suite))
    source = json.dumps(imported.source, indent=2, ensure_ascii=False, sort_keys=True)
    write_atomically(folder / "source.json", (source + "\n").encode())
    return folder / "suite.yaml"


def _cases(imported: Imported) -> dict[str, object]:
    """The suite's cases: its samples file, or its conversations (scripted users)."""
    if not imported.conversations:
        return {"samples": "samples.yaml"}
    listed: list[dict[str, object]] = []
    for conversation in imported.conversations:
        entry: dict[str, object] = {"id": conversation.name}
        if conversation.tags:
            entry["tags"] = list(conversation.tags)
        entry["turns"] = list(conversation.turns)
        listed.append(entry)
    return {"conversations": listed}


def _uses_judge(check: object) -> bool:
    """True for an imported check the judge decides: an ``llm-judge``, an ``openai-grader``,
    or promptfoo's assertions with rubrics to grade."""
    if not isinstance(check, dict):
        return False
    asserts = check.get("promptfoo-asserts")
    judged = "llm-judge" in check or "openai-grader" in check
    return judged or (isinstance(asserts, dict) and "llm-rubric" in asserts)


def _judge(
    folder: Path, cassette: str | os.PathLike[str] | None, model: str | None
) -> dict[str, str]:
    """The recorded judge of an imported suite with model-graded checks."""
    if cassette is not None:
        write_atomically(folder / "judge.jsonl", Path(cassette).read_bytes())
    judge = {"kind": "recorded", "cassette": "judge.jsonl"}
    if model is not None:
        module, _, factory = model.rpartition(":")
        if module.endswith(".py"):
            module = Path(os.path.relpath(Path(module).resolve(), folder.resolve())).as_posix()
        judge["model"] = f"{module}:{factory}"
    return judge
