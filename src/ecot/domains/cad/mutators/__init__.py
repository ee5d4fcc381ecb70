"""The CAD mutation set: CadQuery bug operators, what each CAD outcome label implies for a repair, and
a first-person modelling plan read off a reference script.

Categories use the shared taxonomy: `syntax` (the script does not parse), `structural` (API misuse
that raises, and geometry the kernel cannot build or that is not one valid solid) and `semantic` (a
valid solid of the wrong shape). CAD has no timing bugs, so that category stays empty.
"""

from __future__ import annotations

import re

from ecot.domains.cad.mutators import ops
from ecot.domains.cad.mutators.text import calls, declared, dimensions, fmt, python_source
from ecot.mutators.base import Category, LabelEvidence, Mutation, MutationSet

MUTATIONS: tuple[Mutation, ...] = (
    # syntax
    Mutation("missing_paren", "syntax", ops.missing_paren,
             "An unclosed parenthesis makes Python read the following lines as part of the call.",
             "`.extrude(thickness)` -> `.extrude(thickness`"),
    Mutation("missing_comma", "syntax", ops.missing_comma,
             "Without the comma two arguments run together into one invalid expression.",
             "`.box(length, width, thickness)` -> `.box(length width, thickness)`"),
    Mutation("unterminated_string", "syntax", ops.unterminated_string,
             "A selector or plane name without its closing quote swallows the rest of the line.",
             "`.faces(\">Z\")` -> `.faces(\">Z)`"),
    # structural: API misuse
    Mutation("misspelled_method", "structural", ops.misspelled_method,
             "CadQuery resolves methods by name, so a misspelled one raises AttributeError.",
             "`.hole(6.6)` -> `.holes(6.6)`"),
    Mutation("wrong_keyword", "structural", ops.wrong_keyword,
             "Keyword arguments must match the method's parameter names exactly.",
             "`centered=(True, True, False)` -> `centred=(True, True, False)`"),
    Mutation("missing_argument", "structural", ops.missing_argument,
             "The method needs every positional argument; one fewer raises TypeError.",
             "`.polarArray(30, 0, 360, 6)` -> `.polarArray(30, 0, 360)`"),
    Mutation("undefined_name", "structural", ops.undefined_name,
             "A misspelled variable is a name Python has never seen.",
             "`.hole(hole_d)` -> `.hole(hoe_d)`"),
    # structural: geometry the kernel rejects
    Mutation("fillet_too_large", "structural", ops.fillet_too_large,
             "A fillet or chamfer larger than the faces it blends cannot be built by the kernel.",
             "`.fillet(3.0)` -> `.fillet(24.0)`"),
    Mutation("tangent_feature", "structural", ops.tangent_feature,
             "A hole or bore that just touches an outer face leaves a wall of zero thickness: the solid is "
             "non-manifold along the contact line.",
             "`bore_z = 12.0` with a 10 mm bore in a 20 mm block -> bore axis at 15.0"),
    Mutation("detached_feature", "structural", ops.detached_feature,
             "A body that does not touch the part is not fused into it, so the result is two solids.",
             "`.workplane(offset=disc_t)` -> `.workplane(offset=disc_t + 5.0)`"),
    # semantic
    Mutation("wrong_dimension", "semantic", ops.wrong_dimension,
             "A wrong dimension builds a valid solid of the wrong size.",
             "`thickness = 5.0` -> `thickness = 7.0`"),
    Mutation("wrong_position", "semantic", ops.wrong_position,
             "A wrong coordinate puts holes or features in the wrong place.",
             "`.pushPoints([(-40.0, 0.0), ...])` -> `.pushPoints([(-37.0, 0.0), ...])`"),
    Mutation("missing_feature", "semantic", ops.missing_feature,
             "Without the operation the part lacks a specified hole, fillet or cut.",
             "`.faces(\">Z\").workplane().hole(22)` deleted"),
    Mutation("wrong_operation", "semantic", ops.wrong_operation,
             "Union adds the tool body where it should be removed (and cut removes what should be added).",
             "`block.cut(bore)` -> `block.union(bore)`"),
    Mutation("wrong_workplane", "semantic", ops.wrong_workplane,
             "A different plane or face selector builds the feature in another orientation or on another face.",
             "`cq.Workplane(\"XY\")` -> `cq.Workplane(\"XZ\")`, `.faces(\">Z\")` -> `.faces(\"<Z\")`"),
)

_ORDER: tuple[Category, ...] = ("syntax", "structural", "semantic")


def _suspects(*first: Category) -> tuple[Category, ...]:
    return tuple(dict.fromkeys((*first, *_ORDER)))


