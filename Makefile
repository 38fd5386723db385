# evalmark developer commands. `make help` lists them.
# Each target installs only what it needs, once: the build is redone only when the Rust sources,
# Cargo files or pyproject.toml change, and each group of extras only when pyproject.toml does.
VENV ?= .venv
PY := $(VENV)/bin/python
TEST_EXTRAS ?= dev,arrow,ray,plot,browser,embeddings
RUST_SOURCES := $(shell find rust -name '*.rs') Cargo.toml Cargo.lock
STAMP := $(VENV)/.stamp

.DEFAULT_GOAL := help

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-13s %s\n", $$1, $$2}'

$(PY):
	@echo "creating $(VENV)"
	@python3 -m venv $(VENV)
	@$(PY) -m pip install -q --disable-pip-version-check --upgrade pip maturin

# the package with its core dependencies only (numpy, msgspec, pyyaml), extension in release mode
$(STAMP)-build: $(PY) $(RUST_SOURCES) pyproject.toml
	@echo "building the evalmark extension (release)"
	@$(VENV)/bin/maturin develop --release -q > $(VENV)/build.log 2>&1 || { cat $(VENV)/build.log; exit 1; }
	@touch $@

# the extras the tests, lints and benchmarks use
$(STAMP)-extras: $(STAMP)-build pyproject.toml
	@echo "installing the test extras ($(TEST_EXTRAS))"
	@$(PY) tools/requirements.py $(subst $(comma), ,$(TEST_EXTRAS)) \
		| $(PY) -m pip install -q --disable-pip-version-check -r /dev/stdin
	@touch $@

comma := ,

# The real producers (inspect_ai, DeepEval, Ragas: the `producers` extra) in a venv of their own:
# their pins (Ragas' instructor holds openai back) and pytest plugins stay out of the test venv.
# evalmark is not installed there: tests/interop/test_real_producers.py runs the producers with
# EVALMARK_PRODUCERS_PYTHON=$(PRODUCERS_VENV)/bin/python and this checkout's python/ on PYTHONPATH.
PRODUCERS_VENV ?= .venv-producers

$(PRODUCERS_VENV)/.stamp: pyproject.toml
	@echo "installing the producers into $(PRODUCERS_VENV)"
	@python3 -m venv $(PRODUCERS_VENV)
	@$(PRODUCERS_VENV)/bin/python -m pip install -q --disable-pip-version-check --upgrade pip
	@$(PRODUCERS_VENV)/bin/python tools/requirements.py --core producers \
		| $(PRODUCERS_VENV)/bin/python -m pip install -q --disable-pip-version-check -r /dev/stdin
	@touch $@

$(STAMP)-docs: $(STAMP)-build pyproject.toml
	@$(PY) tools/requirements.py docs | $(PY) -m pip install -q --disable-pip-version-check -r /dev/stdin
	@touch $@

build: $(STAMP)-build ## build the package into .venv (core dependencies only)

dev: $(STAMP)-extras ## build, and install every extra the tests and lints use

producers: $(PRODUCERS_VENV)/.stamp ## the real producers in their own venv (the interop tests run them)

demo: build ## run the main job: the offline support suite, healthy build (exit 0)
	$(VENV)/bin/evalmark run golden/support --build healthy

demo-all: build ## every bundled job, each with the exit code it must give
	$(VENV)/bin/evalmark run golden/support --build healthy
	$(VENV)/bin/evalmark run golden/support --build regressed -q; test $$? -eq 1
	$(VENV)/bin/evalmark run golden/car-rental -q
	$(VENV)/bin/evalmark run golden/support-chat --build healthy -q
	$(VENV)/bin/evalmark run golden/support-chat --build regressed -q; test $$? -eq 1
	$(VENV)/bin/evalmark tune golden/support --flip 0.03,0.08 > /dev/null
	$(VENV)/bin/evalmark score golden/metrics/pairs.jsonl --metrics token_f1,rouge_l,levenshtein_similarity,json_match
	$(VENV)/bin/evalmark code run golden/code -q
	$(VENV)/bin/evalmark run golden/traces -q
	$(VENV)/bin/evalmark traces check golden/traces/agent.otlp.jsonl > /dev/null; test $$? -eq 1
	$(VENV)/bin/evalmark judge calibrate golden/judge-calibration/labels.jsonl --judge cassette:golden/judge-calibration/judge.jsonl --rates-out out/judge-rates.json

