"""promptfoo: a ``promptfooconfig.yaml`` (prompts x providers x tests) or its results JSON
(``promptfoo eval -o results.json``, results version 3), read into samples, the
``promptfoo-asserts`` check and one recorded build per provider.

Each (prompt, test) pair is a sample: its parameter is the rendered prompt; its metadata keeps
the test's vars, its assertions (``promptfoo-assert``), its threshold and, per provider,
promptfoo's own verdict (``promptfoo-results``). ``llm-rubric`` assertions keep their rubric
as written; the check then grades them with the suite's judge (``llm-rubric: judge``). What
no check reads (the providers' options, the rest of the config) is kept verbatim in the
imported suite's source record.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable, Collection, Iterable, Mapping
from pathlib import Path
from typing import Any

from evalmark._files.source import gc_paused
from evalmark.interop._model import Deferred, Imported, as_mapping, source_hash
from evalmark.interop._promptfoo_graded import (
    MODEL_GRADED,
    graded_refusal,
    options_rubric_prompt,
    rubric_prompt,
)
from evalmark.interop._promptfoo_reader import Reader, render
from evalmark.samples._sample import Parameters, Sample
from evalmark.strategies._promptfoo import PROMPTFOO_ASSERT_TYPES
from evalmark.strategies._promptfoo_rubric import PROMPTFOO_JUDGED_TYPES

__all__: list[str] = []  # read through evalmark.interop._promptfoo_results

_CARRIED = PROMPTFOO_ASSERT_TYPES | PROMPTFOO_JUDGED_TYPES

_ASSERT_KEYS = frozenset({"type", "value", "weight", "threshold"})
_TEST_KEYS = frozenset({"vars", "assert", "threshold", "description", "metadata"})
_CONFIG_KEYS = frozenset({"description", "prompts", "providers", "tests", "defaultTest"})
_RESULT_VERDICT = (
    "success",
    "score",
    "gradingResult",
    "namedScores",
    "latencyMs",
    "cost",
    "error",
    "failureReason",
    "id",
    "metadata",
    "tokenUsage",
)
_RESULT_KEYS = frozenset(
    {"promptIdx", "testIdx", "testCase", "prompt", "promptId", "vars", "provider", "response"}
) | frozenset(_RESULT_VERDICT)
_PLAIN = frozenset({str, int, float})  # var types accepted without a closer look
_EXPECTED = re.compile(r"^(not-)?([a-z-]+):\s?(.*)$", re.DOTALL)


def _assertions(
    reader: Reader, items: Any, variables: Mapping[str, Any], where: Any, prompt: str | None = None
) -> list[dict[str, Any]]:
    if items is None:
        return []
    if not isinstance(items, list):
        raise reader.error("'assert' must be a list of assertions", where)
    kept = []
    for index, item in enumerate(items):
        at = (*where, index)
        if (type(item) is not dict and not isinstance(item, Mapping)) or type(
            item.get("type")
        ) is not str:
            raise reader.error("an assertion must be a mapping with a 'type'", at)
        kind = item["type"]
        if kind not in _CARRIED:
            reader.refuse(
                f"assert:{kind}",
                graded_refusal(kind)
                if kind.removeprefix("not-") in MODEL_GRADED
                else f"assertion type {kind!r} cannot be re-scored offline by evalmark "
                "(code, embedding and model-graded assertions other than llm-rubric are not "
                "carried)",
                (*at, "type"),
            )
            continue
        judged = kind in PROMPTFOO_JUDGED_TYPES
        for key in () if _ASSERT_KEYS.issuperset(item) else sorted(set(item) - _ASSERT_KEYS):
            if not (judged and key == "rubricPrompt"):
                reader.refuse(
                    f"assert.{key}", f"assertion option {key!r} is not carried", (*at, key)
                )
        entry = {key: item[key] for key in ("type", "value", "weight", "threshold") if key in item}
        own_prompt = rubric_prompt(reader, item, prompt, at) if judged else None
        if own_prompt is not None:
            entry["rubricPrompt"] = own_prompt
        if isinstance(entry.get("value"), str):
            entry["value"] = render(reader, entry["value"], variables, (*at, "value"))
        kept.append(entry)
    return kept


def _test(reader: Reader, test: Any, default: Mapping[str, Any], where: Any) -> dict[str, Any]:
    """A test merged with ``defaultTest``: vars, assertions (rendered), threshold, rest."""
    if type(test) is not dict and not isinstance(test, Mapping):
        raise reader.error("a test must be a mapping (vars, assert...)", where)
    for key in () if _TEST_KEYS.issuperset(test) else sorted(set(test) - _TEST_KEYS - {"options"}):
        reader.refuse(f"test.{key}", f"test option {key!r} is not carried", (*where, key))
    default_prompt = options_rubric_prompt(reader, default, ("defaultTest",)) if default else None
    prompt = options_rubric_prompt(reader, test, where) or default_prompt
    own = as_mapping(test.get("vars"))
    variables = {**as_mapping(default.get("vars")), **own} if default else dict(own)
    for name, value in variables.items():
        if type(value) in _PLAIN:
            continue
        if not isinstance(value, str | int | float) or isinstance(value, bool):
            reader.refuse(f"vars.{name}", f"var {name!r} is not text or a number", where)
    asserts = (
        _assertions(reader, default.get("assert"), variables, ("defaultTest", "assert"), prompt)
        if default
        else []
    )
    asserts += _assertions(reader, test.get("assert"), variables, (*where, "assert"), prompt)
    threshold = test.get("threshold", default.get("threshold"))
    return {
        "vars": variables,
        "assert": asserts,
        "threshold": threshold,
        "description": test.get("description"),
        "metadata": test.get("metadata"),
    }


def _csv_tests(reader: Reader, ref: str, where: Any) -> list[dict[str, Any]]:
    """Tests from a CSV file: columns are vars; ``__expected*`` are assertions."""
    path = reader.path.parent / ref.removeprefix("file://")
    reader.files.append(path)
    tests: list[dict[str, Any]] = []
    rows = csv.DictReader(io.StringIO(path.read_text(encoding="utf-8-sig")))
    for row_number, row in enumerate(rows, start=2):
        test: dict[str, Any] = {"vars": {}, "assert": []}
        for column, cell in row.items():
            if column.startswith("__expected"):
                entry = _expected(reader, cell, path, row_number) if cell else None
                if entry:
                    test["assert"].append(entry)
            elif column == "__description":
                test["description"] = cell
            elif column.startswith("__"):
                reader.losses.refuse(
                    f"csv.{column}",
                    f"CSV column {column!r} is not carried",
                    str(path),
                    row_number,
                    column,
                )
            else:
                test["vars"][column] = cell
        tests.append(test)
    return tests


def _expected(reader: Reader, cell: str, path: Path, line: int) -> dict[str, Any]:
    """promptfoo's ``__expected`` shorthand: ``type: value`` (``grade:`` is ``llm-rubric``,
    ``fn:`` ``javascript``), else ``equals``."""
    match = _EXPECTED.match(cell)
    if match is None:
        return {"type": "equals", "value": cell}
    negate, kind, value = match.groups()
    kind = {"grade": "llm-rubric", "fn": "javascript", "eval": "javascript"}.get(kind, kind)
    full = f"{negate or ''}{kind}"
    if full in _CARRIED:
        return {"type": full, "value": value} if value else {"type": full}
    if kind in {"javascript", "python", "similar", "bleu"}:
        reader.losses.refuse(
            f"assert:{kind}",
            f"assertion type {kind!r} cannot be re-scored offline",
            str(path),
            line,
            "__expected",
        )
        return {}
    return {"type": "equals", "value": cell}


def _prompts(reader: Reader, config: Mapping[str, Any]) -> list[str]:
    prompts = config.get("prompts")
    if isinstance(prompts, str):
        prompts = [prompts]
    if not isinstance(prompts, list) or not prompts:
        raise reader.error("'prompts' must be a non-empty list", ("prompts",))
    texts = []
    for index, prompt in enumerate(prompts):
        raw = prompt.get("raw") if isinstance(prompt, Mapping) else prompt
        if not isinstance(raw, str):
            raise reader.error(
                "a prompt must be text (or a mapping with 'raw')", ("prompts", index)
            )
        if raw.startswith("file://"):
            path = reader.path.parent / raw.removeprefix("file://")
            reader.files.append(path)
            raw = path.read_text(encoding="utf-8")
        texts.append(raw)
    return texts


def _config_tests(reader: Reader, config: Mapping[str, Any]) -> list[dict[str, Any]]:
    default = as_mapping(config.get("defaultTest"))
    for key in sorted(set(default) - _TEST_KEYS - {"options"}):
        reader.refuse(f"test.{key}", f"defaultTest option {key!r} is not carried", ("defaultTest",))
    tests = config.get("tests", [])
    raw: list[tuple[Any, tuple[str | int, ...]]] = []
    for index, item in enumerate(tests if isinstance(tests, list) else [tests]):
        where: tuple[str | int, ...] = ("tests", index) if isinstance(tests, list) else ("tests",)
        if isinstance(item, str) and item.endswith(".csv"):
            raw += [(test, where) for test in _csv_tests(reader, item, where)]
        else:
            raw.append((item, where))
    return [_test(reader, test, default, where) for test, where in raw]


def _expected_output(test: Mapping[str, Any]) -> str:
    """The test's expected output: its first ``equals`` assertion's value, else empty."""
    for entry in test["assert"]:
        if entry["type"] == "equals" and "value" in entry:
            value = entry["value"]
            return value if isinstance(value, str) else str(value)
    return ""


def _sample(name: str, question: str, test: Mapping[str, Any], results: Any) -> Sample:
    metadata: dict[str, Any] = {
        "promptfoo-vars": dict(test["vars"]),
        "promptfoo-assert": test["assert"],
    }
    for key, value in (
        ("promptfoo-threshold", test["threshold"]),
        ("promptfoo-description", test["description"]),
        ("promptfoo-metadata", test["metadata"]),
        ("promptfoo-results", results),
    ):
        if value is not None:
            metadata[key] = value
    return Sample(
        name=name,
        parameters=Parameters([question]),
        expected_output=_expected_output(test),
        metadata=metadata,
    )


def _from_config(reader: Reader, config: Mapping[str, Any]) -> Imported:
    for key in sorted(set(config) - _CONFIG_KEYS):
        reader.refuse(f"config.{key}", f"config key {key!r} is not carried", (key,))
    prompts = _prompts(reader, config)
    samples = []
    for t, test in enumerate(_config_tests(reader, config)):
        for p, prompt in enumerate(prompts):
            question = render(reader, prompt, test["vars"], ("prompts", p))
            samples.append(_sample(f"test-{t + 1}-prompt-{p + 1}", question, test, None))
    kept = {"providers": config["providers"]} if "providers" in config else {}
    types = _types(s.metadata["promptfoo-assert"] for s in samples)
    return _imported(reader, "config", tuple(samples), types, {}, kept)


def _build_name(provider: Any, taken: dict[str, str]) -> str:
    mapping = type(provider) is dict or isinstance(provider, Mapping)
    ident = provider.get("label") or provider.get("id") if mapping else provider
    key = ident if type(ident) is str else str(ident)
    if key not in taken:
        base = re.sub(r"[^A-Za-z0-9._-]+", "-", str(ident or "provider")).strip("-") or "provider"
        name, n = base, 1
        while name in taken.values():
            n += 1
            name = f"{base}-{n}"
        taken[key] = name
    return taken[key]


def _from_results(reader: Reader, doc: Mapping[str, Any]) -> Imported:
    body = doc["results"]
    version = body.get("version")
    if version != 3:
        raise reader.error(
            f"promptfoo results version {version!r}: this importer reads version 3",
            ("results", "version"),
        )
    rows = body.get("results")
    if not isinstance(rows, list):
        raise reader.error("'results.results' must be a list", ("results", "results"))
    questions: dict[str, str] = {}
    tests: dict[str, dict[str, Any]] = {}
    verdicts: dict[str, dict[str, tuple[Mapping[str, Any], Mapping[str, Any]]]] = {}
    outputs: dict[str, dict[str, str]] = {}
    taken: dict[str, str] = {}
    for index, row in enumerate(rows):
        at: tuple[str | int, ...] = ("results", "results", index)
        if type(row) is not dict and not isinstance(row, Mapping):
            raise reader.error("a result must be an object", at)
        for key in () if _RESULT_KEYS.issuperset(row) else sorted(set(row) - _RESULT_KEYS):
            reader.refuse(f"result.{key}", f"result field {key!r} is not carried", (*at, key))
        name = f"test-{int(row.get('testIdx', 0)) + 1}-prompt-{int(row.get('promptIdx', 0)) + 1}"
        prompt = as_mapping(row.get("prompt")).get("raw")
        if not isinstance(prompt, str):
            raise reader.error("a result needs 'prompt.raw', the rendered prompt", (*at, "prompt"))
        if questions.setdefault(name, prompt) != prompt:
            raise reader.error(
                f"sample {name} was sent different prompts by different providers", at
            )
        if name not in tests:
            tests[name] = _test(reader, as_mapping(row.get("testCase")), {}, (*at, "testCase"))
        build = _build_name(row.get("provider"), taken)
        response = as_mapping(row.get("response"))
        output = response.get("output", "")
        answer = output if isinstance(output, str) else _json_text(output)
        if name in outputs.setdefault(build, {}):
            raise reader.error(f"build {build} answers {name} twice (repeat runs)", at)
        outputs[build][name] = answer
        verdicts.setdefault(name, {})[build] = (row, response)  # read when samples are built
    samples = Deferred(  # built when first read: everything in them is checked by now
        lambda: _samples(questions, tests, verdicts),
        list(questions),
        [_expected_output(tests[n]) for n in questions],
    )
    kept = {k: doc[k] for k in doc if k != "results"}
    kept.update({k: body[k] for k in body if k not in {"results", "version"}})
    return _imported(
        reader, "results-3", samples, _types(t["assert"] for t in tests.values()), outputs, kept
    )


def _samples(
    questions: Mapping[str, str],
    tests: Mapping[str, Mapping[str, Any]],
    verdicts: Mapping[str, Mapping[str, tuple[Any, Mapping[str, Any]]]],
    verdict: Callable[[Any, Mapping[str, Any]], dict[str, Any]] | None = None,
) -> tuple[Sample, ...]:
    """The samples, each with promptfoo's verdicts by build (``verdict`` reads one row's)."""
    read = verdict or _verdict
    with gc_paused(promote=True):
        return tuple(
            _sample(n, questions[n], tests[n], {b: read(*v) for b, v in verdicts[n].items()})
            for n in questions
        )


def _verdict(row: Mapping[str, Any], response: Mapping[str, Any]) -> dict[str, Any]:
    """promptfoo's verdict on one answer, and what its response holds beyond the output."""
    verdict = {k: row[k] for k in _RESULT_VERDICT if k in row}
    rest = {k: v for k, v in response.items() if k != "output"}
    if rest:
        verdict["response"] = rest
    return verdict


def _types(asserts: Iterable[Iterable[Mapping[str, Any]]]) -> set[str]:
    """The types of the assertions of every test."""
    return {entry["type"] for each in asserts for entry in each}


def _json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _imported(
    reader: Reader,
    version: str,
    samples: tuple[Sample, ...] | Deferred,
    types: Collection[str],
    outputs: dict[str, dict[str, str]],
    kept: Mapping[str, Any],
    read: Mapping[Path, bytes] | None = None,
    digest: Callable[[], str] | None = None,
) -> Imported:
    """The import of samples whose assertions are of ``types`` (the suite's checks follow
    from them)."""
    checks: tuple[Any, ...] = ()
    if types:
        graded = not PROMPTFOO_JUDGED_TYPES.isdisjoint(types)
        checks = (
            ({"promptfoo-asserts": {"llm-rubric": "judge"}},) if graded else ("promptfoo-asserts",)
        )
    return Imported(
        format="promptfoo",
        version=version,
        files=tuple(str(p) for p in reader.files),
        sha256=digest() if digest is not None else source_hash(reader.files, read),
        samples=samples,
        checks=checks,
        outputs=outputs,
        lost=reader.losses.used(),
        kept=kept,
    )
