"""``tl.distributed.tensor``: parallelism over a ``DeviceMesh`` (PyTorch's
``torch.distributed.tensor``). ``experimental`` holds context parallelism
(``context_parallel``: ring attention over a sharded sequence)."""
