"""The bottom layer: the state-only tensor base, grad mode, graph nodes, engine observers and
the backward engine. Nothing here imports from the rest of the package (see the layer order in
``tinygrad_lite/__init__.py``)."""
