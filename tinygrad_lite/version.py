"""``tl.version``: PyTorch's ``torch.version`` module (``__version__`` and what the build has:
no CUDA, no ROCm)."""

__all__ = ["__version__", "cuda", "hip", "debug", "git_version"]

__version__ = "0.1.0"
cuda = None  # no CUDA build: tensors live in NumPy arrays
hip = None
debug = False
git_version = "Unknown"
