"""Every loader of data files, fed random bytes, damaged good files and random nesting: each
gives a result or a typed evalmark error, never another exception (no RecursionError, no bare
ValueError, no parser error of a library)."""

from __future__ import annotations

import contextlib
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from evalmark import load_conversations, load_samples, load_suite, load_test_cases
from evalmark.code._config import load_code_config
from evalmark.errors import EvalmarkError
from evalmark.scoring import ScoreOptions, parse_metrics, score_file

GOOD_SAMPLES = {
    ".yaml": b"- name: a\n  parameters: [q, {k: 1}]\n  expected-output: x\n  tags: [t]\n",
    ".json": b'[{"name": "a", "parameters": ["q"], "expected_output": "x", "metadata": {"k": 1}}]',
    ".jsonl": b'{"name": "a", "parameters": ["q"], "expected-output": "x"}\n',
}
GOOD_CASES = {
    ".yaml": b"- input: a\n  actual-output: b\n  cost: 0.1\n  tool-calls: [{name: t}]\n",
    ".json": b'[{"input": "a", "actual_output": "b", "token-usage": {"input": 1, "output": 2}}]',
    ".jsonl": b'{"input": "a", "actual-output": "b", "latency-ms": 3}\n',
}
GOOD_CONVERSATIONS = {
    ".yaml": b"- id: c\n  turns:\n    - input: a\n      actual-output: b\n",
    ".json": b'[{"id": "c", "turns": [{"input": "a", "actual-output": "b"}]}]',
    ".jsonl": b'{"id": "c", "turns": [{"input": "a", "actual-output": "b"}]}\n',
}
GOOD_SUITE = (
    b"name: demo\nsamples: s.yaml\napplication: {function: 'app.py:answer'}\n"
    b"strategies: [contains, {token-f1: {threshold: 0.5}}]\ngate: {pass-rate: 0.9}\n"
)
GOOD_SCORING = {
    ".jsonl": b'{"id": 1, "expected": "a b", "actual": "a", "expected_vector": [1, 0]}\n',
    ".csv": b'id,expected,actual,expected_vector,actual_vector\n1,a b,a,"[1, 0]","[0, 1]"\n',
}

# Bytes that parsers trip over, inserted into good files.
TROUBLE = [
    b"\x00",
    b"\x01",
    b"\x7f",
    b"\xc2\x86",
    b"\xef\xbf\xbf",
    b"\xff",
    b"\xc3",
    b"\xef\xbb\xbf",
    b"\n",
    b"\r",
    b"\t",
    b" ",
    b"[",
    b"]",
    b"{",
    b"}",
    b'"',
    b"'",
    b":",
    b",",
    b"-",
    b"- ",
    b"&a ",
    b"*a",
    b"*b",
    b"!!",
    b"!!python/object:os.system ",
    b"!!int ",
    b"!!binary ",
    b"<<: ",
    b"? ",
    b"|",
    b">",
    b"#",
    b"---\n",
    b"...\n",
    b"%YAML 1.1\n",
    b"\\",
    b"\\u",
    b"9" * 5000,
    b"1e999",
    b"NaN",
    b"2001-02-30",
    b"0x",
    b"[" * 2000,
    b"{" * 2000,
]


def damaged(good: bytes) -> st.SearchStrategy[bytes]:
    """``good`` with a few trouble-making pieces inserted or bytes cut out."""
    # Where values start (after ": ", "[", ", ", "- ") is where typed-value tags do harm.
    starts = sorted({m.end() for m in re.finditer(rb": |\[|, |- ", good)}) or [0]
    edit = st.tuples(
        st.integers(min_value=0, max_value=len(good)) | st.sampled_from(starts),
        st.sampled_from(TROUBLE) | st.binary(min_size=1, max_size=4),
        st.booleans(),
    )

    def apply(edits: list[tuple[int, bytes, bool]]) -> bytes:
        data = good
        for at, piece, cut in edits:
            at = min(at, len(data))
            data = data[:at] + (b"" if cut else piece) + data[at + (len(piece) if cut else 0) :]
        return data

    return st.lists(edit, min_size=1, max_size=4).map(apply)


TAGS = [
    b"!!int ",
    b"!!float ",
    b"!!bool ",
    b"!!timestamp ",
    b"!!binary ",
    b"!!set ",
    b"!!omap ",
    b"!!str ",
    b"!!null ",
    b"!!map ",
    b"!!seq ",
    b"!!python/name:os.system ",
    b"!custom ",
    b"*nowhere ",
    b"&a ",
    b"2001-02-30 ",
    b"0o9",
    b"1_000_",
]


