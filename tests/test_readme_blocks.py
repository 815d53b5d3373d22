"""The README's command outputs are the commands' outputs: each block below is rerun and compared
line by line, so a change that moves a number fails here until the README is regenerated (the
portfolio block was 5 GPU-hours and the 405B block one execution label behind their commands).
Lines with a wall-clock time are compared without it."""

from __future__ import annotations

import contextlib
import io
import pathlib
import re

import pytest

from app.cli import main

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"
#: the commands whose output the README prints, as it gives them (in backticks, before the block);
#: "A > f && B f" runs A, writes its output to a temporary f and runs B on it
COMMANDS = [
    ".venv/bin/clusterplan example > scenario.json && .venv/bin/clusterplan compare scenario.json",
    ".venv/bin/clusterplan example --portfolio enterprise > p.json && .venv/bin/clusterplan "
    "compare p.json",
    ".venv/bin/clusterplan hourly",
    ".venv/bin/clusterplan serve --model llama3-70b --gpu H100-SXM --input-tokens 2048 "
    "--output-tokens 256 --rps 10 --precision fp8 --ttft-ms 400 --tpot-ms 50",
    ".venv/bin/clusterplan serve --model llama3-70b --gpu H100-SXM --input-tokens 2048 "
    "--output-tokens 256 --rps 10 --precision fp8 --ttft-ms 400 --tpot-ms 50 --slo-percentile 99",
    ".venv/bin/clusterplan serve --model llama3-70b --gpu H100-SXM --input-tokens 8192 "
    "--output-tokens 256 --rps 20 --precision fp8 --ttft-ms 2000 --tpot-ms 30",
    ".venv/bin/clusterplan finetune --model llama2-70b --method qlora --tokens 1e7 --gpu H100-SXM",
    ".venv/bin/clusterplan train --model llama3-405b --tokens 15.6T --gpu H100-SXM --gpus 16384 "
    "--curve",
]
PROGRAM = ".venv/bin/clusterplan"
#: a wall-clock time in an output line ("105 fit, 0.06 s")
TIMING = re.compile(r"\d+\.\d+ s\b")


def run(args: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(args) == 0
    return out.getvalue()


def block_after(text: str, anchor: str) -> list[str]:
    """The lines of the first fenced block after the README line holding `anchor`."""
    lines = text.split("\n")
    at = next(i for i, line in enumerate(lines) if anchor in line)
    start = next(i for i in range(at + 1, len(lines)) if lines[i].startswith("```"))
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("```"))
    return lines[start + 1 : end]


@pytest.mark.parametrize("command", COMMANDS, ids=[c.split()[1] for c in COMMANDS])
def test_a_readme_block_is_its_commands_output(command, tmp_path):
    text = README.read_text()
    assert f"`{command}`" in text, command
    files: dict[str, str] = {}
    out = ""
    for step in command.split(" && "):
        words = step.split()
        assert words[0] == PROGRAM, step
        args = [files.get(w, w) for w in words[1:]]
        if ">" in args:
            cut = args.index(">")
            path = tmp_path / args[cut + 1]
            path.write_text(run(args[:cut]))
            files[args[cut + 1]] = str(path)
        else:
            out = run(args)
    expected = [TIMING.sub("<t>", line) for line in block_after(text, f"`{command}`")]
    assert [TIMING.sub("<t>", line) for line in out.rstrip("\n").split("\n")] == expected


def test_the_readme_validation_blocks_are_clusterplan_validates():
    """Each README block that begins with a line of `clusterplan validate`'s output (a section
    heading "== ... ==", an errors table's header) is that part of the output, line for line, as
    far as the block goes: training, held-out, both modes, memory, inference and fine-tuning."""
    text = README.read_text().split("\n")
    out = run(["validate"]).split("\n")
    fences = [i for i, line in enumerate(text) if line.startswith("```")]
    blocks = [text[a + 1 : b] for a, b in zip(fences[::2], fences[1::2], strict=True)]
    quoted = [b for b in blocks if b and len(b[0]) > 20 and b[0] in out]
    assert len(quoted) >= 7, [b[0] for b in quoted]
    for block in quoted:
        start = out.index(block[0])
        assert out[start : start + len(block)] == block, block[0]
