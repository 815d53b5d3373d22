"""The documents' command outputs are the commands' outputs: each block below is rerun and compared
line by line, so a change that moves a number fails here until the page is regenerated (the
portfolio block was 5 GPU-hours and the 405B block one execution label behind their commands).
Lines with a wall-clock time are compared without it.

The README is the front door (what the planner is, the two commands, a tour, where to read on); the
blocks live in the docs/ page of their topic, and each command below names the page it is checked
in. Every relative link in the README and docs/ must point to a file that exists (and, with a
#fragment, to a heading in it), so a page that moves or is renamed fails here."""

from __future__ import annotations

import contextlib
import io
import pathlib
import re
import shlex

import pytest

from app.cli import main

ROOT = pathlib.Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
#: the commands whose output a page prints, as it gives them (in backticks, before the block), and
#: the page; "A > f && B f" runs A, writes its output to a temporary f and runs B on it
COMMANDS = [
    (
        ".venv/bin/clusterplan example > scenario.json && .venv/bin/clusterplan compare "
        "scenario.json",
        "docs/compare.md",
    ),
    (
        ".venv/bin/clusterplan example --portfolio enterprise > p.json && .venv/bin/clusterplan "
        "compare p.json",
        "docs/portfolios.md",
    ),
    (".venv/bin/clusterplan hourly", "docs/compare.md"),
    (
        '.venv/bin/clusterplan example > scenario.json && sed \'s/"H100-SXM"/"B200"/\' '
        "scenario.json > b200.json && .venv/bin/clusterplan compare scenario.json b200.json",
        "docs/reports.md",
    ),
    (
        ".venv/bin/clusterplan serve --model llama3-70b --gpu H100-SXM --input-tokens 2048 "
        "--output-tokens 256 --rps 10 --precision fp8 --ttft-ms 400 --tpot-ms 50",
        "docs/sizing.md",
    ),
    (
        ".venv/bin/clusterplan serve --model llama3-70b --gpu H100-SXM --input-tokens 2048 "
        "--output-tokens 256 --rps 10 --precision fp8 --ttft-ms 400 --tpot-ms 50 "
        "--slo-percentile 99",
        "docs/sizing.md",
    ),
    (
        ".venv/bin/clusterplan serve --model llama3-70b --gpu H100-SXM --input-tokens 8192 "
        "--output-tokens 256 --rps 20 --precision fp8 --ttft-ms 2000 --tpot-ms 30",
        "docs/sizing.md",
    ),
    (
        ".venv/bin/clusterplan finetune --model llama2-70b --method qlora --tokens 1e7 "
        "--gpu H100-SXM",
        "docs/sizing.md",
    ),
    (
        ".venv/bin/clusterplan finetune --model llama2-70b --method full --tokens 1e8 "
        "--gpu A100-80GB --gpus 8",
        "docs/sizing.md",
    ),
    (
        ".venv/bin/clusterplan train --model llama3-405b --tokens 15.6T --gpu H100-SXM "
        "--gpus 16384 --curve",
        "docs/sizing.md",
    ),
    (
        ".venv/bin/clusterplan train --model llama3-405b --tokens 15.6T --gpu H100-SXM "
        "--gpus 32768",
        "docs/sizing.md",
    ),
]
PROGRAM = ".venv/bin/clusterplan"
#: the page holding the blocks of `clusterplan validate`'s output
VALIDATION = "docs/validation.md"
#: a wall-clock time in an output line ("105 fit, 0.06 s")
TIMING = re.compile(r"\d+\.\d+ s\b")
#: the README at most this long: a front door, the reference material is in docs/
README_MAX_LINES = 400
#: the README's two commands, as CI (.ci/run) and a reader type them
TWO_COMMANDS = (
    "bash scripts/serve.sh    # installs what the portal needs into .venv and starts it: "
    "http://127.0.0.1:8501",
    "bash scripts/test.sh     # installs everything (Debian's Chromium included) and runs the "
    "whole test suite",
)


def run(args: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(args) == 0
    return out.getvalue()


def block_after(text: str, anchor: str) -> list[str]:
    """The lines of the first fenced block after the line holding `anchor`."""
    lines = text.split("\n")
    at = next(i for i, line in enumerate(lines) if anchor in line)
    start = next(i for i in range(at + 1, len(lines)) if lines[i].startswith("```"))
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("```"))
    return lines[start + 1 : end]


