"""The serving model against a fifth independent serving set, MoE models on current engine builds
(late 2025 to 2026): DeepSeek-R1 FP4 on 8 B200 (SGLang 0.5.6), gpt-oss-120b on one MI300X (vLLM
0.17.0) and on 2 and 4 H100 (vLLM, early 2026), and NVIDIA's TensorRT-LLM recipe rows for GLM-4.7
and Qwen3-235B-A22B, counted and not expressible (models/data/validation/thirdparty_serving5.csv;
docs/reference/serving-evidence.md, thirty-first amendment: the rows, the mapping, the classes and
the rule were committed before the first score).

Every row is unseen: nothing is fitted on it, now or later. A row marked expressible is predicted
by the planner's own `serve` path exactly as the earlier third-party sets' rows are
(`thirdparty_sets.inputs_of`: `plan_serving` with one replica of the row's GPUs at the benchmark's
concurrency, `clusterplan serve --engine NAME:VERSION --gpus N --users C`, the layout the planner
chooses; a service with users takes the twenty-first amendment's steady TTFT at p50). A row not
expressible is counted, with its reason, and not predicted. Error = predicted / measured − 1 of
TPOT, TTFT and output tokens/s per GPU; a blank measurement is not scored. Summaries: median
|error|, signed median and share within 40 % (issue 29's targets), for all scored rows, per family
and per family × source × engine × GPU."""

from __future__ import annotations

from models.validation.thirdparty_sets import SERVING5 as SET

# The set's record and functions (models/validation/thirdparty_sets.py), under this module's names.
ROWS, METRICS, CLASS_FIELDS, SHORT = SET.rows, SET.metrics, SET.class_fields, SET.short
load_rows, expressible, predict, refusal = SET.load_rows, SET.expressible, SET.predict, SET.refusal
errors, as_json, report_lines = SET.errors, SET.as_json, SET.report_lines
FAMILY_FIELDS = SET.family_fields
