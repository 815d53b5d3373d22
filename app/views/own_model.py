"""The "model of your own" inputs the Workload, Serve and Fine-tune pages share: a JSON file
(st.file_uploader, at most model_file.MAX_FILE_BYTES) or pasted JSON of model_presets.csv's fields,
checked as the command line checks a `--model` file (models/model_file.py) and, once it passes,
made the page's model (app/own_models.py keeps it for the session and the share link).

A refused file or text is named under the inputs with its field and allowed range; the pasted text
stays as typed, kept apart from the widget (Streamlit drops a widget's state while another page is
shown), so nothing typed is lost."""

from __future__ import annotations

import json
from collections.abc import Callable

import streamlit as st

from app import own_models, state
from models.errors import InputError
from models.model_file import MAX_FILE_BYTES, model_from_json
from models.shapes import get_preset, known_model

FIELDS_HELP = (
    "The fields of models/data/model_presets.csv as a JSON object: model_id (lower-case letters, "
    "digits, '.', '_', '-'), name, layers, hidden, heads, kv_heads, ffn_hidden, vocab, and "
    "optionally gated_mlp, tied_embeddings, experts, experts_per_token, shared_experts, "
    "dense_layers, dense_ffn_hidden, attn_head_dim, kv_cache_dim (MLA), routing_limit, "
    "attention_params_per_layer, full_attention_layers and linear_state_bytes_per_layer (hybrid "
    "linear attention), sparse_attention_tokens, indexer_heads and indexer_dim (sparse attention). "
    "The same file `clusterplan --model` takes."
)


def starting_text(model_id: str | None) -> str:
    """What the text box holds at first: the page's model's fields, under an id of one's own."""
    shape = get_preset(model_id) if model_id and known_model(model_id) else None
    if shape is None:
        shape = get_preset("llama3-8b")
    fields = shape.model_dump(
        mode="json", exclude={"source", "published_params_b", "published_active_params_b"}
    )
    if not own_models.shape(model_id or ""):
        fields |= {"model_id": f"my-{shape.model_id}"[:60], "name": f"{shape.name} (mine)"}
    return json.dumps(fields, indent=1)


def _take(prefix: str, raw: bytes | str, where: str, use: Callable[[str], None]) -> None:
    """`raw` checked and, if it passes, made the page's model; else its problem kept to show."""
    try:
        model_id = own_models.add(model_from_json(raw, where))
    except InputError as exc:
        st.session_state[f"{prefix}_own_error"] = (exc.field, str(exc))
        return
    st.session_state.pop(f"{prefix}_own_error", None)
    use(model_id)


def _from_upload(prefix: str, use: Callable[[str], None]) -> None:
    file = st.session_state.get(f"{prefix}_own_file")
    if file is None:
        return
    if file.size > MAX_FILE_BYTES:  # refused before it is read
        st.session_state[f"{prefix}_own_error"] = (
            "model",
            f"{file.name[:80]}: {file.size:,} bytes, over the {MAX_FILE_BYTES:,} allowed",
        )
        return
    raw = file.getvalue()
    text = raw.decode("utf-8", errors="replace")
    st.session_state[f"{prefix}_own_text"] = st.session_state[f"_{prefix}_own_text"] = text
    _take(prefix, raw, file.name[:80], use)


def _keep_text(prefix: str) -> None:
    st.session_state[f"_{prefix}_own_text"] = st.session_state[f"{prefix}_own_text"]


def _from_text(prefix: str, use: Callable[[str], None]) -> None:
    _keep_text(prefix)
    _take(prefix, st.session_state[f"{prefix}_own_text"], "", use)


def own_model_input(prefix: str, current: str | None, use: Callable[[str], None]) -> None:
    """The expander under a page's Model picker (`prefix`: the page's widget keys' prefix;
    `current`: the page's model; `use(id)`: makes the model of that id the page's)."""
    text_key, error = f"{prefix}_own_text", st.session_state.get(f"{prefix}_own_error")
    if text_key not in st.session_state:
        st.session_state[text_key] = st.session_state.get(f"_{text_key}") or starting_text(current)
    with st.expander(
        "A model of your own (JSON)",
        expanded=bool(error) or own_models.shape(current or "") is not None,
        icon=":material/upload_file:",
    ):
        st.file_uploader(
            "Model file",
            type=["json"],
            key=f"{prefix}_own_file",
            on_change=_from_upload,
            args=(prefix, use),
            help=f"{FIELDS_HELP} At most {MAX_FILE_BYTES // 1024} KiB.",
        )
        st.text_area(
            "Or its fields as JSON",
            key=text_key,
            height=220,
            on_change=_keep_text,
            args=(prefix,),
            max_chars=MAX_FILE_BYTES,
            help=FIELDS_HELP,
        )
        st.button(
            "Use this model",
            key=f"{prefix}_own_use",
            on_click=_from_text,
            args=(prefix, use),
            icon=":material/check:",
        )
        if error:
            state.show_error(*error)
