"""evalmark's PEP 517 build backend: maturin's, behind a check that Rust's cargo is on PATH.

Without cargo, maturin's backend asks the installer for an extra build requirement and uses it
to download a whole Rust toolchain into a temporary folder, silently and for minutes. This
backend stops first, in every hook, with a message that says what to install instead. With
cargo present every hook is maturin's own, unchanged.

``pyproject.toml`` names it through ``backend-path``, so it ships in the source tree and the
sdist and needs nothing but maturin, the one build requirement.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from typing import Any

import maturin

NO_CARGO = """
evalmark: building from source needs Rust's cargo on PATH, and none was found.
Either
  - install evalmark from a prebuilt wheel, which needs no compiler: `make wheel` on a machine
    with Rust, then `pip install dist/evalmark-*.whl`; or, from an index that has its wheels,
    `pip install --only-binary evalmark evalmark`; or
  - install Rust with rustup (https://rustup.rs), open a new shell so that cargo is on PATH,
    and run the same install again.
evalmark does not download a Rust toolchain by itself.
"""


def require_cargo() -> None:
    """Exit with the install advice when no ``cargo`` is on PATH; return otherwise."""
    if shutil.which("cargo") is None:
        sys.stderr.write(NO_CARGO)
        sys.stderr.flush()
        raise SystemExit(1)
    # maturin warns when `build-backend` is not its own; this one is maturin's, behind a check
    os.environ.setdefault("MATURIN_NO_MISSING_BUILD_BACKEND_WARNING", "1")


Settings = Mapping[str, Any] | None


def get_requires_for_build_wheel(config_settings: Settings = None) -> list[str]:
    """The extra build requirements of a wheel (never a toolchain download)."""
    require_cargo()
    return list(maturin.get_requires_for_build_wheel(config_settings))


def get_requires_for_build_editable(config_settings: Settings = None) -> list[str]:
    """The extra build requirements of an editable install."""
    require_cargo()
    return list(maturin.get_requires_for_build_editable(config_settings))


def get_requires_for_build_sdist(config_settings: Settings = None) -> list[str]:
    """The extra build requirements of an sdist (maturin reads the crate with cargo)."""
    require_cargo()
    return list(maturin.get_requires_for_build_sdist(config_settings))


def prepare_metadata_for_build_wheel(
    metadata_directory: str, config_settings: Settings = None
) -> str:
    """Write the wheel's metadata (maturin reads the crate with cargo)."""
    require_cargo()
    return str(maturin.prepare_metadata_for_build_wheel(metadata_directory, config_settings))


def prepare_metadata_for_build_editable(
    metadata_directory: str, config_settings: Settings = None
) -> str:
    """Write an editable install's metadata."""
    require_cargo()
    return str(maturin.prepare_metadata_for_build_editable(metadata_directory, config_settings))


def build_wheel(
    wheel_directory: str, config_settings: Settings = None, metadata_directory: str | None = None
) -> str:
    """Compile the extension and build the wheel."""
    require_cargo()
    return str(maturin.build_wheel(wheel_directory, config_settings, metadata_directory))


def build_editable(
    wheel_directory: str, config_settings: Settings = None, metadata_directory: str | None = None
) -> str:
    """Compile the extension and build an editable wheel."""
    require_cargo()
    return str(maturin.build_editable(wheel_directory, config_settings, metadata_directory))


def build_sdist(sdist_directory: str, config_settings: Settings = None) -> str:
    """Build the source distribution."""
    require_cargo()
    return str(maturin.build_sdist(sdist_directory, config_settings))
