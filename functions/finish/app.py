"""The ends that are not a score: stopped by the suitability check, or failed (the ASL's Catch)."""

from claimcourt.handler import stage_handler
from claimcourt.stages import finish

handler = stage_handler(finish.STAGE, finish.FinishPayload, finish.run)
