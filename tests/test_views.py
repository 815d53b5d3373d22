"""Every portal page renders, reacts to its inputs, and keeps the scenario across pages
(Streamlit's AppTest: the real script, no browser)."""

import pathlib

import pytest
from streamlit.testing.v1 import AppTest

from app import share_link
from app.scenario_files import EXAMPLE
from app.schema_widgets import parse_number
from models.scenario import Scenario
from tests.builders import app
from tests.portal_app import goto
from tests.readback import metric, number

MAIN = str(pathlib.Path(__file__).resolve().parents[1] / "app" / "main.py")
PAGES = ["workload", "compare", "assumptions", "guide", "serve", "finetune"]


def switch(at: AppTest, page: str) -> AppTest:
    """Go to another page in the same session (the harness renders session_state["_page"])."""
    at.session_state["_page"] = page
    return at


def gpus_box(at: AppTest):
    """The GPU count input (a text box that reads 1e3 and 1,024, or a number input)."""
    return next(w for w in [*at.text_input, *at.number_input] if w.key == "w_gpus")


def set_gpus(at: AppTest, n: int) -> AppTest:
    box = gpus_box(at)
    return box.set_value(str(n) if box.type == "text_input" else n).run()


def markdown_text(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown) + "\n".join(c.value for c in at.caption)


def test_main_renders_with_navigation():
    at = AppTest.from_file(MAIN, default_timeout=60)
    at.run()
    assert not at.exception
    assert at.title[0].value == "Workload"
    assert any(b.key == "share" for b in at.sidebar.button)


@pytest.mark.parametrize("page", PAGES)
def test_every_page_renders(page):
    at = goto(app(), page)
    assert at.title and at.title[0].value
    assert not at.error, [e.value for e in at.error]


def test_workload_numbers_follow_gpu_type_and_tokens():
    at = app()
    days = metric(at, "Whole-run days")
    mem = metric(at, "Memory per GPU")
    at.selectbox(key="w_gpu").set_value("B200").run()
    assert not at.exception
    assert metric(at, "Whole-run days") != days and metric(at, "Memory per GPU") != mem
    before = number(metric(at, "Whole-run days"), "days")
    at.text_input(key="w_tokens").set_value("4,000").run()
    after = number(metric(at, "Whole-run days"), "days")
    assert after == pytest.approx(before * 2, rel=0.05)  # twice the tokens, twice the days


def test_compare_numbers_follow_term_and_survive_page_changes():
    at = app()
    at.slider(key="w_term").set_value(60).run()
    switch(at, "compare").run()
    assert not at.exception
    table_60 = at.dataframe[0].value.to_dict()
    assert "60 months" in markdown_text(at)
    switch(at, "workload").run()
    assert at.slider(key="w_term").value == 60  # nothing reset by the page change
    at.slider(key="w_term").set_value(24).run()
    switch(at, "compare").run()
    assert at.dataframe[0].value.to_dict() != table_60


def test_compare_changes_with_gpu_type():
    at = goto(app(), "compare")
    first = at.dataframe[0].value.to_dict()
    switch(at, "workload").run()
    at.selectbox(key="w_gpu").set_value("H200").run()
    switch(at, "compare").run()
    assert at.dataframe[0].value.to_dict() != first


def test_share_button_gives_a_link_that_restores_the_scenario():
    at = app()
    set_gpus(at, 512)
    at.sidebar.button(key="share").click().run()
    url = at.session_state["shared_url"]
    assert "?s=" in url and len(url) < 2000
    restored = share_link.decode(share_link.token_from_url(url))
    assert restored.cluster.gpus == 512
    again = goto(app(token=share_link.token_from_url(url)), "compare")
    assert again.session_state["scenario"]["cluster"]["gpus"] == 512
    switch(again, "workload").run()
    assert int(gpus_box(again).value) == 512


