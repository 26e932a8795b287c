"""Motion debates: a team's statement."""

from claimcourt.handler import stage_handler
from claimcourt.stages import speak

handler = stage_handler(speak.STAGE, speak.SpeakPayload, speak.run)
