"""A starter suite for a new project: samples, a suite file, a pytest test and a cassette
folder, written by ``evalmark init`` and passing offline at once."""

from __future__ import annotations

from pathlib import Path

from evalmark._files.atomic import write_atomically
from evalmark.errors import SuiteError

STARTER = Path(__file__).resolve().parent / "starter_files"


def starter_files() -> list[Path]:
    """The starter's files, relative to the starter folder, in a fixed order."""
    return sorted(p.relative_to(STARTER) for p in STARTER.rglob("*") if _is_template(p))


def _is_template(path: Path) -> bool:
    return path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"


def write_starter(folder: str | Path, *, force: bool = False) -> list[Path]:
    """Write the starter suite into ``folder`` (created if missing); returns the paths written.

    Nothing is written when any of the files already exists, unless ``force`` is set: the
    error names every file that would be overwritten.
    """
    target = Path(folder)
    files = starter_files()
    if not force:
        existing = [str(target / name) for name in files if (target / name).exists()]
        if existing:
            verb = "exists" if len(existing) == 1 else "exist"
            raise SuiteError(
                f"{', '.join(existing)} already {verb}; choose an empty folder, or pass "
                "--force to overwrite"
            )
    written = []
    for name in files:
        path = target / name
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, (STARTER / name).read_bytes())
        written.append(path)
    return written
