"""Arrow tables from Python rows without pandas.

pyarrow imports pandas (about 55 MiB) the first time it converts Python objects (`pa.array`, `Table.from_pydict`,
`pq.read_table`), even when nothing uses pandas. `clean` builds its tables here instead, from Arrow buffers and
string builders, so neither a worker nor the driver loads pandas. The types are those of the clean tables:
strings, binary, 32/64-bit integers and lists of them. The table equals `schema.table_from_rows`'s
(tests/test_clean_memory.py).
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

import numpy as np
import pyarrow as pa

_INTS = {pa.int32(): np.int32, pa.int64(): np.int64}


def table_of(rows: Iterable[Mapping[str, Any]], schema: pa.Schema) -> pa.Table:
    """The rows as a table of exactly `schema` (keys outside it are an error, as in table_from_rows)."""
    rows = list(rows)
    names = set(schema.names)
    for i, row in enumerate(rows):
        extra = set(row) - names
        if extra:
            raise ValueError(f"row {i} has columns not in the schema: {sorted(extra)}")
    arrays = [column([row.get(f.name) for row in rows], f.type) for f in schema]
    return pa.Table.from_arrays(arrays, schema=schema)


def column(values: Sequence[Any], dtype: pa.DataType) -> pa.Array:
    """An Arrow array of `dtype` holding `values` (None: null)."""
    if pa.types.is_string(dtype):
        builder = pa.lib.StringBuilder()
        builder.append_values(list(values))
        return builder.finish()
    if pa.types.is_binary(dtype):
        sizes = np.fromiter((0 if v is None else len(v) for v in values), dtype=np.int64, count=len(values))
        offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int32)
        data = pa.py_buffer(b"".join(v for v in values if v is not None))
        return _from_buffers(dtype, values, [pa.py_buffer(offsets), data])
    if dtype in _INTS:
        data = np.array([0 if v is None else v for v in values], dtype=_INTS[dtype])
        return _from_buffers(dtype, values, [pa.py_buffer(data)])
    if pa.types.is_list(dtype):
        sizes = np.fromiter((0 if v is None else len(v) for v in values), dtype=np.int64, count=len(values))
        offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int32)
        child = column([x for v in values if v is not None for x in v], dtype.value_type)
        return _from_buffers(dtype, values, [pa.py_buffer(offsets)], child)
    raise TypeError(f"no conversion without pandas for {dtype}")


def indices(positions: Sequence[int] | np.ndarray) -> pa.Array:
    """Row positions as an int64 array, for Table.take."""
    data = np.ascontiguousarray(positions, dtype=np.int64)
    return pa.Array.from_buffers(pa.int64(), len(data), [None, pa.py_buffer(data)])


def _from_buffers(dtype: pa.DataType, values: Sequence[Any], buffers: list, child: pa.Array | None = None) -> pa.Array:
    missing = np.fromiter((v is None for v in values), dtype=bool, count=len(values))
    nulls = int(missing.sum())
    validity = pa.py_buffer(np.packbits(~missing, bitorder="little")) if nulls else None
    return pa.Array.from_buffers(
        dtype, len(values), [validity, *buffers], null_count=nulls, children=[child] if child is not None else None
    )
