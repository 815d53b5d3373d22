"""Units and the conversions every layer shares, in one place.

Time: a month is a twelfth of a Julian year (365.25 days), as the cost engine bills it. Data:
GB and TB are decimal (storage and network vendors quote them so), GiB binary (GPU memory).
"""

from __future__ import annotations

SECONDS_PER_HOUR = 3_600.0
SECONDS_PER_DAY = 86_400.0
DAYS_PER_YEAR = 365.25
DAYS_PER_MONTH = DAYS_PER_YEAR / 12
HOURS_PER_MONTH = DAYS_PER_MONTH * 24

BYTES_PER_GB = 1e9
BYTES_PER_TB = 1e12
BYTES_PER_GIB = 2.0**30
BITS_PER_BYTE = 8

#: Bytes per stored token of a tokenized dataset (uint32 token ids).
BYTES_PER_TOKEN = 4.0
#: Bytes per parameter (or per element) by number format.
BYTES_PER_PARAM = {"fp32": 4, "bf16": 2, "fp8": 1, "fp4": 0.5}