def tagged(good: bytes) -> st.SearchStrategy[bytes]:
    """``good`` with a YAML tag, alias or odd number put where a value starts."""
    starts = sorted({m.end() for m in re.finditer(rb": |\[|, |- ", good)}) or [0]
    return st.tuples(st.sampled_from(starts), st.sampled_from(TAGS)).map(
        lambda edit: good[: edit[0]] + edit[1] + good[edit[0] :]
    )


def nesting() -> st.SearchStrategy[bytes]:
    """A value nested up to 100,000 levels deep, as JSON or YAML flow text (both read it)."""

    def build(depth: int, opener: str, closed: bool) -> bytes:
        inner = {"[": "[" * depth + "1" + "]" * depth, "{": '{"k": ' * depth + "1" + "}" * depth}
        text = inner[opener]
        return text.encode() if closed else text[: len(text) // 2 + 1].encode()

    depths = st.sampled_from([1, 50, 500, 998, 999, 1000, 1001, 5000, 100_000]) | st.integers(
        0, 3000
    )
    return st.builds(build, depths, st.sampled_from(["[", "{"]), st.booleans())


def nested_file(fmt: str, template: bytes) -> st.SearchStrategy[bytes]:
    """A good file with a deeply nested value put in place of one of its values."""
    return nesting().map(lambda deep: template.replace(b"NEST", deep))


def file_bytes(good: dict[str, bytes], suffix: str, nested: bytes) -> st.SearchStrategy[bytes]:
    return st.one_of(
        st.binary(max_size=200),
        damaged(good[suffix]),
        tagged(good[suffix]),
        nested_file(suffix, nested),
        st.just(good[suffix]),
    )


def outcome(call: Callable[[], Any]) -> None:
    """Run ``call``: a result or an evalmark error are fine; anything else fails the test."""
    with contextlib.suppress(EvalmarkError):
        call()


PROPERTY = settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

NESTED = {
    "samples": {
        ".yaml": b"- name: a\n  parameters: [NEST]\n  expected-output: x\n",
        ".json": b'[{"name": "a", "parameters": [NEST], "expected-output": "x"}]',
        ".jsonl": b'{"name": "a", "parameters": [1], "expected-output": "x", "metadata": NEST}\n',
    },
    "cases": {
        ".yaml": b"- input: a\n  actual-output: b\n  metadata: {k: NEST}\n",
        ".json": b'[{"input": "a", "actual-output": "b", '
        b'"tool-calls": [{"name": "t", "result": NEST}]}]',
        ".jsonl": b'{"input": "a", "actual-output": "b", "metadata": NEST}\n',
    },
    "conversations": {
        ".yaml": b"- id: c\n  turns: [NEST]\n",
        ".json": b'[{"id": "c", "turns": [{"input": "a", "actual-output": "b", "result": NEST}]}]',
        ".jsonl": b'{"id": "c", "turns": NEST}\n',
    },
}
LOADERS: dict[str, tuple[Callable[..., Any], dict[str, bytes]]] = {
    "samples": (load_samples, GOOD_SAMPLES),
    "cases": (load_test_cases, GOOD_CASES),
    "conversations": (load_conversations, GOOD_CONVERSATIONS),
}


@pytest.mark.parametrize("suffix", [".yaml", ".json", ".jsonl"])
@pytest.mark.parametrize("kind", list(LOADERS))
@PROPERTY
@given(data=st.data())
def test_data_file_loaders_give_a_result_or_a_typed_error(
    kind: str, suffix: str, data: st.DataObject
) -> None:
    loader, good = LOADERS[kind]
    content = data.draw(file_bytes(good, suffix, NESTED[kind][suffix]), label="file")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"data{suffix}"
        path.write_bytes(content)
        outcome(lambda: loader(path))


@PROPERTY
@given(
    content=st.one_of(
        st.binary(max_size=200),
        damaged(GOOD_SUITE),
        tagged(GOOD_SUITE),
        nested_file(".yaml", GOOD_SUITE.replace(b"[contains,", b"[NEST, contains,")),
        nested_file(".yaml", GOOD_SUITE + b"tags: NEST\n"),
        nested_file(".yaml", GOOD_SUITE.replace(b"0.5", b"NEST")),
    )
)
def test_the_suite_loader_gives_a_result_or_a_typed_error(content: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "s.yaml").write_bytes(GOOD_SAMPLES[".yaml"])
        path = Path(folder) / "suite.yaml"
        path.write_bytes(content)
        outcome(lambda: load_suite(path))


GOOD_CODE_CONFIG = (
    b"tasks: tasks.yaml\nsolutions: solutions.jsonl\nsandbox: local\nk: [1, 5]\n"
    b"limits: {timeout: 4, memory-mb: 512}\ngate: {pass@1: 0.6}\n"
)


@PROPERTY
@given(
    content=st.one_of(
        st.binary(max_size=200),
        damaged(GOOD_CODE_CONFIG),
        tagged(GOOD_CODE_CONFIG),
        nested_file(".yaml", GOOD_CODE_CONFIG.replace(b"[1, 5]", b"NEST")),
        nested_file(".yaml", GOOD_CODE_CONFIG.replace(b"{timeout: 4", b"{timeout: NEST")),
    )
)
@example(content=b"sandbox:\t[]\n(:")  # an unhashable sandbox value raised TypeError
def test_the_code_config_loader_gives_a_result_or_a_typed_error(content: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "tasks.yaml").write_bytes(b"- id: t\n  prompt: p\n  tests: 'assert True'\n")
        (Path(folder) / "solutions.jsonl").write_bytes(b"")
        path = Path(folder) / "code.yaml"
        path.write_bytes(content)
        outcome(lambda: load_code_config(path))


SCORING_NESTED = {
    ".jsonl": b'{"id": 1, "expected": "a", "actual": "b", "extra": NEST}\n'
    b'{"id": 2, "expected": NEST, "actual": "b"}\n',
    ".csv": b'id,expected,actual,expected_vector,actual_vector\n1,a,b,"NEST","[1, 0]"\n',
}


@pytest.mark.parametrize("metrics", ["token_f1,json_match", "cosine"])
@pytest.mark.parametrize("policy", ["fail", "skip", "null"])
@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
@PROPERTY
@given(data=st.data())
def test_scoring_inputs_give_a_result_or_a_typed_error(
    suffix: str, policy: str, metrics: str, data: st.DataObject
) -> None:
    content = data.draw(
        file_bytes(GOOD_SCORING, suffix, SCORING_NESTED[suffix].replace(b'"NEST"', b"NEST")),
        label="file",
    )
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"pairs{suffix}"
        path.write_bytes(content)
        out = Path(folder) / "scores.csv"
        options = ScoreOptions(parse_metrics(metrics), on_error=policy, chunk_size=2)  # type: ignore[arg-type]
        outcome(lambda: score_file(path, options, output=out))


def arrow_columns(pa: Any) -> st.SearchStrategy[dict[str, Any]]:
    """Columns of the names the scorer reads, each of a random Arrow type (nested ones too)."""
    values = st.one_of(
        st.lists(st.text(max_size=5) | st.none(), max_size=4).map(
            lambda v: pa.array(v, pa.string())
        ),
        st.lists(st.integers(-5, 5) | st.none(), max_size=4).map(lambda v: pa.array(v, pa.int64())),
        st.lists(
            st.lists(st.floats(allow_nan=True) | st.none(), max_size=3) | st.none(), max_size=4
        ).map(lambda v: pa.array(v, pa.list_(pa.float64()))),
        st.lists(
            st.lists(st.lists(st.integers(0, 3), min_size=1, max_size=2), min_size=1, max_size=2),
            min_size=1,
            max_size=4,
        ).map(pa.array),
        st.lists(
            st.dictionaries(st.sampled_from(["a", "b"]), st.integers(0, 3), min_size=1, max_size=2),
            min_size=1,
            max_size=4,
        ).map(pa.array),
    )
    names = st.sampled_from(["id", "expected", "actual", "expected_vector", "actual_vector"])
    return st.dictionaries(names, values, max_size=5)


@pytest.mark.parametrize("metrics", ["token_f1", "cosine"])
@PROPERTY
@given(data=st.data(), garbage=st.none() | st.binary(max_size=100))
def test_parquet_inputs_give_a_result_or_a_typed_error(
    metrics: str, data: st.DataObject, garbage: bytes | None
) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "pairs.parquet"
        if garbage is not None:
            path.write_bytes(garbage)
        else:
            columns = data.draw(arrow_columns(pa), label="columns")
            length = min((len(c) for c in columns.values()), default=0)
            sliced = {name: column.slice(0, length) for name, column in columns.items()}
            pq.write_table(pa.table(sliced or {"x": pa.array([1])}), path)
        options = ScoreOptions(parse_metrics(metrics), on_error="null")
        outcome(lambda: score_file(path, options, output=Path(folder) / "scores.jsonl"))
