"""What every ``devkb`` command starts from: the container the environment configures, and
one way to fail (a message on stderr, exit 2 for bad input or configuration, 1 for a failed run)."""

from __future__ import annotations

import logging
from typing import NoReturn

import typer

from devkb.container import Container


def fail(message: str, code: int = 2) -> NoReturn:
    typer.secho(f"error: {message}", fg=typer.colors.RED, err=True)
    raise typer.Exit(code)


def open_container() -> Container:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        c = Container()
        c.settings()
        return c
    except Exception as e:  # pydantic ValidationError and ConfigurationError
        fail(f"invalid configuration: {e}")
        raise
