"""What a CUDA graph needs from a step, checked on the CPU: the aten ops a call runs, with their shapes."""

import torch


class OpRecorder(torch.utils._python_dispatch.TorchDispatchMode):
    """Every aten op with its output shapes."""

    def __init__(self):
        super().__init__()
        self.ops = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        shapes = tuple(tuple(t.shape) for t in (out if isinstance(out, (tuple, list)) else [out]) if
                       isinstance(t, torch.Tensor))  # fmt: skip
        self.ops.append((str(func), shapes))
        return out


# ops that read a device value back to the host (a CUDA graph cannot hold them)
HOST_SYNC_OPS = ("_local_scalar_dense", "aten.item", "nonzero", "aten.equal", "is_nonzero", "masked_select")


def host_syncs(ops: list) -> list:
    return [op for op, _ in ops if any(s in op for s in HOST_SYNC_OPS)]
