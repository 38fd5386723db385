"""One trace (its spans) assembled into a :class:`~evalmark.samples._case.TestCase`, or the
reasons it cannot be (:class:`~evalmark.traces._problem.TraceProblem`).

The spans form a tree by their parent ids (a root whose parent was not exported, as when the
agent was called from another service, is fine; two roots or a cycle are a broken chain). The
tree is walked depth first, children by start time, and:

* the evaluated span is the highest agent span (``invoke_agent``, an OpenInference AGENT or
  CHAIN), else the first GenAI span;
* the input is its user message, else the first model call's; the answer is its output, else
  the last model call's text;
* every tool span is a tool call (arguments, result, duration, id; a failed call's result is
  ``{"error": ...}``); a trace without tool spans takes its calls from the model's messages;
* model calls become ``thought`` steps, tool calls ``action`` and ``observation`` steps, a
  nested agent an ``action`` step (``metadata["agents"]`` keeps the nesting);
* retrieval spans (and datastore tools) give the retrieval context; tokens and cost add up
  over the model calls; the latency is the root span's duration;
* every attribute the reader does not know, and every span that is not GenAI, is kept in
  ``metadata["spans"]``; the resource's attributes in ``metadata["resource"]``.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from operator import attrgetter
from typing import Any

from evalmark.samples._case import ReasoningStep, TestCase, TokenUsage, ToolCall
from evalmark.traces import _conventions as conv
from evalmark.traces._keys import shape
from evalmark.traces._messages import Message, input_messages, output_messages
from evalmark.traces._problem import TraceProblem
from evalmark.traces._span import Span
from evalmark.traces._values import text_of

__all__ = ["assemble"]

_CONTAINERS = ("agent", "chain")
_NO_CONTENT = (
    "the trace records no messages and no tool calls: its instrumentation left message "
    "content out; record it (for the OpenTelemetry GenAI instrumentations, set "
    "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true)"
)


_by_start = attrgetter("start", "span_id")


def _walk(spans: list[Span]) -> tuple[list[Span], list[str]]:
    """The spans depth first (children by start time) and what breaks the parent chain."""
    by_id = {span.span_id: span for span in spans}
    if len(by_id) < len(spans):  # a repeated span id: its first span counts
        by_id = {}
        for span in spans:
            by_id.setdefault(span.span_id, span)
    children: dict[str, list[Span]] = {}
    tops: list[Span] = []
    for span in sorted(by_id.values(), key=_by_start):  # children by start, as they are added
        parent = span.parent_id
        if parent and parent in by_id and parent != span.span_id:
            below = children.get(parent)
            if below is None:
                children[parent] = [span]
            else:
                below.append(span)
        else:
            tops.append(span)
    broken = []
    if len(tops) > 1:
        for span in by_id.values():  # the tops that name a parent, in file order
            parent = span.parent_id
            if parent and (parent not in by_id or parent == span.span_id):
                broken.append(
                    f"span {span.span_id} ({span.name}) names parent {span.parent_id}, which "
                    "is not in the trace"
                )
        broken.append(
            f"the spans form {len(tops)} separate trees, not one (spans lost in export, or "
            "one trace's spans too far apart in the file: raise the reader's window)"
        )
    order: list[Span] = []
    stack = tops[::-1]
    while stack:
        span = stack.pop()
        order.append(span)
        below = children.get(span.span_id)
        if below:
            stack += below[::-1]
    if len(order) < len(by_id):
        broken.append(f"{len(by_id) - len(order)} spans' parents form a cycle")
    return order, broken


class _Messages:
    """Each span's input and output messages, read once."""

    def __init__(self) -> None:
        self._in: dict[int, list[Message]] = {}
        self._out: dict[int, list[Message]] = {}

    def inputs(self, span: Span) -> list[Message]:
        found = self._in.get(id(span))
        if found is None:
            found = self._in[id(span)] = input_messages(span)
        return found

    def outputs(self, span: Span) -> list[Message]:
        found = self._out.get(id(span))
        if found is None:
            found = self._out[id(span)] = output_messages(span)
        return found


def _user_text(messages: list[Message]) -> str:
    users = [m["text"] for m in messages if m["role"] == "user" and m["text"]]
    if users:
        return str(users[-1])
    texts = [m["text"] for m in messages if m["text"] and m["role"] != "system"]
    return str(texts[-1]) if texts else ""


def _answer_text(messages: list[Message]) -> str:
    texts = [m["text"] for m in messages if m["text"]]
    return str(texts[-1]) if texts else ""


def _name(order: list[Span], match: str | None, trace_id: str) -> str:
    if match:
        for span in order:
            if match in span.attributes:
                return text_of(span.attributes[match])
        for span in order:
            if match in span.resource:
                return text_of(span.resource[match])
    return trace_id  # also when the spans form only a cycle (no root to walk from)


