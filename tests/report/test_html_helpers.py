"""Shared pieces of the HTML report tests: a small DOM read back with html.parser, reports
built result by result (with gate results attached), and accessors for cases, their inputs and
their check rows. No tests here."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from html.parser import HTMLParser
from typing import Any

from evalmark import Sample
from evalmark.gates._rules import GateResult
from evalmark.report._model import Report
from evalmark.results._results import EvaluationResult, ResultColumn

HOSTILE = '</script><script>window.__pwned = 1</script><img src=x onerror="alert(1)">"\'&'
VOID = {"meta", "input", "br", "img", "link", "hr"}


# --------------------------------------------------------------------------- a small DOM


class Node:
    """An element read back from the page: tag, attributes, children and text."""

    def __init__(self, tag: str, attrs: dict[str, str | None]) -> None:
        self.tag = tag
        self.attrs = attrs
        self.children: list[Node | str] = []

    @property
    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text for c in self.children)

    def iter(self) -> Iterator[Node]:
        yield self
        for child in self.children:
            if isinstance(child, Node):
                yield from child.iter()

    def find_all(self, tag: str, cls: str | None = None) -> list[Node]:
        return [
            n
            for n in self.iter()
            if n.tag == tag and (cls is None or cls in (n.attrs.get("class") or "").split())
        ]

    def by_id(self, ident: str) -> Node:
        found = [n for n in self.iter() if n.attrs.get("id") == ident]
        assert len(found) == 1, (ident, len(found))
        return found[0]

    def child_tags(self) -> list[str]:
        return [c.tag for c in self.children if isinstance(c, Node)]


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", {})
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, dict(attrs))
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_endtag(self, tag: str) -> None:
        assert self.stack[-1].tag == tag, f"</{tag}> closes <{self.stack[-1].tag}>"
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def parse(page: str) -> Node:
    builder = _Builder()
    builder.feed(page)
    builder.close()
    assert builder.stack == [builder.root], "unclosed elements"
    return builder.root


# --------------------------------------------------------------------------- reports


class GatedReport(Report):
    """A report carrying gate results (the interface the suite runner fills in)."""

    __slots__ = ("gates",)


def make(
    names: Sequence[str],
    tags: Sequence[tuple[str, ...]],
    columns: dict[str, list[EvaluationResult]],
    outputs: Sequence[str | None],
    gates: tuple[GateResult, ...] | None = None,
) -> Report:
    parts: dict[str, Any] = {
        "name": "support",
        "sample_names": names,
        "sample_tags": tags,
        "columns": {k: ResultColumn.from_results(v) for k, v in columns.items()},
        "outputs": outputs,
        "metadata": {"suite": "support", "build": "regressed"},
    }
    if gates is None:
        return Report(**parts)
    report = GatedReport(**parts)
    object.__setattr__(report, "gates", gates)
    return report


def ok(text: str = "fine") -> EvaluationResult:
    return EvaluationResult(True, 1.0, text)


def bad(text: str) -> EvaluationResult:
    return EvaluationResult(False, 0.0, text)


NAMES = ["refund", "pricing", "chat", "crash", "trial"]
TAGS = [("billing", "smoke"), ("billing", "pricing"), ("support",), ("smoke",), ()]
SAMPLES = [
    Sample(
        name=name,
        parameters=[f"question about {name}?"],
        expected_output=f"the {name} answer",
        expected_facts=[f"{name} fact one", f"{name} fact two"],
        context=[f"{name} document"],
        tags=list(tags),
    )
    for name, tags in zip(NAMES, TAGS, strict=True)
]
GATES = (
    GateResult("pass rate", 0.9, 0.6, False, "3 of 5 cases pass every check"),
    GateResult("errored cases", 0, 1, False, "1 case errored", "count"),
)


def crashed() -> EvaluationResult:
    return EvaluationResult.from_error(
        "function", RuntimeError("backend down"), explanation="the function raised"
    )


def support(gates: tuple[GateResult, ...] | None = GATES) -> Report:
    judge_no = "Only 20% of the claim is supported.\nVERDICT: no"
    return make(
        NAMES,
        TAGS,
        {
            "facts": [ok(), bad("1 of 2 facts missing: '$290'"), ok(), crashed(), ok()],
            "groundedness": [
                ok("All supported. VERDICT: yes"),
                ok("All supported. VERDICT: yes"),
                bad(judge_no),
                crashed(),
                ok("All supported. VERDICT: yes"),
            ],
        },
        ["refunds in 30 days", "$249 a year", "chat all week", None, "14 days free"],
        gates,
    )


def cases(doc: Node) -> list[Node]:
    return doc.find_all("details", "case")


def case_named(doc: Node, name: str) -> Node:
    found = [
        c for c in cases(doc) if c.find_all("summary")[0].text.split("score")[0].find(name) >= 0
    ]
    assert len(found) == 1, name
    return found[0]


def fields(case: Node) -> dict[str, str]:
    dl = case.find_all("dl", "io")[0]
    items = [c for c in dl.children if isinstance(c, Node)]
    return {dt.text: dd.text for dt, dd in zip(items[::2], items[1::2], strict=True)}


def check_rows(case: Node) -> dict[str, list[str]]:
    rows = case.find_all("tr", "check")
    return {
        str(r.attrs["data-strategy"]): [
            td.text for td in r.children if isinstance(td, Node) and td.tag == "td"
        ]
        for r in rows
    }


def make_named(report: Report, name: str) -> Report:
    renamed = GatedReport(
        name=name,
        sample_names=report.sample_names,
        sample_tags=report.sample_tags,
        columns={s: report.column(s) for s in report.strategies},
        outputs=[report.output(i) for i in range(len(report))],
    )
    object.__setattr__(renamed, "gates", getattr(report, "gates", ()))
    return renamed
