"""A vendor benchmark row as the vendor's table prints it: the model, the instance, the SDK release and the run's
conditions, and the figures (throughput in the header's unit, a training run's in sequences a second; for a decoder,
time to first token and time per output token at P50 and P99, for an encoder the request latency at P50 and P99, in
milliseconds). A figure the table leaves empty stays unknown, never 0."""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from pydantic import BaseModel, Field

from schemas.record import Record

RELEASE = r"^\d+\.\d+\.\d+$"
MILLISECONDS = Field(default=None, ge=0, max_digits=28, decimal_places=10)


class VendorBenchmark(Record):
    model: str = Field(min_length=1)
    work: Literal["inference", "training"] = "inference"  # a training table prints its run's scale (nodes, batch)
    instance_type: str = Field(pattern=r"^[a-z][a-z0-9]*\.[a-z0-9]+$")  # lower-cased; the table prints "Inf2.48xlarge"
    instance_printed: str
    neuron_release: str = Field(pattern=RELEASE)
    framework: str | None = None
    task: str | None = None
    application_type: str | None = None  # "Real Time" or "Batch", as printed
    batch_size: int | None = Field(default=None, ge=1)
    tp_degree: int | None = Field(default=None, ge=1)
    dp_degree: int | None = Field(default=None, ge=1)
    input_length: int | None = Field(default=None, ge=0)
    output_length: int | None = Field(default=None, ge=0)
    sequence_length: int | None = Field(default=None, ge=1)  # an encoder's input length, a training run's sequence
    # A training run's scale, as printed: instances, their layout ("TP=32 DP=32 PP=1 ZeRO-1") and the global batch.
    nodes: int | None = Field(default=None, ge=1)
    topology: str | None = None
    global_batch_size: int | None = Field(default=None, ge=1)
    optimizer: str | None = None  # a training run's ("AdamW", "Lamb")
    model_data_type: str | None = None
    image_size: str | None = None  # a vision model's input, as printed ("3x224x224")
    neuron_cores: int | None = Field(default=None, ge=1)  # an Inf1 run's NeuronCores ("Num. Cores")
    model_details: str | None = None  # an Inf1 table's "Model details", as printed ("fp32, sequence-length=128")
    throughput: Decimal = Field(gt=0, max_digits=28, decimal_places=10)
    throughput_unit: str = Field(min_length=1)  # from the header: "tokens/sec"
    ttft_p50_ms: Decimal | None = MILLISECONDS
    ttft_p99_ms: Decimal | None = MILLISECONDS
    tpot_p50_ms: Decimal | None = MILLISECONDS
    tpot_p99_ms: Decimal | None = MILLISECONDS
    latency_p50_ms: Decimal | None = MILLISECONDS  # an encoder's whole request
    latency_p99_ms: Decimal | None = MILLISECONDS
    # An encoder-decoder's "Latency per Token", as printed (not renamed into a time per output token).
    token_latency_p50_ms: Decimal | None = MILLISECONDS
    token_latency_p99_ms: Decimal | None = MILLISECONDS
    # A training run's model FLOPs utilisation ("MFU[%]", a percentage as printed) and its compute cost per token in
    # the header's unit ("ComputeCostPerToken(Tflops)"), as printed: figures of the vendor's claim, not derived here.
    mfu_pct: Decimal | None = Field(default=None, ge=0, le=100, max_digits=28, decimal_places=10)
    compute_cost_per_token_tflops: Decimal | None = Field(default=None, gt=0, max_digits=28, decimal_places=10)

    @property
    def conditions(self) -> str:
        """The run's conditions as one key: two rows of one model, instance and release differ in these."""
        parts = [
            ("framework", self.framework), ("mode", self.application_type), ("batch", self.batch_size),
            ("tp", self.tp_degree), ("dp", self.dp_degree), ("in", self.input_length), ("out", self.output_length),
            # A decoder's sequence is its input and output lengths, already named; an encoder's is its own.
            ("seq", self.sequence_length if self.input_length is None else None), ("nodes", self.nodes),
            ("topology", self.topology), ("global batch", self.global_batch_size), ("optimizer", self.optimizer),
            ("image", self.image_size), ("dtype", self.model_data_type), ("cores", self.neuron_cores),
            ("details", self.model_details),
        ]  # fmt: skip
        return " · ".join(f"{name} {value}" for name, value in parts if value is not None)


class BenchmarkBatch(BaseModel):
    source_id: str
    parser_version: str
    rows: list[VendorBenchmark] = []
    warnings: list[str] = []
    refused: list[str] = []  # rows refused one by one, with why
    shape: str | None = None

    @property
    def row_count(self) -> int:
        return len(self.rows)
