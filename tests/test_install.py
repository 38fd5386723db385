"""Installing without a compiler: a package tree without the compiled extension says how to
build it; a source build without cargo stops with advice before anything is downloaded; the
wheel target and the release workflow build what they claim."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tomllib
import zlib
from pathlib import Path
from typing import Any

import pytest
import yaml

import evalmark

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 120  # seconds for any one subprocess; each takes a few when the machine is idle


def copy_without_extension(tmp_path: Path) -> Path:
    """A copy of the evalmark package with no compiled ``_core``, as a tree never built."""
    package = Path(evalmark.__file__).parent
    target = tmp_path / "site" / "evalmark"
    shutil.copytree(
        package, target, ignore=shutil.ignore_patterns("_core.*.so", "_core.*.pyd", "__pycache__")
    )
    assert not list(target.glob("_core.*.so")) and not list(target.glob("_core.*.pyd"))
    return target.parent


def run_unbuilt(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python args`` in a fresh interpreter that imports evalmark from ``site`` only."""
    env = {**os.environ, "PYTHONPATH": str(site)}
    return subprocess.run(
        [sys.executable, *args],
        cwd=site,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


def test_an_unbuilt_tree_raises_an_import_error_that_says_how_to_build(tmp_path: Path) -> None:
    site = copy_without_extension(tmp_path)
    code = (
        "import evalmark\n"
        f"assert evalmark.__file__.startswith({str(site)!r}), evalmark.__file__\n"
        "for use in ('from evalmark.metrics import token_f1', 'evalmark.metrics.token_f1', "
        "'evalmark.__version__'):\n"
        "    try:\n"
        "        exec(use)\n"
        "    except ImportError as exc:\n"
        "        print(type(exc).__name__, exc.name, '|', exc)\n"
        "    else:\n"
        "        print('no error')\n"
    )
    done = run_unbuilt(site, "-c", code)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 3
    for line in lines:
        kind, message = line.split(" | ")
        assert kind == "ExtensionNotBuiltError evalmark._core"
        assert str(site / "evalmark") in message
        assert "`make build`" in message
        assert "https://rustup.rs" in message
        assert "pip install dist/evalmark-*.whl" in message


def test_the_command_line_of_an_unbuilt_tree_prints_one_line_and_exits_2(tmp_path: Path) -> None:
    site = copy_without_extension(tmp_path)
    pairs = ROOT / "golden" / "metrics" / "pairs.jsonl"
    done = run_unbuilt(site, "-m", "evalmark", "score", str(pairs), "--metrics", "token_f1")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith("evalmark score: error: evalmark's compiled extension")
    assert "`make build`" in done.stderr


def test_errors_of_other_missing_modules_are_not_relabelled(tmp_path: Path) -> None:
    site = copy_without_extension(tmp_path)
    built = importlib.util.find_spec("evalmark._core")
    assert built is not None and built.origin is not None
    shutil.copy(built.origin, site / "evalmark")
    (site / "evalmark" / "metrics" / "_args.py").write_text("import no_such_module_xyz\n")
    done = run_unbuilt(site, "-c", "from evalmark.metrics import token_f1")
    assert done.returncode == 1
    assert "ModuleNotFoundError: No module named 'no_such_module_xyz'" in done.stderr
    assert "make build" not in done.stderr


def copy_with_a_changed_stub(tmp_path: Path) -> Path:
    """A copy of the evalmark package with the built extension and a type stub that differs
    from the one it was built with, as after editing the stub (or pulling) without rebuilding."""
    site = copy_without_extension(tmp_path)
    built = importlib.util.find_spec("evalmark._core")
    assert built is not None and built.origin is not None
    shutil.copy(built.origin, site / "evalmark")
    stub = site / "evalmark" / "_core.pyi"
    stub.write_text(stub.read_text(encoding="utf-8") + "\ndef added_later() -> None: ...\n")
    return site


def test_the_built_extension_carries_the_checksum_of_the_stub_it_was_built_with() -> None:
    from evalmark.metrics._native import core

    stub = Path(evalmark.__file__).parent / "_core.pyi"
    assert zlib.crc32(stub.read_bytes()) == core.STUB_CRC32


def test_a_stale_extension_is_refused_with_advice_to_rebuild(tmp_path: Path) -> None:
    site = copy_with_a_changed_stub(tmp_path)
    code = (
        "try:\n"
        "    from evalmark.metrics import token_f1\n"
        "except ImportError as exc:\n"
        "    print(type(exc).__name__, exc.stale, '|', exc)\n"
        "else:\n"
        "    print('no error')\n"
    )
    done = run_unbuilt(site, "-c", code)
    assert done.returncode == 0, done.stderr
    kind, message = done.stdout.strip().split(" | ")
    assert kind == "ExtensionNotBuiltError True"
    assert str(site / "evalmark") in message
    assert "built from other sources" in message
    assert "`make build`" in message


def test_the_command_line_of_a_stale_build_prints_one_line_and_exits_2(tmp_path: Path) -> None:
    site = copy_with_a_changed_stub(tmp_path)
    pairs = ROOT / "golden" / "metrics" / "pairs.jsonl"
    done = run_unbuilt(site, "-m", "evalmark", "score", str(pairs), "--metrics", "token_f1")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1
    assert "built from other sources" in done.stderr


def test_an_installation_without_the_stub_is_not_judged(tmp_path: Path) -> None:
    from evalmark.metrics._native import stub_matches

    assert stub_matches(str(tmp_path / "missing.pyi"), 123)
    (tmp_path / "stub.pyi").write_bytes(b"x: int\n")
    assert stub_matches(str(tmp_path / "stub.pyi"), zlib.crc32(b"x: int\n"))
    assert not stub_matches(str(tmp_path / "stub.pyi"), zlib.crc32(b"x: str\n"))


def _imports_of_the_extension(path: Path) -> list[int]:
    """Lines of ``path`` that import ``evalmark._core`` other than for type checking."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    checking: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            checking.update(id(n) for child in node.body for n in ast.walk(child))
    lines = []
    for node in ast.walk(tree):
        if id(node) in checking:
            continue
        from_core = isinstance(node, ast.ImportFrom) and (
            node.module == "evalmark._core"
            or (node.module == "evalmark" and any(a.name == "_core" for a in node.names))
        )
        if from_core or (
            isinstance(node, ast.Import) and any(a.name == "evalmark._core" for a in node.names)
        ):
            lines.append(node.lineno)
    return lines


def test_the_extension_is_imported_only_where_a_stale_build_is_refused() -> None:
    package = Path(evalmark.__file__).parent
    native = package / "metrics" / "_native.py"
    found = {
        str(path.relative_to(package)): lines
        for path in sorted(package.rglob("*.py"))
        if path != native and (lines := _imports_of_the_extension(path))
    }
    assert found == {}, "import the extension through evalmark.metrics._native"
    assert _imports_of_the_extension(native)


def without_rust() -> dict[str, str]:
    """The environment with every folder holding cargo or rustc off PATH and no way to the
    network: any HTTP(S) request goes through a proxy on a closed local port."""
    keep = [
        folder
        for folder in os.environ.get("PATH", "").split(os.pathsep)
        if folder
        and Path(folder).resolve() != (Path.home() / ".cargo" / "bin").resolve()
        and shutil.which("cargo", path=folder) is None
        and shutil.which("rustc", path=folder) is None
    ]
    path = os.pathsep.join(keep)
    assert shutil.which("cargo", path=path) is None
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MATURIN_", "CARGO", "RUST"))}
    closed = "http://127.0.0.1:9"
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        env[name] = env[name.lower()] = closed
    env.pop("NO_PROXY", None)
    env.pop("no_proxy", None)
    env["PATH"] = path
    return env


HOOKS = {
    "get_requires_for_build_wheel": (),
    "get_requires_for_build_editable": (),
    "get_requires_for_build_sdist": (),
    "prepare_metadata_for_build_wheel": ("meta",),
    "prepare_metadata_for_build_editable": ("meta",),
    "build_wheel": ("out",),
    "build_editable": ("out",),
    "build_sdist": ("out",),
}


def test_every_backend_hook_stops_without_cargo_before_any_download(tmp_path: Path) -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    system = pyproject["build-system"]
    code = (
        "import sys\n"
        f"sys.path[:0] = {[str(ROOT / p) for p in system['backend-path']]!r}\n"
        f"import {system['build-backend']} as backend\n"
        f"for hook, args in {HOOKS!r}.items():\n"
        "    try:\n"
        "        getattr(backend, hook)(*args)\n"
        "    except SystemExit as exc:\n"
        "        print(hook, exc.code)\n"
        "print('puccinialin' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=without_rust(),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [f"{hook} 1" for hook in HOOKS] + ["False"]
    assert done.stderr.count("needs Rust's cargo on PATH") == len(HOOKS)
    assert not list(tmp_path.iterdir())


def test_pip_install_from_source_without_cargo_stops_and_says_what_to_install(
    tmp_path: Path,
) -> None:
    # pip runs the package's build backend (offline: no index, no isolated build environment)
    pip = [sys.executable, "-m", "pip", "wheel", "--no-index", "--no-build-isolation"]
    done = subprocess.run(
        [*pip, "--no-cache-dir", "--no-deps", "-w", str(tmp_path), str(ROOT)],
        cwd=tmp_path,
        env=without_rust(),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    output = done.stdout + done.stderr
    assert done.returncode != 0
    assert "evalmark: building from source needs Rust's cargo on PATH" in output
    assert "https://rustup.rs" in output
    assert "pip install dist/evalmark-*.whl" in output
    assert "Rust not found, installing" not in output
    assert not list(tmp_path.iterdir())


def test_make_wheel_builds_a_release_abi3_wheel_and_an_sdist_into_dist() -> None:
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    done = subprocess.run(
        ["make", "-n", "wheel", "VENV=venv-not-made"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=True,
    )
    commands = done.stdout.splitlines()
    assert "venv-not-made/bin/maturin build --release --out dist" in commands
    assert "venv-not-made/bin/maturin sdist --out dist" in commands
    cargo = (ROOT / "Cargo.toml").read_text()
    assert 'features = ["abi3-py311"]' in cargo


def test_the_release_workflow_builds_wheels_on_three_systems_and_an_sdist() -> None:
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "release.yml").read_text())
    jobs = workflow["jobs"]
    wheels = jobs["wheels"]
    assert wheels["runs-on"] == "${{ matrix.os }}"
    systems = {entry["os"].split("-")[0] for entry in wheels["strategy"]["matrix"]["include"]}
    assert systems == {"ubuntu", "macos", "windows"}

    def maturin_step(job: dict[str, Any]) -> dict[str, Any]:
        (step,) = [
            s for s in job["steps"] if str(s.get("uses", "")).startswith("PyO3/maturin-action@")
        ]
        return step

    built = maturin_step(wheels)["with"]
    assert built["command"] == "build"
    assert "--release" in built["args"].split()
    assert maturin_step(jobs["sdist"])["with"]["command"] == "sdist"
    for job in (wheels, jobs["sdist"]):
        assert any(
            str(s.get("uses", "")).startswith("actions/upload-artifact@") for s in job["steps"]
        )


def test_ci_installs_the_wheel_without_rust_before_the_test_suite() -> None:
    steps = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line]
    assert steps[-4:] == ["make wheel", ".ci/wheel-check", "make producers", "make test"]
    check = (ROOT / ".ci" / "wheel-check").read_text()
    assert 'python3 -m venv "$work/venv"' in check
    assert '"$work/venv/bin/evalmark" run golden/support --build healthy \\\n' in check
    assert "--only-binary :all:" in check
