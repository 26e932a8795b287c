"""Stage 1: is the claim well served by a debate?"""

from claimcourt.handler import stage_handler
from claimcourt.stages import suitability
from claimcourt.stages.payloads import Payload

handler = stage_handler(suitability.STAGE, Payload, suitability.run)
