"""The played corpus's format: one JSON file per played run, `bench/data/played/<name>.json`.

A played run is a claim (or motion) debate whose every model reply was written by hand, as a careful
model would answer each rendered prompt. `claimcourt.bench.played` replays it through the real
provider SDKs against a loopback server (`played_server.py`) that answers each request by its call
key (the `X-Claimcourt-Call` header, `reasoning.base.CALL_HEADER`), through the real state machine.

    {
      "name": "arctic-sea-ice",            # the file's stem; the run id is "played-<name>"
      "kind": "claim",                     # or "motion" (statemachine/motion.asl.json)
      "description": "…",                  # what the run is for, for a reviewer
      "request": {"claim": "…", "effort": "standard", "rounds": 2},   # a RunRequest, or a MotionRequest
      "today": "2026-11-27",               # the run's date, which its prompts state: fixed, to replay
      "settings": {"dynamic_rounds": "shadow"},   # optional Settings overrides (SETTINGS_ALLOWED)
      "evidence": "corpus",                # the bundled CLIMATE-FEVER corpus (CorpusSource): deterministic
      "providers": ["anthropic", "openai"],        # the SDK paths the replies are valid for
      "models": {"anthropic": "claude-sonnet-4-6", "openai": "gpt-4.1"},
      "expect": {…},                       # checks the replay evaluates (Expect)
      "calls": {                           # call key → the model's reply, in the order they were written
        "suitability:0::suitability:": {
          "prompt": {"system": "…", "user": "…"},   # what the reply answers, stored for review
          "reply": {…},                    # the JSON the model returns (the tool's input / the content)
          "usage": {"output_tokens": 212},  # input tokens are counted from each request (chars / 4)
          "stop_reason": null,             # "max_tokens": a reply cut off (reply: what was written)
          "refusal": null,                 # a refusal's text: the model declined (no reply)
          "note": null                     # the writer's note, for a reviewer
        }
      }
    }

A call key is `stage:round:side:kind:suffix` (`CallContext.key`), e.g. `argue:1:for:argue:`,
`factcheck:2:against:factcheck:`, `adjudicate:0::adjudicate:s0`, `decompose:0::decompose:a0`. A second
or later attempt of one call (a reply re-asked with the problem as feedback, or a cut-off reply asked
again with a larger limit) is `<key>#<attempt>`, e.g. `argue:1:for:argue:#2`.
"""

from __future__ import annotations

import json
from datetime import date
from importlib.resources import files
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from claimcourt.models import IntervalMethod, RoundAction, StopReason, Verdict

ProviderPath = Literal["anthropic", "openai"]
PATHS: tuple[ProviderPath, ...] = ("anthropic", "openai")
DEFAULT_MODELS: dict[str, str] = {"anthropic": "claude-sonnet-4-6", "openai": "gpt-4.1"}
# The Settings a played run may set: how the debate is run, never where it calls.
SETTINGS_ALLOWED = frozenset(
    {
        "dynamic_rounds",
        "max_rounds",
        "judge_samples",
        "redeliberation",
        "redeliberate_spread",
        "max_output_tokens",
        "budget_usd",
        "models_by_role",
    }
)
CHARS_PER_TOKEN = 4


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PlayedPrompt(_Strict):
    system: str
    user: str


class PlayedUsage(_Strict):
    output_tokens: int = Field(ge=0, description="The reply's tokens as the API would report them.")
    input_tokens: int | None = Field(
        default=None, ge=0, description="None: counted from each request as it is sent (chars / 4)."
    )


class PlayedCall(_Strict):
    """One model reply, and the prompt it answers."""

    prompt: PlayedPrompt
    reply: Any = None
    usage: PlayedUsage
    stop_reason: Literal["max_tokens"] | None = None
    refusal: str | None = None
    refusal_category: str | None = None  # Anthropic's stop_details.category for a refusal
    note: str | None = None


class ExpectRound(_Strict):
    """What the round controller decided after one round (RoundDecision)."""

    action: RoundAction | None = None  # what the run did
    controller_action: RoundAction | None = None  # what the controller decided (shadow: may differ)
    rule: str | None = None  # a substring of the controller's rule
    frontier: int | None = None  # issues on the moderator's frontier


class ExpectSubClaim(_Strict):
    verdict: Verdict | None = None
    score: tuple[int, int] | None = None


