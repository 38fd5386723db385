"""The assembler's fast paths equal the plain readings they replace, on generated spans: the
tree walk (spans sorted once, children kept in start order) equals sorting each node's
children; a key shape read once per key sequence equals asking each key; the kept metadata
equals filtering every attribute; a ``{role, parts}`` message read on the short path equals the
full reading. Spans are drawn with repeated ids, missing parents, self-parents, cycles and
start-time ties, and attributes from every convention's keys."""

from __future__ import annotations

from operator import attrgetter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.traces import _conventions as conv
from evalmark.traces._assemble import _kept, _walk, assemble
from evalmark.traces._keys import known, shape
from evalmark.traces._messages import _message
from evalmark.traces._span import Event, Span

IDS = [f"{k:016x}" for k in range(1, 7)]
KEYS = [
    "gen_ai.operation.name",
    "gen_ai.agent.name",
    "gen_ai.tool.name",
    "gen_ai.tool.call.result",
    "gen_ai.request.model",
    "gen_ai.prompt.0.content",
    "gen_ai.completion.0.content",
    "llm.input_messages.0.message.content",
    "llm.output_messages.1.message.content",
    "retrieval.documents.0.document.content",
    "openinference.span.kind",
    "input.value",
    "output.value",
    "session.id",
    "http.route",
    "db.system",
]
VALUES = st.one_of(
    st.sampled_from(["chat", "execute_tool", "invoke_agent", "retrieval", "LLM", "TOOL", "x"]),
    st.integers(-3, 3),
    st.text(max_size=4),
)


@st.composite
def spans(draw: st.DrawFn) -> list[Span]:
    """Up to eight spans of one trace, ids and parents drawn from a small pool."""
    out = []
    for _ in range(draw(st.integers(1, 8))):
        attributes = draw(st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=5))
        events = tuple(
            Event(name, 0, {})
            for name in draw(st.lists(st.sampled_from(["exception", "gen_ai.choice", "log"])))
        )
        out.append(
            Span(
                "0" * 31 + "1",
                draw(st.sampled_from(IDS)),
                draw(st.sampled_from(["", *IDS, "ffffffffffffffff"])),
                draw(st.sampled_from(["a", "b"])),
                1,
                draw(st.integers(0, 3)),
                draw(st.integers(0, 5)),
                attributes,
                events,
                draw(st.integers(0, 2)),
                "",
                {},
            )
        )
    return out


_by_start = attrgetter("start", "span_id")


def reference_walk(spans: list[Span]) -> tuple[list[Span], list[str]]:
    """The walk as first written: each node's children sorted as it is reached."""
    by_id: dict[str, Span] = {}
    for span in spans:
        by_id.setdefault(span.span_id, span)
    children: dict[str, list[Span]] = {}
    tops: list[Span] = []
    for span in by_id.values():
        parent = span.parent_id
        if parent and parent in by_id and parent != span.span_id:
            children.setdefault(parent, []).append(span)
        else:
            tops.append(span)
    broken = []
    if len(tops) > 1:
        broken = [f"{s.span_id} {s.parent_id}" for s in tops if s.parent_id]
        broken.append(f"{len(tops)} trees")
    order: list[Span] = []
    stack = sorted(tops, key=_by_start, reverse=True)
    while stack:
        span = stack.pop()
        order.append(span)
        stack += sorted(children.get(span.span_id, []), key=_by_start, reverse=True)
    if len(order) < len(by_id):
        broken.append("cycle")
    return order, broken


@settings(max_examples=examples(200))
@given(spans())
def test_the_walk_equals_sorting_each_nodes_children(drawn: list[Span]) -> None:
    order, broken = _walk(drawn)
    want_order, want_broken = reference_walk(drawn)
    assert [id(s) for s in order] == [id(s) for s in want_order]
    assert len(broken) == len(want_broken)
    for said, want in zip(broken, want_broken, strict=True):
        assert all(part in said for part in want.split() if part != "trees")


@settings(max_examples=examples(200))
@given(spans())
def test_key_shapes_and_kept_metadata_equal_asking_each_key(drawn: list[Span]) -> None:
    for span in drawn:
        a = span.attributes
        found = shape(a)
        assert found.unknown == tuple(k for k in a if not known(k))
        assert found.genai == any(k.startswith("gen_ai.") for k in a)
        assert found.documents == any(k.startswith("retrieval.documents.") for k in a)
        assert found.llm_input == any(k.startswith("llm.input_messages.") for k in a)
        assert found.llm_output == any(k.startswith("llm.output_messages.") for k in a)
        assert found.prompt == any(k.startswith("gen_ai.prompt.") for k in a)
        assert found.completion == any(k.startswith("gen_ai.completion.") for k in a)
    order, _ = _walk(drawn)
    roles = {s.span_id: conv.role(s) for s in order}
    kept = {entry["span-id"]: entry for entry in _kept(order, roles)}
    for span in order:
        role = roles[span.span_id]
        want = {k: v for k, v in span.attributes.items() if not role or not known(k)}
        assert kept.get(span.span_id, {}).get("attributes", {}) == want
    assemble(drawn)  # and the whole assembly reads every drawn trace without an exception


PARTS = st.lists(
    st.one_of(
        st.fixed_dictionaries({"type": st.just("text"), "content": st.text(max_size=3)}),
        st.fixed_dictionaries(
            {"type": st.just("tool_call"), "id": st.text(max_size=2), "name": st.text(max_size=2)},
            optional={"arguments": st.one_of(st.text(max_size=4), st.just({"q": 1}))},
        ),
        st.fixed_dictionaries(
            {"type": st.just("tool_call_response"), "id": st.text(max_size=2)},
            optional={"response": st.text(max_size=4)},
        ),
        st.fixed_dictionaries({"type": st.just("image")}, optional={"content": st.integers()}),
        st.integers(),
    ),
    max_size=4,
)


@settings(max_examples=examples(200))
@given(
    st.one_of(st.none(), st.sampled_from(["", "user", "assistant", "tool"])),
    PARTS,
    st.booleans(),
)
def test_a_role_and_parts_message_reads_the_same_on_the_short_path(
    role: str | None, parts: list[Any], finished: bool
) -> None:
    raw: dict[str, Any] = {"role": role, "parts": parts}
    if finished:
        raw["finish_reason"] = "stop"
    # an extra key the reader ignores sends the same message down the full reading
    assert _message(raw) == _message({**raw, "x-ignored": None, "y-ignored": None})
