"""``devkb users``, ``devkb token`` and ``devkb permissions``: people and permissions
(docs/security.md), registered on the ``devkb`` app by :func:`register`."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from devkb.cli.context import fail, open_container
from devkb.container import shutdown
from devkb.errors import DevkbError

users_app = typer.Typer(help="Users of a server with accounts (the accounts file, DEVKB_ACCOUNTS_DB).")
token_app = typer.Typer(help="API tokens for scripts and MCP clients.")


def _password(from_stdin: bool) -> str | None:
    if from_stdin:
        return sys.stdin.readline().rstrip("\n")
    return typer.prompt("password", hide_input=True, confirmation_prompt=True) if sys.stdin.isatty() else None


@users_app.command("add")
def users_add(
    email: Annotated[str, typer.Argument(help="The user's e-mail (their sign-in name).")],
    role: Annotated[str, typer.Option(help="admin or member.")] = "member",
    name: Annotated[str, typer.Option(help="Display name.")] = "",
    password_stdin: Annotated[
        bool,
        typer.Option("--password-stdin", help="Read the password from stdin (else prompt; none: SSO only)."),
    ] = False,
) -> None:
    """Add a user. The first user turns accounts on: anonymous access ends."""
    c = open_container()
    try:
        user = c.accounts().create_user(email, name, role, _password(password_stdin))
    except DevkbError as e:
        fail(str(e))
    finally:
        shutdown(c)
    typer.echo(f"added {user.email} ({user.role})")


@users_app.command("list")
def users_list() -> None:
    """List the users."""
    c = open_container()
    try:
        for u in c.accounts().users():
            flags = " disabled" if u.disabled else ""
            typer.echo(f"{u.email}\t{u.role}\t{u.name}{flags}")
    finally:
        shutdown(c)


@users_app.command("disable")
def users_disable(email: Annotated[str, typer.Argument(help="The user's e-mail.")]) -> None:
    """Disable a user: their sessions and tokens stop working at once."""
    c = open_container()
    try:
        c.accounts().update_user(email, disabled=True)
    except LookupError:
        fail(f"no user {email!r}")
    finally:
        shutdown(c)
    typer.echo(f"disabled {email}")


@token_app.command("create")
def token_create(
    email: Annotated[str, typer.Argument(help="Whose token: it reads what this user may read.")],
    name: Annotated[str, typer.Option(help="What the token is for.")] = "script",
) -> None:
    """Print a new API token (send it as 'Authorization: Bearer <token>')."""
    c = open_container()
    try:
        secret, _ = c.accounts().create_token(email.strip().lower(), name)
    except LookupError:
        fail(f"no user {email!r} (devkb users list)")
    except DevkbError as e:
        fail(str(e))
    finally:
        shutdown(c)
    typer.echo(secret)


def permissions_sync() -> None:
    """Mirror the sources' permissions now (the server also does it on its own schedule)."""
    c = open_container()
    try:
        statuses = c.permission_sync().run_once()
    finally:
        shutdown(c)
    failed = False
    for st in statuses.values():
        typer.echo(f"{st.source}\t{st.state}\t{st.pairs} pairs\t{st.error or ''}")
        failed = failed or st.state != "ok"
    if not statuses:
        typer.echo("no source reports permissions")
    if failed:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add the commands to ``app``: ``permissions`` among its commands, ``users`` and ``token`` as groups."""
    app.command("permissions")(permissions_sync)
    app.add_typer(users_app, name="users")
    app.add_typer(token_app, name="token")
