"""Training and retraining world models from a store, with the card filled in.

`train` holds out a stable share of each domain's tasks, fits on the rest, measures per-turn
fidelity on the held-out tasks and records everything on the card. `retrain` keeps the model's
held-out tasks held out, adds every real turn and audit the store has gained since (audit
disagreements are the world model's own mistakes, corrected by real execution) and fits again:
the fast model from scratch (seconds), the language model onward from its current weights.
"""

from __future__ import annotations

import inspect
from collections import Counter
from collections.abc import Mapping
from typing import Any

from ecot.core.errors import EcotError
from ecot.icwm import WORLD_MODELS, load_model
from ecot.icwm.base import WorldModel
from ecot.icwm.dataset import (
    Dataset,
    Example,
    fingerprint,
    held_out_tasks,
    label_counts,
)
from ecot.icwm.fidelity import predict_records
from ecot.icwm.metrics import per_domain

TURN_KEYS = ("turns", "accuracy", "balanced_accuracy", "majority_baseline", "unique_accuracy")


def describe_data(model: WorldModel, examples: list[Example], held: set[str]) -> None:
    card = model.card
    card.fingerprint = fingerprint(examples)
    card.examples = len(examples)
    card.train_tasks = sorted({e.task_id for e in examples})
    card.held_out_tasks = sorted(held)
    card.label_counts = label_counts(examples)
    origins = Counter(e.origin for e in examples)
    card.params = {**card.params, "origins": dict(origins)}


def quick_fidelity(model: WorldModel, data: Dataset, held: set[str]) -> dict[str, Any]:
    """Per-turn numbers on the held-out tasks (the full report is `ecot icwm eval`)."""
    examples = data.select(held)
    if not examples:
        return {}
    turns = per_domain(predict_records(model, examples, data.tasks))
    return {
        "held_out": {d: {k: t[k] for k in TURN_KEYS} | {"recall": {lab: r["recall"] for lab, r in t["labels"].items()}}
                     for d, t in turns.items()},
        "measured_by": "train",
    }


def build_model(kind: str, options: Mapping[str, Any]) -> WorldModel:
    """A fresh world model of `kind` from --opt values; a wrong name or value is named, not a traceback."""
    cls = WORLD_MODELS.get(kind)
    params = dict(inspect.signature(cls.__init__).parameters)
    params.pop("self", None)
    open_ended = any(p.kind is p.VAR_KEYWORD for p in params.values())
    for key, value in options.items():
        if key not in params:
            if open_ended:
                continue
            raise EcotError(f"{kind} world model: unknown option {key!r} (known: {', '.join(sorted(params))})")
        default = params[key].default
        if isinstance(default, bool) or not isinstance(default, (int, float)):
            continue
        # Every numeric option is a count, rate or size: > 0, or >= 0 where its default is 0 (steps, seed).
        typed = isinstance(value, int if isinstance(default, int) else (int, float)) and not isinstance(value, bool)
        if not typed or value < 0 or (value == 0 and default > 0):
            need = "an integer" if isinstance(default, int) else "a number"
            raise EcotError(f"{kind} world model: option {key!r} must be {need} {'>= 0' if default == 0 else '> 0'}, "
                            f"got {value!r}")
    return cls(**options)


def train(
    data: Dataset, kind: str, params: Mapping[str, Any], held_out: float = 0.2, seed: int = 0, all_tasks: bool = False
) -> WorldModel:
    held = set() if all_tasks else held_out_tasks(data.examples, held_out, seed)
    examples = data.select(held, keep=False)
    model = build_model(kind, params)
    model.fit(examples, data.tasks)
    describe_data(model, examples, held)
    model.card.params = {**model.card.params, "held_out_fraction": 0.0 if all_tasks else held_out, "split_seed": seed}
    model.card.fidelity = quick_fidelity(model, data, held)
    return model


def retrain(path: Any, data: Dataset) -> tuple[WorldModel, dict[str, Any]]:
    """The model at `path` refitted on everything the store now holds outside its held-out tasks."""
    model = load_model(path)
    previous = model.card
    held = set(previous.held_out_tasks)
    examples = data.select(held, keep=False)
    if len(examples) < previous.examples:
        raise EcotError(
            f"this store holds {len(examples)} training turns, {model.name} was trained on {previous.examples}: "
            "retraining here would drop the rest. Retrain from the store the model was trained on (`ecot synth "
            "--world-model` adds its audits there when given the same --store), or train a new model"
        )
    old_fingerprint = previous.fingerprint
    model.fit(examples, data.tasks)
    history = [*previous.history, {
        "name": previous.name, "fingerprint": old_fingerprint, "examples": previous.examples,
        "created_at": previous.created_at, "fidelity": previous.fidelity,
    }]
    fresh = type(model.card)(previous.kind, params={k: v for k, v in previous.params.items() if k != "origins"})
    model.card = fresh
    describe_data(model, examples, held)
    model.card.history = history
    model.card.fidelity = quick_fidelity(model, data, held)
    added = {
        "examples_before": previous.examples,
        "examples_now": len(examples),
        "audit_examples": sum(e.origin == "audit" for e in examples),
        "changed": model.card.fingerprint != old_fingerprint,
    }
    return model, added
