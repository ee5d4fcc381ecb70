"""Token counts per sample with the tokenizer the user names, rendered the way training sees it.

A sample is rendered with the tokenizer's own chat template, exactly as TRL's SFTTrainer does for
prompt/completion data: the prompt with the generation prompt appended, and prompt + completion.
`tokens` is the length of the longest full sequence (chosen or rejected for preference pairs),
`prompt_tokens` the prompt's and `completion_tokens` the rest. Nothing is downloaded.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ecot.core.errors import EcotError
from ecot.export.sample import Chat, Sample


def load_tokenizer(name: str) -> Any:
    """`smollm2` (the embedded model), a .gguf file, or a local model folder; offline only."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from transformers import AutoTokenizer

    from ecot.generators.hf_local import quiet_transformers, resolve_source

    try:
        source = resolve_source(name)
    except EcotError as err:
        raise EcotError(f"--tokenizer {name}: {str(err).removeprefix('hf generator: ')}") from None
    try:
        with quiet_transformers():
            if source.kind == "dir":
                tokenizer = AutoTokenizer.from_pretrained(source.location, local_files_only=True)
            elif source.kind == "gguf" and source.cache is not None and (source.cache / "config.json").is_file():
                tokenizer = AutoTokenizer.from_pretrained(str(source.cache), local_files_only=True)
            elif source.kind == "gguf":  # the tokenizer alone converts in seconds; no need for the weights
                gguf = Path(source.location)
                tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name, local_files_only=True)
            else:
                raise EcotError(f"tokenizer {name!r}: give a local model folder, a .gguf file or 'smollm2' (nothing is downloaded)")
    except OSError as err:
        raise EcotError(f"cannot load the tokenizer {name!r} offline: {err}") from None
    if not getattr(tokenizer, "chat_template", None):
        raise EcotError(f"the tokenizer {name!r} has no chat template, so it cannot render chat samples as training would")
    return tokenizer


class TokenCounter:
    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer

    def ids(self, messages: Chat, generation_prompt: bool = False) -> list[int]:
        encoded = self.tokenizer.apply_chat_template(messages, tokenize=True, add_generation_prompt=generation_prompt)
        return list(encoded["input_ids"] if hasattr(encoded, "keys") else encoded)

    def count(self, sample: Sample) -> dict[str, int]:
        prompt = len(self.ids(sample.prompt, generation_prompt=True))
        total = max(len(self.ids(sample.prompt + chat)) for chat in sample.completions.values())
        return {"tokens": total, "prompt_tokens": prompt, "completion_tokens": total - prompt}

