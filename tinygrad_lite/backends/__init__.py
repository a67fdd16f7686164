"""``tl.backends``: the switches PyTorch programs set for their backends (``cudnn.benchmark``,
``cuda.matmul.allow_tf32``, ...), one module each as in PyTorch (``import torch.backends.cudnn
as cudnn`` works). They are accepted and remembered, and change nothing: NumPy and its BLAS do
the work here. No GPU backend is available."""

from __future__ import annotations

from . import cpu, cuda, cudnn, mkl, mkldnn, mps, openmp, opt_einsum

__all__ = ["cpu", "cuda", "cudnn", "mkl", "mkldnn", "mps", "openmp", "opt_einsum"]
