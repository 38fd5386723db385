"""The typed shapes of promptfoo's results JSON (version 3) that
:mod:`evalmark.interop._promptfoo_results` decodes: a row whose verdict fields stay JSON
text, and a row whose test case is of the common shape, validated by the decoder."""

from __future__ import annotations

from itertools import chain, repeat
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from evalmark.interop._promptfoo import _CARRIED, _build_name

__all__: list[str] = []  # read through evalmark.interop._promptfoo_results


class _Prompt(msgspec.Struct, gc=False):
    """The rendered prompt (the rest of the prompt is skipped)."""

    raw: str


if TYPE_CHECKING:
    _Type = str
else:  # the assertion types carried, checked by the decoder
    _Type = Literal[tuple(sorted(_CARRIED))]


class _Assert(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """One assertion of the common shape (its keys in the order the importer keeps)."""

    type: _Type
    value: Any = msgspec.UNSET  # a text holding "{" (a template): see _CaseColumns
    weight: Any = msgspec.UNSET
    threshold: Any = msgspec.UNSET


class _Case(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A test case of the common shape, validated by the decoder (see
    :func:`~evalmark.interop._promptfoo_results._plain_test`)."""

    # vars or assert null (read as empty by _plain_test): left to the plain reader
    vars: dict[str, str | int | float] = {}
    assert_: list[_Assert] = msgspec.field(default_factory=list, name="assert")
    threshold: Any = None
    description: Any = None
    metadata: Any = None


class _Row(msgspec.Struct, forbid_unknown_fields=True, gc=False, rename="camel"):
    """One result row of the common shape; the verdict fields stay JSON text."""

    prompt: _Prompt
    prompt_idx: int = 0
    test_idx: int = 0
    test_case: Any = None
    provider: Any = None
    response: Any = None
    prompt_id: msgspec.Raw = None  # type: ignore[assignment]
    vars: msgspec.Raw = None  # type: ignore[assignment]
    success: msgspec.Raw = None  # type: ignore[assignment]
    score: msgspec.Raw = None  # type: ignore[assignment]
    grading_result: msgspec.Raw = None  # type: ignore[assignment]
    named_scores: msgspec.Raw = None  # type: ignore[assignment]
    latency_ms: msgspec.Raw = None  # type: ignore[assignment]
    cost: msgspec.Raw = None  # type: ignore[assignment]
    error: msgspec.Raw = None  # type: ignore[assignment]
    failure_reason: msgspec.Raw = None  # type: ignore[assignment]
    id: msgspec.Raw = None  # type: ignore[assignment]
    metadata: msgspec.Raw = None  # type: ignore[assignment]
    token_usage: msgspec.Raw = None  # type: ignore[assignment]


class _CaseRow(_Row, forbid_unknown_fields=True, gc=False, rename="camel"):
    """A row whose test case is of the common shape (tried first: no check per row); its
    provider and response stay JSON text until read (one provider's text repeats)."""

    test_case: _Case | None = None
    provider: msgspec.Raw = None  # type: ignore[assignment]
    response: msgspec.Raw = None  # type: ignore[assignment]


class _Response(msgspec.Struct, gc=False):
    """What a response's answer is read from (the rest is skipped: read with the samples)."""

    output: Any = ""


_ANY = msgspec.json.Decoder()
_RESPONSE_OUTPUT = msgspec.json.Decoder(_Response)
_OUTPUT_FIELD = attrgetter("output")


def _decoded(value: Any) -> Any:
    """``value`` decoded when it is still JSON text."""
    return _ANY.decode(value) if type(value) is msgspec.Raw else value


def _answers(responses: list[Any]) -> list[str] | None:
    """The output of each response (JSON text of an object) when every one is a text; None
    when one is not (or a response is not an object)."""
    try:
        found = list(map(_RESPONSE_OUTPUT.decode, responses))
    except (TypeError, msgspec.ValidationError):  # not all texts; not all objects
        return None
    answers = list(map(_OUTPUT_FIELD, found))
    return answers if set(map(type, answers)) == {str} else None


class _Body(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """The ``results`` body with the keys promptfoo writes (version 3)."""

    results: list[_Row]
    version: Any = msgspec.UNSET
    timestamp: Any = msgspec.UNSET
    prompts: Any = msgspec.UNSET
    stats: Any = msgspec.UNSET


class _Document(msgspec.Struct, forbid_unknown_fields=True, gc=False, rename="camel"):
    """A results file with the keys promptfoo writes, read in one pass."""

    results: _Body
    eval_id: Any = msgspec.UNSET
    config: Any = msgspec.UNSET
    shareable_url: Any = msgspec.UNSET
    metadata: Any = msgspec.UNSET


class _CaseBody(_Body, forbid_unknown_fields=True, gc=False):
    """The body of rows whose test cases are all of the common shape."""

    results: list[_CaseRow]  # type: ignore[assignment]


class _CaseDocument(_Document, forbid_unknown_fields=True, gc=False, rename="camel"):
    """A results file whose test cases are all of the common shape."""

    results: _CaseBody


_ASSERTS, _TYPE, _VALUE = attrgetter("assert_"), attrgetter("type"), attrgetter("value")
_TEST_CASE = attrgetter("test_case")


class _CaseColumns:
    """What the import reads from the decoded test cases (:class:`_Case`), a column at a
    time: ``types``, the types of every assertion; :meth:`expected`, each case's expected
    output."""

    def __init__(self, cases: list[_Case]) -> None:
        self.asserts = list(map(_ASSERTS, cases))
        self.flat = list(chain.from_iterable(self.asserts))
        self.types = set(map(_TYPE, self.flat))
        self.values = list(map(_VALUE, self.flat))  # each assertion's value
        self.texts = set(map(type, self.values)) == {str}  # every value a text

    def templated(self) -> bool:
        """Whether an assertion's value is a text holding "{" (a template, rendered by the
        general test reader: the file is read by it)."""
        values = self.values
        if not self.texts:
            values = [value for value in values if type(value) is str]
        return any(map(str.__contains__, values, repeat("{")))

    def expected(self) -> list[str]:
        """Each case's expected output as :func:`evalmark.interop._promptfoo._expected_output`
        reads it from the case's plain form: its first ``equals`` value, else empty."""
        one_each = len(self.flat) == len(self.asserts) and set(map(len, self.asserts)) == {1}
        if self.types == {"equals"} and one_each and self.texts:
            return self.values  # one equals of a text each
        return list(map(_one_expected, self.asserts))


def _one_expected(asserts: list[_Assert]) -> str:
    """One case's expected output, from its assertions."""
    for entry in asserts:
        if entry.type == "equals" and entry.value is not msgspec.UNSET:
            value = entry.value
            return value if isinstance(value, str) else str(value)
    return ""


_PROVIDER, _RESPONSE = attrgetter("provider"), attrgetter("response")
_TEST_IDX, _PROMPT_IDX = attrgetter("test_idx"), attrgetter("prompt_idx")
_PROMPT_RAW = attrgetter("prompt.raw")


class _CaseRead:
    """Rows of the common shape read column by column (as
    :func:`evalmark.interop._promptfoo_results._columns` reads any typed rows): each row's
    sample ``names``, in order, the ``build`` answering them and its ``outputs`` (build ->
    name -> answer). The questions and tests by name are made with the samples
    (:meth:`questions`, :meth:`tests`)."""

    def __init__(self, names: list[str], outputs: dict[str, dict[str, str]]) -> None:
        self.names = names
        self.outputs = outputs
        (self.build,) = outputs

    def questions(self, rows: list[_CaseRow]) -> dict[str, str]:
        """The rendered prompt of each sample, by name."""
        return dict(zip(self.names, map(_PROMPT_RAW, rows), strict=True))

    def tests(self, rows: list[_CaseRow]) -> dict[str, dict[str, Any]]:
        """Each sample's test case as
        :func:`evalmark.interop._promptfoo_results._plain_test` makes it, by name."""
        cases = msgspec.to_builtins(list(map(_TEST_CASE, rows)))
        return dict(zip(self.names, cases, strict=True))


def _case_columns(rows: list[_CaseRow], taken: dict[str, str]) -> _CaseRead | None:
    """The rows read column by column when one provider answers each sample once with a text
    (no row can be refused); None for any other rows."""
    if not rows:
        return None
    providers = list(map(_PROVIDER, rows))
    if providers.count(providers[0]) != len(rows):
        return None
    answers = _answers(list(map(_RESPONSE, rows)))
    if answers is None:
        return None
    tests, prompts = list(map(_TEST_IDX, rows)), list(map(_PROMPT_IDX, rows))
    if prompts.count(0) == len(prompts):  # one prompt (the common case): one number each
        names = [f"test-{test + 1}-prompt-1" for test in tests]
    else:
        numbers = zip(tests, prompts, strict=True)
        names = [f"test-{test + 1}-prompt-{prompt + 1}" for test, prompt in numbers]
    answered = dict(zip(names, answers, strict=True))
    if len(answered) != len(names):  # a sample in two rows
        return None
    build = _build_name(_decoded(providers[0]), taken)
    return _CaseRead(names, {build: answered})
