"""The sidebar on every page: what is being planned, and the Share button."""

from __future__ import annotations

import streamlit as st

from app import share_link, state
from app.kinds import words


def _page_url() -> str:
    """The page's address as the browser sees it, without its query: the link reopens this page."""
    try:
        url = st.context.url or ""
    except AttributeError:  # older Streamlit
        url = ""
    return url.split("?", 1)[0] or "http://localhost:8501/"


def link_carries(sections: dict[str, dict]) -> str:
    """What a share link carries, from its decoded sections (share_link.decode_link): 'This link
    carries the scenario (every page shows it), the Serve inputs and 3 saved scenarios for Side by
    side (2 picked)'; what it could carry besides, when the session has not used it."""
    parts = ["the scenario (every page shows it)"]
    if "serve" in sections:
        parts.append("the Serve inputs")
    if "finetune" in sections:
        parts.append("the Fine-tune inputs")
    if own := sections.get("models"):
        n = len(own.get("models", []))
        parts.append(f"{n} model{'s' if n != 1 else ''} of your own")
    if sbs := sections.get("side_by_side"):
        n, picked = len(sbs.get("scenarios", [])), len(sbs.get("picked", []))
        parts.append(
            f"{n} saved scenario{'s' if n != 1 else ''} for Side by side"
            + (f" ({picked} picked)" if picked else "")
        )
    text = "This link carries " + (
        parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    )
    missing = [
        label
        for key, label in (
            ("serve", "Serve inputs"),
            ("finetune", "Fine-tune inputs"),
            ("side_by_side", "saved scenarios"),
        )
        if key not in sections
    ]
    if missing:
        listed = (
            missing[0] if len(missing) == 1 else ", ".join(missing[:-1]) + " and " + missing[-1]
        )
        text += f"; {listed} join it once this session uses them"
    return text + ":"


def render() -> None:
    sc, problems = state.scenario()
    with st.sidebar:
        st.markdown("### GPU Cluster Planner")
        if sc is None:
            st.caption("The scenario has an input to fix; see the Workload page.")
            return
        st.caption(words(sc).summary(sc))
        if st.button("Share link", icon=":material/share:", width="stretch", key="share"):
            try:
                token = state.link_token(sc)
                st.session_state["shared_url"] = f"{_page_url()}?s={token}"
                st.query_params["s"] = token
            except share_link.LinkError as exc:
                st.error(str(exc))
        if url := st.session_state.get("shared_url"):
            try:
                sections = share_link.decode_link(url.rsplit("?s=", 1)[-1]).sections
            except share_link.LinkError:
                sections = {}
            st.caption(link_carries(sections))
            st.code(url, language=None, wrap_lines=True)
