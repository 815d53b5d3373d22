"""The serving model against a third independent serving set: gpt-oss-120b on H100, H200 and B200
(vLLM, SGLang), Qwen3-235B-A22B on B200 (vLLM) and Llama 3.1 405B FP8 on 8 MI300X (vLLM)
(models/data/validation/thirdparty_serving3.csv; docs/reference/serving-evidence.md, twenty-fifth
amendment: the rows, the mapping, the classes and the rule were committed before the first score).

Every row is unseen: nothing is fitted on it, now or later. A row marked expressible is predicted
by the planner's own `serve` path exactly as the twenty-second amendment's rows are
(`thirdparty_moe.inputs_of`: `plan_serving` with one replica of the row's GPUs at the benchmark's
concurrency, `clusterplan serve --gpus N --users C`, the layout the planner chooses). A row not
expressible is counted, with its reason, and not predicted. Error = predicted / measured − 1 of
TPOT, TTFT (the planner's 50th percentile) and output tokens/s per GPU; a blank measurement is not
scored. Summaries are models/validation/inferencemax.py's (median |error|, signed median, share
within 40 %; issue 29's targets), per family (dense, MoE) and per family × source × engine × GPU."""

from __future__ import annotations

from models.validation.thirdparty_sets import SERVING3 as SET

# The set's record and functions (models/validation/thirdparty_sets.py), under this module's names.
ROWS, METRICS, CLASS_FIELDS, SHORT = SET.rows, SET.metrics, SET.class_fields, SET.short
load_rows, expressible, predict, refusal = SET.load_rows, SET.expressible, SET.predict, SET.refusal
errors, as_json, report_lines = SET.errors, SET.as_json, SET.report_lines
FAMILY_FIELDS = SET.family_fields
