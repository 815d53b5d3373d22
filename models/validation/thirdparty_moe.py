"""The serving model against third-party DeepSeek-R1 serving runs (models/data/validation/
thirdparty_moe.csv; docs/reference/serving-evidence.md, twenty-second amendment: the rows, the
mapping, the classes and the rule were committed before the first score).

Every row is unseen: nothing is fitted on it, now or later. A row marked expressible is predicted
by the planner's own `serve` path, `plan_serving` with one replica of the row's GPUs at the
benchmark's concurrency (`clusterplan serve --model deepseek-v3-like --gpus N --users C`), the
layout the planner chooses for those GPUs (the published one is recorded, not forced). A row not
expressible is counted, with its reason, and not predicted. Error = predicted / measured − 1 of
TPOT, TTFT (the planner's 50th percentile) and output tokens/s per GPU, against the row's
statistic (its `statistic` column: median or mean); a blank measurement is not scored.
Summaries are models/validation/inferencemax.py's (median |error|, signed median, share within
40 %; issue 29's targets)."""

from __future__ import annotations

from models.validation.thirdparty_sets import MOE as SET
from models.validation.thirdparty_sets import inputs_of as inputs_of  # the mapping's name

# The set's record and functions (models/validation/thirdparty_sets.py), under this module's names.
ROWS, METRICS, CLASS_FIELDS, SHORT = SET.rows, SET.metrics, SET.class_fields, SET.short
load_rows, expressible, predict, refusal = SET.load_rows, SET.expressible, SET.predict, SET.refusal
errors, as_json, report_lines = SET.errors, SET.as_json, SET.report_lines
