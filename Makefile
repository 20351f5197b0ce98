# Every target creates .venv and installs what it needs: nothing by hand.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-dev
CORE_STAMP := $(VENV)/.installed-core
DOCS_STAMP := $(VENV)/.installed-docs

.PHONY: demo test e2e lint typecheck docs bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The demo needs only the core dependencies (pydantic, rich, orjson); the tests need the dev extra.
$(CORE_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $(CORE_STAMP)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP) $(CORE_STAMP)

$(DOCS_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[docs]'
	touch $(DOCS_STAMP) $(CORE_STAMP)

demo: $(CORE_STAMP)
	$(BIN)/contextfold demo

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

typecheck: $(STAMP)
	$(BIN)/mypy

test: lint typecheck
	$(BIN)/python -m pytest -n auto --maxprocesses 4 --cov --cov-report=term:skip-covered --cov-fail-under=80

# End to end: the real Claude Code and Codex CLI (pinned in tests/e2e/agent_clients.py), installed from npm on first use
# into a cache outside the repository, run against scripted upstreams, direct and through `contextfold proxy`.
# Missing clients or (once src/contextfold/proxy/ exists) a proxy that does not start fail the target.
E2E_CLIENTS ?= $(or $(CONTEXTFOLD_E2E_CLIENTS),$(or $(XDG_CACHE_HOME),$(HOME)/.cache)/contextfold-e2e)
E2E_REQUIRE_PROXY ?= auto

e2e: $(STAMP)
	$(BIN)/python tests/e2e/install_clients.py --cache "$(E2E_CLIENTS)"
	CONTEXTFOLD_E2E_CLIENTS="$(E2E_CLIENTS)" CONTEXTFOLD_E2E_REQUIRE=1 CONTEXTFOLD_E2E_REQUIRE_PROXY=$(E2E_REQUIRE_PROXY) \
		$(BIN)/python -m pytest tests/e2e -m e2e -p no:cacheprovider -rs

# The documentation site (docs/, mkdocs.yml): every warning is an error. Output in site/ (not committed).
docs: $(DOCS_STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

# AgentScope 2.0.6 (the token-count peer) pins mcp<2, the dev extra needs mcp>=2: the peer gets a venv of its own.
PEER_VENV := .venv-agentscope
PEER_STAMP := $(PEER_VENV)/.installed-bench

$(PEER_STAMP): pyproject.toml
	$(PYTHON) -m venv $(PEER_VENV)
	$(PEER_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(PEER_VENV)/bin/python -m pip install --quiet -e '.[bench,bench-agentscope,tiktoken]'
	touch $(PEER_STAMP)

# The quick, self-contained benchmarks; each writes its section of benchmarks/results/, then BENCHMARKS.md is rebuilt.
# The corpus replays (bench_replay, bench_quality, check_corpus, calibrate) are documented in BENCHMARKS.md.
bench: $(STAMP) $(PEER_STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,bench]'
	$(PEER_VENV)/bin/python benchmarks/bench_count.py --out benchmarks/results/tokens.md
	$(BIN)/python benchmarks/bench_demo.py --write
	$(BIN)/python benchmarks/build_report.py

clean:
	rm -rf $(VENV) $(PEER_VENV) .pytest_cache .mypy_cache .ruff_cache site
