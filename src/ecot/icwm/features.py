"""Features of a candidate for the fast world model: what changed against the bundle's reference.

Both texts are tokenized (comments blanked), diffed token by token, and every changed stretch (a
hunk) is described by normalized tokens: a token common to many references of the domain (keywords,
operators, usual port names) stays literal, any other identifier becomes ID (declared in the
reference), BID (known only from the bundle, e.g. the testbench), a word of the language by class (the
domain template's `word_class`: KW for a keyword or builtin, REG / REG_SAVED for an x86-64 scratch or
callee-saved register), LEX (in some other reference of the domain) or NEW (known nowhere: a typo or a
rename), and numbers become NUM or SNUM (a sized literal such as 4'd11). Which tokens count as common
is learned from the training references.

Besides the changes, a candidate has facts: the domain's static check (Python: does it compile) and
how each name a change removes or brings in is used in the reference and in the rest of the candidate.
The task's tags and what its domain reads from the bundle (asm: the routine's argument kinds) give the
changed words a context: `tag:uart|rep:BRR>CR1`, or `tag:arg:fn|rep:REG_SAVED>REG` (a value kept in a
scratch register does not survive the callback).
"""

from __future__ import annotations

import difflib
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

from ecot.core.task import Task
from ecot.icwm.templates import strip_comments, template

TOKEN = re.compile(
    r"[A-Za-z_][A-Za-z0-9_$]*|\d+'[sS]?[bBoOdDhH][0-9a-fA-FxXzZ_?]+|'[sS]?[bBoOdDhH][0-9a-fA-FxXzZ_?]+"
    r"|0[xX][0-9a-fA-F]+|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|<<=|>>=|===|!==|<=|>=|==|!=|&&|\|\||<<|>>|->|\+=|-="
    r"|\*=|/=|\+\+|--|::|\*\*|\S"
)
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")
SIZED = re.compile(r"\d*'")
COMMON_SHARE = 0.1  # a token in at least this share of a domain's references stays literal
MAX_PAIR = 4  # replacements up to this many tokens on each side are described pairwise


class Token(NamedTuple):
    text: str
    line: int  # 1-based


class Hunk(NamedTuple):
    tag: str  # replace | delete | insert
    old: tuple[Token, ...]  # reference tokens removed
    new: tuple[Token, ...]  # candidate tokens added
    line: int  # candidate line where the change sits
    ref_line: int  # reference line where it sits
    before: str  # normalized token before the change
    after: str  # normalized token after it
    head: str  # normalized first token of the reference line (the statement kind)
    whole_lines: bool  # whole reference lines were removed


@dataclass
class Diff:
    hunks: list[Hunk]
    ratio: float  # difflib similarity of the token streams
    clean: str = ""  # the candidate with comments blanked

    @property
    def same(self) -> bool:
        return not self.hunks


def tokens(text: str, domain: str, first_line: int = 1, indent: bool = False) -> tuple[Token, ...]:
    """Tokens of comment-free text, with 1-based line numbers; with `indent`, each non-blank line
    starts with a token for its indentation width (where indentation is syntax)."""
    clean = strip_comments(text, domain) if domain else text
    found: list[Token] = []
    for number, line in enumerate(clean.split("\n"), start=first_line):
        words = TOKEN.findall(line)
        if indent and words:
            found.append(Token(f"<indent{len(line.expandtabs(8)) - len(line.expandtabs(8).lstrip())}>", number))
        found.extend(Token(t, number) for t in words)
    return tuple(found)


@dataclass(frozen=True)
class _Lines:
    """A text as whitespace-normalized, comment-free lines, and each line's tokens."""

    norm: tuple[str, ...]
    raw: tuple[str, ...]


def _lines(text: str, domain: str) -> _Lines:
    # strip() only: a change of inner spacing makes a line differ, but its token diff is then empty
    raw = tuple(strip_comments(text, domain).split("\n"))
    if template(domain).indentation:
        return _Lines(tuple(line.rstrip() for line in raw), raw)
    return _Lines(tuple(line.strip() for line in raw), raw)


@lru_cache(maxsize=512)
def _reference(text: str, domain: str) -> tuple[_Lines, tuple[tuple[Token, ...], ...]]:
    lines = _lines(text, domain)
    indent = template(domain).indentation
    return lines, tuple(tokens(line, "", n, indent) for n, line in enumerate(lines.raw, start=1))


