"""Attachments of a judge input: images and audio sent as OpenAI-compatible content parts,
and their bytes kept once beside a cassette, by content hash.

An attachment is a file path, a ``data:`` URL, an ``http(s)`` image URL, or a content part
already in the OpenAI form::

    {"type": "image_url", "image_url": {"url": "data:image/png;base64,..."}}
    {"type": "input_audio", "input_audio": {"data": "<base64>", "format": "wav"}}

:func:`with_attachments` adds the parts to the last user message (its text becomes the first
part). A cassette never holds the bytes: :func:`externalize` replaces each inline payload by
``blob:sha256:<hex>`` before the request is keyed and recorded, and the bytes go to
``<cassette stem>.blobs/<hex>`` beside the cassette, one file per distinct content. Replay
checks that every blob a recording refers to is there (:class:`AttachmentBlobMissing`
otherwise, naming the cassette and the hash).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import mimetypes
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeAlias

from evalmark._files.atomic import write_atomically
from evalmark.errors import CassetteError, EvalmarkError

__all__ = [
    "ATTACHMENTS",
    "AttachmentBlobMissing",
    "AttachmentError",
    "AttachmentLike",
    "attachment_part",
    "blob_dir",
    "blob_problems",
    "blob_refs",
    "check_blobs",
    "externalize",
    "unused_blobs",
    "with_attachments",
    "write_blobs",
]

AttachmentLike: TypeAlias = str | os.PathLike[str] | Mapping[str, Any]

ATTACHMENTS = "attachments"  # the key of a judge input's images and audio among its values

BLOB_PREFIX = "blob:sha256:"
_DATA_URL = re.compile(r"^data:([\w.+-]+/[\w.+-]+)((?:;[\w.+-]+=[^;,]*)*);base64,(.*)$", re.S)
_AUDIO_FORMATS = {"wav": "wav", "x-wav": "wav", "wave": "wav", "mpeg": "mp3", "mp3": "mp3"}
_SUFFIX_TYPES = {".wav": "audio/wav", ".mp3": "audio/mpeg", ".webp": "image/webp"}


class AttachmentError(EvalmarkError, ValueError):
    """An attachment that cannot be sent: no such file, an unknown kind, a bad data URL."""


class AttachmentBlobMissing(CassetteError, LookupError):
    """A recording refers to an attachment whose bytes are not beside the cassette.

    Attributes: ``path`` (the cassette), ``digest`` (the sha256 hex of the missing bytes).
    """

    def __init__(self, message: str, *, path: str, digest: str) -> None:
        super().__init__(message)
        self.path = path
        self.digest = digest


def _decode(data: str, where: str) -> bytes:
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise AttachmentError(f"{where}: the attachment's data is not valid base64") from None


def _audio_format(mime: str, where: str) -> str:
    subtype = mime.split("/", 1)[1].lower()
    found = _AUDIO_FORMATS.get(subtype)
    if found is None:
        raise AttachmentError(
            f"{where}: audio of type {mime} cannot be sent; the OpenAI-compatible input_audio "
            "part takes wav or mp3"
        )
    return found


def _part_of(mime: str, payload: bytes, where: str) -> dict[str, Any]:
    encoded = base64.b64encode(payload).decode("ascii")
    if mime.startswith("image/"):
        return {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{encoded}"}}
    if mime.startswith("audio/"):
        return {
            "type": "input_audio",
            "input_audio": {"data": encoded, "format": _audio_format(mime, where)},
        }
    raise AttachmentError(f"{where}: a {mime} attachment is neither an image nor audio")


def _checked_part(part: Mapping[str, Any], where: str) -> dict[str, Any]:
    kind = part.get("type")
    body = part.get(str(kind)) if isinstance(kind, str) else None
    if kind == "image_url" and isinstance(body, Mapping) and isinstance(body.get("url"), str):
        return {"type": kind, "image_url": dict(body)}
    if (
        kind == "input_audio"
        and isinstance(body, Mapping)
        and isinstance(body.get("data"), str)
        and isinstance(body.get("format"), str)
    ):
        _decode(str(body["data"]), where)
        return {"type": kind, "input_audio": dict(body)}
    raise AttachmentError(
        f"{where}: a content part is {{'type': 'image_url', 'image_url': {{'url': ...}}}} or "
        f"{{'type': 'input_audio', 'input_audio': {{'data': ..., 'format': 'wav'}}}}, got "
        f"{dict(part)!r:.120}"
    )


def attachment_part(value: AttachmentLike, *, where: str = "attachment") -> dict[str, Any]:
    """The OpenAI-compatible content part for a path, a data URL, an image URL or a part."""
    if isinstance(value, Mapping):
        return _checked_part(value, where)
    if isinstance(value, str) and value.startswith("data:"):
        match = _DATA_URL.match(value)
        if match is None:
            raise AttachmentError(
                f"{where}: a data URL reads data:<type>/<subtype>;base64,<data>, got {value[:40]!r}"
            )
        mime = match.group(1).lower()
        return _part_of(mime, _decode(match.group(3), where), where)
    if isinstance(value, str) and value.startswith(("http://", "https://")):
        return {"type": "image_url", "image_url": {"url": value}}
    if not isinstance(value, str | os.PathLike):
        raise AttachmentError(
            f"{where}: an attachment is a file path, a data URL or a content part, got "
            f"{type(value).__name__}"
        )
    path = Path(value)
    mime = _SUFFIX_TYPES.get(path.suffix.lower()) or mimetypes.guess_type(path.name)[0]
    if mime is None:
        raise AttachmentError(
            f"{where}: {path}: cannot tell the kind of file from its name; use .png, .jpg, "
            ".gif, .webp, .wav or .mp3, or give a data URL"
        )
    try:
        payload = path.read_bytes()
    except OSError as exc:
        raise AttachmentError(f"{where}: cannot read {path}: {exc.strerror or exc}") from None
    return _part_of(mime, payload, f"{where} {path}")


def with_attachments(
    messages: Sequence[Mapping[str, Any]], attachments: Iterable[AttachmentLike] | None
) -> list[dict[str, Any]]:
    """``messages`` with the attachments' parts added to the last user message (its text
    first); the messages as they are when there are none."""
    out = [dict(message) for message in messages]
    if attachments is None or isinstance(attachments, str | bytes | Mapping):
        attachments = [] if attachments is None else [attachments]
    parts = [attachment_part(a, where=f"attachments[{i}]") for i, a in enumerate(attachments)]
    if not parts:
        return out
    for message in reversed(out):
        if message.get("role") == "user":
            content = message.get("content")
            text = [{"type": "text", "text": content}] if isinstance(content, str) else []
            existing = list(content) if isinstance(content, list) else []
            message["content"] = [*text, *existing, *parts]
            return out
    raise AttachmentError("attachments need a user message to go with; the messages have none")


# --------------------------------------------------------------------------- cassette blobs


def blob_dir(cassette: Path) -> Path:
    """The folder of a cassette's attachment bytes: ``<stem>.blobs`` beside it."""
    return cassette.with_name(f"{cassette.stem}.blobs")


