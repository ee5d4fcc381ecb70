# The two commands of the README. Both install whatever is missing first (scripts/setup.sh is idempotent).
.PHONY: demo test setup bench

demo: setup
	.venv/bin/ecot synth

test: setup
	.venv/bin/python -m pytest -q

setup:
	@bash scripts/setup.sh

bench: setup
	.venv/bin/python bench/rtl_throughput.py
