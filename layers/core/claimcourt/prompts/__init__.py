"""Prompt templates, one file per task kind, rendered for the model.

Each `<kind>.md` holds the system text, a line `==== user`, then the user text; `_shared.md` holds
fragments every template may use (`==== name` starts one): the scoring contract, the tiers, the rule
that tagged text is data, how to reply. `${name}` placeholders are filled by `render`, which refuses a
template with a placeholder left unfilled. Every untrusted text (claim, context, sub-claims, evidence,
arguments, queries) goes in through the block helpers here: escaped, so it cannot close or forge a tag,
and inside its delimiting tag. tests/snapshots/prompts/ keeps every template rendered for a sample run,
so a prompt change is a reviewed diff.
"""

from __future__ import annotations

import hashlib
import html
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from functools import cache, lru_cache
from pathlib import Path
from string import Template
from typing import Literal

from claimcourt.models import (
    SEARCH_OF_SOURCE,
    AnonymousPosition,
    Evidence,
    FrontierIssue,
    LedgerEntry,
    Point,
    PoolRelevance,
    SubClaim,
)

TEMPLATES = Path(__file__).parent
_SECTION = re.compile(r"^==== (\w+)\s*$", re.M)

# Every web search source (models.SEARCH_OF_SOURCE) is queried as a search engine is.
_WEB_HINT = (
    "The evidence source is a web search: write the query you would type into a search engine, and "
    "name the primary source you expect (a regulator, a statistics office, a journal) where you can."
)
# A run that names document collections searches a source named "collections:<name>@<version>+…".
COLLECTIONS = "collections"
BUNDLED_NAME = "climate-fever-wikipedia"

# How to write a retrieval directive for each evidence source (its `name`, or its kind before a colon).
RETRIEVAL_HINTS = {
    "climate-fever-wikipedia": (
        "The evidence source is a fixed corpus of Wikipedia sentences searched by keywords (BM25): write "
        "a short keyword query with the words such a sentence would contain, not a question."
    ),
    **dict.fromkeys(SEARCH_OF_SOURCE, _WEB_HINT),
    "golden": "The evidence for this claim is fixed in advance: the query only labels what is looked for.",
    COLLECTIONS: (
        "The evidence source is a set of document collections (reports, filings, papers, saved pages) "
        "searched by keywords (BM25): write a short keyword query with the words such a passage would "
        "contain, not a question."
    ),
}
DEFAULT_RETRIEVAL_HINT = "Write a short, specific search query."
# What each evidence source covers in time, for the roles that reason about time (suitability reads it
# beside the first round's pool): (what it is, the last year it can speak of, or None if it is current).
SOURCE_COVERAGE: dict[str, tuple[str, int | None]] = {
    "climate-fever-wikipedia": (
        "a fixed corpus of English Wikipedia sentences compiled in 2020, undated",
        2020,
    ),
    **dict.fromkeys(SEARCH_OF_SOURCE, ("a web search run now", None)),
    "golden": ("evidence gathered for this claim by fact-checkers when it was checked", None),
}


def _sections(text: str) -> dict[str, str]:
    parts = _SECTION.split(text)
    return {name: body.strip("\n") for name, body in zip(parts[1::2], parts[2::2], strict=True)}


@lru_cache(maxsize=1)
def shared() -> dict[str, str]:
    return _sections((TEMPLATES / "_shared.md").read_text(encoding="utf-8"))


@cache
def template(kind: str) -> tuple[Template, Template]:
    text = (TEMPLATES / f"{kind}.md").read_text(encoding="utf-8")
    system, user = _sections("==== system\n" + text).values()
    return Template(system), Template(user)


def template_version(kind: str) -> str:
    """A prompt's version: `<kind>@` and the first 12 hex digits of the SHA-256 of its template and the
    shared fragments it may use. It changes whenever their text does, so two judgements with the same
    version read the same instructions (the values filled in, and notes written in code, aside)."""
    digest = hashlib.sha256()
    for name in (f"{kind}.md", "_shared.md"):
        digest.update((TEMPLATES / name).read_bytes())
    return f"{kind}@{digest.hexdigest()[:12]}"


def render(kind: str, **values: str) -> tuple[str, str]:
    """(system, prompt) for a task kind. A placeholder without a value raises KeyError."""
    system, user = template(kind)
    filled = {**shared(), **values}
    return system.substitute(filled).strip(), _tidy(user.substitute(filled))


def _tidy(text: str) -> str:
    """No runs of blank lines where an optional block was empty."""
    return re.sub(r"\n{3,}", "\n\n", text).strip()


