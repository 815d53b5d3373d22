"""One default weight precision for a service (models/serving/precision.py): `clusterplan serve`,
the Serve page (app/views/serve.py) and a portfolio's serve workload (models/portfolio/workloads.py
Serve) leave it out and the core sizes FP8 where the GPU has FP8 tensor cores, else BF16. The
command line and the page size the page's starting service alike; each fails here if its default
is changed alone (issue 29: BF16 on the command line against FP8 on the page gave different GPU
counts for the same service)."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from app.cli import main
from app.views import serve as serve_page
from models.errors import InputError
from models.hardware import load_gpus
from models.portfolio.demand import size_workload
from models.portfolio.workloads import Serve
from models.serving.plan import ServeInputs, plan_serving
from models.serving.precision import DEFAULT_PRECISION_TEXT, default_precision
from tests import readback
from tests.builders import app
from tests.readback import metric

#: the page's starting service as the command line's options (the page starts on requests/s)
OPTIONS = {
    "model": "--model",
    "gpu": "--gpu",
    "input_tokens": "--input-tokens",
    "output_tokens": "--output-tokens",
    "rps": "--rps",
    "ttft_ms": "--ttft-ms",
    "tpot_ms": "--tpot-ms",
}


def serve_cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(["serve", *args])
    return rc, out.getvalue(), err.getvalue()


def starting_service(*extra: str, **changes) -> list[str]:
    """The command line's options for the page's starting service, with `changes` and `extra`
    options; no --precision unless `extra` gives one."""
    fields = {k: serve_page.STARTING[k] for k in OPTIONS} | changes
    return [str(a) for k, flag in OPTIONS.items() for a in (flag, fields[k])] + list(extra)


def starting_service_cli(*extra: str, **changes) -> dict:
    """`clusterplan serve --json` for the page's starting service (starting_service)."""
    rc, out, err = serve_cli(*starting_service(*extra, "--json", **changes))
    assert rc == 0 and not err, err
    return json.loads(out)


def gpus_shown(at) -> int:
    text = metric(at, "GPUs")
    return int(readback.number(text, ""))


def test_the_command_line_and_the_page_size_the_default_service_alike():
    """The page's starting service, typed on the command line without --precision, takes the
    GPUs the page shows: one default (FP8 on H100), defined once in the core."""
    at = app("serve")
    assert not at.error
    cli = starting_service_cli()
    assert gpus_shown(at) == cli["gpus"]
    assert cli["precision"] == default_precision(serve_page.STARTING["gpu"]) == "fp8"
    assert "precision" not in serve_page.STARTING  # the record's default, not the page's own
    assert at.selectbox(key="s_precision").value is None  # left at the default
    # the page says what its default is and that the weights are FP8
    assert "Default: FP8 on H100-SXM" in at.selectbox(key="s_precision").options
    assert "Weights FP8, KV cache FP8" in " ".join(c.value for c in at.caption)
    # a portfolio's serve workload of the same service, precision left out, takes as many
    w = Serve(
        name="chat",
        **{k: serve_page.STARTING[k] for k in ("model", "input_tokens", "output_tokens", "rps")},
        ttft_ms=serve_page.STARTING["ttft_ms"],
        tpot_ms=serve_page.STARTING["tpot_ms"],
        duration_months=1,
    )
    assert size_workload(w, serve_page.STARTING["gpu"]).gpus_by_month == [cli["gpus"]]
    assert w.precision is None
    # and BF16, asked for by name, needs more: the default is not an idle choice; on the page
    # too, and choosing the default again leaves the field out
    bf16 = starting_service_cli("--precision", "bf16")["gpus"]
    assert bf16 > cli["gpus"]
    at.selectbox(key="s_precision").set_value("bf16").run()
    assert gpus_shown(at) == bf16 and at.session_state[serve_page.KEY]["precision"] == "bf16"
    at.selectbox(key="s_precision").select_index(0).run()  # AppTest's set_value(None) sets nothing
    assert "precision" not in at.session_state[serve_page.KEY] and gpus_shown(at) == cli["gpus"]


