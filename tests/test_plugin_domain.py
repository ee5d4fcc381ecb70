"""A domain added by an entry point is first-class: a toy shell-script domain, installed as a package in a
temporary folder (a hand-written .dist-info, as pip would write it), goes through `ecot check`,
`ecot synth --generator replay`, `ecot export` and the world model's templates, each in a fresh process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"

DOMAIN_MODULE = '''
from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from ecot.core.domain import Domain, KindedLabel, LabelKind


class ToyLabel(KindedLabel):
    TOY_SYNTAX_ERROR = "Toy_Syntax_Error", LabelKind.BUILD
    TOY_WRONG_OUTPUT = "Toy_Wrong_Output", LabelKind.WRONG


class ToyOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    expect: str


DOMAIN = Domain(
    name="toy",
    language="sh",
    fences=("sh", "shell", "bash"),
    suffix=".sh",
    comment="#",
    labels=ToyLabel,
    backend="toyplug.backend:ToyBackend",
    options=ToyOptions,
)
'''

BACKEND_MODULE = '''
from __future__ import annotations

from ecot import sandbox
from ecot.core.outcome import PASS, TIMEOUT, Outcome
from ecot.core.task import Task
from ecot.domains.base import Backend
from toyplug.domain import ToyLabel, ToyOptions


class ToyBackend(Backend):
    """Shell scripts: `sh -n` is the compiler, `sh` the machine, the expected stdout the test."""

    domain = "toy"  # its labels are the descriptor's: ToyLabel and the shared ones
    tools = ("sh",)

    def evaluate(self, task: Task, candidate: str) -> Outcome:
        expect = ToyOptions.model_validate(dict(task.options)).expect
        with sandbox.workdir("ecot-toy-") as work:
            sandbox.write_files(work, {"candidate.sh": candidate})
            parsed = sandbox.run(["sh", "-n", "candidate.sh"], work, task.limits)
            if parsed.returncode != 0:
                return Outcome(ToyLabel.TOY_SYNTAX_ERROR.value, parsed.stderr.strip()[:300], parsed.stderr)
            ran = sandbox.run(["sh", "candidate.sh"], work, task.limits)
        if ran.timed_out:
            return Outcome(TIMEOUT, "the script ran out of time")
        got = ran.stdout.strip()
        if got != expect:
            return Outcome(ToyLabel.TOY_WRONG_OUTPUT.value, f"expected {expect!r}, got {got!r}", ran.stdout + ran.stderr)
        return Outcome(PASS, "the output matches")
'''

TASK_TOML = '''
id = "toy/five"
domain = "toy"
prompt = "Write a shell script that prints the sum of 2 and 3."
reference_file = "reference.sh"

[options]
expect = "5"
'''

RIGHT = "# add them\necho $((2 + 3))\n"
WRONG = "echo $((2 * 3))\n"
BROKEN = "if then fi (\n"


@pytest.fixture(scope="module")
def plugin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A site folder holding the installed toy package, and a one-task suite and candidates beside it."""
    root = tmp_path_factory.mktemp("toy-plugin")
    site = root / "site"
    (site / "toyplug").mkdir(parents=True)
    (site / "toyplug" / "__init__.py").write_text('"""A toy ecot domain."""\n')
    (site / "toyplug" / "domain.py").write_text(DOMAIN_MODULE)
    (site / "toyplug" / "backend.py").write_text(BACKEND_MODULE)
    info = site / "toyplug-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toyplug\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[ecot.domains]\ntoy = toyplug.domain:DOMAIN\n")
    task = root / "suite" / "five"
    task.mkdir(parents=True)
    (task / "task.toml").write_text(TASK_TOML)
    (task / "reference.sh").write_text(RIGHT)
    for name, code in (("right.sh", RIGHT), ("wrong.sh", WRONG), ("broken.sh", BROKEN)):
        (root / name).write_text(code)
    return root


def ecot(root: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root / "site"), str(SRC)])}
    return subprocess.run(
        [sys.executable, "-m", "ecot.cli.main", *argv], check=False, capture_output=True, text=True, env=env, cwd=root,
        timeout=300,
    )


