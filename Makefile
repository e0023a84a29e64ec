# Every target works from a fresh clone: it creates the virtual environment it needs.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
OUT    ?= out

.PHONY: setup demo test build-senpos build-plotcom build-outgen build-all bench outline-agreement clean

$(BIN)/lotdata: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

setup: $(BIN)/lotdata

demo: setup
	$(BIN)/lotdata demo --out $(OUT)/demo

test: setup
	$(BIN)/python -m pytest -q

build-senpos: setup
	$(BIN)/lotdata run senpos --out $(OUT)/sample

build-plotcom: setup
	$(BIN)/lotdata run plotcom --out $(OUT)/sample

build-outgen: setup
	$(BIN)/lotdata run outgen --out $(OUT)/sample

build-all: setup
	$(BIN)/lotdata run all --out $(OUT)/sample

bench: setup
	$(BIN)/python benchmarks/bench_builders.py --out bench/results.md
	$(BIN)/python benchmarks/bench_overlap.py --out bench/overlap.md

outline-agreement: setup
	$(BIN)/python benchmarks/outline_agreement.py

clean:
	rm -rf $(OUT) build dist *.egg-info .pytest_cache
