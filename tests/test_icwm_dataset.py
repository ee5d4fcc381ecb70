"""World-model data: store -> examples, task-level splits, fingerprints, observation templates, metrics."""

from __future__ import annotations

import dataclasses
from collections import Counter
from pathlib import Path

import pytest

from ecot.core.errors import EcotError
from ecot.core.outcome import Outcome, infra_error, no_code
from ecot.core.task import Task
from ecot.core.trajectory import Turn
from ecot.domains.asm.hints import asm_context, c_kind
from ecot.domains.gpu.hints import triton_line_context
from ecot.domains.languages import python_same_syntax
from ecot.domains.python.hints import python_line_context
from ecot.icwm.dataset import (
    Dataset,
    Example,
    fingerprint,
    held_out_tasks,
    load_dataset,
    run_folds,
    task_folds,
)
from ecot.icwm.diagnose import Anchor, adapt
from ecot.icwm.fast import FastWorldModel
from ecot.icwm.features import _WHOLE_NAME, Vocabulary, _word_count, diff, features, static_facts
from ecot.icwm.fidelity import cross_validate, first_turns
from ecot.icwm.metrics import TurnRecord, domain_turns
from ecot.icwm.templates import parse_observation, render_observation, render_prompt
from ecot.store import TrajectoryStore

REFERENCE = "module adder(input [3:0] a, b, output [4:0] s);\n  assign s = a + b;\nendmodule\n"
PROMPT = [{"role": "user", "content": "Write an adder."}]


def task(name: str, domain: str = "rtl") -> Task:
    return Task(id=f"{domain}/{name}", domain=domain, prompt="Write an adder.", files={"tb.sv": "module tb; adder dut(); endmodule\n"}, reference=REFERENCE)


def turn(index: int, outcome: Outcome, code: str | None = REFERENCE, source: str = "real") -> Turn:
    return Turn(index, "thinking", code, "raw", outcome, observation_source=source)


@pytest.fixture
def store(tmp_path: Path):
    with TrajectoryStore(tmp_path / "s.db") as opened:
        yield opened


def test_only_real_judged_code_turns_become_examples(store: TrajectoryStore) -> None:
    run = store.begin_run({"run": 1})
    traj = store.trajectory(run, "rtl/a", "rtl", 0, PROMPT, {"generator": "repair"})
    store.append_turn(traj, turn(0, Outcome("Syntax_Error", "design.sv:2: syntax error"), REFERENCE.replace(";", "", 1)))
    store.append_turn(traj, turn(1, no_code(), None))
    store.append_turn(traj, turn(2, infra_error("iverilog crashed")))
    store.append_turn(traj, turn(3, Outcome("Pass", "ok"), source="icwm:fast-x"))  # not audited: skipped
    store.append_turn(traj, turn(4, Outcome("Pass", "ok"), source="icwm:fast-x"))
    store.record_audit(traj, 4, Outcome("Simulation_Mismatch", "MISMATCH got=x"), "fast-x")
    other = store.trajectory(run, "rtl/unknown", "rtl", 0, PROMPT, {})
    store.append_turn(other, turn(0, Outcome("Pass", "ok")))
    data = load_dataset(store, {"rtl/a": task("a")})
    assert [(e.turn, e.outcome.label, e.origin) for e in data.examples] == [
        (0, "Syntax_Error", "turn"), (4, "Simulation_Mismatch", "audit"),
    ]
    assert data.skipped == {"no code": 1, "Infra_Error": 1, "world-model turn, not audited": 1, "task not found in the suites": 1}


def examples(tasks: int, per_task: int = 3, domains: tuple[str, ...] = ("rtl", "python")) -> list[Example]:
    return [
        Example(f"{d}/t{t}", d, f"code {t} {k}", Outcome("Pass" if k % 2 else "Syntax_Error", "diag"))
        for d in domains for t in range(tasks) for k in range(per_task)
    ]


def test_held_out_split_is_by_task_stable_and_per_domain() -> None:
    data = examples(10)
    held = held_out_tasks(data, 0.2, seed=3)
    assert held == held_out_tasks(list(reversed(data)), 0.2, seed=3)
    assert sum(t.startswith("rtl/") for t in held) == 2 and sum(t.startswith("python/") for t in held) == 2
    train = {e.task_id for e in data if e.task_id not in held}
    assert train and not train & held  # no task on both sides, so no turn of a held-out task leaks


