"""A domain added by an entry point is first-class: the toy shell-script domain of examples/toy-domain,
installed as a package in a temporary folder (a hand-written .dist-info, as pip would write it), goes
through `ecot check`, `ecot synth --generator replay` (with its own instructions), `ecot export`, the
world model's templates, `ecot bench` (with its own metric) and `ecot report` (with its own preview),
each in a fresh process."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
EXAMPLE = ROOT / "examples" / "toy-domain"  # the toy domain the docs point to

RIGHT = "# add them\necho $((2 + 3))\n"
WRONG = "echo $((2 * 3))\n"
BROKEN = "if then fi (\n"


def entry_points(pyproject: Path) -> str:
    """entry_points.txt as pip writes it from a pyproject's [project.entry-points] tables."""
    tables = tomllib.loads(pyproject.read_text())["project"]["entry-points"]
    return "".join(f"[{group}]\n" + "".join(f"{name} = {ref}\n" for name, ref in refs.items()) for group, refs in tables.items())


@pytest.fixture(scope="module")
def plugin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A site folder holding the installed example package, and its suite and candidates beside it."""
    root = tmp_path_factory.mktemp("toy-plugin")
    site = root / "site"
    shutil.copytree(EXAMPLE / "ecot_toy", site / "ecot_toy", ignore=shutil.ignore_patterns("__pycache__"))
    info = site / "ecot_toy-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: ecot-toy\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(entry_points(EXAMPLE / "pyproject.toml"))
    shutil.copytree(EXAMPLE / "suite", root / "suite")
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


def replay_file(path: Path, answers: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(a) + "\n" for a in answers))
    return path


@pytest.fixture(scope="module")
def synthesized(plugin: Path) -> Path:
    """A store holding one toy trajectory: a wrong answer, then the repair."""
    replay = replay_file(plugin / "replay.jsonl", [
        {"task_id": "toy/five", "turn": 0, "content": f"<think>Multiply.</think>\n\n```sh\n{WRONG}```\n"},
        {"task_id": "toy/five", "turn": 1, "content": f"<think>It says 6; I must add.</think>\n\n```sh\n{RIGHT}```\n"},
    ])
    store = plugin / "toy.db"
    synth = ecot(plugin, "synth", str(plugin / "suite"), "--generator", "replay", "--gen-opt", f"path={replay}",
                 "--store", str(store), "--no-export", "--workers", "1")
    assert synth.returncode == 0, synth.stdout + synth.stderr
    return store


def test_synth_with_replay_then_export(plugin: Path, synthesized: Path) -> None:
    stored = python(plugin, textwrap.dedent(f"""
        import json
        from ecot.store import TrajectoryStore
        with TrajectoryStore({str(synthesized)!r}) as store:
            for traj in store.iter_trajectories():
                print(traj.domain, " ".join(traj.labels))
                print(json.dumps(traj.prompt_messages[0]["content"]))
    """))
    labels, system = stored.splitlines()
    assert labels.split() == ["toy", "Toy_Wrong_Output", "Pass"]
    instructions = json.loads(system)  # the domain's own prompts.toml, its rule matched by the word "sum"
    assert "POSIX shell scripts" in instructions and "use $(( ... ))" in instructions
    assert "single ```sh code block" in instructions
    out = plugin / "corpus"
    export = ecot(plugin, "export", "--store", str(synthesized), "--out", str(out), "--format", "jsonl", "--validation", "0")
    assert export.returncode == 0, export.stdout + export.stderr
    rows = [json.loads(line) for path in sorted(out.glob("*.jsonl")) for line in path.read_text().splitlines()]
    assert rows, f"no sample exported: {sorted(p.name for p in out.iterdir())}"
    answer = rows[0]["messages"][-1]["content"]
    assert "```sh\n# add them\necho $((2 + 3))\n```" in answer
    assert "Toy_Wrong_Output" in answer  # the folded trace walks the repair


def test_bench_scores_with_the_domains_own_metric(plugin: Path) -> None:
    replay = replay_file(plugin / "bench-replay.jsonl", [
        {"task_id": "toy/five", "sample": 0, "content": f"```sh\n{RIGHT}```\n"},
        {"task_id": "toy/five", "sample": 1, "content": f"```sh\n{BROKEN}```\n"},
        {"task_id": "toy/five", "sample": 2, "content": f"```sh\n{WRONG}```\n"},
    ])
    store, report = plugin / "bench.db", plugin / "bench.json"
    run = ecot(plugin, "bench", "run", str(plugin / "suite"), "--generator", "replay", "--gen-opt", f"path={replay}",
               "--samples", "3", "--store", str(store), "--workers", "1", "--json", str(report))
    assert run.returncode == 0, run.stdout + run.stderr
    group = next(g for g in json.loads(report.read_text())["groups"] if g["domain"] == "toy")
    assert group["metrics"]["parses"]["value"] == pytest.approx(200 / 3, abs=1e-3)  # the broken script alone does not parse
    assert group["metrics"]["pass@1"]["value"] == pytest.approx(100 / 3, abs=1e-3)
    shown = ecot(plugin, "bench", "report", "--store", str(store))
    assert shown.returncode == 0, shown.stderr
    assert "toy: toy (%)" in shown.stdout and "parses" in shown.stdout


def test_report_shows_the_domains_preview(plugin: Path, synthesized: Path) -> None:
    out = plugin / "report"
    built = ecot(plugin, "report", "--store", str(synthesized), "--out", str(out), "--previews", "5",
                 "--suite", str(plugin / "suite"))
    assert built.returncode == 0, built.stdout + built.stderr
    assert "1 previews" in built.stdout
    page = next((out / "t").glob("*.html")).read_text()
    assert "<h2>Toy preview</h2>" in page and "What the last attempt printed" in page
    image = next((out / "previews" / "toy").glob("*.png"))
    assert image.read_bytes().startswith(b"\x89PNG")
    assert f'src="../previews/toy/{image.name}"' in page


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
