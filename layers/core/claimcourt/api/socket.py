"""The WebSocket API: `$connect` (with an API key), `$disconnect`, and `subscribe` to a run.

A client connects with its key (the `Authorization` or `x-api-key` header, or `?api_key=` where a
browser cannot set headers), then sends `{"action": "subscribe", "run_id": "run_…"}` and receives:

    {"type": "subscribed", "run_id": …}
    {"type": "event", "run_id": …, "event": {seq, type, stage, …}}   the stored events, then live ones,
                                                                     ending with run.succeeded|failed|stopped
    {"type": "error", "code": …, "detail": …}                         not_found; invalid_message (not a
                                                                     JSON object, or a bad subscribe);
                                                                     unknown_action

Another tenant's run is refused exactly like a run that does not exist. Every message goes out
through the deployment's Poster, in the order claimcourt.delivery keeps. A message on a connection
whose key has been revoked closes it instead of being answered.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any, Literal

from aws_lambda_powertools.utilities.data_classes import APIGatewayWebSocketEvent
from aws_lambda_powertools.utilities.typing import LambdaContext
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from claimcourt.access import authenticate, presented_key
from claimcourt.api.bodies import read_json
from claimcourt.delivery import Poster, close_if_revoked, deliver
from claimcourt.errors import ConfigurationError, ConnectionGoneError, NotFoundError, UnauthorizedError
from claimcourt.models import ConnectionRecord, first_problem, utcnow
from claimcourt.observability import logger, observed
from claimcourt.runs import tenant_run
from claimcourt.wiring import Deps, current_deps

# API Gateway closes a connection after 2 hours; its records live a little longer, then expire.
KEEP_CONNECTION = timedelta(hours=2, minutes=5)

Reply = dict[str, Any]


class Subscribe(BaseModel):
    model_config = ConfigDict(extra="forbid")

    action: Literal["subscribe"]
    run_id: str = Field(pattern=r"^[\w-]{1,64}$")


def poster_of(deps: Deps) -> Poster:
    if deps.poster is None:
        raise ConfigurationError("no WebSocket endpoint: CLAIMCOURT_WEBSOCKET_URL is not set")
    return deps.poster


def _error(deps: Deps, connection_id: str, code: str, detail: str) -> None:
    try:
        poster_of(deps).post(connection_id, {"type": "error", "code": code, "detail": detail})
    except ConnectionGoneError:
        deps.store.drop_connection(connection_id)


def on_connect(deps: Deps, event: APIGatewayWebSocketEvent) -> Reply:
    """Accept only a live key; the connection remembers its tenant. A refusal is an HTTP 401 to the
    handshake, so the client never gets a socket."""
    try:
        key = authenticate(deps.store, presented_key(event.headers or {}, event.query_string_parameters))
    except UnauthorizedError:
        return {"statusCode": 401}
    connection_id = event.request_context.connection_id
    deps.store.put_connection(
        ConnectionRecord(
            connection_id=connection_id,
            tenant_id=key.tenant_id,
            key_id=key.key_id,
            expires_at=utcnow() + KEEP_CONNECTION,
        )
    )
    logger.append_keys(tenant_id=key.tenant_id, key_id=key.key_id)
    logger.info("connected")
    return {"statusCode": 200}


def on_disconnect(deps: Deps, event: APIGatewayWebSocketEvent) -> Reply:
    deps.store.drop_connection(event.request_context.connection_id)
    return {"statusCode": 200}


def on_subscribe(deps: Deps, event: APIGatewayWebSocketEvent) -> Reply:
    connection_id = event.request_context.connection_id
    try:
        message = Subscribe.model_validate_json(event.decoded_body or "")
    except ValidationError as err:
        field, problem = first_problem(err, "message")
        _error(deps, connection_id, "invalid_message", f"{field}: {problem}")
        return {"statusCode": 200}
    try:
        connection = deps.store.get_connection(connection_id)
        tenant_run(deps.store, connection.tenant_id, message.run_id)
    except NotFoundError:
        _error(deps, connection_id, "not_found", f"no run {message.run_id}")
        return {"statusCode": 200}
    poster = poster_of(deps)
    try:
        # Acknowledged before the subscription exists, so nothing a notifier posts can come before it.
        poster.post(connection_id, {"type": "subscribed", "run_id": message.run_id})
    except ConnectionGoneError:
        deps.store.drop_connection(connection_id)
        return {"statusCode": 200}
    deps.store.subscribe(connection_id, message.run_id, connection.expires_at)
    deliver(deps.store, poster, connection_id, message.run_id)  # what is stored so far
    return {"statusCode": 200}


def on_unknown(deps: Deps, event: APIGatewayWebSocketEvent) -> Reply:
    """$default: what no route took. A message that is not a JSON object (not JSON, or JSON that
    cannot be read safely, e.g. nested past the recursion limit) is invalid; an object names an
    action there is no route for."""
    connection_id = event.request_context.connection_id
    hint = 'send {"action": "subscribe", "run_id": "run_…"}'
    try:
        message = read_json(event.decoded_body or "")
    except ValueError:  # json.JSONDecodeError is one
        message = None
    if isinstance(message, dict):
        _error(deps, connection_id, "unknown_action", hint)
    else:
        _error(deps, connection_id, "invalid_message", f"a message is a JSON object: {hint}")
    return {"statusCode": 200}


ROUTES: dict[str, Callable[[Deps, APIGatewayWebSocketEvent], Reply]] = {
    "$connect": on_connect,
    "$disconnect": on_disconnect,
    "subscribe": on_subscribe,
}


@observed  # never the event: a $connect event holds the key
def handler(event: dict[str, Any], context: LambdaContext) -> Reply:
    request = APIGatewayWebSocketEvent(event)
    route = request.request_context.route_key
    connection_id = request.request_context.connection_id
    logger.append_keys(route=route, connection_id=connection_id)
    deps = current_deps()
    # $connect checked the key; a message afterwards may come after the key was revoked
    messaged = route not in ("$connect", "$disconnect")
    if messaged and close_if_revoked(deps.store, poster_of(deps), connection_id):
        return {"statusCode": 200}
    return ROUTES.get(route, on_unknown)(deps, request)
