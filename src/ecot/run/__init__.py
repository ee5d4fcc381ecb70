"""The multi-turn loop and what drives it: routing, observations, run identity, budgets, usage, progress."""