EVIDENCE: dict[str, LabelEvidence] = {
    "Syntax_Error": LabelEvidence(
        "Python could not parse the script, so CadQuery never ran: the mistake is in the text itself, at or "
        "just before the line it names.", _suspects("syntax", "structural")),
    "Runtime_Error": LabelEvidence(
        "The script parsed but raised an exception before producing a solid: a CadQuery method, keyword, "
        "argument or variable name on the line it names is wrong.", _suspects("structural", "syntax")),
    "Geometry_Error": LabelEvidence(
        "The script ran, but OpenCascade rejected the geometry: a feature it could not build (such as a fillet "
        "larger than its faces), faces that touch with zero thickness, or a result that is not one valid "
        "closed solid.", _suspects("structural", "semantic")),
    "Shape_Mismatch": LabelEvidence(
        "The solid is valid but it is not the specified part: a dimension, a position or a whole feature "
        "differs, and the volume, bounding box and missing or extra material say where.", _suspects("semantic", "structural")),
    "Timeout": LabelEvidence(
        "The script never finished, which points at a kernel operation stuck on awkward geometry or a loop "
        "in the script.", _suspects("structural", "semantic")),
    "Resource_Limit": LabelEvidence(
        "The script exhausted a resource limit, usually a runaway loop or an enormous pattern.",
        _suspects("structural", "semantic")),
}
DEFAULT_EVIDENCE = LabelEvidence("The part did not pass its checks.", _suspects("semantic", "structural"))

# Messages that name the mistake outright, whatever the label.
CLUES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (r"has no attribute", ("misspelled_method",)),
    (r"unexpected keyword argument", ("wrong_keyword",)),
    (r"missing \d+ required positional|positional argument", ("missing_argument",)),
    (r"NameError|is not defined", ("undefined_name",)),
    (r"could not build|StdFail_NotDone|BRep_API", ("fillet_too_large",)),
    (r"NonManifoldEdge|zero-thickness|tangent", ("tangent_feature",)),
    (r"separate solids", ("detached_feature",)),
    (r"never closed|unterminated|Perhaps you forgot a comma", ("missing_paren", "unterminated_string", "missing_comma")),
)

_OPERATIONS = (
    ("box", "a box"), ("circle", "circular profiles"), ("polyline", "a polyline profile"), ("extrude", "extrusions"),
    ("revolve", "a revolve of the half-section"), ("sweep", "a sweep along a path"), ("hole", "drilled holes"),
    ("cboreHole", "counterbored holes"), ("cskHole", "countersunk holes"), ("slot2D", "slots"),
    ("polarArray", "a polar pattern"), ("rarray", "a rectangular pattern"), ("union", "unions"), ("cut", "cuts"),
    ("fillet", "fillets"), ("chamfer", "chamfers"), ("shell", "a shell"),
)


def describe(prompt: str, reference: str) -> list[str]:
    """A first-person modelling plan: the part, its key dimensions and the operations in order."""
    src = python_source(reference)
    first = " ".join(re.split(r"(?<=\.)\s", prompt.strip(), maxsplit=1)[0].split()).rstrip(".")
    verb = re.match(r"(Model|Make|Create|Build|Design)\b", first)
    plan = [f"I need to {first[0].lower()}{first[1:]}." if verb else f"The task: {first}."]
    dims = dimensions(src)
    if dims:
        shown = ", ".join(f"{name.replace('_', ' ')} {fmt(value)}" for name, value in list(dims.items())[:8])
        plan.append(f"The key dimensions, in millimetres: {shown}.")
    found = {call.name for call in calls(src, *(name for name, _ in _OPERATIONS))}
    steps = [words for name, words in _OPERATIONS if name in found]
    if steps:
        listed = ", ".join(steps[:-1]) + " and " + steps[-1] if len(steps) > 1 else steps[0]
        plan.append(f"I'll build it in CadQuery from {listed}.")
    plan.append("The placement matters as much as the sizes, so I'll follow the stated origin and axes exactly, "
                "keep every wall thicker than zero, and make sure the result is one closed solid in `result`.")
    return plan


CAD_MUTATIONS = MutationSet(
    artifact="model script",
    domain="cad",
    mutations=MUTATIONS,
    evidence=EVIDENCE,
    default_evidence=DEFAULT_EVIDENCE,
    describe=describe,
    names=lambda code: declared(python_source(code)),
    # Wrong sizes, positions and missing features are what text-to-CAD mostly gets wrong; a syntax error
    # hides every other bug, so it is planted least.
    weights={"syntax": 0.5, "structural": 1.0, "semantic": 1.5},
    clues=CLUES,
)