@pytest.mark.parametrize(
    "token", ["not-a-link", "eJwLycgsVgCi4pLKlFSFtPyiXIWS1OISAEa8B2k", "A" * 9000]
)
def test_a_bad_link_shows_a_message_and_the_defaults(token):
    at = app(token=token)
    assert any("could not be opened" in w.value for w in at.warning)
    assert (
        at.session_state["scenario"] == Scenario.model_validate(EXAMPLE).model_dump(mode="json")
        or at.session_state["scenario"] == EXAMPLE
    )


def test_a_bad_input_keeps_what_was_typed_and_names_the_field():
    at = app()
    at.radio(key="w_sizing").set_value("deadline").run()
    at.number_input(key="w_deadline").set_value(0.1).run()
    assert not at.exception
    errors = " ".join(e.value for e in at.error)
    assert "deadline_days" in errors
    assert at.number_input(key="w_deadline").value == 0.1


def test_guide_answers_with_numbers():
    at = goto(app(), "guide")
    headers = [h.value for h in at.subheader]
    assert "How many GPUs?" in headers and "Build or rent?" in headers
    assert "1,024" in markdown_text(at) or any("1,024" in m.value for m in at.markdown)


@pytest.mark.parametrize("view", ["Cost over the term", "Time", "Sensitivity and uncertainty"])
def test_compare_views_draw_their_charts(view):
    import json

    at = goto(app(), "compare")
    at.session_state["compare_view"] = view
    at.run()
    assert not at.exception
    charts = at.get("plotly_chart")
    assert len(charts) == 2
    for chart in charts:
        spec = json.loads(chart.proto.spec)
        assert spec["data"] and spec["layout"]["title"]


def test_execution_plan_inputs_change_the_scenario_and_the_plan():
    at = app()
    days = number(metric(at, "Whole-run days"), "days")
    at.toggle(key="w_tp_overlap").set_value(True).run()
    at.selectbox(key="w_grads").set_value("bf16").run()
    assert not at.exception, at.exception
    assert at.session_state["scenario"]["execution"] == {
        "tp_comm_overlap": True,
        "gradient_precision": "bf16",
    }
    assert number(metric(at, "Whole-run days"), "days") <= days
    at.selectbox(key="w_attention").set_value("none").run()
    assert not at.exception, at.exception
    assert at.session_state["scenario"]["execution"]["attention"] == "none"
    assert (
        "**Execution:** tuned Megatron-Core / NeMo | attention none | TP comm overlap on | "
        "gradients bf16" in markdown_text(at)
    )


def test_the_attention_box_shows_the_kernel_the_stack_runs_and_a_new_stack_brings_its_own():
    """Untouched, the box shows the default stack's kernel (cuDNN), which the plan uses, not the
    schema's FlashAttention-2; choosing a stack drops a chosen kernel for the stack's, and the plan
    and the execution line follow."""
    at = app()
    assert at.selectbox(key="w_attention").value == "cudnn"
    assert at.selectbox(key="w_stack").value == "megatron-core-tuned"
    days = number(metric(at, "Whole-run days"), "days")
    at.selectbox(key="w_attention").set_value("flash2").run()
    at.selectbox(key="w_stack").set_value("megatron-3d-classic").run()
    assert not at.exception, at.exception
    assert at.session_state["scenario"]["execution"] == {"software_stack": "megatron-3d-classic"}
    assert at.selectbox(key="w_attention").value == "flash1"
    assert (
        "**Execution:** Megatron-LM / Megatron-DeepSpeed / GPT-NeoX (classic 3D) | attention flash1"
        in (markdown_text(at))
    )
    # the classic stack (FlashAttention-1, no overlap, 0.76 kernel efficiency) takes longer
    assert number(metric(at, "Whole-run days"), "days") > 1.2 * days


