"""`clusterplan compare A.json B.json [C.json] [--json]`: one file as it always was, two or three
side by side (the same table as the portal and the PDF), more than three a one-line error."""

from __future__ import annotations

import copy
import json

import pytest

from app import side_by_side as sbs_app
from app.cli import main
from app.exports import comparison_json
from app.formatting import usd, usd_rate
from app.report_text import comparison_report
from app.scenario_files import EXAMPLE
from models.scenario import Scenario
from pricing.engine import compare
from pricing.side_by_side import side_by_side


def cli(capsys, *args: str) -> tuple[int, str, str]:
    rc = main(list(args))
    out, err = capsys.readouterr()
    return rc, out, err


def variant(**cluster) -> dict:
    data = copy.deepcopy(EXAMPLE)
    data["cluster"].update(cluster)
    return data


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Three scenario files: the example on H100, on B200, and on half the GPUs."""
    folder = tmp_path_factory.mktemp("sbs")
    out = {}
    for name, data in {
        "h100": variant(),
        "b200": variant(gpu="B200"),
        "half": variant(gpus=512),
    }.items():
        path = folder / f"{name}.json"
        path.write_text(json.dumps(data))
        out[name] = (str(path), Scenario.model_validate(data))
    return out


@pytest.fixture(scope="module")
def comparisons(files):
    return {k: compare(sc) for k, (_, sc) in files.items()}


def test_one_file_is_as_it_always_was(capsys, files, comparisons):
    path = files["h100"][0]
    rc, out, _ = cli(capsys, "compare", path)
    assert rc == 0 and out == comparison_report(comparisons["h100"]) + "\n"
    rc, out, _ = cli(capsys, "compare", path, "--json")
    assert rc == 0 and out == comparison_json(comparisons["h100"]) + "\n"


@pytest.mark.parametrize("keys", [("h100", "b200"), ("h100", "b200", "half")])
def test_two_or_three_files_print_the_side_by_side_table(capsys, files, comparisons, keys):
    rc, out, err = cli(capsys, "compare", *(files[k][0] for k in keys))
    assert rc == 0 and not err
    expected = side_by_side([(k, comparisons[k]) for k in keys])
    assert out == sbs_app.report(expected) + "\n"
    lines = out.splitlines()
    for k in keys:
        c = comparisons[k]
        first = next(i for i, line in enumerate(lines) if line.strip().startswith(k + " "))
        # the scenario's rows, in its comparison's order, with its own figures
        for line, o in zip(lines[first : first + len(c.options)], c.options, strict=True):
            assert o.label in line
            assert usd(o.total_usd) in line and usd(o.npv_usd) in line
            assert usd_rate(o.usd_per_gpu_hour) in line
    order = [next(i for i, ln in enumerate(lines) if ln.strip().startswith(k + " ")) for k in keys]
    assert order == sorted(order)


@pytest.mark.parametrize("keys", [("h100", "b200"), ("half", "h100", "b200")])
def test_json_with_several_files_is_the_list_of_comparisons_in_order(
    capsys, files, comparisons, keys
):
    rc, out, _ = cli(capsys, "compare", "--json", *(files[k][0] for k in keys))
    assert rc == 0
    got = json.loads(out)
    assert isinstance(got, list) and len(got) == len(keys)
    for item, k in zip(got, keys, strict=True):
        assert item == json.loads(comparison_json(comparisons[k]))


def test_more_than_three_files_is_a_clear_error(capsys, files):
    paths = [p for p, _ in files.values()]
    rc, out, err = cli(capsys, "compare", *paths, paths[0])
    assert rc == 2 and not out
    assert err.strip() == (
        "clusterplan compare: 4 scenario files given; it compares one file, or 2 to 3 side by side"
    )


def test_csv_takes_one_file_and_stdin_is_read_once(capsys, files):
    a, b = files["h100"][0], files["b200"][0]
    rc, _, err = cli(capsys, "compare", "--csv", a, b)
    assert rc == 2 and "--csv takes one scenario file" in err
    rc, _, err = cli(capsys, "compare", "-", "-")
    assert rc == 2 and "standard input ('-') can be read only once" in err


def test_a_bad_file_among_several_is_named(capsys, files, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(variant(gpus=-4)))
    rc, out, err = cli(capsys, "compare", files["h100"][0], str(bad))
    assert rc == 2 and not out
    assert err.startswith(f"clusterplan compare: {bad}: cluster.gpus")


def test_names_are_stems_then_paths_then_numbered():
    assert sbs_app.file_names(["a/x.json", "b/y.json"]) == ["x", "y"]
    assert sbs_app.file_names(["a/x.json", "b/x.json"]) == ["a/x.json", "b/x.json"]
    assert sbs_app.file_names(["x.json", "x.json", "-"]) == [
        "x.json",
        "x.json (2)",
        "standard input",
    ]
    long = sbs_app.file_names(["d/" + "n" * 100 + ".json", "e\x1b.json"])
    assert len(long[0]) == 60 and long[1] == "e"
