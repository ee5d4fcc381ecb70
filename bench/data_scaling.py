"""The paper's data-scaling experiment (Figure 7's shape) at small scale: more ECoT data, better scores.

Trains the base model with `ecot train sft` on nested random subsets of an export's training split
(1/3, 2/3 and all of it by default), serves each trained model with `ecot serve --mode hf`, scores
it on the export's held-out (validation) tasks with `ecot synth --max-rounds 0` (one real-toolchain
verdict per task: pass@1, greedy), and plots the pass rate against the training tokens. The base
model, untrained, is the 0-token point. Writes OUT/scaling.json and OUT/scaling.png.

  ecot synth --samples 4 --store out/ecot.db --no-export
  ecot export --store out/ecot.db --out out/corpus --tokenizer smollm2 --max-tokens 4096 --validation 0.2
  python bench/data_scaling.py --corpus out/corpus --out out/scaling --epochs 2     # a GPU: minutes

On CPU use a tiny run to check the pipeline (--max-steps 2 --max-new-tokens 32 --held-out-limit 4);
the scores of such a run mean nothing.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from ecot.cli.main import main as ecot
from ecot.serve.server import ServerProcess
from ecot.store import TrajectoryStore
from ecot.tasks.suite import bundled_domains, bundled_suite_path, load_suite, write_jsonl
from ecot.train import TrainSettings, train_sft
from ecot.train.data import read_rows, split_files


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, required=True, help="an `ecot export` folder with train and validation splits")
    parser.add_argument("--out", type=Path, required=True, help="folder for subsets, models, scores and the plot")
    parser.add_argument("--model", default="smollm2", help="base model (default: the embedded SmolLM2)")
    parser.add_argument("--suite", action="append", default=[], help="suites holding the held-out tasks (default: bundled)")
    parser.add_argument("--fractions", default="0.3333,0.6667,1", help="shares of the training rows (default 1/3, 2/3, all)")
    parser.add_argument("--epochs", type=float, default=2.0, help="passes over each subset (default 2)")
    parser.add_argument("--max-steps", type=int, default=-1, help="fixed optimizer steps instead of epochs")
    parser.add_argument("--lr", type=float, default=5e-5, help="peak learning rate (default 5e-5)")
    parser.add_argument("--grad-accum", type=int, default=8, help="device steps per optimizer step (default 8)")
    parser.add_argument("--max-length", type=int, default=4096, help="longest training row in tokens (default 4096)")
    parser.add_argument("--lora", action="store_true", help="train LoRA adapters instead of every weight")
    parser.add_argument("--max-new-tokens", type=int, default=1024, help="answer length when scoring (default 1024)")
    parser.add_argument("--held-out-limit", type=int, default=None, help="score on the first N held-out tasks only")
    parser.add_argument("--device", default="auto", help="auto, cpu or cuda (training and serving)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the subsets and of training")
    return parser.parse_args()


def held_out_suite(corpus: Path, suites: list[str], limit: int | None, path: Path) -> int:
    """Write the validation split's tasks as a JSONL suite; returns how many."""
    files = split_files(corpus)
    if "validation" not in files:
        raise SystemExit(f"{corpus} has no validation split: export with --validation > 0")
    wanted = sorted({row["task_id"] for row in read_rows(files["validation"])})[:limit]
    sources = [Path(s) for s in suites] or [bundled_suite_path(d) for d in bundled_domains()]
    tasks = {task.id: task for source in sources for task in load_suite(source)}
    missing = [task_id for task_id in wanted if task_id not in tasks]
    if missing:
        raise SystemExit(f"held-out tasks not in the suites: {', '.join(missing[:5])} (give them with --suite)")
    return write_jsonl([tasks[task_id] for task_id in wanted], path)


def subsets(corpus: Path, fractions: list[float], seed: int, folder: Path) -> list[Path]:
    """Nested random subsets of the training rows: each larger one contains the smaller ones."""
    rows = read_rows(split_files(corpus)["train"])
    random.Random(seed).shuffle(rows)
    paths = []
    for fraction in fractions:
        path = folder / f"subset-{fraction:.4f}.jsonl"
        with open(path, "w", encoding="utf-8") as handle:
            for row in rows[: max(1, round(fraction * len(rows)))]:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
        paths.append(path)
    return paths


