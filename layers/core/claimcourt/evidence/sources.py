"""The web search source the settings choose, built (each imports its SDK or the page reader only
here, so a function that searches another way never loads it)."""

from __future__ import annotations

from claimcourt.errors import ConfigurationError
from claimcourt.evidence.base import EvidenceSource
from claimcourt.models import SearchName
from claimcourt.settings import Settings


def web_search(settings: Settings, search: SearchName) -> EvidenceSource:
    if search == "anthropic" and settings.anthropic_api_key is not None:
        from claimcourt.evidence.web_search import AnthropicWebSearch

        return AnthropicWebSearch(
            api_key=settings.anthropic_api_key.get_secret_value(),
            base_url=settings.anthropic_base_url,
            model=settings.anthropic_model,
            max_retries=settings.provider_max_retries,
            timeout=settings.provider_timeout_s,
        )
    if search == "openai" and settings.has_key("openai"):
        from claimcourt.evidence.openai_search import OpenAIWebSearch

        key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else None
        return OpenAIWebSearch(
            key,
            base_url=settings.openai_base_url,
            model=settings.openai_model,
            max_retries=settings.provider_max_retries,
            timeout=settings.provider_timeout_s,
        )
    if search == "searxng" and settings.searxng_url is not None:
        from claimcourt.evidence.pages import PageReader
        from claimcourt.evidence.searxng import SearxngSearch

        pages = PageReader(
            timeout_s=settings.page_timeout_s,
            max_bytes=settings.max_page_bytes,
            private=settings.fetch_private_pages,
        )
        return SearxngSearch(settings.searxng_url, pages=pages, timeout_s=settings.provider_timeout_s)
    raise ConfigurationError(f"the {search} web search is not configured")