def diff(reference: str, code: str, domain: str) -> Diff:
    """Line diff first (cheap), then a token diff inside each changed stretch of lines."""
    ref, ref_tokens = _reference(reference, domain)
    cand = _lines(code, domain)
    indent = template(domain).indentation
    hunks: list[Hunk] = []
    matched = 0
    for tag, i1, i2, j1, j2 in opcodes(ref.norm, cand.norm):
        if tag == "equal":
            matched += i2 - i1
            continue
        old = tuple(t for line in ref_tokens[i1:i2] for t in line)
        new = tuple(t for n in range(j1, j2) for t in tokens(cand.raw[n], "", n + 1, indent))
        hunks += _block_hunks(old, new, ref_tokens, i1, i2, j1)
    if not hunks:
        return Diff([], 1.0)
    return Diff(hunks, 2.0 * matched / max(1, len(ref.norm) + len(cand.norm)), "\n".join(cand.raw))


def opcodes(a: Sequence[str], b: Sequence[str]) -> list[tuple[str, int, int, int, int]]:
    """difflib's opcodes from a to b, with the shared head and tail matched first (most edits are one
    small change, which then needs no difflib at all)."""
    lo, limit = 0, min(len(a), len(b))
    while lo < limit and a[lo] == b[lo]:
        lo += 1
    hi_a, hi_b = len(a), len(b)
    while hi_a > lo and hi_b > lo and a[hi_a - 1] == b[hi_b - 1]:
        hi_a, hi_b = hi_a - 1, hi_b - 1
    found: list[tuple[str, int, int, int, int]] = [("equal", 0, lo, 0, lo)] if lo else []
    if hi_a == lo or hi_b == lo or (hi_a - lo == 1 and hi_b - lo == 1):
        if hi_a > lo or hi_b > lo:
            tag = "insert" if hi_a == lo else "delete" if hi_b == lo else "replace"
            found.append((tag, lo, hi_a, lo, hi_b))
    else:
        matcher = difflib.SequenceMatcher(None, a[lo:hi_a], b[lo:hi_b], autojunk=False)
        found += [(tag, i1 + lo, i2 + lo, j1 + lo, j2 + lo) for tag, i1, i2, j1, j2 in matcher.get_opcodes()]
    if hi_a < len(a):
        found.append(("equal", hi_a, len(a), hi_b, len(b)))
    return found


def _block_hunks(
    old: tuple[Token, ...], new: tuple[Token, ...], ref_tokens: tuple[tuple[Token, ...], ...], i1: int, i2: int, j1: int
) -> list[Hunk]:
    before = next((line[-1].text for line in reversed(ref_tokens[:i1]) if line), "^")
    after = next((line[0].text for line in ref_tokens[i2:] if line), "$")
    hunks = []
    for tag, a1, a2, b1, b2 in opcodes([t.text for t in old], [t.text for t in new]):
        if tag == "equal":
            continue
        ref_line = old[a1].line if a1 < len(old) else (old[-1].line if old else i1 + 1)
        line = new[b1].line if b1 < len(new) else (new[-1].line if new else j1 + 1)
        removed = {t.line for t in old[a1:a2]}
        whole = bool(removed) and all(len(ref_tokens[n - 1]) == sum(t.line == n for t in old[a1:a2]) for n in removed)
        first = ref_tokens[ref_line - 1] if 0 < ref_line <= len(ref_tokens) else ()
        hunks.append(Hunk(
            tag, old[a1:a2], new[b1:b2], line, ref_line,
            old[a1 - 1].text if a1 > 0 else before, old[a2].text if a2 < len(old) else after,
            first[0].text if first else "", whole,
        ))
    return hunks


@dataclass
class Vocabulary:
    """Per-domain literal tokens, the domain's known words, and per-task identifier sets (cached)."""

    common: dict[str, frozenset[str]] = field(default_factory=dict)
    known: dict[str, frozenset[str]] = field(default_factory=dict)  # in some reference of the domain

    @classmethod
    def learn(cls, tasks: Iterable[Task]) -> Vocabulary:
        seen: dict[str, Counter[str]] = {}
        totals: Counter[str] = Counter()
        for task in tasks:
            if task.reference is None:
                continue
            totals[task.domain] += 1
            seen.setdefault(task.domain, Counter()).update({t.text for t in tokens(task.reference, task.domain)})
        common = {
            domain: frozenset(tok for tok, n in counts.items() if n >= max(2, COMMON_SHARE * totals[domain]))
            for domain, counts in seen.items()
        }
        known = {domain: frozenset(t for t in counts if IDENT.fullmatch(t)) for domain, counts in seen.items()}
        return cls(common, known)

    def norm(self, text: str, domain: str, declared: frozenset[str], bundle: frozenset[str]) -> str:
        if not IDENT.fullmatch(text):
            if text[:1].isdigit() or text[:1] == "'":
                return "SNUM" if SIZED.match(text) else "NUM"
            return text
        if text in self.common.get(domain, ()):
            return text
        word = template(domain).word_class(text)
        if word:
            return word
        if text in declared:
            return "ID"
        if text in bundle:
            return "BID"
        return "LEX" if text in self.known.get(domain, ()) else "NEW"


