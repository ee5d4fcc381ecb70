"""Rows of the training files and their one schema, shared by JSONL and Parquet.

The Parquet schema is explicit and every JSONL value has the matching Python type, so both files
load in `datasets` with identical features (integers are int64 in both; `metadata` is a JSON
string so heterogeneous provenance never breaks schema inference).
"""

from __future__ import annotations

import json
from typing import Any

from ecot.export.sample import Sample

FLAT = ("metadata", "domain", "task_id", "run_id", "sample", "rounds")
TOKEN_COLUMNS = ("tokens", "prompt_tokens", "completion_tokens")
_CHATS = frozenset({"messages", "prompt", "completion", "chosen", "rejected"})


def chat_columns(kind: str, layout: str) -> tuple[str, ...]:
    if kind == "preference":
        return ("prompt", "chosen", "rejected")
    return ("messages",) if layout == "messages" else ("prompt", "completion")


def columns(kind: str, layout: str, with_tokens: bool) -> tuple[str, ...]:
    return (*chat_columns(kind, layout), *FLAT, *(TOKEN_COLUMNS if with_tokens else ()))


def arrow_schema(kind: str, layout: str, with_tokens: bool) -> Any:
    import pyarrow as pa

    chat = pa.list_(pa.struct([("role", pa.string()), ("content", pa.string())]))
    types = {"metadata": pa.string(), "domain": pa.string(), "task_id": pa.string()}
    return pa.schema([(name, chat if name in _CHATS else types.get(name, pa.int64())) for name in columns(kind, layout, with_tokens)])



def train_row(sample: Sample, layout: str = "messages", tokens: dict[str, int] | None = None) -> dict[str, Any]:
    """The row for one sample, its keys in schema order."""
    meta = sample.metadata
    row: dict[str, Any] = {}
    if sample.kind != "preference" and layout == "messages":
        row["messages"] = _chat(sample.prompt + sample.completions["completion"])
    else:
        row["prompt"] = _chat(sample.prompt)
        row.update({name: _chat(chat) for name, chat in sample.completions.items()})
    row["metadata"] = json.dumps(meta, sort_keys=True, ensure_ascii=False, default=str)
    row.update(domain=str(meta["domain"]), task_id=str(meta["task_id"]))
    row.update(run_id=int(meta.get("run_id") or 0), sample=int(meta["sample"]), rounds=int(meta["rounds"]))
    if tokens is not None:
        row.update({name: int(tokens[name]) for name in TOKEN_COLUMNS})
    return row


def _chat(messages: list[dict[str, str]]) -> list[dict[str, str]]:
    return [{"role": str(m["role"]), "content": str(m["content"])} for m in messages]
