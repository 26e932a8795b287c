"""A panel of judges (the request's `judges`, issue 26): several models judge one debate, each in its own
call, and one result is made of their judgements (docs/scoring.md, "A panel of judges").

- Who they are: each judge as named (`provider[:model][+rubric|+contract]`, models.parse_judge_spec)
  resolved to its provider, model and kind by the settings, as a re-judgement's are (rejudge.py).
- Checked before anything is stored (`check`): a provider with no key, the same judge twice once the
  defaults are resolved (`openai` is `openai:gpt-4.1`), and the judging's estimated cost against the
  run's budget. Malformed, unknown and over-long panels are refused by the request model itself.
- Which one speaks (`speaker`): the median of the judges' scores; the spread (`spread`).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from claimcourt.errors import (
    BudgetExceededError,
    InvalidRequestError,
    MalformedReplyError,
    ProviderError,
    RefusedJudgementError,
    TruncatedReplyError,
)
from claimcourt.models import ClaimAsked, Effort, JudgeKind, parse_judge_spec
from claimcourt.reasoning.prices import cost_usd, unpriced_judge
from claimcourt.settings import Settings

# What a judge's call may fail with and the other judges still be heard: the judgement says why. (A
# TransientError is not among them: the state machine retries it.)
JUDGE_FAILURES = (
    RefusedJudgementError,
    MalformedReplyError,
    TruncatedReplyError,
    ProviderError,
    BudgetExceededError,
)

# One judge's call before the run, in tokens (input with the pool it reads, output), by effort: the
# bench's offline debates (`python -m claimcourt.bench.prompt_cost`, the adjudicate row: 6,660 / 8,705 /
# 13,341 input a call) with room for a model's longer arguments (the played corpus's judges read 26–43k
# characters at standard before the pool, 40–67k at high) and its reply (the played corpus's judges
# wrote 678–1,610 tokens). An estimate to refuse a panel the budget cannot pay for, not a bill.
JUDGE_TOKENS: dict[str, tuple[int, int]] = {
    "low": (10_000, 2_000),
    "standard": (16_000, 2_000),
    "high": (28_000, 2_000),
}


@dataclass(frozen=True)
class Member:
    """One judge of a panel, resolved: as named, and the provider, model and judge it is."""

    spec: str
    provider: str
    model: str
    kind: JudgeKind

    @property
    def route(self) -> tuple[str, str]:
        return self.provider, self.model

    @property
    def model_name(self) -> str:
        return f"{self.provider}:{self.model}"


def members(request: ClaimAsked, settings: Settings) -> list[Member]:
    """The request's panel, in its order: each judge's provider and model (a provider alone: its default
    model; `offline`: the offline reasoner) and kind (the suffix, else the request's judge)."""
    found = []
    for spec in request.judges:
        provider, model, kind = parse_judge_spec(spec)
        if provider == "offline":
            provider, model = "offline", "offline"
        else:
            provider, model = settings.named_route(f"{provider}:{model}")
        found.append(Member(spec, provider, model, kind or request.judge))
    return found


@dataclass(frozen=True)
class Estimate:
    """What the panel's judging is expected to cost, judge by judge (an unpriced model counts as 0)."""

    effort: Effort
    costs: list[tuple[Member, float, bool]]  # (judge, dollars, price known)

    @property
    def total_usd(self) -> float:
        return sum(cost for _, cost, _ in self.costs)

    @property
    def unpriced(self) -> list[str]:
        return [m.spec for m, _, known in self.costs if not known]

    def line(self) -> str:
        """One line for the terminal, e.g. `3 judges (offline, …): judging estimated at $0.0740`."""
        named = ", ".join(m.spec for m, _, _ in self.costs)
        unknown = f" (no price known for {', '.join(self.unpriced)})" if self.unpriced else ""
        judges = f"{len(self.costs)} judge{'s' if len(self.costs) != 1 else ''}"
        return f"{judges} ({named}), the median speaks: judging estimated at ${self.total_usd:.4f}{unknown}"


def estimate(panel: Sequence[Member], effort: Effort) -> Estimate:
    """Each judge's one call at the effort's estimated size (JUDGE_TOKENS), at its model's price."""
    tokens_in, tokens_out = JUDGE_TOKENS[effort]
    costs = [
        (m, *((0.0, True) if m.provider == "offline" else cost_usd(m.model, tokens_in, tokens_out)))
        for m in panel
    ]
    return Estimate(effort, costs)


def check(settings: Settings, request: ClaimAsked) -> Estimate | None:
    """Refuse, naming `judges` (InvalidRequestError), a panel this deployment cannot judge with: a
    provider without a key (where keys are known here: the deployed API holds none, and the judge's
    call is where it fails), the same judge twice once defaults are resolved, or judging estimated to
    cost more than the run's whole budget. The estimate, or None for no panel."""
    if not request.judges:
        return None
    panel = members(request, settings)
    if settings.provider_keys_known:
        for m in panel:
            if not settings.has_key(m.provider):
                raise InvalidRequestError("judges", f"{m.spec!r}: {settings.missing_key(m.provider)}")
    for m in panel:
        unpriced = unpriced_judge(m.provider, m.model, own_endpoint=settings.own_endpoint(m.provider))
        if unpriced:
            raise InvalidRequestError("judges", f"{m.spec!r}: {unpriced}")
    seen: dict[tuple[str, str, JudgeKind], str] = {}
    for m in panel:
        key = (m.provider, m.model, m.kind)
        if key in seen:
            raise InvalidRequestError(
                "judges", f"{m.spec!r} is the same judge as {seen[key]!r} ({m.model_name}): name each once"
            )
        seen[key] = m.spec
    cost = estimate(panel, request.effort)
    if cost.total_usd > settings.budget_usd:
        tokens_in, tokens_out = JUDGE_TOKENS[request.effort]
        raise InvalidRequestError(
            "judges",
            f"the panel's {len(panel)} judges are estimated to cost ${cost.total_usd:.2f} to judge (about "
            f"{tokens_in:,} input and {tokens_out:,} output tokens each at effort {request.effort}), more "
            f"than the run's whole budget of ${settings.budget_usd:.2f} (CLAIMCOURT_BUDGET_USD): name "
            "fewer or cheaper judges, or raise the budget",
        )
    return cost


def speaker(scores: Sequence[int]) -> tuple[int, str]:
    """Which of the judges' scores (each judge that judged, in the panel's order) speaks for the run, and
    the rule said in words. The median; of an even panel's two middle scores, the one nearer 50 (the
    less certain: a split panel does not lean the run either way by the order of its scores); a tie,
    the judge named first."""
    order = sorted(range(len(scores)), key=lambda i: (scores[i], i))
    n = len(order)
    if n == 1:
        return order[0], "the only judgement"
    if n % 2:
        median = scores[order[n // 2]]
        return scores.index(median), f"the median of {n} scores ({median})"
    low, high = scores[order[n // 2 - 1]], scores[order[n // 2]]
    nearer = min((low, high), key=lambda s: abs(s - 50))
    tie = abs(low - 50) == abs(high - 50) and low != high
    chosen = min(scores.index(low), scores.index(high)) if tie else scores.index(nearer)
    said = "equally near 50, the judge named first" if tie else "the one nearer 50"
    middle = "of two scores" if n == 2 else f"of the middle two of {n} scores"
    return chosen, f"{middle} ({low}, {high}), {said}"


def spread(scores: Sequence[int]) -> tuple[int | None, float | None]:
    """(max − min, population standard deviation) of the judges' scores; None with fewer than two."""
    if len(scores) < 2:
        return None, None
    return max(scores) - min(scores), round(statistics.pstdev(scores), 1)