def test_a_gpu_without_fp8_gets_bf16_by_default():
    """A100 has no FP8 tensor cores: the command line, the page and a portfolio's serve workload
    size it at BF16 (weights and KV cache) without being told, where FP8 asked for by name is
    still refused under precision."""
    cli = starting_service_cli(gpu="A100-80GB")
    assert (cli["precision"], cli["kv_precision"]) == ("bf16", "bf16")
    rc, out, err = serve_cli(*starting_service(gpu="A100-80GB"))
    assert rc == 0 and "llama3-70b on A100-80GB, weights bf16, KV cache bf16" in out, err
    at = app("serve")
    at.selectbox(key="s_gpu").set_value("A100-80GB").run()
    assert not at.exception and not at.error
    assert at.selectbox(key="s_precision").value is None
    assert "Default: BF16 on A100-80GB" in at.selectbox(key="s_precision").options
    assert gpus_shown(at) == cli["gpus"]
    # a precision chosen by name stays chosen when the GPU (and the default's label) changes
    at.selectbox(key="s_precision").set_value("bf16").run()
    at.selectbox(key="s_gpu").set_value("H200").run()
    assert at.selectbox(key="s_precision").value == "bf16"
    assert "Default: FP8 on H200" in at.selectbox(key="s_precision").options
    w = Serve(name="chat", model="llama3-70b", rps=10, tpot_ms=50, duration_months=1)
    a100 = ServeInputs(
        model="llama3-70b",
        gpu="A100-80GB",
        input_tokens=w.input_tokens,
        output_tokens=w.output_tokens,
        rps=10,
        tpot_ms=50,
    )
    assert size_workload(w, "A100-80GB").gpus_by_month == [plan_serving(a100).gpus]
    assert plan_serving(a100).precision == "bf16"
    with pytest.raises(InputError) as exc:
        plan_serving(a100.model_copy(update={"precision": "fp8"}))
    assert exc.value.field == "precision" and "no FP8 tensor cores" in str(exc.value)


@pytest.mark.parametrize("gpu", list(load_gpus()))
def test_the_default_is_fp8_exactly_where_the_gpu_has_fp8(gpu):
    spec = load_gpus()[gpu]
    assert default_precision(gpu) == ("fp8" if spec.fp8_dense_tflops else "bf16")
    assert default_precision(spec) == default_precision(gpu)


def test_the_help_says_what_the_default_is():
    with contextlib.redirect_stdout(io.StringIO()) as out, pytest.raises(SystemExit):
        main(["serve", "--help"])
    assert DEFAULT_PRECISION_TEXT in " ".join(out.getvalue().split())
    assert DEFAULT_PRECISION_TEXT in ServeInputs.model_fields["precision"].description
    assert DEFAULT_PRECISION_TEXT in Serve.model_fields["precision"].description


def test_the_rule_of_thumb_line_reads_as_on_the_page():
    """`clusterplan serve` sets the rule of thumb beside the plan's throughput in the Serve page's
    words (one sentence in app/formatting.py), pointing to where the two are scored."""
    plan = plan_serving(ServeInputs(**{k: serve_page.STARTING[k] for k in OPTIONS}))
    rc, out, err = serve_cli(*starting_service())
    assert rc == 0 and not err, err
    line = next(x for x in out.splitlines() if x.startswith("Rule of thumb"))
    rule, own = plan.rule_of_thumb_tokens_per_s_per_gpu, plan.output_tokens_per_s_per_gpu
    assert f"{rule:,.0f} output tokens/s per GPU, {rule / own:,.1f}× this plan's {own:,.0f}" in line
    assert line.endswith(
        "a size to buy on (how each scores against measured servers: clusterplan validate)"
    )
