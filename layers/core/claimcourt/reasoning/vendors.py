"""The vendors served over the OpenAI Chat Completions protocol, and where each departs from OpenAI's.

Each fact below is what the vendor's documentation said when it was read (2026-11, through the docs
search); where the documentation is silent, the safe choice is taken and the comment says so.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Vendor:
    """One vendor's OpenAI-compatible endpoint and what its Chat Completions accepts."""

    name: str  # the provider name in a line-up or role setting: "gemini:gemini-2.5-flash"
    base_url: str | None  # None: the SDK's own (OpenAI, or OPENAI_BASE_URL)
    key_variable: str  # where the key is read from, locally and in the provider keys secret
    # The name of the reply's token limit in the request body.
    output_limit_field: str = "max_completion_tokens"
    # Whether the reply schema may carry minItems/maxItems (the run's list limits). Without them the
    # limits are still checked on the reply (Task.problems) and a wrong count is asked again once.
    schema_array_limits: bool = True
    # A prefix the vendor may put before the model's name in a reply ("models/gemini-2.5-flash").
    served_model_prefix: str = ""


OPENAI = Vendor("openai", None, "OPENAI_API_KEY")

# Gemini (ai.google.dev/gemini-api/docs/openai, "OpenAI compatibility"): the OpenAI SDK with this base
# URL and a Gemini API key as the Bearer token. Structured output: the page's own example passes a
# pydantic model to `chat.completions.parse`, i.e. a strict `json_schema` response_format, as we send.
# `reasoning_effort` maps to Gemini's thinking level or budget; we send none, so each model thinks as it
# does by default. Unknown request fields are refused (400 INVALID_ARGUMENT, "Unknown name ... Cannot
# find field", as users report for frequency_penalty and extra fields). The page names `max_tokens`;
# it is silent on `max_completion_tokens`, so the older name is sent (the safe choice: every
# Chat Completions server reads it). Whether a reply's `model` keeps the API's "models/" prefix is not
# documented either: it is stripped before pricing. Cached prompt tokens (implicit caching on 2.5 and
# later) come in usage.prompt_tokens_details.cached_tokens where reported; absent, the prompt is billed
# at the full input rate (an overestimate, never an underestimate).
GEMINI = Vendor(
    "gemini",
    "https://generativelanguage.googleapis.com/v1beta/openai/",
    "GEMINI_API_KEY",
    output_limit_field="max_tokens",
    served_model_prefix="models/",
)

# xAI (docs.x.ai, "Models and Pricing" and "Structured Outputs"): base URL https://api.x.ai/v1, Bearer
# key. Its reasoning models (grok-4 and later, grok-3-mini) refuse presence_penalty, frequency_penalty
# and stop with an error, and grok-4 refuses reasoning_effort: none of them is ever sent. Structured
# outputs: `response_format` json_schema over "a practical subset of JSON Schema" whose supported
# keywords do not list minItems/maxItems (and users report 4xx/502 refusals of them in schemas), so
# the list limits are left out of the schema and checked on the reply instead. `max_completion_tokens`
# is the documented limit for grok-4. Reasoning tokens are reported beside completion_tokens, not in
# them (usage.completion_tokens_details.reasoning_tokens; total_tokens counts both): the provider
# bills what total_tokens says was written. Cached prompt tokens: usage.prompt_tokens_details.
XAI = Vendor("xai", "https://api.x.ai/v1", "XAI_API_KEY", schema_array_limits=False)

VENDORS = {v.name: v for v in (OPENAI, GEMINI, XAI)}
