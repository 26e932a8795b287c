"""The HTTP API (API Gateway HTTP API, payload v2): Powertools' resolver, with request validation
from the pydantic models, which also gives the OpenAPI document (docs/openapi.json, kept in step
by a test). Every route but /health needs an API key, and sees only its tenant's runs and claims."""

from __future__ import annotations

import base64
import threading
import unicodedata
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError
from aws_lambda_powertools.event_handler.openapi.params import Header, Query
from aws_lambda_powertools.event_handler.openapi.types import OpenAPIResponse
from aws_lambda_powertools.utilities.data_classes import APIGatewayProxyEventV2
from aws_lambda_powertools.utilities.typing import LambdaContext
from pydantic import AfterValidator, BaseModel, Field

from claimcourt import __version__, artifacts
from claimcourt.access import authenticate, is_operator, presented_key, refuse_unless_operator
from claimcourt.adjudication.panel import check as check_panel
from claimcourt.api import benchmarks, console, corpora
from claimcourt.api.bodies import read_json
from claimcourt.api.problems import PROBLEM, from_error, problem, problem_reply
from claimcourt.claimreview import MEDIA_TYPE, claim_review, console_url, publisher_of, review_url, to_json
from claimcourt.debate.ledger import canonical_key
from claimcourt.errors import (
    ClaimcourtError,
    ConfigurationError,
    ConflictError,
    GoneError,
    NotFoundError,
    UnauthorizedError,
)
from claimcourt.evidence.collections import Uploads, check_corpora
from claimcourt.exports import MEDIA_TYPES, artifact_names, export
from claimcourt.models import (
    PROVIDERS,
    Argument,
    ClaimRecord,
    DriftPoint,
    LedgerEntry,
    Monitor,
    MonitorRequest,
    MotionRequest,
    MotionResult,
    RoundDecision,
    RunEvent,
    RunOutput,
    RunPage,
    RunRecord,
    RunRequest,
    RunStatus,
    SearchName,
    SourceTag,
    StopReason,
    VoteTally,
)
from claimcourt.motions.crowd import persona_set
from claimcourt.observability import logger, observed
from claimcourt.preferences import KeyStatus, Preferences, SavedSettings
from claimcourt.rejudge import (
    InProcess,
    JudgementList,
    RejudgeAccepted,
    RejudgeRequest,
    ask,
    judgements_of,
)
from claimcourt.rejudge import start as start_rejudge
from claimcourt.runs import delete_tenant_run, run_usage, submit_run, tenant_run
from claimcourt.settings import MOTION_ROLES, ROLES
from claimcourt.store.base import Store, encode_cursor, listing_key
from claimcourt.watching.drift import create_monitor
from claimcourt.wiring import Deps, build_idempotency, current_deps, use_settings

# Powertools idempotency imports boto3 (80 ms): only a POST with an Idempotency-Key needs it.
if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.idempotency.persistence.base import BasePersistenceLayer

PUBLIC = frozenset({"/health"})
BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})  # the methods whose body a route reads
IDEMPOTENCY_TTL_S = 24 * 3600
# No run has this many events, and both stores take a seq up to it (SQLite's INTEGER overflows at
# 2**63, DynamoDB's event keys have ten digits): `?after=` beyond it means the same, nothing newer.
LAST_SEQ = 10**10 - 1
# A search (`GET /runs?q=`) reads at most this many runs a request; past them it returns what it
# found with a cursor to go on from.
SEARCH_SPAN = 1000
SCORE_CHANGED = "claim.score_changed"


def _usable_key(value: str) -> str:
    """An Idempotency-Key that is blank or holds a control character is no client's intent (a header
    mangled on the way, an escape sequence): refused, rather than kept as a key for 24 hours."""
    if not value.strip():
        raise ValueError("an Idempotency-Key cannot be empty or blank")
    bad = next((ch for ch in value if unicodedata.category(ch) in ("Cc", "Cs")), None)
    if bad is not None:
        raise ValueError(f"an Idempotency-Key cannot hold a control character (U+{ord(bad):04X})")
    return value


IdempotencyKey = Annotated[str, AfterValidator(_usable_key)]


# ---------------------------------------------------------------- what the API returns


class Links(BaseModel):
    self: str
    events: str
    websocket: str | None = Field(default=None, description="Subscribe here: {action: subscribe, run_id}.")


class RunView(RunOutput):
    links: Links


class RunList(BaseModel):
    runs: list[RunView]
    next_cursor: str | None = Field(description="Pass as ?cursor= for the next page; null on the last.")


class EventList(BaseModel):
    run_id: str
    events: list[RunEvent]


class RoundDecisionList(BaseModel):
    run_id: str
    decisions: list[RoundDecision]


class Ledger(BaseModel):
    run_id: str
    citations: list[LedgerEntry]


class MotionView(BaseModel):
    """A motion debate as the API gives it: its status, and its result once it has concluded."""

    run_id: str
    status: RunStatus
    motion: MotionRequest
    created_at: datetime
    finished_at: datetime | None
    error: str | None
    cost_usd: float
    stop_reason: StopReason | None = Field(
        default=None, description="Why the suitability check stopped it before its crowd voted."
    )
    warnings: list[str] = Field(
        default_factory=list, description="The suitability check's: why it stopped, or what to know of it."
    )
    result: MotionResult | None = Field(default=None, description="The vote swing and the judge's report.")
    statements: list[Argument] = Field(
        default_factory=list,
        description="GET /motions/{id} only: the statements (and refusals) so far, in speaking order.",
    )
    links: Links


