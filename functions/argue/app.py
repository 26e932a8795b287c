"""Stages 4 and 7: one side's argument for a round (one Parallel branch)."""

from claimcourt.handler import stage_handler
from claimcourt.stages import argue

handler = stage_handler(argue.STAGE, argue.ArguePayload, argue.run)
