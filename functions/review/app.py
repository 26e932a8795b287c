"""Stage 8b: the judge's samples reviewed: the rest asked unless the first two agree; re-deliberate or not."""

from claimcourt.handler import stage_handler
from claimcourt.stages import review

handler = stage_handler(review.STAGE, review.ReviewPayload, review.run)
