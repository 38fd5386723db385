"""The public API is the names of evalmark's faces: the top-level package, the ``__init__`` of
each package and the public modules (those whose path has no ``_name`` part). Everything else is
private (``_name.py``) and may move freely. ``tests/public_api.txt`` lists every public name,
sorted, so a change to the surface is a reviewed diff of that file; after a deliberate change,
rewrite it with ``python tests/test_public_api.py > tests/public_api.txt``."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import evalmark

LISTING = Path(__file__).with_name("public_api.txt")


def faces() -> Iterator[ModuleType]:
    """The top-level package and every public module and package below it."""
    yield evalmark
    for info in pkgutil.walk_packages(evalmark.__path__, "evalmark."):
        if any(part.startswith("_") for part in info.name.split(".")[1:]):
            continue
        yield importlib.import_module(info.name)


def public_names() -> list[str]:
    """Every name of every face, as ``module.name``, sorted."""
    names = set()
    for face in faces():
        for name in getattr(face, "__all__", ()):
            names.add(f"{face.__name__}.{name}")
    return sorted(names)


def test_every_face_declares_its_names() -> None:
    undeclared = [face.__name__ for face in faces() if not hasattr(face, "__all__")]
    assert undeclared == []


def test_every_declared_name_exists() -> None:
    missing = [
        f"{face.__name__}.{name}"
        for face in faces()
        for name in face.__all__
        if not hasattr(face, name)
    ]
    assert missing == []


def test_the_public_names_are_the_reviewed_list() -> None:
    listed = LISTING.read_text(encoding="utf-8").split()
    now = public_names()
    added, removed = sorted(set(now) - set(listed)), sorted(set(listed) - set(now))
    assert (added, removed) == ([], []), (
        "the public API changed; if that is meant, rewrite tests/public_api.txt "
        f"(python tests/test_public_api.py > tests/public_api.txt) and say so in CHANGELOG.md: "
        f"added {added}, removed {removed}"
    )


def test_the_public_api_is_at_most_300_names() -> None:
    # the documented API, top level plus package faces, stays small enough to learn and review
    assert len(public_names()) <= 300


def test_only_faces_are_public_modules() -> None:
    root = Path(evalmark.__file__).parent
    public_files = [
        path.relative_to(root).as_posix()
        for path in root.rglob("*.py")
        if not any(part.startswith("_") for part in path.relative_to(root).parts[:-1])
        and not path.name.startswith("_")
        and "starter_files" not in path.parts
    ]
    assert sorted(public_files) == ["prompts.py", "ray.py"]


if __name__ == "__main__":
    sys.stdout.write("".join(name + "\n" for name in public_names()))