# pytest lists its 25 slowest tests; the last line is the wall time of both suites together
test: dev ## run the Rust and Python test suites
	@start=$$(date +%s); \
	echo "cargo test --release --quiet"; cargo test --release --quiet && \
	echo "$(VENV)/bin/pytest -q -n 2 --durations=25" && $(VENV)/bin/pytest -q -n 2 --durations=25; \
	code=$$?; took=$$(( $$(date +%s) - start )); \
	printf 'make test: the Rust and Python suites took %d:%02d (exit %d)\n' $$((took / 60)) $$((took % 60)) $$code; \
	exit $$code

# every Hypothesis test (Hypothesis marks them) with ten times the examples of the ci profile,
# each test's own count scaled too (tests/budget.py); a test may take ten times longer
test-deep: dev ## the property tests with ten times more examples (Hypothesis profile deep)
	HYPOTHESIS_PROFILE=deep $(VENV)/bin/pytest -q -n 2 -m hypothesis --timeout=3000 --durations=10

lint: dev ## formatting, lints and type checks for Rust and Python
	cargo fmt --check
	cargo clippy --release --all-targets --quiet -- -D warnings
	$(VENV)/bin/ruff check python tests bench tools
	$(VENV)/bin/ruff format --check python tests bench tools
	$(VENV)/bin/mypy
	$(PY) -m mypy.stubtest evalmark._core --ignore-missing-stub
	$(VENV)/bin/lint-imports

docs: $(STAMP)-docs ## build the user guide and API reference into build/site (strict: warnings fail)
	$(VENV)/bin/mkdocs build --strict -q

docs-outputs: dev ## rewrite the command outputs shown in README.md and docs/ from the real commands
	$(PY) tools/docs_outputs.py

docs-check: dev ## fail when an output shown in README.md or docs/ differs from what its command prints
	$(PY) tools/docs_outputs.py --check

# an abi3 wheel (one file for every CPython >= 3.11 on this platform) and an sdist, into dist/;
# the wheel installs with pip on a machine that has no Rust toolchain. (pip does build with
# maturin, through build_backend/: maturin's warning that it would not is silenced.)
wheel: export MATURIN_NO_MISSING_BUILD_BACKEND_WARNING = 1
wheel: $(PY) ## build a release abi3 wheel and an sdist into dist/
	@rm -f dist/evalmark-*
	$(VENV)/bin/maturin build --release --out dist
	$(VENV)/bin/maturin sdist --out dist

bench: dev ## print throughput and ratios against the peer libraries (never fails a build)
	$(PY) bench/metrics.py
	$(PY) bench/metric_options.py
	$(PY) bench/scorer.py
	$(PY) bench/samples.py
	$(PY) bench/cassette.py
	$(PY) bench/noise.py
	$(PY) bench/history.py
	$(PY) bench/pytest_startup.py

# each row of the README's "Where evalmark stands against its goals" table, one after another in
# one session, so that every ratio in it comes from the same machine state
bench-goals: dev ## the benchmarks behind the README's speed-goals table, in one run
	$(PY) bench/levenshtein_lengths.py
	$(PY) bench/levenshtein_lengths.py --variants
	$(PY) bench/cosine_matrix.py
	$(PY) bench/metrics.py
	$(PY) bench/text_kernels.py
	$(PY) bench/limits.py --quick
	$(PY) bench/engine_batch.py
	$(PY) bench/score_end_to_end.py --n 200000
	$(PY) bench/report_render.py
	$(PY) bench/history_append.py
	$(PY) bench/nlg_metrics.py
	$(PY) bench/retrieval.py
	$(PY) bench/traces_read.py
	$(PY) bench/import_rescore.py

.PHONY: help build dev producers demo demo-all test test-deep lint docs docs-outputs docs-check bench bench-goals wheel
