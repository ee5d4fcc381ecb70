"""Runs one CadQuery script (or imports one STEP file) inside a sandboxed job and exports its solid.

Executed in a fresh fork of the warm, sandboxed interpreter (ecot.sandbox.warm), never on the host:

    python -c "from ecot.domains.cad.jobs.harness import main; main()" SCRIPT OUT.brep TOKEN [--step] [--hang-after S]

The script runs as __main__ under the name `candidate.py`; its final shape is the variable `result`
(or the last `show_object(...)` argument, the CQ-editor convention). The shape is written to OUT as
OpenCascade BREP text. The last stdout line starting with TOKEN is a JSON status the host reads to
label failures (syntax, runtime, kernel exception, no result). The script shares this process, so it
could forge that line; it would only mislabel its own failure: a Pass is decided by a separate
check job that never runs candidate code.
"""

from __future__ import annotations

import faulthandler
import json
import sys
import traceback
from typing import Any

SCRIPT_NAME = "candidate.py"
EXIT_FAILED = 3


def _report(token: str, **status: Any) -> None:
    sys.stdout.flush()
    print(f"{token} {json.dumps(status)}", flush=True)


def _script_line(tb: Any) -> int | None:
    """The innermost traceback line that lies in the script itself."""
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == SCRIPT_NAME:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _is_kernel_error(err: BaseException) -> bool:
    """OpenCascade's own exceptions (StdFail_NotDone, Standard_ConstructionError, ...) come from OCP."""
    return any(cls.__module__.startswith("OCP") for cls in type(err).__mro__)


def _run_script(source: str, token: str) -> dict[str, Any] | None:
    """Execute the script; the namespace it leaves, or None after reporting why it failed."""
    try:
        code = compile(source, SCRIPT_NAME, "exec")
    except (SyntaxError, ValueError) as err:  # ValueError: null bytes in the source
        line = getattr(err, "lineno", None)
        _report(token, stage="syntax", type=type(err).__name__, message=str(getattr(err, "msg", err)),
                line=line, text=(getattr(err, "text", "") or "").strip()[:200])
        return None
    shown: list[Any] = []
    namespace: dict[str, Any] = {"__name__": "__main__", "__file__": SCRIPT_NAME,
                                 "show_object": lambda obj, *args, **kwargs: shown.append(obj)}
    try:
        exec(code, namespace)
    except SystemExit as stop:
        if stop.code not in (None, 0):
            _report(token, stage="runtime", type="SystemExit", message=f"the script exited with status {stop.code}",
                    line=_script_line(stop.__traceback__), kernel=False)
            return None
    except BaseException as err:  # noqa: BLE001 - any failure of the script is reported, never re-raised
        traceback.print_exception(type(err), err, err.__traceback__.tb_next if err.__traceback__ else None, limit=-8)
        _report(token, stage="runtime", type=type(err).__name__, message=str(err)[:600],
                line=_script_line(err.__traceback__), kernel=_is_kernel_error(err))
        return None
    if "result" not in namespace and shown:
        namespace["result"] = shown[-1]
    return namespace


def _to_shape(value: Any) -> Any:
    """A TopoDS_Shape from whatever the script produced; raises TypeError naming what it got."""
    import cadquery as cq
    from OCP.TopoDS import TopoDS_Shape

    if isinstance(value, cq.Workplane):
        shapes = [v for v in value.vals() if isinstance(v, cq.Shape)]
        if not any(s.Solids() for s in shapes):  # the chain ends on points, wires or a pending sketch:
            try:  # the part is the solid the chain carries (CadQuery's own findSolid rule)
                shapes = [value.findSolid()]
            except ValueError:
                if not shapes:
                    raise TypeError("`result` is a Workplane that holds no shape (only points or planes)") from None
        return shapes[0].wrapped if len(shapes) == 1 else cq.Compound.makeCompound(shapes).wrapped
    if isinstance(value, cq.Shape):
        return value.wrapped
    if isinstance(value, cq.Assembly):
        return value.toCompound().wrapped
    if isinstance(value, cq.Sketch):
        return cq.Compound.makeCompound(list(value.faces())).wrapped  # no solid: the checks say so
    if isinstance(value, TopoDS_Shape):
        return value
    if isinstance(value, (list, tuple)) and value:
        return cq.Compound.makeCompound([cq.Shape.cast(_to_shape(v)) for v in value]).wrapped
    raise TypeError(f"`result` is a {type(value).__name__}, not a CadQuery Workplane or Shape")


def _export(shape: Any, out: str) -> None:
    from OCP.BRepTools import BRepTools

    if shape.IsNull():
        raise TypeError("`result` is an empty (null) shape")
    if not BRepTools.Write_s(shape, out):
        raise OSError(f"could not write {out}")


def _read_step(path: str) -> Any:
    from OCP.IFSelect import IFSelect_RetDone
    from OCP.STEPControl import STEPControl_Reader

    reader = STEPControl_Reader()
    if reader.ReadFile(path) != IFSelect_RetDone:
        raise ValueError(f"cannot read STEP file {path}")
    reader.TransferRoots()
    return reader.OneShape()


def main(argv: list[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    script, out, token = args[:3]
    faulthandler.enable(file=sys.stderr)  # a kernel segfault still names the script line it was on
    if "--hang-after" in args:  # just before the wall limit, say where the script is stuck
        faulthandler.dump_traceback_later(float(args[args.index("--hang-after") + 1]), exit=False)
    if "--step" in args[3:]:
        _export(_read_step(script), out)
        _report(token, stage="done")
        return
    with open(script, encoding="utf-8", errors="replace") as handle:
        source = handle.read()
    namespace = _run_script(source, token)
    if namespace is None:
        raise SystemExit(EXIT_FAILED)
    if "result" not in namespace:
        _report(token, stage="result", type="NameError", line=None,
                message="the script defined no variable `result` holding the final solid")
        raise SystemExit(EXIT_FAILED)
    try:
        _export(_to_shape(namespace["result"]), out)
    except Exception as err:  # noqa: BLE001 - reported as the script's failure to produce a shape
        _report(token, stage="result", type=type(err).__name__, message=str(err)[:600], line=None,
                kernel=_is_kernel_error(err))
        raise SystemExit(EXIT_FAILED) from None
    _report(token, stage="done")
