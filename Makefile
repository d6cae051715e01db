# Two commands that work on a fresh machine: `make verify` and `make test`.
PYTHON ?= python3
VENV ?= .venv
WHEEL_TMP ?= /tmp/ruleproof-wheel-check
BIN := $(VENV)/bin

.PHONY: setup extras verify test test-all soak fuzz mutants bench wheel-check clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

setup: $(VENV)/.installed

# the optional checkers (Storm, OpenSpiel) and Dask (out-of-core Loira): their tests skip without them
$(VENV)/.extras: $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -e '.[test,storm,openspiel,cluster]'
	touch $@

extras: $(VENV)/.extras

verify: setup
	$(BIN)/ruleproof verify

test: setup
	HYPOTHESIS_PROFILE=ci $(BIN)/python -m pytest

test-all: setup
	HYPOTHESIS_PROFILE=ci $(BIN)/python -m pytest -m ''

soak: setup
	for m in $$(cd tests && grep -l '@given' test_*.py | sed 's/\.py$$//'); do \
		$(BIN)/python tests/soak.py $$m $${N:-1000} || exit 1; done

# the command line's contract on N seeded cases, every family (no exit 3, no traceback, one-line
# exit 2, --timeout kept, one JSON document, Ctrl-C within a second, no file lost or truncated): a
# tenth as real processes, half of those under Ctrl-C at a random moment; FUZZ_ARGS adds or
# overrides (--seed 7, --families export,sweep, --slack 1 on a loaded machine)
FUZZ_ARGS ?=
fuzz: setup
	$(BIN)/python tests/fuzz.py $${N:-1000} --processes 0.1 --signals 0.5 $(FUZZ_ARGS)

# the mutation suite: each game's mutants (model/<game>/mutants/*.toml) applied to a copy of the
# package, each checked by `verify GAME`; MUTANTS_ARGS=--full adds `rulings check` and verify at full size
MUTANTS_ARGS ?=
mutants: setup
	$(BIN)/python -m ruleproof.mutation $(MUTANTS_ARGS)

# every game's benchmark (peers side by side where installed); a failing one is reported, the rest run.
# Each ends with a summary against bench/baseline.json; BENCH_ARGS= runs the full ladders (long)
BENCH_ARGS ?= --quick
bench: setup
	@failed=""; for b in bench/bench_*.py; do echo "== $$b"; $(BIN)/python $$b $(BENCH_ARGS) || failed="$$failed $$b"; done; \
	if [ -n "$$failed" ]; then echo "failed:$$failed"; exit 1; fi

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis

# the wheel as a user gets it: built, installed into a fresh venv outside the checkout, and run from
# there (`verify pig` and every stored scenario); catches data or modules missing from the package
wheel-check: setup
	rm -rf $(WHEEL_TMP) && mkdir -p $(WHEEL_TMP)
	$(BIN)/python -m pip wheel --quiet --no-deps -w $(WHEEL_TMP)/dist .
	$(PYTHON) -m venv $(WHEEL_TMP)/venv
	$(WHEEL_TMP)/venv/bin/python -m pip install --quiet $(WHEEL_TMP)/dist/ruleproof-*.whl
	cd $(WHEEL_TMP) && venv/bin/ruleproof verify pig && venv/bin/ruleproof rulings check
