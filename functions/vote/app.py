"""Motion debates: one batch of the crowd votes (one Map iteration)."""

from claimcourt.handler import stage_handler
from claimcourt.stages import vote

handler = stage_handler(vote.STAGE, vote.VotePayload, vote.run)
