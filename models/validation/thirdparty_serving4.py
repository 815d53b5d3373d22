"""The serving model against a fourth independent serving set, dense models at a fixed concurrency:
NVIDIA NIM's Llama 3.3 70B on 2 H100 (TensorRT-LLM; TTFT and ITL per concurrency), dstack's Llama
3.1 405B FP8 on 8 H100 (vLLM, offline batches) and SGLang's Qwen3.6-27B cells (counted, not
expressible) (models/data/validation/thirdparty_serving4.csv; docs/reference/serving-evidence.md,
twenty-seventh amendment: the rows, the mapping, the classes and the rule were committed before
the first score).

Every row is unseen: nothing is fitted on it, now or later. A row marked expressible is predicted
by the planner's own `serve` path exactly as the twenty-second and twenty-fifth amendments' rows
are (`thirdparty_moe.inputs_of`: `plan_serving` with one replica of the row's GPUs at the
benchmark's concurrency, `clusterplan serve --gpus N --users C`, the layout the planner chooses; a
service with users takes the twenty-first amendment's steady TTFT at p50). A row not expressible
is counted, with its reason, and not predicted. Error = predicted / measured − 1 of TPOT, TTFT
and output tokens/s per GPU; a blank measurement is not scored. Summaries are
models/validation/inferencemax.py's (median |error|, signed median, share within 40 %; issue 29's
targets), for all scored rows and per source × engine × GPU."""

from __future__ import annotations

from models.validation.thirdparty_sets import SERVING4 as SET

# The set's record and functions (models/validation/thirdparty_sets.py), under this module's names.
ROWS, METRICS, CLASS_FIELDS, SHORT = SET.rows, SET.metrics, SET.class_fields, SET.short
load_rows, expressible, predict, refusal = SET.load_rows, SET.expressible, SET.predict, SET.refusal
errors, as_json, report_lines = SET.errors, SET.as_json, SET.report_lines
