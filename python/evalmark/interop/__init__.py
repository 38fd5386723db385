"""Move in from other evaluation tools: read their files as evalmark samples, checks and
recorded outputs (:func:`read`), and write them as a suite folder (:func:`write_suite`) that
``evalmark run`` replays offline. ``evalmark import FORMAT PATH -o DIR`` is the command.

An importer converts every field it reads or stops with
:class:`~evalmark.errors.ImportFormatError` naming the file, line and field and what would be
lost; ``allow_loss`` names the losses a user accepts. Formats: :data:`FORMATS`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from evalmark.errors import ImportFormatError, Problem
from evalmark.interop._model import Imported, Losses
from evalmark.interop._suite import write_suite

__all__ = ["FORMATS", "Imported", "read", "write_suite"]

FORMATS: tuple[str, ...] = (
    "promptfoo",
    "openai-evals",
    "deepeval",
    "lm-eval",
    "ragas",
    "inspect",
)
"""The formats :func:`read` knows."""


def read(
    format: str,
    path: str | os.PathLike[str],
    *,
    allow_loss: Iterable[str] = (),
    data_dir: str | None = None,
    eval_name: str | None = None,
    log: str | None = None,
    options: Mapping[str, Any] | None = None,
) -> Imported:
    """Read another tool's file as samples, checks and recorded outputs (see :class:`Imported`;
    ``Imported.test_cases(build)`` gives a build's answers as test cases).

    For ``openai-evals``: ``data_dir`` is where ``samples_jsonl`` paths start (default: the
    spec's folder), ``eval_name`` the eval of a file declaring several, ``log`` a run's record
    log giving the recorded answers, ``options={"embedding_model": NAME}`` the embedding
    model of an allowed ``cosine`` text similarity of a hosted eval. For ``lm-eval``:
    ``options`` are the task's ``exact_match`` options (``ignore_case``,
    ``ignore_punctuation``, ``regexes_to_ignore``)."""
    source = Path(path)
    if not source.is_file():
        raise ImportFormatError([Problem("no such file", path=str(source))])
    try:
        return _read(format, source, Losses(allow_loss), data_dir, eval_name, log, options)
    except UnicodeDecodeError as exc:
        message = f"byte {exc.start} is not UTF-8: save the file as UTF-8 text"
        raise ImportFormatError([Problem(message, path=str(source))]) from None
    except RecursionError:
        message = "the data is nested too deeply to read; flatten it"
        raise ImportFormatError([Problem(message, path=str(source))]) from None


def _read(
    format: str,
    source: Path,
    losses: Losses,
    data_dir: str | None,
    eval_name: str | None,
    log: str | None,
    options: Mapping[str, Any] | None,
) -> Imported:
    if format == "promptfoo":
        from evalmark.interop._promptfoo_results import read_promptfoo

        return read_promptfoo(source, losses)
    if format == "openai-evals":
        from evalmark.interop._openai_evals import read_openai_evals

        embedding = (options or {}).get("embedding_model")
        return read_openai_evals(
            source, losses, data_dir=data_dir, eval_name=eval_name, log=log, embedding=embedding
        )
    if format == "deepeval":
        from evalmark.interop._deepeval_runs import read_deepeval_file

        return read_deepeval_file(source, losses)
    if format == "lm-eval":
        from evalmark.interop._lm_eval import read_lm_eval

        return read_lm_eval(source, losses, options=options or {})
    if format == "ragas":
        from evalmark.interop._ragas import read_ragas

        return read_ragas(source, losses)
    if format == "inspect":
        from evalmark.interop._inspect import read_inspect

        return read_inspect(source, losses)
    raise ImportFormatError(
        [Problem(f"unknown import format {format!r}; known: {', '.join(FORMATS)}")]
    )
