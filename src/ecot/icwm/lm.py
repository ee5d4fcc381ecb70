"""The language-model world model: a causal LM fine-tuned on prompt -> templated observation.

The prompt is the domain tag, the environment bundle, the candidate's diff against the reference and
the numbered candidate (ecot.icwm.templates.render_prompt); the target is the domain's observation
template (label, diagnostic, metrics). Only target tokens carry loss. The base is the embedded
SmolLM2-135M by default (located and cached by ecot.generators.hf_local), or any Hugging Face
checkpoint by folder or (locally cached) name. Training picks the GPU when there is one; prediction
is batched greedy decoding with left padding. Saved as `model/` (safetensors + tokenizer) and
`lm.json`, loadable offline.
"""

from __future__ import annotations

import json
import logging
import math
import random
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ecot.core.errors import EcotError
from ecot.core.outcome import Outcome
from ecot.core.task import Task
from ecot.generators.hf_local import (
    EMBEDDED,
    ModelSource,
    cpu_threads,
    load_model,
    pick_device,
    quiet_transformers,
    resolve_source,
)
from ecot.icwm.base import ModelCard, Prediction, WorldModel
from ecot.icwm.dataset import Example
from ecot.icwm.templates import parse_observation, render_observation, render_prompt

log = logging.getLogger(__name__)

STATE = "lm.json"
WEIGHTS_DIR = "model"
IGNORE = -100  # label of prompt tokens: no loss


