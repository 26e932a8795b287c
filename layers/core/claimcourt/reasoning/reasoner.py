"""The Reasoner: every LLM call in a run goes through `Reasoner.call`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace

from pydantic import ValidationError

from claimcourt.errors import BudgetExceededError, MalformedReplyError, ProviderError, TruncatedReplyError
from claimcourt.models import CallRecord
from claimcourt.observability import count, logger
from claimcourt.reasoning.base import (
    CallContext,
    Ledger,
    OutT,
    Provider,
    ProviderReply,
    Reply,
    Task,
    describe_validation_error,
    naming_call,
    validate_reply,
)
from claimcourt.reasoning.prices import cost_usd

Router = Callable[[str], tuple[str, str]]
# A cut-off reply is asked again with twice its limit, up to this.
MAX_OUTPUT_TOKENS = 32_000


@dataclass(frozen=True)
class _Where:
    """Where a call is being made: for the ledger's keys and the errors' messages."""

    ctx: CallContext
    key: str
    provider: str
    model: str


@dataclass
class _Spend:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    model: str = ""
    replies: list[ProviderReply] = field(default_factory=list)

    def add(self, reply: ProviderReply) -> None:
        self.input_tokens += reply.input_tokens
        self.output_tokens += reply.output_tokens
        self.cache_read_tokens += reply.cache_read_tokens
        self.cache_write_tokens += reply.cache_write_tokens
        self.model = reply.model
        self.replies.append(reply)

    def cost(self) -> tuple[float, bool]:
        return cost_usd(
            self.model, self.input_tokens, self.output_tokens, self.cache_read_tokens, self.cache_write_tokens
        )


class Reasoner:
    """Routes each role to its provider and model, validates replies into their models (one retry
    with the validation error), turns refusals into data, records usage in the ledger, and stops
    a run whose spend has reached its budget. A call already in the ledger is replayed, not repeated:
    a Step Functions retry of a stage never pays twice."""

    def __init__(
        self, providers: Mapping[str, Provider], route: Router, ledger: Ledger, budget_usd: float
    ) -> None:
        self._providers = providers
        self._route = route
        self._ledger = ledger
        self._budget_usd = budget_usd

    def label(self, roles: tuple[str, ...]) -> str:
        """'offline' when no role uses a model; else the providers used, e.g. 'anthropic'."""
        used = sorted({self._route(role)[0] for role in roles})
        return "+".join(used)

    def natural_temperature(self, roles: tuple[str, ...], sampled_roles: frozenset[str]) -> list[str]:
        """The roles whose calls ran at the model's natural temperature: those that ask for it
        (`sampled_roles`), and every role whose provider cannot be sent a temperature."""
        natural = []
        for role in roles:
            route = self._route(role)
            if route[0] == "offline":
                continue  # no model, no sampling
            if role in sampled_roles or self.sends_temperature(route) is False:
                natural.append(role)
        return natural

    def sends_temperature(self, route: tuple[str, str]) -> bool | None:
        """Whether a call on this (provider, model) is sent the temperature it asks for; None where no
        model answers it (the offline reasoner, a provider not configured)."""
        provider_name, model = route
        provider = self._providers.get(provider_name) if provider_name != "offline" else None
        if provider is None:
            return None
        # a provider may take a temperature for some models only (OpenAI's reasoning models take none)
        takes = getattr(provider, "takes_temperature", None)
        return provider.sends_temperature and (not callable(takes) or bool(takes(model)))

    def models(self, roles: tuple[str, ...]) -> dict[str, str]:
        return {role: ":".join(self._route(role)) for role in roles}

    def call(self, task: Task[OutT], ctx: CallContext, suffix: str = "") -> Reply[OutT]:
        key = ctx.key(task, suffix)
        stored = self._ledger.get_call(ctx.run_id, key)
        if stored is not None:
            replay = task.output.model_validate_json(stored.output_json) if stored.output_json else None
            return Reply(replay, stored.refusal, stored.provider, stored.model, replayed=True)

        spent = self._ledger.run_spend(ctx.run_id)
        if spent >= self._budget_usd:
            raise BudgetExceededError(
                f"run {ctx.run_id} has spent ${spent:.4f} of its ${self._budget_usd:.2f} budget"
            )
        provider_name, model = ctx.route or self._route(task.role)
        provider = self._providers.get(provider_name)
        if provider is None:
            raise ProviderError(f"no provider '{provider_name}' is configured for role {task.role}")

        spend = _Spend()
        where = _Where(ctx, key, provider_name, model)
        output: OutT | None = None
        refusal: str | None = None
        try:
            reply, task = self._complete(provider, task, where, spend)
            refusal = reply.refusal
            if refusal is None:
                output, feedback = _read(task, reply)
                if feedback is not None:
                    output, refusal = self._correct(provider, task, where, spend, output, feedback)
        except Exception as err:
            # Whatever was paid for stays in the ledger, so the run's cost and budget see it.
            if spend.replies:
                suffix = "!truncated" if isinstance(err, TruncatedReplyError) else "!malformed"
                self._record(ctx, key + suffix, provider_name, spend, None, None)
            raise
        self._record(ctx, key, provider_name, spend, output, refusal)
        return Reply(output, refusal, provider_name, spend.model or model)

    def _correct(
        self,
        provider: Provider,
        task: Task[OutT],
        where: _Where,
        spend: _Spend,
        output: OutT | None,
        feedback: str,
    ) -> tuple[OutT | None, str | None]:
        """Ask once more with what was wrong. (output, refusal): a reply that parsed the first time is
        kept when the correction fails, is refused or is no better; the stage repairs what is left."""
        logger.warning(
            "reply needs correcting, asking once more", extra={"task": task.kind, "error": feedback}
        )
        try:
            again, task = self._complete(provider, task, where, spend, feedback)
        except Exception as err:
            if output is None:
                raise
            logger.warning(
                "correction failed, keeping the first reply", extra={"task": task.kind, "error": str(err)}
            )
            return output, None
        if again.refusal is not None:
            return (output, None) if output is not None else (None, again.refusal)
        second, second_feedback = _read(task, again)
        if second is not None and (second_feedback is None or output is None):
            output = second
        if output is None:
            raise MalformedReplyError(
                f"{task.kind} reply from {where.provider}:{where.model} did not parse twice: "
                f"{second_feedback}"
            )
        if second_feedback is not None:
            logger.warning("reply still imperfect", extra={"task": task.kind, "error": second_feedback})
        return output, None

    def _complete(
        self,
        provider: Provider,
        task: Task[OutT],
        where: _Where,
        spend: _Spend,
        feedback: str | None = None,
    ) -> tuple[ProviderReply, Task[OutT]]:
        """One reply that was not cut off: a truncated reply is asked again once with twice the output
        limit (within the run's budget), and one truncated again is a TruncatedReplyError. Returns the
        task as last sent, so a correction goes out with the limit that worked."""
        with _naming(where, spend, "correction" if feedback is not None else None):
            reply = provider.complete(task, where.model, feedback=feedback)
        spend.add(reply)
        if not reply.truncated:
            return reply, task
        limit = reply.output_limit or 0
        larger = min(MAX_OUTPUT_TOKENS, 2 * limit)
        spent = self._ledger.run_spend(where.ctx.run_id)
        spent += spend.cost()[0]
        retried = larger > limit and spent < self._budget_usd
        if retried:
            logger.warning("reply cut off, asking again", extra={"task": task.kind, "limit": larger})
            task = replace(task, max_output_tokens=larger)
            with _naming(where, spend, "truncated"):
                reply = provider.complete(task, where.model, feedback=feedback)
            spend.add(reply)
            if not reply.truncated:
                return reply, task
        raise TruncatedReplyError(
            f"the {where.ctx.stage} stage's {task.kind} reply from {where.provider}:{where.model} was cut "
            f"off at its output limit of {reply.output_limit or limit} tokens"
            + (f", after one at {limit}" if retried else "")
        )

    def _record(
        self,
        ctx: CallContext,
        key: str,
        provider: str,
        spend: _Spend,
        output: OutT | None,
        refusal: str | None,
    ) -> None:
        cost, known = spend.cost()
        self._ledger.put_call(
            CallRecord(
                run_id=ctx.run_id,
                call_key=key,
                provider=provider,
                model=spend.model,
                input_tokens=spend.input_tokens,
                output_tokens=spend.output_tokens,
                cache_read_tokens=spend.cache_read_tokens,
                cache_write_tokens=spend.cache_write_tokens,
                cost_usd=cost,
                price_known=known,
                output_json=output.model_dump_json() if output is not None else None,
                refusal=refusal,
                attempts=len(spend.replies),
            )
        )
        if provider != "offline":  # the offline reasoner is no model: no calls, tokens or dollars
            count("LlmCalls", len(spend.replies))
            count("InputTokens", spend.input_tokens)
            count("OutputTokens", spend.output_tokens)
            count("PromptCacheReadTokens", spend.cache_read_tokens)
            count("PromptCacheWriteTokens", spend.cache_write_tokens)
            count("CostUsd", cost)


def _naming(where: _Where, spend: _Spend, retry: str | None) -> AbstractContextManager[None]:
    """Name the provider's next request for this call (reasoning.base.CALL_HEADER): its key, and for
    a second or later attempt (a correction, a cut-off reply asked again) the attempt's number."""
    attempt = len(spend.replies) + 1
    retried = retry if attempt > 1 else None
    return naming_call(where.ctx.run_id, where.key, attempt, retried, where.ctx.step_name())


def _read(task: Task[OutT], reply: ProviderReply) -> tuple[OutT | None, str | None]:
    """(the output, what to correct): (None, why) for a reply that does not parse into the schema,
    (output, why) for one that parses but breaks a limit or the task's check, (output, None) when fine."""
    try:
        output = validate_reply(task, reply.content)
    except (ValidationError, ValueError) as err:
        return None, describe_validation_error(err)
    problems = task.problems(output)
    if problems:
        return output, "Your reply matched the schema, but: " + "; ".join(problems[:10])
    return output, None
