"""Exact and near-duplicate removal, first occurrence kept (samples arrive in store order).

Exact: the same prompt and completion text after whitespace normalization (a sha256 key).
Near: MinHash over word 5-gram shingles, estimated Jaccard similarity >= `threshold` for the
prompt *and* for the completion. Comparing both keeps two different solutions to one long task
prompt (the prompt alone would look alike) and one answer to two different tasks. Candidates come
from locality-sensitive hashing (16 bands of 8 rows: a pair at similarity 0.9 is found with
probability > 0.9999); the estimate's standard error is about 0.03 at 0.9 with 128 hashes.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict

import numpy as np

from ecot.export.sample import Sample

SHINGLE_WORDS = 5
HASHES = 128
BANDS = 16
ROWS = HASHES // BANDS
_WORD = re.compile(r"\S+")
_rng = np.random.default_rng(20240917)  # fixed: signatures must be comparable across runs
_MULT = _rng.integers(1, 2**63, size=HASHES, dtype=np.uint64) | np.uint64(1)  # odd multipliers
_ADD = _rng.integers(0, 2**63, size=HASHES, dtype=np.uint64)


def normalized(text: str) -> str:
    return " ".join(text.split())


def signature(text: str) -> np.ndarray:
    """128 MinHash values of the text's word 5-gram shingles (multiply-shift hashing mod 2^64)."""
    words = _WORD.findall(text)
    grams = {" ".join(words[i : i + SHINGLE_WORDS]) for i in range(max(1, len(words) - SHINGLE_WORDS + 1))}
    keys = np.fromiter(
        (int.from_bytes(hashlib.blake2b(g.encode("utf-8"), digest_size=8).digest(), "little") for g in grams),
        dtype=np.uint64, count=len(grams),
    )
    with np.errstate(over="ignore"):
        hashed = keys[None, :] * _MULT[:, None] + _ADD[:, None]
    minima: np.ndarray = (hashed >> np.uint64(16)).min(axis=1)
    return minima


def similarity(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.mean(a == b))


class Deduplicator:
    """`duplicate(sample)` is None for a new sample (now remembered), else "exact" or "near"."""

    def __init__(self, threshold: float | None = 0.9) -> None:
        self.threshold = threshold
        self._exact: set[bytes] = set()
        self._prompts: list[np.ndarray] = []
        self._completions: list[np.ndarray] = []
        self._buckets: dict[tuple[int, bytes], list[int]] = defaultdict(list)

    def duplicate(self, sample: Sample) -> str | None:
        prompt, completion = sample.prompt_text(), sample.completion_text()
        key = hashlib.sha256(f"{normalized(prompt)}\0{normalized(completion)}".encode()).digest()
        if key in self._exact:
            return "exact"
        self._exact.add(key)
        if self.threshold is None:
            return None
        prompt_sig, completion_sig = signature(prompt), signature(completion)
        bands = [(band, completion_sig[band * ROWS : (band + 1) * ROWS].tobytes()) for band in range(BANDS)]
        candidates = {index for band in bands for index in self._buckets.get(band, ())}
        for index in sorted(candidates):
            if (similarity(completion_sig, self._completions[index]) >= self.threshold
                    and similarity(prompt_sig, self._prompts[index]) >= self.threshold):
                return "near"
        index = len(self._prompts)
        self._prompts.append(prompt_sig)
        self._completions.append(completion_sig)
        for band in bands:
            self._buckets[band].append(index)
        return None
