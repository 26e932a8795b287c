"""Stage 5: name the decisive dispute, aim the next retrieval, decide whether to go on."""

from claimcourt.handler import stage_handler
from claimcourt.stages import moderate
from claimcourt.stages.payloads import RoundPayload

handler = stage_handler(moderate.STAGE, RoundPayload, moderate.run)