class VoteList(BaseModel):
    run_id: str
    personas: str = Field(description="The persona set's version.")
    tallies: list[VoteTally] = Field(description="Vote zero first, then one per round: every voter's score.")


class ClaimList(BaseModel):
    claims: list[ClaimRecord]


class ClaimHistory(BaseModel):
    claim_id: str
    points: list[DriftPoint]
    score_changes: list[str] = Field(
        default_factory=list, description="The points' runs that raised claim.score_changed."
    )


class ProviderStatus(BaseModel):
    name: str
    configured: bool = Field(description="This service holds a key (or base URL) for it.")
    default: bool = Field(description="Roles with no model of their own use it.")


class RoleRoute(BaseModel):
    role: str
    provider: str
    model: str


class ServiceSettings(BaseModel):
    """What runs will use, as this service is configured: never a key."""

    tenant_id: str
    providers: list[ProviderStatus]
    provider_keys_known: bool = Field(
        description="False where this API holds no provider keys (deployed: the stages read them): then "
        "`configured` and each role's route are as configured, not checked against the keys."
    )
    roles: list[RoleRoute]
    motion_roles: list[RoleRoute] = Field(
        description="A motion debate's roles, each as it runs unless the debate's line-up names it."
    )
    web_search: bool = Field(description="Whether runs search the web (`search` says which search).")
    search: SearchName | None = Field(
        description="The web search that finds runs' evidence: anthropic, openai or searxng; none: the "
        "bundled corpus; null where this API holds no provider keys and CLAIMCOURT_SEARCH names none "
        "(the stages then take the first configured)."
    )
    dynamic_rounds: str
    budget_usd: float
    max_active_runs: int
    hourly_runs_per_tenant: int
    websocket_url: str | None = Field(description="Where to subscribe to a run's live events.")
    default_effort: str
    default_mode: str
    searxng_url: str | None = Field(
        description="The SearXNG instance runs search; shown to the operator only (null for other keys)."
    )
    operator: bool = Field(
        description="Whether this key is the operator's (tenant local, or made with `keys create --admin`): "
        "only the operator changes the settings and provider keys, which every tenant's runs use; any "
        "other key reads them (PUT and DELETE answer 403 operator_only), without the SearXNG URL or the keys."
    )
    editable: bool = Field(
        description="Whether PUT /settings may change them, with this key: the local server's, by the "
        "operator; a deployed stack's are its template's (PUT answers 409 settings_deployed)."
    )
    saved: SavedSettings = Field(description="What the console saved (empty where nothing was, or deployed).")
    locked: dict[str, str] = Field(
        default_factory=dict,
        description="Saved fields the server's environment sets, with why: the environment wins.",
    )
    keys: list[KeyStatus] = Field(
        default_factory=list, description="Provider keys: set or not, the last four characters, from where."
    )
    keys_note: str | None = Field(default=None, description="Why keys cannot be entered here, if not.")


class ProviderKey(BaseModel):
    key: str = Field(min_length=1, max_length=500, description="The provider's API key (never returned).")


DEPLOYED_SETTINGS = (
    "this deployment's settings are its stack's (the CLAIMCOURT_* variables in template.yaml): change "
    "them there and deploy"
)
DEPLOYED_KEYS = (
    "this deployment reads provider keys from Secrets Manager (CLAIMCOURT_PROVIDER_KEYS_SECRET): put "
    "them there; the console cannot set them"
)
OPERATORS_KEYS = "provider keys are the operator's: they are neither shown to nor set by this key"


def _preferences(deps: Deps, keys: bool = False) -> Preferences:
    if deps.preferences is None:
        if keys:
            raise ConflictError(DEPLOYED_KEYS, "keys_in_secrets_manager")
        raise ConflictError(DEPLOYED_SETTINGS, "settings_deployed")
    return deps.preferences


class MonitorList(BaseModel):
    monitors: list[Monitor]


class Health(BaseModel):
    status: str
    version: str
    store: str


def _deps() -> Deps:
    return current_deps()


