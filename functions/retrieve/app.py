"""Stages 3 and 6: run one retrieval directive (one Map iteration)."""

from claimcourt.handler import stage_handler
from claimcourt.stages import retrieve

handler = stage_handler(retrieve.STAGE, retrieve.RetrievePayload, retrieve.run)
