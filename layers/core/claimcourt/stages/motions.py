"""What the motion-debate stages share: the run's motion, and the model its line-up names for a role."""

from __future__ import annotations

from claimcourt.errors import StageInputError
from claimcourt.models import MotionRequest
from claimcourt.wiring import Deps


def motion_of(deps: Deps, run_id: str) -> MotionRequest:
    motion = deps.store.get_run(run_id).motion
    if motion is None:
        raise StageInputError(f"run {run_id} is not a motion debate")
    return motion


def route_for(deps: Deps, motion: MotionRequest, role: str) -> tuple[str, str] | None:
    """(provider, model) the motion's line-up names for the role; None: the deployment's routing."""
    wanted = motion.lineup.get(role)  # type: ignore[call-overload]  # a MotionRole, or no entry
    return deps.settings.named_route(wanted) if wanted else None
