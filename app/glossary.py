"""Plain-words one-liners for the training terms the pages use, as help text any page (and the
Guide) can reuse. Each says what the term means for the buyer, not how it is computed."""

TP = (
    "Tensor parallelism (TP): each layer's matrices are split across several GPUs of one server, "
    "which work on every step together over the fast in-server links."
)
PP = (
    "Pipeline parallelism (PP): the model's layers are cut into stages on different GPUs, and "
    "batches flow through them like an assembly line; some GPUs idle while the pipeline fills."
)
DP = (
    "Data parallelism (DP): whole copies of the (split) model each train on a different slice of "
    "the batch and average their gradients every step; this is how most GPUs are added."
)
ZERO = (
    "ZeRO: data-parallel copies share out the optimizer state (and gradients and weights at "
    "higher stages) instead of each holding all of it, so a model fits on fewer GPUs."
)
MFU = (
    "MFU (model FLOPs utilization): the share of the GPUs' peak arithmetic that goes into the "
    "model's own math; the rest goes to communication, memory waits and idle time."
)
GOODPUT = (
    "Goodput: the share of wall-clock time that advances training, after failures, restarts and "
    "checkpoints; the rest is time lost to redoing or waiting."
)

#: the terms in the order the Guide lists them
TERMS: dict[str, str] = {
    "TP": TP,
    "PP": PP,
    "DP": DP,
    "ZeRO": ZERO,
    "MFU": MFU,
    "Goodput": GOODPUT,
}