def _decimal(value: Any) -> Decimal | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        amount = Decimal(str(value))
    except InvalidOperation:
        return None
    return amount if amount.is_finite() and amount >= 0 else None


def _usage_and_cost(models: list[Span], top: Span) -> tuple[TokenUsage | None, Decimal | None]:
    recorded = [u for u in map(conv.usage, models) if u is not None]
    if not recorded:
        recorded = [u for u in (conv.usage(top),) if u is not None]
    inputs = outputs = totals = 0
    for first, second, total in recorded:
        inputs, outputs = inputs + (first or 0), outputs + (second or 0)
        totals += total if total is not None else (first or 0) + (second or 0)
    costs = [c for c in (_decimal(conv.cost(s)) for s in models) if c is not None]
    if not costs:
        costs = [c for c in (_decimal(conv.cost(top)),) if c is not None]
    usage = TokenUsage(inputs, outputs, max(totals, inputs + outputs)) if recorded else None
    return usage, (sum(costs, Decimal(0)) if costs else None)


def _kept(order: list[Span], roles: dict[str, str]) -> list[dict[str, Any]]:
    """What the reader did not use: unknown attributes of GenAI spans, other spans whole."""
    kept = []
    for span in order:
        role = roles[span.span_id]
        a = span.attributes
        if role:
            unknown = shape(a).unknown
            attributes = {k: a[k] for k in unknown} if unknown else None
        else:
            attributes = dict(a)
        events = (
            [
                {"name": e.name, "attributes": dict(e.attributes)}
                for e in span.events
                if not e.name.startswith("gen_ai.") and (not role or e.name != "exception")
            ]
            if span.events
            else None
        )
        if attributes or events or not role:
            entry: dict[str, Any] = {"span-id": span.span_id, "name": span.name}
            entry["kind"] = role or "other"
            if attributes:
                entry["attributes"] = attributes
            if events:
                entry["events"] = events
            kept.append(entry)
    return kept


def _agents(order: list[Span], roles: dict[str, str]) -> dict[str, Any] | None:
    """The agents as a tree: ``{name, span-id, tools, agents}``."""
    nodes: dict[str, dict[str, Any]] = {}
    # a span naming itself as parent is a root here (looking up through it never ended)
    parent_of = {s.span_id: "" if s.parent_id == s.span_id else s.parent_id for s in order}
    root: dict[str, Any] | None = None
    for span in order:
        role = roles[span.span_id]
        if role not in ("agent", "tool"):
            continue
        up = parent_of[span.span_id]
        while up and up not in nodes:
            up = parent_of.get(up, "")
        if role == "tool":
            if up:
                nodes[up]["tools"].append(conv.tool_name(span))
            continue
        name = span.attributes.get("gen_ai.agent.name") or span.name
        node = {"name": text_of(name), "span-id": span.span_id, "tools": [], "agents": []}
        nodes[span.span_id] = node
        if up:
            nodes[up]["agents"].append(node)
        elif root is None:
            root = node
    return root


class _Steps:
    """The tool calls, steps, retrieved documents and problems of one trace, built span by
    span in tree order."""

    def __init__(self, trace: tuple[str, str], memo: _Messages, results: dict[str, Any] | None):
        self.trace_id, self.name = trace
        self.memo = memo
        self.results = results  # tool results by call id, when calls come from messages
        self.calls: list[ToolCall] = []
        self.steps: list[ReasoningStep] = []
        self.context: list[str] = []
        self.problems: list[TraceProblem] = []

    def _missing(self, span: Span, message: str) -> None:
        self.problems.append(
            TraceProblem(
                self.trace_id, self.name, "tool-call-without-result", message, span.span_id
            )
        )

    def _call(self, call: ToolCall, result: Any, has_result: bool) -> None:
        self.calls.append(call)
        self.steps.append(ReasoningStep("action", f"{call.name}({text_of(call.arguments)})", call))
        if has_result:
            self.steps.append(ReasoningStep("observation", text_of(result)))

    def agent(self, span: Span) -> None:
        agent = text_of(span.attributes.get("gen_ai.agent.name") or span.name)
        asked = _user_text(self.memo.inputs(span))
        text = f"invoke agent {agent}" + (f": {asked}" if asked else "")
        self.steps.append(ReasoningStep("action", text))

    def chat(self, span: Span) -> None:
        messages = self.memo.outputs(span)
        text = _answer_text(messages)
        if text:
            self.steps.append(ReasoningStep("thought", text))
        if self.results is None:
            return
        for call_id, tool, arguments in (c for m in messages for c in m["calls"]):
            found = call_id in self.results
            result = self.results.get(call_id)
            self._call(
                ToolCall(tool or "unnamed", arguments, result, id=call_id or None), result, found
            )
            if not found:
                self._missing(
                    span,
                    f"the model asked for tool call {tool} ({call_id or 'no id'}) "
                    "and no later message carries its result",
                )

    def tool(self, span: Span) -> None:
        call_id, tool, arguments, result, has_result, _ = conv.tool_call(span)
        kept = result if has_result else None
        self._call(ToolCall(tool, arguments, kept, span.duration_ms, call_id), result, has_result)
        if not has_result:
            self._missing(
                span,
                f"tool span {span.span_id} ({tool}) records no result and no "
                "error; record gen_ai.tool.call.result (or output.value)",
            )
        elif span.attributes.get("gen_ai.tool.type") == "datastore":
            self.context += conv.documents(span)

    def retrieval(self, span: Span) -> None:
        documents = conv.documents(span)
        self.context += documents
        query = text_of(span.attributes.get("gen_ai.retrieval.query.text"))
        query = query or _user_text(self.memo.inputs(span))
        self.steps.append(ReasoningStep("action", f"retrieve{': ' + query if query else ''}"))
        self.steps.append(ReasoningStep("observation", f"{len(documents)} documents retrieved"))


