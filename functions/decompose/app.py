"""Stage 2: split the claim into MECE sub-claims with retrieval directives."""

from claimcourt import pipeline
from claimcourt.handler import stage_handler

handler = stage_handler("decompose", pipeline.Payload, pipeline.decomposition)