def _service_settings(deps: Deps, tenant_id: str, operator: bool) -> ServiceSettings:
    """What runs will use, as `tenant_id`'s key may see it: the operator's sees all (never a key itself);
    another's not where the SearXNG instance is, nor the provider keys (set or not, their last four)."""
    settings, preferences = deps.settings, deps.preferences
    default = settings.default_provider()
    providers = [
        ProviderStatus(name=name, configured=settings.has_key(name), default=name == default)
        for name in PROVIDERS
    ]

    def routes(roles: Iterable[str]) -> list[RoleRoute]:
        return [
            RoleRoute(role=role, provider=p, model=m) for role in roles for p, m in [settings.route(role)]
        ]

    saved = preferences.saved() if preferences else SavedSettings()
    return ServiceSettings(
        tenant_id=tenant_id,
        providers=providers,
        provider_keys_known=settings.provider_keys_known,
        roles=routes(ROLES),
        motion_roles=routes(MOTION_ROLES),
        web_search=settings.web_search_source() != "none",
        search=settings.web_search_source(),
        dynamic_rounds=settings.dynamic_rounds,
        budget_usd=settings.budget_usd,
        max_active_runs=settings.max_active_runs,
        hourly_runs_per_tenant=settings.hourly_runs_per_tenant,
        websocket_url=settings.websocket_url,
        default_effort=settings.default_effort,
        default_mode=settings.default_mode,
        searxng_url=settings.searxng_url if operator else None,
        operator=operator,
        editable=preferences is not None and operator,
        saved=saved if operator else saved.model_copy(update={"searxng_url": None}),
        locked=preferences.locked() if preferences else {},
        keys=preferences.key_status() if preferences and operator else [],
        keys_note=DEPLOYED_KEYS if preferences is None else None if operator else OPERATORS_KEYS,
    )


def _view(record: RunRecord, full: bool = False) -> RunView:
    base = f"/runs/{record.run_id}"
    links = Links(self=base, events=f"{base}/events", websocket=_deps().settings.websocket_url)
    usage = run_usage(_deps().store, record) if full else None
    return RunView(**RunOutput.fields_of(record, full, usage), links=links)


# ---------------------------------------------------------------- the resolver and its routes


def _own_corpora(deps: Deps, tenant_id: str, names: list[str]) -> None:
    """The collections a run names are the tenant's (or the bundled corpus), checked before anything is
    stored: a 422 naming `corpora` otherwise."""
    check_corpora(deps.collections, tenant_id, names)