def _metadata(
    order: list[Span], roles: dict[str, str], top: Span, source: str | None
) -> dict[str, Any]:
    root = order[0]
    metadata: dict[str, Any] = {"trace-id": root.trace_id, "span-id": top.span_id}
    if source is not None:
        metadata["trace-file-sha256"] = source
    metadata["span-end-unix-nano"] = top.end
    if root is not top:
        metadata["root-span-id"] = root.span_id
    if root.resource:
        metadata["resource"] = dict(root.resource)
    agents = _agents(order, roles)
    if agents is not None:
        metadata["agents"] = agents
    kept = _kept(order, roles)
    if kept:
        metadata["spans"] = kept
    return metadata


def assemble(
    spans: list[Span], match: str | None = None, source: str | None = None
) -> tuple[TestCase | None, list[TraceProblem]]:
    """The test case of one trace (None when it has no GenAI span or a broken chain) and the
    reasons it cannot be evaluated (empty when it can). ``source``, the trace file's sha256,
    goes into the case's ``metadata["trace-file-sha256"]``."""
    memo = _Messages()
    order, broken = _walk(spans)
    trace_id = spans[0].trace_id
    name = _name(order, match, trace_id)
    if broken:
        return None, [TraceProblem(trace_id, name, "broken-parent-chain", "; ".join(broken))]
    roles: dict[str, str] = {}
    genai: list[Span] = []
    chats: list[Span] = []
    models: list[Span] = []
    container: Span | None = None
    has_tools = False
    role_of = conv.role
    for span in order:  # one pass: each span's role, and the spans of each role
        role = roles[span.span_id] = role_of(span)
        if not role:
            continue
        genai.append(span)
        if role == "chat":
            chats.append(span)
            models.append(span)
        elif role == "tool":
            has_tools = True
        elif role == "embedding":
            models.append(span)
        elif container is None and role in _CONTAINERS:
            container = span
    if not genai:
        names = ", ".join(sorted({s.name for s in order})[:5])
        message = (
            f"no GenAI span among its {len(order)} spans ({names}): no gen_ai.* attributes, "
            "no openinference.span.kind; is the model client instrumented?"
        )
        return None, [TraceProblem(trace_id, name, "no-genai-spans", message)]
    top = genai[0] if container is None else container
    question = _user_text(memo.inputs(top)) or (_user_text(memo.inputs(chats[0])) if chats else "")
    answer = _answer_text(memo.outputs(top)) if roles[top.span_id] != "chat" else ""
    for chat in reversed(chats):
        if answer:
            break
        answer = _answer_text(memo.outputs(chat))
    results: dict[str, Any] | None = None
    if not has_tools:  # calls from the model's messages
        results = {}
        for sent in (m for chat in chats for m in memo.inputs(chat)):
            results.update({i: v for i, v in sent["results"] if i not in results})
    built = _Steps((trace_id, name), memo, results)
    for span in genai:
        role = roles[span.span_id]
        if role == "chat":
            built.chat(span)
        elif role == "tool":
            built.tool(span)
        elif role == "agent":
            if span is not top:
                built.agent(span)
        elif role == "retrieval":
            built.retrieval(span)
    problems = built.problems
    if not question and not answer and not built.calls:
        problems.append(TraceProblem(trace_id, name, "no-content", _NO_CONTENT, top.span_id))
    usage, cost = _usage_and_cost(models, top)
    case = TestCase(
        question,
        answer,
        retrieval_context=tuple(built.context),
        tool_calls=tuple(built.calls),
        reasoning_trace=tuple(built.steps),
        latency_ms=order[0].duration_ms,
        token_usage=usage,
        cost=cost,
        metadata=_metadata(order, roles, top, source),
        name=name,
    )
    return case, problems