def test_folds_hold_every_task_out_exactly_once() -> None:
    data = examples(7)
    folds = task_folds(data, 3)
    every = [t for fold in folds for t in fold]
    assert sorted(every) == sorted({e.task_id for e in data})
    assert len(every) == len(set(every))
    assert max(len(f) for f in folds) - min(len(f) for f in folds) <= 1


def test_run_folds_hold_every_run_out_once_and_cross_validation_counts_unseen_candidates() -> None:
    runs = [dataclasses.replace(e, run_id=1 + i % 4) for i, e in enumerate(examples(3, per_task=8))]
    folds = run_folds(runs, 2)
    assert sorted(r for fold in folds for r in fold) == [1, 2, 3, 4] and all(folds)
    with pytest.raises(EcotError, match="two synthesis runs"):
        run_folds([dataclasses.replace(e, run_id=1) for e in runs], 2)
    code = {"Pass": REFERENCE, "Simulation_Mismatch": REFERENCE.replace("a + b", "a - b"), "Syntax_Error": REFERENCE.replace(";", "")}
    labels = ["Pass", "Simulation_Mismatch", "Syntax_Error", "Pass"]
    both = [Example("rtl/a", "rtl", code[labels[i // 2 % 4]], Outcome(labels[i // 2 % 4], "d"), run_id=1 + i % 2) for i in range(24)]
    new = Example("rtl/a", "rtl", REFERENCE.replace("a + b", "a * b"), Outcome("Simulation_Mismatch", "d"), run_id=2)
    data = Dataset([*both, new], {"rtl/a": task("a")})
    report = cross_validate(data, FastWorldModel, 2, None, speed_turns=0, trajectories=False, split="runs")
    turns = report.turns["rtl"]
    assert report.setup["split"] == "runs" and turns["turns"] == 25
    assert turns["unseen_turns"] == 1  # every other candidate also ran in the other run
    assert turns["accuracy"] >= 24 / 25  # ... and is remembered
    with pytest.raises(EcotError, match="unknown split"):
        cross_validate(data, FastWorldModel, 2, None, split="turns")
    with pytest.raises(EcotError, match="task split"):
        cross_validate(data, FastWorldModel, 2, None, split="runs", shots=3)


def test_shots_train_on_the_first_turns_of_each_held_out_task_and_judge_the_rest() -> None:
    turns = examples(4, per_task=6, domains=("rtl",))
    first, rest = first_turns(turns, 2)
    assert len(first) == 8 and len(rest) == 16
    assert all(sum(e.task_id == t for e in first) == 2 for t in {e.task_id for e in turns})
    assert first == [e for e in turns if e in first]  # store order: the earliest turns of each task
    report = cross_validate(Dataset(turns, {e.task_id: task(e.task_id.split("/")[1]) for e in turns}), FastWorldModel, 2, None,
                            speed_turns=0, trajectories=False, shots=2)
    assert report.setup["shots"] == 2 and report.turns["rtl"]["turns"] == 16 and "2 real turns" in report.model
    assert report.turns["rtl"]["unseen_turns"] == 16  # every judged candidate differs from the trained ones


def test_fingerprint_ignores_order_and_sees_labels() -> None:
    data = examples(3)
    assert fingerprint(data) == fingerprint(list(reversed(data)))
    changed = [*data[:-1], Example(data[-1].task_id, data[-1].domain, data[-1].code, Outcome("Timeout", "diag"))]
    assert fingerprint(changed) != fingerprint(data)


def test_observation_template_round_trips() -> None:
    outcome = Outcome("Simulation_Mismatch", "MISMATCH time=11 signal=q\n expected=0", metrics={"mismatches": 7, "samples": 400, "sim_s": 0.01})
    text = render_observation(outcome, "rtl")
    assert text == "Label: Simulation_Mismatch\nDiagnostic: MISMATCH time=11 signal=q expected=0\nMetrics: mismatches=7; samples=400"
    back = parse_observation(text + "\nmore text", ("Pass", "Simulation_Mismatch"), "Pass")
    assert (back.label, back.diagnostic, back.metrics) == ("Simulation_Mismatch", "MISMATCH time=11 signal=q expected=0", {"mismatches": 7, "samples": 400})
    assert parse_observation("Label: Bogus", ("Pass",), "Pass").label == "Pass"


def test_prompt_keeps_the_diff_within_budget() -> None:
    code = REFERENCE.replace("a + b", "a - b")
    prompt = render_prompt(task("a"), code, budget=600)
    assert prompt.startswith("<domain:rtl> task rtl/a") and prompt.endswith("## observation\n")
    assert "-  assign s = a + b;" in prompt and "+  assign s = a - b;" in prompt
    assert len(prompt) < 800


def test_features_describe_the_change_against_the_reference() -> None:
    vocab = Vocabulary.learn([task("a"), task("b")])
    same = features(task("a"), REFERENCE, vocab)
    assert same == {"rtl|same": 1.0, "rtl|hunks:0": 1.0, "rtl|sim:10": 1.0}
    d = diff(REFERENCE, REFERENCE.replace("a + b", "a - b").replace("endmodule", "endmodul"), "rtl")
    assert [(h.tag, [t.text for t in h.old], [t.text for t in h.new], h.line) for h in d.hunks] == [
        ("replace", ["+"], ["-"], 2), ("replace", ["endmodule"], ["endmodul"], 3),
    ]
    typo = features(task("a"), REFERENCE.replace("s = a", "s = aa"), vocab)
    assert "rtl|rep:a>NEW" in typo and not any(key.startswith("*|") for key in typo)  # an undeclared name
    spaced = diff(REFERENCE, REFERENCE.replace("a + b", "a  +  b") + "// comment\n", "rtl")
    assert spaced.same  # spacing and comments are no change



def test_a_change_is_also_read_in_the_task_context_of_its_tags() -> None:
    tagged = Task(id="rtl/t", domain="rtl", prompt="p", reference=REFERENCE, tags=("arith", "comb"))
    vocab = Vocabulary.learn([tagged])
    changed = features(tagged, REFERENCE.replace("a + b", "a - b"), vocab)
    assert {"rtl|tag:arith", "rtl|tag:comb", "rtl|tag:arith|rep:+>-", "rtl|tag:comb|rep:+>-"} <= set(changed)
    assert not any("|tag:" in key for key in features(tagged, REFERENCE, vocab))  # no change, no context
    untagged = features(task("a"), REFERENCE.replace("a + b", "a - b"), Vocabulary.learn([task("a")]))
    assert not any("|tag:" in key for key in untagged)


def test_asm_changes_are_read_against_the_routine_s_argument_kinds() -> None:
    driver = "#include <stdint.h>\nlong f(const long *a, long n, int (*pred)(long));\nint main(void) { return 0; }\n"
    asm = Task(id="asm/f", domain="asm", prompt="p", reference=ASM_REFERENCE, files={"driver.c": driver}, options={"function": "f"})
    assert asm_context(asm) == ("arg:fn", "arg:i64", "arg:ptr", "ret:i64")
    changed = features(asm, ASM_REFERENCE.replace("%rax", "%rbx"), Vocabulary.learn([asm]))
    assert "asm|tag:arg:ptr" in changed and "asm|tag:arg:fn|rep:REG>REG_SAVED" in changed
    assert asm_context(Task(id="asm/g", domain="asm", prompt="p", options={"function": "g"})) == ()  # no prototype
    assert [c_kind(t) for t in ("unsigned x", "char c", "void", "uint64_t v", "const char *s")] == ["i32", "i8", "void", "i64", "ptr"]


TRITON_REFERENCE = """\
@triton.jit
def row_scale(a_ptr, b_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(axis=0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    scale = tl.load(a_ptr + row)
    b = tl.load(b_ptr + row * n_cols + cols, mask=mask, other=0.0)
    tl.store(out_ptr + row * n_cols + cols, b * scale, mask=mask)
    total = tl.sum(tl.load(b_ptr + cols, mask=cols < n_cols), axis=0)
"""


def test_gpu_changes_are_read_against_the_memory_accesses_of_their_line() -> None:
    gpu = Task(id="gpu/row_scale", domain="gpu", prompt="p", reference=TRITON_REFERENCE)
    assert triton_line_context(gpu, 5) == ("guards:store:row",)  # the mask guards a row-addressed store
    assert triton_line_context(gpu, 6) == ("access:load:flat",)
    assert triton_line_context(gpu, 8) == ("access:store:row",)  # (not `b * scale`: only the address counts)
    assert triton_line_context(gpu, 4) == ("guards:store:row",)  # cols reaches loads and a store
    assert triton_line_context(gpu, 3) == ("guards:store:row",)
    assert triton_line_context(gpu, 1) == () and triton_line_context(gpu, 99) == ()
    off_by_one = features(gpu, TRITON_REFERENCE.replace("mask = cols < n_cols", "mask = cols <= n_cols"), Vocabulary.learn([gpu]))
    assert "gpu|tag:guards:store:row" in off_by_one and "gpu|tag:guards:store:row|rep:<><=" in off_by_one
    assert not any("guards" in key for key in features(gpu, TRITON_REFERENCE.replace("other=0.0", "other=1.0"), Vocabulary.learn([gpu])))


PY_REFERENCE = """\
LIMIT = 10


def helper(xs):
    return [x * 2 for x in xs]


def solve(grid):
    total = 0
    for row in grid:
        # every cell
        for cell in row:
            total += cell
        total -= 1
    return total
"""


def test_python_changes_are_read_against_where_their_line_runs() -> None:
    py = Task(id="python/solve", domain="python", prompt="p", reference=PY_REFERENCE, options={"entry_point": "solve"})
    roles = [python_line_context(py, line) for line in range(1, 16)]
    assert roles[0] == ("in:module",) and roles[4] == ("in:helper",) and roles[8] == ("in:entry",)
    assert roles[12] == ("in:entry", "in:loop", "in:loop2") and roles[13] == ("in:entry", "in:loop")
    assert roles[10] == () and roles[14] == ("in:entry",) and python_line_context(py, 40) == ()
    off_by_one = features(py, PY_REFERENCE.replace("total += cell", "total += cell + 1"), Vocabulary.learn([py]))
    assert "python|tag:in:loop2" in off_by_one and "python|tag:in:loop|ins:+" in off_by_one


def test_code_appended_after_a_blank_last_line_and_floods_of_new_names_get_features() -> None:
    py = Task(id="python/f", domain="python", prompt="p", reference="def f(x):\n    return x\n\n")
    vocab = Vocabulary.learn([py])
    appended = features(py, py.reference + "\nprint(f(1))\n", vocab)  # the change sits after a blank line
    assert "python|insert" in appended and "python|static:came:ID:1:2" in appended
    flood = py.reference + "".join(f"v{i} = f({i})\n" for i in range(40))  # counted in one pass, same facts
    assert "python|static:came:ID:1:3" in features(py, flood, vocab)
    assert "python|static:came:NEW:0:1" in features(py, flood, vocab)
    text = "a 1abc abc $x x a$b b_c abc"  # the one-pass count agrees with the name-by-name one
    assert [_word_count(text, n) for n in ("abc", "x", "a", "b", "b_c")] == [Counter(_WHOLE_NAME.findall(text))[n] for n in ("abc", "x", "a", "b", "b_c")] == [2, 1, 1, 0, 1]


ASM_REFERENCE = """\
\t.globl\tf
f:
\tmovq\t%rdi, %rax
\taddq\t%rsi, %rax
\tret
"""


def test_language_words_and_name_uses_are_features() -> None:
    asm = Task(id="asm/f", domain="asm", prompt="p", reference=ASM_REFERENCE)
    vocab = Vocabulary.learn([asm])
    saved = features(asm, ASM_REFERENCE.replace("%rax", "%rbx"), vocab)
    scratch = features(asm, ASM_REFERENCE.replace("%rax", "%rdx"), vocab)
    typo = features(asm, ASM_REFERENCE.replace("%rax", "%rxa"), vocab)
    assert "asm|rep:REG>REG_SAVED" in saved and "asm|rep:REG>REG" in scratch and "asm|rep:REG>NEW" in typo
    # a renamed interrupt handler that nothing else names, against a renamed variable whose uses dangle
    c_reference = "void EXTI0_IRQHandler(void) { hits++; }\nint hits;\nint get(void) { return hits; }\n"
    fw = Task(id="firmware/h", domain="firmware", prompt="p", reference=c_reference)
    vocab = Vocabulary.learn([fw])
    handler = features(fw, c_reference.replace("EXTI0_IRQHandler", "EXTI0_IRQ_Handler"), vocab)
    assert "firmware|static:gone:HANDLER:1:0" in handler and "firmware|static:came:NEW:0:1" in handler
    assert "firmware|rep:HANDLER>NEW" in handler
    dangling = features(fw, c_reference.replace("int hits;", "int hit;"), vocab)
    assert "firmware|static:gone:ID:3:2" in dangling
    py = Task(id="python/n", domain="python", prompt="p", reference="def n(xs):\n    return len(xs)\n")
    vocab = Vocabulary.learn([py])
    assert "python|rep:KW>KW" in features(py, py.reference.replace("len", "sum"), vocab)
    assert "python|rep:KW>NEW" in features(py, py.reference.replace("len", "lne"), vocab)


@pytest.mark.parametrize(
    ("old", "new", "kept"),
    [("a", "b", True), ("1", "2.5", True), ("<", "<=", True), ("+", "-=", True), ("a", "if", False),
     ("x", "1", False), ("<", "(", False), ("None", "x", False)],
)
def test_python_token_swaps_that_keep_the_syntax(old: str, new: str, kept: bool) -> None:
    assert python_same_syntax(old, new) is kept


def test_static_check_skips_the_parse_only_where_the_swap_keeps_the_syntax() -> None:
    reference = "def f(a, b):\n    return a + b\n"
    swapped = reference.replace("a + b", "a - b")
    broken = reference.replace("a + b", "a + if")
    assert static_facts(swapped, "python", diff(reference, swapped, "python"), reference) == ("compiles",)
    assert static_facts(broken, "python", diff(reference, broken, "python"), reference) == ("syntax_error",)
    bad_reference = "def f(a, b:\n    return a + b\n"  # the shortcut answers what the reference's own check says
    assert static_facts(bad_reference.replace("+", "-"), "python", diff(bad_reference, bad_reference.replace("+", "-"), "python"), bad_reference) == ("syntax_error",)


def test_adapt_moves_line_numbers_and_role_names() -> None:
    source = Anchor(10, (("new", ("cn",)), ("old", ("cnt",)), ("line", ("cnt", "q")), ("main", ("top_a",))))
    target = Anchor(14, (("new", ("ct",)), ("old", ("count",)), ("line", ("count", "y")), ("main", ("top_b",))))
    assert adapt("design.sv:11: error: Unable to bind `cn' in `top_a'", source, target) == "design.sv:15: error: Unable to bind `ct' in `top_b'"
    assert adapt("design.sv:40: syntax error", source, target) == "design.sv:40: syntax error"  # far from the change


def record(real: str, predicted: str, key: str, confidence: float = 1.0) -> TurnRecord:
    return TurnRecord(
        "rtl", "rtl/a", key, Outcome(real, "d", metrics={"mismatches": 4}), Outcome(predicted, "d", metrics={"mismatches": 6}),
        confidence,
    )


def test_selective_accuracy_trades_coverage_for_accuracy() -> None:
    records = [record("Pass", "Pass", f"r{i}", 0.97) for i in range(9)]
    records += [record("Pass", "Syntax_Error", "w1", 0.55), record("Syntax_Error", "Pass", "w2", 0.92)]
    table = domain_turns(records)["selective"]
    rows = {row["threshold"]: row for row in table["thresholds"]}
    assert rows[0.5] == {"threshold": 0.5, "coverage": 1.0, "accuracy": round(9 / 11, 4)}
    assert rows[0.9] == {"threshold": 0.9, "coverage": round(10 / 11, 4), "accuracy": 0.9}
    assert rows[0.95] == {"threshold": 0.95, "coverage": round(9 / 11, 4), "accuracy": 1.0}
    assert rows[0.99]["coverage"] == 0.0 and rows[0.99]["accuracy"] is None
    assert table["for_target"] == {"threshold": 0.95, "coverage": round(9 / 11, 4), "accuracy": 1.0}


def test_turn_metrics_expose_a_majority_label_model() -> None:
    records = [record("Simulation_Mismatch", "Simulation_Mismatch", f"k{i}") for i in range(8)]
    records += [record("Syntax_Error", "Simulation_Mismatch", "s1"), record("Pass", "Simulation_Mismatch", "p1")]
    report = domain_turns(records)
    assert report["accuracy"] == 0.8 and report["majority_baseline"] == 0.8
    assert report["balanced_accuracy"] == pytest.approx(1 / 3, abs=1e-3)  # recall 1, 0, 0
    assert report["labels"]["Syntax_Error"]["recall"] == 0.0
    assert report["confusion"]["Pass"] == {"Simulation_Mismatch": 1}
    assert report["metrics"]["mismatches"]["mae"] == 2.0
    assert report["diagnostic"]["exact"] == 1.0


def test_a_model_s_name_changes_with_its_options_and_code_not_only_its_data() -> None:
    from ecot.icwm.base import ModelCard

    card = ModelCard("fast", fingerprint="a" * 64, params={"c": 0.5}, code_version="git:v1")
    assert ModelCard.from_dict(card.to_dict()).name == card.name and card.name.startswith("fast-")
    assert ModelCard("fast", fingerprint="a" * 64, params={"c": 1.0}, code_version="git:v1").name != card.name
    assert ModelCard("fast", fingerprint="a" * 64, params={"c": 0.5}, code_version="git:v2").name != card.name
    assert ModelCard("fast").name == "fast"
