"""The option registry (models/options.py) is the one place an option is described: every record
can be priced, drawn and scheduled, and the schema, the engine and the charts read it."""

from __future__ import annotations

import pathlib
import re

from app.charts.common import option_color
from models.options import OPTIONS, Billing, spec
from models.scenario import Options
from pricing import cashflows as cf
from pricing.catalogue.loader import load_catalogue
from pricing.engine import LABELS, compare
from pricing.inputs import build_inputs
from tests.builders import scenario

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_every_record_can_be_priced_drawn_and_scheduled():
    inp = build_inputs(scenario(), load_catalogue())
    cat = inp.catalogue
    assert set(cf.BILLING_FLOWS) == set(Billing)
    for option in OPTIONS:
        assert option.price_key is None or option.price_key in inp.figures, option.id
        # owned hardware pays no $/GPU-hour, except a composite's burst (hybrid: cloud)
        assert (option.price_key is None) == (option.owned and not option.composed_of), option.id
        assert option.commit_years > 0 or option.billing is not Billing.COMMITTED, option.id
        rows_of = option.timeline_rows_of or option.id
        assert any(r.option == rows_of for r in cat.timeline_rows), option.id
        assert LABELS[option.id] == option.label
        assert option_color(option.id) == option.colour


def test_the_schema_offers_exactly_the_registry():
    allowed = Options.model_json_schema()["properties"]["compare"]["items"]["enum"]
    assert allowed == [o.id for o in OPTIONS]


def test_every_option_compares_on_the_example():
    c = compare(
        scenario(options={"compare": [o.id for o in OPTIONS]}),
        decision=False,
    )
    for o in c.options:
        assert o.label == spec(o.option).label
        if spec(o.option).needs_demand:  # hybrid: a version 1 scenario has no demand shape
            assert not o.available and o.note.startswith("needs a demand shape"), o.option
            continue
        assert o.available and o.total_usd > 0, o.option


def test_option_ids_are_written_only_in_the_registry():
    """Outside models/options.py, code names options through the registry; an id such as
    'cloud:spot' or 'managed:owned' as a literal elsewhere in app/, models/ or pricing/ fails.
    ('build', 'rent', 'managed' are also words and cost categories, so only the ids that are
    nothing else are searched for.)"""
    distinctive = [o.id for o in OPTIONS if ":" in o.id]
    pattern = re.compile("|".join(re.escape(f'"{i}"') for i in distinctive))
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for pkg in ("app", "models", "pricing")
        for path in (ROOT / pkg).rglob("*.py")
        if path.name != "options.py"
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert found == []
