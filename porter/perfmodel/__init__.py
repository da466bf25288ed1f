"""porter's analytical performance model: kernel time from device data, with no GPU and no warm-up.

- gemm: tiled GEMM as Triton lowers it (compute, LDS, memory hierarchy, residency, waves).
- roofline: memory-bound kernels (elementwise, reductions, softmax, norms).
- select: the legal config space per device and dtype, and the pick for a shape.

Used by the Triton microarch rules (TRI020/021) to choose gfx950 launch knobs, by the verifier
for "estimated" performance verdicts where no AMD GPU ran the port, and by `porter tune`.
"""

from porter.perfmodel.gemm import Gemm, GemmConfig, Prediction, Traits, predict
from porter.perfmodel.select import Selection, select

__all__ = ["Gemm", "GemmConfig", "Prediction", "Selection", "Traits", "predict", "select"]
