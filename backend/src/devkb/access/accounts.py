"""``AccountStore``: users, sign-in sessions, API tokens, the permissions mirrored from the
sources (memberships) and the documents shared with everyone — one SQLite file
(``DEVKB_ACCOUNTS_DB``, default ``<data dir>/accounts.db``).

Secrets are never stored: passwords as Argon2id hashes (argon2-cffi's defaults), session and API
tokens as SHA-256 digests of 32 random bytes (they are not guessable, so a fast digest is enough
and lets every request be checked with one indexed lookup). Revoking a session or a token takes
effect on the next request.
"""

from __future__ import annotations

import hashlib
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from devkb.errors import DevkbError, InvalidQueryError

ROLES = ("admin", "member")
TOKEN_PREFIX = "dkb_"
SESSION_PREFIX = "dks_"
MIN_PASSWORD = 8

_SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
  email TEXT PRIMARY KEY, name TEXT NOT NULL, role TEXT NOT NULL,
  password_hash TEXT, oidc_subject TEXT UNIQUE, created_at REAL NOT NULL, disabled INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS sessions (
  id TEXT PRIMARY KEY, token_hash TEXT NOT NULL UNIQUE, email TEXT NOT NULL, method TEXT NOT NULL,
  created_at REAL NOT NULL, expires_at REAL NOT NULL, last_seen REAL NOT NULL, revoked INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS sessions_email ON sessions(email);
CREATE TABLE IF NOT EXISTS api_tokens (
  id TEXT PRIMARY KEY, token_hash TEXT NOT NULL UNIQUE, email TEXT NOT NULL, name TEXT NOT NULL,
  created_at REAL NOT NULL, last_used REAL, revoked INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS api_tokens_email ON api_tokens(email);
CREATE TABLE IF NOT EXISTS memberships (source TEXT NOT NULL, principal TEXT NOT NULL, email TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS memberships_email ON memberships(email);
CREATE INDEX IF NOT EXISTS memberships_source ON memberships(source);
CREATE TABLE IF NOT EXISTS shared (document_id TEXT PRIMARY KEY, shared_by TEXT NOT NULL, shared_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS reviewers (scope TEXT NOT NULL, email TEXT NOT NULL, PRIMARY KEY (scope, email));
"""

EVERY_MEMBER = "*"


class UserExistsError(DevkbError):
    """A user with that e-mail exists already."""  # a membership row's e-mail when the source grants a scope to everybody


@dataclass(frozen=True)
class User:
    email: str
    name: str
    role: str
    created_at: float
    disabled: bool = False
    has_password: bool = False
    oidc_subject: str | None = None


@dataclass(frozen=True)
class SessionInfo:
    id: str
    email: str
    method: str  # password | oidc
    created_at: float
    expires_at: float
    last_seen: float
    revoked: bool


@dataclass(frozen=True)
class TokenInfo:
    id: str
    email: str
    name: str
    created_at: float
    last_used: float | None
    revoked: bool


def normalize_email(email: str) -> str:
    value = (email or "").strip().lower()
    if "@" not in value or value.startswith("@") or value.endswith("@") or len(value) > 254 or " " in value:
        raise InvalidQueryError(f"not an e-mail address: {email!r}")
    return value


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


class AccountStore:
    def __init__(self, path: Path | str, session_days: float = 14.0) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.session_seconds = session_days * 86400
        self._hasher = PasswordHasher()
        self._lock = threading.RLock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA busy_timeout=30000")
        self._db.executescript(_SCHEMA)
        self._users_cached: tuple[float, int] = (-1.0, 0)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _one(self, sql: str, args: tuple[Any, ...] = ()) -> tuple[Any, ...] | None:
        with self._lock:
            row: tuple[Any, ...] | None = self._db.execute(sql, args).fetchone()
            return row

    def _all(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return list(self._db.execute(sql, args).fetchall())

    # -- users ------------------------------------------------------------------------------
    def user_count(self) -> int:
        """How many users exist (cached for a second: asked on every request)."""
        now = time.monotonic()
        checked, count = self._users_cached
        if now - checked < 1.0:
            return count
        row = self._one("SELECT count(*) FROM users")
        count = int(row[0]) if row else 0
        self._users_cached = (now, count)
        return count

    def _forget_count(self) -> None:
        self._users_cached = (-1.0, 0)

    @staticmethod
    def _user(row: tuple[Any, ...]) -> User:
        email, name, role, pw, subject, created, disabled = row
        return User(
            email=str(email),
            name=str(name),
            role=str(role),
            created_at=float(created),
            disabled=bool(disabled),
            has_password=pw is not None,
            oidc_subject=None if subject is None else str(subject),
        )

    _USER_COLS = "email, name, role, password_hash, oidc_subject, created_at, disabled"

    def user(self, email: str) -> User | None:
        row = self._one(f"SELECT {self._USER_COLS} FROM users WHERE email = ?", (email.strip().lower(),))
        return None if row is None else self._user(row)

    def users(self) -> list[User]:
        return [self._user(r) for r in self._all(f"SELECT {self._USER_COLS} FROM users ORDER BY email")]

    def create_user(
        self, email: str, name: str = "", role: str = "member", password: str | None = None
    ) -> User:
        email = normalize_email(email)
        if role not in ROLES:
            raise InvalidQueryError(f"unknown role {role!r}; expected one of {', '.join(ROLES)}")
        hashed = self._hash(password) if password is not None else None
        with self._tx() as db:
            if db.execute("SELECT 1 FROM users WHERE email = ?", (email,)).fetchone():
                raise UserExistsError(f"a user {email} exists already")
            db.execute(
                "INSERT INTO users (email, name, role, password_hash, created_at) VALUES (?, ?, ?, ?, ?)",
                (email, name.strip() or email.split("@", 1)[0], role, hashed, time.time()),
            )
        self._forget_count()
        found = self.user(email)
        assert found is not None
        return found

    def update_user(
        self, email: str, *, role: str | None = None, disabled: bool | None = None, name: str | None = None
    ) -> User:
        email = email.strip().lower()
        if role is not None and role not in ROLES:
            raise InvalidQueryError(f"unknown role {role!r}; expected one of {', '.join(ROLES)}")
        with self._tx() as db:
            if not db.execute("SELECT 1 FROM users WHERE email = ?", (email,)).fetchone():
                raise LookupError(email)
            if role is not None:
                db.execute("UPDATE users SET role = ? WHERE email = ?", (role, email))
            if name is not None:
                db.execute("UPDATE users SET name = ? WHERE email = ?", (name.strip() or email, email))
            if disabled is not None:
                db.execute("UPDATE users SET disabled = ? WHERE email = ?", (int(disabled), email))
                if disabled:  # a disabled user is signed out everywhere
                    db.execute("UPDATE sessions SET revoked = 1 WHERE email = ?", (email,))
                    db.execute("UPDATE api_tokens SET revoked = 1 WHERE email = ?", (email,))
        found = self.user(email)
        assert found is not None
        return found

    def set_password(self, email: str, password: str) -> None:
        hashed = self._hash(password)
        with self._tx() as db:
            if not db.execute("UPDATE users SET password_hash = ? WHERE email = ?", (hashed, email)).rowcount:
                raise LookupError(email)

    def _hash(self, password: str) -> str:
        if len(password) < MIN_PASSWORD:
            raise InvalidQueryError(f"a password needs at least {MIN_PASSWORD} characters")
        return self._hasher.hash(password)

    def check_password(self, email: str, password: str) -> User | None:
        """The user when the password is theirs and they are enabled; else None (the same
        amount of Argon2 work either way, so a probe cannot tell unknown e-mails apart)."""
        row = self._one(
            "SELECT password_hash FROM users WHERE email = ? AND disabled = 0",
            ((email or "").strip().lower(),),
        )
        stored = str(row[0]) if row and row[0] is not None else None
        try:
            if stored is None:
                self._hasher.verify(_DUMMY_HASH, password + "\x00")
                return None
            self._hasher.verify(stored, password)
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return None
        if self._hasher.check_needs_rehash(stored):
            self.set_password(email.strip().lower(), password)
        return self.user(email)

    def oidc_user(self, subject: str, email: str, name: str, default_role: str = "member") -> User:
        """The user of an OpenID Connect sign-in: found by subject, else by e-mail (and linked),
        else created as ``default_role``."""
        email = normalize_email(email)
        with self._tx() as db:
            row = db.execute("SELECT email FROM users WHERE oidc_subject = ?", (subject,)).fetchone()
            if row is None:
                if db.execute("SELECT 1 FROM users WHERE email = ?", (email,)).fetchone():
                    db.execute("UPDATE users SET oidc_subject = ? WHERE email = ?", (subject, email))
                else:
                    db.execute(
                        "INSERT INTO users (email, name, role, oidc_subject, created_at) VALUES (?, ?, ?, ?, ?)",
                        (email, name or email.split("@", 1)[0], default_role, subject, time.time()),
                    )
                row = (email,)
        self._forget_count()
        found = self.user(str(row[0]))
        assert found is not None
        return found

    # -- sessions ---------------------------------------------------------------------------
    def create_session(self, email: str, method: str = "password") -> tuple[str, SessionInfo]:
        """A new session: the secret for the cookie (shown once) and its record."""
        secret = SESSION_PREFIX + secrets.token_urlsafe(32)
        sid = secrets.token_hex(8)
        now = time.time()
        with self._tx() as db:
            db.execute(
                "INSERT INTO sessions (id, token_hash, email, method, created_at, expires_at, last_seen) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (sid, _digest(secret), email, method, now, now + self.session_seconds, now),
            )
        info = self.session(sid)
        assert info is not None
        return secret, info

    @staticmethod
    def _session(row: tuple[Any, ...]) -> SessionInfo:
        sid, email, method, created, expires, seen, revoked = row
        return SessionInfo(
            str(sid),
            str(email),
            str(method),
            float(created),
            float(expires),
            float(seen),
            bool(revoked),
        )

    _SESSION_COLS = "id, email, method, created_at, expires_at, last_seen, revoked"

    def session(self, session_id: str) -> SessionInfo | None:
        row = self._one(f"SELECT {self._SESSION_COLS} FROM sessions WHERE id = ?", (session_id,))
        return None if row is None else self._session(row)

    def sessions(self, email: str) -> list[SessionInfo]:
        rows = self._all(
            f"SELECT {self._SESSION_COLS} FROM sessions WHERE email = ? AND revoked = 0 AND expires_at > ? "
            "ORDER BY last_seen DESC",
            (email, time.time()),
        )
        return [self._session(r) for r in rows]

    def session_user(self, secret: str) -> tuple[User, SessionInfo] | None:
        """The enabled user of a live session secret, or None."""
        if not secret.startswith(SESSION_PREFIX):
            return None
        row = self._one(f"SELECT {self._SESSION_COLS} FROM sessions WHERE token_hash = ?", (_digest(secret),))
        if row is None:
            return None
        info = self._session(row)
        now = time.time()
        if info.revoked or info.expires_at <= now:
            return None
        found = self.user(info.email)
        if found is None or found.disabled:
            return None
        if now - info.last_seen > 60:
            with self._tx() as db:
                db.execute("UPDATE sessions SET last_seen = ? WHERE id = ?", (now, info.id))
        return found, info

    def revoke_session(self, session_id: str, email: str | None = None) -> bool:
        """Revoke one session (only ``email``'s when given)."""
        with self._tx() as db:
            if email is None:
                cur = db.execute(
                    "UPDATE sessions SET revoked = 1 WHERE id = ? AND revoked = 0", (session_id,)
                )
            else:
                cur = db.execute(
                    "UPDATE sessions SET revoked = 1 WHERE id = ? AND email = ? AND revoked = 0",
                    (session_id, email),
                )
            return cur.rowcount > 0

    # -- API tokens -------------------------------------------------------------------------
    def create_token(self, email: str, name: str) -> tuple[str, TokenInfo]:
        """A new API token for ``email``: the secret (shown once) and its record."""
        name = (name or "").strip()
        if not name or len(name) > 100:
            raise InvalidQueryError("a token needs a name of 1 to 100 characters")
        if self.user(email) is None:
            raise LookupError(email)
        secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
        tid = secrets.token_hex(8)
        with self._tx() as db:
            db.execute(
                "INSERT INTO api_tokens (id, token_hash, email, name, created_at) VALUES (?, ?, ?, ?, ?)",
                (tid, _digest(secret), email, name, time.time()),
            )
        info = self.token(tid)
        assert info is not None
        return secret, info

    @staticmethod
    def _token(row: tuple[Any, ...]) -> TokenInfo:
        tid, email, name, created, used, revoked = row
        return TokenInfo(
            str(tid),
            str(email),
            str(name),
            float(created),
            None if used is None else float(used),
            bool(revoked),
        )

    _TOKEN_COLS = "id, email, name, created_at, last_used, revoked"

    def token(self, token_id: str) -> TokenInfo | None:
        row = self._one(f"SELECT {self._TOKEN_COLS} FROM api_tokens WHERE id = ?", (token_id,))
        return None if row is None else self._token(row)

    def tokens(self, email: str) -> list[TokenInfo]:
        rows = self._all(
            f"SELECT {self._TOKEN_COLS} FROM api_tokens WHERE email = ? AND revoked = 0 ORDER BY created_at DESC",
            (email,),
        )
        return [self._token(r) for r in rows]

    def token_user(self, secret: str) -> tuple[User, TokenInfo] | None:
        if not secret.startswith(TOKEN_PREFIX):
            return None
        row = self._one(f"SELECT {self._TOKEN_COLS} FROM api_tokens WHERE token_hash = ?", (_digest(secret),))
        if row is None:
            return None
        info = self._token(row)
        if info.revoked:
            return None
        found = self.user(info.email)
        if found is None or found.disabled:
            return None
        now = time.time()
        if info.last_used is None or now - info.last_used > 60:
            with self._tx() as db:
                db.execute("UPDATE api_tokens SET last_used = ? WHERE id = ?", (now, info.id))
        return found, info

    def revoke_token(self, token_id: str, email: str | None = None) -> bool:
        with self._tx() as db:
            if email is None:
                cur = db.execute(
                    "UPDATE api_tokens SET revoked = 1 WHERE id = ? AND revoked = 0", (token_id,)
                )
            else:
                cur = db.execute(
                    "UPDATE api_tokens SET revoked = 1 WHERE id = ? AND email = ? AND revoked = 0",
                    (token_id, email),
                )
            return cur.rowcount > 0

    # -- permissions mirrored from the sources -----------------------------------------------
    def version(self) -> int:
        row = self._one("SELECT value FROM meta WHERE key = 'permissions_version'")
        return int(str(row[0])) if row else 0

    def _bump(self, db: sqlite3.Connection) -> None:
        db.execute(
            "INSERT INTO meta (key, value) VALUES ('permissions_version', '1') ON CONFLICT(key) "
            "DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)"
        )

    def replace_memberships(self, source: str, rows: Iterable[tuple[str, str]]) -> int:
        """Replace what ``source`` grants: ``(principal, email)`` pairs (``email`` ``*`` = every
        member), in one transaction. Returns the number of pairs."""
        pairs = sorted({(p, e if e == EVERY_MEMBER else e.strip().lower()) for p, e in rows})
        with self._tx() as db:
            old = db.execute(
                "SELECT principal, email FROM memberships WHERE source = ? ORDER BY principal, email",
                (source,),
            ).fetchall()
            if [tuple(r) for r in old] == pairs:
                return len(pairs)
            db.execute("DELETE FROM memberships WHERE source = ?", (source,))
            db.executemany(
                "INSERT INTO memberships (source, principal, email) VALUES (?, ?, ?)",
                [(source, p, e) for p, e in pairs],
            )
            self._bump(db)
        return len(pairs)

    def memberships(self, email: str) -> set[str]:
        """The source principals (scopes, groups, accounts) mapped to ``email``."""
        rows = self._all(
            "SELECT DISTINCT principal FROM memberships WHERE email = ? OR email = ?",
            (email.strip().lower(), EVERY_MEMBER),
        )
        return {str(r[0]) for r in rows}

    def membership_counts(self) -> dict[str, int]:
        return {
            str(s): int(n) for s, n in self._all("SELECT source, count(*) FROM memberships GROUP BY source")
        }

    # -- reviewers of team memories and verified answers, per project or space -----------------
    def reviewers(self) -> dict[str, list[str]]:
        """``project:KEY`` / ``space:KEY`` → the e-mails an admin named as its reviewers."""
        out: dict[str, list[str]] = {}
        for scope, email in self._all("SELECT scope, email FROM reviewers ORDER BY scope, email"):
            out.setdefault(str(scope), []).append(str(email))
        return out

    def set_reviewers(self, scope: str, emails: Iterable[str]) -> list[str]:
        """Replace the reviewers of ``scope`` (an empty list removes them), in one transaction."""
        people = sorted({e.strip().lower() for e in emails if e.strip()})
        with self._tx() as db:
            db.execute("DELETE FROM reviewers WHERE scope = ?", (scope,))
            db.executemany("INSERT INTO reviewers (scope, email) VALUES (?, ?)", [(scope, e) for e in people])
        return people

    # -- shared with everyone -----------------------------------------------------------------
    def set_shared(self, document_ids: Iterable[str], shared: bool, by: str) -> int:
        ids = sorted(set(document_ids))
        with self._tx() as db:
            if shared:
                n = sum(
                    db.execute(
                        "INSERT OR IGNORE INTO shared (document_id, shared_by, shared_at) VALUES (?, ?, ?)",
                        (i, by, time.time()),
                    ).rowcount
                    for i in ids
                )
            else:
                n = sum(db.execute("DELETE FROM shared WHERE document_id = ?", (i,)).rowcount for i in ids)
            if n:
                self._bump(db)
        return n

    def shared_ids(self) -> set[str]:
        return {str(r[0]) for r in self._all("SELECT document_id FROM shared")}


_DUMMY_HASH = PasswordHasher().hash("devkb: not a password of anyone")
