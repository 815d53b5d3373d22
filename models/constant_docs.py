"""The step-time and memory model's constants with the comment that sources each, read from
`models/constants.py` itself (each constant follows its `#:` comment lines), so the portal can show
them and a test can check that none lacks a source."""

from __future__ import annotations

import functools
import inspect

from models import constants


@functools.cache
def model_constants() -> list[dict]:
    """[{'name', 'value', 'source'}] in file order; 'source' is the joined `#:` comment above it (a run
    of assignments under one comment, like the byte counts, shares it)."""
    out, comment, after_assignment = [], [], False
    for line in inspect.getsource(constants).splitlines():
        stripped = line.strip()
        if stripped.startswith("#:"):
            if after_assignment:
                comment, after_assignment = [], False
            comment.append(stripped[2:].strip())
        elif "=" in stripped and stripped.split("=")[0].strip().isupper():
            name = stripped.split("=")[0].strip()
            out.append(
                {"name": name, "value": getattr(constants, name), "source": " ".join(comment)}
            )
            after_assignment = True
        else:  # a blank line or a section comment ends the block
            comment, after_assignment = [], False
    return out