class LMWorldModel(WorldModel):
    kind = "lm"

    def __init__(
        self,
        base: str = EMBEDDED,
        steps: int = 0,
        epochs: float = 1.0,
        lr: float = 1e-4,
        batch_size: int = 8,
        max_prompt_tokens: int = 768,
        max_new_tokens: int = 96,
        budget_chars: int = 2400,
        max_copies: int = 2,
        predict_batch: int = 16,
        device: str = "auto",
        dtype: str = "auto",
        seed: int = 0,
        threads: int = 0,
        cache_dir: str | None = None,
    ) -> None:
        super().__init__()
        self.base, self.steps, self.epochs, self.lr = base, int(steps), float(epochs), float(lr)
        self.batch_size, self.max_prompt_tokens, self.max_new_tokens = int(batch_size), int(max_prompt_tokens), int(max_new_tokens)
        self.budget_chars, self.max_copies, self.predict_batch = int(budget_chars), int(max_copies), int(predict_batch)
        self.device_name, self.dtype, self.seed, self.threads, self.cache_dir = device, dtype, int(seed), int(threads), cache_dir
        self.card.params = {
            "base": base, "steps": steps, "epochs": epochs, "lr": lr, "batch_size": batch_size,
            "max_prompt_tokens": max_prompt_tokens, "max_new_tokens": max_new_tokens, "budget_chars": budget_chars,
            "max_copies": max_copies, "predict_batch": predict_batch, "device": device, "dtype": dtype, "seed": seed,
        }
        self.domain_labels: dict[str, list[str]] = {}
        self.majority: dict[str, str] = {}
        self.training: dict[str, Any] = {}
        self._model: Any = None
        self._tokenizer: Any = None
        self._device = "cpu"

    def domains(self) -> set[str]:
        return set(self.domain_labels)

    # -- model loading -----------------------------------------------------------------------
    def _load(self, source: ModelSource) -> None:
        self._device = pick_device(self.device_name)
        if self._device == "cpu":
            import torch

            torch.set_num_threads(cpu_threads(self.threads))
        dtype = "float32" if self.dtype == "auto" else self.dtype  # train with fp32 master weights
        with quiet_transformers():
            self._model, self._tokenizer, _ = load_model(source, self._device, dtype)
        if self._tokenizer.pad_token_id is None:
            self._tokenizer.pad_token = self._tokenizer.eos_token

    def _ensure_base(self) -> None:
        if self._model is None:
            cache = Path(self.cache_dir).expanduser() if self.cache_dir else None
            self._load(resolve_source(self.base, cache))

    # -- training ----------------------------------------------------------------------------
    def pairs(self, examples: Sequence[Example], tasks: Mapping[str, Task]) -> list[tuple[str, str]]:
        """(prompt, target) texts; an identical pair is kept at most `max_copies` times."""
        seen: Counter[tuple[str, str]] = Counter()
        out = []
        for example in examples:
            task = tasks[example.task_id]
            pair = (render_prompt(task, example.code, self.budget_chars), render_observation(example.outcome, task.domain))
            seen[pair] += 1
            if seen[pair] <= self.max_copies:
                out.append(pair)
        return out

    def fit(self, examples: Sequence[Example], tasks: Mapping[str, Task]) -> None:
        """Fine-tune (from the base, or onward from the current weights when already trained)."""
        if not examples:
            raise EcotError("the lm world model needs at least one training example")
        self._ensure_base()
        for example in examples:
            labels = self.domain_labels.setdefault(example.domain, [])
            if example.outcome.label not in labels:
                labels.append(example.outcome.label)
        counts: dict[str, Counter[str]] = {}
        for example in examples:
            counts.setdefault(example.domain, Counter())[example.outcome.label] += 1
        self.majority = {d: c.most_common(1)[0][0] for d, c in counts.items()}
        encoded = [self._encode(p, t) for p, t in self.pairs(examples, tasks)]
        self.training = _train_loop(self, encoded)
        self.card.params = {**self.card.params, "training": self.training}

    def _encode(self, prompt: str, target: str) -> tuple[list[int], list[int]]:
        tok = self._tokenizer
        prompt_ids = self._prompt_ids(prompt)
        target_ids = tok(target, add_special_tokens=False)["input_ids"][: self.max_new_tokens] + [tok.eos_token_id]
        return prompt_ids + target_ids, [IGNORE] * len(prompt_ids) + target_ids

    def _prompt_ids(self, prompt: str) -> list[int]:
        ids: list[int] = self._tokenizer(prompt, add_special_tokens=False)["input_ids"]
        if len(ids) > self.max_prompt_tokens:  # keep the head (tag, bundle, diff) and the closing marker
            tail = 8
            ids = ids[: self.max_prompt_tokens - tail] + ids[-tail:]
        return ids

    # -- prediction --------------------------------------------------------------------------
    def predict(self, requests: Sequence[tuple[Task, str]]) -> list[Prediction]:
        if self._model is None:
            raise EcotError("the lm world model is not trained or loaded")
        out: list[Prediction] = []
        for start in range(0, len(requests), self.predict_batch):
            out += self._predict_batch(requests[start : start + self.predict_batch])
        return out

    def _predict_batch(self, batch: Sequence[tuple[Task, str]]) -> list[Prediction]:
        import torch

        started = time.perf_counter()
        tok = self._tokenizer
        prompts = [self._prompt_ids(render_prompt(task, code, self.budget_chars)) for task, code in batch]
        width = max(len(p) for p in prompts)
        pad = tok.pad_token_id
        ids = torch.tensor([[pad] * (width - len(p)) + p for p in prompts], device=self._device)
        mask = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in prompts], device=self._device)
        self._model.eval()
        with torch.inference_mode():
            generated = self._model.generate(
                input_ids=ids, attention_mask=mask, max_new_tokens=self.max_new_tokens, do_sample=False,
                temperature=None, top_p=None, top_k=None, pad_token_id=pad, eos_token_id=tok.eos_token_id,
                return_dict_in_generate=True, output_scores=True,
            )
        new = generated.sequences[:, width:]
        confidence = _first_line_confidence(generated.scores, new, tok)
        wall = (time.perf_counter() - started) / len(batch)
        results = []
        for row, (task, _) in enumerate(batch):
            text = tok.decode(new[row], skip_special_tokens=True)
            labels = tuple(self.domain_labels.get(task.domain, ()))
            fallback = self.majority.get(task.domain, labels[0] if labels else "Infra_Error")
            parsed = parse_observation(text, labels, fallback)
            outcome = Outcome(parsed.label, parsed.diagnostic, parsed.log, parsed.metrics, {"icwm": self.name}, round(wall, 6))
            results.append(Prediction(outcome, confidence[row]))
        return results

    # -- files -------------------------------------------------------------------------------
    def _save_files(self, folder: Path) -> None:
        if self._model is None:
            raise EcotError("nothing to save: the lm world model is not trained")
        with quiet_transformers():
            self._model.save_pretrained(folder / WEIGHTS_DIR)
            self._tokenizer.save_pretrained(folder / WEIGHTS_DIR)
        state = {"domain_labels": self.domain_labels, "majority": self.majority, "training": self.training}
        (folder / STATE).write_text(json.dumps(state, indent=2), encoding="utf-8")

    @classmethod
    def _load_files(cls, folder: Path, card: ModelCard) -> LMWorldModel:
        known = ("base", "steps", "epochs", "lr", "batch_size", "max_prompt_tokens", "max_new_tokens",
                 "budget_chars", "max_copies", "predict_batch", "device", "dtype", "seed")
        model = cls(**{k: v for k, v in card.params.items() if k in known})
        model.card = card
        state = json.loads((folder / STATE).read_text(encoding="utf-8"))
        model.domain_labels = {d: list(v) for d, v in state["domain_labels"].items()}
        model.majority = dict(state["majority"])
        model.training = dict(state.get("training", {}))
        model._load(ModelSource("dir", str((folder / WEIGHTS_DIR).resolve())))
        return model


