"""Stages 4 and 7: one side's argument for a round (one Parallel branch)."""

from claimcourt import pipeline
from claimcourt.handler import stage_handler

handler = stage_handler("argue", pipeline.ArguePayload, pipeline.argument)