class Expect(_Strict):
    """Checks on a played run; each field set is one check, evaluated on every provider path."""

    status: Literal["succeeded", "failed", "stopped"] = "succeeded"
    error: str | None = None  # a substring of a failed run's reason
    stop_reason: StopReason | None = None  # why a stopped run was not debated
    calls: int | None = None  # model calls the run made (attempts included)
    rounds: int | None = None
    control: dict[int, ExpectRound] = Field(default_factory=dict)
    verdict: Verdict | None = None
    score: tuple[int, int] | None = None  # the final score lies in [low, high]
    judge_score: tuple[int, int] | None = None
    interval_width: tuple[int, int] | None = None  # the final interval's width in [low, high]
    interval_method: IntervalMethod | None = None  # how the interval was found (Result.interval_method)
    re_deliberated: bool | None = None  # the judge was asked once more (Result.re_deliberation.triggered)
    sub_claims: dict[str, ExpectSubClaim] = Field(default_factory=dict)
    n_sub_claims: int | None = None
    warnings: list[str] = Field(default_factory=list)  # each a substring of some warning (result's or run's)
    no_warnings: bool = False
    adjustments: list[str] = Field(default_factory=list)  # adjustment kinds present
    no_adjustments: list[str] = Field(default_factory=list)  # adjustment kinds absent
    citations: tuple[int, int] | None = None  # ledger entries in [low, high]
    ended_early: bool | None = None  # a refusal shortened the debate (the result's ended_early)
    # Motions.
    first_speaker: Literal["for", "against"] | None = None
    final_lean: Literal["for", "against"] | None = None  # which side the final vote favours
    swing_for: tuple[float, float] | None = None  # the for side's swing, percentage points, in [low, high]


class PlayedRun(_Strict):
    name: str
    kind: Literal["claim", "motion"] = "claim"
    description: str = ""
    request: dict[str, Any]
    # The run's today (its record's creation date): the prompts say "Today is …", so a replay fixes it.
    today: date
    settings: dict[str, Any] = Field(default_factory=dict)
    evidence: Literal["corpus"] = "corpus"
    providers: list[ProviderPath] = Field(default_factory=lambda: list(PATHS))
    models: dict[str, str] = Field(default_factory=lambda: dict(DEFAULT_MODELS))
    expect: Expect = Field(default_factory=Expect)
    calls: dict[str, PlayedCall] = Field(default_factory=dict)

    @property
    def run_id(self) -> str:
        """Fixed, so the judge's anonymization (seeded by the run id) is the same at every replay."""
        return f"played-{self.name}"

    def model_for(self, path: ProviderPath) -> str:
        return self.models.get(path) or DEFAULT_MODELS[path]


def bundled_dir() -> Path:
    """The package's played corpus (in a source checkout, the file writers edit)."""
    return Path(str(files("claimcourt.bench").joinpath("data", "played")))


def corpus_files(folder: Path | None = None) -> list[Path]:
    return sorted((folder or bundled_dir()).glob("*.json"))


def load(path: Path) -> PlayedRun:
    played = PlayedRun.model_validate_json(path.read_text(encoding="utf-8"))
    if played.name != path.stem:
        raise ValueError(f"{path}: its name is {played.name!r}, but the file is {path.stem!r}")
    unknown = set(played.settings) - SETTINGS_ALLOWED
    if unknown:
        raise ValueError(f"{path}: settings a played run may not set: {', '.join(sorted(unknown))}")
    return played


def save(played: PlayedRun, path: Path) -> None:
    """Written in a stable form (two-space indent, UTF-8, calls in the order they were added)."""
    doc = played.model_dump(mode="json")
    # A default goes unsaid: an expectation not declared, a reply neither cut off nor refused.
    doc["expect"] = played.expect.model_dump(mode="json", exclude_defaults=True)
    doc["calls"] = {
        key: call.model_dump(mode="json", exclude_defaults=True) for key, call in played.calls.items()
    }
    text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def resolve(name_or_path: str, folder: Path | None = None) -> Path:
    """A corpus file by name (in `folder` or the bundled corpus) or by path."""
    candidate = Path(name_or_path)
    if candidate.suffix == ".json" or candidate.parent != Path():
        return candidate
    return (folder or bundled_dir()) / f"{name_or_path}.json"


def output_tokens_of(reply: Any, refusal: str | None = None) -> int:
    """A reply's output tokens as an API would report them, about: its JSON's characters / 4."""
    text = refusal if reply is None and refusal else json.dumps(reply, ensure_ascii=False)
    return max(1, -(-len(text) // CHARS_PER_TOKEN))
