"""A backtest's third layer, with a model: each retrieved source dated from its text, written before
the backtest's date or after it, in one cheap call per retrieval (role `hindsight`, routed by default
to the provider's small model). The offline reasoner answers with the lexical check
(evidence/hindsight.py); a refusal falls back to it, so a source is never left undated."""

from __future__ import annotations

from claimcourt.evidence.hindsight import OFFLINE, classify
from claimcourt.models import DatedSource, HindsightInput, HindsightReply, SourceDating
from claimcourt.prompts import attr, escape, render
from claimcourt.reasoning.base import CallContext, Task
from claimcourt.reasoning.reasoner import Reasoner


def sources_block(sources: list[DatedSource]) -> str:
    lines = []
    for s in sources:
        dated = f' published="{s.published.isoformat()}"' if s.published else ""
        lines.append(
            f'<source id="{attr(s.id)}"{dated} title="{attr(s.title)}" url="{attr(s.url)}">'
            f"{escape(s.text)}</source>"
        )
    return "\n".join(lines)


def hindsight_task(inputs: HindsightInput) -> Task[HindsightReply]:
    today = f" Today is {inputs.today.isoformat()}." if inputs.today else ""
    system, prompt = render(
        "hindsight", as_of=inputs.as_of.isoformat(), today=today, sources=sources_block(inputs.sources)
    )
    wanted = [s.id for s in inputs.sources]

    def each_source_once(reply: HindsightReply) -> list[str]:
        ids = [d.id for d in reply.sources]
        problems = [f"no dating of {i}" for i in wanted if i not in ids]
        problems += [f"{i} is not a source listed" for i in dict.fromkeys(ids) if i not in wanted]
        return problems + [f"{i} dated more than once" for i in dict.fromkeys(ids) if ids.count(i) > 1]

    return Task(
        kind="hindsight",
        role="hindsight",
        inputs=inputs,
        output=HindsightReply,
        system=system,
        prompt=prompt,
        temperature=0.0,
        array_limits={"sources": (len(wanted), len(wanted))},
        check=each_source_once,
    )


def date_sources(
    inputs: HindsightInput, reasoner: Reasoner, ctx: CallContext, suffix: str = ""
) -> tuple[HindsightReply, list[str]]:
    """Each source dated, once, in the order given, and who dated them (provider:model, or offline).
    No sources, no call. What the model left undated (a refusal, a source it skipped even when asked
    again) is dated by the lexical check, and the second value says so."""
    if not inputs.sources:
        return HindsightReply(sources=[]), []
    reply = reasoner.call(hindsight_task(inputs), ctx, suffix)
    model = OFFLINE if reply.provider == OFFLINE else f"{reply.provider}:{reply.model}"
    dated: dict[str, SourceDating] = {}
    for d in reply.output.sources if reply.output is not None else []:
        dated.setdefault(d.id, d)
    left = [s for s in inputs.sources if s.id not in dated]
    judged_by = [model] if len(left) < len(inputs.sources) else []
    if left:
        dated |= {d.id: d for d in classify(inputs.model_copy(update={"sources": left})).sources}
        why = "declined" if reply.refusal is not None else f"left {len(left)} undated"
        judged_by.append(OFFLINE if model == OFFLINE else f"{OFFLINE} ({model} {why})")
    return HindsightReply(sources=[dated[s.id] for s in inputs.sources]), judged_by
