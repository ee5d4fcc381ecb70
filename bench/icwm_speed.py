"""World-model speed against the real backends, measured in one run on the same turns.

Trains the fast world model on a store's real turns with a task-level hold-out (or loads --model),
then times held-out turns three ways, one after the other in this process: the real backend one
candidate at a time, the world model one request at a time, the world model in one batch. Prints
per domain the medians, the ratios (turn-weighted sample, and its distinct candidates only, where
the world model's caches are cold) and the batched ratio. Target: >= 100x median per turn.
Usage: python bench/icwm_speed.py --store out/ecot.db [--model out/icwm/fast] [--turns 200]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ecot.icwm import load_model
from ecot.icwm.dataset import open_dataset
from ecot.icwm.speed import measure
from ecot.icwm.train import train


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", type=Path, required=True, help="store with real turns (e.g. from `ecot synth`)")
    parser.add_argument("--model", type=Path, help="a saved world model (default: train the fast one here)")
    parser.add_argument("--turns", type=int, default=200, help="sampled held-out turns per domain")
    args = parser.parse_args()
    data = open_dataset(args.store)
    model = load_model(args.model) if args.model else train(data, "fast", {}, held_out=0.2)
    held = set(data.tasks) - set(model.card.train_tasks)
    print(f"model {model.name}: {len(model.card.train_tasks)} training tasks, {len(held)} held-out tasks")
    report = measure(model, data.select(held), data.tasks, args.turns)
    print(f"{'domain':<10}{'turns':>7}{'distinct':>9}{'real ms':>9}{'icwm ms':>9}{'ratio':>8}{'distinct':>10}{'batched':>9}")
    for domain, row in report.items():
        if "real_median_s" not in row:
            print(f"{domain:<10}{row['turns']:>7}  real backend skipped: {row['real_skipped']}")
            continue
        print(
            f"{domain:<10}{row['turns']:>7}{row['distinct']:>9}{1000 * row['real_median_s']:>9.2f}"
            f"{1000 * row['icwm_median_s']:>9.3f}{row['speedup_median']:>7.0f}x{row['speedup_median_distinct']:>9.0f}x"
            f"{row['speedup_batch']:>8.0f}x"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
