"""A simulation sweep's rows written to a Parquet or CSV file while the sweep runs.

The columns are fixed before the first row (every configuration is known up front): the
configuration parameters, then :data:`RUN_COLUMNS`.  Rows are appended in batches (Parquet:
one row group per batch; CSV: the curves as JSON text) to ``PATH.partial``, which becomes PATH
when the stream is closed after the last row.  A sweep stopped by an error or an interrupt leaves
the rows it finished in a readable ``PATH.partial``; a killed process leaves every flushed row of a
CSV file, but a Parquet file without its footer.
"""

from __future__ import annotations

import csv
import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..base.optional import require_extra

__all__ = ["RUN_COLUMNS", "RowStream", "check_output_path"]

# What every run reports beside its configuration (simulate.sweep.run_configuration).
RUN_COLUMNS = (
    "seed",
    "final_loss",
    "final_accuracy",
    "test_loss",
    "test_accuracy",
    "metric_rounds",
    "loss_curve",
    "accuracy_curve",
    "epsilon",
    "epsilon_source",
    "delta",
)
_CURVES = ("metric_rounds", "loss_curve", "accuracy_curve")


def check_output_path(path: str | os.PathLike[str], overwrite: bool) -> str:
    """``path`` as a string once it ends in .parquet or .csv and may be written (ValueError otherwise)."""
    text = os.fspath(path)
    if not text.endswith((".parquet", ".csv")):
        raise ValueError(f"output must end in .parquet or .csv, got {text!r}")
    if text.endswith(".parquet"):
        require_extra("parquet output", "pyarrow", otherwise="write *.csv")
    if os.path.exists(text) and not overwrite:
        raise ValueError(f"{text} exists: pass overwrite=True to replace it")
    folder = os.path.dirname(text) or "."
    if not os.path.isdir(folder):
        raise ValueError(f"output {text!r}: directory {folder!r} does not exist; create it first")
    return text


def _parameter_types(parameters: Mapping[str, Sequence[Any]]) -> Any:
    """One Arrow type per parameter column, inferred from every value it will hold (strings if mixed)."""
    import pyarrow as pa  # lazy: optional extra (pyarrow)

    fields = []
    for name, values in parameters.items():
        try:
            kind = pa.array(list(values)).type
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            kind = pa.string()
        fields.append(pa.field(name, kind))
    return fields


class RowStream:
    """Append rows (dicts) to ``path`` (.parquet or .csv) as they come; :meth:`close` publishes the file.

    ``parameters``: every parameter column with all the values it will take (to fix the Parquet
    schema before the first row); a row lacking a column gets a null there.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        parameters: Mapping[str, Sequence[Any]],
        *,
        overwrite: bool = False,
        batch_rows: int = 64,
    ) -> None:
        self.path = check_output_path(path, overwrite)
        self.partial = f"{self.path}.partial"
        self.columns = [name for name in parameters if name not in RUN_COLUMNS] + list(RUN_COLUMNS)
        self.batch_rows = batch_rows
        self._pending: list[dict[str, Any]] = []
        self._writer: Any = None
        self._file: Any = None
        if self.path.endswith(".parquet"):
            import pyarrow as pa  # lazy: optional extra (pyarrow)
            import pyarrow.parquet as pq  # lazy: optional extra (pyarrow)

            run_fields = [pa.field("seed", pa.int64())] + [
                pa.field(
                    name,
                    pa.list_(pa.int64())
                    if name == "metric_rounds"
                    else pa.list_(pa.float64())
                    if name in _CURVES
                    else pa.string()
                    if name == "epsilon_source"
                    else pa.float64(),
                )
                for name in RUN_COLUMNS[1:]
            ]
            self._schema = pa.schema(
                _parameter_types({k: v for k, v in parameters.items() if k not in RUN_COLUMNS})
                + run_fields
            )
            self._writer = pq.ParquetWriter(self.partial, self._schema)
        else:
            self._file = open(self.partial, "w", newline="")
            self._writer = csv.DictWriter(self._file, self.columns, extrasaction="raise")
            self._writer.writeheader()

    def write(self, rows: Iterable[Mapping[str, Any]]) -> None:
        """Queue ``rows``; a full batch goes to disk."""
        self._pending.extend(dict(row) for row in rows)
        if len(self._pending) >= self.batch_rows:
            self.flush()

    def flush(self) -> None:
        """Write the queued rows now."""
        if not self._pending:
            return
        rows, self._pending = self._pending, []
        if self._file is None:
            import pyarrow as pa  # lazy: optional extra (pyarrow)

            self._writer.write_table(
                pa.Table.from_pylist(
                    [{c: r.get(c) for c in self.columns} for r in rows], schema=self._schema
                )
            )
        else:
            for row in rows:
                self._writer.writerow({c: _csv_cell(c, row.get(c)) for c in self.columns})
            self._file.flush()

    def close(self) -> str:
        """Write what is queued and publish the file under its name; returns the path."""
        self.flush()
        self._release()
        os.replace(self.partial, self.path)
        return self.path

    def abandon(self) -> None:
        """Write what is queued and close, leaving the finished rows in ``PATH.partial``."""
        self.flush()
        self._release()

    def _release(self) -> None:
        if self._file is None:
            self._writer.close()
        else:
            self._file.close()

    def __enter__(self) -> RowStream:
        return self

    def __exit__(self, kind: Any, value: Any, traceback: Any) -> None:
        if kind is None:
            self.close()
        else:
            self.abandon()


def _csv_cell(column: str, value: Any) -> Any:
    if column in _CURVES:
        return json.dumps(value)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return value
