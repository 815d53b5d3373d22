"""The one error type for input the planner cannot use.

`field` names what to change, as the user knows it: a dotted scenario path (`cluster.gpus`,
`overrides.pue`), or a catalogue file, line and column. The message says what would work.
The CLI prints it on one line, the portal beside the field, the JSON as `{"field", "message"}`.
"""

from __future__ import annotations


class InputError(ValueError):
    """Bad input; `field` names it and the message gives the allowed values or range."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


def data_file_error(path, line: int | None, column: str, problem: str) -> InputError:
    """A bad row in a data file (a catalogue CSV): `field` is 'file:line:column', the message
    names the same and the file's full path."""
    where = f"{path.name}, line {line}, field '{column}'" if line is not None else path.name
    return InputError(f"{path.name}:{line or ''}:{column}", f"{where}: {problem} [{path}]")
