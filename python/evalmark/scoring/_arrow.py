"""Arrow columns to kernel inputs: text arrays kept as Arrow, list columns stacked to vectors.

Shared by the Parquet reader and the Ray Data integration.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from evalmark.scoring._chunks import Chunk
from evalmark.scoring._vectors import VectorShape, mark_non_finite


def is_text(kind: Any) -> bool:
    """Whether an Arrow type holds text the kernels can read (possibly after a cast)."""
    import pyarrow as pa

    if pa.types.is_dictionary(kind):
        return is_text(kind.value_type)
    return bool(
        pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_string_view(kind)
    )


def is_id(kind: Any) -> bool:
    """Whether an Arrow type can identify rows in the output: text or an integer."""
    import pyarrow as pa

    return is_text(kind) or bool(pa.types.is_integer(kind))


def is_vector(kind: Any) -> bool:
    """Whether an Arrow type is a list of numbers usable as embedding vectors."""
    import pyarrow as pa

    list_like = (
        pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind)
    )
    return bool(
        list_like
        and (pa.types.is_floating(kind.value_type) or pa.types.is_integer(kind.value_type))
    )


def text_column(chunk: Chunk, array: Any, field: str) -> Any:
    """A string or large_string array; null rows are marked bad."""
    import pyarrow as pa

    if pa.types.is_dictionary(array.type):
        array = array.dictionary_decode()
    if pa.types.is_string_view(array.type):
        array = array.cast(pa.large_string())
    if array.null_count:
        nulls = np.flatnonzero(array.is_null().to_numpy(zero_copy_only=False))
        for index in nulls.tolist():
            chunk.mark_bad(index, field, "is null")
    return array


def vector_column(
    chunk: Chunk, array: Any, field: str, shape: VectorShape
) -> npt.NDArray[np.float64]:
    """Stack a list column into a 2-D float64 array; null or ill-sized rows are marked bad."""
    import pyarrow as pa
    import pyarrow.compute as pc

    lengths = pc.list_value_length(array)
    length_values = lengths.fill_null(-1).to_numpy(zero_copy_only=False)
    for index, length in enumerate(length_values.tolist()):
        problem = "is null" if length < 0 else shape.check(length)
        if problem:
            chunk.mark_bad(index, field, problem)
    dim = shape.dim or 0
    out = np.zeros((chunk.size, dim), dtype=np.float64)
    good = np.ones(chunk.size, dtype=bool)
    for index in chunk.bad:
        good[index] = False
    if dim and good.any():
        flat = pc.list_flatten(array.filter(pa.array(good)))
        if flat.null_count:
            # Rare: find the rows holding a null element, then leave them out.
            for index in np.flatnonzero(good).tolist():
                if array[index].values.null_count:
                    chunk.mark_bad(index, field, "holds a null element")
                    good[index] = False
            flat = pc.list_flatten(array.filter(pa.array(good)))
        out[good] = flat.to_numpy(zero_copy_only=False).astype(np.float64).reshape(-1, dim)
    mark_non_finite(chunk, out, field)
    return out
