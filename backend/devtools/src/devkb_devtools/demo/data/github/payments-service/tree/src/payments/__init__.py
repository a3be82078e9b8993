"""payments-service: payment orchestration between merchants, the ledger and the Meridian PSP."""

__version__ = "2026.6.0"
