"""The rehearsal's model: a GGUF file shaped like the embedded SmolLM2 but tiny (2 layers, width 64).

It keeps the embedded model's tokenizer and chat template (every metadata field of that GGUF except the
sizes) and random weights, so the rehearsal runs the device's whole model path: two parts joined and
checked, found as the embedded model, converted by transformers' GGUF loader, trained, sampled.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

SIZES = {"llama.block_count": 2, "llama.embedding_length": 64, "llama.feed_forward_length": 128,
         "llama.attention.head_count": 4, "llama.attention.head_count_kv": 2, "llama.rope.dimension_count": 16,
         "general.file_type": 1}
NAME = "tiny-smollm2.gguf"


def write_tiny_gguf(source: Path, target: Path, seed: int = 0) -> Path:
    import numpy as np
    from gguf import GGUFReader, GGUFValueType, GGUFWriter

    reader = GGUFReader(source)
    writer = GGUFWriter(str(target), "llama")
    for name, field in reader.fields.items():
        if name.startswith("GGUF.") or name == "general.architecture":
            continue  # the writer sets these itself
        kind = field.types[0]
        if name in SIZES:
            writer.add_key_value(name, SIZES[name], kind)
        elif kind == GGUFValueType.ARRAY:
            writer.add_key_value(name, field.contents(), kind, sub_type=field.types[1])
        else:
            writer.add_key_value(name, field.contents(), kind)
    vocab = int(reader.fields["llama.vocab_size"].contents())
    for name, array in _tensors(np.random.default_rng(seed), vocab):
        writer.add_tensor(name, array)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return target


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
