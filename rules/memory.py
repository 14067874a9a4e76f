"""Approximate memory size of what the caches keep (issue 16: caches bounded in bytes, not only
in entries). An estimate, not an accounting: containers and objects are walked once each (what
two entries share is counted once per call), numpy arrays count their buffers, and shapely
geometries their coordinates (GEOS keeps them outside Python, where `sys.getsizeof` does not
see them)."""

from __future__ import annotations

import sys
import types

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


__all__ = ["approximate_bytes"]
