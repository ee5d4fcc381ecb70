"""Ray cluster plumbing for the Ray engine: connecting, what nodes offer, and mapping ecot's
placement vocabulary (ecot.executors.work) to Ray resources. Only imported once the Ray engine is chosen.

Toolchains are Ray custom resources named "toolchain:<domain>" that a node declares when it has that
toolchain (`ray start --resources "$(python -m ecot.executors.ray_nodes resources)"`; a local Ray that
ecot starts declares its own). A cluster that declares no toolchain at all is taken as homogeneous:
every node is assumed to have every toolchain, and a node that lacks one fails its workers' warm-up.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Mapping
from typing import Any

from ecot.core.errors import EcotError
from ecot.domains import taskcache
from ecot.executors.work import CPU, GPU, MEMORY_MB, PLACEMENT_KEYS, TOOLCHAIN

log = logging.getLogger(__name__)

MARK = 0.001  # what a worker takes of a presence resource, so a node's mark of 1 fits 1000 workers
LOCAL_OBJECT_STORE = 256 * 2**20  # ecot's objects are small: tasks, code, outcomes


class PlacementError(EcotError):
    """No node of the cluster can ever run a piece of work."""


def node_resources() -> dict[str, float]:
    """The custom resources this machine should declare: one mark per installed toolchain."""
    from ecot.core.errors import ToolMissingError
    from ecot.domains import BACKENDS

    marks: dict[str, float] = {}
    for domain in BACKENDS.names():
        try:
            BACKENDS.get(domain)().check_tools()
        except (ToolMissingError, ImportError):
            continue
        marks[f"{TOOLCHAIN}{domain}"] = 1.0
    return marks


def connect(ray: Any, address: str, workers: int | None, options: Mapping[str, Any]) -> bool:
    """Join (or start) a Ray cluster; True when this call started it, so closing must stop it."""
    if ray.is_initialized():
        return False
    if address == "local":
        ray.init(
            num_cpus=workers or os.cpu_count() or 1,
            resources=node_resources(),
            include_dashboard=False,
            object_store_memory=LOCAL_OBJECT_STORE,
            log_to_driver=False,
            logging_level=logging.WARNING,
            **options,
        )
        return True
    if address.startswith("ray://"):
        ray.init(address=address, **options)  # Ray Client: driver-side options are not accepted
    else:
        ray.init(address=address, log_to_driver=False, logging_level=logging.WARNING, **options)
    return False


def alive_nodes(ray: Any) -> list[dict[str, Any]]:
    return [node for node in ray.nodes() if node.get("Alive")]


def declares_toolchains(ray: Any) -> bool:
    return any(key.startswith(TOOLCHAIN) for node in alive_nodes(ray) for key in node.get("Resources", {}))


def actor_options(requires: Mapping[str, float], toolchain_marks: bool) -> dict[str, Any]:
    """Ray actor options for one worker of a pool whose work needs `requires`."""
    options: dict[str, Any] = {"num_cpus": float(requires.get(CPU, 1)), "num_gpus": float(requires.get(GPU, 0))}
    if requires.get(MEMORY_MB):
        options["memory"] = int(float(requires[MEMORY_MB]) * 2**20)
    custom: dict[str, float] = {}
    for key, amount in requires.items():
        if key in PLACEMENT_KEYS or amount <= 0:
            continue
        if key.startswith(TOOLCHAIN):
            if toolchain_marks:
                custom[key] = MARK
        else:
            custom[key] = float(amount)
    if custom:
        options["resources"] = custom
    if not taskcache.enabled():  # actors do not inherit the driver's environment
        options["runtime_env"] = {"env_vars": {taskcache.NO_CACHE_ENV: "1"}}
    return options


def demand(options: Mapping[str, Any]) -> dict[str, float]:
    """The resources an actor with these options takes, in Ray's names."""
    need = {"CPU": options.get("num_cpus", 1), "GPU": options.get("num_gpus", 0), "memory": options.get("memory", 0)}
    need.update(options.get("resources", {}))
    return {key: float(amount) for key, amount in need.items() if amount}


def fits(have: Mapping[str, float], need: Mapping[str, float]) -> bool:
    """Whether a node with total resources `have` could host a worker that needs `need`."""
    return all(have.get(key, 0.0) + 1e-9 >= amount for key, amount in need.items())


def check_feasible(ray: Any, pool: str, options: Mapping[str, Any]) -> None:
    """Fail at once, naming what is missing, when no live node could ever host the pool's workers."""
    need = demand(options)
    nodes = alive_nodes(ray)
    if any(fits(node.get("Resources", {}), need) for node in nodes):
        return
    offered = sorted({key for node in nodes for key in node.get("Resources", {}) if not key.startswith("node:")})
    hint = ""
    if any(key.startswith(TOOLCHAIN) for key in need):
        hint = "; start nodes that have the toolchain with `ray start --resources \"$(python -m ecot.executors.ray_nodes resources)\"`"
    raise PlacementError(f"no node of the Ray cluster can run pool '{pool}': it needs {need}, nodes offer {offered}{hint}")


def main(argv: list[str]) -> int:
    if argv[:1] != ["resources"]:
        print("usage: python -m ecot.executors.ray_nodes resources   # JSON for `ray start --resources`", file=sys.stderr)
        return 2
    print(json.dumps(node_resources()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