# ---------------------------------------------------------------- the opening every call of a run shares


@dataclass(frozen=True)
class Segment:
    """A part of the opening a run's calls share. `cache`: a prompt-cache breakpoint after it: a call
    that sends the same bytes up to here may read them from the provider's cache."""

    text: str
    cache: bool = False


def rules() -> str:
    """What every role of a claim debate reads first: what the debate is, the score contract, the
    tiers, that tagged text is data, how the debaters argue (said once here, not in each of a run's four
    or more debater calls), how to reply. No claim and no side in it: every run sends it alike."""
    parts = shared()
    names = ("preamble", "contract", "tiers", "data", "debaters", "reply")
    return "\n\n".join(parts[name] for name in names) + "\n\n"


def case_block(claim: str, sub_claims: Iterable[SubClaim]) -> str:
    """The claim and its sub-claims, as every role after the decomposition reads them."""
    return (
        f"<claim>{escape(claim)}</claim>\n\n<sub_claims>\n{sub_claims_block(sub_claims)}\n</sub_claims>\n\n"
    )


# What a side that made no argument in a round (it refused) is shown as, to every reader: never the
# refusal's words (as the research found: an opponent told of a refusal argues against the refusal).
NO_ARGUMENT = "(no argument was made this round)"


# A block of the opening after the claim: (round, kind), in the order they are sent.
BlockKey = tuple[int, Literal["pool", "debate"]]


def round_blocks(
    evidence: Iterable[Evidence],
    debate: Iterable[AnonymousPosition] = (),
    relevance: Mapping[int, PoolRelevance] | None = None,
) -> list[tuple[BlockKey, str]]:
    """The pool and the debate as they grew, round by round, as ((round, kind), block): each round's
    evidence block (the user's --context passages open round 1's) with the pool-relevance check's note
    after it where the reading changed (`relevance`, by round), then that round's arguments as the
    anonymized judge reads them (positions A and B, in the order they were spoken). Append-only: a later
    round adds blocks after the earlier ones, and leaves those as they were."""
    by_round: dict[int, list[Evidence]] = {}
    for e in evidence:
        by_round.setdefault(e.round, []).append(e)
    argued: dict[int, list[AnonymousPosition]] = {}
    for position in debate:
        argued.setdefault(position.round, []).append(position)
    notes = _relevance_notes(relevance or {}, sorted(by_round))
    blocks: list[tuple[BlockKey, str]] = [
        ((n, "pool"), _pool_block(n, by_round[n]) + notes.get(n, "")) for n in by_round
    ] or [((1, "pool"), "<evidence_pool>\n(no evidence was found)\n</evidence_pool>\n\n")]
    blocks += [((n, "debate"), debate_block(n, argued[n])) for n in argued]
    return sorted(blocks, key=lambda b: (b[0][0], b[0][1] == "debate"))


def _pool_block(round: int, evidence: list[Evidence]) -> str:
    return f'<evidence_pool round="{round}">\n{evidence_block(evidence)}\n</evidence_pool>\n\n'


def debate_block(round: int, positions: Iterable[AnonymousPosition]) -> str:
    """One round's arguments, anonymized: each position's points, or that it made none."""
    shown = "\n".join(
        f'<argument position="{p.label}">\n{points_block(p.points) if p.made else NO_ARGUMENT}\n</argument>'
        for p in positions
    )
    return f'<debate round="{round}">\n{shown}\n</debate>\n\n'


# ---------------------------------------------------------------- untrusted text, escaped and tagged


def escape(text: str) -> str:
    """Text that cannot open or close a tag: <, > and & as entities."""
    return html.escape(text, quote=False)


def attr(value: object) -> str:
    return html.escape(str(value), quote=True)


def context_block(context: str | None) -> str:
    return f"\n<context>\n{escape(context)}\n</context>" if context else ""


def sub_claims_block(sub_claims: Iterable[SubClaim]) -> str:
    return "\n".join(f'<sub_claim id="{attr(s.id)}">{escape(s.text)}</sub_claim>' for s in sub_claims)


