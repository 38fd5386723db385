"""TextColumn: texts as one UTF-8 buffer plus offsets, for batch calls without one Python
string per row."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from evalmark.errors import MetricInputError

if TYPE_CHECKING:
    import pyarrow as pa


@dataclass(frozen=True, slots=True)
class TextColumn:
    """A column of UTF-8 texts as one byte buffer plus offsets: row i is
    ``data[offsets[i]:offsets[i + 1]]``. Batch functions accept it in place of a list of ``str``,
    so Arrow data reaches the kernels without one Python string per row. The kernels read the
    two arrays in place while the GIL is released: do not write to them during a call."""

    data: npt.NDArray[np.uint8]
    offsets: npt.NDArray[np.int64]

    def __post_init__(self) -> None:
        data = np.ascontiguousarray(self.data, dtype=np.uint8).reshape(-1)
        offsets = np.ascontiguousarray(self.offsets, dtype=np.int64).reshape(-1)
        if offsets.size == 0:
            raise MetricInputError("a TextColumn needs n + 1 offsets for n rows, got none")
        object.__setattr__(self, "data", data)
        object.__setattr__(self, "offsets", offsets)

    def __len__(self) -> int:
        return int(self.offsets.size - 1)

    @classmethod
    def from_strings(cls, texts: Sequence[str]) -> TextColumn:
        """Pack Python strings (encoded as UTF-8) into one buffer."""
        if isinstance(texts, str):
            raise TypeError("from_strings takes a sequence of str, got a single str")
        encoded = []
        for i, t in enumerate(texts):
            if not isinstance(t, str):
                raise TypeError(f"row {i}: expected str, got {type(t).__name__}")
            try:
                encoded.append(t.encode("utf-8"))
            except UnicodeEncodeError:
                raise MetricInputError(
                    f"row {i} holds a lone surrogate, which UTF-8 cannot store; "
                    "pass the list of str itself instead of a TextColumn"
                ) from None
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum([len(b) for b in encoded], out=offsets[1:])
        data = np.frombuffer(b"".join(encoded), dtype=np.uint8)
        return cls(data, offsets)

    @classmethod
    def from_arrow(cls, array: pa.Array | pa.ChunkedArray) -> TextColumn:
        """Wrap a pyarrow ``string`` or ``large_string`` array (no nulls) without copying rows
        into Python objects."""
        import pyarrow as pa

        if isinstance(array, pa.ChunkedArray):
            array = array.combine_chunks() if array.num_chunks != 1 else array.chunk(0)
        if array.null_count:
            raise MetricInputError(
                f"the Arrow column has {array.null_count} null values; fill or drop them first"
            )
        if pa.types.is_string(array.type):
            offset_type: type[np.integer[Any]] = np.int32
        elif pa.types.is_large_string(array.type):
            offset_type = np.int64
        else:
            raise TypeError(f"expected an Arrow string column, got type {array.type}")
        _, offsets_buf, data_buf = array.buffers()
        n = len(array)
        offsets = np.frombuffer(offsets_buf, dtype=offset_type)[array.offset : array.offset + n + 1]
        data = (
            np.frombuffer(data_buf, dtype=np.uint8)
            if data_buf is not None
            else np.zeros(0, np.uint8)
        )
        return cls(data, offsets.astype(np.int64))

    def _parts(self) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
        return (self.data, self.offsets)


Texts = Sequence[str] | TextColumn
