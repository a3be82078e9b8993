import pytest

from payments.ledger import (
    MERCHANT_PAYABLE,
    PSP_RECEIVABLE,
    Entry,
    Ledger,
    Posting,
    UnbalancedEntry,
    reconcile,
)


def test_capture_is_balanced():
    ledger = Ledger()
    ledger.record_capture("pay_1", 10_000, "EUR", fee=150)
    assert ledger.balance(PSP_RECEIVABLE, "EUR") == 10_000
    assert ledger.balance(MERCHANT_PAYABLE, "EUR") == -9_850


def test_unbalanced_entry_is_rejected():
    with pytest.raises(UnbalancedEntry):
        Ledger().post(Entry("pay_1", "capture", "EUR", 100, (Posting(PSP_RECEIVABLE, debit=100),)))


def test_reconcile_reports_mismatch():
    ledger = Ledger()
    ledger.record_capture("pay_1", 5_000, "EUR")
    assert reconcile(ledger, {"pay_1": 4_000}) == {"pay_1": (5_000, 4_000)}


def test_partial_refunds_reconcile():
    # PAY-6: two partial refunds used to look like a mismatch of the first refund's amount.
    ledger = Ledger()
    ledger.record_capture("pay_1", 10_000, "EUR")
    ledger.record_refund("pay_1", 2_500, "EUR")
    ledger.record_refund("pay_1", 1_500, "EUR")
    assert reconcile(ledger, {"pay_1": 6_000}) == {}
