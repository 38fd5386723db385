"""``evalmark.errors`` stays the one import path of every exception after its split into
submodules: each name is there, reports ``evalmark.errors`` as its module, and pickles."""

from __future__ import annotations

import importlib
import pickle
import pkgutil

import evalmark.errors as errors


def test_every_public_name_is_an_attribute_reporting_the_one_module() -> None:
    for name in errors.__all__:
        value = getattr(errors, name)
        assert value.__module__ == "evalmark.errors", name


def test_every_exception_of_the_submodules_is_exported_under_the_root() -> None:
    found = set()
    for info in pkgutil.iter_modules(errors.__path__):
        module = importlib.import_module(f"evalmark.errors.{info.name}")
        found.update(module.__all__)
    assert found == set(errors.__all__)
    for name in found - {"Problem"}:
        assert issubclass(getattr(errors, name), errors.EvalmarkError), name


def test_errors_pickle_by_the_one_path() -> None:
    blocked = errors.NetworkBlockedError(
        host="2001:db8::1",
        port=443,
        operation="connect",
        location="app.py:3 (f)",
        reason="replay mode",
        hint="record it",
    )
    back = pickle.loads(pickle.dumps(blocked))
    assert type(back) is errors.NetworkBlockedError
    assert back.target == "[2001:db8::1]:443"
    assert str(back) == str(blocked)
    sample = pickle.loads(pickle.dumps(errors.SampleError([errors.Problem("bad", "a.yaml", 3)])))
    assert str(sample) == "a.yaml:3: bad"
    assert b"evalmark.errors._data" not in pickle.dumps(errors.SuiteError("x"))


def test_the_target_without_a_port_and_for_ipv4() -> None:
    assert errors.NetworkBlockedError.format_target("unix:/tmp/s", None) == "unix:/tmp/s"
    assert errors.NetworkBlockedError.format_target("10.0.0.1", 80) == "10.0.0.1:80"
