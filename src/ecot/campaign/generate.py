"""Batched sampling of a causal LM on the held-out prompts, written as replayable answers.

    python -m ecot.campaign.generate --model smollm2 --prompts prompts.jsonl --out answers.jsonl --meta meta.json \
        --samples 4 --temperature 0.7 --top-p 0.95 --max-new-tokens 1024 --batch-size 128 --device cuda

The prompts are the messages `ecot bench` sends (ecot.run.router.first_messages, written by prepare),
rendered with the model's chat template and a generation prompt, as the `hf` generator renders them.
Here they are decoded many at once (left padding, `samples` sequences per prompt), so answers are not
bit-identical to `--generator hf`, whose samples draw one seed each. Each answer is one line of the
replay format ({"task_id", "turn": 0, "sample", "content", "usage", "finish_reason"}), appended batch by
batch: a run cut short keeps the batches it finished, and `ecot bench run --generator replay` scores them.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any


def load_prompts(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def load(model: str, device: str) -> tuple[Any, Any]:
    import torch
    from transformers import AutoModelForCausalLM

    from ecot.generators.hf_local import quiet_transformers
    from ecot.train.model import base_folder, load_tokenizer

    folder = base_folder(model)  # smollm2 (the embedded GGUF, converted once), a folder, or a .gguf
    tokenizer = load_tokenizer(folder)
    dtype = torch.bfloat16 if device.startswith("cuda") else torch.float32
    with quiet_transformers():
        net = AutoModelForCausalLM.from_pretrained(folder, local_files_only=True, dtype=dtype)
    net.to(device).eval()  # type: ignore[arg-type]  # transformers' wrapper of `to` declares a model, not a device
    return net, tokenizer


def encode(tokenizer: Any, messages: list[dict[str, str]]) -> list[int]:
    text = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
    ids: list[int] = tokenizer(text, add_special_tokens=False)["input_ids"]
    return ids


def batches(lengths: list[int], per_batch: int) -> list[list[int]]:
    """Prompt indices grouped by similar length (less padding), longest first (an out-of-memory shows early)."""
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    return [order[i : i + per_batch] for i in range(0, len(order), per_batch)]


def sample_batch(net: Any, tokenizer: Any, prompts: list[list[int]], args: argparse.Namespace, seed: int) -> list[list[list[int]]]:
    """For each prompt, `samples` lists of new token ids."""
    import torch

    width = max(len(p) for p in prompts)
    pad = tokenizer.pad_token_id
    device = net.device
    ids = torch.tensor([[pad] * (width - len(p)) + p for p in prompts], device=device)
    mask = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in prompts], device=device)
    settings: dict[str, Any] = {"max_new_tokens": args.max_new_tokens, "num_return_sequences": args.samples,
                                "pad_token_id": pad, "eos_token_id": tokenizer.eos_token_id}
    if args.temperature > 0:
        settings.update(do_sample=True, temperature=args.temperature, top_p=args.top_p)
    else:
        settings.update(do_sample=False, temperature=None, top_p=None, top_k=None)
    torch.manual_seed(seed)
    with torch.inference_mode():
        out = net.generate(input_ids=ids, attention_mask=mask, **settings)
    new = out[:, width:].tolist()
    return [new[i * args.samples : (i + 1) * args.samples] for i in range(len(prompts))]


def answer(tokenizer: Any, task_id: str, sample: int, prompt_tokens: int, tokens: list[int], limit: int) -> dict[str, Any]:
    eos, pad = tokenizer.eos_token_id, tokenizer.pad_token_id
    ended = eos in tokens
    if ended:
        tokens = tokens[: tokens.index(eos) + 1]
    elif pad != eos:
        tokens = [t for t in tokens if t != pad]
    text = tokenizer.decode(tokens, skip_special_tokens=True)
    usage = {"prompt_tokens": prompt_tokens, "completion_tokens": len(tokens), "total_tokens": prompt_tokens + len(tokens)}
    finish = "length" if not ended and len(tokens) >= limit else "stop"
    return {"task_id": task_id, "turn": 0, "sample": sample, "content": text, "usage": usage, "finish_reason": finish}


def run(args: argparse.Namespace) -> dict[str, Any]:
    started = time.perf_counter()
    prompts = load_prompts(args.prompts)
    net, tokenizer = load(args.model, args.device)
    loaded = time.perf_counter() - started
    encoded = [encode(tokenizer, p["messages"]) for p in prompts]
    generated = 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as out:
        for number, group in enumerate(batches([len(e) for e in encoded], max(1, args.batch_size // args.samples))):
            new = sample_batch(net, tokenizer, [encoded[i] for i in group], args, args.seed + number)
            for index, samples in zip(group, new):
                for sample, tokens in enumerate(samples):
                    row = answer(tokenizer, prompts[index]["task_id"], sample, len(encoded[index]), tokens, args.max_new_tokens)
                    generated += row["usage"]["completion_tokens"]
                    out.write(json.dumps(row, ensure_ascii=False) + "\n")
            out.flush()
    wall = time.perf_counter() - started
    return {"model": args.model, "device": str(net.device), "dtype": str(net.dtype), "prompts": len(prompts),
            "samples": args.samples, "temperature": args.temperature, "top_p": args.top_p,
            "max_new_tokens": args.max_new_tokens, "batch_size": args.batch_size, "seed": args.seed,
            "prompt_tokens_max": max((len(e) for e in encoded), default=0), "generated_tokens": generated,
            "load_s": round(loaded, 2), "wall_s": round(wall, 2),
            "tokens_per_s": round(generated / max(1e-9, wall - loaded), 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ecot.campaign.generate")
    parser.add_argument("--model", required=True, help="smollm2, a model folder or a .gguf")
    parser.add_argument("--prompts", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--meta", type=Path, required=True)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--samples", type=int, default=4)
    parser.add_argument("--temperature", type=float, default=0.7)
    parser.add_argument("--top-p", type=float, default=0.95)
    parser.add_argument("--max-new-tokens", type=int, default=1024)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.temperature <= 0 and args.samples > 1:
        parser.error("--temperature 0 decodes greedily: every sample would be the same answer; give --samples 1")
    meta = run(args)
    args.meta.write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(meta))
    return 0


if __name__ == "__main__":
    sys.exit(main())
