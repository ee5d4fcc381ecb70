"""Supervised fine-tuning with TRL's SFTTrainer: completion-only loss, optional LoRA, checkpoints.

On a GPU the run uses bf16 autocast (and a bf16 frozen base under LoRA); on CPU it runs in float32
and is meant for checking a setup end to end on a tiny model, not for real training. The trained
model is saved as a plain transformers folder (LoRA adapters merged) under OUT/model, which
`ecot serve --mode hf --model OUT/model` and the `hf` generator load directly; beside its weights
are train_summary.json (what it was trained on, ecot.train.card) and its model card, README.md.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ecot.core.errors import EcotError
from ecot.export.decontam import SUMMARY
from ecot.train import card
from ecot.train.data import Corpus, load_corpus, split_files
from ecot.train.model import base_folder, load_model, load_tokenizer, lora_config
from ecot.train.plot import losses, plot_losses
from ecot.train.progress import progress_callback, quiet_libraries, warm_cosine
from ecot.train.settings import TrainResult, TrainSettings

__all__ = ["TrainResult", "TrainSettings", "checkpoints", "train_sft"]

MODEL_DIR = "model"
WARMUP = 0.03  # share of the steps that warm the learning rate up


def _checkpointing_field() -> str:
    """transformers 5 renamed gradient_checkpointing (and warns on the old name)."""
    from trl import SFTConfig

    renamed = "activation_checkpointing" in SFTConfig.__dataclass_fields__
    return "activation_checkpointing" if renamed else "gradient_checkpointing"


def checkpoints(out: Path) -> list[Path]:
    found = [p for p in Path(out).glob("checkpoint-*") if p.is_dir() and p.name.split("-")[-1].isdigit()]
    return sorted(found, key=lambda p: int(p.name.split("-")[-1]))


def check_settings(settings: TrainSettings) -> None:
    if settings.max_steps == 0 or settings.max_steps < -1:
        raise EcotError(f"--max-steps must be >= 1, got {settings.max_steps}")
    for name in ("batch_size", "grad_accum", "max_length", "save_steps", "logging_steps", "lora_rank"):
        if getattr(settings, name) < 1:
            raise EcotError(f"--{name.replace('_', '-')} must be >= 1, got {getattr(settings, name)}")
    if settings.learning_rate <= 0 or settings.epochs <= 0:
        raise EcotError("--lr and --epochs must be > 0")
    if settings.time_limit_s is not None and settings.time_limit_s <= 0:
        raise EcotError(f"--time-limit must be > 0 seconds, got {settings.time_limit_s}")
    split_files(settings.data)  # a wrong --data fails before a model is converted or loaded
    found = checkpoints(settings.out)
    if settings.resume and not found:
        raise EcotError(f"--resume: no checkpoint-N folder in {settings.out}")
    if found and not settings.resume:
        raise EcotError(f"{settings.out} holds checkpoints ({found[-1].name}): pass --resume, or choose another --out")


def pick_device(device: str) -> tuple[str, bool]:
    """(cpu | cuda[:n], bf16)."""
    import torch

    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise EcotError("--device cuda: no CUDA device is available")
    return device, device.startswith("cuda") and torch.cuda.is_bf16_supported()


def train_sft(settings: TrainSettings, say: Callable[[str], None] = lambda line: None) -> TrainResult:
    """Train, evaluate before and after, and save OUT/model with its summary and model card; `say`
    gets a progress line per logging step (and the validation losses)."""
    check_settings(settings)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    device, bf16 = pick_device(settings.device)
    if device == "cpu":
        import torch

        from ecot.generators.hf_local import cpu_threads

        torch.set_num_threads(cpu_threads(settings.threads))
    folder = base_folder(settings.model, settings.cache_dir)
    tokenizer = load_tokenizer(folder)
    corpus = load_corpus(settings.data, tokenizer, settings.max_length, settings.limit)
    with quiet_libraries():
        trainer = _trainer(settings, folder, tokenizer, corpus, device, bf16)
        result = _train(trainer, settings, corpus, say)
        result.device, result.bf16 = device, bf16
        summary = card.summary(settings, result, corpus)
        _save(trainer, tokenizer, settings, summary)
    (settings.out / SUMMARY).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return result


def _train(trainer: Any, settings: TrainSettings, corpus: Corpus, say: Callable[[str], None]) -> TrainResult:
    """Evaluate, train (from the newest checkpoint with --resume), evaluate again, plot the losses."""
    before = None
    if corpus.validation and not settings.resume:  # a resumed run finds it in its checkpoint's log history
        before = trainer.evaluate()["eval_loss"]
        rows = len(corpus.validation)
        say(f"validation loss before training: {before:.4f} ({rows} row{'s' if rows > 1 else ''})")
    trainer.add_callback(progress_callback(say, before))
    limit = _time_limit(settings.time_limit_s) if settings.time_limit_s else None
    if limit is not None:
        trainer.add_callback(limit)
    trainer.train(resume_from_checkpoint=str(checkpoints(settings.out)[-1]) if settings.resume else None)
    eval_loss = trainer.evaluate()["eval_loss"] if corpus.validation else None
    history = trainer.state.log_history
    before = next((e["eval_loss"] for e in history if e.get("step") == 0 and "eval_loss" in e), before)
    result = TrainResult(settings.out / MODEL_DIR, trainer.state.global_step, len(corpus.train), corpus.train_tokens,
                         corpus.too_long, losses(history, "loss"), eval_loss=eval_loss, eval_loss_before=before)
    result.stopped_by_time_limit = bool(limit is not None and limit.stopped)
    result.plot = plot_losses(history, settings.out / "loss.png", f"ecot train sft: {settings.model}")
    return result


def _trainer(settings: TrainSettings, folder: Path, tokenizer: Any, corpus: Corpus, device: str, bf16: bool) -> Any:
    from datasets import Dataset
    from transformers import PrinterCallback

    checkpointing: dict[str, Any] = {_checkpointing_field(): settings.activation_checkpointing}
    config = _config(settings, device, bf16, checkpointing)
    model = load_model(folder, bf16=bf16 and settings.lora)  # full fine-tuning keeps float32 master weights
    trainer = _trainer_class()(
        model=model, args=config, processing_class=tokenizer,
        train_dataset=Dataset.from_list(corpus.train),
        eval_dataset=Dataset.from_list(corpus.validation) if corpus.validation else None,
        peft_config=lora_config(settings.lora_rank, settings.lora_alpha, settings.lora_dropout) if settings.lora else None,
    )
    trainer.remove_callback(PrinterCallback)  # ecot prints its own line per logging step
    return trainer


def _config(settings: TrainSettings, device: str, bf16: bool, checkpointing: dict[str, Any]) -> Any:
    from trl import SFTConfig

    return SFTConfig(
        output_dir=str(settings.out), max_steps=settings.max_steps, num_train_epochs=settings.epochs,
        per_device_train_batch_size=settings.batch_size, per_device_eval_batch_size=settings.batch_size,
        gradient_accumulation_steps=settings.grad_accum, learning_rate=settings.learning_rate,
        lr_scheduler_type="cosine", warmup_steps=WARMUP, logging_steps=settings.logging_steps,
        save_strategy="steps", save_steps=settings.save_steps, save_total_limit=3, seed=settings.seed,
        bf16=bf16, fp16=False, use_cpu=device == "cpu", report_to="none", disable_tqdm=True,
        **checkpointing,
        max_length=None,  # rows longer than --max-length were left out in load_corpus; none is cut
        completion_only_loss=True, dataloader_pin_memory=device != "cpu",
    )


def _trainer_class() -> Any:
    """SFTTrainer with ecot's schedule (ecot.train.progress.warm_cosine: no step at learning rate 0)."""
    from torch.optim.lr_scheduler import LambdaLR
    from trl import SFTTrainer

    class Trainer(SFTTrainer):
        def create_scheduler(self, num_training_steps: int, optimizer: Any = None) -> Any:
            if self.lr_scheduler is None:
                warmup = self.args.get_warmup_steps(num_training_steps)
                target: Any = optimizer or self.optimizer
                self.lr_scheduler = LambdaLR(target, warm_cosine(warmup, num_training_steps))
            return self.lr_scheduler

    return Trainer


def _time_limit(seconds: float) -> Any:
    """A trainer callback that ends training after `seconds` of it (a fixed budget, as on a lent GPU);
    the model is then saved, evaluated and summarised as at a normal end."""
    from transformers import TrainerCallback

    class TimeLimit(TrainerCallback):
        stopped = False
        started = 0.0

        def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            self.started = time.monotonic()

        def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            if time.monotonic() - self.started >= seconds:
                self.stopped = control.should_training_stop = True

    return TimeLimit()


def _save(trainer: Any, tokenizer: Any, settings: TrainSettings, summary: dict[str, Any]) -> Path:
    """OUT/model: a plain transformers folder (LoRA merged) with its summary and model card, written
    beside and renamed into place."""
    model = trainer.model
    if settings.lora:
        model = model.merge_and_unload()
    target = settings.out / MODEL_DIR
    temp = settings.out / f".{MODEL_DIR}.tmp-{os.getpid()}"
    shutil.rmtree(temp, ignore_errors=True)
    model.save_pretrained(temp)
    tokenizer.save_pretrained(temp)
    card.write(temp, summary)
    shutil.rmtree(target, ignore_errors=True)
    temp.rename(target)
    return target
