"""After the judge's samples: ask for the rest of them, or not, and re-deliberate, or not. Pure.

- Adaptive early stop: the first two samples run first; when they agree within AGREE points, the
  others are not asked (they would only confirm).
- Conditional re-deliberation: when the samples' spread exceeds the threshold AND the pool holds
  evidence that contrarian directives retrieved, the judge is asked once more, told the scores and
  the contrarian evidence, to address both. Instability is investigated, never penalised by a
  multiplier; what remains shows in the interval (the samples' spread).
"""

from __future__ import annotations

from dataclasses import dataclass

from claimcourt.models import Reconsider

AGREE = 5  # points: two samples this close need no third
FIRST_BATCH = 2


@dataclass(frozen=True)
class Review:
    more_samples: list[int]  # samples still to ask (empty: none)
    reconsider: Reconsider | None  # set: ask the judge once more, with this
    spread: int | None  # max − min of the usable samples' overall scores (None: fewer than two)
    reason: str


def first_batch(total: int) -> list[int]:
    """The samples asked first, of `total` (sample 0 and the self-consistency samples)."""
    return list(range(min(total, FIRST_BATCH)))


def review(
    scores: dict[int, int | None],
    total: int,
    *,
    contrarian_ids: list[str],
    threshold: int,
    enabled: bool,
) -> Review:
    """`scores`: each asked sample's overall score (None: refused or unusable); `total`: how many
    samples the effort allows."""
    usable = [s for s in scores.values() if s is not None]
    spread = max(usable) - min(usable) if len(usable) >= 2 else None
    rest = [i for i in range(total) if i not in scores]
    if rest:
        if spread is not None and spread <= AGREE:
            return Review([], None, spread, f"the first samples agree within {AGREE} points: no more asked")
        return Review(rest, None, spread, "the first samples disagree: the rest asked")
    if spread is None:
        return Review([], None, None, "one judgement: nothing to compare")
    if not enabled:
        return Review([], None, spread, "re-deliberation is off")
    if spread <= threshold:
        return Review([], None, spread, f"the samples agree within {threshold} points")
    if not contrarian_ids:
        return Review([], None, spread, "the samples disagree, but the pool holds no contrarian evidence")
    reconsider = Reconsider(scores=usable, spread=spread, contrarian_ids=contrarian_ids)
    return Review(
        [], reconsider, spread, f"the samples disagree by {spread} points, and contrarian evidence exists"
    )
