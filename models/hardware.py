"""GPU catalogue: one row per GPU type in `models/data/gpus.csv`, each with its source and date.

Units are in the field names. Bandwidths are per GPU: `scaleup_bandwidth_gbyte_per_s` is one direction
of the NVLink/Infinity Fabric/PCIe link, `scaleout_bandwidth_gbit_per_s` the GPU's share of the
inter-node NICs.
"""

from __future__ import annotations

import csv
import functools
import pathlib
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from models.errors import InputError, data_file_error

DATA_FILE = pathlib.Path(__file__).with_name("data") / "gpus.csv"


class GpuSpec(BaseModel):
    model_config = ConfigDict(frozen=True)

    gpu_id: str
    name: str
    memory_gib: float = Field(gt=0)
    bf16_dense_tflops: float = Field(gt=0)
    fp8_dense_tflops: float | None = Field(default=None, gt=0)
    #: FP4 tensor cores (Blackwell); None where the GPU has none (models/serving/plan.py reads it)
    fp4_dense_tflops: float | None = Field(default=None, gt=0)
    #: Best large-GEMM rate measured on the chip as a share of its BF16 peak (Stas Bekman's
    #: "maximum achievable matmul FLOPS", MAMF): clocks, power and the vendor's GEMM library.
    matmul_fraction_of_peak: float = Field(gt=0, le=1)
    hbm_bandwidth_tbyte_per_s: float = Field(gt=0)
    scaleup_bandwidth_gbyte_per_s: float = Field(gt=0)
    #: A scale-up domain wired as a full mesh of point-to-point links (AMD Infinity Fabric): GB/s each
    #: way over the one link between two GPUs, so a group of n GPUs reaches (n − 1) × this, at most
    #: the aggregate above; None where a switch gives every GPU its whole bandwidth to any group (NVLink)
    scaleup_link_gbyte_per_s: float | None = Field(default=None, gt=0)
    scaleup_domain_gpus: int = Field(ge=1)
    scaleout_bandwidth_gbit_per_s: float = Field(gt=0)
    gpus_per_node: int = Field(ge=1)
    tdp_w: float = Field(gt=0)
    node_power_kw: float = Field(gt=0)
    failures_per_gpu_day: float = Field(gt=0)
    #: Chip generation (NVIDIA's architecture name; AMD's CDNA generation): the key of the measured
    #: attention-kernel rates (constants.ATTENTION_EFFICIENCY), which differ by generation at one GEMM rate.
    architecture: Literal["ampere", "ada", "hopper", "blackwell", "cdna2", "cdna3"]
    as_of: str
    source: str = Field(min_length=1)
    notes: str = ""

    def scaleup_group_gbyte_per_s(self, ranks) -> np.ndarray:
        """GB/s each way one GPU moves within a group of `ranks` GPUs of its scale-up domain: on a
        switch (no `scaleup_link_gbyte_per_s`) the whole aggregate for any group; on a full mesh of
        point-to-point links only the group's own k − 1 links carry it, min(aggregate, max(k − 1, 1)
        · link) (docs/reference/training.md 9; serving-evidence.md, sixteenth amendment)."""
        k = np.asarray(ranks, dtype=float)
        if self.scaleup_link_gbyte_per_s is None:
            return np.full_like(k, self.scaleup_bandwidth_gbyte_per_s)
        mesh = np.maximum(k - 1, 1) * self.scaleup_link_gbyte_per_s
        return np.minimum(self.scaleup_bandwidth_gbyte_per_s, mesh)

    def peak_tflops(self, precision: str) -> float:
        """Dense tensor-core peak for the precision; FP8 and FP4 need their tensor cores."""
        if precision == "fp4":
            if self.fp4_dense_tflops is None:
                raise ValueError(
                    f"{self.gpu_id} has no FP4 tensor cores; use precision fp8 or bf16"
                )
            return self.fp4_dense_tflops
        if precision == "fp8":
            if self.fp8_dense_tflops is None:
                raise ValueError(f"{self.gpu_id} has no FP8 tensor cores; use precision bf16")
            return self.fp8_dense_tflops
        return self.bf16_dense_tflops


#: a bad row in the GPU catalogue: the one input error (models/errors.py)
CatalogueError = InputError


@functools.lru_cache(maxsize=4)
def load_gpus(path: pathlib.Path = DATA_FILE) -> dict[str, GpuSpec]:
    """Reads and validates the GPU catalogue once; ids are the CLI's `--gpu` values."""
    gpus: dict[str, GpuSpec] = {}
    with path.open(newline="") as f:
        for line_no, row in enumerate(csv.DictReader(f), start=2):
            clean = {k: (v if v != "" else None) for k, v in row.items()}
            clean["notes"] = clean.get("notes") or ""
            try:
                spec = GpuSpec.model_validate(clean)
            except ValidationError as exc:
                err = exc.errors()[0]
                field = ".".join(str(p) for p in err["loc"])
                raise data_file_error(path, line_no, field, err["msg"]) from None
            if spec.gpu_id in gpus:
                raise data_file_error(path, line_no, "gpu_id", f"duplicate {spec.gpu_id}")
            gpus[spec.gpu_id] = spec
    return gpus


def gpu_ids() -> list[str]:
    return list(load_gpus())


def gpus_with(precision: str, has: bool = True) -> list[str]:
    """The catalogue's GPU ids that have (or, has=False, lack) tensor cores for `precision` (fp8,
    fp4): the lists help texts name, read from the catalogue so a GPU added there is named."""
    field = {"fp8": "fp8_dense_tflops", "fp4": "fp4_dense_tflops"}[precision]
    return [g for g, spec in load_gpus().items() if (getattr(spec, field) is not None) == has]


def get_gpu(gpu_id: str) -> GpuSpec:
    gpus = load_gpus()
    if gpu_id not in gpus:
        raise KeyError(f"unknown GPU '{gpu_id}'; choose one of: {', '.join(gpus)}")
    return gpus[gpu_id]
