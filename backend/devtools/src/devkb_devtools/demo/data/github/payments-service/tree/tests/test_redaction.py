from payments.redaction import mask_pan, redact


def test_card_numbers_are_masked():
    # Meridian's documented test card; never use a real one.
    assert mask_pan("card 4242 4242 4242 4242 declined") == "card ************4242 declined"


def test_non_card_numbers_are_kept():
    assert mask_pan("order 1234567890123") == "order 1234567890123"


def test_sensitive_keys_are_redacted():
    body = {"amount": 1999, "card": {"number": "4242424242424242", "cvc": "123"}}
    assert redact(body) == {"amount": 1999, "card": {"number": "[REDACTED]", "cvc": "[REDACTED]"}}