def python(root: Path, code: str) -> str:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root / "site"), str(SRC)])}
    done = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def checked(root: Path, candidate: str) -> dict[str, Any]:
    done = ecot(root, "check", str(root / "suite" / "five"), str(root / candidate), "--json")
    assert done.stdout.strip(), done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_the_entry_point_makes_a_domain(plugin: Path) -> None:
    out = python(plugin, textwrap.dedent("""
        from ecot.core.domain import domain_names, get_domain
        from ecot.core.extract import extract_code
        from ecot.domains import BACKENDS
        toy = get_domain("toy")
        print(domain_names())
        print(toy.source_suffix(), toy.label_kind("Toy_Wrong_Output"), toy.label_kind("Pass"))
        print(BACKENDS.get("toy").__name__, " ".join(BACKENDS.get("toy").all_labels()))
        print(repr(extract_code("```python\\nx\\n```\\n```sh\\necho 5\\n```\\n```text\\nnote\\n```", "toy")))
    """))
    names, kinds, backend, extracted = out.splitlines()
    assert "toy" in names and "rtl" in names
    assert kinds == ".sh wrong pass"
    backend_name, *backend_labels = backend.split()
    assert backend_name == "ToyBackend"
    assert backend_labels[:2] == ["Toy_Syntax_Error", "Toy_Wrong_Output"] and {"Pass", "Timeout"} <= set(backend_labels)
    assert extracted == repr("echo 5\n")  # the domain's own fence wins over a later block


def test_check_judges_for_real(plugin: Path) -> None:
    assert checked(plugin, "right.sh")["label"] == "Pass"
    wrong = checked(plugin, "wrong.sh")
    assert wrong["label"] == "Toy_Wrong_Output" and "got '6'" in wrong["diagnostic"]
    assert checked(plugin, "broken.sh")["label"] == "Toy_Syntax_Error"


def test_synth_with_replay_then_export(plugin: Path) -> None:
    replay = plugin / "replay.jsonl"
    answers = [
        {"task_id": "toy/five", "turn": 0, "content": f"<think>Multiply.</think>\n\n```sh\n{WRONG}```\n"},
        {"task_id": "toy/five", "turn": 1, "content": f"<think>It says 6; I must add.</think>\n\n```sh\n{RIGHT}```\n"},
    ]
    replay.write_text("".join(json.dumps(a) + "\n" for a in answers))
    store = plugin / "toy.db"
    synth = ecot(plugin, "synth", str(plugin / "suite"), "--generator", "replay", "--gen-opt", f"path={replay}",
                 "--store", str(store), "--no-export", "--workers", "1")
    assert synth.returncode == 0, synth.stdout + synth.stderr
    labels = python(plugin, textwrap.dedent(f"""
        from ecot.store import TrajectoryStore
        with TrajectoryStore({str(store)!r}) as store:
            for traj in store.iter_trajectories():
                print(traj.domain, " ".join(traj.labels))
    """))
    assert labels.split() == ["toy", "Toy_Wrong_Output", "Pass"]
    out = plugin / "corpus"
    export = ecot(plugin, "export", "--store", str(store), "--out", str(out), "--format", "jsonl", "--validation", "0")
    assert export.returncode == 0, export.stdout + export.stderr
    rows = [json.loads(line) for path in sorted(out.glob("*.jsonl")) for line in path.read_text().splitlines()]
    assert rows, f"no sample exported: {sorted(p.name for p in out.iterdir())}"
    answer = rows[0]["messages"][-1]["content"]
    assert "```sh\n# add them\necho $((2 + 3))\n```" in answer
    assert "Toy_Wrong_Output" in answer  # the folded trace walks the repair


def test_world_model_templates_read_the_descriptor(plugin: Path) -> None:
    out = python(plugin, textwrap.dedent("""
        from ecot.core.domain import get_domain
        from ecot.core.outcome import Outcome
        from ecot.core.task import Task
        from ecot.icwm.templates import label_legend, render_observation, render_prompt, strip_comments, template
        task = Task(id="toy/five", domain="toy", prompt="Print 5.", reference="echo 5\\n")
        print(template("toy").language)
        print(repr(strip_comments("echo 1 # note\\n", "toy")))
        print(render_observation(Outcome("Toy_Wrong_Output", "expected '5', got '6'"), "toy").splitlines()[0])
        print("<domain:toy>" in render_prompt(task, "echo 6\\n"))
        print(label_legend(get_domain("toy")).replace("\\n", "|"))
    """))
    language, stripped, label_line, tagged, legend = out.splitlines()
    assert language == "sh"
    assert stripped == repr("echo 1       \n")
    assert label_line == "Label: Toy_Wrong_Output"
    assert tagged == "True"
    assert "Toy_Syntax_Error: build" in legend and "Toy_Wrong_Output: wrong" in legend and "Pass: pass" in legend


def test_an_unknown_domain_is_a_clear_error(plugin: Path) -> None:
    out = python(plugin, textwrap.dedent("""
        from ecot.core.domain import get_domain
        from ecot.core.errors import UnknownNameError
        try:
            get_domain("nosuch")
        except UnknownNameError as err:
            print(err)
    """))
    assert "unknown domain 'nosuch'" in out and "toy" in out
