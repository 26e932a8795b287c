"""Motion debates: the judge maps the round (consensus and frontier, no winner)."""

from claimcourt.handler import stage_handler
from claimcourt.stages import cartograph
from claimcourt.stages.payloads import RoundPayload

handler = stage_handler(cartograph.STAGE, RoundPayload, cartograph.run)
