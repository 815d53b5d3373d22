"""The third-party serving sets in one registry: one typed record per set (its data file, title,
amendment, class fields, short source names, what its report says of the rows it cannot express)
and the functions every set is scored by. The sets themselves, their mappings and their rules are
written in docs/reference/serving-evidence.md (twenty-second, twenty-fifth, twenty-seventh and
thirty-first amendments); each set's own module (models/validation/thirdparty_*.py) keeps its
names and its docstring and reads its record from here.

Every row is unseen: nothing is fitted on it. An expressible row is predicted by the planner's own
`serve` path (`inputs_of`: `plan_serving` with one replica of the row's GPUs at the benchmark's
concurrency); error = predicted / measured − 1 per metric, a blank measurement not scored; the
summaries are models/validation/inferencemax.py's (median |error|, signed median, share within
40 %; issue 29's targets), for all scored rows, per family where a set has families, and per
class."""

from __future__ import annotations

import csv
import functools
import pathlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from models import DATA_DIR
from models.serving.plan import ServeInputs
from models.validation import amd, inferencemax

#: (metric, the row's measured column): the twenty-second amendment's, shared by every set
METRICS = (
    ("tpot_ms", "tpot_ms"),
    ("ttft_ms", "ttft_ms"),
    ("output_tokens_per_s_per_gpu", "output_tokens_per_s_per_gpu"),
)
#: the report's line on the summaries and issue 29's targets
_TARGETS_LINE = (
    "median |error|, signed median, share within 40 % (* meets issue 29's targets: median "
    "<= 20 %, >= 80 % within 40 %)"
)


def inputs_of(row: dict) -> ServeInputs:
    """The row's service as `clusterplan serve --gpus N --users C` takes it (amd.inputs_of, the
    replica's GPUs fixed at the row's GPU count)."""
    return ServeInputs.model_validate(
        amd.inputs_of(row).model_dump(exclude_unset=True) | {"gpus": int(row["gpus"])}
    )


@dataclass(frozen=True, eq=False)
class ServingSet:
    """One third-party serving set: `rows` its CSV, `title` and `amendment` its report's first
    line, `class_fields` (and `family_fields`, empty where the set has no families) its
    summaries' keys, `short` a source's name in the report's class lines, `not_expressible` what
    the count line says of the rows not expressible, `note` the first line's closing clause and
    `lists_refused` whether --json and the report list the planner's refusals."""

    rows: pathlib.Path
    title: str
    amendment: str
    class_fields: tuple[str, ...]
    short: Mapping[str, str]
    not_expressible: str
    family_fields: tuple[str, ...] = ()
    note: str = ""
    lists_refused: bool = True
    metrics: tuple[tuple[str, str], ...] = METRICS
    to_inputs: Callable[[dict], ServeInputs] = field(default=inputs_of)

    @functools.cache  # noqa: B019 - one record per set, alive for the process
    def load_rows(self) -> tuple[dict, ...]:
        with self.rows.open(newline="") as f:
            return tuple(csv.DictReader(f))

    @staticmethod
    def expressible(row: dict) -> bool:
        return row["expressible"] == "yes"

    @functools.cache  # noqa: B019
    def _predicted(self, row_id: str) -> tuple[dict[str, float] | None, str]:
        row = next(r for r in self.load_rows() if r["id"] == row_id)
        return inferencemax.planned(self.to_inputs(row), self.metrics)

    def predict(self, row: dict) -> dict[str, float] | None:
        """The planner's TPOT ms, TTFT ms and output tokens/s per GPU for the row; None if
        refused."""
        return self._predicted(row["id"])[0]

    def refusal(self, row: dict) -> str:
        """Why the planner refuses the row ("" when it does not)."""
        return self._predicted(row["id"])[1]

    def errors(self, row: dict) -> dict[str, float | None]:
        """predicted / measured − 1 per metric (None where refused or not measured)."""
        return inferencemax.relative_errors(self.predict(row), row, self.metrics)

    @functools.cache  # noqa: B019
    def as_json(self) -> dict:
        """Scored rows: all of them, per family (where the set has families) and per class; the
        rows not expressible and (where listed) the refusals, each with its reason."""
        rows = self.load_rows()
        scored = [r for r in rows if self.expressible(r)]
        data: dict = {
            "rows": len(rows),
            "scored": len(scored),
            "not_expressible": [
                {"id": r["id"], "reason": r["not_expressible_reason"]}
                for r in rows
                if not self.expressible(r)
            ],
        }
        if self.lists_refused:
            refused = [r for r in scored if self.predict(r) is None]
            data["refused"] = [{"id": r["id"], "reason": self.refusal(r)} for r in refused]
        data["targets"] = {
            "median_abs": inferencemax.TARGET_MEDIAN,
            "band": inferencemax.BAND,
            "share_within_band": inferencemax.TARGET_SHARE,
        }
        data["all"] = inferencemax.entry({}, scored, self.errors, self.predict)
        if self.family_fields:
            data["families"] = self._classes(scored, self.family_fields)
        data["classes"] = self._classes(scored, self.class_fields)
        return data

    def _classes(self, scored: list[dict], fields: tuple[str, ...]) -> list[dict]:
        return inferencemax.classes(scored, fields, self.errors, self.predict)

    def label(self, c: dict, fields: tuple[str, ...]) -> str:
        """A class's name in the report: its fields' values, a source by its short name."""
        return " ".join(self.short[c[k]] if k == "source_id" else c[k] for k in fields)

    def report_lines(self) -> list[str]:
        data = self.as_json()
        counts = (
            f"{data['rows']} rows, {data['scored']} scored, {len(data['not_expressible'])} not "
            f"expressible ({self.not_expressible})"
        )
        if self.lists_refused:
            counts += f", {len(data['refused'])} refused"
        lines = [
            f"{self.title} (models/data/validation/{self.rows.name}; "
            f"docs/reference/serving-evidence.md, {self.amendment} amendment): every row unseen, "
            f"never fitted{self.note}",
            counts,
            _TARGETS_LINE,
            inferencemax.HEADER,
            inferencemax.line("all scored rows", data["all"]),
        ]
        lines += [
            inferencemax.line(self.label(c, self.family_fields), c)
            for c in data.get("families", ())
        ]
        lines += [inferencemax.line(self.label(c, self.class_fields), c) for c in data["classes"]]
        return lines


