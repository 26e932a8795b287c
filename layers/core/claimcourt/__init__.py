"""claimcourt: calibrated, source-cited claim adjudication by retrieval-augmented adversarial debate."""

__version__ = "0.1.0"