def build_app() -> APIGatewayHttpResolver:
    """A resolver with every route: one per process, resolving one request at a time (see `handler`:
    Powertools keeps the current request on a class attribute)."""
    # Every body is read by read_json: what JSON cannot read safely is a 400 like any malformed body.
    app = APIGatewayHttpResolver(enable_validation=True, json_body_deserializer=read_json)

    def tenant() -> str:
        return str(app.context["tenant_id"])

    def operator() -> bool:
        return app.context.get("operator") is True

    @app.exception_handler(RequestValidationError)  # type: ignore[untyped-decorator]
    def _invalid(err: RequestValidationError) -> Response[str]:
        first: dict[str, Any] = dict(err.errors()[0])
        if first.get("type") == "json_invalid":
            return problem(400, "malformed_json", "the request body is not valid JSON")
        location = [str(p) for p in first.get("loc", ()) if p not in ("body", "query", "path", "header")]
        field = ".".join(location) or "body"
        message = str(first.get("msg", "invalid")).removeprefix("Value error, ")
        return problem(422, "invalid_request", f"{field}: {message}", field=field)

    @app.exception_handler(Exception)  # type: ignore[untyped-decorator]
    def _errors(err: Exception) -> Response[str]:
        if isinstance(err, ConfigurationError):
            logger.error("misconfigured", extra={"reason": str(err)})
            return problem(503, "unavailable", "the service is not configured for this request")
        if not isinstance(err, ClaimcourtError):
            logger.exception("unhandled error")  # the trace goes to our logs, not to the client
        return from_error(err)

    @app.not_found
    def _no_route(_: Exception) -> Response[str]:
        event = app.current_event
        return problem(404, "no_such_route", f"there is no {event.http_method} {event.path}")

    @app.post("/runs", responses={202: {"description": "Accepted: the run has started."}})
    def post_run(
        request: RunRequest,
        idempotency_key: Annotated[
            IdempotencyKey | None,
            Header(
                alias="idempotency-key",
                max_length=200,
                description="Same key + body: same run, as it is now (410 run_deleted once it is deleted)."
                " Not blank, and no control characters (422).",
            ),
        ] = None,
    ) -> Response[RunView]:
        deps = _deps()
        executor = deps.executor
        if executor is None:
            raise ConfigurationError("no executor: CLAIMCOURT_STATE_MACHINE_ARN is not set")
        owner = tenant()
        _own_corpora(deps, owner, request.corpora)
        check_panel(deps.settings, request)
        started: list[RunRecord] = []

        def start() -> dict[str, Any]:
            record = submit_run(deps.store, executor, deps.settings, owner, request, now=deps.now)
            started.append(record)
            return _view(record).model_dump(mode="json")

        if idempotency_key is None:
            body = start()
        else:
            body = _once(deps, app.lambda_context, owner, idempotency_key, request, start)
        view = RunView.model_validate(body)
        if not started:  # a replay: the run as it is now, not as it was when first answered
            view = _view(_replayed(deps, owner, view.run_id))
        headers = {"Location": view.links.self}
        return Response(status_code=202, content_type="application/json", body=view, headers=headers)

    @app.get("/runs")
    def list_runs(
        limit: Annotated[int, Query(ge=1, le=100)] = 20,
        cursor: Annotated[str | None, Query(max_length=200)] = None,
        source: Annotated[SourceTag | None, Query()] = None,
        q: Annotated[
            str | None,
            Query(
                min_length=1,
                max_length=200,
                description="Only runs whose claim contains this text (any case). A page may hold fewer"
                f" than `limit` runs (at most {SEARCH_SPAN} are read a request): go on while next_cursor"
                " is not null.",
            ),
        ] = None,
    ) -> RunList:
        store = _deps().store
        if q is None:
            page = store.list_runs(tenant(), limit, cursor=cursor, source=source)
        else:
            page = _search(store, tenant(), q, limit, cursor, source)
        return RunList(runs=[_view(r) for r in page.runs], next_cursor=page.next_cursor)

    @app.get("/runs/<run_id>")
    def get_run(run_id: str) -> RunView:
        return _view(tenant_run(_deps().store, tenant(), run_id), full=True)

    @app.delete("/runs/<run_id>", responses={204: {"description": "Deleted (kept, no longer listed)."}})
    def delete_run(run_id: str) -> Response[None]:
        delete_tenant_run(_deps().store, tenant(), run_id)
        return Response(status_code=204)

    @app.get("/runs/<run_id>/events")
    def get_events(run_id: str, after: Annotated[int, Query(ge=0)] = 0) -> EventList:
        store = _deps().store
        tenant_run(store, tenant(), run_id)
        return EventList(run_id=run_id, events=store.list_events(run_id, after_seq=min(after, LAST_SEQ)))

    @app.get("/runs/<run_id>/round_decisions")
    def get_round_decisions(run_id: str) -> RoundDecisionList:
        """The round controller's decision after each round: the action, the rule that fired, the
        signals it measured, the persona; in shadow mode, what it would have done beside."""
        store = _deps().store
        tenant_run(store, tenant(), run_id)
        return RoundDecisionList(run_id=run_id, decisions=artifacts.decisions_of(store, run_id))

    @app.get("/runs/<run_id>/ledger")
    def get_ledger(run_id: str, key: Annotated[str | None, Query(max_length=40)] = None) -> Ledger:
        """Every citation of the run in order of appearance (for_1, …, against_1, …), with the other
        side's fact-check and its own side's response; `key` picks one. `a_1`/`b_1` name a motion
        debate's teams as its citation_ledger.json does (team a spoke first: `a_1` is `against_1` when
        the side against did); a claim debate's a_/b_ are for_/against_."""
        store = _deps().store
        record = tenant_run(store, tenant(), run_id)
        citations = artifacts.whole_ledger(store, run_id, record.request.context)
        if key is not None:
            wanted = canonical_key(key, artifacts.first_speaker(store, record))
            citations = [c for c in citations if c.key == wanted]
        return Ledger(run_id=run_id, citations=citations)

    @app.get(
        "/runs/<run_id>/artifacts/<name>",
        responses={200: _artifact_file("transcript_full.md, citation_ledger.json, debate_logic_map.json "
                                      "or score_trajectory.csv; a motion debate's also history_chat.json, "
                                      "crowd_opinion.json or voter_sentiment_graph.csv")},
    )  # fmt: skip
    def get_artifact(run_id: str, name: str) -> Response[str]:
        """One of the run's artifacts, as a file: the transcript, the citation ledger, the debate's
        logic map, the score trajectory; a motion debate's chat history, crowd opinion and voter
        sentiment graph too (schemas: docs/schemas/)."""
        return _artifact(tenant_run(_deps().store, tenant(), run_id), name)

    @app.post(
        "/runs/<run_id>/judgements",
        responses={
            202: {
                "description": "Accepted: each new judgement pending; Location follows this re-judging "
                "(GET /runs/{id}/judgements?rejudge=<rejudge_id>) until each has succeeded or failed."
            },
            409: {
                "description": "The debate cannot be judged again: the run is running, stopped or failed "
                "(`code` run_running, run_stopped, run_failed), or a motion ended before its judge mapped a "
                "round (run_unmapped).",
                "content": {PROBLEM: {"schema": {"type": "object", "title": "Problem"}}},
            },
        },
    )
    def post_judgements(run_id: str, request: RejudgeRequest) -> Response[RejudgeAccepted]:
        """Judge the run's stored debate again, without re-running it: each judge reads the same
        anonymized debate in its own call (in parallel), each new judgement is scored by the score
        stage's rules and stored beside the run's own, with its model, prompt version and cost; a motion
        debate's judges each write a new final report (and with `crowd` its crowd votes again on it). The
        run's result is not changed. Answered at once (202), every new judgement `pending`; each then
        ends `succeeded` or `failed` (with why), within about 15 minutes."""
        deps = _deps()
        record = tenant_run(deps.store, tenant(), run_id)
        rejudger = deps.rejudger
        if rejudger is None:
            if deps.settings.state_machine_arn:  # deployed: the work belongs to the re-judge function
                raise ConfigurationError("no re-judge function: CLAIMCOURT_REJUDGE_FUNCTION is not set")
            rejudger = InProcess(deps)  # the laptop: a thread of this process
        pending = ask(deps, record, request.judges, rubric=request.rubric, crowd=request.crowd)
        rejudge_id = pending[0].rejudge_id or ""
        start_rejudge(deps, rejudger, run_id, rejudge_id)
        accepted = RejudgeAccepted(
            run_id=run_id, rejudge_id=rejudge_id, judgements=judgements_of(deps, record, rejudge_id)
        )
        location = f"/runs/{run_id}/judgements?rejudge={rejudge_id}"
        return Response(202, "application/json", accepted, headers={"Location": location})

    @app.get("/runs/<run_id>/judgements")
    def get_judgements(
        run_id: str,
        rejudge: Annotated[
            str | None,
            Query(max_length=40, pattern=r"^[0-9T]+-[0-9a-f]+$", description="Only this re-judging's."),
        ] = None,
    ) -> JudgementList:
        """The run's judgement (`original`), then every re-judgement, oldest first, each pending,
        succeeded or failed (with why); none before the run has succeeded. `rejudge` picks one
        re-judging's (POST's Location)."""
        deps = _deps()
        record = tenant_run(deps.store, tenant(), run_id)
        return JudgementList(run_id=run_id, judgements=judgements_of(deps, record, rejudge))

    @app.get(
        "/runs/<run_id>/claimreview",
        responses={
            200: {
                "description": "The run's schema.org ClaimReview (docs/schemas/claimreview.schema.json).",
                "content": {MEDIA_TYPE: {"schema": {"type": "object", "title": "ClaimReview"}}},
            },
            409: {
                "description": "No rating to publish: the run is running, was stopped or failed, or is a "
                "motion debate (`code` run_running, run_stopped, run_failed or motion_debate).",
                "content": {PROBLEM: {"schema": {"type": "object", "title": "Problem"}}},
            },
        },
    )
    def get_claimreview(run_id: str) -> Response[str]:
        """The run's verdict as schema.org ClaimReview JSON-LD, the markup fact-checkers publish: the
        claim, its rating (the 0–100 score, the verdict in words), the claim's origin as the run's
        request gave it, the publisher (CLAIMCOURT_CLAIMREVIEW_AUTHOR), the date, and the review's page
        (CLAIMCOURT_CLAIMREVIEW_URL, else the run's page in this console)."""
        deps = _deps()
        record = tenant_run(deps.store, tenant(), run_id)
        template = deps.settings.claimreview_url
        url = review_url(template, run_id) if template else console_url(_origin(app.current_event), run_id)
        review = claim_review(record, url=url, publisher=publisher_of(deps.settings))
        return Response(200, MEDIA_TYPE, to_json(review))

    @app.post("/motions", responses={202: {"description": "Accepted: the motion debate has started."}})
    def post_motion(request: MotionRequest) -> Response[MotionView]:
        """Start a motion debate before a crowd (statemachine/motion.asl.json), under the same cost guard
        as a run. Its progress streams on the WebSocket like a run's (subscribe with its run_id)."""
        deps = _deps()
        # Deployed, both machines are named; locally (no ARN at all) the runtime holds both.
        deployed_without = deps.settings.state_machine_arn and not deps.settings.motion_state_machine_arn
        if deps.executor is None or deployed_without:
            raise ConfigurationError("no executor: CLAIMCOURT_MOTION_STATE_MACHINE_ARN is not set")
        deps.settings.check_lineup(request.lineup)
        _own_corpora(deps, tenant(), request.corpora)
        record = submit_run(deps.store, deps.executor, deps.settings, tenant(), request, now=deps.now)
        view = _motion_view(record)
        return Response(202, "application/json", view, headers={"Location": view.links.self})

    @app.get("/motions/<run_id>")
    def get_motion(run_id: str) -> MotionView:
        return _motion_view(_tenant_motion(tenant(), run_id), full=True)

    @app.get("/motions/<run_id>/events")
    def get_motion_events(run_id: str, after: Annotated[int, Query(ge=0)] = 0) -> EventList:
        _tenant_motion(tenant(), run_id)
        return EventList(
            run_id=run_id, events=_deps().store.list_events(run_id, after_seq=min(after, LAST_SEQ))
        )

    @app.get("/motions/<run_id>/votes")
    def get_votes(run_id: str) -> VoteList:
        """Every round's tally with every voter's score (vote zero first): the sentiment series."""
        _tenant_motion(tenant(), run_id)
        return VoteList(
            run_id=run_id, personas=persona_set()[0], tallies=artifacts.tallies_of(_deps().store, run_id)
        )

    @app.get(
        "/motions/<run_id>/artifacts/<name>",
        responses={200: _artifact_file("the debate's artifact, by name")},
    )
    def get_motion_artifact(run_id: str, name: str) -> Response[str]:
        """One of the debate's seven artifacts, as GET /runs/{id}/artifacts/{name} serves them."""
        return _artifact(_tenant_motion(tenant(), run_id), name)

    @app.get("/claims")
    def list_claims(limit: Annotated[int, Query(ge=1, le=200)] = 50) -> ClaimList:
        return ClaimList(claims=_deps().store.list_claims(tenant(), limit))

    @app.get("/claims/<claim_id>/history")
    def claim_history(claim_id: str) -> ClaimHistory:
        """One of the tenant's claims (it has runs of it, or watches it): its score series."""
        store = _deps().store
        _tenant_claim(store, tenant(), claim_id)
        points = store.drift_series(tenant(), claim_id)
        changes = [
            p.run_id for p in points if any(e.type == SCORE_CHANGED for e in store.list_events(p.run_id))
        ]
        return ClaimHistory(claim_id=claim_id, points=points, score_changes=changes)

    @app.post("/monitors", responses={201: {"description": "Watched: due at the next drift tick."}})
    def post_monitor(request: MonitorRequest) -> Response[Monitor]:
        check_panel(_deps().settings, request)  # every run it starts is judged by its panel
        monitor = create_monitor(_deps().store, tenant(), request)
        headers = {"Location": f"/monitors/{monitor.monitor_id}"}
        return Response(status_code=201, content_type="application/json", body=monitor, headers=headers)

    @app.get("/monitors")
    def list_monitors() -> MonitorList:
        return MonitorList(monitors=_deps().store.list_monitors(tenant()))

    @app.get("/monitors/<monitor_id>")
    def get_monitor(monitor_id: str) -> Monitor:
        """One of the tenant's monitors: its claim, cadence, threshold, next due time and last run."""
        return _tenant_monitor(_deps().store, tenant(), monitor_id)

    @app.delete("/monitors/<monitor_id>", responses={204: {"description": "No longer watched."}})
    def delete_monitor(monitor_id: str) -> Response[None]:
        store = _deps().store
        _tenant_monitor(store, tenant(), monitor_id)
        if not store.delete_monitor(monitor_id):
            raise NotFoundError(f"no monitor {monitor_id}")
        return Response(status_code=204)

    @app.get("/settings")
    def service_settings() -> ServiceSettings:
        """The providers and each role's model as this service will run them, what the console saved and
        which of it the environment overrides; of a key, only whether it is set and its last 4."""
        return _service_settings(_deps(), tenant(), operator())

    # Settings and provider keys are the whole server's (every tenant's runs use them): only the operator
    # changes them. A body is validated first (422), then the 403 comes before anything is read or
    # changed, a deployed stack's 409 included.
    @app.put(
        "/settings",
        responses={
            403: {"description": "Not the operator's key (operator_only)."},
            409: {"description": "A deployed stack: its settings are its template's (settings_deployed)."},
        },
    )
    def put_settings(saved: SavedSettings) -> ServiceSettings:
        """Save the settings later runs use (the local server's): the whole set, a field left out being
        the environment's or the default. A field the environment sets is kept but does not apply."""
        refuse_unless_operator(operator(), "change this server's settings")
        deps = _deps()
        settings = _preferences(deps).save(saved)
        logger.info("settings saved", extra={"fields": sorted(saved.model_fields_set)})
        return _service_settings(use_settings(settings), tenant(), operator())

    @app.put(
        "/settings/keys/<provider>",
        responses={
            403: {"description": "Not the operator's key (operator_only)."},
            409: {"description": "Deployed (keys_in_secrets_manager), or set in the environment."},
        },
    )
    def put_provider_key(provider: str, body: ProviderKey) -> ServiceSettings:
        """Keep a provider's API key, encrypted, for later runs (the local server's). Never returned."""
        refuse_unless_operator(operator(), "set this server's provider keys")
        settings = _preferences(_deps(), keys=True).put_key(provider, body.key)
        logger.info("provider key saved", extra={"provider": provider})
        return _service_settings(use_settings(settings), tenant(), operator())

    @app.delete(
        "/settings/keys/<provider>",
        responses={
            204: {"description": "Forgotten."},
            403: {"description": "Not the operator's key (operator_only)."},
            409: {"description": "Deployed, or in use."},
        },
    )
    def delete_provider_key(provider: str) -> Response[None]:
        refuse_unless_operator(operator(), "remove this server's provider keys")
        settings = _preferences(_deps(), keys=True).remove_key(provider)
        logger.info("provider key removed", extra={"provider": provider})
        use_settings(settings)
        return Response(status_code=204)

    corpora.register(app, tenant)
    benchmarks.register(app)

    @app.get("/health")
    def health() -> Health:
        return Health(status="ok", version=__version__, store=_deps().settings.store)

    @app.get("/", include_in_schema=False, compress=True)
    def console_page() -> Response[str]:
        return _console_file(console.INDEX)

    @app.get("/console/<name>", include_in_schema=False, compress=True)
    def console_file(name: str) -> Response[str]:
        return _console_file(name)

    return app


