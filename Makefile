# Every target works from a fresh clone: it creates the virtual environment it needs.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
OUT    ?= out
# Label Studio lives in its own venv: it pins pyarrow<25 and other packages lotdata must not inherit.
LS_VENV    ?= .venv-labelstudio
LS_BIN     := $(LS_VENV)/bin/label-studio
LS_VERSION ?= 1.23.2
LS_PORT    ?= 8080
# datatrove, the peer `clean` is measured beside (bench/sources.md), in a venv of its own
DT_VENV    ?= .venv-datatrove
DT_BIN     := $(DT_VENV)/bin/python
DT_VERSION ?= 0.10.1

.PHONY: core extras setup demo test browser-deps labelstudio labelstudio-venv build-senpos build-plotcom build-outgen build-all bench outline-agreement docs docs-build docs-images clean

# Two stamps: the core install (what `make demo` and the builds need: no torch, no Label Studio client)
# and the test extras on top of it (what `make test` and `make bench` need).
CORE_STAMP := $(VENV)/.lotdata-core
TEST_STAMP := $(VENV)/.lotdata-test

$(CORE_STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e .
	touch $@

$(TEST_STAMP): pyproject.toml $(CORE_STAMP)
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

core: $(CORE_STAMP)

# the extras the real job needs, into the same venv from this checkout: make extras EXTRAS=sources,audit
EXTRAS ?= sources,audit
extras: $(CORE_STAMP)
	$(BIN)/pip install --quiet -e '.[$(EXTRAS)]'

setup: $(TEST_STAMP)

demo: $(CORE_STAMP)
	$(BIN)/lotdata demo --out $(OUT)/demo

# The browser test drives Debian's chromium through chromium-driver (CI runs as root; elsewhere it asks for sudo).
BROWSER_PACKAGES := chromium chromium-driver fonts-noto-cjk

browser-deps:
	@command -v chromedriver >/dev/null 2>&1 || { \
	  SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $(BROWSER_PACKAGES); }

# The three installs are independent: made side by side. The suite runs on TEST_WORKERS processes (pytest-xdist), a
# file per worker at a time so a module's fixtures (a Label Studio server, a browser) start once.
TEST_WORKERS ?= 2
test:
	$(MAKE) --no-print-directory -j3 setup $(LS_BIN) browser-deps
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile

build-senpos: $(CORE_STAMP)
	$(BIN)/lotdata run senpos --out $(OUT)/sample

build-plotcom: $(CORE_STAMP)
	$(BIN)/lotdata run plotcom --out $(OUT)/sample

build-outgen: $(CORE_STAMP)
	$(BIN)/lotdata run outgen --out $(OUT)/sample

build-all: $(CORE_STAMP)
	$(BIN)/lotdata run all --out $(OUT)/sample

bench: setup $(LS_BIN) $(DT_BIN)
	$(BIN)/python benchmarks/bench_builders.py --out bench/results.md
	$(BIN)/python benchmarks/bench_outline.py --out bench/outline.md
	$(BIN)/python benchmarks/bench_build.py --out bench/build.md
	$(BIN)/python benchmarks/bench_build_exec.py --out bench/build_exec.md
	$(BIN)/python benchmarks/bench_models.py --out bench/models.md
	$(BIN)/python benchmarks/bench_annotate.py --out bench/annotate.md
	$(BIN)/python benchmarks/bench_audit.py --out bench/audit.md
	LOTDATA_DATATROVE_PYTHON=$(DT_BIN) $(BIN)/python benchmarks/bench_sources.py --out bench/sources.md
	$(BIN)/python benchmarks/bench_overlap.py --out bench/overlap.md
	$(BIN)/python benchmarks/bench_long_lines.py --out bench/overlap_long_lines.md
	$(BIN)/pip install --quiet 'infini-gram>=2.6' 'tokengrams>=0.3'  # the bench extra: peers of bench/index.md
	$(BIN)/python benchmarks/bench_index.py --out bench/index.md --mb 1000 --peer-mb 200
	$(BIN)/pip install -q 'datacompy>=1.1,<2'  # the peer of bench_diff, not a dependency of lotdata
	$(BIN)/python benchmarks/bench_diff.py --out bench/diff.md
	$(BIN)/python benchmarks/conventions.py --out bench/conventions.md  # the published data's punctuation and lengths
	$(BIN)/python benchmarks/bench_check_rules.py --out bench/check_rules.md  # and lotdata/data/check_rule_figures.json
	$(BIN)/pip install -q 'py3langid>=0.3' 'lingua-language-detector>=2.0'  # the identifiers bench/langid.md compares
	$(BIN)/python benchmarks/bench_langid.py --out bench/langid.md --repeats 5
	$(BIN)/python benchmarks/bench_aggregation.py --out bench/aggregation.md

outline-agreement: setup
	$(BIN)/python benchmarks/outline_agreement.py

$(DT_BIN):
	$(PYTHON) -m venv $(DT_VENV)
	$(DT_VENV)/bin/pip install --quiet --upgrade pip
	$(DT_VENV)/bin/pip install --quiet 'datatrove==$(DT_VERSION)' 'xxhash==3.8.2' regex tokenizers orjson  # what its MinHash stages import; xxhash 4 takes no str
	test -x $@

$(LS_BIN):
	$(PYTHON) -m venv $(LS_VENV)
	$(LS_VENV)/bin/pip install --quiet --upgrade pip
	$(LS_VENV)/bin/pip install --quiet 'label-studio==$(LS_VERSION)'
	test -x $@

labelstudio-venv: $(LS_BIN)

# `make labelstudio [LS_PORT=8080] [OUT=out]`: data in $(OUT)/labelstudio; Ctrl-C or SIGTERM stops it.
labelstudio: setup $(LS_BIN)
	exec $(BIN)/python -m lotdata.annotate.server --data-dir $(OUT)/labelstudio --port $(LS_PORT)

# The documentation site (docs/, mkdocs.yml): `make docs` serves it on http://127.0.0.1:8000 and rebuilds on a change;
# `make docs-build` builds it into site/ with warnings as errors, as tests/test_docs.py does. The reference pages are
# made from the code at every build (docs/gen_reference.py, an MkDocs hook). Nothing is fetched at build time.
DOCS_STAMP := $(VENV)/.lotdata-docs
DOCS_ADDR  ?= 127.0.0.1:8000

$(DOCS_STAMP): pyproject.toml $(CORE_STAMP)
	$(BIN)/pip install --quiet -e '.[docs]'
	touch $@

docs: $(DOCS_STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve --dev-addr $(DOCS_ADDR)

docs-build: $(DOCS_STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

# The pictures of the docs: the browser tests save a screenshot of every page a rater opens (LOTDATA_BROWSER_SHOTS);
# docs/copy_screens.py copies the chosen ones into docs/images/ and photographs an audit report of the sample.
# Look at them before committing.
docs-images: setup $(LS_BIN) browser-deps
	rm -rf $(OUT)/shots $(OUT)/docs-audit && mkdir -p $(OUT)/shots
	LOTDATA_BROWSER_SHOTS=$(abspath $(OUT))/shots $(BIN)/python -m pytest -q tests/test_story_browser.py tests/test_annotate_browser.py -k "every_screen or story"
	$(BIN)/lotdata demo --out $(OUT)/docs-demo
	$(BIN)/lotdata audit-bias $(OUT)/docs-demo/senpos --out $(OUT)/docs-audit
	$(BIN)/python docs/copy_screens.py $(OUT)/shots --report $(OUT)/docs-audit

clean:
	rm -rf $(OUT) build dist *.egg-info .pytest_cache site
