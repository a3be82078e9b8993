"""``devkb upload``: files into the ``uploads`` source from a shell, checked as the API checks
them (type, size, conversion limits, quota), registered on the ``devkb`` app by :func:`register`.
Exit 2 with the reason for a file refused."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from devkb.cli.context import fail, open_container
from devkb.container import prepare_store, shutdown
from devkb.errors import ConfigurationError
from devkb.sources.uploads import UploadError


def upload(
    files: Annotated[list[Path], typer.Argument(help="The files to upload.")],
    as_user: Annotated[
        str, typer.Option("--as", help="Upload as this user (the upload is private to them).")
    ] = "operator",
) -> None:
    """Upload files: each is checked, stored and indexed, private to its uploader."""
    c = open_container()
    refused = 0
    try:
        prepare_store(c)
        ingest = c.uploads()
        email = as_user.strip().lower()
        admin = email == "operator"
        if not admin:
            user = c.accounts().user(email)
            if user is None:
                fail(f"no user {as_user!r} (devkb users list)")
            admin = user.role == "admin"
        for path in files:
            try:
                data = path.read_bytes()
            except OSError as e:
                typer.secho(f"error: {path}: {e.strerror or e}", fg=typer.colors.RED, err=True)
                refused += 1
                continue
            try:
                done = ingest.ingest(path.name, data, email, admin)
            except UploadError as e:
                typer.secho(f"error: {path}: {e} ({e.status})", fg=typer.colors.RED, err=True)
                refused += 1
                continue
            typer.echo(f"{done.document_id}\t{done.title}\t{path}")
    except ConfigurationError as e:
        fail(str(e))
    finally:
        shutdown(c)
    if refused:
        raise typer.Exit(2)


def register(app: typer.Typer) -> None:
    app.command("upload")(upload)
