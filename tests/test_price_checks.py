"""Committed rates above on-demand (pricing/price_checks.py): said wherever the comparison is read,
checked on each option's own figures, one line per figure, and silent when the rates are in the
order a buyer expects."""

from __future__ import annotations

import pytest

from app import report_text
from app.scenario_files import EXAMPLE
from models.scenario import Scenario
from pricing.engine import compare
from pricing.price_checks import INVERSIONS_HEADING, inversion_line
from tests.builders import patient, sample, scenario


def figure(c, key: str) -> float:
    return next(a.value for a in c.assumptions if a.key == key)


@pytest.mark.parametrize("committed, flagged", [(9.0, True), (5.0, False)])
def test_a_commitment_dearer_than_on_demand_is_said_with_both_figures(committed, flagged):
    on_demand = 6.0
    c = compare(
        scenario(
            EXAMPLE,
            overrides={
                "cloud_on_demand_usd_per_gpu_hour": on_demand,
                "cloud_committed_1y_usd_per_gpu_hour": committed,
                "rent_usd_per_gpu_hour": 2.0,
            },
        ),
        decision=False,
    )
    keys = [p.key for p in c.price_inversions]
    assert keys == (["cloud_committed_1y_usd_per_gpu_hour"] if flagged else [])
    if flagged:
        p = c.price_inversions[0]
        assert (p.usd_per_gpu_hour, p.on_demand_usd_per_gpu_hour) == (committed, on_demand)
        assert p.gpus == c.training.gpus and p.labels == ["Cloud 1-yr commit"]
        line = inversion_line(p)
        assert line.startswith(
            f"Cloud 1-yr commit: $9.00 a GPU-hour against $6.00 on demand for {p.gpus:,} GPUs"
        )
        out = report_text.comparison_report(c)
        assert f"{INVERSIONS_HEADING}:\n  {line}" in out
    else:
        assert INVERSIONS_HEADING not in report_text.comparison_report(c)


def test_rent_and_managed_share_one_line_and_an_equal_rate_is_not_an_inversion():
    c = compare(
        scenario(
            EXAMPLE,
            overrides={"cloud_on_demand_usd_per_gpu_hour": 3.0, "rent_usd_per_gpu_hour": 3.5},
            options__compare=["rent", "managed", "cloud:on_demand"],
        ),
        decision=False,
    )
    assert [p.labels for p in c.price_inversions] == [["Rent dedicated", "Managed"]]
    same = compare(
        scenario(
            EXAMPLE,
            overrides={"cloud_on_demand_usd_per_gpu_hour": 3.0, "rent_usd_per_gpu_hour": 3.0},
        ),
        decision=False,
    )
    assert not any(p.key == "rent_usd_per_gpu_hour" for p in same.price_inversions)


def test_a_portfolio_checks_each_option_at_its_own_size():
    """The lab's committed block is sized to 1,024 GPUs: the on-demand figure it is held against
    is the one for 1,024 GPUs (capacity blocks), read from that option's own inputs."""
    c = compare(scenario(patient(sample("lab"))), decision=False)
    p = next(p for p in c.price_inversions if p.key == "cloud_committed_1y_usd_per_gpu_hour")
    commit = c.option("cloud:committed_1y")
    assert p.gpus == commit.capacity_size_gpus == 1024
    assert "capacity_block" in p.on_demand_source
    assert p.on_demand_usd_per_gpu_hour < p.usd_per_gpu_hour


def test_the_pdf_and_the_compare_page_say_it(monkeypatch):
    """The default example's 1-year commitment (GCP's committed rows) is above the on-demand
    figure for its GPUs (capacity blocks): the PDF (page 2, under the scenario; the cover counts
    it) and the Compare page carry the line."""
    import io
    import pathlib
    import re
    from datetime import UTC, datetime

    from pypdf import PdfReader
    from streamlit.testing.v1 import AppTest

    from app import report_pdf

    c = compare(Scenario.model_validate(EXAMPLE), decision=False)
    line = inversion_line(c.price_inversions[0])
    monkeypatch.setattr(report_pdf, "charts_available", lambda *args, **kwargs: False)
    data = report_pdf.build_pdf(c, link="", generated=datetime(2026, 12, 1, tzinfo=UTC))
    pages = [re.sub(r"\s+", "", p.extract_text()) for p in PdfReader(io.BytesIO(data)).pages[:2]]
    assert re.sub(r"\s+", "", line) in pages[1]
    assert "1committedrateabovetheon-demandrate" in pages[0]

    harness = str(pathlib.Path(__file__).with_name("portal_harness.py"))
    at = AppTest.from_file(harness, default_timeout=120)
    at.session_state["_page"] = "compare"
    at.run()
    assert not at.exception, at.exception
    boxes = [re.sub(r"\\(.)", r"\1", i.value).replace("\u200b", "") for i in at.info]
    box = next(b for b in boxes if b.startswith(INVERSIONS_HEADING))
    assert f"- {line}" in box
