"""The implementation of ``tinygrad_lite.nn.functional``, one module per theme (activation,
linear, dropout, sparse, normalization, conv, pooling, loss, attention). Import the functions
from ``nn.functional``, which re-exports all of them; these paths are private."""