def _stored(payload: bytes, blobs: dict[str, bytes]) -> str:
    digest = hashlib.sha256(payload).hexdigest()
    blobs[digest] = payload
    return BLOB_PREFIX + digest


def _external_part(part: Any, blobs: dict[str, bytes]) -> Any:
    if not isinstance(part, Mapping):
        return part
    kind = part.get("type")
    if kind == "image_url" and isinstance(part.get("image_url"), Mapping):
        body = dict(part["image_url"])
        match = _DATA_URL.match(str(body.get("url", "")))
        if match is not None:
            body["url"] = _stored(_decode(match.group(3), "image_url"), blobs)
            body["media_type"] = match.group(1).lower()
            return {**part, "image_url": body}
    if kind == "input_audio" and isinstance(part.get("input_audio"), Mapping):
        body = dict(part["input_audio"])
        data = body.get("data")
        if isinstance(data, str) and not data.startswith(BLOB_PREFIX):
            body["data"] = _stored(_decode(data, "input_audio"), blobs)
            return {**part, "input_audio": body}
    return part


def externalize(
    messages: Sequence[dict[str, Any]],
) -> tuple[list[dict[str, Any]], dict[str, bytes]]:
    """(the messages with each inline image or audio payload replaced by its
    ``blob:sha256:<hex>`` reference, the bytes by hex digest). Messages of plain text are
    returned as they are, and nothing the caller passed is changed."""
    blobs: dict[str, bytes] = {}
    out: list[dict[str, Any]] = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            message = {**message, "content": [_external_part(p, blobs) for p in content]}
        out.append(message)
    return out, blobs


