# `make demo` and `make test` each do all set-up on a fresh machine: they create
# .venv if it is absent and install the suite with its neural and test extras.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test lint bench docs clean system kernels

# Debian packages: GNU Go (the GTP tests, experiments/crosschecks/vs_gnugo.py) and Chromium (the browser tests).
system:
	@./scripts/system-packages.sh

# kaggle-environments (Kaggle's ConnectX runner, for the export-kaggle tests) comes without its
# dependencies: its other games pull in JAX, transformers and pygame; ConnectX needs none of them.
$(STAMP): pyproject.toml Makefile
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -e '.[neural,fast,jax,web,envs,openspiel,distributed,test]'
	$(BIN)/python -m pip install --quiet --no-deps 'kaggle-environments==1.33.2'
	touch $(STAMP)

# The numba kernels (playouts, the Go engine's search), compiled once into their disk
# cache: about a minute on a fresh checkout, a second or two after.
kernels: $(STAMP)
	$(BIN)/python scripts/compile_kernels.py

# The main job: a strength-per-compute tournament on Connect Four (about 4 minutes
# on 2 cores). Rerunning it resumes and plays no game twice.
demo: $(STAMP) kernels
	$(BIN)/python experiments/chapters/ch15_strength_per_compute.py --preset full --out reports/demo-connect4

# The layer contract (each layer imports only the layers below it), the linter and the type hints.
lint: $(STAMP)
	$(BIN)/lint-imports
	$(BIN)/ruff check
	$(BIN)/mypy

# pytest-xdist runs the test files on every core (one file's tests share a worker, so a
# module's fixtures are built once). pytest exits 5 when it collects no tests: not a failure.
TEST_WORKERS ?= auto
test: $(STAMP) system lint kernels
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile || [ $$? -eq 5 ]

# The benchmarks save their tables in reports/benchmarks/; `make docs` copies them
# (and every other measured figure) from reports/ into the README and docs/.
bench: $(STAMP) kernels
	$(BIN)/python benchmarks/playouts.py --seconds 5
	$(BIN)/python benchmarks/search.py
	$(BIN)/python benchmarks/predictor.py
	$(BIN)/python benchmarks/selfplay.py --before
	$(BIN)/python benchmarks/selfplay.py --tree-only
	$(BIN)/python benchmarks/selfplay.py --workers 2 --games 256 --parallel 128 --precision bfloat16
	$(BIN)/python benchmarks/inference.py
	$(BIN)/python benchmarks/web_engines.py --concurrent 31
	$(BIN)/python benchmarks/solver.py --positions 30
	$(BIN)/python benchmarks/bots.py
	$(BIN)/python scripts/docs_figures.py

docs: $(STAMP)
	$(BIN)/python scripts/docs_figures.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis .mypy_cache .import_linter_cache
