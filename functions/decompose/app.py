"""Stage 2: split the claim into MECE sub-claims with retrieval directives."""

from claimcourt.handler import stage_handler
from claimcourt.stages import decompose
from claimcourt.stages.payloads import Payload

handler = stage_handler(decompose.STAGE, Payload, decompose.run)
