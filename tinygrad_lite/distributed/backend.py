"""Communication backends: the ``Backend`` names PyTorch programs pass around and the queries
for which are available. Every backend name that runs on the CPU ("mpi", and "gloo", which
programs name for CPU tensors) runs over MPI here; the accelerator backends (NCCL, UCC, XCCL)
are not available."""

from __future__ import annotations

from .process_group import is_available

__all__ = ["Backend", "is_backend_available", "is_gloo_available", "is_mpi_available",
           "is_nccl_available", "is_ucc_available", "is_xccl_available"]


class Backend(str):
    """A backend's name, lower case (``Backend("GLOO") == "gloo"``, ``Backend.MPI``); an
    unknown name raises ValueError."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    UCC = "ucc"
    MPI = "mpi"
    XCCL = "xccl"
    backend_list = [UNDEFINED, GLOO, NCCL, XCCL, UCC, MPI]
    default_device_backend_map: dict[str, str] = {"cpu": GLOO}
    backend_capability: dict[str, list[str]] = {GLOO: ["cpu"], NCCL: ["cuda"], XCCL: ["xpu"],
                                                UCC: ["cpu", "cuda"], MPI: ["cpu"]}

    def __new__(cls, name: str) -> str:  # type: ignore[misc]
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, got "
                             f"{type(name).__name__}")
        value = name.lower()
        if value not in cls.backend_list:
            raise ValueError(f"Invalid backend: '{name}'")
        return value


def is_backend_available(backend: str) -> bool:
    """Whether ``backend`` can be passed to ``init_process_group`` here."""
    return str(backend).lower() in (Backend.GLOO, Backend.MPI) and is_available()


def is_mpi_available() -> bool:
    """Whether the MPI backend is available (mpi4py and an MPI library are installed)."""
    return is_available()


def is_gloo_available() -> bool:
    """Whether "gloo" can be used: it runs over MPI here."""
    return is_available()


def is_nccl_available() -> bool:
    """NCCL (CUDA GPUs): never here."""
    return False


def is_ucc_available() -> bool:
    """UCC: never here."""
    return False


def is_xccl_available() -> bool:
    """XCCL (Intel GPUs): never here."""
    return False
