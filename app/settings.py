"""Deployment settings: the portal's public address, for the links in PDFs and on the command line.

Read from the environment variable CLUSTERPLAN_BASE_URL, else the key `base_url` in
`.streamlit/secrets.toml` (the working directory's, then the home directory's, where Streamlit
looks for its secrets), else the local default http://localhost:8501/. Nothing here imports
Streamlit, so the CLI reads it too.

Every portal address, wherever it is read (the variable, the secrets file, the CLI's `--base-url`
and `--link`, the page's own address), goes through `check_base_url`: it is printed, and put in a
PDF as a clickable link, as it is, so only an http(s) address with a host and without whitespace,
control or invisible characters is taken (never `javascript:`, `data:` or `file:`).
"""

from __future__ import annotations

import os
import pathlib
import tomllib
import unicodedata
from urllib.parse import urlsplit

LOCAL_BASE_URL = "http://localhost:8501/"
ENV_BASE_URL = "CLUSTERPLAN_BASE_URL"
SECRET_BASE_URL = "base_url"
#: host names that only reach the computer the link was made on
LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1", "0.0.0.0"})
#: the only schemes a portal address may have: a share link opens a web page
URL_SCHEMES = ("http", "https")


class BaseUrlError(ValueError):
    """A portal address that cannot go into a share link; the message starts with where it was
    read (a flag or a variable) and is one short line."""


def check_base_url(url: str, source: str) -> str:
    """`url`, without surrounding whitespace, if it can be the portal's address in a share link:
    an http:// or https:// URL with a host (and a valid port, if any), with no whitespace, control
    or format (invisible) character inside. Else BaseUrlError, its message starting `source: `
    (the flag or variable the address came from)."""
    text = url.strip()
    bad = next((ch for ch in text if ch.isspace() or unicodedata.category(ch)[0] == "C"), None)
    if bad is not None:
        raise BaseUrlError(
            f"{source}: the address has a space, control or invisible character in it "
            f"(U+{ord(bad):04X})"
        )
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 -- reading it checks it (ValueError when not a port number)
    except ValueError:  # e.g. an unbalanced "[" in the host, a port that is not a number
        raise BaseUrlError(f"{source}: the address is not a valid URL") from None
    if parts.scheme.lower() not in URL_SCHEMES:
        given = f", not {parts.scheme[:20]}:" if parts.scheme else ""
        raise BaseUrlError(f"{source}: use the portal's http:// or https:// address{given}")
    if not parts.hostname:
        raise BaseUrlError(f"{source}: the address has no host (e.g. https://planner.example.org/)")
    return text


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
    secrets file that is not valid TOML is skipped (the link falls back). A value that is set but
    is no portal address (`check_base_url`) raises BaseUrlError naming the variable or the file:
    a wrong setting is said, not put in a link."""
    env = os.environ if environ is None else environ
    value = (env.get(ENV_BASE_URL) or "").strip()
    if value:
        return check_base_url(value, ENV_BASE_URL)
    for path in secrets_files() if secrets is None else secrets:
        try:
            found = tomllib.loads(path.read_text(encoding="utf-8")).get(SECRET_BASE_URL)
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            continue
        if isinstance(found, str) and found.strip():
            return check_base_url(found, f"{SECRET_BASE_URL} in {path}")
    return LOCAL_BASE_URL


def is_local(url: str) -> bool:
    """Whether a link only opens on the computer that made it (localhost, a loopback address)."""
    try:
        host = (urlsplit(url.strip()).hostname or "").lower()
    except ValueError:
        return False
    return host in LOCAL_HOSTS or host.startswith("127.")
