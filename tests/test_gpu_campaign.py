"""The GPU campaign (docs/gpu.md): its device-side machinery in units, then the whole rehearsal: prepare the
small carry, run both device calls on the CPU through scripts/gpu_campaign.sh, judge what they wrote."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest

from ecot.campaign import manifest, parts, wheels
from ecot.campaign.judge import answered
from ecot.campaign.layout import DRY, REAL, STEP_FILES, Profile, expected_outputs
from ecot.campaign.manifest import CarryError
from ecot.campaign.parts import PartError
from ecot.campaign.runner import Context, Part, run_parts

REPO = Path(__file__).resolve().parents[1]
KERNELBENCH = Path(os.environ.get("ECOT_KERNELBENCH_DIR", REPO.parent / "shared" / "data" / "kernelbench"))
DEVICE_SIDE = ("ecot.campaign.__main__", "ecot.campaign.runner", "ecot.campaign.steps", "ecot.campaign.layout",
               "ecot.campaign.manifest", "ecot.campaign.wheels", "ecot.campaign.parts", "ecot.campaign.probe")


def env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")]))


def test_model_parts_join_to_the_checked_whole(tmp_path: Path) -> None:
    source = tmp_path / "model.gguf"
    source.write_bytes(os.urandom(300_001))
    entry = parts.split(source, [tmp_path / "a" / "model.part1", tmp_path / "b" / "model.part2"])
    assert [p["size"] for p in entry["parts"]] == [150_001, 150_000]
    joined = parts.join(entry, [tmp_path / "a" / "model.part1", tmp_path / "b" / "model.part2"], tmp_path / "m" / "model.gguf")
    assert joined.read_bytes() == source.read_bytes()
    with pytest.raises(PartError, match="staging call"):
        parts.join(entry, [tmp_path / "gone.part1", tmp_path / "b" / "model.part2"], tmp_path / "n" / "model.gguf")
    (tmp_path / "b" / "model.part2").write_bytes(b"x" * 150_000)  # a damaged transfer of the same size
    with pytest.raises(PartError, match="differs from the manifest"):
        parts.join(entry, [tmp_path / "a" / "model.part1", tmp_path / "b" / "model.part2"], tmp_path / "o" / "model.gguf")
    assert not (tmp_path / "o" / "model.gguf").exists() and not list((tmp_path / "o").iterdir())
    # sized by the room each call has left: both calls keep the same margin
    uneven = parts.split(source, [tmp_path / "c" / "model.part1", tmp_path / "c" / "model.part2"], room=[100_000, 300_000])
    assert [p["size"] for p in uneven["parts"]] == [50_001, 250_000] and uneven["sha256"] == entry["sha256"]


def test_the_shim_makes_the_joined_file_the_embedded_model(tmp_path: Path) -> None:
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"GGUF")
    root = parts.shim(gguf, tmp_path / "shim")
    found = subprocess.run([sys.executable, "-c", "from ecot.generators.hf_local import embedded_gguf; print(embedded_gguf())"],
                           env=dict(env(), PYTHONPATH=f"{root}{os.pathsep}{env()['PYTHONPATH']}"), capture_output=True, text=True)
    assert found.returncode == 0, found.stderr
    assert Path(found.stdout.strip()).resolve() == gguf.resolve()


def test_the_manifest_checks_every_file_and_the_call_limit(tmp_path: Path) -> None:
    folder = tmp_path / "call1"
    (folder / "wheels").mkdir(parents=True)
    (folder / "wheels" / "a.whl").write_bytes(b"wheel")
    (folder / "data.jsonl").write_text("{}\n")
    built = manifest.build(folder, 1, REPO, {"imports": ["a"]})
    assert built["carry_bytes"] == 8 and built["checkout_bytes"] > 1_000_000 and built["imports"] == ["a"]
    assert manifest.check(folder)["call"] == 1
    (folder / "data.jsonl").write_text("[]\n")
    with pytest.raises(CarryError, match="data.jsonl: size or sha256 differs"):
        manifest.check(folder)
    with (folder / "big.bin").open("wb") as handle:  # sparse: 64 MiB on paper, nothing on disk
        handle.truncate(64 * manifest.MIB)
    with pytest.raises(CarryError, match="over the 64 MiB a device call takes"):
        manifest.build(folder, 1, REPO)


def test_carried_wheels_install_offline_into_a_fresh_target(tmp_path: Path) -> None:
    wheels.write_probe(tmp_path / "wheels")
    assert "installed 1 wheels" in wheels.install(tmp_path / "wheels", tmp_path / "site")
    probe = subprocess.run([sys.executable, "-c", f"import {wheels.PROBE} as p; print(p.CARRIED, p.__file__)"],
                           env=dict(env(), PYTHONPATH=str(tmp_path / "site")), capture_output=True, text=True)
    assert probe.stdout.startswith("True " + str(tmp_path / "site")), probe.stderr


def test_the_device_side_needs_only_the_standard_library() -> None:
    """It runs before the carried wheels are installed: with pydantic, torch & co. unimportable it still loads."""
    blocked = ("pydantic", "torch", "transformers", "numpy", "rich", "trl", "datasets", "gguf", "yaml")
    code = "import sys\n" + "".join(f"sys.modules[{name!r}] = None\n" for name in blocked) + "".join(
        f"import {module}\n" for module in DEVICE_SIDE)
    done = subprocess.run([sys.executable, "-c", code], env=env(), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_profiles_travel_as_json() -> None:
    for profile in (REAL, DRY):
        assert Profile.from_json(profile.to_json()) == profile
    assert sum(REAL.budget_s.values()) <= 12 * 60  # the commands' share of a 15-minute device lease


def test_a_part_past_its_limit_is_cut_with_its_children_and_the_next_one_runs(tmp_path: Path) -> None:
    profile = Profile(name="unit", device="cpu", budget_s={1: 60.0}, caps_s={"slow": 6, "fast": 20})
    context = Context(REPO, tmp_path / "carry", tmp_path / "out", tmp_path / "scratch", profile, 1)
    pidfile = tmp_path / "child.pid"
    slow = [sys.executable, "-c", "import subprocess, sys, time; "
            f"c = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); open({str(pidfile)!r}, 'w').write(str(c.pid)); "
            "time.sleep(60)"]
    work = context.work("1-gpu")
    fast = [sys.executable, "-c", f"open({str(work / 'pytest-gpu.xml')!r}, 'w').write('<testsuites/>')"]
    started = time.monotonic()
    status = run_parts(context, [Part("slow", "1-gpu", lambda c: slow), Part("fast", "1-gpu", lambda c: fast)])
    assert time.monotonic() - started < 40
    slow_record, fast_record = status["parts"]
    assert slow_record["timed_out"] and not fast_record["timed_out"] and fast_record["rc"] == 0
    child = int(pidfile.read_text())
    time.sleep(0.5)
    assert not Path(f"/proc/{child}").exists() or "Z" in Path(f"/proc/{child}/stat").read_text().split()[2]
    with tarfile.open(context.out / "1-gpu.tar.gz") as archive:
        assert archive.getnames() == ["pytest-gpu.xml"]
    written = json.loads((context.out / "call1.json").read_text())
    assert written["finished"] and [p["name"] for p in written["parts"]] == ["slow", "fast"]


def test_a_second_call_on_a_fresh_machine_says_so_and_skips_what_needs_the_first(tmp_path: Path) -> None:
    from ecot.campaign.steps import INSTALLED, call_parts

    carry = tmp_path / "call2"
    model = tmp_path / "model.gguf"
    model.write_bytes(os.urandom(1000))
    entry = parts.split(model, [tmp_path / "elsewhere" / "model.part1", carry / "model.part2"])  # part 1 never arrives
    manifest.build(carry, 2, REPO, {"model": entry, "imports": [wheels.PROBE]})
    fresh = run_parts(Context(REPO, carry, tmp_path / "out", tmp_path / "fresh", DRY, 2), call_parts(2))
    assert "did not run the first call" in fresh["parts"][0]["error"]
    assert all("no base model" in p["skipped"] or "no trained model" in p["skipped"] for p in fresh["parts"][1:])
    # the wheels are there (call 1 ran) but its model half is not: only the model's parts stop
    wheels.write_probe(tmp_path / "wheels")
    wheels.install(tmp_path / "wheels", tmp_path / "scratch" / "site")
    (tmp_path / "scratch" / "site" / INSTALLED).write_text("[]")
    context = Context(REPO, carry, tmp_path / "out", tmp_path / "scratch", DRY, 2)
    status = run_parts(context, call_parts(2))
    setup, *rest = status["parts"]
    assert setup["rc"] == 0 and "model part(s) missing" in status["model_error"]
    assert [p["name"] for p in rest] == ["sft-train", "generate-base", "generate-trained", "world"]
    assert all("no base model: model part(s) missing" in p["skipped"] or "no trained model" in p["skipped"] for p in rest)
    assert status["environment"]["packages"] == {wheels.PROBE: "1.0"}


def test_the_judge_scores_only_fully_answered_tasks(tmp_path: Path) -> None:
    from ecot.tasks.suite import bundled_suite_path, load_suite, write_jsonl

    tasks = load_suite(bundled_suite_path("python"))[:3]
    write_jsonl(tasks, tmp_path / "suite.jsonl")
    rows = [{"task_id": tasks[0].id, "sample": s} for s in (0, 1)] + [{"task_id": tasks[1].id, "sample": 0}]
    (tmp_path / "answers.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert answered(tmp_path / "suite.jsonl", tmp_path / "answers.jsonl", 2, tmp_path / "cut.jsonl") == 1
    assert [t.id for t in load_suite(tmp_path / "cut.jsonl")] == [tasks[0].id]


def campaign(*args: str, timeout: float) -> subprocess.CompletedProcess[str]:
    venv = Path(sys.executable).parent.parent
    return subprocess.run(["bash", str(REPO / "scripts" / "gpu_campaign.sh"), *args], cwd=REPO, timeout=timeout,
                          env=dict(env(), ECOT_VENV=str(venv)), capture_output=True, text=True)


def members(archive: Path) -> dict[str, bytes]:
    with tarfile.open(archive) as handle:
        return {m.name: handle.extractfile(m).read() for m in handle.getmembers() if m.isfile()}  # type: ignore[union-attr]


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_the_rehearsal_produces_every_file_of_the_real_run_and_is_judged(tmp_path: Path) -> None:
    carry, work, out, scratch = tmp_path / "carry", tmp_path / "work", tmp_path / "out", tmp_path / "scratch"
    prepared = campaign("prepare", "--dry-run", "--carry", str(carry), "--work", str(work), "--kernelbench", str(KERNELBENCH), timeout=600)
    assert prepared.returncode == 0, prepared.stdout[-3000:] + prepared.stderr[-3000:]
    for call in (1, 2):
        built = manifest.check(carry / f"call{call}")
        assert built["total_bytes"] < 64 * manifest.MIB and built["model"]["parts"]
    started = time.monotonic()
    rehearsal = campaign("run", "--dry-run", "--carry", str(carry), "--out", str(out), "--scratch", str(scratch), timeout=600)
    took = time.monotonic() - started
    assert rehearsal.returncode == 0, rehearsal.stdout[-4000:] + rehearsal.stderr[-4000:]
    assert took < 300, f"the rehearsal took {took:.0f}s; CI allows it 5 minutes"
    assert sorted(p.name for p in out.iterdir()) == sorted(expected_outputs(1) + expected_outputs(2))
    found = {step: members(out / f"{step}.tar.gz") for step in STEP_FILES}
    for step, names in STEP_FILES.items():
        assert sorted(found[step]) == sorted(names), step
    statuses = [json.loads((out / f"call{call}.json").read_text()) for call in (1, 2)]
    assert all(p.get("rc") == 0 for status in statuses for p in status["parts"]), statuses
    assert statuses[0]["environment"]["packages"] == {wheels.PROBE: "1.0"}  # installed from the carried wheel
    answers = [json.loads(line) for line in found["2-sft"]["answers-trained.jsonl"].decode().splitlines()]
    prompts = (carry / "call2" / "prompts.jsonl").read_text().splitlines()
    assert len(answers) == len(prompts) * DRY.generation.samples and {a["turn"] for a in answers} == {0}
    assert json.loads(found["2-sft"]["train_summary.json"])["steps"] == DRY.training.max_steps
    judged = campaign("judge", "--dry-run", "--returned", str(out), "--carry", str(carry), "--work", str(work),
                      "--out", str(tmp_path / "judge"), timeout=600)
    assert judged.returncode == 0, judged.stdout[-3000:] + judged.stderr[-3000:]
    results = json.loads((tmp_path / "judge" / "results.json").read_text())
    compiled = results["gpu"]["kernelbench_compiled"]["groups"]
    assert compiled["overall"]["pass@1"] == 100.0, compiled  # the torch.compile'd candidates are correct
    assert results["gpu"]["kernelbench_references"]["passed"] == 2
    assert results["sft"]["bench_base"]["ran"] and results["sft"]["bench_trained"]["ran"] and results["sft"]["compare"]["ran"]
    assert results["world"]["same_turns"] and results["world"]["lm_turns"] == results["world"]["held_out_turns"] > 0
    assert "## Step 3: the world models" in (tmp_path / "judge" / "results.md").read_text()
