"""What chat and embedding recorders share: the store, the mode, the usage report."""

from __future__ import annotations

import atexit
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from evalmark.models._cassette_file import Kind
from evalmark.models._modes import BeyondRecorded, RecordMode, parse_beyond, resolve_mode
from evalmark.models._protocols import default_params_of, model_id_of
from evalmark.models._secrets import Redactor, SecretRedactor, sensitive_values
from evalmark.models._store import USAGE_ENV, CassetteStore, CassetteUsage, append_usage


def configured_secrets(model: object) -> list[str]:
    """The secrets a model was configured with: its ``secret_values`` (adapters over a client
    list the client's API key and credential headers there) and every value under a credential
    name in its default parameters."""
    found: list[str] = []
    declared = getattr(model, "secret_values", None)
    if isinstance(declared, str):
        found.append(declared)
    elif isinstance(declared, Iterable):
        found.extend(value for value in declared if isinstance(value, str))
    found.extend(sensitive_values(default_params_of(model)))
    return found


class Recorder:
    """What chat and embedding recorders share: the store, the mode, the usage report."""

    _kind: Kind

    def __init__(
        self,
        model: Any,
        cassette: str | os.PathLike[str],
        mode: str | RecordMode | None,
        *,
        model_id: str | None,
        redact: Sequence[Redactor],
        secret_patterns: Sequence[str],
        secrets: Sequence[str] = (),
        beyond_recorded: str | BeyondRecorded = BeyondRecorded.REPEAT,
    ) -> None:
        self.model = model
        self.model_id = model_id or model_id_of(model)
        self._defaults = default_params_of(model)
        self._resolved = resolve_mode(mode)
        if isinstance(secrets, str):
            raise TypeError("secrets takes a list of values; wrap the single one: [value]")
        redactor = SecretRedactor(secret_patterns, [*secrets, *configured_secrets(model)])
        self._store = CassetteStore(
            Path(os.path.abspath(cassette)),
            self._resolved,
            redact,
            redactor,
            parse_beyond(beyond_recorded),
        )
        usage_file = os.environ.get(USAGE_ENV)
        if usage_file and self._resolved.mode is not RecordMode.OFF:
            atexit.register(self._write_usage_at_exit, Path(usage_file))

    @property
    def default_params(self) -> Mapping[str, Any]:
        """The wrapped model's default parameters."""
        return dict(self._defaults)

    @property
    def cassette(self) -> Path:
        """The cassette file."""
        return self._store.path

    @property
    def mode(self) -> RecordMode:
        """The mode in force (after the argument, ``CI`` and ``EVALMARK_RECORD_MODE``)."""
        return self._resolved.mode

    @property
    def beyond_recorded(self) -> BeyondRecorded:
        """What replay does for a sample index beyond the recorded ones."""
        return self._store.beyond

    @property
    def mode_source(self) -> str:
        """Where the mode came from, in words."""
        return self._resolved.source

    def usage(self) -> CassetteUsage:
        """Entries used so far, and entries of this kind and model never used."""
        self._store.ensure_loaded()
        return self._store.usage(self._kind, self.model_id)

    @contextmanager
    def buffered(self) -> Iterator[None]:
        """Keep new recordings in memory inside the ``with`` block and write them in one go at
        its end (also when it ends with an error). Much faster for recording many calls from a
        fast model; a crash inside the block loses what it recorded. Blocks may nest; the
        outermost one writes."""
        store = self._store
        with store.lock:
            store.buffering += 1
        try:
            yield
        finally:
            with store.lock:
                store.buffering -= 1
                outermost = store.buffering == 0
            if outermost:
                store.flush()

    def _write_usage_at_exit(self, usage_file: Path) -> None:
        if not self._store.loaded:
            return
        usage = self.usage()
        append_usage(usage_file, usage.path, usage.used)
