"""The infrastructure lines of an owned cluster besides servers and fabric (issue 13): the parallel
file system sized by capacity, write bandwidth or the smallest system; the front-end/storage and
out-of-band networks; management servers; cabinets and PDUs per rack; the liquid-cooling loop.

Expected values are worked out here from the made-up fixture catalogue's figures
(tests/fixtures/catalogue/assumptions.csv: 0.133 GB/s per TB, a 250 TB smallest system, raw
100 USD/TB x uplift 2, 7,090 + 500 USD of networks per node, 3 management servers at least and 4.92
per 1,000 GPUs at 10,424 USD, 3,000 + 6,000 USD per rack, 1,500 USD/kW of liquid loop; 32 GPUs a
rack air-cooled, 72 liquid-cooled, in timeline.csv)."""

from __future__ import annotations

import math

import pytest

from models.scenario import Scenario
from pricing import cashflows as cf
from pricing import engine
from pricing.inputs import build_inputs
from tests.builders import RUNS, scenario

#: one 200B-token run on 64 H100s over 36 months (tests/builders.py RUNS), building against renting
OWNED = RUNS | {"usage": {"mode": "runs", "runs": 1}, "options": {"compare": ["build", "rent"]}}


def capex(sc, cat) -> dict[str, float]:
    inp = build_inputs(sc, cat)
    return {k: float(v[0, 0]) for k, v in cf.hardware_capex(inp, engine.base_params(inp)).items()}


@pytest.mark.parametrize(
    ("write", "overrides", "tb", "sized_by"),
    [
        (8.0, {}, 250.0, "minimum system"),  # 8 / 0.133 = 60 TB < 250
        (100.0, {}, 100 / 0.133, "bandwidth"),  # 752 TB
        # checkpoints + data win when the smallest system and the bandwidth ask for less
        (
            8.0,
            {"storage_min_system_tb": 1.0, "storage_write_gbyte_per_s_per_tb": 100.0},
            None,
            "capacity",
        ),
    ],
)
def test_the_file_system_is_the_largest_of_capacity_bandwidth_and_the_smallest_system(
    fixture_catalogue, write, overrides, tb, sized_by
):
    sc = scenario(OWNED, reliability__storage_write_gbyte_per_s=write, overrides=overrides)
    inp = build_inputs(sc, fixture_catalogue)
    c = engine.compare(sc, fixture_catalogue, decision=False)
    expected = inp.storage_tb if tb is None else tb
    assert c.training.storage_system_tb == pytest.approx(expected)
    assert c.training.storage_sized_by == sized_by
    # priced at the system's usable TB x raw USD/TB x system uplift (100 x 2)
    assert capex(sc, fixture_catalogue)["storage"] == pytest.approx(expected * 200)


def test_rented_storage_stays_on_the_capacity_held(fixture_catalogue):
    """Rent pays storage_rent per GB-month on what it holds, whatever size of system a build buys."""
    small = engine.compare(scenario(OWNED), fixture_catalogue, decision=False)
    big = engine.compare(
        scenario(OWNED, overrides={"storage_min_system_tb": 5000.0}),
        fixture_catalogue,
        decision=False,
    )
    assert small.options[1].breakdown_usd["storage"] == big.options[1].breakdown_usd["storage"]
    # while the build buys 4,750 TB more at 200 USD/TB
    grown = big.options[0].breakdown_usd["hardware"] - small.options[0].breakdown_usd["hardware"]
    assert grown == pytest.approx(4750 * 200)


def test_networks_and_management_servers_follow_nodes_and_gpus(fixture_catalogue):
    # 8 nodes; the 3-server minimum binds
    small = capex(scenario(OWNED, cluster__gpus=64), fixture_catalogue)
    assert small["networks"] == pytest.approx(8 * (7090 + 500))
    assert small["management servers"] == pytest.approx(3 * 10424)
    # 128 nodes; 4.92 per 1,000 GPUs binds
    big = capex(scenario(OWNED, cluster__gpus=1024), fixture_catalogue)
    assert big["networks"] == pytest.approx(128 * (7090 + 500))
    assert big["management servers"] == pytest.approx(4.92 * 1.024 * 10424)


def test_racks_come_from_the_timelines_gpus_per_rack_and_liquid_racks_bring_their_cabinet(
    fixture_catalogue,
):
    # 64 / 32 = 2 racks, cabinet and PDUs
    air = capex(scenario(OWNED, cluster__gpus=64), fixture_catalogue)
    assert air["racks and PDUs"] == pytest.approx(2 * (3000 + 6000))
    assert air["liquid cooling"] == 0.0  # nothing for air-cooled GPUs
    # 144 / 72 = 2 NVL72 racks: PDUs only
    sc = scenario(OWNED, cluster={"gpu": "GB200", "gpus": 144})
    inp = build_inputs(sc, fixture_catalogue)
    liquid = capex(sc, fixture_catalogue)
    assert (inp.cooling, inp.racks) == ("liquid", 2)
    assert liquid["racks and PDUs"] == pytest.approx(2 * 6000)
    assert liquid["liquid cooling"] == pytest.approx(inp.it_power_kw * 1500)
    assert math.isclose(inp.it_power_kw, inp.nodes * inp.node_power_kw)


def test_the_hardware_lines_shown_sum_to_what_the_build_pays(fixture_catalogue):
    c = engine.compare(scenario(OWNED, cluster__gpus=1024), fixture_catalogue, decision=False)
    lines = c.operations.hardware_capex_usd
    assert {"storage", "networks", "management servers", "racks and PDUs", "liquid cooling"} <= set(
        lines
    )
    assert sum(lines.values()) == pytest.approx(c.options[0].breakdown_usd["hardware"])
    assert (c.operations.racks, c.operations.cooling) == (32, "air")


@pytest.mark.parametrize(
    ("gpus", "tiers", "switches", "transceivers"),
    [(131_072, 4, 14_336, 1_048_576), (262_144, 4, 28_672, 2_097_152)],
)
def test_a_cluster_past_65536_gpus_is_priced_on_its_four_tier_fabric(
    fixture_catalogue, gpus, tiers, switches, transceivers
):
    """Issue 27: a v1 cluster of 131,072 or 262,144 GPUs is accepted and priced, its fabric a
    4-tier fat tree of 64-port switches (tests/test_infrastructure.py counts it by hand): the
    fabric line is its switches at 20,000 USD and its transceivers at 500 USD (fixture)."""
    sc = Scenario.model_validate(
        {
            "workload": {"model": "llama3-405b", "tokens": 1e13, "global_batch_tokens": 2**27},
            "cluster": {"gpu": "H100-SXM", "gpus": gpus},
            "usage": {"mode": "runs", "runs": 1},
            "term": {"months": 36},
            "options": {"compare": ["build", "rent", "cloud:committed_1y"]},
        }
    )
    c = engine.compare(sc, fixture_catalogue, decision=False)
    fabric = c.training.fabric
    assert (c.training.gpus, fabric.tiers, fabric.switches) == (gpus, tiers, switches)
    assert fabric.transceivers == transceivers
    assert c.operations.hardware_capex_usd["fabric"] == pytest.approx(
        switches * 20_000 + transceivers * 500
    )
    assert all(o.available and math.isfinite(o.total_usd) and o.total_usd > 0 for o in c.options)
