"""The fast world model: CPU, trains in seconds, predicts in well under a millisecond per turn.

- **Memory.** A (task, candidate) pair already executed for real returns its real outcome.
- **Label.** A multinomial logistic regression over the candidate's change against the bundle's
  reference (ecot.icwm.features); only labels the domain has shown are possible.
- **Diagnostic, log, metrics.** The nearest exemplar of that label (ecot.icwm.diagnose), its line
  numbers and identifiers rewritten to the candidate's.

Files: `weights.npz` (the classifier) and `state.json` (vocabulary, exemplars, memory); no pickle,
so loading a model file runs no code from it.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ecot.core.errors import EcotError
from ecot.core.outcome import Outcome
from ecot.core.task import Task
from ecot.icwm.base import ModelCard, Prediction, WorldModel, remember
from ecot.icwm.dataset import Example
from ecot.icwm.diagnose import (
    Anchor,
    DiagnosticIndex,
    Exemplar,
    adapt,
    anchor,
    exemplar_metrics,
    log_head,
    query_features,
    responsible_by_text,
)
from ecot.icwm.features import (
    Diff,
    Hunk,
    Vocabulary,
    candidate_features,
    change_context,
    combine,
    diff,
    hunk_features,
    prefixed,
)

WEIGHTS = "weights.npz"
STATE = "state.json"
HUNK_CACHE = 16384  # remembered change descriptions
RECENT = 4096  # remembered predictions: a loop resubmits the same candidate (the model is deterministic)


def code_key(task_id: str, code: str) -> str:
    return task_id + "\x1f" + hashlib.sha256(code.strip().encode()).hexdigest()[:32]


class FastWorldModel(WorldModel):
    kind = "fast"

    def __init__(self, c: float = 0.5, max_iter: int = 3000) -> None:
        super().__init__()
        self.c, self.max_iter = c, max_iter
        self.vocab = Vocabulary()
        self.feature_index: dict[str, int] = {}
        self.labels: list[str] = []
        self.weights = np.zeros((0, 0))  # features x labels
        self.bias = np.zeros(0)
        self.domain_labels: dict[str, list[str]] = {}
        self.memo: dict[str, Outcome] = {}
        self.exemplars: list[tuple[str, Exemplar, dict[str, float]]] = []
        self.index = DiagnosticIndex()
        self._masks: dict[str, tuple[bool, ...]] = {}
        self._rows: dict[str, dict[str, tuple[float, ...]]] = {}  # domain -> feature -> weight per label
        self._hunk_cache: dict[tuple[str, Hunk], Counter[str]] = {}
        self._recent: dict[str, Prediction] = {}
        self.card.params = {"c": c, "max_iter": max_iter}

    def domains(self) -> set[str]:
        return set(self.domain_labels)

    # -- training ----------------------------------------------------------------------------
    def fit(self, examples: Sequence[Example], tasks: Mapping[str, Task]) -> None:
        if not examples:
            raise EcotError("the fast world model needs at least one training example")
        self.vocab = Vocabulary.learn(tasks[t] for t in sorted({e.task_id for e in examples}))
        rows, labels = [], []
        seen: set[tuple[Any, ...]] = set()
        self.exemplars, self.domain_labels = [], {}
        for example in examples:
            task = tasks[example.task_id]
            d = diff(task.reference or "", example.code, task.domain)
            found = [hunk_features(h, self.vocab, task) for h in d.hunks]
            rows.append(prefixed(task.domain, candidate_features(task, example.code, d, found, self.vocab)))
            labels.append(example.outcome.label)
            self.domain_labels.setdefault(task.domain, [])
            if example.outcome.label not in self.domain_labels[task.domain]:
                self.domain_labels[task.domain].append(example.outcome.label)
            self._add_exemplar(task, example.outcome, d, found, seen)
        self._fit_classifier(rows, labels)
        self._masks, self._rows, self._hunk_cache, self._recent = {}, {}, {}, {}
        self.memo = _memory(examples)
        self.index = DiagnosticIndex()
        self.index.build(self.exemplars)

    def _add_exemplar(
        self, task: Task, outcome: Outcome, d: Diff, found: list[Counter[str]], seen: set[tuple[Any, ...]]
    ) -> None:
        hunk = responsible_by_text(d, outcome.diagnostic)
        feats = query_features(found[d.hunks.index(hunk)] if hunk is not None else None)
        key = (task.id, outcome.label, outcome.diagnostic, tuple(sorted(feats.items())))
        if key in seen:
            return
        seen.add(key)
        exemplar = Exemplar(
            task.id, outcome.label, outcome.diagnostic, log_head(outcome.log),
            exemplar_metrics(outcome.metrics), anchor(hunk, task, self.vocab),
        )
        self.exemplars.append((task.domain, exemplar, feats))

    def _fit_classifier(self, rows: list[dict[str, float]], labels: list[str]) -> None:
        from sklearn.feature_extraction import DictVectorizer
        from sklearn.linear_model import LogisticRegression

        vectorizer = DictVectorizer()
        matrix = vectorizer.fit_transform(rows)
        self.feature_index = {name: i for i, name in enumerate(vectorizer.feature_names_)}
        self.labels = sorted(set(labels))
        if len(self.labels) == 1:  # nothing to separate: a constant model
            self.weights, self.bias = np.zeros((matrix.shape[1], 1)), np.zeros(1)
            return
        clf = LogisticRegression(C=self.c, max_iter=self.max_iter)
        clf.fit(matrix, labels)
        self.labels = [str(label) for label in clf.classes_]
        coef = clf.coef_ if len(self.labels) > 2 else np.vstack([-clf.coef_[0], clf.coef_[0]])
        bias = clf.intercept_ if len(self.labels) > 2 else np.array([-clf.intercept_[0], clf.intercept_[0]])
        self.weights, self.bias = np.ascontiguousarray(coef.T), bias.astype(float)

    # -- prediction --------------------------------------------------------------------------
    def predict(self, requests: Sequence[tuple[Task, str]]) -> list[Prediction]:
        return [self.predict_one(task, code) for task, code in requests]

    def predict_one(self, task: Task, code: str) -> Prediction:
        start = time.perf_counter()
        key = code_key(task.id, code)
        remembered = self.memo.get(key)
        if remembered is not None:
            return Prediction(self._stamp(remembered, start), 1.0)
        recent = self._recent.get(key)
        if recent is not None:
            return Prediction(self._stamp(recent.outcome, start), recent.confidence)
        if task.domain not in self.domain_labels:
            raise EcotError(f"world model {self.name} has no training data for domain '{task.domain}'")
        return remember(self._recent, key, self._predict_new(task, code, start), RECENT)

    def _predict_new(self, task: Task, code: str, start: float) -> Prediction:
        d = diff(task.reference or "", code, task.domain)
        found = [self._hunk_features(h, task) for h in d.hunks]
        probs = self._probabilities(candidate_features(task, code, d, found, self.vocab), task.domain)
        best = max(range(len(probs)), key=probs.__getitem__)
        label = self.labels[best]
        at = self._responsible(task, d, found, label)
        hunk = d.hunks[at] if at is not None else None
        query = query_features(found[at] if at is not None else None)
        exemplar = self.index.nearest(task.domain, label, task.id, query)
        outcome = self._render(label, exemplar, anchor(hunk, task, self.vocab))
        return Prediction(self._stamp(outcome, start), float(probs[best]))

    def forget_recent(self) -> None:
        self._recent.clear()
        self._hunk_cache.clear()

    def _hunk_features(self, hunk: Hunk, task: Task) -> Counter[str]:
        """hunk_features, remembered: the same change recurs across a trajectory's turns and samples."""
        key = (task.id, hunk._replace(line=0))
        found = self._hunk_cache.get(key)
        if found is None:
            found = remember(self._hunk_cache, key, hunk_features(hunk, self.vocab, task), HUNK_CACHE)
        return found

    def _probabilities(self, feats: Mapping[str, float], domain: str) -> list[float]:
        """Softmax over the domain's labels, from unprefixed features; plain Python, as a request
        touches only a few dozen weights."""
        rows = self._domain_rows(domain)
        terms: list[Sequence[float]] = [self.bias.tolist()]
        for name, value in feats.items():
            row = rows.get(name)
            if row is not None:
                terms.append(row if value == 1.0 else [value * w for w in row])
        scores = [sum(column) for column in zip(*terms)]
        allowed = self._allowed(domain)
        top = max(s for s, ok in zip(scores, allowed) if ok)
        exps = [math.exp(s - top) if ok else 0.0 for s, ok in zip(scores, allowed)]
        total = sum(exps)
        return [e / total for e in exps]

    def _domain_rows(self, domain: str) -> dict[str, tuple[float, ...]]:
        """Feature -> the weights of its shared and domain copies added up, per label (built once per domain)."""
        rows = self._rows.get(domain)
        if rows is None:
            rows = {}
            for name, index in self.feature_index.items():
                scope, _, key = name.partition("|")
                if scope in ("*", domain):
                    weights = self.weights[index].tolist()
                    rows[key] = tuple(a + b for a, b in zip(rows[key], weights)) if key in rows else tuple(weights)
            self._rows[domain] = rows
        return rows

    def _allowed(self, domain: str) -> tuple[bool, ...]:
        """Which labels this domain has shown (cached per domain)."""
        mask = self._masks.get(domain)
        if mask is None:
            seen = set(self.domain_labels.get(domain, self.labels))
            mask = self._masks[domain] = tuple(label in seen for label in self.labels)
        return mask

    def _responsible(self, task: Task, d: Diff, found: list[Counter[str]], label: str) -> int | None:
        """Index of the first change (in file order) that alone would give the predicted label."""
        if len(d.hunks) <= 1:
            return 0 if d.hunks else None
        order = sorted(range(len(d.hunks)), key=lambda i: d.hunks[i].line)
        for i in order:
            probs = self._probabilities(combine([found[i]], d.ratio, tags=change_context(task, [d.hunks[i]])), task.domain)
            if self.labels[max(range(len(probs)), key=probs.__getitem__)] == label:
                return i
        return order[0]

    def _render(self, label: str, exemplar: Exemplar | None, target: Anchor) -> Outcome:
        if exemplar is None:
            return Outcome(label, f"predicted {label}")
        diagnostic = adapt(exemplar.diagnostic, exemplar.anchor, target)
        log = diagnostic if exemplar.log == exemplar.diagnostic else adapt(exemplar.log, exemplar.anchor, target)
        return Outcome(label, diagnostic, log, dict(exemplar.metrics))

    def _stamp(self, outcome: Outcome, start: float) -> Outcome:
        wall = round(time.perf_counter() - start, 6)
        return Outcome(outcome.label, outcome.diagnostic, outcome.log, dict(outcome.metrics), {"icwm": self.name}, wall)

    # -- files -------------------------------------------------------------------------------
    def _save_files(self, folder: Path) -> None:
        np.savez_compressed(folder / WEIGHTS, weights=self.weights, bias=self.bias)
        state = {
            "labels": self.labels,
            "features": sorted(self.feature_index, key=self.feature_index.__getitem__),
            "common": {d: sorted(words) for d, words in self.vocab.common.items()},
            "known": {d: sorted(words) for d, words in self.vocab.known.items()},
            "domain_labels": self.domain_labels,
            "memo": {key: outcome.to_dict() for key, outcome in self.memo.items()},
            "exemplars": [_exemplar_json(domain, ex, feats) for domain, ex, feats in self.exemplars],
        }
        (folder / STATE).write_text(json.dumps(state, ensure_ascii=False), encoding="utf-8")

    @classmethod
    def _load_files(cls, folder: Path, card: ModelCard) -> FastWorldModel:
        model = cls(**{k: v for k, v in card.params.items() if k in ("c", "max_iter")})
        model.card = card
        arrays = np.load(folder / WEIGHTS)
        model.weights, model.bias = arrays["weights"], arrays["bias"]
        state = json.loads((folder / STATE).read_text(encoding="utf-8"))
        model.labels = list(state["labels"])
        model.feature_index = {name: i for i, name in enumerate(state["features"])}
        model.vocab = Vocabulary(
            {d: frozenset(words) for d, words in state["common"].items()},
            {d: frozenset(words) for d, words in state.get("known", {}).items()},
        )
        model.domain_labels = {d: list(v) for d, v in state["domain_labels"].items()}
        model.memo = {key: Outcome.from_dict(value) for key, value in state["memo"].items()}
        model.exemplars = [_exemplar_from_json(item) for item in state["exemplars"]]
        model.index.build(model.exemplars)
        return model


