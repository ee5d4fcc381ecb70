"""`ecot bench`: score code models on benchmark suites with the paper's metrics, judged by the real toolchains.

- run, session: a benchmark run is a run of the synthesis loop in the same store, marked as one
  (single answers, or the agentic K-round loop); resumable, one writer per store;
- results, metrics, scores: each sample's verdict per round, the per-task metrics, group scores with
  95% bootstrap intervals; "not run here" kept apart from model failures;
- report, compare, plot: terminal tables, JSON, PNG (with a JSON twin);
- repair_split: held-out repair tasks from the mutators (Fix%);
- decontam: benchmark tasks never enter a training corpus unless asked.
"""
