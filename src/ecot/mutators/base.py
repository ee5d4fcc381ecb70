"""Bug-planting operators: the shared contract, source masking, and edit composition.

A mutation finds the sites in a source text where one realistic mistake can be made, and makes it
at one of them (chosen with the caller's rng). The result is an `Applied` that carries the edit
relative to the text it was applied to, so several bugs planted into one reference at disjoint
spans can be composed in any subset: that is how a repair trajectory reverts one bug at a time.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from random import Random
from typing import Literal

from ecot.core.domain import get_domain

Category = Literal["syntax", "structural", "timing", "semantic"]
CATEGORIES: tuple[Category, ...] = ("syntax", "structural", "timing", "semantic")


@dataclass(frozen=True)
class Span:
    """Replace text[start:end] (which reads `old`) with `new`."""

    start: int
    end: int
    new: str
    old: str = ""

    @property
    def line_shift(self) -> int:
        return self.new.count("\n") - self.old.count("\n")


@dataclass(frozen=True)
class Site:
    """One place a mutation could strike: replace text[start:end] (plus any `more` spans)."""

    start: int
    end: int
    replacement: str
    description: str  # what is wrong once the change is made, e.g. "compares against 4'd10 instead of 4'd11"
    more: tuple[tuple[int, int, str], ...] = ()  # further edits of the same mistake (a rename touches every use)

    def spans(self, text: str) -> tuple[Span, ...]:
        raw = ((self.start, self.end, self.replacement), *self.more)
        return tuple(Span(s, e, r, text[s:e]) for s, e, r in raw)


@dataclass(frozen=True)
class Applied:
    """One planted bug: its edit relative to the text it was applied to, and how to talk about it."""

    kind: str
    category: Category
    code: str  # the whole mutated text
    line: int  # 1-based line of the primary change (in the text it was applied to)
    original: str  # the affected line(s) before the change
    mutated: str  # the same line(s) after it
    description: str
    spans: tuple[Span, ...]  # the edit; spans[0] is the primary change

    @property
    def start(self) -> int:
        return self.spans[0].start

    def overlaps(self, other: Applied) -> bool:
        return any(a.start <= b.end and b.start <= a.end for a in self.spans for b in other.spans)


@dataclass(frozen=True)
class Mutation:
    """A kind of mistake: `find` lists its sites in a Source; `apply` picks one with the rng."""

    kind: str
    category: Category
    find: Callable[[Source], list[Site]]
    why: str = ""  # one sentence on why this mistake breaks the design, for the repair reasoning
    example: str = ""  # before -> after, for the docs

    def sites(self, code: str) -> list[Site]:
        """The sites where this mistake can be made and would really change the text."""
        return [s for s in self.find(Source(code)) if apply_spans(code, s.spans(code)) != code]

    def apply(self, code: str, rng: Random) -> Applied | None:
        sites = self.sites(code)
        if not sites:
            return None
        return make_applied(self, code, sites[rng.randrange(len(sites))])


def make_applied(mutation: Mutation, code: str, site: Site) -> Applied:
    spans = site.spans(code)
    mutated = apply_spans(code, spans)
    line_start = code.rfind("\n", 0, site.start) + 1
    old_end = _line_end(code, max(site.end - 1, site.start))
    new_end = _line_end(mutated, max(site.start + len(site.replacement) - 1, site.start))
    return Applied(
        kind=mutation.kind,
        category=mutation.category,
        code=mutated,
        line=code.count("\n", 0, site.start) + 1,
        original=code[line_start:old_end].strip("\n"),
        mutated=mutated[line_start:new_end].strip("\n"),
        description=site.description,
        spans=spans,
    )


def _line_end(text: str, pos: int) -> int:
    end = text.find("\n", pos)
    return len(text) if end < 0 else end


def apply_spans(text: str, spans: Sequence[Span]) -> str:
    for span in sorted(spans, key=lambda s: s.start, reverse=True):
        text = text[: span.start] + span.new + text[span.end :]
    return text


def compose(reference: str, edits: Sequence[Applied]) -> str:
    """The reference with the given disjoint edits applied (order does not matter)."""
    return apply_spans(reference, [span for edit in edits for span in edit.spans])


def touched_lines(reference: str, edit: Applied) -> set[int]:
    """0-based lines of the reference that an edit changes."""
    return {n for s in edit.spans for n in range(reference.count("\n", 0, s.start), reference.count("\n", 0, s.end) + 1)}


def clashes(reference: str, one: Applied, other: Applied) -> bool:
    """Bugs closer than two lines apart would be indistinguishable in a diagnostic, so they never share a plan."""
    mine, theirs = touched_lines(reference, one), touched_lines(reference, other)
    return one.overlaps(other) or any(abs(a - b) <= 1 for a in mine for b in theirs)


def line_in(edit: Applied, active: Sequence[Applied]) -> int:
    """Where `edit` starts in the text that composes `active` (edits above it shift its line)."""
    shift = sum(s.line_shift for other in active if other is not edit for s in other.spans if s.start < edit.start)
    return edit.line + shift


# -- source masking ----------------------------------------------------------------------------
_C_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"", re.DOTALL)


class Source:
    """A text plus a same-length copy with comments and string literals blanked out.

    Operators search `masked` so they never plant a bug inside a comment or a string, and use the
    offsets it gives on the real text (both have the same length and line breaks).
    """

    def __init__(self, text: str, pattern: re.Pattern[str] = _C_COMMENTS) -> None:
        self.text = text
        self.masked = pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
        self._line_starts = [0] + [m.end() for m in re.finditer(r"\n", text)]

    def line_of(self, pos: int) -> int:
        """0-based line index of an offset."""
        return bisect.bisect_right(self._line_starts, pos) - 1

    def line_span(self, pos: int) -> tuple[int, int]:
        """Start and end offsets (without the newline) of the line holding pos."""
        index = self.line_of(pos)
        start = self._line_starts[index]
        end = self.text.find("\n", start)
        return start, len(self.text) if end < 0 else end

    def depth_at(self, pos: int, opens: str = "(", closes: str = ")") -> int:
        """Bracket nesting depth at pos, counted on the masked text of the statement so far."""
        depth = 0
        for char in self.masked[self._statement_start(pos) : pos]:
            depth += (char in opens) - (char in closes)
        return depth

    def _statement_start(self, pos: int) -> int:
        return max(self.masked.rfind(";", 0, pos), 0)

    def finditer(self, pattern: str | re.Pattern[str], flags: int = 0) -> list[re.Match[str]]:
        return list(re.finditer(pattern, self.masked, flags))

    def line(self, pos: int) -> str:
        """The masked line holding pos."""
        start, end = self.line_span(pos)
        return self.masked[start:end]

    def prev_char(self, pos: int) -> str:
        """The last non-blank masked character before pos ('' at the start)."""
        return self.masked[:pos].rstrip()[-1:]

    def closing(self, pos: int, pairs: str = "()[]{}") -> int | None:
        """Offset of the bracket that closes the one at pos."""
        opens, closes = pairs[0::2], pairs[1::2]
        depth = 0
        for index in range(pos, len(self.masked)):
            char = self.masked[index]
            depth += (char in opens) - (char in closes)
            if depth == 0:
                return index
        return None


@dataclass(frozen=True)
class LabelEvidence:
    """What one outcome label implies: a sentence for the reasoning, and which bug categories to suspect first."""

    meaning: str
    suspects: tuple[Category, ...]


@dataclass(frozen=True)
class MutationSet:
    """Everything the repair generator needs from one domain; register it in ecot.mutators.MUTATORS."""

    domain: str
    mutations: tuple[Mutation, ...]
    evidence: Mapping[str, LabelEvidence]  # outcome label -> what it implies
    default_evidence: LabelEvidence
    describe: Callable[[str, str], list[str]]  # (prompt, reference) -> first-person design plan sentences
    fence: str = ""  # language tag of the answer's code block; "" = the domain descriptor's language
    names: Callable[[str], set[str]] = lambda code: set(re.findall(r"[A-Za-z_]\w*", code))  # names a design declares
    weights: Mapping[str, float] = field(default_factory=dict)  # category -> how often bugs of it are planted
    clues: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (regex over diagnostic + log, bug kinds it points at)
    artifact: str = "design"  # what the answers call the code: "design", "kernel", "routine", ...

    def __post_init__(self) -> None:
        if not self.fence:  # frozen: set once, from the descriptor (an unknown domain is an error here)
            object.__setattr__(self, "fence", get_domain(self.domain).language)

    def by_kind(self, kind: str) -> Mutation:
        for mutation in self.mutations:
            if mutation.kind == kind:
                return mutation
        raise KeyError(kind)

    def for_label(self, label: str) -> LabelEvidence:
        return self.evidence.get(label, self.default_evidence)

    def clued_kinds(self, text: str) -> set[str]:
        """Bug kinds that the observation's text points at directly."""
        return {kind for pattern, kinds in self.clues if re.search(pattern, text, re.IGNORECASE) for kind in kinds}


def split_top_level(args: str) -> list[str]:
    """Split call arguments on the commas outside nested brackets."""
    parts, depth, current = [], 0, ""
    for char in args:
        depth += (char in "([{") - (char in ")]}")
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    return [*parts, current]
