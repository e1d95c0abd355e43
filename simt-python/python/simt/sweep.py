"""Sweeps: one kernel launched at every point of a grid of parameters, here
or on a Dask cluster, with the same records either way.

A point is a dict with one value per axis. The axes ``wave_width``,
``model``, ``part``, ``sanitize`` and ``threads`` are launch options; any
other axis is the caller's own (a size, a stride), which ``grid``, ``block``
and ``args`` read when they are callables of the point.

Dask distributed, not Ray: Dask ships functions with cloudpickle, so the
``args`` callables of a sweep travel as they are; a local cluster of two
worker processes starts in seconds on a laptop or in CI; and the same client
connects to a scheduler on a real cluster
(``Client("tcp://scheduler:8786")``) with no change to the sweep.
"""

from __future__ import annotations

import functools
import itertools
import sys
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Union

from ._simt import LAUNCH_OPTIONS
from ._simt import compile as _compile

Point = Dict[str, Any]
OrCallable = Union[Any, Callable[[Point], Any]]


def points(over: Mapping[str, Iterable[Any]]) -> List[Point]:
    """Every point of the grid ``over`` (axis name to values), the last axis
    varying fastest."""
    names = list(over)
    return [dict(zip(names, values)) for values in itertools.product(*(list(over[n]) for n in names))]


@functools.lru_cache(maxsize=16)
def _kernel(text: str):
    return _compile(text)


def _value(v: OrCallable, point: Point) -> Any:
    return v(point) if callable(v) else v


def run_point(text: str, point: Point, grid: OrCallable, block: OrCallable, args: OrCallable) -> Dict[str, Any]:
    """Launches the kernel of ``text`` at ``point``: its record is the one
    ``simt sweep`` writes for the same launch (``kernel``, ``groups``,
    ``size``, ``wave_width``, ``model``, ``part`` when timed, ``workgroups``,
    ``waves``, the counters, and ``estimate_cycles``, ``estimate_us`` and
    ``limited_by`` when timed), with the point's other values beside them.
    Compiles each text once per process."""
    options = {k: point[k] for k in LAUNCH_OPTIONS if k in point}
    stats = _kernel(text).launch(_value(grid, point), _value(block, point), _value(args, point), **options)
    return stats._sweep_record(point)


class _Progress:
    """``k/n`` on standard error, redrawn in place, when ``on``."""

    def __init__(self, total: int, on: bool):
        self.total, self.done, self.on = total, 0, on

    def step(self) -> None:
        self.done += 1
        if self.on:
            end = "\n" if self.done == self.total else ""
            print(f"\rsweep {self.done}/{self.total}", end=end, file=sys.stderr, flush=True)


def sweep(
    text: str,
    over: Mapping[str, Iterable[Any]],
    *,
    grid: OrCallable,
    block: OrCallable,
    args: OrCallable,
    client: Optional[Any] = None,
    progress: Optional[bool] = None,
) -> List[Dict[str, Any]]:
    """Launches the kernel of ``text`` at every point of ``over`` and returns
    one record per point, in the order of :func:`points`: a list of flat
    dicts, which ``pandas.DataFrame(records)`` takes as it is. Give ``args``
    as a function of the point so that each launch gets fresh buffers: the
    same arrays passed to every point carry one launch's writes into the
    next (and a cluster's tasks each get their own copies). A launch that
    fails raises, as ``Kernel.launch`` does.

    With ``client`` (a ``dask.distributed.Client``) the points run as tasks
    on its cluster, a run of consecutive points per task and about eight
    tasks per worker, each worker compiling the text once; the records are
    the same as a local run's. ``progress`` (default: when standard error is a
    terminal) shows how many points are done.
    """
    todo = points(over)
    shown = _Progress(len(todo), sys.stderr.isatty() if progress is None else progress)
    if client is None:
        records = []
        for point in todo:
            records.append(run_point(text, point, grid, block, args))
            shown.step()
        return records
    from dask.distributed import as_completed

    # A task per point would spend more on Dask's bookkeeping (milliseconds)
    # than on a small launch: each task runs a run of consecutive points,
    # several runs per worker so that the faster ones take more.
    workers = max(1, len(client.scheduler_info().get("workers", {})))
    per_task = max(1, -(-len(todo) // (8 * workers)))
    runs = [todo[k : k + per_task] for k in range(0, len(todo), per_task)]
    futures = [client.submit(_run_points, text, run, grid, block, args, pure=False) for run in runs]
    for future in as_completed(futures):
        for _ in range(future.result()[1]):
            shown.step()
    return [record for future in futures for record in future.result()[0]]


def _run_points(text: str, run: List[Point], grid: OrCallable, block: OrCallable, args: OrCallable):
    """:func:`run_point` at each point of ``run``; the records and their count."""
    records = [run_point(text, point, grid, block, args) for point in run]
    return records, len(records)
