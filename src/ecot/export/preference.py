"""Preference pairs for DPO: a failed attempt against the verified fix of the same trajectory.

For a trajectory whose final turn passed real execution after at least one correction, every
earlier attempt that real execution judged a failure of the code becomes one pair: the prompt is
the task (system + user), `chosen` the final, passing code, `rejected` that attempt's code. Left
out: attempts judged only by a world model (their failure is not verified), Infra_Error (the
harness failed, not the code), No_Code (nothing to compare), and code identical to the fix or to
an attempt already paired. The responses are the answers (fenced code) only: a turn's reasoning
refers to verdicts that the prompt does not show.
"""

from __future__ import annotations

from typing import Any

from ecot.core.extract import fence
from ecot.core.outcome import INFRA_ERROR, NO_CODE
from ecot.core.trajectory import REAL, Trajectory
from ecot.export.fold import chat_prompt, foldable, language, provenance_of
from ecot.export.sample import Sample


def preference_pairs(traj: Trajectory) -> list[Sample]:
    if not foldable(traj) or len(traj.turns) < 2:
        return []
    final = traj.final
    assert final is not None and final.code is not None
    lang = language(traj.domain)
    chosen = [{"role": "assistant", "content": fence(final.code, lang)}]
    seen = {final.code.strip()}
    pairs = []
    for turn in traj.turns[:-1]:
        if turn.observation_source != REAL or turn.outcome.label in (INFRA_ERROR, NO_CODE) or turn.code is None:
            continue
        if turn.code.strip() in seen:
            continue
        seen.add(turn.code.strip())
        rejected = [{"role": "assistant", "content": fence(turn.code, lang)}]
        meta: dict[str, Any] = {
            **provenance_of(traj, "preference"),
            "rejected_turn": turn.index,
            "rejected_label": turn.outcome.label,
            "rejected_diagnostic": turn.outcome.diagnostic,
        }
        pairs.append(Sample("preference", chat_prompt(traj), {"chosen": chosen, "rejected": rejected}, meta))
    return pairs
