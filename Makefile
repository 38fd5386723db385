# evalmark developer commands. `make help` lists them.
VENV ?= .venv
PY := $(VENV)/bin/python
EXTRAS ?= dev,arrow,ray,plot,progress

.DEFAULT_GOAL := help

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-8s %s\n", $$1, $$2}'

dev: ## create .venv, install the dependencies and build the extension (release)
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip maturin
	$(VENV)/bin/maturin develop --release -q -E $(EXTRAS)

demo: dev ## run the main job: the offline support suite, healthy build (exit 0)
	$(VENV)/bin/evalmark run golden/support --build healthy

demo-all: dev ## every bundled job, each with the exit code it must give
	$(VENV)/bin/evalmark run golden/support --build healthy
	$(VENV)/bin/evalmark run golden/support --build regressed -q; test $$? -eq 1
	$(VENV)/bin/evalmark run golden/car-rental -q
	$(VENV)/bin/evalmark tune golden/support --flip 0.03,0.08 > /dev/null
	$(VENV)/bin/evalmark score golden/metrics/pairs.jsonl --metrics token_f1,rouge_l,levenshtein,json_match

test: dev ## run the Rust and Python test suites
	cargo test --release --quiet
	$(VENV)/bin/pytest -q

lint: dev ## formatting, lints and type checks for Rust and Python
	cargo fmt --check
	cargo clippy --release --all-targets --quiet -- -D warnings
	$(VENV)/bin/ruff check python tests bench tools
	$(VENV)/bin/ruff format --check python tests bench tools
	$(VENV)/bin/mypy
	$(PY) -m mypy.stubtest evalmark._core --ignore-missing-stub

bench: dev ## print throughput and ratios against the peer libraries (never fails a build)
	$(PY) bench/metrics.py
	$(PY) bench/scorer.py
	$(PY) bench/samples.py
	$(PY) bench/cassette.py
	$(PY) bench/noise.py

.PHONY: help dev demo demo-all test lint bench
