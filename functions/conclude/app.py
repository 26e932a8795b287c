"""Motion debates: the vote swing and the judge's report."""

from claimcourt.handler import stage_handler
from claimcourt.stages import conclude
from claimcourt.stages.payloads import Payload

handler = stage_handler(conclude.STAGE, Payload, conclude.run)
