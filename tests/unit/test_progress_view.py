"""The CLI's progress view marks where a run broke, not a green tick."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from claimcourt.local.render import ProgressView
from claimcourt.models import RunEvent, RunRecord, RunRequest, RunStatus


class _Events:
    def __init__(self, events: list[RunEvent]) -> None:
        self.events = events

    def list_events(self, run_id: str, after_seq: int = 0) -> list[RunEvent]:
        return [e for e in self.events if e.seq > after_seq]


def _event(seq: int, type: str, stage: str, **kw: Any) -> RunEvent:
    return RunEvent(run_id="run_1", seq=seq, type=type, stage=stage, **kw)


def test_a_failed_stage_is_marked_with_a_red_cross_and_the_rest_with_ticks() -> None:
    events = [
        _event(1, "stage.started", "suitability"),
        _event(2, "stage.completed", "suitability", data={"elapsed_ms": 5}),
        _event(3, "stage.started", "argue", round=1, side="for"),
        _event(4, "stage.failed", "argue", round=1, side="for", data={"error": "ProviderError"}),
    ]
    console = Console(record=True, force_terminal=True, color_system="truecolor", width=100)
    record = RunRecord(
        run_id="run_1", claim_id="c_1", status=RunStatus.FAILED, request=RunRequest(claim="x y")
    )
    console.is_terminal  # noqa: B018 - a terminal console redraws; force the line-per-step path instead
    view = ProgressView(console, _Events(events), record, "offline", "corpus")  # type: ignore[arg-type]
    view._live = None
    view.refresh(force=True)
    text = console.export_text(styles=True)
    assert "✓" in text.split("suitability")[0][-30:]
    line = next(line for line in text.splitlines() if "argue" in line)
    assert "✗" in line and "\x1b[1;31m" in line  # bold red


def test_a_motions_progress_ends_with_the_steps_that_failed_for_good_in_red() -> None:
    from claimcourt.local.motion_cli import Progress
    from claimcourt.models import MotionRequest

    events = [
        # the crowd's call failed once, and a retry then succeeded: not where the run broke
        _event(1, "stage.failed", "tally", round=1, data={"error": "ProviderError"}),
        _event(2, "stage.completed", "tally", round=1, data={"summary": {}}),
        _event(3, "stage.failed", "speak", round=2, side="for", data={"error": "ProviderError"}),
        # two batches of one vote: the first failed for good, the second then went through
        _event(4, "stage.failed", "vote", round=2, data={"batch": 0, "error": "ProviderError"}),
        _event(5, "stage.completed", "vote", round=2, data={"batch": 1, "summary": {}}),
    ]
    console = Console(record=True, force_terminal=True, color_system="truecolor", width=100)
    progress = Progress(console, _Events(events), "run_1", MotionRequest(motion="Cities should ban cars."))  # type: ignore[arg-type]
    progress.close()
    text = console.export_text(styles=True)
    broken = [line for line in text.splitlines() if "✗" in line]
    assert len(broken) == 2 and "speak (round 2, for) failed: ProviderError" in broken[0]
    assert "vote (round 2) failed: ProviderError" in broken[1]
    assert all("\x1b[31m" in line for line in broken)  # red
