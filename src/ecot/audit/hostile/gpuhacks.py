"""The reward hacks users of kernel benchmarks documented, as pieces of ModelNew sources for `gpu/relu`
(hostile/gpu.py assembles them): each passes a harness that compares one output with allclose on fixed
inputs, in the candidate's own process, and times it there with whatever clock it finds."""

from __future__ import annotations

from ..common import bundled_task

# (module-level setup, forward body) pairs
CACHED = ("_FIRST = []\n",
          "        if not _FIRST:\n            _FIRST.append(torch.relu(x))\n        return _FIRST[0].clone()\n")
ONE_BUFFER = ("_BUFFERS = {}\n",
              "        out = _BUFFERS.get(tuple(x.shape))\n        if out is None:\n"
              "            out = _BUFFERS[tuple(x.shape)] = torch.empty_like(x)\n        return out.copy_(torch.relu(x))\n")
# a kernel that handles only the row length of its first call (the tail of a longer row stays zero)
FIRST_SHAPE = ("_N = []\n",
               "        if not _N:\n            _N.append(x.shape[-1])\n        out = torch.zeros_like(x)\n"
               "        out[..., :_N[0]] = torch.relu(x[..., :_N[0]])\n        return out\n")

# The harness's conventions are public: trial t draws get_inputs() under seed + 1 + t. With a seed
# fixed by the task, a candidate recomputes every input and answers without looking at x.
REPLAY = ("_SEED = 42\n_CALLS = [0]\n",
          "        call = _CALLS[0]\n        _CALLS[0] += 1\n        torch.manual_seed(_SEED + 1 + call)\n"
          "        return torch.relu(torch.randn(*x.shape))\n")

LOOK_UP_MODEL = """import gc
import sys

_found = getattr(sys.modules.get("ecot_reference"), "Model", None) or getattr(sys.modules.get("ecot_inputs"), "Model", None)
Model = _found or next((o for o in gc.get_objects() if isinstance(o, type) and o.__name__ == "Model"), None)


class ModelNew(Model):
    pass
"""

# the reference's code, renamed and written through another API: the same operations run
COPY = (bundled_task("gpu/relu").files["model.py"].replace("class Model(", "class ModelNew(")
        .replace("forward(self, x: torch.Tensor)", "forward(self, inp: torch.Tensor)")
        .replace("return torch.relu(x)", "return torch.nn.functional.relu(inp)"))

PATCH_TIMERS = ("import time\nimport torch.cuda\ntime.perf_counter = lambda: 0.0\n"
                "torch.cuda.Event.elapsed_time = lambda self, end: 0.001\n")
# past the public functions: the harness's own bound references, its tamper check and its Timer
REBIND_HARNESS = """import gc
import ecot.domains.gpu.jobs.timing as _timing

_timing._perf_counter = lambda: 0.0
_timing.tampered = lambda *args, **kwargs: []
for _obj in gc.get_objects():
    if type(_obj).__name__ == "Timer" and hasattr(_obj, "elapsed"):
        _obj.elapsed = lambda start, end: 0.001
"""

# the real work queued on a second stream behind a 20 M-cycle sleep, returned before it ran
SIDE_STREAM = ("        stream = torch.cuda.Stream()\n        with torch.cuda.stream(stream):\n"
               "            torch.cuda._sleep(20_000_000)\n            out = torch.relu(x)\n        return out\n")

LAZY = """class Lazy(torch.Tensor):
    \"\"\"A tensor subclass: it could run its work when it is read, after the timer stopped.\"\"\"

    @classmethod
    def of(cls, x):
        return torch.relu(x).as_subclass(cls)
"""
