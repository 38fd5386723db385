"""Samples as values: ``Sample`` (one case: a name, the inputs for the function under test, and
what a good answer looks like) and ``Samples`` (an ordered, immutable collection of them with
unique names). Reading and writing files is in :mod:`evalmark.samples._load` and
:mod:`evalmark.samples._write`; :mod:`evalmark.samples._samples` gathers the whole samples API.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, overload

import msgspec

from evalmark._files.problems import describe_value, suggest
from evalmark.errors import SampleError

__all__ = ["Parameters", "Sample", "Samples", "decode_hook", "tag_set"]


class Parameters(tuple[Any, ...]):
    """The inputs handed to the function under test: a tuple with a forgiving ``get``."""

    __slots__ = ()

    def get(self, index: int, default: Any = None) -> Any:
        """The parameter at ``index`` (negative counts from the end), or ``default``."""
        if not isinstance(index, int) or isinstance(index, bool):
            raise TypeError(f"parameter indexes are integers, got {type(index).__name__}")
        try:
            return self[index]
        except IndexError:
            return default

    def __repr__(self) -> str:
        return f"Parameters({list(self)!r})"


def _as_str_tuple(value: object, field: str, name: str) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise SampleError(
            f"sample '{name}': {field} must be a list of strings, got {describe_value(value)}; "
            f'write it as a list, e.g. ["..."]'
        )
    items = tuple(value)
    for item in items:
        if not isinstance(item, str):
            raise SampleError(
                f"sample '{name}': every item of {field} must be a string, got "
                f"{describe_value(item)} ({item!r})"
            )
    return items


class Sample(
    msgspec.Struct,
    frozen=True,
    kw_only=True,
    rename="kebab",
    forbid_unknown_fields=True,
    omit_defaults=True,
    gc=False,
):
    """One evaluation case.

    ``parameters`` are the inputs for the function under test (always a list, even for one
    value). At most one of ``expected_output`` (the expected answer) and ``expected_outputs``
    (expected items, e.g. the segments a retriever should return) is set; a sample with
    neither needs another expectation: ``expected_facts``, ``context``, a rubric
    (``metadata["rubric"]``) or graded relevance judgments (``metadata["qrels"]``, read by
    :class:`~evalmark.strategies.RetrievalMetric`). ``expected_facts``
    are facts a good answer contains; ``context`` the documents the application is shown.
    Lists given in Python are stored as tuples, so values compare equal however they were made.
    """

    name: str
    parameters: Parameters
    expected_output: str | None = None
    expected_outputs: tuple[str, ...] | None = None
    expected_facts: tuple[str, ...] = ()
    context: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    metadata: dict[str, Any] = {}

    def __post_init__(self) -> None:
        # Runs for every decoded sample, so the common case (already well typed) is checked
        # first with as few attribute reads as possible; anything unusual takes the slow path.
        name = self.name
        output = self.expected_output
        outputs = self.expected_outputs
        if (
            type(name) is str
            and name
            and not name.isspace()
            and type(self.parameters) is Parameters
            and (
                (outputs is None and type(output) is str)
                or (output is None and type(outputs) is tuple)
            )
            and type(self.expected_facts) is tuple
            and type(self.context) is tuple
            and type(self.tags) is tuple
        ):
            return
        self._check_and_coerce()

    def _check_and_coerce(self) -> None:
        name = self.name
        if not isinstance(name, str) or not name.strip():
            got = f"{name!r}, which is blank" if isinstance(name, str) else describe_value(name)
            raise SampleError(f"a sample needs a name with visible text (a string), got {got}")
        if type(self.parameters) is not Parameters:
            value = self.parameters
            if isinstance(value, str | bytes | dict) or not isinstance(value, Iterable):
                raise SampleError(
                    f"sample '{name}': parameters must be a list, even for a single input "
                    f"(got {describe_value(value)}); write parameters=[value]"
                )
            msgspec.structs.force_setattr(self, "parameters", Parameters(value))
        if self.expected_output is not None and self.expected_outputs is not None:
            raise SampleError(
                f"sample '{name}': give exactly one of expected-output (the expected answer) "
                "and expected-outputs (a list of expected items)"
            )
        self._coerce_lists(name)
        if self.expected_output is None and self.expected_outputs is None:
            meta = self.metadata if isinstance(self.metadata, dict) else {}
            if not (self.expected_facts or self.context or meta.get("rubric") or "qrels" in meta):
                raise SampleError(
                    f"sample '{name}': missing the expectation: give exactly one of "
                    "expected-output (the expected answer) and expected-outputs (a list of "
                    "expected items), or expected-facts, context, a rubric "
                    "(metadata={'rubric': ...}) or relevance grades (metadata={'qrels': ...})"
                )
        if type(self.expected_output) is not str and self.expected_output is not None:
            raise SampleError(
                f"sample '{name}': expected-output must be a string, got "
                f"{describe_value(self.expected_output)}"
            )

    def _coerce_lists(self, name: str) -> None:
        for field in ("expected_facts", "context", "tags"):
            value = getattr(self, field)
            if type(value) is not tuple:
                msgspec.structs.force_setattr(
                    self, field, _as_str_tuple(value, field.replace("_", "-"), name)
                )
        outputs = self.expected_outputs
        if outputs is not None and type(outputs) is not tuple:
            msgspec.structs.force_setattr(
                self, "expected_outputs", _as_str_tuple(outputs, "expected-outputs", name)
            )

    def has_tag(self, *tags: str) -> bool:
        """True if the sample carries any of ``tags``."""
        return any(tag in self.tags for tag in tags)


def decode_hook(type_: type, obj: Any) -> Any:
    """msgspec's hook for the types it does not know: a list given as ``parameters``."""
    if type_ is Parameters:
        if isinstance(obj, list | tuple):
            return Parameters(obj)
        raise TypeError(f"Expected `array`, got `{_msgspec_type_name(obj)}`")
    raise NotImplementedError(f"cannot decode {type_!r}")


