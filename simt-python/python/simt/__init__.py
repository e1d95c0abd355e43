"""simt from Python: GPU kernels in an assembly-like language, run by a SIMT
interpreter that counts divergence, LDS bank conflicts and coalescing.

>>> import numpy as np, simt
>>> saxpy = simt.compile('''
... kernel saxpy(x: &[f32], y: &mut [f32], a: f32, n: u32) {
...     vreg i, xi, yi;
...     mreg inside;
...     v_mov        i, global_id
...     v_cmp_lt_u32 inside, i, n
...     if inside
...         global_load  xi, x[i]
...         global_load  yi, y[i]
...         v_fma_f32    yi, a, xi, yi
...         global_store y[i], yi
...     endif
... }''')
>>> x = np.ones(100, dtype=np.float32)
>>> y = np.full(100, 2.0, dtype=np.float32)
>>> stats = saxpy.launch(4, 32, {"x": x, "y": y, "a": 3.0, "n": 100})
>>> float(y[99]), stats.counters.divergent_vector_instructions
(5.0, 4)

CUDA kernels come in as nvcc's PTX: ``simt.compile_ptx(text)`` gives every
kernel of a PTX file, ``simt.compile_cuda(path_or_source)`` runs nvcc on a
``.cu`` file first (``pip install nvidia-cuda-nvcc nvidia-cuda-crt
nvidia-nvvm nvidia-cuda-runtime`` installs one). Their parameters are named
as in the PTX (``_Z5saxpyifPKfPf_param_0``); a 64-bit scalar is the two
words ``NAME`` and ``NAME.hi``, or one int given as ``NAME``.

Kernels launched from Python run on the interpreter of ``simt-core``, the
engine that ``simt run`` uses for kernels given as text. Buffers are copied
in before a launch and writable ones copied back after it; the launch itself
runs without the GIL, so threads of Python can launch at once.
"""

from ._simt import (
    CompileError,
    Kernel,
    LaunchError,
    Record,
    Stats,
    __version__,
    compile,
    compile_cuda,
    compile_ptx,
    compile_rust,
    find_nvcc,
)
from .sweep import points, sweep

__all__ = [
    "compile",
    "compile_rust",
    "compile_ptx",
    "compile_cuda",
    "find_nvcc",
    "Kernel",
    "Stats",
    "Record",
    "CompileError",
    "LaunchError",
    "sweep",
    "points",
    "__version__",
]
