"""A tiny randomly initialised causal LM checkpoint, for smoke tests and demos of the lm world model.

It is a real Hugging Face folder (Llama architecture, a byte-level BPE tokenizer trained on the given
texts), so it exercises exactly the code path of any other checkpoint, in seconds on a CPU.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

EOS = "<|endoftext|>"
PAD = "<pad>"


def make_tiny_checkpoint(folder: Path, texts: Iterable[str], vocab_size: int = 600, hidden: int = 64, layers: int = 2) -> Path:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    core = Tokenizer(models.BPE())
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=[EOS, PAD], initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    core.train_from_iterator(list(texts), trainer)
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=core, eos_token=EOS, pad_token=PAD, bos_token=EOS)
    config = LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=hidden, intermediate_size=2 * hidden, num_hidden_layers=layers,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=4096, tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id,
    )
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    LlamaForCausalLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