# An artifact is served as its own file type (markdown, JSON, CSV): the document says each, so a client
# (and the fuzzer's content-type check) expects what comes.
def _artifact_file(description: str) -> OpenAPIResponse:
    return {
        "description": description,
        "content": {
            media.split(";")[0]: {"schema": {"type": "string"}} for media in sorted(set(MEDIA_TYPES.values()))
        },
    }


def _artifact(record: RunRecord, name: str) -> Response[str]:
    names = artifact_names(record)
    if name not in names:
        raise NotFoundError(f"no artifact {name}: one of {', '.join(names)}")
    headers = {"Content-Disposition": f'attachment; filename="{record.run_id}-{name}"'}
    return Response(200, MEDIA_TYPES[name], export(_deps().store, record.run_id, name), headers=headers)


def _origin(event: APIGatewayProxyEventV2) -> str:
    """Where this API (and its console) is reached: API Gateway and `serve` say the scheme in
    x-forwarded-proto; the host is the request's own."""
    scheme = (event.headers or {}).get("x-forwarded-proto", "https").split(",")[0].strip() or "https"
    return f"{scheme}://{event.request_context.domain_name}"


def _tenant_claim(store: Store, tenant_id: str, claim_id: str) -> None:
    """NotFoundError unless the tenant has runs of the claim or a monitor of it (one not yet run has
    no runs): another tenant's claim looks like none."""
    try:
        store.get_claim(tenant_id, claim_id)
    except NotFoundError:
        if not store.monitors_of_claim(tenant_id, claim_id):
            raise NotFoundError(f"no claim {claim_id}") from None


