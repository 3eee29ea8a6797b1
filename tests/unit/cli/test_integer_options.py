"""Every integer a command takes is bounded: a number too large for a store or for the
interpreter is refused by click as a one-line usage error, never an ``OverflowError``."""

from __future__ import annotations

from collections.abc import Iterator

import click

from factdiff.cli.main import main


def commands(group: click.Group, path: str = "factdiff") -> Iterator[tuple[str, click.Command]]:
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, name
        yield f"{path} {name}", command
        if isinstance(command, click.Group):
            yield from commands(command, f"{path} {name}")


def test_every_integer_option_and_argument_has_an_upper_bound() -> None:
    unbounded = []
    for path, command in commands(main):
        for param in command.params:
            if isinstance(param.type, click.types.IntParamType):
                bounded = isinstance(param.type, click.IntRange) and param.type.max is not None
                if not bounded:
                    unbounded.append(f"{path} {param.name}")
    assert unbounded == []
