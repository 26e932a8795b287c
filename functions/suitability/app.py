"""Stage 1: is the claim well served by a debate?"""

from claimcourt import pipeline
from claimcourt.handler import stage_handler

handler = stage_handler("suitability", pipeline.Payload, pipeline.suitability)
