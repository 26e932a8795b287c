"""What every stage's payload shares: the run, and for the stages of a round, the round."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Payload(BaseModel):
    model_config = ConfigDict(extra="ignore")
    run_id: str = Field(min_length=1, max_length=100)


class RoundPayload(Payload):
    round: int = Field(ge=1, le=20)


# The steps of statemachine/debate.asl.json whose calls run at the same time (CallContext.step): a
# provider's prompt cache written by one call of a step cannot be read by another of the same step.
ASSESS = "assess"  # the Assess Parallel: suitability beside the decomposer


def round_end(round: int) -> str:
    """The RoundEnd Parallel of a round: the fact-checker beside the moderator."""
    return f"roundend:{round}"
