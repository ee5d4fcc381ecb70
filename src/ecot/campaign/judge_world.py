"""The world-model part of the judge: the LM's held-out predictions against the fast model's, same turns.

The store is the one that travelled (call2/store.db.gz, unpacked here), and the split is the device's
(ecot.icwm.dataset.held_out_tasks with the profile's share and seed), so both models are judged on
exactly the turns the LM predicted; the fast model is fitted here on the same training tasks.
"""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path
from typing import Any

from ecot.campaign.layout import STORE, Profile
from ecot.core.outcome import Outcome
from ecot.icwm.dataset import held_out_tasks, open_dataset
from ecot.icwm.fidelity import FidelityReport, predict_records
from ecot.icwm.metrics import TurnRecord, per_domain
from ecot.icwm.train import build_model


def lm_records(path: Path) -> list[TurnRecord]:
    records = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            records.append(TurnRecord(row["domain"], row["task_id"], row["key"], Outcome.from_dict(row["real"]),
                                      Outcome.from_dict(row["predicted"]), float(row["confidence"])))
    return records


def unpack_store(carry_store: Path, target: Path) -> Path:
    with gzip.open(carry_store, "rb") as source, target.open("wb") as out:
        shutil.copyfileobj(source, out)
    return target


def summary(name: str, records: list[TurnRecord]) -> dict[str, Any]:
    report = FidelityReport(name)
    report.turns = per_domain(records)
    numbers = report.summary()
    numbers["per_domain"] = {d: {k: t[k] for k in ("turns", "accuracy", "balanced_accuracy", "majority_baseline")}
                             for d, t in report.turns.items()}
    return numbers


def world_results(folder: Path, carry: Path, profile: Profile, work: Path) -> dict[str, Any]:
    predictions = folder / "predictions.jsonl"
    if not predictions.is_file():
        return {"ran": False}
    lm = lm_records(predictions)
    store = unpack_store(carry / STORE, work / "store.db")
    data = open_dataset(store)
    held = held_out_tasks(data.examples, profile.world_held_out, profile.seed)
    examples = data.select(held)
    fast = build_model("fast", {})
    fast.fit(data.select(held, keep=False), data.tasks)
    fast_records = predict_records(fast, examples, data.tasks)
    card_path = folder / "lm-card.json"
    card = json.loads(card_path.read_text(encoding="utf-8")) if card_path.is_file() else {}
    return {"ran": True, "held_out_tasks": len(held), "held_out_turns": len(examples), "lm_turns": len(lm),
            "same_turns": sorted(r.key for r in lm) == sorted(r.key for r in fast_records),
            "lm": summary(str(card.get("name", "lm")), lm), "fast": summary(fast.name, fast_records),
            "lm_training": card.get("params", {}).get("training", {})}
