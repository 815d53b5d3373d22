"""What `catalogue import-skypilot` accepts from a SkyPilot file before a row reaches the catalogue.

A SkyPilot `vms.csv` is someone else's file: a price of `1e300`, a region cell such as
`=HYPERLINK(...)` (a formula when `rental_prices.csv` is opened in a spreadsheet), a newline or an
escape byte in a name, a million rows. Each check below refuses the whole import with an
`InputError` naming the file, the line and the column (the CLI prints it on one line and exits 2,
nothing written); nothing is silently cleaned or dropped.

- a price per GPU-hour within `MIN_USD_PER_GPU_HOUR`..`MAX_USD_PER_GPU_HOUR`, and a GPU count of
  at most `MAX_GPUS_PER_VM` (`check_price`, `check_gpus`);
- provider and region names in a small alphabet (`check_name`), instance types without control
  characters (`check_text`): they are written into the catalogue's cells;
- a file of at most `MAX_FILE_BYTES` (`read_capped`) and `MAX_FILE_ROWS` rows, and at most
  `MAX_IMPORT_PRICES` prices from one import;
- a price that moves more than `MAX_CHANGE_FACTOR` times up or down from the catalogue's only with
  `ALLOW_LARGE_CHANGES` (`skypilot_import.check_changes`, which knows the catalogue's rows).
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

from models.errors import InputError, data_file_error

#: The sane range of a price per GPU-hour, USD. Public prices of the GPUs the catalogue carries
#: (A100 and newer) run from about $0.30 (marketplace spot) to about $15 (hyperscaler on-demand for
#: the newest parts); the bounds sit well below and above any of them, so only a broken or
#: hostile row falls outside: one that would round to 0 at 4 decimals, or a 300-digit price.
MIN_USD_PER_GPU_HOUR = 0.01
MAX_USD_PER_GPU_HOUR = 1000.0
#: The most GPUs one priced unit holds: an NVL72 rack sold whole (72); instances hold 8, 16 at most.
MAX_GPUS_PER_VM = 72
#: A changed price more than this many times above or below the catalogue's is refused unless
#: ALLOW_LARGE_CHANGES is given: real price moves are tens of percent, a 10x move is a unit slip.
MAX_CHANGE_FACTOR = 10.0
ALLOW_LARGE_CHANGES = "--allow-large-changes"
#: Caps on one file: SkyPilot's largest vms.csv (catalogs/v8/aws, every instance type in every
#: zone) is about 3.7 MB, some tens of thousands of rows; the caps leave room for about five times
#: that, and keep a hostile file from costing minutes and gigabytes.
MAX_FILE_BYTES = 20 * 1024 * 1024
MAX_FILE_ROWS = 200_000
#: The most prices (rental rows) one import may file: a whole SkyPilot catalog, every carried GPU
#: of every cloud in every region, on-demand and spot, gives far fewer.
MAX_IMPORT_PRICES = 10_000
#: Provider and region names: letters and digits of any script, spaces and these marks (Vast.ai's
#: regions read "Texas, US, NA", Paperspace's "East Coast (NY2)"), never a leading formula sign.
NAME_MARKS = frozenset(" -_.,()")
FORMULA_STARTS = ("=", "+", "-", "@")
MAX_NAME_CHARS = 64
MAX_TEXT_CHARS = 128
NAME_RULE = (
    f"letters, digits, spaces and - _ . , ( ), not starting with {' '.join(FORMULA_STARTS)}, "
    f"at most {MAX_NAME_CHARS} characters"
)


def shown(text: str, most: int = 40) -> str:
    """`text` quoted for a message: escapes for control characters, cut to `most` characters."""
    return repr(text[:most]) + ("…" if len(text) > most else "")


def name_ok(text: str) -> bool:
    return (
        0 < len(text) <= MAX_NAME_CHARS
        and not text.startswith(FORMULA_STARTS)
        and text == text.strip()
        and all(ch.isalnum() or ch in NAME_MARKS for ch in text)
    )


def check_name(path: Path, line: int | None, column: str, text: str, what: str) -> None:
    """Refuses a provider or region name outside the alphabet (a CSV formula, a control
    character, a newline, an empty or over-long name)."""
    if not name_ok(text):
        source = f" (from {column})" if line is None else ""
        problem = f"{shown(text)}{source} is not a {what} name ({NAME_RULE})"
        raise data_file_error(path, line, column, problem)


def check_text(path: Path, line: int, column: str, text: str) -> None:
    """Refuses text written into a catalogue cell's prose that holds a control or format
    character (newline, escape, bidi override) or is over-long."""
    if len(text) > MAX_TEXT_CHARS or any(unicodedata.category(ch)[0] == "C" for ch in text):
        problem = f"{shown(text)} holds a control character or is over {MAX_TEXT_CHARS} characters"
        raise data_file_error(path, line, column, problem)


def check_gpus(path: Path, line: int, count: float) -> None:
    if count > MAX_GPUS_PER_VM:
        problem = f"{count:g} GPUs in one instance; at most {MAX_GPUS_PER_VM} (an NVL72 rack)"
        raise data_file_error(path, line, "AcceleratorCount", problem)


def check_price(path: Path, line: int, column: str, price: float, gpus: float, how: str) -> None:
    """Refuses `price` (USD per instance-hour for `gpus` GPUs) whose price per GPU-hour is out of
    range; `how` says what the price is made of."""
    per_gpu = price / gpus
    if not MIN_USD_PER_GPU_HOUR <= per_gpu <= MAX_USD_PER_GPU_HOUR:
        problem = (
            f"{how} {price:.6g} for {gpus:g} GPU(s) is {per_gpu:.4g} USD per GPU-hour, outside "
            f"{MIN_USD_PER_GPU_HOUR:g} to {MAX_USD_PER_GPU_HOUR:g}"
        )
        raise data_file_error(path, line, column, problem)


def read_capped(path: Path) -> str:
    """The text of `path`, refused when it is over MAX_FILE_BYTES: by its size before it is read,
    and by what a read of one byte more than the cap returns (a file that grew, or lied)."""
    size = path.stat().st_size
    if size <= MAX_FILE_BYTES:
        with path.open("rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
        size = len(data)
    if size > MAX_FILE_BYTES:
        problem = f"{size:,} bytes, over the import's cap of {MAX_FILE_BYTES:,} bytes"
        raise data_file_error(path, None, "(file)", problem)
    return data.decode("utf-8-sig")


def too_many_rows(path: Path, line: int) -> InputError:
    problem = f"more than {MAX_FILE_ROWS:,} rows, the import's cap for one file"
    return data_file_error(path, line, "(file)", problem)


def too_many_prices(files: list[Path], count: int) -> InputError:
    names = ", ".join(str(f) for f in files[:3]) + (
        f" and {len(files) - 3} more" if len(files) > 3 else ""
    )
    return InputError(
        "(import)",
        f"{names}: {count:,} prices, over the import's cap of {MAX_IMPORT_PRICES:,} prices",
    )
