"""Request and response bodies of ``/auth`` and ``/admin`` (people and permissions)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from devkb.access.accounts import SessionInfo, TokenInfo, User


class UserOut(BaseModel):
    email: str
    name: str
    role: str
    disabled: bool = False
    sso: bool = False

    @staticmethod
    def of(user: User) -> UserOut:
        return UserOut(
            email=user.email,
            name=user.name,
            role=user.role,
            disabled=user.disabled,
            sso=user.oidc_subject is not None,
        )


class OidcOut(BaseModel):
    name: str
    login_url: str = "/auth/oidc/login"


class DemoUserOut(BaseModel):
    email: str
    password: str
    role: str
    sees: str


class AuthStatus(BaseModel):
    accounts: bool = Field(
        description="Whether accounts exist (then every API route needs a signed-in user)."
    )
    user: UserOut | None = None
    oidc: OidcOut | None = None
    demo_users: list[DemoUserOut] = Field(
        default_factory=list, description="The demo workspace's users (demo only)."
    )


class LoginIn(BaseModel):
    email: str = Field(min_length=3, max_length=254)
    password: str = Field(min_length=1, max_length=1024)


class TokenLoginIn(LoginIn):
    name: str = Field("script", min_length=1, max_length=100, description="What the token is for.")


class LoginOut(BaseModel):
    user: UserOut


class SessionOut(BaseModel):
    id: str
    method: str
    created_at: float
    expires_at: float
    last_seen: float
    current: bool = False

    @staticmethod
    def of(info: SessionInfo, current: str | None) -> SessionOut:
        return SessionOut(
            id=info.id,
            method=info.method,
            created_at=info.created_at,
            expires_at=info.expires_at,
            last_seen=info.last_seen,
            current=info.id == current,
        )


class TokenIn(BaseModel):
    name: str = Field(min_length=1, max_length=100)


class TokenOut(BaseModel):
    id: str
    name: str
    created_at: float
    last_used: float | None = None

    @staticmethod
    def of(info: TokenInfo) -> TokenOut:
        return TokenOut(id=info.id, name=info.name, created_at=info.created_at, last_used=info.last_used)


class TokenCreated(TokenOut):
    token: str = Field(description="The secret: shown once, send it as 'Authorization: Bearer <token>'.")


EMAIL_PATTERN = r"^[^@ \t\r\n]+@[^@ \t\r\n]+$"  # ASCII whitespace only: JSON Schema and Python differ on \s


class UserIn(BaseModel):
    email: str = Field(min_length=3, max_length=254, pattern=EMAIL_PATTERN)
    name: str = Field("", max_length=200)
    role: Literal["admin", "member"] = "member"
    password: str | None = Field(None, min_length=8, max_length=1024)


class UserPatch(BaseModel):
    name: str | None = Field(None, max_length=200)
    role: Literal["admin", "member"] | None = None
    disabled: bool | None = None
    password: str | None = Field(None, min_length=8, max_length=1024)


class SharedIn(BaseModel):
    document_ids: list[str] = Field(min_length=1, max_length=1000)
    shared: bool = True


class SharedOut(BaseModel):
    changed: int
    shared: list[str]


class PermissionSourceOut(BaseModel):
    source: str
    state: str
    last_run: str | None = None
    last_success: str | None = None
    pairs: int = 0
    error: str | None = None
    seconds: float = 0.0


class PermissionsOut(BaseModel):
    interval_minutes: float
    sources: list[PermissionSourceOut]
