"""``tinygrad_lite.testing`` (PyTorch's ``torch.testing``): ``assert_close`` (and the deprecated
``assert_allclose``) to compare tensors, numbers and nested containers of them with per-dtype
tolerances, and ``make_tensor`` to create random test inputs."""

from ._comparison import assert_allclose, assert_close
from ._creation import make_tensor

__all__ = ["assert_close", "assert_allclose", "make_tensor"]
