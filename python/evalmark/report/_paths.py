"""File names made from user text (suite, evaluation and build names), kept inside their folder.

A suite named ``../../escaped``, ``/etc/passwd``, ``</script>`` or ``CON`` must not write
outside the report folder, anywhere on the disk, into a new sub-folder or onto a device.
:func:`safe_file_name` is the one function that turns such text into a file name; every report
(and history) path made from a name goes through :func:`path_inside`.
"""

from __future__ import annotations

import hashlib
import unicodedata
from pathlib import Path

__all__ = ["MAX_NAME", "path_inside", "safe_file_name"]

MAX_NAME = 120  # characters of a name before its suffix; far below every file system's limit
_KEEP = frozenset("-_.+=@,")
_WINDOWS_DEVICES = frozenset(
    ["CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"]
    + [f"{stem}{n}" for stem in ("COM", "LPT") for n in "0123456789¹²³"]
)


def safe_file_name(text: str) -> str:
    """``text`` as one file name: letters, digits and ``-_.+=@,`` kept, every other character
    (path separators, ``..``, control characters, ``<>:"|?*``, spaces) replaced by ``_``, no
    leading dot, no Windows device name, at most :data:`MAX_NAME` characters.

    A name that had to change gets a short digest of the original text, so two names that
    differ only in replaced characters (``a/b`` and ``a:b``) never share a file. The same text
    always gives the same name.
    """
    if not isinstance(text, str):
        raise TypeError(f"a file name is made from a str, got {type(text).__name__}")
    normal = unicodedata.normalize("NFC", text)
    kept = "".join(ch if ch.isalnum() or ch in _KEEP else "_" for ch in normal)
    name = kept.strip("._ ")
    if name.split(".")[0].upper() in _WINDOWS_DEVICES:
        name = "_" + name
    if name and name == text and len(name) <= MAX_NAME:
        return name
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    head = name[: MAX_NAME - len(digest) - 1].rstrip("._ ")
    return f"{head}-{digest}" if head else f"name-{digest}"


def path_inside(folder: Path, name: str, suffix: str = "") -> Path:
    """``folder / (safe_file_name(name) + suffix)``, checked to lie directly in ``folder``.

    ``suffix`` is evalmark's own (``.json``, ``.md``); a ``ValueError`` is raised if it would
    leave the folder (it cannot with the suffixes evalmark uses)."""
    target = folder / (safe_file_name(name) + suffix)
    if target.parent != folder or Path(target.name).name != target.name or "/" in suffix:
        raise ValueError(f"the report name {name!r} does not make a file name inside {folder}")
    return target
