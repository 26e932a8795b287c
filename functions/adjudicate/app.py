"""Stage 8: the final moderator judges the anonymized arguments: one judgement (sample 0 or a
self-consistency sample, the ASL runs them in parallel)."""

from claimcourt.handler import stage_handler
from claimcourt.stages import adjudicate

handler = stage_handler(adjudicate.STAGE, adjudicate.AdjudicatePayload, adjudicate.run)