def _tenant_monitor(store: Store, tenant_id: str, monitor_id: str) -> Monitor:
    """The tenant's monitor (another tenant's looks like none: 404)."""
    try:
        monitor = store.get_monitor(monitor_id)
    except NotFoundError:
        monitor = None
    if monitor is None or monitor.tenant_id != tenant_id:
        raise NotFoundError(f"no monitor {monitor_id}")
    return monitor


def _tenant_motion(tenant_id: str, run_id: str) -> RunRecord:
    """The tenant's motion debate (a claim run is not one: 404, as for any other id)."""
    record = tenant_run(_deps().store, tenant_id, run_id)
    if record.motion is None:
        raise NotFoundError(f"no motion debate {run_id}")
    return record


def _motion_view(record: RunRecord, full: bool = False) -> MotionView:
    assert record.motion is not None
    base = f"/motions/{record.run_id}"
    links = Links(self=base, events=f"{base}/events", websocket=_deps().settings.websocket_url)
    return MotionView(
        run_id=record.run_id,
        status=record.status,
        motion=record.motion,
        created_at=record.created_at,
        finished_at=record.finished_at,
        error=record.error,
        cost_usd=record.cost_usd,
        stop_reason=record.stop_reason,
        warnings=record.warnings,
        result=artifacts.motion_result_of(_deps().store, record.run_id) if full else None,
        statements=artifacts.spoken_in_order(_deps().store, record.run_id) if full else [],
        links=links,
    )


