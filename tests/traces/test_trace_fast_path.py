"""The fast path of the OTLP JSON reader (requests decoded and traces assembled in Rust) gives
the same test cases, problems, metadata and errors as the Python path, on generated files:
repeated span ids, self-parents, cycles, missing fields, unknown attributes, both conventions,
messages as attributes and as events, non-ASCII text, big integers as strings, values of
unexpected types, a request the fast path hands back mid-file. And the common traces of an
agent never reach the Python assembler."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.traces import _fast
from evalmark.traces._assemble import assemble
from evalmark.traces._read import _batches, read_traces
from evalmark.traces._stream import group_traces

TRACES = ["0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"]
IDS = [f"{k:016x}" for k in range(1, 6)]
TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=5) | st.sampled_from(
    ["héllo wörld", "日本語", "", " \x1c", "a\nb", '"q"']
)
BIG = st.sampled_from([2**63 - 1, 2**64, -(2**70), 10**30])
JSONISH = st.recursive(
    TEXT | st.integers(-5, 5) | BIG | st.floats(allow_nan=False) | st.booleans() | st.none(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=5,
)


@st.composite
def json_text(draw: st.DrawFn) -> str:
    """A JSON text (of a mapping, usually), or text that only looks like JSON."""
    value = draw(st.dictionaries(TEXT, JSONISH, max_size=3) | JSONISH)
    text = json.dumps(value, ensure_ascii=draw(st.booleans()))
    return draw(st.sampled_from([text, text, text, "[broken", text + " x", " " + text]))


PART = st.one_of(
    st.fixed_dictionaries({"type": st.just("text"), "content": TEXT}),
    st.fixed_dictionaries(
        {"type": st.just("tool_call"), "id": st.sampled_from(["c1", "c2", "", None, 7])},
        optional={"name": st.sampled_from(["lookup", "", None]), "arguments": JSONISH},
    ),
    st.fixed_dictionaries(
        {"type": st.just("tool_call_response"), "id": st.sampled_from(["c1", "c2", ""])},
        optional={"response": JSONISH | json_text()},
    ),
    st.fixed_dictionaries({"type": st.sampled_from(["image", 3]), "content": JSONISH}),
    JSONISH,
)
MESSAGE = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "system", "tool", "", 1])},
    optional={
        "parts": st.lists(PART, max_size=3) | JSONISH,
        "finish_reason": st.just("stop"),
        "content": TEXT,
    },
)


@st.composite
def messages(draw: st.DrawFn) -> str:
    value = draw(st.lists(MESSAGE, max_size=3) | MESSAGE | TEXT)
    text = json.dumps(value, ensure_ascii=draw(st.booleans()))
    return draw(st.sampled_from([text, text, text, "[not json", "plain words"]))


CLEAN_PART = st.one_of(
    st.fixed_dictionaries({"type": st.just("text"), "content": TEXT}),
    st.fixed_dictionaries(
        {"type": st.just("tool_call"), "id": st.sampled_from(["c1", "c2", ""])},
        optional={"name": st.sampled_from(["lookup", ""]), "arguments": JSONISH},
    ),
    st.fixed_dictionaries(
        {"type": st.just("tool_call_response"), "id": st.sampled_from(["c1", "c2"])},
        optional={"response": JSONISH | json_text()},
    ),
)
CLEAN_MESSAGE = st.fixed_dictionaries(
    {
        "role": st.sampled_from(["user", "assistant", "system", ""]),
        "parts": st.lists(CLEAN_PART, max_size=3),
    },
    optional={"finish_reason": st.just("stop")},
)


@st.composite
def clean_messages(draw: st.DrawFn) -> str:
    """Messages in the current ``{role, parts}`` form, as JSON text."""
    value = draw(st.lists(CLEAN_MESSAGE, max_size=3))
    return json.dumps(value, ensure_ascii=draw(st.booleans()))


OPERATIONS = ["chat", "execute_tool", "invoke_agent", "create_agent", "retrieval", "embeddings"]
KEYS: dict[str, Any] = {
    "gen_ai.operation.name": st.sampled_from([*OPERATIONS, "x", 5]),
    "gen_ai.input.messages": messages(),
    "gen_ai.output.messages": messages(),
    "gen_ai.agent.name": TEXT | st.integers(),
    "gen_ai.tool.name": st.sampled_from(["lookup", "search", ""]),
    "gen_ai.tool.call.id": st.sampled_from(["c1", "c2", "", 3]),
    "gen_ai.tool.call.arguments": json_text() | JSONISH,
    "gen_ai.tool.call.result": json_text() | JSONISH,
    "gen_ai.usage.input_tokens": st.integers(-2, 300) | st.sampled_from(["12", 1.5, 2**64]),
    "gen_ai.usage.output_tokens": st.integers(-2, 300) | st.sampled_from(["7", True]),
    "gen_ai.usage.cost": st.sampled_from([0.25, "0.1", -1]),
    "gen_ai.tool.type": st.just("datastore"),
    "gen_ai.request.model": st.just("gpt-4o"),
    "gen_ai.evaluation.name": st.just("exact-match"),
    "gen_ai.system_instructions": TEXT,
    "openinference.span.kind": st.sampled_from(["LLM", "TOOL", "AGENT", "CHAIN"]),
    "input.value": TEXT | json_text(),
    "output.value": TEXT,
    "llm.input_messages.0.message.content": TEXT,
    "retrieval.documents.0.document.content": TEXT,
    "session.id": TEXT | st.integers(),
    "http.route": TEXT,
    "error.type": st.just("Timeout"),
    "nested": JSONISH,
}
COMMON = ["gen_ai.operation.name", "gen_ai.input.messages", "gen_ai.output.messages"]


def any_value(value: Any, draw: st.DrawFn) -> dict[str, Any]:
    """``value`` as an OTLP JSON ``AnyValue``, integers sometimes written as strings."""
    if value is None:
        return {}
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        if not -(2**63) <= value < 2**63:
            return {"stringValue": str(value)}
        return {"intValue": str(value) if draw(st.booleans()) else value}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, list):
        return {"arrayValue": {"values": [any_value(v, draw) for v in value]}}
    if isinstance(value, dict):
        pairs = [{"key": k, "value": any_value(v, draw)} for k, v in value.items()]
        return {"kvlistValue": {"values": pairs}}
    return {"stringValue": value}


@st.composite
def span(draw: st.DrawFn) -> dict[str, Any]:
    """One span: mostly the common GenAI forms, sometimes anything else."""
    keys = draw(st.lists(st.sampled_from(sorted(KEYS)), max_size=4, unique=True))
    keys = [*draw(st.sampled_from([COMMON, COMMON[:1], []])), *keys]
    attributes = {k: draw(KEYS[k]) for k in dict.fromkeys(keys)}
    if attributes.get("gen_ai.operation.name") == "execute_tool" and draw(st.booleans()):
        attributes.pop("gen_ai.input.messages", None)
    kvs = [{"key": k, "value": any_value(v, draw)} for k, v in attributes.items()]
    out: dict[str, Any] = {
        "traceId": draw(st.sampled_from(TRACES)),
        "spanId": draw(st.sampled_from(IDS)),
        "parentSpanId": draw(st.sampled_from(["", *IDS, "ffffffffffffffff"])),
        "name": draw(st.sampled_from(["chat gpt", "execute_tool lookup", "execute_tool", "x", ""])),
        "kind": draw(st.sampled_from([1, 2, 3])),
        "startTimeUnixNano": str(draw(st.integers(0, 3))),
        "endTimeUnixNano": draw(st.sampled_from(["5", 4, "1700000000123456789", 0])),
        "attributes": kvs,
        "status": draw(st.sampled_from([{}, {"code": 2, "message": "boom"}, {"code": 1}])),
    }
    if draw(st.integers(0, 9)) == 0:
        body = {"key": "gen_ai.event.content", "value": any_value(draw(messages()), draw)}
        out["events"] = [
            {"name": draw(st.sampled_from(["gen_ai.choice", "exception"])), "attributes": [body]}
        ]
    for field in ("parentSpanId", "name", "status", "kind"):
        if draw(st.integers(0, 14)) == 0:
            del out[field]
    return out


CLEAN_KEYS = [
    "gen_ai.agent.name",
    "gen_ai.tool.call.id",
    "gen_ai.tool.call.arguments",
    "gen_ai.tool.call.result",
    "gen_ai.usage.input_tokens",
    "gen_ai.usage.output_tokens",
    "gen_ai.request.model",
    "session.id",
    "nested",
]


@st.composite
def clean_trace(draw: st.DrawFn) -> list[dict[str, Any]]:
    """One well-formed trace (one tree, distinct ids) of agent, chat, tool and other spans with
    the current conventions' attributes: what the fast path reads itself."""
    count = draw(st.integers(1, 5))
    out = []
    for k in range(count):
        operation = draw(st.sampled_from(["chat", "execute_tool", "invoke_agent", None]))
        keys = draw(st.lists(st.sampled_from(CLEAN_KEYS), max_size=4, unique=True))
        attributes = {k: draw(KEYS[k]) for k in keys}
        if operation is None:
            attributes = {k: v for k, v in attributes.items() if not k.startswith("gen_ai.")}
            attributes["http.route"] = draw(TEXT)
        else:
            attributes["gen_ai.operation.name"] = operation
            if operation == "execute_tool":
                attributes["gen_ai.tool.name"] = draw(st.sampled_from(["lookup", "search", ""]))
            else:
                for key in ("gen_ai.input.messages", "gen_ai.output.messages"):
                    attributes[key] = draw(clean_messages() | messages())
        out.append(
            {
                "traceId": TRACES[0],
                "spanId": IDS[k],
                "parentSpanId": draw(st.sampled_from(IDS[:k])) if k else "",
                "name": draw(st.sampled_from(["chat gpt", "execute_tool lookup", "x"])),
                "kind": 1,
                "startTimeUnixNano": str(draw(st.integers(0, 3))),
                "endTimeUnixNano": draw(st.sampled_from(["5", 4, "1700000000123456789"])),
                "attributes": [
                    {"key": k, "value": any_value(v, draw)} for k, v in attributes.items()
                ],
            }
        )
    return draw(st.permutations(out))


