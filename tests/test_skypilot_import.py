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
from pricing.catalogue import skypilot_guards as guards
from pricing.catalogue import skypilot_import as sky
from pricing.catalogue.loader import DATA_DIR, load_catalogue

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


# ------------------------------------------------------------------ guards against poisoned files


def vms_file(tmp_path: pathlib.Path, body: str, cloud: str = "aws", header: str = GOOD_HEADER):
    path = tmp_path / cloud / "vms.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{header}\n{body}", encoding="utf-8")
    return path


def refused(capsys, tmp_path: pathlib.Path, *args: str, target=None) -> str:
    """Runs the import with --write; it must exit 2 with one line and leave the catalogue alone."""
    target = target or data_dir(tmp_path)
    before = digest(target / "rental_prices.csv")
    rc, out, err = cli(capsys, *args, "--data-dir", str(target), "--write")
    assert rc == 2 and out == "", (rc, out, err)
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert err.startswith("clusterplan catalogue import-skypilot: ")
    assert digest(target / "rental_prices.csv") == before
    assert sorted(p.name for p in target.iterdir()) == sorted(
        p.name for p in FIXTURE_CATALOGUE.iterdir()
    )  # no staged file left behind
    return err


@pytest.mark.parametrize(
    "body, where",
    [
        # 1e300 / 8 GPUs would be written as a 300-digit price
        ("t.x8,H100,8,1e300,,r1\n", "line 2, field 'Price'"),
        ("t.x8,H100,8,80,1e300,r1\n", "line 2, field 'SpotPrice'"),
        ("t.x1,H100,1,1001,,r1\n", "line 2, field 'Price'"),
        # prices that round to 0 at 4 decimals crashed with a pydantic traceback
        ("t.x8,H100,8,80,,r1\nt.x8,H100,8,0.0001,,r2\n", "line 3, field 'Price'"),
        ("t.x8,H100,8,80,0.00001,r1\n", "line 2, field 'SpotPrice'"),
        ("t.x1,H100,1,0.009,,r1\n", "line 2, field 'Price'"),
        # so did an accelerator count of 1e300
        ("t.x8,H100,1e300,80,,r1\n", "line 2, field 'AcceleratorCount'"),
        ("t.x8,H100,73,80,,r1\n", "line 2, field 'AcceleratorCount'"),
    ],
)
def test_a_price_per_gpu_hour_out_of_range_or_a_gpu_count_past_one_rack_is_refused(
    capsys, tmp_path, body, where
):
    err = refused(capsys, tmp_path, str(vms_file(tmp_path, body)))
    assert where in err and "vms.csv" in err
    assert "0.01" in err and "1000" in err if "Price" in where else "72" in err


def test_the_bounds_are_named_and_inclusive(capsys, tmp_path):
    assert (guards.MIN_USD_PER_GPU_HOUR, guards.MAX_USD_PER_GPU_HOUR) == (0.01, 1000.0)
    assert guards.MAX_GPUS_PER_VM == 72
    path = vms_file(tmp_path, "t.x1,H100,1,0.01,,r1\nt.x72,H100,72,72000,,r2\n")
    rows = {sky.key(r): r for r in sky.to_rows(sky.parse(path), as_of=AS_OF, today=TODAY)}
    assert price(rows, "H100-SXM", "AWS", "on_demand", "r1") == 0.01
    assert price(rows, "H100-SXM", "AWS", "on_demand", "r2") == 1000.0


def test_a_gcp_gpu_priced_out_of_range_with_its_host_vm_is_refused(capsys, tmp_path):
    header = "InstanceType,AcceleratorName,AcceleratorCount,Price,SpotPrice,Region,AvailabilityZone"
    body = (
        "a3-highgpu-8g,,,1e300,,us-central1,us-central1-a\n,H100,8,64,,us-central1,us-central1-a\n"
    )
    err = refused(capsys, tmp_path, str(vms_file(tmp_path, body, "gcp", header)))
    assert "line 3, field 'Price'" in err and "a3-highgpu-8g" in err


