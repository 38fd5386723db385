"""The common inspect_ai ``.json`` log, read for its re-score in one typed decoding.

Most logs are plain: every sample has an id, a whole epoch from 1 up (or none), a text
target, a text or message-list input, an ``output`` whose ``completion`` is a text, no
attachments, nothing in the refused fields and no field the importer does not know. The
decoding below accepts only such a log, and reads in the same pass what a re-score needs:
the answers and the recorded scores (each as
:class:`~evalmark.interop._inspect_rescore.Score`). What a sample recorded besides
(messages, usage, ...) is skipped as JSON text.

Any other log (or a fault) fails this decoding, and the importer reads it the general way
(:mod:`evalmark.interop._inspect_log`), which finds and words the fault. The general reading
of a log this decoding accepts succeeds and gives the same names, targets and answers: the
samples themselves are built from it when first read.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import msgspec

from evalmark._files.source import is_utf8
from evalmark.interop._inspect_log import HEADER, PER_EPOCH, REFUSED, Rows
from evalmark.interop._inspect_rescore import Score

__all__ = ["read_common"]

_NONE = msgspec.Meta(max_length=0)
# what an empty refused field may hold: null, [], {} or "" (with any spacing)
_Empty = (
    None | Annotated[list[Any], _NONE] | Annotated[dict[str, Any], _NONE] | Annotated[str, _NONE]
)


class _Output(msgspec.Struct, gc=False):
    """A sample's ``output``: its completion text (the rest is skipped)."""

    completion: str


def _sample_type() -> type[Any]:
    fields: list[tuple[str, Any, Any]] = [("id", int | str, msgspec.NODEFAULT)]
    fields.append(("epoch", Annotated[int, msgspec.Meta(ge=1)] | None, None))
    fields.append(("input", str | list[msgspec.Raw], msgspec.NODEFAULT))
    fields.append(("target", str, ""))
    fields.append(("output", _Output, msgspec.NODEFAULT))
    fields.append(("scores", dict[str, Score] | None, None))
    fields.append(("attachments", Annotated[dict[str, Any], _NONE] | None, None))
    fields += [(name, _Empty, None) for name in REFUSED]
    skipped = [name for name in PER_EPOCH if name not in ("output", "scores")]
    fields += [(name, msgspec.Raw, None) for name in (*skipped, "choices", "metadata")]
    return msgspec.defstruct(
        "InspectCommonSample", fields, forbid_unknown_fields=True, gc=False, kw_only=True
    )


_SAMPLE = _sample_type()


# the log: its own fields (decoded) and its samples (common ones only)
_Log = msgspec.defstruct(
    "InspectCommonLog",
    [*((name, Any, msgspec.UNSET) for name in HEADER), ("samples", list[_SAMPLE] | None, None)],  # type: ignore[valid-type]
    gc=False,
)
_DECODER: msgspec.json.Decoder[Any] = msgspec.json.Decoder(_Log)


def read_common(path: Path, data: bytes) -> tuple[Mapping[str, Any], Rows] | None:
    """The header and the samples of the ``.json`` log ``path`` (whose bytes are ``data``)
    when it is a common log (the module's docstring), else None."""
    if not is_utf8(data):  # skipping a value (msgspec.Raw) does not check it
        return None
    try:
        log = _DECODER.decode(data)
    except msgspec.DecodeError:  # a ValidationError too: any other log
        return None
    if log.eval is msgspec.UNSET:
        return None
    rows = Rows(_SAMPLE, ())
    rows.typed = log.samples or []
    rows.wheres = [str(path)] * len(rows.typed)
    rows.data = data
    header = {name: getattr(log, name) for name in HEADER}
    return {name: value for name, value in header.items() if value is not msgspec.UNSET}, rows