def _memory(examples: Sequence[Example]) -> dict[str, Outcome]:
    """Each executed (task, code): the latest outcome carrying its most frequent real label."""
    votes: dict[str, Counter[str]] = {}
    latest: dict[tuple[str, str], Outcome] = {}
    for example in examples:
        key = code_key(example.task_id, example.code)
        votes.setdefault(key, Counter())[example.outcome.label] += 1
        latest[(key, example.outcome.label)] = example.outcome
    return {key: latest[(key, counts.most_common(1)[0][0])] for key, counts in votes.items()}


def _exemplar_json(domain: str, ex: Exemplar, feats: dict[str, float]) -> dict[str, Any]:
    return {
        "domain": domain, "task_id": ex.task_id, "label": ex.label, "diagnostic": ex.diagnostic, "log": ex.log,
        "metrics": dict(ex.metrics), "line": ex.anchor.line, "roles": [[r, list(w)] for r, w in ex.anchor.roles],
        "features": feats,
    }


def _exemplar_from_json(item: dict[str, Any]) -> tuple[str, Exemplar, dict[str, float]]:
    roles = tuple((str(r), tuple(w)) for r, w in item["roles"])
    exemplar = Exemplar(
        item["task_id"], item["label"], item["diagnostic"], item["log"], item["metrics"], Anchor(int(item["line"]), roles)
    )
    return item["domain"], exemplar, {k: float(v) for k, v in item["features"].items()}
