"""Rewrite the documents' command-output blocks from the commands themselves.

Each block that tests/test_readme_blocks.py checks (a command's output after the command in
backticks, and docs/validation.md's blocks quoting `clusterplan validate`) is replaced by what the
command prints now. Run it after a change that moves a documented number, then read the diff:
`.venv/bin/python scripts/regen_docs.py && git diff docs/`."""

from __future__ import annotations

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.test_readme_blocks import (  # noqa: E402
    COMMANDS,
    PROGRAM,
    TIMING,
    VALIDATION,
    output_of,
    run,
)


def replace_block_after(lines: list[str], anchor: str, body: list[str]) -> list[str]:
    """`lines` with the block after `anchor` replaced by `body` (kept where only a time moved)."""
    at = next(i for i, line in enumerate(lines) if anchor in line)
    start = next(i for i in range(at + 1, len(lines)) if lines[i].startswith("```"))
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("```"))
    old = lines[start + 1 : end]
    if [TIMING.sub("<t>", x) for x in old] == [TIMING.sub("<t>", x) for x in body]:
        return lines
    return lines[: start + 1] + body + lines[end:]


def regenerate_validation(out: list[str]) -> None:
    path = ROOT / VALIDATION
    lines = path.read_text().split("\n")
    i, changed = 0, 0
    while i < len(lines):
        if lines[i].startswith("```"):
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
            block = lines[i + 1 : end]
            if block and len(block[0]) > 20 and block[0] in out:
                start = out.index(block[0])
                if out[start : start + len(block)] == block:
                    i = end + 1
                    continue
                # a block that no longer matches is replaced by its section, to the next blank line
                stop = next((k for k in range(start, len(out)) if not out[k].strip()), len(out))
                new = out[start:stop]
                lines[i + 1 : end] = new
                changed += 1
                end = i + 1 + len(new)
            i = end + 1
        else:
            i += 1
    path.write_text("\n".join(lines))
    print(f"{VALIDATION}: {changed} blocks")


def main() -> None:
    import tempfile

    for command, page in COMMANDS:
        path = ROOT / page
        with tempfile.TemporaryDirectory() as scratch:
            body = output_of(command, pathlib.Path(scratch)).rstrip("\n").split("\n")
        lines = replace_block_after(path.read_text().split("\n"), f"`{command}`", body)
        path.write_text("\n".join(lines))
        print(f"{page}: {command.split(' && ')[-1][len(PROGRAM) + 1 :][:60]}")
    regenerate_validation(run(["validate"]).rstrip("\n").split("\n"))


if __name__ == "__main__":
    main()
