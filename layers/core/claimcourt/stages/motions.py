"""What the motion-debate stages share: the run's motion, the model its line-up names for a role, and
a call that ends the debate early, not failed, when the run's budget is spent."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from claimcourt.errors import BudgetExceededError, StageInputError
from claimcourt.models import MotionRequest
from claimcourt.wiring import Deps

T = TypeVar("T")
BUDGET_SPENT = "the run's budget is spent"


def motion_of(deps: Deps, run_id: str) -> MotionRequest:
    motion = deps.store.get_run(run_id).motion
    if motion is None:
        raise StageInputError(f"run {run_id} is not a motion debate")
    return motion


def route_for(deps: Deps, motion: MotionRequest, role: str) -> tuple[str, str] | None:
    """(provider, model) the motion's line-up names for the role; None: the deployment's routing."""
    wanted = motion.lineup.get(role)  # type: ignore[call-overload]  # a MotionRole, or no entry
    return deps.settings.named_route(wanted) if wanted else None


def unless_budget_spent(call: Callable[[], T]) -> T | None:
    """The call's answer; None when the run's budget is spent. A motion debate then ends early with
    what was said (a statement not made is recorded as the team's refusal, `BUDGET_SPENT`) and is
    concluded: its votes so far are its result, not lost to a failed run."""
    try:
        return call()
    except BudgetExceededError:
        return None
