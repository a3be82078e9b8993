import json

import pytest

from payments.webhooks import PaymentState, SignatureError, apply_event, sign, verify_signature

SECRET = "whsec_test_3f9a"
NOW = 1_780_000_000


def test_valid_signature_is_accepted():
    raw = json.dumps({"type": "payment.captured", "id": "evt_1"}, separators=(",", ":")).encode()
    event = verify_signature(raw, sign(raw, SECRET, NOW), SECRET, now=NOW)
    assert event["id"] == "evt_1"


def test_tampered_body_is_rejected():
    raw = b'{"type":"payment.captured","amount":1999}'
    header = sign(raw, SECRET, NOW)
    with pytest.raises(SignatureError):
        verify_signature(raw.replace(b"1999", b"9999"), header, SECRET, now=NOW)


def test_old_timestamp_is_rejected():
    raw = b'{"type":"payment.captured"}'
    with pytest.raises(SignatureError):
        verify_signature(raw, sign(raw, SECRET, NOW - 3600), SECRET, now=NOW)


def test_non_ascii_payload_verifies():
    # PAY-10: merchant "Café Zürich" never got a valid signature.
    raw = '{"type":"payment.captured","merchant":"Café Zürich"}'.encode()
    assert verify_signature(raw, sign(raw, SECRET, NOW), SECRET, now=NOW)["merchant"] == "Café Zürich"


def test_late_capture_does_not_overwrite_refund():
    # PAY-17
    state = apply_event(None, {"type": "payment.captured", "sequence": 2})
    state = apply_event(state, {"type": "payment.refunded", "sequence": 3})
    state = apply_event(state, {"type": "payment.captured", "sequence": 2})
    assert state == PaymentState(status="refunded", sequence=3)
