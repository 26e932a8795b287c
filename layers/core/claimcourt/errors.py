"""Named errors. The state machine's Retry/Catch match them by class name (Lambda's errorType),
so renaming one means changing statemachine/debate.asl.json too (a test checks the two agree)."""


class ClaimcourtError(Exception):
    """Base for every error this package raises on purpose."""


class TransientError(ClaimcourtError):
    """Worth retrying: rate limits, overloaded or 5xx providers, timeouts. The ASL retries it."""


class StageInProgressError(ClaimcourtError):
    """The same task is already running (a duplicate delivery): the ASL retries it until the first
    attempt ends, for as long as a function may run."""


class ProviderError(ClaimcourtError):
    """A provider failed in a way a retry will not fix (bad key, bad request, unknown model)."""


class MalformedReplyError(ClaimcourtError):
    """A model's reply did not parse into its model, even after one retry with the error."""


class TruncatedReplyError(ClaimcourtError):
    """A model's reply was cut off at its output limit, even after one retry with a larger limit."""


class BudgetExceededError(ClaimcourtError):
    """The run's spend reached its budget: the run stops cleanly, failed with this reason."""


class RefusedJudgementError(ClaimcourtError):
    """The final moderator refused to judge: the run cannot be scored."""


class InvalidRequestError(ClaimcourtError):
    """Bad input, caught at a boundary before any spend."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class ConfigurationError(ClaimcourtError):
    """The settings name something this deployment cannot provide (e.g. no evidence source)."""


class UnavailableError(ClaimcourtError):
    """A service the request needs did not take it (a function that could not be invoked): asking again
    may work (503)."""


class NotFoundError(ClaimcourtError):
    """A run, artifact or claim that does not exist."""


class UnauthorizedError(ClaimcourtError):
    """No API key, or one that is unknown or revoked. The message never repeats the key."""


class ForbiddenError(ClaimcourtError):
    """The key is good but may not do this: what is the whole deployment's (its settings, its provider keys)
    is the operator's to change, not one tenant's."""

    def __init__(self, message: str, code: str = "forbidden") -> None:
        super().__init__(message)
        self.code = code  # the API's stable problem code


class ConflictError(ClaimcourtError):
    """The request clashes with the resource's state (deleting a running run, reusing an
    Idempotency-Key with a different body)."""

    def __init__(self, message: str, code: str = "conflict") -> None:
        super().__init__(message)
        self.code = code  # the API's stable problem code


class GoneError(ClaimcourtError):
    """What the request refers to was there and has been deleted (the run an Idempotency-Key
    started): asking again will not bring it back."""

    def __init__(self, message: str, code: str = "gone") -> None:
        super().__init__(message)
        self.code = code  # the API's stable problem code


class MalformedRequestError(ClaimcourtError):
    """A request body that cannot be read as what it says it is (a multipart body without its boundary)."""

    def __init__(self, message: str, code: str = "malformed_request") -> None:
        super().__init__(message)
        self.code = code  # the API's stable problem code


class TooLargeError(ClaimcourtError):
    """More than the API takes: a document over 25 MB, or a tenant's collections over its quota."""

    def __init__(self, message: str, code: str = "payload_too_large") -> None:
        super().__init__(message)
        self.code = code  # the API's stable problem code


class UnreadableDocumentsError(ClaimcourtError):
    """An upload of which nothing went in: every document was unreadable, each with its reason."""

    def __init__(self, message: str, documents: list[dict[str, object]]) -> None:
        super().__init__(message)
        self.documents = documents


class RateLimitedError(ClaimcourtError):
    """The cost guard refused a new run: too many debates at once, or the caller's hourly cap."""

    def __init__(self, limit: str, message: str, retry_after_s: int) -> None:
        super().__init__(message)
        self.limit = limit  # "concurrency" or "hourly"
        self.message = message
        self.retry_after_s = retry_after_s


class MalformedEventError(ClaimcourtError):
    """A bus event claimcourt cannot act on (unreadable, unknown type, bad detail): never retried,
    it goes to the dead-letter queue with this reason."""


class ConnectionGoneError(ClaimcourtError):
    """A WebSocket connection that is no longer there (API Gateway's 410 Gone)."""


class StageInputError(ClaimcourtError):
    """A stage was invoked with a payload it cannot read: a wiring bug, never retried."""


# Errors the ASL retries besides Lambda's own (tests/integration/test_template.py checks the two agree).
RETRYABLE = (TransientError, StageInProgressError)