def score(model: str | None, suite: Path, store: Path, args: argparse.Namespace) -> dict[str, Any]:
    """pass@1 on the held-out suite: serve the model, one greedy attempt per task, real verdicts."""
    serve = ["--mode", "hf", "--max-new-tokens", str(args.max_new_tokens), "--model-name", "scored"]
    serve += ["--model", model] if model else []
    serve += ["--device", args.device] if args.device != "auto" else []
    for leftover in (store, store.with_name(store.name + "-wal"), store.with_name(store.name + "-shm")):
        leftover.unlink(missing_ok=True)  # a store of an earlier bench run would be resumed, not rescored
    with ServerProcess(serve, startup_s=600) as server:
        ecot(["synth", str(suite), "--generator", "openai", "--base-url", server.url, "--model", "scored",
              "--gen-opt", "api_key=EMPTY", "--gen-opt", "temperature=0", "--gen-opt", f"max_tokens={args.max_new_tokens}",
              "--max-rounds", "0", "--max-in-flight", "4", "--store", str(store), "--no-export"])
    with TrajectoryStore(store) as opened:
        finished = [t for t in opened.iter_trajectories()]
    per_domain: Counter[str] = Counter(t.domain for t in finished if t.passed)
    passed = sum(per_domain.values())
    return {"tasks": len(finished), "passed": passed, "pass_rate": passed / len(finished) if finished else 0.0,
            "passed_per_domain": dict(per_domain)}


def train(data: Path, out: Path, args: argparse.Namespace) -> tuple[str, int]:
    settings = TrainSettings(data=data, out=out, model=args.model, epochs=args.epochs, max_steps=args.max_steps,
                             learning_rate=args.lr, grad_accum=args.grad_accum, max_length=args.max_length,
                             lora=args.lora, device=args.device, seed=args.seed, save_steps=10_000)
    shutil.rmtree(out, ignore_errors=True)  # checkpoints of an earlier bench run would be resumed
    result = train_sft(settings)
    return str(result.model_dir), result.train_tokens


def plot(points: list[dict[str, Any]], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.0, 4.0))
    ax.plot([p["train_tokens"] for p in points], [100 * p["pass_rate"] for p in points], "o-")
    for p in points:
        ax.annotate(f"{p['passed']}/{p['tasks']}", (p["train_tokens"], 100 * p["pass_rate"]), textcoords="offset points", xytext=(4, 4))
    ax.set_xlabel("training tokens (ECoT samples)")
    ax.set_ylabel("held-out pass@1 (%)")
    ax.set_ylim(0, max(5.0, 120 * max(p["pass_rate"] for p in points)))
    ax.set_title(title)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main() -> int:
    args = parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    suite = args.out / "held_out.jsonl"
    tasks = held_out_suite(args.corpus, args.suite, args.held_out_limit, suite)
    fractions = [float(f) for f in args.fractions.split(",")]
    base = None if args.model == "smollm2" else args.model
    points = [{"fraction": 0.0, "train_tokens": 0, **score(base, suite, args.out / "score-base.db", args)}]
    for fraction, data in zip(fractions, subsets(args.corpus, fractions, args.seed, args.out)):
        model_dir, tokens = train(data, args.out / f"train-{fraction:.4f}", args)
        points.append({"fraction": fraction, "train_tokens": tokens,
                       **score(model_dir, suite, args.out / f"score-{fraction:.4f}.db", args)})
        print(json.dumps(points[-1]), flush=True)
    (args.out / "scaling.json").write_text(json.dumps({"held_out_tasks": tasks, "points": points}, indent=2) + "\n")
    plot(points, args.out / "scaling.png", f"data scaling: {args.model}, {tasks} held-out tasks")
    print(f"wrote {args.out / 'scaling.json'} and {args.out / 'scaling.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
