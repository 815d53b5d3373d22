"""`clusterplan catalogue import-skypilot`: SkyPilot's vms.csv files into rental_prices.csv.

The catalog files are the made-up ones in tests/fixtures/skypilot/ (its README gives each expected
figure). Nothing here reads or writes the real pricing/data/ files in place: the catalogue the
import compares with and writes to is a temporary copy, of tests/fixtures/catalogue/ (with a few
rows of our own) or of pricing/data/.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import pathlib
import shutil

import pytest

from app.cli import main
from models.hardware import gpu_ids
from pricing import skypilot_import as sky
from pricing.catalogue import DATA_DIR, load_catalogue

TESTS = pathlib.Path(__file__).resolve().parent
SKYPILOT = TESTS / "fixtures" / "skypilot"
FIXTURE_CATALOGUE = TESTS / "fixtures" / "catalogue"
AS_OF = dt.date(2026, 1, 2)
TODAY = dt.date(2026, 1, 3)
MADE_UP = "test fixture (made-up figure),TEST DATA: a round made-up number for unit tests"
HEADER = (
    "gpu_id,provider,provider_kind,offer,price_usd_per_gpu_hour,region,as_of,grade,source,notes\n"
)
#: rows the import meets in the catalogue: the same price, a different one, and two it never names
OUR_ROWS = f"""\
H100-SXM,AWS,hyperscaler,on_demand,12.0,us-east-1,2025-01-01,A,{MADE_UP}
H100-SXM,AWS,hyperscaler,spot,5.0,us-east-1,2025-01-01,A,{MADE_UP}
H100-SXM,GCP,hyperscaler,on_demand,8.0,us-central1,2025-01-01,A,{MADE_UP}
H100-SXM,GCP,hyperscaler,on_demand,9.0,asia-east1,2025-01-01,A,{MADE_UP}
H100-SXM,NeoA,neocloud,on_demand,4.0,,2025-01-01,A,{MADE_UP}
"""


@pytest.fixture(scope="module")
def parsed() -> sky.Parsed:
    return sky.parse(SKYPILOT)


@pytest.fixture(scope="module")
def rows(parsed) -> dict[tuple[str, str, str, str], dict[str, str]]:
    return {sky.key(r): r for r in sky.to_rows(parsed, as_of=AS_OF, today=TODAY)}


def price(rows, gpu, provider, offer, region) -> float:
    return float(rows[(gpu, provider, offer, region)]["price_usd_per_gpu_hour"])


def data_dir(tmp_path: pathlib.Path) -> pathlib.Path:
    """A copy of the made-up test catalogue whose rental file is HEADER and OUR_ROWS (a copy: a
    broken import must never be able to write into a folder of the repository)."""
    target = tmp_path / "data"
    shutil.copytree(FIXTURE_CATALOGUE, target)
    (target / "rental_prices.csv").write_text(HEADER + OUR_ROWS, encoding="utf-8")
    return target


def digest(path: pathlib.Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def cli(capsys, *args: str) -> tuple[int, str, str]:
    rc = main(["catalogue", "import-skypilot", *args])
    out, err = capsys.readouterr()
    return rc, out, err


# ------------------------------------------------------------------------------ arithmetic


def test_price_per_gpu_hour_is_the_instance_price_over_its_gpu_count(parsed, rows):
    x2 = [i for i in parsed.instances if i.instance_type == "test.h100x2"]
    assert len(x2) == 1 and x2[0].gpus == 2
    assert x2[0].per_gpu == 20.0 and x2[0].spot_per_gpu == 4.5  # 40.00 and 9.00 for 2 GPUs
    assert price(rows, "A100-40GB", "AWS", "on_demand", "us-east-1") == 3.0  # 24.00 / 8
    assert price(rows, "A100-40GB", "AWS", "spot", "us-east-1") == 1.0  # 8.00 / 8
    assert price(rows, "H100-SXM", "AWS", "on_demand", "us-west-2") == 13.0  # 104.00 / 8


def test_the_price_is_the_median_over_instance_types_in_each_region(rows):
    # us-east-1: 10.00 (x8), 12.00 (x1), 20.00 (x2): the median, not the mean (14.00)
    assert price(rows, "H100-SXM", "AWS", "on_demand", "us-east-1") == 12.0
    # spot: x8 is 3.00 and 4.00 in two zones (3.50), x2 4.50, x1 has no spot price: 4.00
    assert price(rows, "H100-SXM", "AWS", "spot", "us-east-1") == 4.0
    # each region is its own row
    assert price(rows, "H100-SXM", "AWS", "spot", "us-west-2") == 5.0
    notes = rows[("H100-SXM", "AWS", "on_demand", "us-east-1")]["notes"]
    assert notes.startswith("derived: Price / AcceleratorCount")
    assert "median over 3 instance type(s) in the region" in notes


def test_a_row_without_a_spot_price_gives_no_spot_row(rows):
    assert price(rows, "A100-40GB", "GCP", "on_demand", "us-central1") == 4.0  # host 1.00 + 3.00
    assert ("A100-40GB", "GCP", "spot", "us-central1") not in rows  # the GPU's SpotPrice is empty
    assert not any(k[1] == "Lambda" and k[2] == "spot" for k in rows)  # Lambda lists none


def test_gcp_gpu_rows_are_priced_with_their_host_vm(parsed, rows):
    assert price(rows, "H100-SXM", "GCP", "on_demand", "us-central1") == 10.0  # (16 + 64) / 8
    assert price(rows, "H100-SXM", "GCP", "spot", "us-central1") == 2.5  # (4 + 16) / 8
    assert price(rows, "H100-SXM", "GCP", "on_demand", "europe-west4") == 12.0  # (20 + 76) / 8
    assert "host VM" in rows[("H100-SXM", "GCP", "on_demand", "us-central1")]["notes"]
    # H200's host VM (a3-ultragpu-8g) is not in the file: set aside, not priced without it
    assert parsed.skipped[("gcp", sky.NO_HOST)] == {"H200": 1}
    assert not any(k[0] == "H200" for k in rows)


def test_the_same_price_in_every_region_is_filed_once_without_a_region(rows):
    lambda_rows = [k for k in rows if k[1] == "Lambda"]
    assert lambda_rows == [("H100-SXM", "Lambda", "on_demand", "")]
    assert price(rows, "H100-SXM", "Lambda", "on_demand", "") == 3.1  # median of 3.00 and 3.20
    # prices that differ by region stay per region
    assert {k[3] for k in rows if k[:3] == ("H100-SXM", "AWS", "on_demand")} == {
        "us-east-1",
        "us-west-2",
    }


# --------------------------------------------------------------------------------- mapping


def test_accelerator_names_map_to_our_gpu_ids_and_providers_to_the_catalogues_names(rows):
    assert set(sky.ACCELERATORS.values()) <= set(gpu_ids())
    assert sky.ACCELERATORS["A100"] == "A100-40GB"  # SkyPilot's A100 is the 40 GB part
    assert sky.ACCELERATORS["H100-MEGA"] == "H100-SXM"
    kinds = {(r["provider"], r["provider_kind"]) for r in rows.values()}
    assert kinds == {("AWS", "hyperscaler"), ("GCP", "hyperscaler"), ("Lambda", "neocloud")}
    for (_, provider, _, _), row in rows.items():
        cloud = {"AWS": "aws", "GCP": "gcp", "Lambda": "lambda"}[provider]
        assert row["grade"] == "A" and row["as_of"] == "2026-01-02"
        assert row["source"].startswith(f"SkyPilot catalog {cloud}/vms.csv (imported 2026-01-03)")
        assert row["source"].endswith(str(SKYPILOT / cloud / "vms.csv"))
        assert row["notes"].startswith("derived: ")
    assert {k[0] for k in rows} == {"H100-SXM", "A100-40GB"}


def test_gpus_we_do_not_carry_and_pcie_cards_are_skipped_and_reported(
    parsed, rows, capsys, tmp_path
):
    assert parsed.skipped[("aws", sky.NOT_CARRIED)] == {"A10G": 2}
    assert parsed.skipped[("gcp", sky.NOT_CARRIED)] == {"L4": 1, "tpu-test-8": 1}
    assert parsed.skipped[("lambda", sky.PCIE)] == {"H100 (test_1x_h100_pcie)": 1}
    # the PCIe card's 2.00 is in no median: Lambda's H100 is 3.10, from the SXM instances only
    assert price(rows, "H100-SXM", "Lambda", "on_demand", "") == 3.1
    rc, out, err = cli(capsys, str(SKYPILOT), "--data-dir", str(data_dir(tmp_path)))
    assert rc == 0, err
    skipped = [line for line in out.splitlines() if line.startswith("skipped")]
    assert "skipped   aws: 2 rows, GPU the catalogue does not carry: A10G 2" in skipped
    assert any("lambda: 1 rows, PCIe" in line for line in skipped)
    assert len(skipped) == 4
    assert out.splitlines()[-1].count("6 rows skipped") == 1


def test_default_as_of_and_import_date_are_today(capsys, tmp_path):
    rows = sky.to_rows(sky.parse(SKYPILOT / "aws"))
    today = dt.date.today().isoformat()
    assert {r["as_of"] for r in rows} == {today}
    assert all(f"(imported {today})" in r["source"] for r in rows)


# ------------------------------------------------------------------------------ diff, write


def test_the_dry_run_reports_each_change_and_writes_nothing(capsys, tmp_path):
    target = data_dir(tmp_path)
    before = digest(target / "rental_prices.csv")
    rc, out, err = cli(capsys, str(SKYPILOT / "aws"), "--data-dir", str(target))
    assert rc == 0 and err == ""
    lines = out.splitlines()
    assert lines == [
        "added     A100-40GB  AWS          on_demand  us-east-1                   3.0000",
        "added     A100-40GB  AWS          spot       us-east-1                   1.0000",
        "added     H100-SXM   AWS          on_demand  us-west-2                  13.0000",
        "changed   H100-SXM   AWS          spot       us-east-1                   5.0000 -> 4.0000"
        " (-20.0 %)",
        "added     H100-SXM   AWS          spot       us-west-2                   5.0000",
        "skipped   aws: 2 rows, GPU the catalogue does not carry: A10G 2",
        "1 file(s) (aws), 6 GPU instance rows: 6 prices: 4 added, 1 changed, 1 unchanged; "
        "2 rows skipped; nothing written (--write merges them in)",
    ]
    assert digest(target / "rental_prices.csv") == before


def test_diff_against_the_current_rows():
    current = [
        {"gpu_id": "H100-SXM", "provider": "GCP", "offer": "on_demand", "region": "us-central1"}
        | {"price_usd_per_gpu_hour": "8.0"}
    ]
    new = sky.to_rows(sky.parse(SKYPILOT / "gcp"), as_of=AS_OF, today=TODAY)
    changes = {sky.key(c.row): c for c in sky.diff(new, current)}
    change = changes[("H100-SXM", "GCP", "on_demand", "us-central1")]
    assert (change.kind, change.old_price, change.price) == ("changed", 8.0, 10.0)
    assert change.pct == pytest.approx(25.0)
    assert changes[("H100-SXM", "GCP", "spot", "us-central1")].kind == "added"
    same = sky.diff(new, [dict(r) for r in new])
    assert {c.kind for c in same} == {"unchanged"}


def test_write_merges_into_a_copy_of_the_real_catalogue_and_it_loads(capsys, tmp_path):
    real = DATA_DIR / "rental_prices.csv"
    real_before = digest(real)
    target = tmp_path / "data"
    shutil.copytree(DATA_DIR, target)
    _, before = sky.read_rentals(target)
    imported = sky.to_rows(sky.parse(SKYPILOT), as_of=AS_OF)
    keys = {sky.key(r) for r in imported}
    rc, out, err = cli(
        capsys, str(SKYPILOT), "--data-dir", str(target), "--write", "--as-of", "2026-01-02"
    )
    assert rc == 0, err
    header, after = sky.read_rentals(target)
    assert header == list(before[0])
    # every row the import does not name is kept as it was, in its order
    kept = [r for r in before if sky.key(r) not in keys]
    assert [r for r in after if sky.key(r) not in keys] == kept
    replaced = [r for r in before if sky.key(r) in keys]
    assert len(after) == len(before) - len(replaced) + len(imported)
    assert f"({len(replaced)} replaced, {len(imported) - len(replaced)} added; it loads)" in out
    # the merged catalogue loads, and holds the imported figures
    cat = load_catalogue(target)
    for row in imported:
        rentals = cat.rentals(row["gpu_id"], row["offer"], row["provider"])
        (found,) = [r for r in rentals if r.region == row["region"]]
        assert found.price_usd_per_gpu_hour == float(row["price_usd_per_gpu_hour"])
        assert str(found.as_of) == "2026-01-02" and found.source.startswith("SkyPilot catalog")
    assert digest(real) == real_before  # the real file was never touched
    assert sorted(p.name for p in target.iterdir()) == sorted(p.name for p in DATA_DIR.iterdir())


def test_write_refuses_a_merge_that_does_not_load_and_leaves_the_files_alone(capsys, tmp_path):
    target = data_dir(tmp_path)
    # another file of the folder is broken: the merged catalogue cannot load, so nothing is written
    residual = target / "residual_values.csv"
    residual.write_text(residual.read_text(encoding="utf-8") + "x,y\n", encoding="utf-8")
    before = digest(target / "rental_prices.csv")
    rc, out, err = cli(capsys, str(SKYPILOT / "aws"), "--data-dir", str(target), "--write")
    assert rc == 2 and out == ""
    assert len(err.splitlines()) == 1
    assert "the merged catalogue does not load, nothing written" in err
    assert "residual_values.csv" in err
    assert digest(target / "rental_prices.csv") == before
    assert sorted(p.name for p in target.iterdir()) == sorted(
        p.name for p in FIXTURE_CATALOGUE.iterdir()
    )  # no staged file left behind


# ------------------------------------------------------------------------------- bad input

GOOD_HEADER = "InstanceType,AcceleratorName,AcceleratorCount,Price,SpotPrice,Region"


@pytest.mark.parametrize(
    "text, where",
    [
        (f"{GOOD_HEADER}\nt.x8,H100,8,80,,r1\nt.x8,H100,8,abc,,r2\n", "line 3, field 'Price'"),
        (f"{GOOD_HEADER}\nt.x8,H100,8,80,1e999,r1\n", "line 2, field 'SpotPrice'"),
        (f"{GOOD_HEADER}\nt.x8,H100,eight,80,,r1\n", "line 2, field 'AcceleratorCount'"),
        (
            "InstanceType,AcceleratorName,AcceleratorCount,Region\nt,H100,8,r\n",
            "line 1, field 'Price'",
        ),
        (f"{GOOD_HEADER}\nt.x8,H100,8,80\n", "line 2, field '(row)'"),
    ],
)
def test_bad_input_exits_2_with_one_line_naming_file_line_and_column(capsys, tmp_path, text, where):
    path = tmp_path / "aws" / "vms.csv"
    path.parent.mkdir()
    path.write_text(text, encoding="utf-8")
    rc, out, err = cli(capsys, str(path), "--data-dir", str(data_dir(tmp_path)))
    assert rc == 2 and out == ""
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert err.startswith("clusterplan catalogue import-skypilot: vms.csv, ")
    assert where in err and str(path) in err


@pytest.mark.parametrize(
    "args, says",
    [
        (["{tmp}/missing.csv"], "missing.csv: no such file or directory"),
        (["{tmp}"], "no vms.csv, and no <cloud>/vms.csv under it"),
        ([str(SKYPILOT), "--as-of", "2026-02-30"], "--as-of: '2026-02-30' is not a date"),
        ([str(SKYPILOT), "--data-dir", "{tmp}"], "rental_prices.csv: file not found"),
    ],
)
def test_bad_paths_and_options_exit_2_with_one_line(capsys, tmp_path, args, says):
    rc, out, err = cli(capsys, *(a.format(tmp=tmp_path) for a in args))
    assert rc == 2 and out == ""
    assert len(err.splitlines()) == 1 and says in err