def test_the_address_follows_every_change_and_survives_page_changes():
    at = app()
    assert "s" not in at.query_params  # the untouched defaults: a clean address
    set_gpus(at, 512)
    first = at.query_params["s"]
    assert share_link.decode_data(first)["cluster"]["gpus"] == 512
    switch(at, "compare").run()
    assert at.query_params["s"] == first  # a page change keeps it (nothing changed)
    switch(at, "workload").run()
    set_gpus(at, 256)
    assert share_link.decode_data(at.query_params["s"])["cluster"]["gpus"] == 256
    at.query_params.clear()  # what the navigation does on a page switch in the browser
    switch(at, "guide").run()
    assert share_link.decode_data(at.query_params["s"])["cluster"]["gpus"] == 256


def test_an_invalid_input_leaves_the_last_valid_scenario_in_the_address():
    at = app()
    set_gpus(at, 512)
    valid = at.query_params["s"]
    at.session_state["scenario"]["cluster"]["gpus"] = -1  # what a text box could hold
    at.run()
    assert any("cluster.gpus" in e.value for e in at.error)
    assert at.query_params["s"] == valid
    at.query_params.clear()
    switch(at, "compare").run()
    assert at.query_params["s"] == valid
    switch(at, "workload").run()
    set_gpus(at, 128)
    assert share_link.decode_data(at.query_params["s"])["cluster"]["gpus"] == 128


def test_an_opened_link_stays_in_the_address():
    token = share_link.encode_data({**EXAMPLE, "cluster": {**EXAMPLE["cluster"], "gpus": 2048}})
    at = goto(app(token=token), "compare")
    assert at.query_params["s"] == token
    at.query_params.clear()
    switch(at, "workload").run()
    assert at.query_params["s"] == token
    assert parse_number(gpus_box(at).value) == 2048  # shown as "2,048"


@pytest.mark.parametrize("page", ["compare", "assumptions", "guide"])
def test_an_override_that_stops_the_comparison_can_be_removed_where_it_is_shown(page):
    """A link's unknown key (or a discount no price uses) stops the comparison; the page offers to
    drop just that override, and the comparison comes back with the other overrides kept."""
    data = {**EXAMPLE, "overrides": {"no_such_input": 1.0, "pue": 1.2}}
    at = goto(app(token=share_link.encode(Scenario.model_validate(data))), page)
    assert any("overrides.no_such_input" in e.value for e in at.error)
    drop = next(b for b in at.button if b.key == "drop_bad")
    drop.click().run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert at.session_state["scenario"]["overrides"] == {"pue": 1.2}


def test_the_software_licence_toggle_adds_the_line_to_every_option():
    at = app()
    toggle = next(t for t in at.toggle if t.key == "w_licence")
    assert toggle.value is False
    toggle.set_value(True).run()
    assert at.session_state["scenario"]["options"]["software_licence"] is True
    from pricing.engine import compare

    c = compare(Scenario.model_validate(at.session_state["scenario"]), decision=False)
    assert all(o.breakdown_usd["software licences"] > 0 for o in c.options if o.available)


def test_the_rental_commitment_changes_what_renting_costs():
    at = app()
    box = next(s for s in at.selectbox if s.key == "w_commitment")
    assert box.value == "1y"
    box.set_value("whole_term").run()
    assert at.session_state["scenario"]["options"]["rent_commitment"] == "whole_term"


@pytest.mark.parametrize("which", ["run", "enterprise"])
def test_compare_leads_with_the_answer_in_one_sentence(which):
    """The recommendation box: the one sentence first (bold), the reasons as short lines, and the
    whole paragraph behind an expander (issue 32: a paragraph of six clauses)."""
    from app.formatting import md_plain
    from app.recommendation_text import headline, reasons, recommendation_text
    from pricing.engine import compare
    from tests.builders import sample

    data = EXAMPLE if which == "run" else sample(which)
    at = app("compare", scenario=data)
    assert not at.exception
    rec = compare(Scenario.model_validate(data)).recommendation
    said = [m.value for m in at.markdown]
    first = said.index(f"**{md_plain(headline(rec))}**")
    assert said[first + 1] == "\n".join(f"- {md_plain(line)}" for line in reasons(rec))
    whole = next(e for e in at.expander if e.label == "The whole argument")
    assert whole.markdown[0].value == md_plain(recommendation_text(rec)) + "."
