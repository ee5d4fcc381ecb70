"""The suite audit's defaults, importable without its models (so `ecot audit --help` stays light)."""

MUTANTS = 20  # mutants judged per task (`ecot audit`)
IMPORT_MUTANTS = 6  # the quick audit `ecot import` runs
RUNS = 3  # runs of each reference
IMPORT_RUNS = 2
IMPORT_BUDGET_S = 120.0  # the import's audit starts no task after this; `ecot audit OUT` audits them all
WEAK_BELOW = 0.5  # a mutation score under this flags the task's tests as weak
