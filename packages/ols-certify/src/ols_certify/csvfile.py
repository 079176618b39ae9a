"""Reading the CSV file of ``ols-certify audit``: real-world files in, numeric columns or one clear error out.

Spreadsheet programs write a UTF-8 byte-order mark, quote fields (``"1,5"``, ``"x"``) and, in many locales,
separate fields with ``;``. :func:`read_csv` takes all of these (Python's :mod:`csv` dialect with the given
delimiter) and raises :class:`CSVError`, one sentence naming the file and line, for what it cannot read:
an empty file, a header without data, bytes that are not UTF-8, a blank or repeated column name, a row
with a different number of fields than the header. :func:`numeric_columns` converts the columns a
regression needs, naming a text column as text.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

_OTHER_DELIMITERS = (",", ";", "\t", "|")


class CSVError(ValueError):
    """The CSV file cannot be read as a table of numbers; the message says where and why."""


@dataclass(frozen=True)
class CSVTable:
    """A CSV file's header and its data rows as text (``rows[i][j]``: row i, column ``names[j]``);
    ``lines[i]`` is the file line row i started on, for messages."""

    path: str
    names: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    lines: tuple[int, ...]


def _shown(delimiter: str) -> str:
    return "tab" if delimiter == "\t" else repr(delimiter)


def _decode(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as e:
        raise CSVError(f"cannot read {path}: {e.strerror or e}") from None
    if not data.strip():
        raise CSVError(f"{path} is empty: expected a header row of column names and rows of numbers")
    try:
        return data.decode("utf-8-sig")  # -sig: drops the byte-order mark spreadsheet programs write
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise CSVError(
            f"{path} is not UTF-8 text: byte 0x{data[e.start]:02x} on line {line}; save it as UTF-8"
        ) from None


def read_csv(path: str | os.PathLike[str], delimiter: str = ",") -> CSVTable:
    """Read ``path`` (a header row, then one row per sample; blank lines skipped). Raises CSVError."""
    if not isinstance(delimiter, str) or len(delimiter) != 1 or delimiter in '"\r\n':
        raise CSVError(f"delimiter must be one character other than a quote or newline, got {delimiter!r}")
    p = Path(path)
    text = _decode(p)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    records: list[tuple[int, list[str]]] = []
    try:
        for fields in reader:
            if any(f.strip() for f in fields):
                records.append((reader.line_num, fields))
    except csv.Error as e:
        raise CSVError(f"{p}, line {reader.line_num}: {e}") from None
    if not records:
        raise CSVError(f"{p} is empty: expected a header row of column names and rows of numbers")
    (_, header), data = records[0], records[1:]
    names = tuple(f.strip() for f in header)
    if any(not n for n in names):
        raise CSVError(f"{p}: the header has a blank column name (column {names.index('') + 1})")
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise CSVError(f"{p}: the header names column(s) {repeated} more than once")
    if not data:
        raise CSVError(f"{p} has a header but no data rows")
    for line, fields in data:
        if len(fields) != len(names):
            raise CSVError(
                f"{p}, line {line}: {len(fields)} field(s), but the header has {len(names)} "
                f"(fields separated by {_shown(delimiter)}; a ragged row or a different --delimiter?)"
            )
    return CSVTable(
        str(p), names, tuple(tuple(f.strip() for f in r) for _, r in data), tuple(ln for ln, _ in data)
    )


def delimiter_hint(table: CSVTable, delimiter: str) -> str:
    """`` — it looks ';'-delimited: pass --delimiter ';'`` when a one-column header holds another
    delimiter, else ``""``."""
    if len(table.names) != 1:
        return ""
    for other in _OTHER_DELIMITERS:
        if other != delimiter and other in table.names[0]:
            return f"; the file looks {_shown(other)}-delimited: pass --delimiter {_shown(other)}"
    return ""


def numeric_columns(table: CSVTable, columns: Sequence[str]) -> np.ndarray:
    """The named columns as an (n, len(columns)) float64 array. Raises CSVError naming a column that is not
    in the header, or that holds text or an empty cell (with its line). ``nan``/``inf`` parse as numbers."""
    index = {name: j for j, name in enumerate(table.names)}
    out = np.empty((len(table.rows), len(columns)))
    for k, name in enumerate(columns):
        cells = [row[index[name]] for row in table.rows]
        try:
            out[:, k] = np.array(cells, dtype=np.float64)
        except ValueError:
            i = next((i for i, c in enumerate(cells) if not _is_number(c)), None)
            if i is None:  # numpy refused a spelling Python's float takes
                out[:, k] = [float(c) for c in cells]
                continue
            what = "an empty cell" if not cells[i] else f"the text {cells[i][:30]!r}"
            raise CSVError(
                f"{table.path}: column {name!r} is text, not numbers ({what} on line {table.lines[i]}); "
                "leave it out of --x, or encode it as numbers"
            ) from None
    return out


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True
