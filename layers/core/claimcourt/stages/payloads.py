"""What every stage's payload shares: the run, and for the stages of a round, the round."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Payload(BaseModel):
    model_config = ConfigDict(extra="ignore")
    run_id: str = Field(min_length=1, max_length=100)


class RoundPayload(Payload):
    round: int = Field(ge=1, le=20)
