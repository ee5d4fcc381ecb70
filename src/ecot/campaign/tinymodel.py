"""The rehearsal's model: a GGUF file shaped like the embedded SmolLM2 but tiny (2 layers, width 64).

It keeps the embedded model's chat template, special tokens and byte-level BPE, cut to its first
`VOCAB` tokens (with the merges that stay inside them: the same tokenizer, coarser), every other metadata
field but the sizes, and random weights. So the rehearsal runs the device's whole model path, two parts
joined and checked, found as the embedded model, converted by transformers' GGUF loader, trained and
sampled, in seconds: the 49,152-token vocabulary would make the tokenizer's conversion and every
output layer cost more than the rest of the model.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

SIZES = {"llama.block_count": 2, "llama.embedding_length": 64, "llama.feed_forward_length": 128,
         "llama.attention.head_count": 4, "llama.attention.head_count_kv": 2, "llama.rope.dimension_count": 16,
         "general.file_type": 1}
NAME = "tiny-smollm2.gguf"
VOCAB = 2048


def write_tiny_gguf(source: Path, target: Path, seed: int = 0) -> Path:
    import numpy as np
    from gguf import GGUFReader, GGUFValueType, GGUFWriter

    reader = GGUFReader(source)
    writer = GGUFWriter(str(target), "llama")
    cut = _tokenizer_cut(reader)
    for name, field in reader.fields.items():
        if name.startswith("GGUF.") or name == "general.architecture":
            continue  # the writer sets these itself
        kind = field.types[0]
        value = SIZES.get(name, cut.get(name, field.contents()))
        if kind == GGUFValueType.ARRAY:
            writer.add_key_value(name, value, kind, sub_type=field.types[1])
        else:
            writer.add_key_value(name, value, kind)
    for name, array in _tensors(np.random.default_rng(seed), VOCAB):
        writer.add_tensor(name, array)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return target


def _tokenizer_cut(reader: Any) -> dict[str, Any]:
    """The first VOCAB tokens and the merges whose parts and result are among them."""
    tokens = list(reader.fields["tokenizer.ggml.tokens"].contents())[:VOCAB]
    kept = set(tokens)
    merges = []
    for merge in reader.fields["tokenizer.ggml.merges"].contents():
        left, _, right = merge.partition(" ")
        if left in kept and right in kept and left + right in kept:
            merges.append(merge)
    special = [int(reader.fields[f"tokenizer.ggml.{key}"].contents()) for key in
               ("bos_token_id", "eos_token_id", "unknown_token_id", "padding_token_id") if f"tokenizer.ggml.{key}" in reader.fields]
    if any(token >= VOCAB for token in special):
        raise ValueError(f"a special token of {reader.path} lies beyond the first {VOCAB} tokens")
    return {"tokenizer.ggml.tokens": tokens, "tokenizer.ggml.merges": merges, "llama.vocab_size": VOCAB,
            "tokenizer.ggml.token_type": list(reader.fields["tokenizer.ggml.token_type"].contents())[:VOCAB]}


def _tensors(rng: Any, vocab: int) -> list[tuple[str, Any]]:
    import numpy as np

    width, ffn, kv = SIZES["llama.embedding_length"], SIZES["llama.feed_forward_length"], 32

    def weight(*shape: int) -> Any:
        return (rng.standard_normal(shape) * 0.02).astype(np.float16)

    ones = np.ones(width, np.float32)
    found = [("token_embd.weight", weight(vocab, width)), ("output_norm.weight", ones)]
    for block in range(SIZES["llama.block_count"]):
        p = f"blk.{block}."
        found += [(p + "attn_norm.weight", ones), (p + "ffn_norm.weight", ones),
                  (p + "attn_q.weight", weight(width, width)), (p + "attn_k.weight", weight(kv, width)),
                  (p + "attn_v.weight", weight(kv, width)), (p + "attn_output.weight", weight(width, width)),
                  (p + "ffn_gate.weight", weight(ffn, width)), (p + "ffn_up.weight", weight(ffn, width)),
                  (p + "ffn_down.weight", weight(width, ffn))]
    return found
