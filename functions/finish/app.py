"""The ends that are not a score: stopped by the suitability check, or failed (the ASL's Catch)."""

from claimcourt import pipeline
from claimcourt.handler import stage_handler

handler = stage_handler("finish", pipeline.FinishPayload, pipeline.finish)
