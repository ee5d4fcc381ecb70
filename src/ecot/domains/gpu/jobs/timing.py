"""GPU timing (only with CUDA): CUDA events after warm-up, the L2 cache flushed before every trial.

Guards against the timing hacks known from kernel benchmarks:
- patched timers: the functions used here are bound before the candidate is imported, and
  `timer_snapshot` / `tampered` notice a candidate that replaces any timing function afterwards, or
  the harness's own references to them;
- lazy outputs: every timed output must be a plain tensor (a subclass could defer its work);
- work on side streams: the end event is recorded only after a device-wide synchronize, so work a
  candidate queued on another stream is inside the measured interval; an event interval longer
  than the host's own clock for the same trial is impossible and flags a forged event;
- cached results: before each timed trial the inputs are refilled in place with another trial's
  values (not timed), and the verdict job checks the last timed output against the reference.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

L2_FLUSH_BYTES = 256 * 1024 * 1024  # larger than any current L2 (H100: 50 MB, B200: 126 MB)
_perf_counter = time.perf_counter  # bound at import, before any candidate code


def timer_targets(timer: Any = None) -> list[tuple[str, Any, str]]:
    """(label, owner, attribute) of every timing function a candidate could replace: the public ones, and
    the harness's own references to them (its module globals, the Timer's methods and bound functions)."""
    import torch

    from ecot.domains.gpu.jobs import common

    targets: list[tuple[str, Any, str]] = [
        (f"time.{name}", time, name) for name in ("perf_counter", "perf_counter_ns", "time", "monotonic", "process_time")
    ]
    cuda = torch.cuda
    targets += [(f"torch.cuda.{n}", cuda, n) for n in ("Event", "synchronize", "Stream", "current_stream", "default_stream")]
    targets += [(f"torch.cuda.Event.{n}", cuda.Event, n) for n in ("record", "elapsed_time", "synchronize", "query")]
    here = sys.modules[__name__]
    targets += [(f"the harness's {n}", here, n) for n in ("_perf_counter", "Timer", "tampered", "timer_snapshot",
                                                           "timer_targets", "summarize", "_refill")]
    targets += [(f"the harness's Timer.{n}", Timer, n) for n in ("__init__", "measure", "flush")]
    targets += [(f"the harness's {n}", common, n) for n in ("emit", "forward", "as_outputs", "check_plain", "cpu_copies")]
    if timer is not None:
        targets += [(f"the harness's timer.{n}", timer, n) for n in ("event", "elapsed", "record", "wait", "sync", "plain")]
    return targets


def timer_snapshot(timer: Any = None) -> dict[str, tuple[Any, Any]]:
    snap = {}
    for label, owner, name in timer_targets(timer):
        value = getattr(owner, name, None)
        snap[label] = (value, getattr(value, "__code__", None))
    return snap


def tampered(snapshot: dict[str, tuple[Any, Any]], timer: Any = None) -> list[str]:
    """Timing functions replaced (or re-coded) since the snapshot."""
    changed = []
    for label, owner, name in timer_targets(timer):
        value = getattr(owner, name, None)
        before, code = snapshot.get(label, (None, None))
        if value is not before or getattr(value, "__code__", None) is not code:
            changed.append(label)
    return changed


class Timer:
    """Times a callable on the current CUDA device (construct it before importing the candidate)."""

    def __init__(self) -> None:
        import torch

        self.torch = torch
        self.event: Callable[..., Any] = torch.cuda.Event  # its constructor is unannotated in torch
        self.elapsed = torch.cuda.Event.elapsed_time
        self.record = torch.cuda.Event.record
        self.wait = torch.cuda.Event.synchronize
        self.sync = torch.cuda.synchronize
        self.plain = _plain_outputs
        self.flush_buffer: Any = None

    def flush(self) -> None:
        if self.flush_buffer is None:
            self.flush_buffer = self.torch.empty(L2_FLUSH_BYTES, dtype=self.torch.int8, device="cuda")
        self.flush_buffer.zero_()

    def measure(self, fn: Callable[..., Any], inputs: list[list[Any]], warmup: int = 3, trials: int = 20,
                flush_l2: bool = True) -> tuple[dict[str, Any], Any]:
        """Milliseconds per call; the inputs are refilled in place from the trial sets in turn."""
        live = [x.clone() if isinstance(x, self.torch.Tensor) else x for x in inputs[0]]
        with self.torch.no_grad():
            for _ in range(warmup):
                fn(*live)
            self.sync()
            times, forged, out = [], 0, None
            for trial in range(trials):
                _refill(live, inputs[trial % len(inputs)])
                if flush_l2:
                    self.flush()
                self.sync()
                start, end = self.event(enable_timing=True), self.event(enable_timing=True)
                host_start = _perf_counter()
                self.record(start)
                out = fn(*live)
                self.sync()  # device-wide: side-stream work ends inside the interval
                self.record(end)
                self.wait(end)
                host_ms = (_perf_counter() - host_start) * 1000.0
                self.plain(out)  # a tensor subclass could have deferred its work past the end event
                ms = self.elapsed(start, end)
                forged += ms > host_ms + 0.05
                times.append(ms)
        stats = summarize(times)
        stats.update(forged_intervals=forged, last_trial=(trials - 1) % len(inputs))
        return stats, out


def _plain_outputs(out: Any) -> None:
    from ecot.domains.gpu.jobs import common

    common.check_plain(common.as_outputs(out))


def _refill(live: list[Any], values: list[Any]) -> None:
    import torch

    for target, value in zip(live, values):
        if isinstance(target, torch.Tensor) and isinstance(value, torch.Tensor) and target.shape == value.shape:
            target.copy_(value)


def summarize(times: list[float]) -> dict[str, Any]:
    return {
        "mean_ms": statistics.fmean(times),
        "median_ms": statistics.median(times),
        "min_ms": min(times),
        "std_ms": statistics.pstdev(times),
        "trials": len(times),
    }