_DATA = DATA_DIR / "validation"

MOE = ServingSet(
    rows=_DATA / "thirdparty_moe.csv",
    title="Third-party DeepSeek-R1 serving",
    amendment="twenty-second",
    class_fields=("source_id", "engine", "gpu"),
    short={
        "dstack-deepseek-r1-h200-2025": "dstack",
        "inferencex-issue870-2026": "inferencex",
        "tenstorrent-issue356-2025": "tenstorrent",
    },
    not_expressible="TensorRT-LLM: precision unknown; prefix-cached runs",
    lists_refused=False,
)
SERVING3 = ServingSet(
    rows=_DATA / "thirdparty_serving3.csv",
    title="Third-party serving, third set",
    amendment="twenty-fifth",
    class_fields=("family", "source_id", "engine", "gpu"),
    family_fields=("family",),
    short={
        "inferencex-issue828-2026": "InferenceX",
        "lmsys-gptoss-2025": "LMSYS",
        "dstack-405b-mi300x-2024": "dstack 405B",
        "dstack-pd-gptoss-h200-2025": "dstack split",
        "vllm-pr43232-2026": "vLLM PR 43232",
    },
    not_expressible="split prefill/decode pools; MI350X",
)
SERVING4 = ServingSet(
    rows=_DATA / "thirdparty_serving4.csv",
    title="Third-party serving, fourth set, dense at a fixed concurrency",
    amendment="twenty-seventh",
    class_fields=("source_id", "engine", "gpu"),
    short={
        "nvidia-nim-bench-2025": "NIM 70B",
        "dstack-405b-h100-2024": "dstack 405B",
        "sglang-cookbook-qwen36-2026": "SGLang Qwen3.6-27B",
    },
    not_expressible="no Qwen3.6-27B preset",
    note="; the NIM rows' TTFT was the twenty-first amendment's steady TTFT on unseen rows (50 % "
    "median), in-sample since the twenty-ninth amendment's own first token",
)
SERVING5 = ServingSet(
    rows=_DATA / "thirdparty_serving5.csv",
    title="Third-party serving, fifth set, MoE on current engine builds",
    amendment="thirty-first",
    class_fields=("family", "source_id", "engine", "gpu"),
    family_fields=("family",),
    short={
        "inferencex-issue870-b200-2026": "InferenceX 870",
        "inferencex-pr1061-mi300x-2026": "InferenceX 1061",
        "inferencex-issue828-tp-2026": "InferenceX 828",
        "trtllm-pr11691-glm47-gb200-2026": "TRT-LLM PR 11691",
        "trtllm-pr11559-glm47-h100-2026": "TRT-LLM PR 11559",
        "trtllm-pr11612-qwen3-gb200-2026": "TRT-LLM PR 11612",
    },
    not_expressible="no GLM-4.7 preset; GPU count not published",
)
