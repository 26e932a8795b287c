"""The offline reasoner's fact-checker: deterministic, no model. It plays a claim debate's neutral
checker (every listed citation, by position, and nothing answered: `to_answer` is empty) and a motion
team's (which also answers its own team's checks). Credibility from the source's tier (the user's own
context lowest); correspondence from the cited passage's lexical stance towards the sentence that used
it (reasoning/stance.py): how much it is about it, and whether it states it."""

from __future__ import annotations

from claimcourt.models import (
    USER_CONTEXT_URL,
    CitationCheck,
    CitationResponse,
    FactcheckInput,
    FactcheckReply,
    LedgerEntry,
)
from claimcourt.reasoning.stance import stance

CREDIBILITY = {"T1": 8, "T2": 5}
USER_CONTEXT_CREDIBILITY = 3


def credibility(entry: LedgerEntry) -> int:
    if entry.source_url.startswith(USER_CONTEXT_URL):
        return USER_CONTEXT_CREDIBILITY
    return CREDIBILITY[entry.tier]


def correspondence(entry: LedgerEntry) -> int:
    """10 when the passage states the sentence, about 5 when it is on the topic only, 1–2 when it is
    unrelated or states the opposite."""
    found = stance(entry.sentence, entry.passage, entry.title)
    if found.polarity < 0:
        return 2
    scale = 9 if found.polarity > 0 else 5
    return max(1, min(10, 1 + round(scale * found.relevance)))


def _comment(entry: LedgerEntry, score: int) -> str:
    if score >= 7:
        return "The passage states what the sentence says (offline lexical check)."
    if score >= 4:
        return (
            "The passage is on the topic but does not state what the sentence says (offline lexical check)."
        )
    return "The passage does not say what the sentence says (offline lexical check)."


def factcheck(inputs: FactcheckInput) -> FactcheckReply:
    checks = []
    for entry in inputs.to_check:
        score = correspondence(entry)
        checks.append(
            CitationCheck(
                key=entry.key,
                credibility=credibility(entry),
                correspondence=score,
                comment=_comment(entry, score),
            )
        )
    responses = [
        CitationResponse(
            key=e.key,
            response=(
                "Conceded: the passage is weaker than the sentence claimed."
                if (e.correspondence or 10) < 5
                else "The check confirms the citation."
            ),
        )
        for e in inputs.to_answer
    ]
    return FactcheckReply(checks=checks, responses=responses)
