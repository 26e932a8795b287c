"""A round's votes counted (one tally per round, vote zero first). At vote zero it also decides who
speaks first and whether the time knob gives the minority side more room (motions/crowd.py)."""

from __future__ import annotations

from typing import Any

from claimcourt import artifacts
from claimcourt.models import Stage
from claimcourt.motions.crowd import plan, tally
from claimcourt.stages.motions import motion_of
from claimcourt.stages.payloads import Payload
from claimcourt.wiring import Deps

STAGE = Stage.TALLY


class TallyPayload(Payload):
    round: int


def run(deps: Deps, p: TallyPayload) -> dict[str, Any]:
    motion = motion_of(deps, p.run_id)
    phase = motion.phase(p.round) if p.round > 0 else "vote zero"
    counted = tally(p.round, phase, artifacts.votes_of(deps.store, p.run_id, p.round))
    deps.store.put_artifact(p.run_id, artifacts.tally_key(p.round), counted.model_dump(mode="json"))
    summary: dict[str, Any] = counted.model_dump(mode="json", exclude={"scores"})
    if p.round == 0:
        decided = plan(motion, counted)
        deps.store.put_artifact(p.run_id, artifacts.PLAN, decided.model_dump(mode="json"))
        summary |= {"first": decided.first, "second": decided.second, "knob_applied": decided.knob_applied}
    return summary