@pytest.mark.parametrize(
    "cell",
    [
        '"=HYPERLINK(""http://evil.example"",""click"")"',
        "@SUM(1)",
        "+1",
        "-1",
        "=1+1",
        '"us-east\n=1+1"',  # an embedded newline
        "us-east-1\x1b[31m",  # an escape byte
        "us\x00east",
        "us\u202eeast",  # a bidi override
        "us;east",
        "x" * 65,
        "",
    ],
)
def test_a_region_outside_the_safe_alphabet_is_refused_not_cleaned(capsys, tmp_path, cell):
    err = refused(capsys, tmp_path, str(vms_file(tmp_path, f"t.x8,H100,8,80,,{cell}\n")))
    assert "field 'Region'" in err and "region" in err


@pytest.mark.parametrize(
    "region",
    [
        "us-east-1",
        "Czechia, CZ, EU",
        ", US, NA",
        "East Coast (NY2)",
        "St.-Petersburg, RU",
        "São Paulo",
    ],
)
def test_region_names_of_real_catalog_files_are_accepted(capsys, tmp_path, region):
    # Vast.ai's file names regions "Texas, US, NA" (and ", US, NA"), Paperspace's "East Coast (NY2)"
    cell = f'"{region}"' if "," in region else region
    path = vms_file(tmp_path, f"t.x8,H100,8,80,,{cell}\n", "vast")
    target = data_dir(tmp_path)
    rc, out, err = cli(capsys, str(path), "--data-dir", str(target), "--write")
    assert rc == 0, err
    _, after = sky.read_rentals(target)
    assert ("H100-SXM", "Vast.ai", "on_demand", region) in {sky.key(r) for r in after}


@pytest.mark.parametrize("args", [["--cloud", "=cmd"], ["--cloud=-x"], ["--cloud", "a\tb"]])
def test_a_provider_outside_the_safe_alphabet_is_refused(capsys, tmp_path, args):
    path = vms_file(tmp_path, "t.x8,H100,8,80,,r1\n")
    err = refused(capsys, tmp_path, str(path), *args)
    assert "provider" in err and "vms.csv" in err


def test_a_provider_named_by_a_hostile_folder_is_refused(capsys, tmp_path):
    path = vms_file(tmp_path, "t.x8,H100,8,80,,r1\n", cloud="@evil")
    err = refused(capsys, tmp_path, str(tmp_path))
    assert "'@evil'" in err and "provider" in err and str(path) in err


def test_an_instance_type_with_control_characters_is_refused(capsys, tmp_path):
    err = refused(capsys, tmp_path, str(vms_file(tmp_path, "t.x8\x1b[2J,H100,8,80,,r1\n")))
    assert "line 2, field 'InstanceType'" in err


def catalogue_with(tmp_path: pathlib.Path, rental_row: str) -> pathlib.Path:
    target = data_dir(tmp_path)
    (target / "rental_prices.csv").write_text(HEADER + rental_row + "\n", encoding="utf-8")
    return target


@pytest.mark.parametrize("old, ratio", [("1.0", "12x"), ("200.0", "0.06x")])
def test_a_change_beyond_10x_is_refused_without_the_flag(capsys, tmp_path, old, ratio):
    # the import prices AWS's H100 on-demand in us-east-1 at 12.00 (line 5, the x1 instance)
    target = catalogue_with(
        tmp_path, f"H100-SXM,AWS,hyperscaler,on_demand,{old},us-east-1,2025-01-01,A,{MADE_UP}"
    )
    for write in (["--write"], []):  # the dry run refuses it too
        rc, out, err = cli(capsys, str(SKYPILOT / "aws"), "--data-dir", str(target), *write)
        assert rc == 2 and out == "" and len(err.splitlines()) == 1
        assert "vms.csv, line 5, field 'Price'" in err and ratio in err
        assert "--allow-large-changes" in err and "H100-SXM AWS on_demand us-east-1" in err
    refused(capsys, tmp_path, str(SKYPILOT / "aws"), target=target)


