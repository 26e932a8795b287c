"""Motion phase 0: the teams' stances and the opening research."""

from claimcourt.handler import stage_handler
from claimcourt.stages import stances
from claimcourt.stages.payloads import Payload

handler = stage_handler(stances.STAGE, Payload, stances.run)
