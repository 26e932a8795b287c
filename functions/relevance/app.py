"""Stage 3b: does the first round's evidence pool speak to each sub-claim? (no model call)"""

from claimcourt.handler import stage_handler
from claimcourt.stages import relevance
from claimcourt.stages.payloads import SplitPayload

handler = stage_handler(relevance.STAGE, SplitPayload, relevance.run)
