"""A tiny random Llama with the embedded SmolLM2 tokenizer: a model `ecot train sft` trains in seconds."""

from __future__ import annotations

from pathlib import Path


def tiny_llama(folder: Path) -> Path:
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    from ecot.export.tokens import load_tokenizer

    tokenizer = load_tokenizer("smollm2")
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=2048,
                         tie_word_embeddings=True, eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id)
    LlamaForCausalLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