def test_a_change_of_exactly_10x_passes_and_the_flag_lets_a_larger_one_through(capsys, tmp_path):
    row = f"H100-SXM,AWS,hyperscaler,on_demand,{{}},us-east-1,2025-01-01,A,{MADE_UP}"
    target = catalogue_with(tmp_path, row.format("1.2"))
    rc, out, err = cli(capsys, str(SKYPILOT / "aws"), "--data-dir", str(target))
    assert rc == 0 and "1.2000 -> 12.0000 (+900.0 %)" in out, err
    (tmp_path / "big").mkdir()
    target = catalogue_with(tmp_path / "big", row.format("0.5"))
    args = [str(SKYPILOT / "aws"), "--data-dir", str(target), "--write", "--allow-large-changes"]
    rc, out, err = cli(capsys, *args)
    assert rc == 0 and "0.5000 -> 12.0000 (+2300.0 %)" in out, err
    _, after = sky.read_rentals(target)
    (written,) = [r for r in after if sky.key(r) == ("H100-SXM", "AWS", "on_demand", "us-east-1")]
    assert written["price_usd_per_gpu_hour"] == "12"


def test_a_file_over_the_byte_cap_is_refused_before_it_is_read(capsys, tmp_path):
    assert guards.MAX_FILE_BYTES == 20 * 1024 * 1024
    path = tmp_path / "aws" / "vms.csv"
    path.parent.mkdir()
    with path.open("wb") as handle:  # sparse: no 20 MiB written, and no header to parse either
        handle.truncate(guards.MAX_FILE_BYTES + 1)
    err = refused(capsys, tmp_path, str(path))
    assert "vms.csv" in err and f"{guards.MAX_FILE_BYTES:,} bytes" in err


@pytest.mark.parametrize(
    "cap, says",
    [
        ("MAX_FILE_BYTES", "300 bytes"),
        ("MAX_FILE_ROWS", "3 rows"),
        ("MAX_IMPORT_PRICES", "3 prices"),
    ],
)
def test_the_caps_are_checked_and_named(capsys, tmp_path, monkeypatch, cap, says):
    monkeypatch.setattr(guards, cap, 3 if cap != "MAX_FILE_BYTES" else 300)
    err = refused(capsys, tmp_path, str(SKYPILOT / "aws"))
    assert says in err and ("vms.csv" in err or "aws" in err)


def test_the_default_caps():
    assert guards.MAX_FILE_ROWS == 200_000 and guards.MAX_IMPORT_PRICES == 10_000


class CountingRow(dict):
    """A row that counts every cell read, to tell a linear merge from a quadratic one."""

    reads = 0

    def __getitem__(self, name):
        CountingRow.reads += 1
        return super().__getitem__(name)


def test_merge_is_linear_and_keeps_the_order():
    def row(gpu: str, region: str) -> CountingRow:
        return CountingRow(gpu_id=gpu, provider="P", offer="on_demand", region=region)

    current = [row("A100-40GB", f"c{i}") for i in range(300)] + [row("H100-SXM", "c0")]
    new = [row("H100-SXM", f"n{i}") for i in range(300)] + [
        row("B200", "n0"),
        row("A100-40GB", "c5"),
    ]
    new += [row("H100-SXM", "c0"), row("B200", "n1")]
    CountingRow.reads = 0
    merged = sky.merge(current, new)
    assert CountingRow.reads <= 20 * (len(current) + len(new))  # a rescan per new row: ~150,000
    keys = [sky.key(r) for r in merged]
    assert keys[:300] == [("A100-40GB", "P", "on_demand", f"c{i}") for i in range(300)]
    assert merged[5] is new[301]  # replaced in place
    assert keys[300:302] == [("H100-SXM", "P", "on_demand", r) for r in ("c0", "n0")]
    assert merged[300] is new[302]
    assert keys[-2:] == [("B200", "P", "on_demand", "n0"), ("B200", "P", "on_demand", "n1")]
    assert len(merged) == 301 + 302
