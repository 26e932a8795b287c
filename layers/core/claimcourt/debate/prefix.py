"""What every model call of a claim debate sends first, alike, so that a provider's prompt cache holds
it once: the reply tools of all the run's roles, the common rules, then the claim and its sub-claims,
then the evidence pool as it grew, one block per round (docs/architecture.md, "Prompt caching").

The order is the providers' (tools, then system, then messages), and everything in it is append-only:
a call of round 3 sends round 1's and round 2's blocks as they were, then round 3's. Nothing in it
names a side or a role, so the anonymized judge shares it with the debaters. What differs between
calls (a role's instructions, this round's arguments, the checks) comes after the last breakpoint.
"""

from __future__ import annotations

from collections.abc import Iterable

from claimcourt.models import (
    ArgumentDraft,
    Decomposition,
    DecompositionCheck,
    Evidence,
    FactcheckReply,
    JudgeKind,
    Judgement,
    ModeratorView,
    RubricJudgement,
    SubClaim,
)
from claimcourt.prompts import Segment, case_block, pool_blocks, rules
from claimcourt.reasoning.base import ReplyTool

# Each role's reply tool, in the order every call sends them; the judge's is the run's judge.
ROLE_TOOLS = (
    ReplyTool("decompose", Decomposition),
    ReplyTool("decompose_check", DecompositionCheck),
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
    """The opening before the claim is split: the rules alone (the decomposer's, and its check's)."""
    return (Segment(rules(), cache=True),)


def case_prefix(
    claim: str, sub_claims: Iterable[SubClaim], evidence: Iterable[Evidence]
) -> tuple[Segment, ...]:
    """The opening of every call after the decomposition: the rules, the claim and its sub-claims, and
    the pool so far, one block per round. Breakpoints after the rules (every run's calls share them)
    and after the last block (this round's calls share all of it; a later round's read it and add)."""
    pool = pool_blocks(evidence)
    return (
        Segment(rules(), cache=True),
        Segment(case_block(claim, sub_claims)),
        *(Segment(block) for block in pool[:-1]),
        Segment(pool[-1], cache=True),
    )