def output_of(command: str, tmp_path: pathlib.Path) -> str:
    """What `command` prints: "A > f && B f" runs A, writes its output to a temporary f and runs
    B on it (scripts/regen_docs.py rewrites the pages with the same function)."""
    files: dict[str, str] = {}
    out = ""
    for step in command.split(" && "):
        if step.startswith("sed "):  # sed 's/A/B/' IN > OUT, the one other command pages use
            _, script, source, _, target = shlex.split(step)
            _, old, new, _ = script.split("/")
            (tmp_path / target).write_text((tmp_path / source).read_text().replace(old, new))
            files[target] = str(tmp_path / target)
            continue
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
    return out


@pytest.mark.parametrize(
    ("command", "page"), COMMANDS, ids=[f"{c.split()[1]}-{p}" for c, p in COMMANDS]
)
def test_a_documented_block_is_its_commands_output(command, page, tmp_path):
    text = (ROOT / page).read_text()
    assert f"`{command}`" in text, (page, command)
    out = output_of(command, tmp_path)
    expected = [TIMING.sub("<t>", line) for line in block_after(text, f"`{command}`")]
    assert [TIMING.sub("<t>", line) for line in out.rstrip("\n").split("\n")] == expected


def test_the_validation_blocks_are_clusterplan_validates():
    """Each block of docs/validation.md that begins with a line of `clusterplan validate`'s output
    (a section heading "== ... ==", an errors table's header) is that part of the output, line for
    line, as far as the block goes: training, held-out, both modes, memory, inference and
    fine-tuning."""
    text = (ROOT / VALIDATION).read_text().split("\n")
    out = run(["validate"]).split("\n")
    fences = [i for i, line in enumerate(text) if line.startswith("```")]
    blocks = [text[a + 1 : b] for a, b in zip(fences[::2], fences[1::2], strict=True)]
    quoted = [b for b in blocks if b and len(b[0]) > 20 and b[0] in out]
    assert len(quoted) >= 7, [b[0] for b in quoted]
    for block in quoted:
        start = out.index(block[0])
        assert out[start : start + len(block)] == block, block[0]


def test_the_readme_is_a_front_door():
    """At most 400 lines, the two commands as CI runs them, and a link to every docs/ page."""
    text = README.read_text()
    assert len(text.rstrip("\n").split("\n")) <= README_MAX_LINES
    lines = text.split("\n")
    for command in TWO_COMMANDS:
        assert command in lines, command
    assert "exec bash scripts/test.sh" in (ROOT / ".ci" / "run").read_text()
    linked = {target for target, _ in links(README)}
    for page in sorted(DOCS.glob("*.md")):
        assert f"docs/{page.name}" in linked, page.name


# --- links ------------------------------------------------------------------------------------

#: an inline link or image: [text](target) or ![alt](target "title")
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
#: a code span, one or two backticks (it may run over a line break inside its paragraph)
CODE_SPAN = re.compile(r"``.*?``|`[^`]*`", re.S)
#: a link whose target is not a file in the repository
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)


def pages() -> list[pathlib.Path]:
    """The Markdown a reader follows links in: the README, docs/ and deploy/."""
    return [README, *sorted(DOCS.rglob("*.md")), *sorted((ROOT / "deploy").rglob("*.md"))]


def outside_fences(text: str) -> str:
    """The text with every fenced block's lines blanked (line numbers kept)."""
    kept, fenced = [], False
    for line in text.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            line = ""
        kept.append("" if fenced else line)
    return "\n".join(kept)


def prose(text: str) -> str:
    """The text outside fenced blocks, with code spans taken out."""
    return CODE_SPAN.sub("", outside_fences(text))


