"""Each role of a motion debate as a Task (prompt, schema, check) and the rules the code enforces on
a reply: a statement within its word limit, citations within its allowance and from the pool, none
new in the closing; every persona of a batch voted once."""

from __future__ import annotations

import re
from string import Template

from claimcourt.debate.argue import NO_ARGUMENT
from claimcourt.debate.citations import CITATION_MARKER, drop_citations
from claimcourt.models import (
    CartographInput,
    CrowdInput,
    CrowdVotes,
    MotionMap,
    MotionStatement,
    PublicStatement,
    SpeakInput,
    Stances,
    StancesInput,
)
from claimcourt.prompts import (
    attr,
    context_block,
    escape,
    evidence_block,
    frontier_block,
    ledger_block,
    render,
    retrieval_hint,
    shared,
)
from claimcourt.reasoning.base import Task

PHASE_TEXT = {"opening": "opening", "rounds": "debate", "closing": "closing"}
_WORD = re.compile(r"\S+")
_REF = re.compile(r"\[([^\[\]\s]{1,40})\]")  # "[E1a2b3c]" in a statement


def motion_format(last_round: int) -> str:
    between = last_round - 1  # the rounds between the opening and the closing: none, one, or a range
    debate_rounds = (
        ""
        if between < 2
        else "round 2 the debate, "
        if between == 2
        else f"rounds 2 to {between} the debate, "
    )
    return Template(shared()["motion_format"]).substitute(last_round=last_round, debate_rounds=debate_rounds)


def words_in(text: str) -> int:
    return len(_WORD.findall(text))


def cut_to(text: str, limit: int) -> str:
    """The first `limit` words of a statement, its spacing kept, and an ellipsis if cut."""
    found = list(_WORD.finditer(text))
    if len(found) <= limit:
        return text
    return text[: found[limit - 1].end()] + "…"  # attached: the ellipsis is no word of its own


def statements_block(statements: list[PublicStatement]) -> str:
    return (
        "\n".join(
            f'<statement side="{s.side}" round="{s.round}" phase="{s.phase}" '
            f'citations="{attr(", ".join(s.citations))}">{escape(s.statement)}</statement>'
            if s.made
            else f'<statement side="{s.side}" round="{s.round}" phase="{s.phase}" citations="">'
            f"{NO_ARGUMENT}</statement>"
            for s in statements
        )
        or "(nothing has been said yet)"
    )


def map_block(consensus: list[str], frontier_text: str) -> str:
    if not consensus and not frontier_text:
        return ""
    agreed = "\n".join(f"<agreed>{escape(c)}</agreed>" for c in consensus)
    return f"\n<map>\n{agreed}{frontier_text}\n</map>"


# ---------------------------------------------------------------- phase 0


def stances_task(inputs: StancesInput, last_round: int) -> Task[Stances]:
    system, prompt = render(
        "stances",
        motion_format=motion_format(last_round),
        retrieval_hint=retrieval_hint(inputs.evidence_source),
        motion=escape(inputs.motion),
        context=context_block(inputs.context),
    )
    return Task(
        kind="stances",
        role="judge",
        inputs=inputs,
        output=Stances,
        system=system,
        prompt=prompt,
        temperature=0.0,
    )


# ---------------------------------------------------------------- a team's turn


def _aim(inputs: SpeakInput) -> str:
    if inputs.phase == "opening":
        return "make your team's case: its strongest points, each with its evidence."
    if inputs.phase == "closing":
        return "close: sum up why the audience should side with you, answering the frontier below."
    return (
        "argue the disagreement frontier below, answering the other team's last statement; "
        "do not repeat yourself."
    )


def speak_task(inputs: SpeakInput) -> Task[MotionStatement]:
    closing_rule = (
        " — in the closing none: cite only ids your team cited before" if inputs.phase == "closing" else ""
    )
    system, prompt = render(
        "speak",
        stance=escape(inputs.stance),
        motion_format=motion_format(inputs.last_round),
        round=str(inputs.round),
        last_round=str(inputs.last_round),
        phase_text=PHASE_TEXT[inputs.phase],
        speaks_text="first this round"
        if inputs.speaks == "first"
        else "second this round, after the other team",
        word_limit=str(inputs.word_limit),
        citation_limit=str(inputs.citation_limit),
        closing_rule=closing_rule,
        aim=_aim(inputs),
        motion=escape(inputs.motion),
        context=context_block(inputs.context),
        evidence=evidence_block(inputs.evidence),
        cited_before=", ".join(escape(i) for i in inputs.cited_before) or "none",
        statements=statements_block(inputs.statements),
        map=map_block(inputs.consensus, frontier_block(inputs.frontier)),
        side=inputs.side,
        team_notes="\n".join(f"<note>{escape(n)}</note>" for n in inputs.team_notes) or "(none yet)",
        checks=ledger_block(inputs.checks, passages=False),  # the pool above holds each passage
        # (the closing's pool holds only the team's own passages: the other team's are shown here then)
        own_checks=ledger_block(inputs.own_checks, passages=inputs.phase == "closing"),
    )

    def within_limits(reply: MotionStatement) -> list[str]:
        return statement_problems(inputs, reply)

    return Task(
        kind="speak",
        role=f"debater_{inputs.side}",
        inputs=inputs,
        output=MotionStatement,
        system=system,
        prompt=prompt,
        temperature=None,  # debaters sample at the model's natural temperature, as in claim debates
        check=within_limits,
    )


