"""Errors of the machine and the installation: a missing extra or compiled extension, an output
path that cannot be written, a plug-in that fails to load, the run history, the code sandbox, the
command line."""

from __future__ import annotations

from evalmark.errors._root import EvalmarkError

__all__ = [
    "CliError",
    "ExtensionNotBuiltError",
    "HistoryError",
    "OptionalDependencyError",
    "OutputPathError",
    "PluginError",
    "SandboxUnavailableError",
]


class OptionalDependencyError(EvalmarkError, ImportError):
    """An optional extra is needed for what was asked; the message says which to install."""

    def __init__(self, module: str, extra: str, purpose: str) -> None:
        super().__init__(
            f"{purpose} needs the {module!r} package: install it with "
            f"`pip install 'evalmark[{extra}]'`"
        )
        self.extra = extra


class ExtensionNotBuiltError(EvalmarkError, ImportError):
    """The compiled extension ``evalmark._core`` is missing from the installed package (a source
    tree that was never built), or, with ``stale``, was built from other sources than the Python
    code beside it; the message says how to build it or where to get a wheel."""

    def __init__(self, package_dir: str, *, stale: bool = False) -> None:
        where = (
            f"evalmark's compiled extension (evalmark._core) in {package_dir} was built from "
            "other sources than the Python code beside it (its type stub differs), so native "
            "functions the code calls may be missing or different: rebuild it"
            if stale
            else f"evalmark's compiled extension (evalmark._core) is not in {package_dir}"
        )
        super().__init__(
            f"{where}: in a source checkout run `make build` (it needs Rust's cargo, from "
            "https://rustup.rs), or install evalmark from a prebuilt wheel, which needs no "
            "compiler: `pip install dist/evalmark-*.whl` after `make wheel`, or "
            "`pip install --only-binary evalmark evalmark` from an index that has its wheels"
        )
        self.name = "evalmark._core"
        self.package_dir = package_dir
        self.stale = stale


class OutputPathError(EvalmarkError, OSError):
    """An output file cannot be written at the path given; the message names that path (never
    a temporary file) and what to do. ``filename`` is the path given."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.filename = path

    def __str__(self) -> str:
        return str(self.args[0])


class PluginError(EvalmarkError, RuntimeError):
    """An installed plug-in (an entry point of an ``evalmark.*`` group) failed to load."""


class HistoryError(EvalmarkError, RuntimeError):
    """The run history database cannot be opened, read or written; the message says why and
    what to do. Never changes a run's verdict: the command line reports it as a warning."""


class SandboxUnavailableError(EvalmarkError, RuntimeError):
    """A code sandbox cannot run on this machine (bubblewrap missing, namespaces refused, an
    interpreter the sandbox cannot reach); the message says which and what to do."""


class CliError(EvalmarkError):
    """A usage or input error of the command line: one line on stderr, exit code 2."""
