"""promptfoo's results JSON read through typed rows: the importer's entry point.

A results file of the common shape (JSON, every result row an object holding only the fields
the importer knows, ``prompt.raw`` a text, ``testIdx``/``promptIdx`` integers) is decoded
into typed rows, whose recorded verdict stays JSON text until the samples are built. Any
other file (YAML, a config, ``NaN``, an escaped lone surrogate, an unknown or odd field) is
read as plain values by :mod:`evalmark.interop._promptfoo`, which words every refusal; the
typed rows run the same checks in the same order on what is left. A file whose test cases
are all of the common shape is first decoded with those cases typed, so the decoder checks
them instead of :func:`_plain_test` row by row.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from operator import attrgetter, methodcaller
from pathlib import Path
from typing import Any, cast

import msgspec

from evalmark._files.source import gc_paused, is_utf8
from evalmark.interop._model import Deferred, Imported, Losses, as_mapping, hash_later
from evalmark.interop._promptfoo import (
    _ASSERT_KEYS,
    _CARRIED,
    _PLAIN,
    _RESULT_VERDICT,
    _TEST_KEYS,
    _build_name,
    _expected_output,
    _from_config,
    _from_results,
    _imported,
    _json_text,
    _samples,
    _test,
    _types,
)
from evalmark.interop._promptfoo_reader import Reader
from evalmark.interop._promptfoo_rows import (
    _case_columns,
    _CaseColumns,
    _CaseDocument,
    _CaseRow,
    _decoded,
    _Document,
    _Row,
)
from evalmark.interop._promptfoo_scan import scan_import

__all__ = ["read_promptfoo"]


_FIELDS = {field.encode_name: field.name for field in msgspec.structs.fields(_Row)}
_VERDICT_FIELDS = tuple((key, _FIELDS[key]) for key in _RESULT_VERDICT)
_OBJECT = msgspec.json.Decoder(dict[str, msgspec.Raw])
_ROWS = msgspec.json.Decoder(list[_Row])
_ANY = msgspec.json.Decoder()
_ASSERT_ORDER = ("type", "value", "weight", "threshold")  # an assertion's kept keys, in order
_PROVIDER, _RESPONSE = attrgetter("provider"), attrgetter("response")
_TEST_CASE = attrgetter("test_case")
_TEST_IDX, _PROMPT_IDX = attrgetter("test_idx"), attrgetter("prompt_idx")
_PROMPT_RAW, _OUTPUT = attrgetter("prompt.raw"), methodcaller("get", "output", "")

_DOCUMENT = msgspec.json.Decoder(_Document)
_CASE_DOCUMENT = msgspec.json.Decoder(_CaseDocument)


def _set(value: msgspec.Struct, skip: str) -> dict[str, Any]:
    """The fields of ``value`` present in the file, by their names there, but ``skip``."""
    return {
        field.encode_name: found
        for field in msgspec.structs.fields(value)
        if field.name != skip and (found := getattr(value, field.name)) is not msgspec.UNSET
    }


def _typed(data: bytes) -> tuple[dict[str, Any], list[_Row]] | None:
    """What the file holds beyond its rows (kept verbatim) and its typed rows, or None when
    the file is not of the common shape."""
    if not is_utf8(data):  # skipping a value checks its escapes, not its UTF-8
        return None
    try:  # the keys promptfoo writes: one pass
        document = _DOCUMENT.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return _typed_by_parts(data)
    return _kept(document)


def _typed_plain(data: bytes) -> tuple[dict[str, Any], list[_Row]] | None:
    """:func:`_typed` of a file whose test cases are all of the common shape, read by the
    decoder, each row's test case :func:`_plain_test`'s already; None for any other file."""
    typed = _typed_cases(data)
    if typed is None:
        return None
    _plain_rows(typed[1])
    return typed[:2]


def _typed_cases(
    data: bytes,
) -> tuple[dict[str, Any], list[_Row], _CaseColumns] | None:
    """:func:`_typed_plain` with each row's test case left as the decoder made it (a
    :class:`~evalmark.interop._promptfoo_rows._Case`, read as :func:`_plain_test`'s by
    :func:`_plain_rows`), and what the import reads from the cases."""
    if not is_utf8(data):  # skipping a value checks its escapes, not its UTF-8
        return None
    try:  # the keys promptfoo writes and test cases of the common shape: one pass
        document = _CASE_DOCUMENT.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    rows = document.results.results
    if document.results.version != 3:
        return None
    cases = list(map(_TEST_CASE, rows))
    if None in cases:
        return None
    kept = _kept(document)
    found = _CaseColumns(cases)
    return None if kept is None or found.templated() else (*kept, found)


def _kept(document: _Document) -> tuple[dict[str, Any], list[_Row]] | None:
    """What a decoded document holds beyond its rows, and its rows (None unless version 3)."""
    body = document.results
    if body.version != 3:
        return None
    kept = _set(document, "results")
    kept.update({k: v for k, v in _set(body, "results").items() if k != "version"})
    return kept, body.results


def _typed_by_parts(data: bytes) -> tuple[dict[str, Any], list[_Row]] | None:
    """:func:`_typed` of a file with other keys: the document, then its body, then its rows."""
    try:
        doc = _OBJECT.decode(data)
        if "results" not in doc:
            return None
        body = _OBJECT.decode(doc["results"])
        if "results" not in body or _ANY.decode(body.get("version", b"null")) != 3:
            return None
        rows = _ROWS.decode(body["results"])
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    kept = {k: _ANY.decode(v) for k, v in doc.items() if k != "results"}
    kept.update({k: _ANY.decode(v) for k, v in body.items() if k not in {"results", "version"}})
    return kept, rows


def _from_rows(
    reader: Reader,
    kept: dict[str, Any],
    rows: list[_Row],
    digest: Callable[[], str],
    found: _CaseColumns | None = None,
) -> Imported:
    """What :func:`evalmark.interop._promptfoo._from_results` reads, from typed rows (and
    ``found``, what the import reads from their decoded test cases, when they are)."""
    taken: dict[str, str] = {}
    if found is not None:  # rows of the common shape: read by column, or else made plain
        read = _case_columns(cast("list[_CaseRow]", rows), taken)
        if read is not None:
            names, builds = read.names, [read.build] * len(read.names)
            samples = Deferred(
                lambda: _samples(
                    read.questions(cast("list[_CaseRow]", rows)),
                    read.tests(cast("list[_CaseRow]", rows)),
                    _verdicts(names, builds, rows),
                    _verdict,
                ),
                names,
                found.expected(),
            )
            return _imported(
                reader, "results-3", samples, found.types, read.outputs, kept, digest=digest
            )
        _plain_rows(rows)
    columns = _columns(rows, taken) or _each_row(reader, rows, taken)
    questions, tests, outputs, names, builds = columns
    samples = Deferred(
        lambda: _samples(questions, tests, _verdicts(names, builds, rows), _verdict),
        list(questions),
        [_expected_output(tests[n]) for n in questions],
    )
    types = _types(t["assert"] for t in tests.values())
    return _imported(reader, "results-3", samples, types, outputs, kept, digest=digest)


_Read = tuple[
    dict[str, str], dict[str, dict[str, Any]], dict[str, dict[str, str]], list[str], list[str]
]


def _columns(rows: list[_Row], taken: dict[str, str]) -> _Read | None:
    """The rows read column by column when one provider answers each sample once with a text
    and every test is of the common shape (no row can be refused); None for any other rows.
    The samples' questions, tests and the answers by build, and each row's name and build."""
    if not rows:
        return None
    providers = list(map(_PROVIDER, rows))
    if providers.count(providers[0]) != len(rows):
        return None
    responses = list(map(_RESPONSE, rows))
    if set(map(type, responses)) != {dict}:
        return None
    answers = list(map(_OUTPUT, responses))
    if set(map(type, answers)) != {str}:
        return None
    numbers = zip(map(_TEST_IDX, rows), map(_PROMPT_IDX, rows), strict=True)
    names = [f"test-{test + 1}-prompt-{prompt + 1}" for test, prompt in numbers]
    questions = dict(zip(names, map(_PROMPT_RAW, rows), strict=True))
    if len(questions) != len(names):  # a sample in two rows
        return None
    cases = list(map(_TEST_CASE, rows))
    if set(map(type, cases)) != {dict}:
        return None
    found = list(map(_plain_test, cases))
    if None in found:
        return None
    tests = cast("list[dict[str, Any]]", found)
    build = _build_name(providers[0], taken)
    outputs = {build: dict(zip(names, answers, strict=True))}
    return questions, dict(zip(names, tests, strict=True)), outputs, names, [build] * len(names)


def _each_row(reader: Reader, rows: list[_Row], taken: dict[str, str]) -> _Read:
    """The rows read one by one, refusing the first fault in order (as :func:`_columns`)."""
    questions: dict[str, str] = {}
    tests: dict[str, dict[str, Any]] = {}
    outputs: dict[str, dict[str, str]] = {}
    names: list[str] = []  # per row, in order: its sample's name and its build
    builds: list[str] = []
    provider: Any = None
    build = ""
    for index, row in enumerate(rows):
        name = f"test-{row.test_idx + 1}-prompt-{row.prompt_idx + 1}"
        prompt = row.prompt.raw
        if questions.setdefault(name, prompt) != prompt:
            raise reader.error(
                f"sample {name} was sent different prompts by different providers",
                ("results", "results", index),
            )
        if name not in tests:
            test = row.test_case
            found = _plain_test(test) if type(test) is dict else None
            if found is None:  # not of the common shape: read and refused as any test
                at = ("results", "results", index, "testCase")
                found = _test(reader, as_mapping(test), {}, at)
            tests[name] = found
        if not index or row.provider != provider:  # rows mostly repeat the last provider
            provider = row.provider
            build = _build_name(provider, taken)
        response = row.response
        output = (response if type(response) is dict else as_mapping(response)).get("output", "")
        answer = output if type(output) is str else _json_text(output)
        answers = outputs.get(build)
        if answers is None:
            answers = outputs[build] = {}
        elif name in answers:
            raise reader.error(
                f"build {build} answers {name} twice (repeat runs)", ("results", "results", index)
            )
        answers[name] = answer
        names.append(name)
        builds.append(build)
    return questions, tests, outputs, names, builds


def _plain_test(test: dict[str, Any]) -> dict[str, Any] | None:
    """What :func:`evalmark.interop._promptfoo._test` makes of a test with no default, when
    the test is of the common shape (known keys, plain vars, known assertions with no
    template in their values); None when it is not (then ``_test`` reads it)."""
    if not _TEST_KEYS.issuperset(test):
        return None
    variables = test.get("vars")
    if variables is None:
        variables = {}
    elif type(variables) is not dict or not _PLAIN.issuperset(map(type, variables.values())):
        return None
    items = test.get("assert")
    if items is not None and type(items) is not list:
        return None
    asserts = []
    for item in items or ():
        if type(item) is not dict or type(item.get("type")) is not str:
            return None
        if item["type"] not in _CARRIED or not _ASSERT_KEYS.issuperset(item):
            return None
        value = item.get("value")
        if type(value) is str and "{" in value:  # a template: rendered by _test
            return None
        asserts.append({key: item[key] for key in _ASSERT_ORDER if key in item})
    return {
        "vars": dict(variables),
        "assert": asserts,
        "threshold": test.get("threshold"),
        "description": test.get("description"),
        "metadata": test.get("metadata"),
    }


def _plain_rows(rows: list[_Row]) -> None:
    """Put :func:`_plain_test` of each row's decoded test case (a
    :class:`~evalmark.interop._promptfoo_rows._Case`, which the decoder checked) in its
    place, and its provider and response decoded in theirs."""
    for row, test in zip(rows, _plain_cases(list(map(_TEST_CASE, rows))), strict=True):
        row.test_case = test
        row.provider = _decoded(row.provider)
        row.response = _decoded(row.response)


def _plain_cases(cases: list[Any]) -> list[dict[str, Any]]:
    """Decoded test cases (:class:`~evalmark.interop._promptfoo_rows._Case`) as :func:`_plain_test`
    makes them."""
    return cast("list[dict[str, Any]]", msgspec.to_builtins(cases))


def _verdicts(
    names: list[str], builds: list[str], rows: list[_Row]
) -> dict[str, dict[str, tuple[_Row, Mapping[str, Any]]]]:
    """Each row with its response, by sample name and build (read when samples are built)."""
    verdicts: dict[str, dict[str, tuple[_Row, Mapping[str, Any]]]] = {}
    for name, build, row in zip(names, builds, rows, strict=True):
        verdicts.setdefault(name, {})[build] = (row, as_mapping(_decoded(row.response)))
    return verdicts


def _verdict(row: _Row, response: Mapping[str, Any]) -> dict[str, Any]:
    """promptfoo's verdict on one answer, and what its response holds beyond the output."""
    verdict = {
        key: _ANY.decode(value)
        for key, attribute in _VERDICT_FIELDS
        if (value := getattr(row, attribute)) is not None
    }
    rest = {k: v for k, v in response.items() if k != "output"}
    if rest:
        verdict["response"] = rest
    return verdict


