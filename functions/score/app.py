"""Stage 9: score, interval, verdict and the stored result."""

from claimcourt import pipeline
from claimcourt.handler import stage_handler

handler = stage_handler("score", pipeline.Payload, pipeline.scoring)
