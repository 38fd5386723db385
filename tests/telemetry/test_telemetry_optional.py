"""evalmark imports and works without the ``otel`` extra, and says what to install."""

from __future__ import annotations

import subprocess
import sys

BLOCK = """
import sys


class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("opentelemetry", "prometheus_client"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, Block())
"""


def run(code: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", BLOCK + code], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_telemetry_works_without_opentelemetry_and_names_the_extra() -> None:
    out = run(
        """
import evalmark
import evalmark.telemetry as t
from evalmark.results._results import EvaluationResult
from evalmark.errors import OptionalDependencyError

tracer = t.RecordingTracer()
with t.scope(tracer):
    t.record_evaluation(EvaluationResult.passing(1.0), strategy="s")
with evalmark.monitor([lambda s, o: True], sample_rate=1.0, tracer=tracer) as watch:
    watch(str.upper)("x")
print(len(tracer))
for make in (t.OpenTelemetryTracer, t.prometheus_tracer, t.prometheus_text):
    try:
        make()
    except OptionalDependencyError as exc:
        print(isinstance(exc, ImportError), exc.extra, exc)
"""
    )
    assert out[0] == "2"
    assert out[1] == (
        "True otel OpenTelemetry telemetry needs the 'opentelemetry-api' package: install it "
        "with `pip install 'evalmark[otel]'`"
    )
    assert out[2].startswith("True otel Prometheus exposition needs the 'opentelemetry-")
    assert out[3].startswith("True otel Prometheus exposition needs the 'prometheus-client'")


def test_importing_telemetry_loads_neither_opentelemetry_nor_the_monitor() -> None:
    code = (
        "import sys, evalmark.telemetry\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('opentelemetry', 'prometheus_client', 'numpy')))\n"
        "print('evalmark.telemetry._sampling' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.splitlines() == ["[]", "False"]