def _typed_import(
    path: Path, data: bytes, losses: Losses, digest: Callable[[], str]
) -> Imported | None:
    """The import of the results file ``path`` (whose bytes are ``data``) through typed rows,
    or None when it is not of the common shape."""
    typed = _typed_cases(data) or _typed(data)
    if typed is None:
        return None
    kept, rows, *found = typed
    return _from_rows(Reader(path, losses, value={}), kept, rows, digest, *found)


def read_promptfoo(path: Path, losses: Losses) -> Imported:
    """Read a promptfoo config or results file (see :mod:`evalmark.interop._promptfoo`)."""
    with gc_paused(promote=True):  # many small containers, none cyclic, all kept
        if path.suffix == ".json":
            data = path.read_bytes()
            digest = hash_later([path], {path: data})  # while the file is read

            def whole(allowed: Losses) -> Imported:  # a file the scan reads is typed rows
                with gc_paused(promote=True):
                    return cast(Imported, _typed_import(path, data, allowed, digest))

            found = scan_import(path, data, losses, whole, digest)
            found = found or _typed_import(path, data, losses, digest)
            if found is not None:
                return found
        reader = Reader(path, losses)
        doc = reader.value
        if isinstance(doc.get("results"), Mapping):
            return _from_results(reader, doc)
        return _from_config(reader, doc)
