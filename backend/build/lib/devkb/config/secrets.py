"""The configured secret values and a masker for them.

``SecretStr`` keeps secrets out of reprs and serialisation; this module is the second line of
defence for text devkb does not write itself — an upstream error message that echoes a token, a
traceback that quotes a URL. The container builds one :class:`SecretMasker` from the settings'
``SecretStr`` fields and the sources' ``token_env`` variables; the API masks every response body
and log record with it, and a failed sync masks its error before storing it.
"""

from __future__ import annotations

import logging
import os
import traceback
from collections.abc import Callable, Iterable
from typing import Any

from devkb.config.settings import Settings
from devkb.config.sources_file import SourceConfig

MASK_CHAR = "*"
MIN_SECRET_LENGTH = 6  # shorter values would mask ordinary words


def secret_values(settings: Settings, token_envs: Iterable[str | None] = ()) -> list[str]:
    """Every configured secret value (``SecretStr`` settings and the named environment variables),
    longest first."""
    values: set[str] = set()
    for name in type(settings).model_fields:
        value = getattr(settings, name)
        if hasattr(value, "get_secret_value"):
            values.add(value.get_secret_value())
    for env in token_envs:
        if env and os.environ.get(env):
            values.add(os.environ[env])
    return sorted((v for v in values if len(v) >= MIN_SECRET_LENGTH), key=len, reverse=True)


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


class SecretMasker:
    """Replaces each secret with as many ``*`` as it has bytes (a Content-Length stays right)."""

    def __init__(self, secrets: Iterable[str]) -> None:
        self.secrets = sorted({s for s in secrets if len(s) >= MIN_SECRET_LENGTH}, key=len, reverse=True)
        self._bytes = [(_utf8(s), MASK_CHAR.encode() * len(_utf8(s))) for s in self.secrets]

    def __bool__(self) -> bool:
        return bool(self.secrets)

    def text(self, value: str) -> str:
        for s in self.secrets:
            if s in value:
                value = value.replace(s, MASK_CHAR * len(s))
        return value

    def data(self, value: bytes) -> bytes:
        for s, masked in self._bytes:
            if s in value:
                value = value.replace(s, masked)
        return value


def masker_for(settings: Settings, sources: Callable[[], list[SourceConfig]]) -> SecretMasker:
    """The masker of this configuration; ``sources`` is asked only when a sources file is set (the
    demo workspace has no tokens, and asking would start its emulators)."""
    envs: list[str | None] = []
    if settings.sources_file is not None:
        try:
            envs = [c.token_env for c in sources()]
        except Exception:  # an invalid sources file is reported where sources are used
            envs = []
    return SecretMasker(secret_values(settings, envs))


_active: list[SecretMasker] = []


def install_log_masking(masker: SecretMasker) -> None:
    """Mask secrets in every log record this process creates from now on: the message with its
    arguments, and the formatted traceback. Installing again replaces the secrets, not the hook."""
    first = not _active
    _active[:] = [masker]
    if not first:
        return
    previous = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        m = _active[0]
        if not m:
            return record
        try:
            message = record.getMessage()
        except Exception:  # a broken format string is reported by logging itself
            return record
        masked = m.text(message)
        if masked != message:
            record.msg, record.args = masked, None
        if record.exc_info and record.exc_info[1] is not None:
            text = "".join(traceback.format_exception(*record.exc_info)).rstrip("\n")
            if m.text(text) != text:
                record.exc_text = m.text(text)
        return record

    logging.setLogRecordFactory(factory)
