"""Train a model on an ecot corpus.

  ecot export --store out/ecot.db --out out/corpus --tokenizer smollm2 --max-tokens 4096
  ecot train sft --data out/corpus --out out/sft                       # the embedded SmolLM2, GPU if present
  ecot train sft --data out/corpus --out out/sft --model PATH --lora   # any local HF checkpoint, LoRA adapters
  ecot train sft --data out/corpus --out out/sft --max-steps 400 --resume   # continue from the newest checkpoint
  ecot serve --mode hf --model out/sft/model                           # serve the trained model

`sft` fine-tunes a causal LM with TRL's SFTTrainer on an `ecot export` folder (sft or trace kind):
loss on the completion only (the <think> trace and the answer), rows longer than --max-length
tokens left out and listed (never truncated), the validation loss before and after, a progress line
per logging step, checkpoints every --save-steps steps, the loss curve in OUT/loss.png, a summary in
OUT/train_summary.json and the trained model in OUT/model with the same summary (base model, data,
the tasks trained on: `ecot bench run` reads them) and a model card (README.md). Nothing is
downloaded: the base model is a local folder, a .gguf file or the embedded SmolLM2.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter  # keep the examples above as written
    sub = parser.add_subparsers(dest="train_command", metavar="ACTION", required=True)
    sft = sub.add_parser("sft", help="supervised fine-tuning with completion-only loss (TRL SFTTrainer)")
    sft.add_argument("--data", type=Path, required=True, help="an `ecot export` folder (train + validation) or one .jsonl/.parquet")
    sft.add_argument("--out", type=Path, required=True, help="folder for checkpoints, loss.png and the trained model")
    sft.add_argument("--model", default="smollm2", help="base model: a local HF folder, a .gguf file or smollm2 (default)")
    sft.add_argument("--max-steps", type=int, default=-1, metavar="N", help="optimizer steps (default: --epochs over the data)")
    sft.add_argument("--epochs", type=float, default=1.0, help="passes over the data when --max-steps is not given (default 1)")
    sft.add_argument("--lr", type=float, default=2e-5, help="peak learning rate, cosine schedule (default 2e-5; 2e-4 suits --lora)")
    sft.add_argument("--batch-size", type=int, default=1, help="rows per device step (default 1)")
    sft.add_argument("--grad-accum", type=int, default=8, help="device steps per optimizer step (default 8)")
    sft.add_argument("--max-length", type=int, default=4096, help="longest row in tokens; longer ones are left out and listed (default 4096)")
    sft.add_argument("--limit", type=int, default=None, metavar="N", help="train on the first N training rows only")
    sft.add_argument("--lora", action="store_true", help="train LoRA adapters (PEFT) instead of every weight; merged on save")
    sft.add_argument("--lora-r", type=int, default=16, help="LoRA rank (default 16)")
    sft.add_argument("--lora-alpha", type=int, default=32, help="LoRA alpha (default 32)")
    sft.add_argument("--activation-checkpointing", action="store_true", help="recompute activations in the backward pass: less memory for long rows")
    sft.add_argument("--device", default="auto", help="auto (cuda when present, default), cpu, cuda, cuda:1 ...")
    sft.add_argument("--save-steps", type=int, default=50, help="checkpoint every N optimizer steps (default 50)")
    sft.add_argument("--logging-steps", type=int, default=1, help="log the loss every N steps (default 1)")
    sft.add_argument("--resume", action="store_true", help="continue from the newest checkpoint-N in --out")
    sft.add_argument("--seed", type=int, default=0, help="seed of data order and initialisation (default 0)")
    sft.add_argument("--time-limit", type=float, default=None, metavar="S", help="stop training after S seconds and save the model as at the end (a fixed GPU budget)")
    sft.add_argument("--threads", type=int, default=0, help="torch CPU threads (default: half the cores, at most 4)")


def run(args: argparse.Namespace) -> int:
    from ecot.cli.common import check_folder
    from ecot.train import TrainSettings, train_sft

    check_folder(args.out, "--out")
    settings = TrainSettings(
        data=args.data, out=args.out, model=args.model, max_steps=args.max_steps, epochs=args.epochs,
        learning_rate=args.lr, batch_size=args.batch_size, grad_accum=args.grad_accum, max_length=args.max_length,
        lora=args.lora, lora_rank=args.lora_r, lora_alpha=args.lora_alpha, device=args.device,
        activation_checkpointing=args.activation_checkpointing,
        save_steps=args.save_steps, logging_steps=args.logging_steps, resume=args.resume, seed=args.seed,
        limit=args.limit, threads=args.threads, time_limit_s=args.time_limit,
    )
    result = train_sft(settings, say=lambda line: print(line, flush=True))
    print(f"device: {result.device}{' (bf16)' if result.bf16 else ''}")
    stopped = f" (stopped at its --time-limit of {args.time_limit:g}s)" if result.stopped_by_time_limit else ""
    print(f"trained on {result.train_rows} rows ({result.train_tokens} tokens) for {result.steps} steps{stopped}")
    if result.too_long:
        print(f"left out (longer than {args.max_length} tokens): {len(result.too_long)}")
    if result.train_loss:
        print(f"training loss: {result.train_loss[0][1]:.4f} (step {result.train_loss[0][0]}) -> "
              f"{result.train_loss[-1][1]:.4f} (step {result.train_loss[-1][0]})")
    if result.eval_loss is not None:
        before = f"{result.eval_loss_before:.4f} -> " if result.eval_loss_before is not None else ""
        print(f"validation loss: {before}{result.eval_loss:.4f}")
    print(f"loss curve: {result.plot}")
    print(f"model: {result.model_dir}  (its card: {result.model_dir / 'README.md'}; serve it: "
          f"ecot serve --mode hf --model {result.model_dir})")
    return 0