def _names(text: str, domain: str) -> frozenset[str]:
    return frozenset(_name_counts(text, domain))


@lru_cache(maxsize=1024)
def task_names(task: Task) -> tuple[frozenset[str], frozenset[str]]:
    """(identifiers of the reference, identifiers of the other bundle files)."""
    declared = _names(task.reference or "", task.domain)
    bundle = frozenset().union(*(_names(text, task.domain) for text in task.files.values())) if task.files else frozenset()
    return declared, bundle - declared


def hunk_features(hunk: Hunk, vocab: Vocabulary, task: Task) -> Counter[str]:
    """The normalized description of one change (also the diagnostic index's search key)."""
    declared, bundle = task_names(task)
    domain = task.domain

    def n(text: str) -> str:
        return vocab.norm(text, domain, declared, bundle)

    old, new = [n(t.text) for t in hunk.old], [n(t.text) for t in hunk.new]
    found: Counter[str] = Counter({hunk.tag: 1, f"at:{n(hunk.head)}:{hunk.tag}": 1})
    found[f"ctx:{n(hunk.before)}>{hunk.tag}"] += 1
    found[f"ctx:{hunk.tag}<{n(hunk.after)}"] += 1
    found[f"size:{hunk.tag}:{min(len(old), 5)}:{min(len(new), 5)}"] += 1
    if hunk.whole_lines:
        found[f"lines:{n(hunk.head)}"] += 1
    if hunk.tag == "replace" and len(old) == len(new) <= MAX_PAIR:
        found.update(f"rep:{a}>{b}" for a, b in zip(old, new))
    else:
        found.update(f"del:{a}" for a in old)
        found.update(f"ins:{b}" for b in new)
    return found


TAGGED_CHANGES = ("rep:", "del:", "ins:")  # the words of a change that are read in the task's context


def combine(hunks: list[Counter[str]], ratio: float, facts: Sequence[str] = (), tags: Sequence[str] = ()) -> dict[str, float]:
    """A candidate's features from its hunks' descriptions (and static facts), counts log-scaled.
    With the task's tags, each changed word is also read in the task's context: the same edit means
    different things in an interrupt handler and in a CRC routine, in a softmax and in a matmul."""
    counts: Counter[str] = Counter(f"static:{fact}" for fact in facts)
    if not hunks:
        counts["same"] = 1
    for found in hunks:
        counts.update(found)
    if hunks and tags:
        changed = {key for found in hunks for key in found if key.startswith(TAGGED_CHANGES)}
        counts.update(f"tag:{tag}" for tag in tags)
        counts.update(f"tag:{tag}|{key}" for tag in tags for key in changed)
    counts[f"hunks:{min(len(hunks), 6)}"] += 1
    counts[f"sim:{int(ratio * 10)}"] += 1
    return {key: 1.0 + math.log(value) for key, value in counts.items()}


def static_facts(code: str, domain: str, d: Diff | None = None, reference: str = "") -> tuple[str, ...]:
    """The domain's cheap static check of the candidate, if it has one (Python: does it compile).
    Given the diff from the reference, a candidate whose every change is a token swap that keeps the
    syntax (a name for a name, ...) gets the reference's answer without checking the whole text."""
    spec = template(domain)
    if spec.static is None:
        return ()
    if d is not None and reference and spec.same_syntax is not None and _syntax_kept(d, spec.same_syntax):
        return (_static_of_reference(reference, domain),)
    return (spec.static(code),)


def _syntax_kept(d: Diff, same: Callable[[str, str], bool]) -> bool:
    return all(
        h.tag == "replace" and len(h.old) == len(h.new) and all(same(a.text, b.text) for a, b in zip(h.old, h.new))
        for h in d.hunks
    )


