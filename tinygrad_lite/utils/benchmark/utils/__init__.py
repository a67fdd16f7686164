"""The modules behind ``tinygrad_lite.utils.benchmark``, at PyTorch's paths
(``torch.utils.benchmark.utils.common`` / ``.timer`` / ``.compare``)."""
