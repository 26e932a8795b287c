"""Stage 4b: one side's fact-checker: the other side's new citations scored, its own checks answered."""

from claimcourt.handler import stage_handler
from claimcourt.stages import factcheck

handler = stage_handler(factcheck.STAGE, factcheck.FactcheckPayload, factcheck.run)