def _base64_ids(spans: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for s in spans:
        s = dict(s)
        for field in ("traceId", "spanId"):
            s[field] = base64.b64encode(bytes.fromhex(s[field])).decode()
        out.append(s)
    return out


def _request(spans: list[dict[str, Any]], service: str) -> str:
    resource = {"attributes": [{"key": "service.name", "value": {"stringValue": service}}]}
    scope = {"scope": {"name": "agent"}, "spans": spans}
    return json.dumps({"resourceSpans": [{"resource": resource, "scopeSpans": [scope]}]})


@st.composite
def trace_file(draw: st.DrawFn) -> str:
    """OTLP JSON lines: the spans over one or two requests, one of them sometimes in a form
    only the Python decoder reads (base64 ids)."""
    spans = draw(clean_trace() | clean_trace() | st.lists(span(), min_size=1, max_size=7))
    cut = draw(st.integers(0, len(spans)))
    lines = [spans[:cut], spans[cut:]]
    if draw(st.integers(0, 4)) == 0:
        lines[0] = _base64_ids(lines[0])
    return "\n".join(_request(s, draw(TEXT)) for s in lines if s) + "\n"


def _outcome(read: Any) -> Any:
    try:
        return ("read", read())
    except Exception as exc:  # the same error either way
        return ("error", type(exc).__name__, str(exc))


def _python_path(path: Path, match: str | None) -> list[Any]:
    return [assemble(spans, match, None) for spans in group_traces(_batches(path))]


@settings(max_examples=examples(300), deadline=None)
@given(trace_file(), st.sampled_from([None, "session.id", "gen_ai.agent.name"]))
def test_the_fast_path_reads_every_trace_as_the_python_path(text: str, match: str | None) -> None:
    with _tmp_file(text) as path:
        fast = _outcome(lambda: list(read_traces(path, match=match, hashed=False)))
        plain = _outcome(lambda: _python_path(path, match))
    assert fast == plain


class _tmp_file:
    def __init__(self, text: str) -> None:
        import tempfile

        self._folder = tempfile.TemporaryDirectory()
        self.path = Path(self._folder.name) / "traces.jsonl"
        self.path.write_text(text, encoding="utf-8")

    def __enter__(self) -> Path:
        return self.path

    def __exit__(self, *_: object) -> None:
        self._folder.cleanup()


def _agent_run(number: int) -> list[dict[str, Any]]:
    trace = f"{number + 1:032x}"
    ids = [f"{number + 1:08x}{k:08x}" for k in range(1, 5)]
    ask = json.dumps(
        [{"role": "user", "parts": [{"type": "text", "content": "Où est ma commande ?"}]}]
    )
    call = json.dumps(
        [
            {
                "role": "assistant",
                "parts": [
                    {"type": "tool_call", "id": "c1", "name": "lookup", "arguments": {"id": 7}}
                ],
            }
        ]
    )
    done = json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": "Expédiée."}]}])

    def kv(key: str, value: Any) -> dict[str, Any]:
        return {
            "key": key,
            "value": {"intValue": str(value)} if isinstance(value, int) else {"stringValue": value},
        }

    def one(span: str, parent: str, name: str, start: int, attrs: dict[str, Any]) -> dict[str, Any]:
        return {
            "traceId": trace,
            "spanId": span,
            "parentSpanId": parent,
            "name": name,
            "kind": 1,
            "startTimeUnixNano": str(start),
            "endTimeUnixNano": str(start + 5_000_000),
            "attributes": [kv(k, v) for k, v in attrs.items()],
        }

    agent, chat, tool, final = ids
    return [
        one(
            chat,
            agent,
            "chat",
            2,
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.input.messages": ask,
                "gen_ai.output.messages": call,
                "gen_ai.usage.input_tokens": 9,
            },
        ),
        one(
            tool,
            agent,
            "execute_tool lookup",
            3,
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "lookup",
                "gen_ai.tool.call.id": "c1",
                "gen_ai.tool.call.arguments": '{"id": 7}',
                "gen_ai.tool.call.result": '{"status": "shipped"}',
            },
        ),
        one(
            final,
            agent,
            "chat",
            4,
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.output.messages": done,
                "gen_ai.request.model": "m",
            },
        ),
        one(
            agent,
            "",
            "invoke_agent support",
            1,
            {
                "gen_ai.operation.name": "invoke_agent",
                "gen_ai.agent.name": "support",
                "session.id": f"s-{number}",
            },
        ),
    ]


def test_an_agents_common_traces_never_reach_the_python_assembler(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "traces.jsonl"
    spans = [s for n in range(3) for s in _agent_run(n)]
    path.write_text(
        _request(spans[:6], "a") + "\n" + _request(spans[6:], "a") + "\n", encoding="utf-8"
    )
    want = _python_path(path, "session.id")

    def refused(*_: object) -> None:
        raise AssertionError("the Python assembler was used")

    monkeypatch.setattr(_fast, "assemble", refused)
    got = list(read_traces(path, match="session.id", hashed=False))
    assert got == want
    case = got[0][0]
    assert case is not None and case.name == "s-0" and case.input == "Où est ma commande ?"
    assert [c.name for c in case.tool_calls] == ["lookup"] and case.actual_output == "Expédiée."
