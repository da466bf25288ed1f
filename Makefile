# porter: two entry points for a fresh Debian 12 machine.
#   make demo   installs porter and the toolchains, ports every fixture, prints the reports
#   make test   installs the same and the CUDA libraries' headers, then runs the whole test suite (toolchain tests included)
# As root, the toolchains (clang-22 for gfx950, Debian's HIP headers) come from apt; otherwise
# install them yourself: apt-get install clang-22 lld-22 libamdhip64-dev.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# Every fixture project (folders that are inputs of other tests are not projects to port).
NOT_PROJECTS := golden rules reports toolchains hip_on_cuda verify
FIXTURES := $(filter-out $(NOT_PROJECTS),$(notdir $(patsubst %/,%,$(wildcard fixtures/*/))))
DEBS   := clang-22 lld-22 llvm-22 libamdhip64-dev libhiprand-dev librocrand-dev rocm-device-libs libomp-22-dev cmake

.PHONY: setup cudalibs toolchains demo lint typecheck test bench clean

setup: $(VENV)/.installed

# torch==2.13.0 first: pip takes the CPU build from this machine's disk; asked for through the
# [hipify] extra alone, a resolver could pull a multi-GB CUDA build instead.
$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e '.[dev,hipify,cluster]'
	touch $@

# Tests only: the CUDA libraries' headers ([cudalibs], about 1 GB of nvidia wheels), so that the
# hip-on-cuda library shims' compile test runs instead of skipping.
cudalibs: $(VENV)/.cudalibs
$(VENV)/.cudalibs: $(VENV)/.installed
	$(BIN)/pip install -q -e '.[cudalibs]'
	touch $@

toolchains:
	@if dpkg -s $(DEBS) >/dev/null 2>&1; then \
	  echo "toolchains: $(DEBS) present"; \
	elif [ "$$(id -u)" = 0 ]; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(DEBS); \
	else \
	  echo "toolchains: not root; install $(DEBS) to verify ports for gfx950" >&2; \
	fi

demo: setup toolchains
	@mkdir -p out
	@for f in $(FIXTURES); do \
	  rm -rf out/$$f; \
	  echo "== porter port fixtures/$$f -o out/$$f"; \
	  $(BIN)/porter port fixtures/$$f -o out/$$f; \
	  echo "   exit status $$? (0 ported and verified, 1 open hazards or failures)"; \
	done
	@echo "reports: out/*/porter-report.md"

# ruff's settings are [tool.ruff] in pyproject.toml (fixtures/ and bench/ excluded there).
lint: setup
	$(BIN)/ruff check porter agents prompts shims tests

# mypy resolves imports by directory, and the wheel maps agents/, prompts/ and shims/ under porter.
# (pyproject's package-dir): check a link tree laid out the same way.
TYPECHECK := build/typecheck
typecheck: setup
	rm -rf $(TYPECHECK)/porter && mkdir -p $(TYPECHECK)/porter
	for e in porter/*; do ln -s "$(CURDIR)/$$e" $(TYPECHECK)/porter/; done
	ln -s "$(CURDIR)/agents" $(TYPECHECK)/porter/agents
	ln -s "$(CURDIR)/prompts" $(TYPECHECK)/porter/prompts
	ln -s "$(CURDIR)/shims" $(TYPECHECK)/porter/shims
	cd $(TYPECHECK) && $(CURDIR)/$(BIN)/mypy --config-file $(CURDIR)/pyproject.toml \
	  --python-executable $(CURDIR)/$(BIN)/python -p porter

test: setup cudalibs toolchains lint typecheck
	$(BIN)/pytest -q

bench: setup
	$(BIN)/python bench/translate.py

clean:
	rm -rf out build dist
