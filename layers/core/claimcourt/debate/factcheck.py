"""Stage 4b: a side's fact-checker scores the other side's new citations (credibility and
correspondence, 1–10, with a comment) and answers the checks left on its own side's citations."""

from __future__ import annotations

from claimcourt.debate.argue import opposite
from claimcourt.models import FactcheckInput, FactcheckReply
from claimcourt.prompts import escape, ledger_block, render
from claimcourt.reasoning.base import CallContext, Task
from claimcourt.reasoning.reasoner import Reasoner

SIDE_TEXT = {"for": "TRUE", "against": "FALSE"}


def factcheck_task(inputs: FactcheckInput) -> Task[FactcheckReply]:
    other = opposite(inputs.side)
    system, prompt = render(
        "factcheck",
        side=inputs.side,
        other_side=other,
        side_text=SIDE_TEXT[inputs.side],
        round=str(inputs.round),
        claim=escape(inputs.claim),
        to_check=ledger_block(inputs.to_check, checked=False),
        to_answer=ledger_block(inputs.to_answer),
    )
    wanted, answerable = {e.key for e in inputs.to_check}, {e.key for e in inputs.to_answer}

    def each_listed_citation_once(reply: FactcheckReply) -> list[str]:
        keys = [c.key for c in reply.checks]
        problems = [f"no check of {k}" for k in sorted(wanted - set(keys))]
        problems += [f"{k} is not a citation to check" for k in sorted(set(keys) - wanted)]
        problems += [f"{k} checked more than once" for k in sorted({k for k in keys if keys.count(k) > 1})]
        return problems + [
            f"{r.key} is not a check to answer" for r in reply.responses if r.key not in answerable
        ]

    return Task(
        kind="factcheck",
        role="fact_checker",
        inputs=inputs,
        output=FactcheckReply,
        system=system,
        prompt=prompt,
        temperature=0.0,
        array_limits={"checks": (len(wanted), len(wanted)), "responses": (0, len(answerable))},
        check=each_listed_citation_once,
    )


def factcheck(inputs: FactcheckInput, reasoner: Reasoner, ctx: CallContext) -> FactcheckReply:
    """The reply, keeping only checks of listed citations and answers to listed checks; a refusal is
    an empty reply (the citations stay unchecked)."""
    if not inputs.to_check and not inputs.to_answer:
        return FactcheckReply()  # nothing to do: no call
    reply = reasoner.call(factcheck_task(inputs), ctx).output
    if reply is None:
        return FactcheckReply()
    wanted, answerable = {e.key for e in inputs.to_check}, {e.key for e in inputs.to_answer}
    return FactcheckReply(
        checks=[c for c in reply.checks if c.key in wanted],
        responses=[r for r in reply.responses if r.key in answerable],
    )
