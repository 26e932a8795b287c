"""What every stage's payload shares: the run, and for the stages of a round, the round."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Payload(BaseModel):
    model_config = ConfigDict(extra="ignore")
    run_id: str = Field(min_length=1, max_length=100)


class RoundPayload(Payload):
    round: int = Field(ge=1, le=20)


# A claim is split at most twice: the first split, and the one re-split a faulted audit asks for.
LAST_ATTEMPT = 1


class SplitPayload(Payload):
    """The stages from the split to the suitability check (Decompose, Relevance, Suitability), which a
    re-split runs again: the attempt keeps each one's idempotency record and calls apart."""

    attempt: int = Field(default=0, ge=0, le=LAST_ATTEMPT)


# The steps of statemachine/debate.asl.json whose calls run at the same time (CallContext.step): a
# provider's prompt cache written by one call of a step cannot be read by another of the same step.


def round_end(round: int) -> str:
    """The RoundEnd Parallel of a round: the fact-checker beside the moderator."""
    return f"roundend:{round}"
