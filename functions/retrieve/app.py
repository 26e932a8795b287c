"""Stages 3 and 6: run one retrieval directive (one Map iteration)."""

from claimcourt import pipeline
from claimcourt.handler import stage_handler

handler = stage_handler("retrieve", pipeline.RetrievePayload, pipeline.retrieval)
