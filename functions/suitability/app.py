"""Stage 1, after the first retrieval: is the claim well served by a debate, and is its split sound?"""

from claimcourt.handler import stage_handler
from claimcourt.stages import suitability
from claimcourt.stages.payloads import SplitPayload

handler = stage_handler(suitability.STAGE, SplitPayload, suitability.run)