def _console_file(name: str) -> Response[str]:
    found = console.asset(name)
    if found is None:
        return problem(404, "not_found", f"the console has no file {name}")
    content_type, text = found
    deps = _deps()
    uploads_to = deps.collections.upload_origin() if isinstance(deps.collections, Uploads) else None
    headers = console.security_headers(deps.settings.websocket_url, uploads_to)
    return Response(status_code=200, content_type=content_type, body=text, headers=headers)


def _search(
    store: Store, tenant: str, text: str, limit: int, cursor: str | None, source: SourceTag | None
) -> RunPage:
    """The tenant's runs whose claim contains `text` (casefolded), newest first: read page by page,
    at most SEARCH_SPAN runs, so a search costs what listing them would."""
    needle, found, read = text.casefold(), [], 0
    while True:
        page = store.list_runs(tenant, 100, cursor=cursor, source=source)
        for i, record in enumerate(page.runs):
            read += 1
            if needle in record.request.claim.casefold():
                found.append(record)
                if len(found) == limit:
                    last = i == len(page.runs) - 1 and page.next_cursor is None
                    return RunPage(
                        runs=found, next_cursor=None if last else encode_cursor(listing_key(record))
                    )
        cursor = page.next_cursor
        if cursor is None or read >= SEARCH_SPAN:
            return RunPage(runs=found, next_cursor=cursor)


_layers: dict[int, BasePersistenceLayer] = {}
_layers_lock = threading.Lock()


def _idempotency_layer(deps: Deps) -> BasePersistenceLayer:
    """The API's own persistence layer: Powertools configures a layer once, for the first function
    that uses it, and the stages' layer is configured for them (in the local server they share a
    process with the API)."""
    with _layers_lock:
        if id(deps.store) not in _layers:
            _layers[id(deps.store)] = build_idempotency(deps.settings, deps.store)
        return _layers[id(deps.store)]


def _replayed(deps: Deps, tenant: str, run_id: str) -> RunRecord:
    """The run an Idempotency-Key started; GoneError once it is deleted (the key stays taken, so a
    replay never starts a second run: a new key starts a new one)."""
    try:
        return tenant_run(deps.store, tenant, run_id)
    except NotFoundError:
        raise GoneError(
            f"the run this Idempotency-Key started, {run_id}, has been deleted;"
            " use a new key to start another",
            "run_deleted",
        ) from None


