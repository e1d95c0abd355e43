"""Type stubs of the simt package (see the module docstring)."""

from os import PathLike
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

__version__: str

Shape = Union[int, Tuple[int], Tuple[int, int], Tuple[int, int, int]]
Argument = Union[np.ndarray, int, float]

class CompileError(Exception):
    """A kernel's text did not compile: ``str(e)`` is the rendered diagnostic."""

    labels: list[Tuple[int, int, str]]
    """One ``(line, column, message)`` per error and note, 1-based."""

class LaunchError(Exception):
    """A launch failed; a fault sets where, other failures only ``kernel``."""

    kernel: str
    line: Optional[int]
    wave: Optional[int]
    lane: Optional[int]
    address: Optional[int]
    workgroup: Optional[Tuple[int, int, int]]

class Record:
    """Part of the statistics: its JSON fields as attributes."""

    def __getattr__(self, name: str) -> Any: ...
    def to_dict(self) -> dict[str, Any]:
        """The record as plain dicts, lists, numbers and strings."""

class Stats:
    """What a launch counted: the row of the ``simt`` command's JSON."""

    @property
    def counters(self) -> Record:
        """The launch's totals (``instructions``, ``global_transactions``, ...)."""
    @property
    def facts(self) -> list[Record]:
        """Per source line with any: ``line``, ``text`` and the static facts beside the measurement."""
    @property
    def estimate(self) -> Optional[Record]:
        """The timing model's estimate when the launch named a part."""
    @property
    def limited_by(self) -> Optional[str]:
        """What limits the launch by the estimate (``"DRAM"``, ``"issue"``, ``"latency"``, ...) when it named a part."""
    def __getattr__(self, name: str) -> Any:
        """Any field of the row: ``listing``, ``findings``, ``occupancy``, ..."""
    def to_dict(self) -> dict[str, Any]:
        """The whole result, in the schema of ``simt run --json``."""
    def html(self, path: Union[str, "PathLike[str]"]) -> None:
        """Writes the HTML report of the launch to ``path``."""
    def _repr_html_(self) -> str: ...

class Kernel:
    """A compiled kernel."""

    @property
    def name(self) -> str:
        """Its name; for a PTX kernel its CUDA name (``saxpy``)."""
    @property
    def demangled(self) -> Optional[str]:
        """A PTX kernel's full demangled name; ``None`` for simt's own kernels."""
    @property
    def mangled(self) -> Optional[str]:
        """A PTX kernel's name in the PTX (``_Z5saxpyifPKfPf``); ``None`` for simt's own kernels."""
    @property
    def params(self) -> list[Tuple[str, str]]:
        """``(name, type)`` per parameter, the type as Rust spells it."""
    def launch(
        self,
        grid: Shape,
        block: Shape,
        args: Union[Mapping[str, Argument], Sequence[Argument]],
        *,
        wave_width: int = 32,
        model: str = "reference",
        part: Optional[str] = None,
        sanitize: bool = False,
        threads: Optional[int] = None,
    ) -> Stats:
        """Launches ``grid`` workgroups of ``block`` work-items on ``args``."""

def compile(text: str) -> Kernel:
    """Compiles the one kernel of ``text``; raises ``CompileError``."""

def compile_rust(source: str, file: str = "<rust>") -> list[Kernel]:
    """Compiles the kernels of every ``simt_kernel!`` invocation in the Rust
    source ``source`` of the file ``file``; raises ``CompileError``."""

def compile_ptx(text: str, file: str = "<ptx>", shared_bytes: int = 0) -> list[Kernel]:
    """Compiles every kernel of the PTX ``text`` (as nvcc writes it), in
    ``.entry`` order; ``file`` names it in messages, and its folder is where
    the CUDA file of ``-lineinfo`` is looked for. ``shared_bytes`` sizes
    ``extern __shared__`` memory. Raises ``CompileError``."""

def compile_cuda(
    source: Union[str, "PathLike[str]"], shared_bytes: int = 0
) -> list[Kernel]:
    """Compiles every kernel of a ``.cu`` file (a path) or of CUDA source
    text through ``nvcc -arch=sm_90 -ptx -lineinfo``. Raises
    ``FileNotFoundError`` without nvcc, ``CompileError`` when nvcc or the
    PTX lowering fails."""

def find_nvcc() -> Optional[str]:
    """The nvcc ``compile_cuda`` runs (``SIMT_NVCC``, ``PATH``, NVIDIA's PyPI
    packages), or ``None``."""

def points(over: Mapping[str, Iterable[Any]]) -> list[dict[str, Any]]:
    """Every point of the grid ``over``, the last axis varying fastest."""

def sweep(
    text: str,
    over: Mapping[str, Iterable[Any]],
    *,
    grid: Union[Shape, Callable[[dict[str, Any]], Shape]],
    block: Union[Shape, Callable[[dict[str, Any]], Shape]],
    args: Union[Mapping[str, Argument], Sequence[Argument], Callable[[dict[str, Any]], Any]],
    client: Optional[Any] = None,
    progress: Optional[bool] = None,
) -> list[dict[str, Any]]:
    """One record per point of ``over``: the point, then the launch's counters.
    With ``client`` (a ``dask.distributed.Client``) the points run on its cluster."""
