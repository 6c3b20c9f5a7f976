# Chaiwala — `make run` starts the whole stack, `make test` runs every test.
# Both set everything up first on a machine that has only Python 3.11.

PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
PROTO_SRC := $(shell find proto -name '*.proto')

export PYTHONPATH := $(CURDIR):$(CURDIR)/gen

.PHONY: setup proto run test test-fast lint bench clean seeds-india

setup: $(VENV)/.installed gen/.stamp

$(VENV)/.installed: pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip==26.3
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[local,codegen,dev,reports]'
	$(BIN)/python -c 'import pathlib, sysconfig; pathlib.Path(sysconfig.get_paths()["purelib"], "chaiwala-gen.pth").write_text("$(CURDIR)/gen\n")'
	touch $@

# Generated code lives in gen/ (git-ignored) and is never edited by hand.
proto: $(VENV)/.installed
	rm -rf gen && mkdir -p gen
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python -m grpc_tools.protoc -Iproto \
		--python_out=gen --grpc_python_out=gen --mypy_out=gen \
		$(PROTO_SRC)
	touch gen/.stamp

gen/.stamp: $(VENV)/.installed $(PROTO_SRC)
	$(MAKE) proto

run: setup
	$(BIN)/python -m services.common.supervisor

# Lint first: ruff and mypy clean is part of passing.
test: lint
	$(BIN)/python -m pytest -n 2 --dist worksteal -q

test-fast: setup
	$(BIN)/python -m pytest -q -m "not slow"

lint: setup
	$(BIN)/ruff check services gateway tests bench seeds
	$(BIN)/mypy

bench: setup
	$(BIN)/python -m bench

clean:
	rm -rf gen $(VENV) var .pytest_cache .mypy_cache .ruff_cache

# Regenerate the India Rails milepost map from real geography (output is committed).
seeds-india: setup
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[mapgen]'
	$(BIN)/python seeds/india_rails/build_map.py
