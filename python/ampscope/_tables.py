"""The analysis's tables: the CSV text the report writes, read as a DataFrame or a list of dicts."""

from __future__ import annotations

import csv
import io
from typing import Any, Dict, List, Optional, Union

try:  # pandas is optional: without it, tables are lists of dicts.
    import pandas as _pandas
except ImportError:  # pragma: no cover - exercised only where pandas is absent
    _pandas = None

Table = Union["_pandas.DataFrame", List[Dict[str, Any]]]


def _cell(text: str) -> Optional[Union[int, float, str]]:
    """A CSV cell as a value: an empty cell is unknown (None), numbers are numbers."""
    if text == "":
        return None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def read_table(csv_text: str, use_pandas: Optional[bool] = None) -> Table:
    """The CSV text as a pandas DataFrame (when pandas is importable) or a list of dicts.

    Only an empty cell means "not known" (NaN in a DataFrame, None in a dict): a layer named "NA"
    stays a name.
    """
    if use_pandas is None:
        use_pandas = _pandas is not None
    if use_pandas:
        if _pandas is None:
            raise ImportError("pandas is not installed")
        return _pandas.read_csv(io.StringIO(csv_text), keep_default_na=False, na_values=[""])
    return [{key: _cell(value) for key, value in row.items()} for row in csv.DictReader(io.StringIO(csv_text))]
