"""The app's command modules, imported when its commands are read, or only the invoked one's.

typer registers a command when the module defining it is imported. Importing every command
module to run one command cost each process the others' imports (a tenth of `riskcov
evaluate`'s import of the CLI); `riskcov.cli.main` imports only the invoked command's module
(`LazyCommands.narrowed`), anything else that reads the commands (the help, a name that is no
command, the tests' runner) imports them all. The help lists them in COMMAND_MODULES' order,
whichever module was imported first.
"""

import importlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from typer.main import get_command_name
from typer.models import CommandFunctionType, CommandInfo, TyperInfo

from riskcov.cli.once import Commands

# each command module of riskcov.cli, in the help's order, and the commands (or the command
# group) it registers
COMMAND_MODULES: dict[str, tuple[str, ...]] = {
    "calibrate": ("calibrate",),
    "csf": ("csf",),
    "curve": ("curve",),
    "evaluate": ("evaluate",),
    "export": ("export",),
    "history": ("history",),
    "ingest": ("ingest",),
    "plot": ("plot", "report"),
    "publish": ("publish",),
    "riskcontrol": ("risk-control", "ood", "compare"),
    "scod": ("scod",),
    "sql": ("sql",),
    "warehouse": ("runs", "migrate", "doctor"),
}
_ORDER = {name: i for i, name in enumerate(n for names in COMMAND_MODULES.values() for n in names)}


def command_name(info: CommandInfo | TyperInfo) -> str:
    """The name a registered command (or group) is invoked by."""
    if isinstance(info, TyperInfo) or info.name:
        return str(info.name)
    return get_command_name(getattr(info.callback, "__name__", ""))


class LazyCommands(Commands):
    """The app: reading its registered commands or groups imports every command module first,
    unless `narrowed` holds them to the invoked one's; registering one imports nothing."""

    def __init__(self, package: str, **kwargs: Any) -> None:
        self._package = package
        self._all = False  # every command module imported
        self._held = 0  # > 0: the commands as registered so far, no import
        super().__init__(**kwargs)

    @property
    def registered_commands(self) -> list[CommandInfo]:
        return self._read(self._commands)

    @registered_commands.setter
    def registered_commands(self, value: list[CommandInfo]) -> None:
        self._commands = value

    @property
    def registered_groups(self) -> list[TyperInfo]:
        return self._read(self._groups)

    @registered_groups.setter
    def registered_groups(self, value: list[TyperInfo]) -> None:
        self._groups = value

    def command(self, *args: Any, **kwargs: Any) -> Callable[[CommandFunctionType], CommandFunctionType]:
        register = super().command(*args, **kwargs)

        def held(fn: CommandFunctionType) -> CommandFunctionType:
            with self._holding():
                return register(fn)

        return held

    def add_typer(self, *args: Any, **kwargs: Any) -> None:
        with self._holding():
            super().add_typer(*args, **kwargs)

    @contextmanager
    def narrowed(self, name: str | None) -> Iterator[bool]:
        """While held, the app has only the command (or group) `name`, its module imported
        without the others'; yields False, the app whole, for a name that is no command."""
        module = next((m for m, names in COMMAND_MODULES.items() if name in names), None)
        if module is None:
            yield False
            return
        with self._holding():
            importlib.import_module(f"{self._package}.{module}")
            commands, groups = self._commands, self._groups
            self._commands = [c for c in commands if command_name(c) == name]
            self._groups = [g for g in groups if g.name == name]
            try:
                yield True
            finally:
                self._commands, self._groups = commands, groups

    @contextmanager
    def _holding(self) -> Iterator[None]:
        self._held += 1
        try:
            yield
        finally:
            self._held -= 1

    def _read(self, registered: list[Any]) -> list[Any]:
        if not self._all and not self._held:
            with self._holding():
                for module in COMMAND_MODULES:
                    importlib.import_module(f"{self._package}.{module}")
            self._all = True
        registered.sort(key=lambda info: _ORDER.get(command_name(info), len(_ORDER)))
        return registered
