"""People's labels of a run's cases, for estimates that combine them with a judge's verdicts
(``evalmark judge estimate``): one item per labelled case, its ``id`` (the case's name in the
report) and its ``label`` (pass or fail, or true / false). Other fields are ignored, so a
calibration set (:mod:`evalmark.calibration._labels`) or an exported labelling page is read as
it is. Every problem names the file, the line, the item and the field."""

from __future__ import annotations

import os
from pathlib import Path

from evalmark._files.problems import raise_problems
from evalmark._files.read import read_records, require_format
from evalmark._files.source import read_bytes
from evalmark.calibration._labels import _Checker, _label
from evalmark.errors import CalibrationError

__all__ = ["load_case_labels"]


def load_case_labels(path: str | os.PathLike[str]) -> dict[str, bool]:
    """The labels of ``path`` by case id, in file order (True for pass); a
    :class:`CalibrationError` listing every problem with its place."""
    source = Path(path)
    where = str(source)
    fmt = require_format(source, CalibrationError, " of labelled cases")
    records = read_records(read_bytes(source, CalibrationError), where, fmt, CalibrationError)
    check = _Checker(where)
    labels: dict[str, bool] = {}
    for record in records:
        value = record.value
        if not isinstance(value, dict):
            check.report(record, None, "each item is a mapping with an id and a label")
            continue
        ident = value.get("id")
        if not isinstance(ident, str) or not ident.strip():
            check.report(record, None, "expected a non-empty text id (the case's name)", "id")
            continue
        if ident in labels:
            check.report(record, ident, "the id appears twice", "id")
            continue
        label = _label(value.get("label"))
        if label is None:
            check.report(
                record, ident, f"expected pass or fail, got {value.get('label')!r}", "label"
            )
            continue
        labels[ident] = label
    if check.problems:
        raise_problems(check.problems, CalibrationError)
    return labels