def write_blobs(cassette: Path, blobs: Mapping[str, bytes]) -> None:
    """Store each blob not yet beside ``cassette`` (content-addressed: never twice)."""
    if not blobs:
        return
    folder = blob_dir(cassette)
    folder.mkdir(parents=True, exist_ok=True)
    for digest, payload in sorted(blobs.items()):
        target = folder / digest
        if not target.exists():
            write_atomically(target, payload)


def check_blobs(cassette: Path, digests: Iterable[str], key: str) -> None:
    """Raise :class:`AttachmentBlobMissing` for the first of ``digests`` not beside the
    cassette (the recording ``key`` refers to it)."""
    folder = blob_dir(cassette)
    for digest in sorted(digests):
        if not (folder / digest).is_file():
            raise AttachmentBlobMissing(
                f"{cassette}: the recording {key[:12]}… refers to the attachment sha256:{digest}, "
                f"which is not in {folder}; restore that folder with the cassette, or record "
                "again (EVALMARK_RECORD_MODE=record-missing)",
                path=str(cassette),
                digest=digest,
            )


def blob_refs(request: Mapping[str, Any]) -> list[str]:
    """The sha256 digests a recorded chat request refers to, in order of appearance."""
    found: list[str] = []
    for message in request.get("messages") or []:
        content = message.get("content") if isinstance(message, Mapping) else None
        for part in content if isinstance(content, list) else []:
            if not isinstance(part, Mapping):
                continue
            image, audio = part.get("image_url"), part.get("input_audio")
            ref = (
                image.get("url")
                if isinstance(image, Mapping)
                else audio.get("data")
                if isinstance(audio, Mapping)
                else None
            )
            if isinstance(ref, str) and ref.startswith(BLOB_PREFIX):
                found.append(ref.removeprefix(BLOB_PREFIX))
    return found


def blob_problems(cassette: Path, digests: Iterable[str], where: str) -> list[str]:
    """One line per blob of ``digests`` missing beside ``cassette`` or not holding the bytes
    its name is the hash of."""
    folder = blob_dir(cassette)
    problems: list[str] = []
    for digest in dict.fromkeys(digests):
        path = folder / digest
        if not path.is_file():
            problems.append(f"{where}: the attachment sha256:{digest} is not in {folder}")
        elif hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            problems.append(f"{where}: {path} does not hold the bytes its name is the hash of")
    return problems


def unused_blobs(cassette: Path, requests: Iterable[Mapping[str, Any]]) -> list[Path]:
    """The blob files beside ``cassette`` that none of ``requests`` refers to (only files
    named by a sha256 hex digest are considered)."""
    folder = blob_dir(cassette)
    if not folder.is_dir():
        return []
    used = {digest for request in requests for digest in blob_refs(request)}
    return sorted(
        path
        for path in folder.iterdir()
        if path.is_file() and re.fullmatch(r"[0-9a-f]{64}", path.name) and path.name not in used
    )