def _first_line_confidence(scores: Sequence[Any], new: Any, tokenizer: Any) -> list[float]:
    """exp(mean log-probability) of the generated tokens up to the first newline (the label line)."""
    import torch

    if not scores:
        return [0.0] * int(new.shape[0])
    logprobs = torch.stack([torch.log_softmax(s.float(), dim=-1) for s in scores], dim=1)  # batch x steps x vocab
    steps = min(logprobs.shape[1], new.shape[1])
    picked = logprobs[:, :steps].gather(2, new[:, :steps].unsqueeze(-1)).squeeze(-1)
    out = []
    for row in range(new.shape[0]):
        text_so_far, total, count = "", 0.0, 0
        for step in range(steps):
            total += float(picked[row, step])
            count += 1
            text_so_far += tokenizer.decode(new[row, step : step + 1])
            if "\n" in text_so_far.lstrip("\n"):
                break
        out.append(math.exp(total / count) if count else 0.0)
    return out


def _batches(encoded: list[tuple[list[int], list[int]]], size: int, rng: random.Random) -> list[list[int]]:
    """Shuffled batches of similar length (sorted within windows of 50 batches): less padding."""
    order = list(range(len(encoded)))
    rng.shuffle(order)
    window = size * 50
    batches: list[list[int]] = []
    for start in range(0, len(order), window):
        chunk = sorted(order[start : start + window], key=lambda i: len(encoded[i][0]))
        batches += [chunk[i : i + size] for i in range(0, len(chunk), size)]
    rng.shuffle(batches)
    return batches


def _train_loop(model: LMWorldModel, encoded: list[tuple[list[int], list[int]]]) -> dict[str, Any]:
    import torch

    net, device = model._model, model._device
    rng = random.Random(model.seed)
    torch.manual_seed(model.seed)
    per_epoch = max(1, math.ceil(len(encoded) / model.batch_size))
    total = model.steps or max(1, math.ceil(model.epochs * per_epoch))
    optimizer = torch.optim.AdamW(net.parameters(), lr=model.lr, weight_decay=0.0)
    warmup = max(1, total // 20)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min((s + 1) / warmup, max(0.0, (total - s) / max(1, total - warmup))))
    autocast = torch.autocast("cuda", dtype=torch.bfloat16) if device.startswith("cuda") else torch.autocast("cpu", enabled=False)
    net.train()
    started, losses, step = time.perf_counter(), [], 0
    pad = model._tokenizer.pad_token_id
    while step < total:
        for batch in _batches(encoded, model.batch_size, rng):
            if step >= total:
                break
            width = max(len(encoded[i][0]) for i in batch)
            ids = torch.tensor([encoded[i][0] + [pad] * (width - len(encoded[i][0])) for i in batch], device=device)
            labels = torch.tensor([encoded[i][1] + [IGNORE] * (width - len(encoded[i][1])) for i in batch], device=device)
            mask = torch.tensor([[1] * len(encoded[i][0]) + [0] * (width - len(encoded[i][0])) for i in batch], device=device)
            with autocast:
                loss = net(input_ids=ids, attention_mask=mask, labels=labels).loss
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            optimizer.step()
            schedule.step()
            optimizer.zero_grad(set_to_none=True)
            losses.append(float(loss.detach()))
            step += 1
            if step % 50 == 0:
                log.info("lm world model: step %d/%d loss %.4f", step, total, sum(losses[-50:]) / len(losses[-50:]))
    net.eval()
    tail = losses[-min(len(losses), 20):]
    return {
        "steps": step, "examples": len(encoded), "device": device, "train_s": round(time.perf_counter() - started, 2),
        "first_loss": round(losses[0], 4), "final_loss": round(sum(tail) / len(tail), 4),
    }
