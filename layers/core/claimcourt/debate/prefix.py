"""What every model call of a claim debate sends first, alike, so that a provider's prompt cache holds
it once: the reply tools of all the run's roles, the common rules, then the claim and its sub-claims,
then round by round the evidence pool's block and the debate's arguments as the judge reads them
(docs/architecture.md, "Prompt caching").

The order is the providers' (tools, then system, then messages), and everything in it is append-only:
a call of round 3 sends round 1's and round 2's blocks as they were, then round 3's. Nothing in it
names a side or a role (the arguments are the anonymized judge's: positions A and B, side words
redacted), so the judge shares it with the debaters. What differs between calls (a role's
instructions, which position is whose, the checks) comes after the last breakpoint.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from claimcourt.models import (
    AnonymousPosition,
    ArgumentDraft,
    Decomposition,
    Evidence,
    FactcheckReply,
    JudgeKind,
    Judgement,
    ModeratorView,
    PoolRelevance,
    RubricJudgement,
    SubClaim,
    Suitability,
)
from claimcourt.prompts import BlockKey, Segment, case_block, round_blocks, rules
from claimcourt.reasoning.base import ReplyTool

# Each role's reply tool, in the order every call sends them; the judge's is the run's judge.
ROLE_TOOLS = (
    ReplyTool("decompose", Decomposition),
    ReplyTool("suitability", Suitability),
    ReplyTool("argue", ArgumentDraft),
    ReplyTool("factcheck", FactcheckReply),
    ReplyTool("moderate", ModeratorView),
)
JUDGE_TOOLS: dict[JudgeKind, ReplyTool] = {
    "contract": ReplyTool("adjudicate", Judgement),
    "rubric": ReplyTool("adjudicate_rubric", RubricJudgement),
}


def run_tools(judge: JudgeKind) -> tuple[ReplyTool, ...]:
    """The reply tools every call of a run sends: every role's, and the judge's the run asked for."""
    return (*ROLE_TOOLS, JUDGE_TOOLS[judge])


def rules_prefix() -> tuple[Segment, ...]:
    """The opening before the claim is split: the rules alone (the decomposer's)."""
    return (Segment(rules(), cache=True),)


def case_prefix(
    claim: str,
    sub_claims: Iterable[SubClaim],
    evidence: Iterable[Evidence],
    debate: Iterable[AnonymousPosition] = (),
    *,
    relevance: Mapping[int, PoolRelevance] | None = None,
    new_from: BlockKey | None = None,
) -> tuple[Segment, ...]:
    """The opening of every call after the decomposition: the rules, the claim and its sub-claims, then
    round by round the pool's block (with the pool-relevance check's note where its reading changed:
    `relevance`, by round) and the debate's arguments, anonymized (`debate`: the rounds the caller may
    read, as far as the debate has gone). Breakpoints after the rules (every run's calls share
    them) and after the last block: this step's calls share all of it, a later step's read it and add.

    `new_from`: the first block no earlier step wrote, when this call need not write it: a call beside
    another of its step that writes the same blocks (the second debater of a round argued at once)
    would only write them again, and what only the judge reads (the last round's arguments) nobody
    would read. The breakpoint goes after the block before it, and the new ones follow uncached (the
    plain input price, not a write's 1.25×); the round-1 blocks come after the claim, which is new too."""
    blocks = round_blocks(evidence, debate, relevance)
    last = len(blocks) - 1
    if new_from is not None:
        order = [(n, kind == "debate") for (n, kind), _ in blocks]
        first_new = (new_from[0], new_from[1] == "debate")
        last = max((i for i, key in enumerate(order) if key < first_new), default=-1)
    return (
        Segment(rules(), cache=True),
        Segment(case_block(claim, sub_claims)),
        *(Segment(text, cache=i == last) for i, (_, text) in enumerate(blocks)),
    )
