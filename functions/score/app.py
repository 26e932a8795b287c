"""Stage 9: score, interval, verdict and the stored result."""

from claimcourt.handler import stage_handler
from claimcourt.stages import score
from claimcourt.stages.payloads import Payload

handler = stage_handler(score.STAGE, Payload, score.run)
