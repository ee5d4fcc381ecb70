"""The language-model world model on the device: fit on the real turns of the training tasks, predict
every turn of the held-out tasks once, write the card, the fidelity report and the predictions.

    python -m ecot.campaign.world --store store.db --out DIR --device cuda --options '{"steps": 600}' \
        --held-out 0.2 --seed 0

The split is `ecot icwm train`'s (ecot.icwm.dataset.held_out_tasks with the same share and seed), so the
judge fits the fast model on the same tasks and compares the two on the same held-out turns. The
weights are not written: they would not come back, and the predictions are what the judge scores.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from ecot.icwm.dataset import held_out_tasks, open_dataset
from ecot.icwm.fidelity import FidelityReport, predict_records, write_json
from ecot.icwm.metrics import TurnRecord, per_domain
from ecot.icwm.train import build_model, describe_data


def record_row(record: TurnRecord) -> dict[str, Any]:
    return {"domain": record.domain, "task_id": record.task_id, "key": record.key, "real": record.real.to_dict(),
            "predicted": record.predicted.to_dict(), "confidence": record.confidence}


def run(args: argparse.Namespace) -> dict[str, Any]:
    started = time.perf_counter()
    data = open_dataset(args.store)
    held = held_out_tasks(data.examples, args.held_out, args.seed)
    train = data.select(held, keep=False)
    model = build_model("lm", {**json.loads(args.options), "device": args.device, "base": "smollm2"})
    model.fit(train, data.tasks)
    describe_data(model, train, held)
    fitted = time.perf_counter()
    examples = data.select(held)
    records = predict_records(model, examples, data.tasks)
    predicted = time.perf_counter()
    report = FidelityReport(model.name, {"held_out_tasks": len(held & set(data.tasks)), "held_out_turns": len(examples),
                                         "train_turns": len(train), "split_seed": args.seed, "held_out": args.held_out})
    report.turns = per_domain(records)
    report.speed = {"all": {"fit_s": round(fitted - started, 2), "predict_s": round(predicted - fitted, 2),
                            "turns_per_s": round(len(examples) / max(1e-9, predicted - fitted), 2)}}
    model.card.fidelity = {**report.to_dict(), "measured_by": "gpu campaign"}
    args.out.mkdir(parents=True, exist_ok=True)
    write_json(report, args.out / "fidelity.json")
    (args.out / "lm-card.json").write_text(json.dumps(model.card.to_dict(), indent=1, default=str) + "\n", encoding="utf-8")
    with (args.out / "predictions.jsonl").open("w", encoding="utf-8") as out:
        for record in records:
            out.write(json.dumps(record_row(record), ensure_ascii=False) + "\n")
    return report.summary()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ecot.campaign.world")
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--options", default="{}", help="LMWorldModel options as JSON")
    parser.add_argument("--held-out", type=float, default=0.2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print(json.dumps(run(args)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
