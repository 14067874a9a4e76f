"""Approximate memory size of what the caches keep (issue 16: caches bounded in bytes, not only
in entries). An estimate, not an accounting: containers and objects are walked once each (what
two entries share is counted once per call), numpy arrays count their buffers, and shapely
geometries their coordinates (GEOS keeps them outside Python, where `sys.getsizeof` does not
see them)."""

from __future__ import annotations

import sys
import threading
import types
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

#: Bytes per coordinate of a GEOS geometry (two doubles, plus its share of the structure).
GEOS_COORDINATE_BYTES = 24
#: A GEOS geometry's own structure, and a prepared geometry's index, per geometry (about).
GEOS_GEOMETRY_BYTES = 200
#: What an entry refers to but does not own (code, classes, modules: walking a module would
#: measure the whole program).
SHARED = (
    bool,
    type,
    types.ModuleType,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
)
#: Items measured of a long list or tuple (the rest are taken to be alike).
SAMPLE = 32


def approximate_bytes(root: object) -> int:
    """The approximate size of `root` and everything it refers to."""
    seen: set[int] = set()
    stack = [root]
    total = 0
    while stack:
        obj = stack.pop()
        if id(obj) in seen or obj is None or isinstance(obj, SHARED):
            continue
        seen.add(id(obj))
        if isinstance(obj, BaseGeometry):
            coordinates = int(shapely.get_num_coordinates(obj))
            # (a prepared geometry keeps an index about as large as its coordinates again)
            prepared = 2 if shapely.is_prepared(obj) else 1
            total += GEOS_GEOMETRY_BYTES + prepared * coordinates * GEOS_COORDINATE_BYTES
            continue
        if isinstance(obj, np.ndarray):
            total += sys.getsizeof(obj) if obj.base is None else obj.nbytes + 112
            if obj.dtype == object:
                stack.extend(obj.ravel().tolist())
            continue
        total += sys.getsizeof(obj, 64)
        if isinstance(obj, (str, bytes, bytearray, int, float, complex)):
            continue
        if isinstance(obj, dict):
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif isinstance(obj, (list, tuple)) and len(obj) > SAMPLE:
            # A long sequence (a graph's nodes, edges) is nearly always of one kind of item:
            # measure a sample and scale it, so measuring costs little next to building.
            step = len(obj) / SAMPLE
            sample = [obj[int(i * step)] for i in range(SAMPLE)]
            total += approximate_bytes(sample) * len(obj) // SAMPLE - sys.getsizeof(sample)
        elif isinstance(obj, (list, tuple, set, frozenset)):
            stack.extend(obj)
        else:
            fields = getattr(obj, "__dict__", None)
            if isinstance(fields, dict):
                stack.append(fields)
            for cls in type(obj).__mro__:
                for slot in getattr(cls, "__slots__", ()):
                    if isinstance(slot, str) and hasattr(obj, slot):
                        stack.append(getattr(obj, slot))
            if hasattr(obj, "geometries") and isinstance(obj.geometries, np.ndarray):
                stack.append(obj.geometries)  # an STRtree: its geometries, plus its nodes
                total += 64 * len(obj.geometries)
    return total


def geometry_bytes(geometry: BaseGeometry) -> int:
    """`approximate_bytes` of one shapely geometry, unprepared: its structure and coordinates."""
    return GEOS_GEOMETRY_BYTES + int(shapely.get_num_coordinates(geometry)) * GEOS_COORDINATE_BYTES


class Kept:
    """Values kept by key, least recently used first out, within `limit` bytes (as the caller
    measures each value) and at most `most` entries; a value over a quarter of `limit` is not
    kept (one value must not empty the store). Thread-safe: a lock guards the store, and the
    values kept are immutable (shapely geometries, tuples, strings), so sharing them is safe.
    The one byte-bounded store of the engine's and the pages' caches (issue 16)."""

    def __init__(self, limit: int, most: int | None = None):
        self.limit, self.most = limit, most
        self.entries: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self.bytes = 0
        self.lock = threading.Lock()

    def get(self, key: Hashable, build: Callable[[], Any], size: Callable[[Any], int]) -> Any:
        """The value kept for `key`, else `build()` kept at `size(value)` bytes. (`build` runs
        outside the lock: two threads may both build a missing value; the first one is kept.)"""
        with self.lock:
            kept = self.entries.get(key)
            if kept is not None:
                self.entries.move_to_end(key)
                return kept[0]
        value = build()
        self.keep(key, value, size(value))
        return value

    def look_up(self, key: Hashable) -> tuple[Any, int] | None:
        """(value, bytes) kept for `key`, now the most recently used, or None."""
        with self.lock:
            kept = self.entries.get(key)
            if kept is not None:
                self.entries.move_to_end(key)
            return kept

    def keep(self, key: Hashable, value: Any, cost: int) -> None:
        """Keep `value` for `key` at `cost` bytes (unless one is kept already, or it is over a
        quarter of the limit), then drop the least recently used while over either bound."""
        with self.lock:
            if key not in self.entries and cost <= self.limit // 4:
                self.entries[key] = (value, cost)
                self.bytes += cost
            while self.bytes > self.limit or (
                self.most is not None and len(self.entries) > self.most
            ):
                self.bytes -= self.entries.popitem(last=False)[1][1]

    def clear(self) -> None:
        with self.lock:
            self.entries.clear()
            self.bytes = 0

    def usage(self) -> tuple[int, int]:
        """(entries, bytes) kept now."""
        with self.lock:
            return len(self.entries), self.bytes


__all__ = ["Kept", "approximate_bytes", "geometry_bytes"]
