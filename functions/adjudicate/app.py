"""Stage 8: the final moderator judges the anonymized, order-randomized arguments."""

from claimcourt import pipeline
from claimcourt.handler import stage_handler

handler = stage_handler("adjudicate", pipeline.Payload, pipeline.adjudication)