def _once(
    deps: Deps,
    context: LambdaContext,
    tenant: str,
    key: str,
    request: RunRequest,
    start: Callable[[], dict[str, Any]],
) -> dict[str, Any]:
    """Powertools idempotency on (tenant, Idempotency-Key), the body validated against the first
    request's: a replay gets the first response, a different body under the same key is refused,
    and a refused or failed start keeps no record (so the client may retry it)."""
    from aws_lambda_powertools.utilities.idempotency import IdempotencyConfig, idempotent_function
    from aws_lambda_powertools.utilities.idempotency.exceptions import (
        IdempotencyAlreadyInProgressError,
        IdempotencyValidationError,
    )

    config = IdempotencyConfig(
        event_key_jmespath="[tenant, key]",
        payload_validation_jmespath="body",
        expires_after_seconds=IDEMPOTENCY_TTL_S,
    )
    config.register_lambda_context(context)

    @idempotent_function(  # type: ignore[untyped-decorator]
        data_keyword_argument="submitted", config=config, persistence_store=_idempotency_layer(deps)
    )
    def submit(submitted: dict[str, Any]) -> dict[str, Any]:
        result: dict[str, Any] = start()
        return result

    submitted = {"tenant": tenant, "key": key, "body": request.model_dump(mode="json")}
    try:
        result: dict[str, Any] = submit(submitted=submitted)
    except IdempotencyValidationError:
        raise ConflictError(
            "this Idempotency-Key was used with a different request body", "idempotency_key_reused"
        ) from None
    except IdempotencyAlreadyInProgressError:
        raise ConflictError(
            "a request with this Idempotency-Key is still being processed", "request_in_progress"
        ) from None
    return result


# ---------------------------------------------------------------- the Lambda handler

# Powertools' resolver keeps the request being resolved on a class attribute (BaseRouter.current_event,
# one per process: Lambda runs one request at a time). `claimcourt serve` runs requests on threads, and
# two resolving at once swapped events: a console file's GET was answered as another thread's GET /runs
# (a 500). So one app, and one request resolved at a time; uncontended in Lambda.
_resolving = threading.Lock()
_the_app: APIGatewayHttpResolver | None = None


def _app() -> APIGatewayHttpResolver:
    global _the_app
    if _the_app is None:
        _the_app = build_app()
    return _the_app


def _admit(event: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """Before any route or validation: the body's size, then the key. Returns the caller's context,
    or a problem reply (413, 401) that ends the request there."""
    deps = _deps()
    body = event.get("body") or ""
    # A document upload may be as large as a document; every other body is JSON, and small.
    upload = corpora.is_upload(_method(event), str(event.get("rawPath") or ""))
    limit = corpora.MAX_UPLOAD_BYTES if upload else deps.settings.max_body_bytes
    size = len(body) * 3 // 4 if event.get("isBase64Encoded") else len(body.encode())
    if size > limit:
        return {}, problem_reply(413, "payload_too_large", f"the request body is over {limit} bytes")
    path = str(event.get("rawPath") or "")
    if path in PUBLIC or (console.is_console_path(path) and _method(event) == "GET"):
        return {}, None
    try:
        record = authenticate(deps.store, presented_key(event.get("headers") or {}))
    except UnauthorizedError as err:
        return {}, problem_reply(401, "unauthorized", str(err), headers={"WWW-Authenticate": "Bearer"})
    return {"tenant_id": record.tenant_id, "key_id": record.key_id, "operator": is_operator(record)}, None


def _method(event: dict[str, Any]) -> str:
    return str(event.get("requestContext", {}).get("http", {}).get("method", "")).upper()


def _unreadable_body(event: dict[str, Any]) -> dict[str, Any] | None:
    """JSON is all we take: a body sent to be read must be application/json (no Content-Type counts
    as JSON) and UTF-8. Returns the problem reply (415, 400) if it is not, before Powertools' body
    parsing would fail on it (an unsupported type, a multipart without a boundary, bytes that are
    not UTF-8) with an error that is not ours to map."""
    body = event.get("body")
    if not body or _method(event) not in BODY_METHODS:
        return None
    if corpora.is_upload(_method(event), str(event.get("rawPath") or "")):
        return None  # a document, read by its route
    headers = event.get("headers") or {}
    content_type = next((str(v) for k, v in headers.items() if k.lower() == "content-type"), "")
    media_type = content_type.split(";", 1)[0].strip().lower()
    if media_type not in ("", "application/json"):
        return problem_reply(
            415, "unsupported_media_type", "the request body must be JSON (application/json)"
        )
    if event.get("isBase64Encoded"):
        try:
            base64.b64decode(body, validate=True).decode("utf-8")
        except ValueError:  # binascii.Error and UnicodeDecodeError both are
            return problem_reply(400, "malformed_json", "the request body is not valid JSON (UTF-8)")
    return None


@observed  # logs the context, never the event (it holds the key)
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    caller, refused = _admit(event)
    if refused is None:
        refused = _unreadable_body(event)
    if refused is not None:
        return refused
    if event.get("body") and not corpora.is_upload(_method(event), str(event.get("rawPath") or "")):
        # JSON is all we take: no Content-Type or any spelling of it becomes the one Powertools reads
        headers = {k: v for k, v in (event.get("headers") or {}).items() if k.lower() != "content-type"}
        event = {**event, "headers": {**headers, "content-type": "application/json"}}
    logger.append_keys(**caller)  # the tenant and the key's id, never the key
    with _resolving:
        app = _app()
        app.append_context(**caller)  # type: ignore[no-untyped-call]
        return app.resolve(event, context)


def openapi_json() -> str:
    return build_app().get_openapi_json_schema(
        title="claimcourt",
        version=__version__,
        description="Adjudicate falsifiable claims: start a debate, follow it, read its calibrated verdict."
        " Every route but /health needs an API key: `Authorization: Bearer cc_…`.",
    )
