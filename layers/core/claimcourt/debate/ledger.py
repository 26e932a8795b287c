"""The citation ledger: every citation a debater made, keyed in order of appearance (`for_1, for_2,
…`, `against_1, …`), with the fact-check it met (a claim debate's neutral checker's, or a motion's
other team's) and, in a motion debate, its team's response. Pure: built from the run's
arguments, its evidence pool and its fact-check replies, so it is the same whoever builds it.

A side that cites the same passage again later adds no new entry: a key names a (side, passage).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from claimcourt.evidence.sentences import sentences
from claimcourt.models import Argument, Evidence, FactcheckReply, LedgerEntry, Side

SIDES: tuple[Side, Side] = ("for", "against")
PASSAGE_CHARS = 600
SENTENCE_CHARS = 400
_IDS = re.compile(r"\[[^\]]*\]")
MIN_WORDS = 5


def _words(sentence: str) -> int:
    return len(_IDS.sub("", sentence).split())


def canonical_key(key: str, first: Side = "for") -> str:
    """A key as the ledger names it (`for_1`, `against_2`). `a_`/`b_` name the team that spoke first and
    second: in a motion debate the side vote zero put first (`first`, as its citation_ledger.json
    names the teams); a claim debate has no teams, and takes them as for and against."""
    second: Side = "against" if first == "for" else "for"
    for alias, side in (("a_", first), ("b_", second)):
        if key.lower().startswith(alias):
            return f"{side}_{key[len(alias) :]}"
    return key.lower()


def citing_sentence(argument: str, evidence_id: str) -> str:
    """The sentence that makes the point the passage is cited for: of the sentences that name it, the
    one that says most; when those are only lists of ids ("Also [E1], [E2]."), the sentence before the
    first of them, which they back; else the argument's first sentence."""
    said = sentences(argument) or [argument]
    naming = [i for i, s in enumerate(said) if evidence_id in s]
    if not naming:
        return _cut(said[0])
    best = max(naming, key=lambda i: _words(said[i]))
    if _words(said[best]) < MIN_WORDS:
        before = [i for i in range(naming[0] - 1, -1, -1) if _words(said[i]) >= MIN_WORDS]
        return _cut(said[before[0]] + " " + said[naming[0]] if before else argument)
    return _cut(said[best])


def _cut(sentence: str) -> str:
    """At most SENTENCE_CHARS, cut at a word and marked as cut (a reader is not left mid-clause unawares)."""
    if len(sentence) <= SENTENCE_CHARS:
        return sentence
    return sentence[: SENTENCE_CHARS - 1].rsplit(" ", 1)[0] + "…"


def build_ledger(
    arguments: Iterable[Argument],
    pool: Iterable[Evidence],
    factchecks: Sequence[tuple[int, Side | None, FactcheckReply]] = (),
) -> list[LedgerEntry]:
    """The ledger in order of appearance (round, then for before against, then point order), with
    each fact-check (round, the checker's side, its reply) applied: a neutral checker (no side) scores
    either side's citations and answers none; a team's checker scores only the other side's citations,
    and answers only its own side's, once they have been checked.

    A round's checks are applied before its responses, whichever checker ran first: a checker that
    runs after the other side spoke (a motion's second team, or a claim debate's second speaker)
    answers checks made earlier in the same round, and the for-then-against order of the stored
    replies would otherwise reach a response before the check it answers, and drop it."""
    evidence = {e.id: e for e in pool}
    counters = dict.fromkeys(SIDES, 0)
    entries: dict[str, LedgerEntry] = {}
    seen: set[tuple[Side, str]] = set()
    for argument in sorted(arguments, key=lambda a: (a.round, SIDES.index(a.side))):
        for point in argument.points:
            for evidence_id in point.citations:
                found = evidence.get(evidence_id)
                if found is None or (argument.side, evidence_id) in seen:
                    continue
                seen.add((argument.side, evidence_id))
                counters[argument.side] += 1
                key = f"{argument.side}_{counters[argument.side]}"
                entries[key] = LedgerEntry(
                    key=key,
                    side=argument.side,
                    evidence_id=evidence_id,
                    source_url=found.source_url,
                    title=found.title,
                    tier=found.tier,
                    page=found.page,
                    round=argument.round,
                    sub_claim_id=point.sub_claim_id,
                    sentence=citing_sentence(point.argument, evidence_id),
                    passage=found.text[:PASSAGE_CHARS],
                )
    ordered = sorted(factchecks, key=lambda f: (f[0], -1 if f[1] is None else SIDES.index(f[1])))
    for round in sorted({f[0] for f in ordered}):
        replies = [(checker, reply) for r, checker, reply in ordered if r == round]
        for checker, reply in replies:
            for check in reply.checks:
                entry = entries.get(canonical_key(check.key))
                if entry is not None and entry.side != checker:  # a neutral checker (None): any side
                    entries[entry.key] = entry.model_copy(
                        update={
                            "credibility": check.credibility,
                            "correspondence": check.correspondence,
                            "comment": check.comment,
                            "checked_round": round,
                        }
                    )
        for checker, reply in replies:
            for response in reply.responses:
                entry = entries.get(canonical_key(response.key))
                if entry is not None and entry.side == checker and entry.checked_round is not None:
                    entries[entry.key] = entry.model_copy(update={"response": response.response})
    return list(entries.values())


def cited_before(ledger: Iterable[LedgerEntry], side: Side, round: int) -> set[str]:
    """The evidence ids this side cited in rounds before `round`."""
    return {e.evidence_id for e in ledger if e.side == side and e.round < round}
