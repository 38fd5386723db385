"""The one-pass scan of a common inspect_ai ``.json`` log (``scan_common``) against the typed
decoding it stands in for (``read_common``, the specification of a common log). On logs built
around the fixture log and the bench's sample shape, then changed every way a log may differ
from the common form (fields, types, empty and refused values, escapes, repeated keys, spacing,
bytes that are not UTF-8, cuts), the scan accepts no log ``read_common`` refuses and reads the
same columns from each it accepts. It gives None on a log ``read_common`` reads only in the
cases its docstring lists: a repeated key, nesting deeper than 64, an integer outside int64
in an id, an epoch or another scorer's value, a named scorer without a text value."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from evalmark.interop._inspect_common import read_common
from evalmark.interop._inspect_log import REFUSED
from evalmark.interop._inspect_scan import Scanned, scan_common, scan_log
from inspect_logs import json_log
from json_edits import edited

_BENCH = Path(__file__).resolve().parents[2] / "bench" / "import_rescore.py"
_I64 = range(-(2**63), 2**63)
_DROP = "<drop>"  # an edit that removes the field


def _bench() -> ModuleType:
    """bench/import_rescore.py, loaded without leaving its folder on ``sys.path``."""
    saved = list(sys.path)
    try:
        spec = importlib.util.spec_from_file_location("import_rescore_bench", _BENCH)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path[:] = saved
    return module


BENCH = _bench()

_ODD = ["", "é", "😀", 'a"b\\c/', "\n\t\x00\x1f\x7f", "\u2028", "\ud800", "x\udc00y"]
_TEXT = st.one_of(st.text(max_size=10), st.sampled_from(_ODD))
_HUGE = [2**63 - 1, -(2**63), 2**63, -(2**63) - 1, 2**64 - 1, 2**64, 10**30]
_IDS = st.one_of(st.integers(-3, 10**6), _TEXT, st.sampled_from([*_HUGE, 1.0, 2.5, True, None]))
_EPOCHS = st.one_of(st.integers(1, 4), st.sampled_from([None, 0, -1, 1.0, True, "1", *_HUGE]))
_EMPTYISH = st.sampled_from([None, [], {}, "", " ", [None], {"a": 1}, 0, False])
_ANY = st.sampled_from([None, 1, 0.5, -0.0, 1e-300, 1.5e300, True, [1, "C"], {"a": 2**64}])
_VALUES = st.one_of(_TEXT, _ANY, st.sampled_from(_HUGE), st.just([2**63 - 1, {"b": -(2**63)}]))
_SCORE = st.one_of(
    st.sampled_from([None, "C", 1, []]),
    st.fixed_dictionaries({}, optional={"value": _VALUES, "answer": _TEXT}),
)
_SCORER_NAMES = ["match", "other", "m\u00e9"]
_FIELDS: dict[str, st.SearchStrategy[Any]] = {
    "id": _IDS,
    "epoch": _EPOCHS,
    "input": st.one_of(_TEXT, st.lists(_TEXT, max_size=2), st.sampled_from([None, 1, {}])),
    "target": st.one_of(_TEXT, st.sampled_from([None, ["a"], 1])),
    "output": st.one_of(
        st.sampled_from([None, [], "x"]),
        st.fixed_dictionaries(
            {},
            optional={
                "completion": st.one_of(_TEXT, st.sampled_from([None, 1, ["a"]])),
                "choices": st.just([]),
                "usage": _ANY,
            },
        ),
    ),
    "scores": st.one_of(
        st.sampled_from([None, {}, [], "C"]),
        st.dictionaries(st.sampled_from(_SCORER_NAMES), _SCORE, max_size=3),
    ),
    "attachments": st.sampled_from([None, {}, [], {"a": "b"}, ""]),
    **{name: _EMPTYISH for name in REFUSED},
    "messages": st.one_of(_ANY, st.sampled_from([[], [{"content": 2**70}], 10**40])),
    "metadata": _ANY,
    "total_time": st.sampled_from([0.01, 2**65, 1e-300]),
    "odd field": _TEXT,
}
_TOP: dict[str, st.SearchStrategy[Any]] = {
    "eval": st.sampled_from([None, {"task": "t", "n": 2**70}, 1.5, "x"]),
    "version": st.sampled_from([2, 2**70, "2", None]),
    "results": st.sampled_from([{"scores": []}, {"a": [1, 2.5e-5]}]),
    "samples": st.sampled_from([None, {}, [1], [None], "x"]),
    "error": st.one_of(_TEXT, _ANY),
}
_SCORERS = st.sampled_from([(), ("match",), ("match", "other"), ("m\u00e9",), ("match", "match")])
_KEYS = ["id", "epoch", "target", "completion", "value", "eval", "samples", "match", "events"]


@st.composite
def _edits(draw: st.DrawFn, fields: dict[str, st.SearchStrategy[Any]]) -> dict[str, Any]:
    """A few fields of ``fields`` set to a drawn value (or removed)."""
    names = draw(st.lists(st.sampled_from(sorted(fields)), max_size=2, unique=True))
    return {name: draw(st.one_of(st.just(_DROP), fields[name])) for name in names}


def _edit(target: dict[str, Any], edits: dict[str, Any]) -> None:
    for name, value in edits.items():
        if value == _DROP:
            target.pop(name, None)
        else:
            target[name] = value


@st.composite
def _common_logs(draw: st.DrawFn) -> dict[str, Any]:
    """A common log as a value: the fixture log made common, or bench samples."""
    if draw(st.booleans()):
        log = json_log()
        log["samples"][1].update(target="Berlin", attachments={})  # its one uncommon sample
        return log
    pairs = draw(st.lists(st.tuples(_TEXT, _TEXT), min_size=1, max_size=4))
    samples = [BENCH._sample(i, e, a) for i, (e, a) in enumerate(pairs, start=1)]
    return {**BENCH._header(len(pairs)), "samples": samples}


@st.composite
def _logs(draw: st.DrawFn) -> dict[str, Any]:
    """A log as a value: the fixture log (common or not) or bench samples, edited."""
    log = json_log() if draw(st.integers(0, 3)) == 0 else draw(_common_logs())
    for _ in range(draw(st.integers(0, 2))):
        index = draw(st.integers(0, len(log["samples"]) - 1))
        _edit(log["samples"][index], draw(_edits(_FIELDS)))
    if draw(st.integers(0, 4)) == 0:
        _edit(log, draw(_edits(_TOP)))
    return log


def _int_outside(value: Any) -> bool:
    """Whether a JSON value holds an integer outside int64."""
    if isinstance(value, dict):
        return any(_int_outside(v) for v in value.values())
    if isinstance(value, list):
        return any(_int_outside(v) for v in value)
    return type(value) is int and value not in _I64


def _documented(log: Any, scorers: tuple[str, ...]) -> bool:
    """Whether ``log`` is one of the logs the scan may leave to ``read_common`` (given no
    repeated key or deep nesting, which the caller knows of)."""
    samples = log.get("samples") if isinstance(log, dict) else None
    for sample in samples if isinstance(samples, list) else []:
        if not isinstance(sample, dict):
            continue
        if any(_int_outside(sample.get(key)) for key in ("id", "epoch")):
            return True
        scores = sample.get("scores")
        named = isinstance(scores, dict) and all(
            isinstance(scores.get(n), dict) and isinstance(scores[n].get("value"), str)
            for n in scorers
        )
        if scorers and not named:
            return True
        for name, score in scores.items() if isinstance(scores, dict) else ():
            if name not in scorers and isinstance(score, dict) and _int_outside(score.get("value")):
                return True
    return False


def _read(data: bytes) -> tuple[Any, Any] | None:
    try:
        return read_common(Path("log.json"), data)
    except Exception:  # a refusal either way
        return None


def _check(data: bytes, scorers: tuple[str, ...], may_refuse: bool) -> Scanned | None:
    """The scan of ``data`` accepts only what ``read_common`` accepts, with its columns; it
    refuses what ``read_common`` accepts only when ``may_refuse``."""
    scanned = scan_common(data, scorers)
    read = _read(data)
    if scanned is None:
        assert read is None or may_refuse
        return None
    assert read is not None
    header, rows = read
    typed = rows.typed
    assert scanned.header == dict(header)
    assert [(type(i), i) for i in scanned.ids] == [(type(s.id), s.id) for s in typed]
    assert scanned.epochs == [s.epoch for s in typed]
    assert scanned.targets == [s.target for s in typed]
    assert scanned.completions == [s.output.completion for s in typed]
    assert scanned.values == [[s.scores[name].value for s in typed] for name in scorers]
    return scanned


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    _logs(),
    _SCORERS,
    st.sampled_from([None, 0, 2, "\t"]),
    st.booleans(),
    st.sampled_from([None, *_KEYS]),
    st.sampled_from([None, *_KEYS]),
    st.sampled_from([None, 30, 70]),
    st.sampled_from([None, b"1e400", b"-0.0E-0", b"01", b"1.", b"2e+2"]),
    st.one_of(st.just(b""), st.sampled_from([b" \t\r\n", b"\x0c", "\ufeff".encode(), b"\xff"])),
    st.one_of(st.none(), st.none(), st.none(), st.floats(0, 1)),
)
def test_the_scan_accepts_only_common_logs_and_reads_their_columns(
    log: dict[str, Any],
    scorers: tuple[str, ...],
    indent: int | str | None,
    ascii_only: bool,
    escape: str | None,
    repeat: str | None,
    depth: int | None,
    number: bytes | None,
    around: bytes,
    cut: float | None,
) -> None:
    may_refuse = _documented(log, scorers)
    samples = log.get("samples")
    if depth is not None and isinstance(samples, list) and samples and isinstance(samples[0], dict):
        # nested lists in a skipped field, whose value is 3 levels deep in the log
        samples[0]["metadata"] = json.loads("[" * depth + "]" * depth)
        may_refuse = may_refuse or depth + 2 > 64
    text = json.dumps(log, indent=indent, ensure_ascii=ascii_only)
    data = text.encode("utf-8", "surrogatepass")  # a lone surrogate: not UTF-8
    # a number in a skipped field, or not JSON
    replaced = (b"0.01", number) if number is not None else None
    data, repeated = edited(data, escape, repeat, replaced, around, cut)
    may_refuse = may_refuse or repeated
    scanned = _check(data, scorers, may_refuse)
    event("the scan reads" if scanned is not None else "the scan refuses")


@settings(max_examples=1000, deadline=None)
@given(_common_logs(), st.sampled_from([*_FIELDS, *_TOP]), st.data(), _SCORERS)
def test_one_field_changed(
    log: dict[str, Any], name: str, data: st.DataObject, scorers: tuple[str, ...]
) -> None:
    if name in _TOP and data.draw(st.booleans()):
        _edit(log, {name: data.draw(st.one_of(st.just(_DROP), _TOP[name]))})
    elif name in _FIELDS:
        sample = log["samples"][data.draw(st.integers(0, len(log["samples"]) - 1))]
        _edit(sample, {name: data.draw(st.one_of(st.just(_DROP), _FIELDS[name]))})
    text = json.dumps(log, ensure_ascii=data.draw(st.booleans()))
    scanned = _check(text.encode("utf-8", "surrogatepass"), scorers, _documented(log, scorers))
    event("the scan reads" if scanned is not None else "the scan refuses")


def test_the_bench_log_shape_scans() -> None:
    pairs = [("Paris", "It is Paris."), ("a\u00e9\n", "A\u00c9"), ("", '😀 \\ "')]
    samples = [BENCH._sample(i, e, a) for i, (e, a) in enumerate(pairs, start=1)]
    data = json.dumps({**BENCH._header(3), "samples": samples}).encode()
    scanned = _check(data, ("match",), may_refuse=False)
    assert scanned is not None
    assert scanned.ids == [1, 2, 3] and scanned.epochs == [1, 1, 1]
    assert scanned.targets == [e for e, _ in pairs]
    assert scanned.completions == [a for _, a in pairs]
    assert scanned.values == [[s["scores"]["match"]["value"] for s in samples]]
    assert scanned.values[0][:2] == ["C", "C"]
    assert scanned.header["results"]["scores"][0]["name"] == "match"
    assert scan_common(data, ("other",)) is None  # a named scorer every sample lacks
    for end in range(len(data)):  # every cut of it is refused by both
        assert _check(data[:end], ("match",), may_refuse=False) is None


def test_a_log_without_samples_or_eval() -> None:
    empty = _check(b'{"eval": null, "samples": null}', ("match",), may_refuse=False)
    assert empty is not None and empty.values == [[]]
    assert scan_log(b'{"eval": null, "samples": null}') == Scanned(
        {"eval": None}, [], [], [], [], {}, []
    )
    bare = _check(b'{"eval": {}}', (), may_refuse=False)
    assert bare == Scanned({"eval": {}}, [], [], [], [], {}, [])
    assert _check(b'{"samples": []}', (), may_refuse=False) is None


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200), _SCORERS)
def test_random_bytes_are_refused_without_a_fault(data: bytes, scorers: tuple[str, ...]) -> None:
    _check(data, scorers, may_refuse=False)


_JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), _TEXT),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(_JSON, st.dictionaries(st.sampled_from([*_TOP, "samples", "x"]), _JSON), _SCORERS)
def test_random_json_is_read_as_read_common_reads_it(
    value: Any, top: dict[str, Any], scorers: tuple[str, ...]
) -> None:
    for log in (value, top, {"eval": 1, "samples": [value]}):
        text = json.dumps(log).encode("utf-8", "surrogatepass")
        _check(text, scorers, may_refuse=_documented(log, scorers))
