"""Stage 5b: the round controller decides what follows a round: another round, a fresh persona, or a stop."""

from claimcourt.handler import stage_handler
from claimcourt.stages import control
from claimcourt.stages.payloads import RoundPayload

handler = stage_handler(control.STAGE, RoundPayload, control.run)
