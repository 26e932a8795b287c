"""Stage 2: split the claim into MECE sub-claims with retrieval directives (again after a faulted audit)."""

from claimcourt.handler import stage_handler
from claimcourt.stages import decompose
from claimcourt.stages.payloads import SplitPayload

handler = stage_handler(decompose.STAGE, SplitPayload, decompose.run)
