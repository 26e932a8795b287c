"""Stage 8: the final moderator judges the anonymized arguments: one judgement (sample 0 or a
self-consistency sample, the ASL runs them in parallel)."""

from claimcourt import pipeline
from claimcourt.handler import stage_handler

handler = stage_handler("adjudicate", pipeline.AdjudicatePayload, pipeline.adjudication)
