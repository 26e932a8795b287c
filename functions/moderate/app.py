"""Stage 5: name the decisive dispute, aim the next retrieval, decide whether to go on."""

from claimcourt import pipeline
from claimcourt.handler import stage_handler

handler = stage_handler("moderate", pipeline.RoundPayload, pipeline.moderation)