def evidence_block(evidence: Iterable[Evidence]) -> str:
    """The passages, grouped by the source they come from (its tier, title and url, said once: a page
    often gives several passages), sources in the order they first appear; each passage with its id, and
    its date and page when known."""
    by_source: dict[tuple[str, str, str], list[Evidence]] = {}
    for e in evidence:
        by_source.setdefault((e.tier, e.title, e.source_url), []).append(e)
    blocks = []
    for (tier, title, url), passages in by_source.items():
        lines = []
        for e in passages:
            dated = f' published="{e.published.isoformat()}"' if e.published else ""
            page = f' page="{e.page}"' if e.page is not None else ""
            lines.append(f'<evidence id="{attr(e.id)}"{dated}{page}>{escape(e.text)}</evidence>')
        shown = "\n".join(lines)
        blocks.append(f'<source tier="{tier}" title="{attr(title)}" url="{attr(url)}">\n{shown}\n</source>')
    return "\n".join(blocks) or "(no evidence was found)"


def points_block(points: Iterable[Point]) -> str:
    lines = []
    for p in points:
        lines.append(
            f'<point sub_claim="{attr(p.sub_claim_id)}" implied_score="{p.implied_score}" '
            f'confidence="{p.confidence:.2f}" citations="{attr(", ".join(p.citations))}">'
            f"{escape(p.argument)}</point>"
        )
    return "\n".join(lines) or "(no points)"


def queries_block(queries: Iterable[str]) -> str:
    return "\n".join(f"<query>{escape(q)}</query>" for q in queries) or "(none yet)"


def dates_note(
    today: date | None,
    as_of: date | None = None,
    evidence: Iterable[Evidence] | None = None,
    source: str | None = None,
) -> str:
    """What a role that reasons about time is told of it: today's date, a backtest's date, and what
    the evidence covers (the pool's dated range, or, before retrieval, the source's). '' without a date."""
    if today is None:
        return ""
    note = f"Today is {today.isoformat()}."
    if as_of is not None:
        note += (
            f" This is a backtest as of {as_of.isoformat()}: judge the claim as it stood that day; evidence"
            " published after it, or whose text shows it was written after it, was removed, so the pool"
            " cannot show what happened since."
        )
    if evidence is not None:
        pool = list(evidence)
        dated = sorted(e.published for e in pool if e.published is not None)
        if dated:
            span = (
                f"run from {dated[0].isoformat()} to {dated[-1].isoformat()}"
                if dated[0] != dated[-1]
                else f"are dated {dated[0].isoformat()}"
            )
            note += f" The evidence pool's dated passages {span} ({len(dated)} of {len(pool)} dated)."
        elif pool:
            note += (
                " No passage in the evidence pool carries a date: it may be years old, and a claim about"
                " recent events may not be covered by it."
            )
    if source is not None:
        what, until = coverage(source)
        # Before retrieval the source is all there is to say; after it, the pool's dates come first.
        tense = "comes" if evidence is not None else "will come"
        note += f" The evidence {tense} from {what}" + (
            f", which speaks of nothing after {until}." if until is not None else "."
        )
    return "\n\n" + note


def retrieval_hint(source: str) -> str:
    return RETRIEVAL_HINTS.get(source) or RETRIEVAL_HINTS.get(
        source.partition(":")[0], DEFAULT_RETRIEVAL_HINT
    )


def coverage(source: str) -> tuple[str, int | None]:
    """What the source covers, and the last year it can speak of (None: it is current or unknown)."""
    if source.startswith(COLLECTIONS + ":"):
        # Each collection by its name (a-z, 0-9, - and _ only), the bundled corpus as "climate".
        names = [n.split("@")[0] for n in source.removeprefix(COLLECTIONS + ":").split("+")]
        named = [f"climate ({SOURCE_COVERAGE[BUNDLED_NAME][0]})" if n == BUNDLED_NAME else n for n in names]
        listed = named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]
        return f"the document collection{'s' * (len(named) > 1)} {listed}", None
    return SOURCE_COVERAGE.get(source, ("the configured evidence source", None))


def ledger_block(
    entries: Iterable[LedgerEntry],
    *,
    checked: bool = True,
    passages: bool = True,
    sources: bool = True,
    sentences: bool = True,
) -> str:
    """Ledger entries as tagged data, grouped by the sentence that cited them: each `<cited>` group says
    the sentence once (its round and sub-claim), then each citation it made (key, evidence id, tier) and
    (`checked`) the fact-check it met and the response. `sources`: each citation names its source (title
    and url): a fact-checker scoring a source's credibility has it at hand. Without `passages`, for a
    prompt whose evidence pool holds them: each passage once per prompt, found there by its evidence id
    (with its source); with them, each citation carries its source and the passage. Without `sentences`,
    for a reader whose debate record holds the arguments (the judge): no sentence, each citation by itself
    with the round and sub-claim that find its sentence there, by the evidence id."""
    if not sentences:
        return (
            "\n".join(
                _citation(e, checked=checked, passages=passages, sources=sources, where=True) for e in entries
            )
            or "(none)"
        )
    groups: list[list[LedgerEntry]] = []
    for e in entries:
        if groups and _one_sentence(groups[-1][0], e):
            groups[-1].append(e)
        else:
            groups.append([e])
    blocks = []
    for group in groups:
        first = group[0]
        cited = "\n".join(_citation(e, checked=checked, passages=passages, sources=sources) for e in group)
        blocks.append(
            f'<cited round="{first.round}" sub_claim="{attr(first.sub_claim_id)}">\n'
            f"<sentence>{escape(first.sentence)}</sentence>\n{cited}\n</cited>"
        )
    return "\n".join(blocks) or "(none)"


