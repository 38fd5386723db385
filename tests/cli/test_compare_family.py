"""``evalmark compare --adjust holm|bh``: each check and tag compared, p-values adjusted for the
family; the raw p-values are checked with scipy's binomial test (exact McNemar) and the
adjusted ones with statsmodels' multipletests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scipy.stats import binomtest
from statsmodels.stats.multitest import multipletests

from evalmark.cli import main
from evalmark.models._modes import MODE_ENV

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = ROOT / "golden" / "support"


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv(MODE_ENV, raising=False)


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    out = tmp_path_factory.mktemp("family")
    run = ["run", str(SUPPORT), "--build", "healthy", "--report-dir", str(out), "--no-history"]
    assert main([*run, "-q"]) == 0
    healthy = out / "support-healthy.json"
    document = json.loads(healthy.read_text())
    for sample in document["samples"]:  # a build whose relevancy check fails every case
        sample["results"]["relevancy"].update(passed=False, score=0.0)
    broken = out / "broken.json"
    broken.write_text(json.dumps(document))
    return healthy, broken


def _expected(rows: list[dict], method: str) -> list[float]:
    raw = []
    for row in rows:
        n = row["worse"] + row["better"]
        raw.append(1.0 if n == 0 else binomtest(row["worse"], n, 0.5).pvalue)
    assert [r["p_value"] for r in rows] == pytest.approx(raw)
    return list(multipletests(raw, method=method)[1])


@pytest.mark.parametrize(
    ("flag", "theirs", "words"),
    [
        ("holm", "holm", "Holm's step-down method (controls the family-wise error rate)"),
        ("bh", "fdr_bh", "Benjamini–Hochberg (controls the false discovery rate)"),
    ],
)
def test_each_check_and_tag_with_adjusted_p_values(
    capsys: pytest.CaptureFixture[str],
    reports: tuple[Path, Path],
    flag: str,
    theirs: str,
    words: str,
) -> None:
    healthy, broken = reports
    code = main(["compare", str(healthy), str(broken), "--adjust", flag, "--format", "json"])
    family = json.loads(capsys.readouterr().out)["family"]
    assert code == 0 and family["adjustment"] == flag
    rows = family["rows"]
    assert rows[0]["comparison"].startswith("check ") and rows[-1]["comparison"].startswith("tag ")
    assert [r["adjusted_p_value"] for r in rows] == pytest.approx(_expected(rows, theirs))
    relevancy = next(r for r in rows if r["comparison"] == "check relevancy")
    assert (relevancy["worse"], relevancy["better"], relevancy["verdict"]) == (12, 0, "worse")
    assert relevancy["p_value"] == pytest.approx(2 / 2**12)
    code = main(["compare", str(healthy), str(broken), "--adjust", flag, "--fail-if-worse"])
    out = capsys.readouterr().out
    assert code == 1
    assert f"p-values adjusted by {words}, at α = 0.05" in out
    assert "check relevancy" in out and "B worse" in out


def test_without_the_flag_the_output_is_as_before(
    capsys: pytest.CaptureFixture[str], reports: tuple[Path, Path]
) -> None:
    healthy, broken = reports
    main(["compare", str(healthy), str(broken), "--format", "json"])
    assert "family" not in json.loads(capsys.readouterr().out)
    main(["compare", str(healthy), str(broken)])
    assert "adjusted" not in capsys.readouterr().out