def statement_problems(inputs: SpeakInput, reply: MotionStatement) -> list[str]:
    if reply.refusal is not None:
        return []
    problems = []
    if (n := words_in(reply.statement)) > inputs.word_limit:
        problems.append(f"the statement has {n} words; the limit is {inputs.word_limit}")
    pool, before = {e.id for e in inputs.evidence}, set(inputs.cited_before)
    unknown = [c for c in reply.citations if c not in pool and c not in before]
    if unknown:
        problems.append(f"not in the evidence pool: {', '.join(unknown)}")
    new = [c for c in dict.fromkeys(reply.citations) if c not in before and c in pool]
    if len(new) > inputs.citation_limit:
        problems.append(f"{len(new)} new citations; the allowance is {inputs.citation_limit}")
    if unknown_in_notes := [c for c in _named_in_notes(reply) if c not in pool and c not in before]:
        problems.append(f"the notes cite ids not in the evidence pool: {', '.join(unknown_in_notes)}")
    return problems


def _named_in_notes(reply: MotionStatement) -> list[str]:
    """The evidence ids the notes cite: those listed, then any other their text names in brackets."""
    return list(dict.fromkeys([*reply.note_citations, *CITATION_MARKER.findall(reply.notes)]))


def enforce(inputs: SpeakInput, reply: MotionStatement) -> tuple[MotionStatement, list[str]]:
    """The statement as the debate records it, and what was cut: words past the limit, citations
    outside the pool, new citations past the allowance (in the closing: every new one). The notes keep
    every passage of the pool they cite (private: no allowance), listed or only bracketed in their
    text; an id outside the pool goes, from the list and from the text."""
    if reply.refusal is not None:
        return reply, []
    cuts = []
    pool, before = {e.id for e in inputs.evidence}, set(inputs.cited_before)
    kept, new = [], 0
    for c in dict.fromkeys(reply.citations):
        if c in before:
            kept.append(c)
        elif c in pool and new < inputs.citation_limit:
            kept.append(c)
            new += 1
        else:
            cuts.append(f"citation {c} dropped")

    # What the audience hears cites only what the ledger holds: a dropped or unlisted id goes, and with
    # it what was built on it, so the statement still reads.
    cuts += [
        f"[{ref}] removed from the statement" for ref in _REF.findall(reply.statement) if ref not in kept
    ]
    statement = drop_citations(reply.statement, set(kept), _REF)
    if (n := words_in(statement)) > inputs.word_limit:
        statement = cut_to(statement, inputs.word_limit)
        cuts.append(f"cut from {n} to {inputs.word_limit} words")
    shown = pool | before
    named = _named_in_notes(reply)
    cuts += [f"note citation {c} dropped" for c in named if c not in shown]
    update = {
        "statement": statement,
        "citations": kept,
        "notes": drop_citations(reply.notes, shown),
        "note_citations": [c for c in named if c in shown],
    }
    return reply.model_copy(update=update), cuts


# ---------------------------------------------------------------- the judge, as cartographer


def cartograph_task(inputs: CartographInput) -> Task[MotionMap]:
    previous = inputs.previous
    system, prompt = render(
        "cartograph",
        round=str(inputs.round),
        last_round=str(inputs.last_round),
        phase_text=PHASE_TEXT[inputs.phase],
        motion_format=motion_format(inputs.last_round),
        next_query_rule=(
            "null: no evidence is retrieved after this round."
            if inputs.final or not inputs.research_follows
            else "one search query for the evidence the frontier most needs, not one already run. "
            + retrieval_hint(inputs.evidence_source)
        ),
        report_rule=(
            "the final report on the whole debate: what each team established, what held up under the "
            "fact-checks, and what stays disputed. Still no winner."
            if inputs.final
            else "null (only after the last round)."
        ),
        motion=escape(inputs.motion),
        statements=statements_block(inputs.statements),
        ledger=ledger_block(inputs.ledger),
        map=map_block(previous.consensus, frontier_block(previous.disagreement_frontier)) if previous else "",
    )
    return Task(
        kind="cartograph",
        role="judge",
        inputs=inputs,
        output=MotionMap,
        system=system,
        prompt=prompt,
        temperature=0.0,
    )


# ---------------------------------------------------------------- the crowd


def _when(inputs: CrowdInput) -> str:
    if inputs.round == 0:
        return "The debate has not started: this is vote zero, from each person's priors alone."
    return f"Round {inputs.round} (the {PHASE_TEXT[inputs.phase]}) has just ended."


def crowd_task(inputs: CrowdInput, last_round: int) -> Task[CrowdVotes]:
    personas = "\n".join(
        f'<persona id="{p.id}" name="{attr(p.name)}">{escape(p.description)}</persona>'
        for p in inputs.personas
    )
    previous = "\n".join(f'<vote persona="{k}" score="{v}"/>' for k, v in sorted(inputs.previous.items()))
    system, prompt = render(
        "crowd",
        when=_when(inputs),
        motion_format=motion_format(last_round),
        motion=escape(inputs.motion),
        personas=personas,
        previous=previous or "(none: vote zero)",
        statements=statements_block(inputs.statements),
        ledger=ledger_block(inputs.ledger),
        map=map_block(inputs.consensus, frontier_block(inputs.frontier)),
    )
    wanted = [p.id for p in inputs.personas]

    def each_persona_once(reply: CrowdVotes) -> list[str]:
        ids = [v.persona_id for v in reply.votes]
        problems = [f"no vote from {p}" for p in wanted if p not in ids]
        problems += [f"{p} is not listed" for p in dict.fromkeys(ids) if p not in wanted]
        return problems + [f"{p} voted more than once" for p in sorted({p for p in ids if ids.count(p) > 1})]

    return Task(
        kind="crowd",
        role="crowd",
        inputs=inputs,
        output=CrowdVotes,
        system=system,
        prompt=prompt,
        temperature=None,  # a crowd samples: its members are many
        array_limits={"votes": (len(wanted), len(wanted))},
        check=each_persona_once,
    )
