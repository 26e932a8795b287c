"""Stage 4b: a claim debate's neutral fact-checker (both positions' new citations), or a motion team's."""

from claimcourt.handler import stage_handler
from claimcourt.stages import factcheck

handler = stage_handler(factcheck.STAGE, factcheck.FactcheckPayload, factcheck.run)
