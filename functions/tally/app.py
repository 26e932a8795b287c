"""Motion debates: a round's votes counted; at vote zero, who speaks first and the time knob."""

from claimcourt.handler import stage_handler
from claimcourt.stages import tally

handler = stage_handler(tally.STAGE, tally.TallyPayload, tally.run)
