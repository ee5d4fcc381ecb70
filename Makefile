# The two commands of the README. Both install whatever is missing first (scripts/setup.sh is idempotent).
.PHONY: demo test lint setup bench
# The virtual environment: .venv, or the folder ECOT_VENV names (scripts/setup.sh reads the same variable).
VENV := $(or $(ECOT_VENV),.venv)

# The report is written even when synth exits 1 (generator or harness errors: the report shows them);
# make then exits with synth's status.
demo: setup
	$(VENV)/bin/ecot synth; status=$$?; $(VENV)/bin/ecot report --store out/ecot.db --out out/report && exit $$status

test: setup lint
	$(VENV)/bin/python -m pytest -q

# Static checks first: a type or lint error fails in a minute, before the slow suite. Both read pyproject.toml.
lint: setup
	$(VENV)/bin/ruff check
	$(VENV)/bin/mypy

setup:
	@ECOT_VENV=$(VENV) bash scripts/setup.sh

bench: setup
	$(VENV)/bin/python bench/rtl_throughput.py
