"""Deployment settings: the portal's public address, for the links in PDFs and on the command line.

Read from the environment variable CLUSTERPLAN_BASE_URL, else the key `base_url` in
`.streamlit/secrets.toml` (the working directory's, then the home directory's, where Streamlit
looks for its secrets), else the local default http://localhost:8501/. Nothing here imports
Streamlit, so the CLI reads it too.
"""

from __future__ import annotations

import os
import pathlib
import tomllib
from urllib.parse import urlsplit

LOCAL_BASE_URL = "http://localhost:8501/"
ENV_BASE_URL = "CLUSTERPLAN_BASE_URL"
SECRET_BASE_URL = "base_url"
#: host names that only reach the computer the link was made on
LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1", "0.0.0.0"})


def secrets_files() -> list[pathlib.Path]:
    return [
        pathlib.Path.cwd() / ".streamlit" / "secrets.toml",
        pathlib.Path.home() / ".streamlit" / "secrets.toml",
    ]


def base_url(
    environ: dict[str, str] | None = None, secrets: list[pathlib.Path] | None = None
) -> str:
    """The portal's address for share links: CLUSTERPLAN_BASE_URL, else `base_url` from the first
    readable secrets.toml that has it, else LOCAL_BASE_URL. A blank value counts as unset; a
    secrets file that is not valid TOML is skipped (the link falls back, it never fails)."""
    env = os.environ if environ is None else environ
    value = (env.get(ENV_BASE_URL) or "").strip()
    if value:
        return value
    for path in secrets_files() if secrets is None else secrets:
        try:
            found = tomllib.loads(path.read_text(encoding="utf-8")).get(SECRET_BASE_URL)
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            continue
        if isinstance(found, str) and found.strip():
            return found.strip()
    return LOCAL_BASE_URL


def is_local(url: str) -> bool:
    """Whether a link only opens on the computer that made it (localhost, a loopback address)."""
    try:
        host = (urlsplit(url.strip()).hostname or "").lower()
    except ValueError:
        return False
    return host in LOCAL_HOSTS or host.startswith("127.")
