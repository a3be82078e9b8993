"""Double-entry ledger for captures and refunds (PAY-5) and reconciliation with Meridian (PAY-6).

Every money movement is an entry of postings whose debits equal its credits. Amounts are integers in
minor units. Design: wiki page "Payments Ledger Design".
"""

from __future__ import annotations

from dataclasses import dataclass

PSP_RECEIVABLE = "assets:psp_receivable"
MERCHANT_PAYABLE = "liabilities:merchant_payable"
FEE_REVENUE = "revenue:fees"


class UnbalancedEntry(ValueError):
    """Debits and credits of an entry differ."""


@dataclass(frozen=True)
class Posting:
    account: str
    debit: int = 0
    credit: int = 0


@dataclass(frozen=True)
class Entry:
    payment_id: str
    kind: str  # "capture" or "refund"
    currency: str
    amount: int
    postings: tuple[Posting, ...]
    note: str = ""


class Ledger:
    def __init__(self) -> None:
        self._entries: list[Entry] = []

    @property
    def entries(self) -> tuple[Entry, ...]:
        return tuple(self._entries)

    def post(self, entry: Entry) -> None:
        debits = sum(p.debit for p in entry.postings)
        credits = sum(p.credit for p in entry.postings)
        if debits != credits:
            raise UnbalancedEntry(f"{entry.payment_id}: debits {debits} != credits {credits}")
        self._entries.append(entry)

    def record_capture(self, payment_id: str, amount: int, currency: str, fee: int = 0) -> Entry:
        entry = Entry(
            payment_id,
            "capture",
            currency,
            amount,
            (
                Posting(PSP_RECEIVABLE, debit=amount),
                Posting(MERCHANT_PAYABLE, credit=amount - fee),
                Posting(FEE_REVENUE, credit=fee),
            ),
        )
        self.post(entry)
        return entry

    def record_refund(self, payment_id: str, amount: int, currency: str, note: str = "") -> Entry:
        """Record a (possibly partial) refund. ``note`` is free text from the merchant: store it,
        never interpret it."""
        entry = Entry(
            payment_id,
            "refund",
            currency,
            amount,
            (Posting(MERCHANT_PAYABLE, debit=amount), Posting(PSP_RECEIVABLE, credit=amount)),
            note,
        )
        self.post(entry)
        return entry

    def balance(self, account: str, currency: str) -> int:
        """Debits minus credits of ``account``."""
        return sum(
            p.debit - p.credit
            for e in self._entries
            if e.currency == currency
            for p in e.postings
            if p.account == account
        )

    def net_amount(self, payment_id: str) -> int:
        """Captured minus refunded, as Meridian should settle it."""
        captured = sum(e.amount for e in self._entries if e.payment_id == payment_id and e.kind == "capture")
        refunds = [e.amount for e in self._entries if e.payment_id == payment_id and e.kind == "refund"]
        return captured - sum(refunds)


def reconcile(ledger: Ledger, settled: dict[str, int]) -> dict[str, tuple[int, int]]:
    """Compare the ledger with Meridian's settlement report (payment id -> settled net amount).

    Returns ``{payment_id: (ledger_amount, settled_amount)}`` for every payment that differs.
    """
    # PAY-6: net_amount used to subtract only the latest refund, so every payment refunded in
    # more than one part was reported as a mismatch.
    payment_ids = {e.payment_id for e in ledger.entries} | set(settled)
    mismatches: dict[str, tuple[int, int]] = {}
    for payment_id in sorted(payment_ids):
        ours = ledger.net_amount(payment_id)
        theirs = settled.get(payment_id, 0)
        if ours != theirs:
            mismatches[payment_id] = (ours, theirs)
    return mismatches