def _msgspec_type_name(obj: object) -> str:
    names = {str: "str", int: "int", float: "float", bool: "bool", dict: "object"}
    return "null" if obj is None else names.get(type(obj), type(obj).__name__)


class Samples(msgspec.Struct, frozen=True, gc=False):
    """An ordered, immutable collection of samples with unique names.

    Behaves as a sequence: ``len``, iteration, ``samples[0]``, ``samples[1:3]`` (a Samples),
    and ``samples["refund-window"]`` by name.
    """

    items: tuple[Sample, ...] = ()

    def __post_init__(self) -> None:
        items = self.items
        if type(items) is not tuple:
            if isinstance(items, Sample) or not isinstance(items, Iterable):
                raise TypeError(f"Samples takes an iterable of Sample, got {type(items).__name__}")
            items = tuple(items)
            msgspec.structs.force_setattr(self, "items", items)
        try:
            names = {sample.name for sample in items}
        except AttributeError:
            names = set()
        if len(names) != len(items):
            for sample in items:
                if not isinstance(sample, Sample):
                    raise TypeError(
                        f"Samples holds Sample values only, got {type(sample).__name__}"
                    )
            raise SampleError(_duplicates_message(items))

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[Sample]:
        return iter(self.items)

    def __bool__(self) -> bool:
        return bool(self.items)

    @overload
    def __getitem__(self, key: int | str) -> Sample: ...
    @overload
    def __getitem__(self, key: slice) -> Samples: ...
    def __getitem__(self, key: int | str | slice) -> Sample | Samples:
        """A sample by position or by name; a slice gives a Samples."""
        if isinstance(key, slice):
            return Samples(self.items[key])
        if isinstance(key, str):
            for sample in self.items:
                if sample.name == key:
                    return sample
            raise KeyError(_missing_name_message(key, self.names))
        return self.items[key]

    def __contains__(self, item: object) -> bool:
        if isinstance(item, str):
            return item in self.names
        return item in self.items

    def __reversed__(self) -> Iterator[Sample]:
        return reversed(self.items)

    def __add__(self, other: Samples) -> Samples:
        if not isinstance(other, Samples):
            return NotImplemented
        return Samples(self.items + other.items)

    def __repr__(self) -> str:
        shown = ", ".join(repr(s.name) for s in self.items[:5])
        more = f", ... ({len(self.items)} samples)" if len(self.items) > 5 else ""
        return f"Samples([{shown}{more}])"

    def index(self, name: str) -> int:
        """The position of the sample called ``name``."""
        for i, sample in enumerate(self.items):
            if sample.name == name:
                return i
        raise KeyError(_missing_name_message(name, self.names))

    def count(self, sample: object) -> int:
        """How many times ``sample`` occurs (0 or 1: names are unique)."""
        return self.items.count(sample)

    @property
    def names(self) -> tuple[str, ...]:
        """The sample names, in order."""
        return tuple(sample.name for sample in self.items)

    @property
    def tags(self) -> tuple[str, ...]:
        """Every tag carried by some sample, sorted."""
        return tuple(sorted({tag for sample in self.items for tag in sample.tags}))

    def filter_by_tags(self, *tags: str) -> Samples:
        """The samples carrying any of ``tags``, in order.

        A tag that no sample carries is an error (most often a typo, which would otherwise
        quietly select nothing).
        """
        wanted = tag_set(tags)
        known = set(self.tags)
        unknown = sorted(wanted - known)
        if unknown:
            raise SampleError(_unknown_tags_message(unknown, sorted(known)))
        return Samples(tuple(s for s in self.items if not wanted.isdisjoint(s.tags)))

    def filter(self, predicate: Callable[[Sample], bool]) -> Samples:
        """The samples for which ``predicate`` is true, in order."""
        return Samples(tuple(s for s in self.items if predicate(s)))


Sequence.register(Samples)


def tag_set(tags: Iterable[str] | str) -> set[str]:
    """The tags to filter by, checked: strings, at least one."""
    if isinstance(tags, str):
        tags = (tags,)
    wanted = set()
    for tag in tags:
        if not isinstance(tag, str):
            raise TypeError(f"tags are strings, got {type(tag).__name__} {tag!r}")
        wanted.add(tag)
    if not wanted:
        raise ValueError("give at least one tag to filter by")
    return wanted


def _unknown_tags_message(unknown: list[str], known: list[str]) -> str:
    parts = []
    for tag in unknown:
        close = suggest(tag, known)
        parts.append(f"'{tag}'" + (f" (did you mean '{close}'?)" if close else ""))
    in_use = ", ".join(known) if known else "none"
    return f"no sample carries the tag {', '.join(parts)}; the tags in use are: {in_use}"


def _missing_name_message(name: str, names: Sequence[str]) -> str:
    close = suggest(name, names)
    hint = f"; did you mean '{close}'?" if close else ""
    return f"no sample named '{name}'{hint}"


def _duplicates_message(items: Sequence[Sample]) -> str:
    seen: set[str] = set()
    doubled: list[str] = []
    for sample in items:
        if sample.name in seen and sample.name not in doubled:
            doubled.append(sample.name)
        seen.add(sample.name)
    listed = ", ".join(f"'{n}'" for n in doubled)
    return f"sample names must be unique; used more than once: {listed}"
