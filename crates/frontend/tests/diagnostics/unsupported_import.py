import warp as wp
import torch


@wp.kernel
def k(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = torch.sin(x[i])
