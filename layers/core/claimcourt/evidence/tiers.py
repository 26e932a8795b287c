"""T1/T2 tiering: every rule in one place.

T1: primary, government, regulator, intergovernmental, peer-reviewed or preprint-of-record sources.
T2: everything else (news, encyclopedias, blogs, company marketing).
"""

from __future__ import annotations

from urllib.parse import urlparse

from claimcourt.models import Tier

T1_SUFFIXES = (".gov", ".mil", ".gov.uk", ".gov.au", ".gc.ca", ".europa.eu", ".int", ".edu", ".ac.uk")
T1_DOMAINS = frozenset(
    {
        # regulators and statistics offices
        "sec.gov",
        "fda.gov",
        "ema.europa.eu",
        "ons.gov.uk",
        "bls.gov",
        "census.gov",
        "eurostat.ec.europa.eu",
        # intergovernmental and scientific bodies
        "who.int",
        "ipcc.ch",
        "un.org",
        "worldbank.org",
        "imf.org",
        "oecd.org",
        "wmo.int",
        "noaa.gov",
        "nasa.gov",
        # peer-reviewed publishers, indexes and preprint servers of record
        "nature.com",
        "science.org",
        "sciencedirect.com",
        "springer.com",
        "link.springer.com",
        "wiley.com",
        "onlinelibrary.wiley.com",
        "thelancet.com",
        "nejm.org",
        "bmj.com",
        "jamanetwork.com",
        "pnas.org",
        "cell.com",
        "plos.org",
        "journals.plos.org",
        "pubmed.ncbi.nlm.nih.gov",
        "ncbi.nlm.nih.gov",
        "arxiv.org",
        "doi.org",
        "agupubs.onlinelibrary.wiley.com",
        "iopscience.iop.org",
    }
)


def tier_for(url: str) -> Tier:
    host = (urlparse(url).hostname or "").lower().removeprefix("www.")
    if host in T1_DOMAINS or any(host == d or host.endswith("." + d) for d in T1_DOMAINS):
        return "T1"
    if host.endswith(T1_SUFFIXES):
        return "T1"
    return "T2"