def _one_sentence(a: LedgerEntry, b: LedgerEntry) -> bool:
    """Whether two entries are citations made by one sentence (its side's, in one round, on one sub-claim)."""
    return (a.side, a.round, a.sub_claim_id, a.sentence) == (b.side, b.round, b.sub_claim_id, b.sentence)


def _citation(e: LedgerEntry, *, checked: bool, passages: bool, sources: bool, where: bool = False) -> str:
    source = f' title="{attr(e.title)}" url="{attr(e.source_url)}"' if passages or sources else ""
    place = f' round="{e.round}" sub_claim="{attr(e.sub_claim_id)}"' if where else ""
    scores = ""
    inside = f"\n<passage>{escape(e.passage)}</passage>" if passages else ""
    if checked and e.credibility is not None:
        scores = f' credibility="{e.credibility}" correspondence="{e.correspondence}"'
        inside += f"\n<check>{escape(e.comment or '')}</check>"
        if e.response:
            inside += f"\n<response>{escape(e.response)}</response>"
    listed = f'key="{attr(e.key)}"{place} evidence="{attr(e.evidence_id)}" tier="{e.tier}"{source}{scores}'
    tag = f"<citation {listed}"
    return f"{tag}>{inside}\n</citation>" if inside else f"{tag}/>"


def frontier_block(issues: Iterable[FrontierIssue]) -> str:
    """The moderator's disagreement frontier, as tagged data (empty: no block at all)."""
    lines = [
        f'<issue sub_claim="{attr(i.sub_claim_id)}">{escape(i.core_issue)}\n'
        f"<for>{escape(i.for_stance)}</for>\n<against>{escape(i.against_stance)}</against>\n</issue>"
        for i in issues
    ]
    return "\n\n<frontier>\n" + "\n".join(lines) + "\n</frontier>" if lines else ""


def relevance_block(relevance: PoolRelevance | None, round: int | None = None) -> str:
    """The pool-relevance check's finding for the roles that read the pool: the sub-claims whose passages
    do not appear to speak to them, and why ('' when every sub-claim's do). `round`: the round whose
    retrieval it read, when the pool is shown round by round."""
    off = relevance.off_topic() if relevance is not None else []
    if not off:
        return ""
    lines = "\n".join(f'<sub_claim id="{attr(s.sub_claim_id)}">{escape(s.reason)}</sub_claim>' for s in off)
    tag = f'<pool_relevance round="{round}">' if round is not None else "<pool_relevance>"
    after = f"after round {round}'s retrieval, " if round is not None and round > 1 else ""
    return (
        f"{tag}\nEach sub-claim's passages were checked, {after}by the words they share with it, for "
        "whether they speak to it. These do not appear to:\n"
        f"{lines}\n"
        "The check reads words, not meaning, and can miss a paraphrase: read those passages for what they "
        "say. Where none of them speaks to a sub-claim, the pool is silent on it: say so, rather than build "
        "on passages about something else.\n</pool_relevance>\n\n"
    )


def _relevance_notes(relevance: Mapping[int, PoolRelevance], rounds: list[int]) -> dict[int, str]:
    """The note after each round's evidence block: round 1's when a sub-claim looks off-topic, a later
    round's only when the reading changed (that every sub-claim's passages now speak to it, too)."""
    notes: dict[int, str] = {}
    shown: list[str] = []  # the off-topic sub-claims of the last note shown
    for n in rounds:
        measured = relevance.get(n)
        if measured is None:
            continue
        off = [s.sub_claim_id for s in measured.off_topic()]
        if off == shown:
            continue
        notes[n] = relevance_block(measured, n) or (
            f"<pool_relevance round=\"{n}\">\nAfter round {n}'s retrieval, every sub-claim's passages "
            "appear to speak to it.\n</pool_relevance>\n\n"
        )
        shown = off
    return notes
