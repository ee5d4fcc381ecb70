"""Train / validation split by task: every sample of a task lands in the same split.

A task's split depends only on (seed, task id): a hash maps the pair to [0, 1) and the task is
held out when that value is below the validation fraction. So the split never leaks a task, is
the same for every export kind (an SFT validation task is also a preference and trace validation
task), and a task keeps its split when the corpus grows: adding tasks moves no existing one.
The cost is that the held-out share of a small corpus only approximates the fraction.
"""

from __future__ import annotations

import hashlib

TRAIN = "train"
VALIDATION = "validation"
SPLITS = (TRAIN, VALIDATION)


def task_split(task_id: str, validation: float, seed: int = 0) -> str:
    if validation <= 0:
        return TRAIN
    digest = hashlib.sha256(f"{seed}\0{task_id}".encode()).digest()
    position = int.from_bytes(digest[:8], "big") / 2**64
    return VALIDATION if position < validation else TRAIN
