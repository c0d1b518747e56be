"""Dates in front matter: one strict reader whose errors say what is wrong and how to write it."""

from __future__ import annotations

import calendar
import datetime as dt
import re

DATE_FORMAT_HINT = "write it as YYYY-MM-DD, optionally with a time: 2024-12-17 or " \
                   "2024-12-17T09:30:00+01:00"

# The forms YAML 1.1 timestamps and ISO 8601 share: a date, then an optional time
# (after "T" or spaces) with optional seconds, fraction and zone (Z, ±HH, ±HH:MM, ±HHMM).
_STAMP = re.compile(
    r"(?P<y>\d{4,})-(?P<m>\d{1,2})-(?P<d>\d{1,2})"
    r"(?:(?:[Tt]|[ \t]+)(?P<H>\d{1,2}):(?P<M>\d{2})(?::(?P<S>\d{2})(?:[.,](?P<f>\d+))?)?"
    r"(?:[ \t]*(?P<z>[Zz]|[-+]\d{1,2}(?::?\d{2})?))?)?"
)


class BadDate(ValueError):
    """`text` is not a date; the message (\"is not …\") says why; callers add the key and a hint."""


def parse_date(text: str) -> dt.datetime:
    """A datetime from `text`, naive unless a zone is given; BadDate says what is wrong."""
    match = _STAMP.fullmatch(text.strip())
    if match is None:
        raise BadDate(f"is not a date: {text!r}")
    year, month, day = int(match["y"]), int(match["m"]), int(match["d"])
    if not 1 <= year <= 9999:
        raise BadDate(f"is not a valid date: the year must be between 1 and 9999, not "
                      f"{match['y']}")
    if not 1 <= month <= 12:
        raise BadDate(f"is not a valid date: there is no month {month}")
    days = calendar.monthrange(year, month)[1]
    if not 1 <= day <= days:
        name = calendar.month_name[month]
        raise BadDate(f"is not a valid date: {name} {year} has {days} days, not {day}")
    hour = int(match["H"] or 0)
    minute = int(match["M"] or 0)
    second = int(match["S"] or 0)
    if hour > 23 or minute > 59 or second > 59:
        clock = f"{match['H']}:{match['M']}:{match['S'] or '00'}"
        raise BadDate(f"is not a valid date: {clock} is not a time of day")
    micro = int((match["f"] or "0")[:6].ljust(6, "0"))
    zone = _zone(match["z"]) if match["z"] else None
    value = dt.datetime(year, month, day, hour, minute, second, micro, tzinfo=zone)
    if zone is not None:
        try:
            value.astimezone(dt.UTC)
        except OverflowError:
            when = "before the year 1" if year == 1 else "after the year 9999"
            raise BadDate(f"is not a valid date: with the time zone {match['z']} it falls "
                          f"{when} in UTC, and the year must be between 1 and 9999; give "
                          "a date a day later or earlier, or no time zone") from None
    return value


_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def instant(value: dt.datetime) -> float:
    """Seconds since 1970 in UTC, a naive date counting as UTC (as in the feeds), for
    sorting. Never raises: `timestamp()` reads a naive date in the machine's time zone
    and fails for dates near 0001-01-01 and 9999-12-31."""
    aware = value if value.tzinfo else value.replace(tzinfo=dt.UTC)
    return (aware - _EPOCH).total_seconds()


def _zone(text: str) -> dt.timezone:
    if text in ("Z", "z"):
        return dt.UTC
    sign = -1 if text[0] == "-" else 1
    digits = text[1:].replace(":", "")
    hours, minutes = (int(digits[:-2]), int(digits[-2:])) if len(digits) > 2 else \
        (int(digits), 0)
    if hours > 14 or minutes > 59:
        raise BadDate(f"is not a valid date: the time zone {text} is out of range (at most ±14:00)")
    return dt.timezone(sign * dt.timedelta(hours=hours, minutes=minutes))


def date_in_name(year: str, month: str, day: str) -> dt.datetime:
    """The date a file name starts with (YYYY-MM-DD-…); BadDate if there is no such day."""
    return parse_date(f"{year}-{month}-{day}")
