"""The twenty-ninth amendment (docs/reference/serving-evidence.md): a service's own first token per
CUDA engine and model class is what bench/serve_lone_ttft_fit.py fits on the tuning rows with at
most 4 requests in flight, each class adopted by the rule written before the fit."""

from __future__ import annotations

import numpy as np
import pytest

from bench import serve_lone_ttft_fit as fit
from models.serving.engines import ENGINES

pytestmark = pytest.mark.calibration


def test_the_engines_constants_are_the_fit_and_each_class_passed_the_rule():
    classes = fit.rows()
    adopted = {(e, name): (a, k) for e in ENGINES for name, a, k in ENGINES[e].service_ttft}
    assert set(adopted) == set(classes)  # SGLang dense has no such row: it keeps the ninth's
    for (engine, cls), cols in classes.items():
        a, k, w, error = fit.fit_class(engine, cols)
        assert w == ENGINES[engine].ttft_wave_share  # held, not fitted (the correction)
        assert adopted[(engine, cls)] == pytest.approx((a, k), abs=1e-9), (engine, cls)
        before = float(np.median(np.abs(fit.current_errors(engine, cols))))
        assert fit.adopted(len(cols), before, error), (engine, cls)