@lru_cache(maxsize=1024)
def _static_of_reference(reference: str, domain: str) -> str:
    check = template(domain).static
    assert check is not None
    return check(reference)


def _bucket(count: int) -> str:
    return str(min(count, 3))


def use_facts(task: Task, d: Diff, vocab: Vocabulary) -> list[str]:
    """How the names a change removes or brings in are used in the rest of the code: a renamed
    definition nobody referenced differs from one whose callers are left dangling."""
    if not d.hunks:
        return []
    domain = task.domain
    declared, bundle = task_names(task)
    in_ref = _name_counts(task.reference or "", domain)
    changes = []
    for hunk in d.hunks:
        old = {t.text for t in hunk.old if IDENT.fullmatch(t.text)}
        new = {t.text for t in hunk.new if IDENT.fullmatch(t.text)}
        changes += [("gone", name) for name in old - new] + [("came", name) for name in new - old]
    names = {name for _, name in changes}
    if len(names) <= FEW_NAMES:  # the usual edit: count these few names where they stand
        in_code = {name: _word_count(d.clean, name) for name in names}
    else:  # a rewrite (or a flood of new names): one pass over the text, not one per name
        in_code = Counter(_WHOLE_NAME.findall(d.clean))
    return [
        f"{way}:{vocab.norm(name, domain, declared, bundle)}:{_bucket(in_ref[name])}:{_bucket(in_code[name])}"
        for way, name in changes
    ]


FEW_NAMES = 8  # up to this many changed names are counted one by one


def _word_count(text: str, name: str) -> int:
    """How often `name` stands as a whole identifier in `text` (str.find, no per-name regex to compile)."""
    count, at = 0, text.find(name)
    while at >= 0:
        end = at + len(name)
        if (at == 0 or text[at - 1] not in _WORD_CHARS) and (end == len(text) or text[end] not in _WORD_CHARS):
            count += 1
        at = text.find(name, end)
    return count


_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_$")
_WHOLE_NAME = re.compile(r"(?<![A-Za-z0-9_$])" + IDENT.pattern)  # what _word_count counts, for all names at once


@lru_cache(maxsize=1024)
def _name_counts(text: str, domain: str) -> Counter[str]:
    return Counter(IDENT.findall(strip_comments(text, domain)))


def candidate_facts(task: Task, code: str, d: Diff, vocab: Vocabulary) -> list[str]:
    """Facts about the whole candidate: the domain's static check, and the use of changed names."""
    return [*static_facts(code, task.domain, d, task.reference or ""), *use_facts(task, d, vocab)]


def prefixed(domain: str, feats: dict[str, float]) -> dict[str, float]:
    """The classifier's view: each feature scoped to its domain, so one classifier serves every domain
    without sharing weights between them (shared copies of every feature measured 0.5 points worse
    over the six bundled domains). Models saved with shared ("*|") copies still load and predict."""
    return {f"{domain}|{key}": value for key, value in feats.items()}


@lru_cache(maxsize=1024)
def task_context(task: Task) -> tuple[str, ...]:
    """The words a change is read against: the task's tags and what the domain reads from its bundle."""
    return (*task.tags, *template(task.domain).context(task))


def change_context(task: Task, hunks: Sequence[Hunk]) -> tuple[str, ...]:
    """The words changes are read against: the task's context, and what the domain reads about the
    reference lines they touch (GPU: the memory accesses those lines make or guard)."""
    read = template(task.domain).line_context
    if read is None:
        return task_context(task)
    lines = {t.line for h in hunks for t in h.old} | {h.ref_line for h in hunks if not h.old}
    return (*task_context(task), *sorted({word for line in lines for word in read(task, line)}))


def candidate_features(task: Task, code: str, d: Diff, found: list[Counter[str]], vocab: Vocabulary) -> dict[str, float]:
    """A candidate's features (unprefixed), from its diff and its hunks' descriptions."""
    return combine(found, d.ratio, candidate_facts(task, code, d, vocab), change_context(task, d.hunks))


def features(task: Task, code: str, vocab: Vocabulary, the_diff: Diff | None = None) -> dict[str, float]:
    """The classifier's feature dict of one candidate."""
    d = the_diff if the_diff is not None else diff(task.reference or "", code, task.domain)
    found = [hunk_features(h, vocab, task) for h in d.hunks]
    return prefixed(task.domain, candidate_features(task, code, d, found, vocab))