def links(path: pathlib.Path) -> list[tuple[str, int]]:
    """(target, line number) of every inline link and image in `path`'s prose."""
    text = prose(path.read_text())
    return [(m.group(1), text.count("\n", 0, m.start()) + 1) for m in LINK.finditer(text)]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = CODE_SPAN.sub(lambda m: m.group(0).strip("`"), heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: pathlib.Path) -> set[str]:
    """The anchors of `path`'s headings (a repeated heading gets -1, -2, ... as on GitHub)."""
    seen: dict[str, int] = {}
    out = set()
    for line in outside_fences(path.read_text()).split("\n"):
        heading = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not heading:
            continue
        base = slug(heading.group(1))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def broken_links(path: pathlib.Path) -> list[str]:
    """Each relative link in `path` whose file (or heading) does not exist, as 'file:line target'."""
    bad = []
    for target, line in links(path):
        if EXTERNAL.match(target):
            continue
        name, _, fragment = target.partition("#")
        dest = (path.parent / name).resolve() if name else path
        missing = not dest.exists()
        if missing or (fragment and dest.suffix == ".md" and fragment not in anchors(dest)):
            shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
            bad.append(f"{shown}:{line} {target}")
    return bad


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    assert broken_links(page) == []


def test_a_broken_link_is_found(tmp_path):
    """The check itself: a missing file, a missing heading and a link in prose are reported; links
    in code, to the web and to an existing heading are not."""
    (tmp_path / "there.md").write_text("# A page: `clusterplan compare`\n\n## Known limits\n")
    page = tmp_path / "page.md"
    page.write_text(
        "See [gone](gone.md), [a heading](there.md#no-such-heading) and\n"
        "![a picture](missing.png), but not `[code](nowhere.md)`, nor\n"
        "```\n[fenced](nowhere.md)\n```\n"
        "[the web](https://example.com/x), [fine](there.md#known-limits),\n"
        "[also fine](there.md#a-page-clusterplan-compare) and [here](#local).\n\n# Local\n"
    )
    assert [b.rsplit(" ", 1)[1] for b in broken_links(page)] == [
        "gone.md",
        "there.md#no-such-heading",
        "missing.png",
    ]


def test_the_readmes_third_party_serving_figures_are_validates():
    """The README's line on the five third-party serving sets quotes what `clusterplan validate`
    computes (rows, scored rows, median |error| of TPOT and output tokens/s per GPU)."""
    from models.validation import (
        inferencemax,
        thirdparty_moe,
        thirdparty_serving3,
        thirdparty_serving4,
        thirdparty_serving5,
    )

    readme = (ROOT / "README.md").read_text()
    imax = inferencemax.as_json()
    tpot = round(100 * imax["all"]["tpot_ms"]["median_abs"])
    tps = round(100 * imax["all"]["output_tokens_per_s_per_gpu"]["median_abs"])
    assert (
        f"{imax['rows']} SemiAnalysis InferenceMAX Llama 3.3 70B rows (time per output token "
        f"{tpot} % median, output tokens/s per GPU {tps} %)"
    ) in readme
    moe = thirdparty_moe.as_json()
    assert f"{moe['rows']} DeepSeek-R1 rows ({moe['scored']} scored)" in readme
    third = thirdparty_serving3.as_json()
    tps3 = round(100 * third["all"]["output_tokens_per_s_per_gpu"]["median_abs"])
    refused = f"{len(third['refused'])} of them refused" if third["refused"] else "none refused"
    assert (
        f"a third set of {third['rows']} rows, dense 405B on MI300X and MoE on NVIDIA "
        f"({third['scored']} scored, {refused}; output tokens/s per GPU {tps3} % median)"
    ) in readme
    fourth = thirdparty_serving4.as_json()
    ttft4 = fourth["all"]["ttft_ms"]
    tps4 = round(100 * fourth["all"]["output_tokens_per_s_per_gpu"]["median_abs"])
    assert (
        f"a fourth of {fourth['rows']} dense rows at a fixed concurrency ({fourth['scored']} "
        f"scored; time to first token {round(100 * ttft4['median_abs'])} % median on "
        f"{ttft4['rows']} rows, output tokens/s per GPU {tps4} % median)"
    ) in readme
    fifth = thirdparty_serving5.as_json()
    tpot5 = round(100 * fifth["all"]["tpot_ms"]["median_abs"])
    tps5 = round(100 * fifth["all"]["output_tokens_per_s_per_gpu"]["median_abs"])
    assert (
        f"a fifth of {fifth['rows']} MoE rows on current engine builds ({fifth['scored']} scored; "
        f"time per output token {tpot5} % median, output tokens/s per GPU {tps5} % median)"
    ) in readme
