"""Report file names made from user text stay inside their folder, whatever the text."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalmark.cli import main
from evalmark.report._paths import MAX_NAME, path_inside, safe_file_name

ROOT = Path(__file__).resolve().parents[2]

HOSTILE = [
    "../../escaped",
    "..",
    ".",
    "",
    "/etc/passwd",
    "C:\\Windows\\evil",
    "\\\\server\\share",
    "</script>",
    "a/b",
    "a\\b",
    "a:b",
    "nul\x00byte",
    "new\nline",
    "CON",
    "con.json",
    "LPT1",
    ".hidden",
    "trailing. ",
    "x" * 1000,
    "é" * 300,
    "emoji 🙂",
    "\udcff",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_a_hostile_name_becomes_one_plain_file_name(text: str, tmp_path: Path) -> None:
    name = safe_file_name(text)
    assert name and len(name) <= MAX_NAME
    assert "/" not in name and "\\" not in name and "\x00" not in name
    assert not name.startswith(".") and name not in (".", "..")
    assert name.split(".")[0].upper() not in ("CON", "NUL", "LPT1")
    target = path_inside(tmp_path, text, ".json")
    assert target.parent == tmp_path
    target.write_text("{}", encoding="utf-8")  # a name the file system takes
    assert [p.name for p in tmp_path.iterdir()] == [target.name]


def test_plain_names_are_kept_and_changed_names_do_not_collide() -> None:
    for plain in ("support", "car-rental-chatbot", "support-healthy", "v1.2_final", "été"):
        assert safe_file_name(plain) == plain
    changed = {safe_file_name(t) for t in ("a/b", "a\\b", "a:b", "a b", "a_b")}
    assert len(changed) == 5
    assert safe_file_name("../../escaped") == safe_file_name("../../escaped")  # deterministic
    assert safe_file_name("../../escaped").startswith("escaped-")


@given(st.text(max_size=300))
def test_any_text_gives_a_name_inside_the_folder(text: str) -> None:
    folder = Path("/reports")
    target = path_inside(folder, text, ".md")
    assert target.parent == folder
    assert target.name == safe_file_name(text) + ".md"
    assert target.resolve().parent == folder.resolve()


@pytest.mark.parametrize("name", ["../../escaped", "/tmp/anywhere", "</script>", "a/b/c"])
def test_evalmark_run_writes_its_reports_inside_the_report_dir(tmp_path: Path, name: str) -> None:
    suite = tmp_path / "suites" / "support"
    shutil.copytree(ROOT / "golden" / "support", suite)
    text = (suite / "suite.yaml").read_text(encoding="utf-8")
    (suite / "suite.yaml").write_text(
        text.replace("name: support", f"name: {name!r}", 1), encoding="utf-8"
    )
    reports = tmp_path / "suites" / "reports"
    before = {p for p in tmp_path.rglob("*")}
    code = main(["run", str(suite), "--build", "healthy", "--report-dir", str(reports), "-q"])
    assert code == 0
    written = {p for p in tmp_path.rglob("*")} - before
    assert written and all(p.parent == reports for p in written if p != reports), written
    assert sorted(p.suffix for p in reports.iterdir()) == [".html", ".json", ".md"]
    assert not Path("/tmp/anywhere-healthy.md").exists()
