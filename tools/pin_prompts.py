"""Pin the text of every catalog prompt in ``python/evalmark/models/_prompts/catalog.sha256``.

Run ``python tools/pin_prompts.py`` after changing a prompt on purpose (the test suite fails
until you do); ``--check`` only reports what differs and exits 1 if anything does.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python"))

from evalmark.models._prompts.checksums import pinned_problems, write_checksums


def main(argv: list[str]) -> int:
    """Check or rewrite the checksum file; the exit code says whether it was up to date."""
    problems = pinned_problems()
    if "--check" in argv:
        for problem in problems:
            print(problem)
        return 1 if problems else 0
    path = write_checksums()
    print(f"pinned {path}" + (f" ({len(problems)} change(s))" if problems else " (unchanged)"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
