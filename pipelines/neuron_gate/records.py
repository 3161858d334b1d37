"""Typed records of the Neuron software gate: a package as a release's manifest ships it, a status statement as the
documentation prints it, and a release's date.

Nothing is inferred: a statement's instance families are those its own sentence names (None when it names none:
"not stated"), and a package the documentation says nothing about has no statement at all, never "supported".
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Literal

from pydantic import BaseModel, Field

from schemas.record import Record

# The documentation's status words, from most to least usable. A page that prints two for one package (torch-neuronx:
# "supported", and "not included in Neuron 2.32.0 and later") is read as the later, more restrictive one.
GateStatus = Literal["recommended", "supported", "beta", "archived", "not included", "end of support"]
STATUS_ORDER: tuple[GateStatus, ...] = (
    "recommended",
    "supported",
    "beta",
    "archived",
    "not included",
    "end of support",
)

Work = Literal["training", "inference"]

RELEASE = r"^\d+\.\d+\.\d+$"
INSTANCE_FAMILY = r"^(?:inf|trn)\d+n?$"


class ManifestPackage(Record):
    """One package row of one release in the manifest (n2-manifest.json): it ships, at this version, for these
    instance families. The manifest states no status."""

    release: str = Field(pattern=RELEASE)
    package: str = Field(min_length=1)
    package_version: str = Field(min_length=1)
    instances: list[Annotated[str, Field(pattern=INSTANCE_FAMILY)]]
    # Entries that name no instance family, as printed (2.13.0-2.18.2 list tensorflow-neuronx for "inf."): kept
    # beside the readable ones, never read as a family.
    unread_instances: list[str] = Field(default_factory=list)
    python_versions: list[str]


class SupportStatement(Record):
    """What one documentation page says of one package or framework, with the words it says it in."""

    package: str = Field(min_length=1)  # the package name the page prints, else the framework's name
    framework: str = Field(min_length=1)  # the name as printed ("PyTorch NeuronX")
    manifest_package: str | None = None  # the manifest's name for it, where the page or the curated names give one
    status: GateStatus
    # Every status word the page gives it, in page order (an announcement: "no longer supports", "maintenance mode").
    printed_statuses: list[str]
    instances: list[str] | None = None  # families the statement names; None: not stated
    # The statement limits itself to those families ("Beta — Trn2/Trn3 only", "(Inf1 only)"); else it names them
    # without saying the others are out.
    instances_only: bool = False
    # The release it takes effect from: "not included in Neuron 2.32.0 and later", "starting with Neuron 2.30"
    from_release: str | None = Field(default=None, pattern=RELEASE)
    # The last release that has it, where the page says so ("2.28 will be the last release to include NxDT"): it is
    # out from the release after, whichever that is.
    last_release: str | None = Field(default=None, pattern=RELEASE)
    # The versions of the package it speaks of, as printed ("1.9 and 1.10", "1.x"); None: the package as a whole.
    versions: str | None = None
    doc_release: str | None = None  # the documentation release the page belongs to (its URL), when it says
    # The work it speaks of ("no longer supported for training"); None: not stated, so any.
    work: Work | None = None
    # Put in maintenance mode (the SDK policy's Maintenance phase: critical fixes only); its status stays what the
    # phase is, supported, until an end of support is stated.
    in_maintenance: bool = False
    announced_on: date | None = None  # an announcement's post date (`.. post::`); None: the page states none
    quoted: str = Field(min_length=1)


class ReleaseDate(Record):
    release: str = Field(pattern=RELEASE)
    release_date: date
    date_printed: str


class LifecyclePhase(Record):
    """A phase of Neuron software's life cycle as AWS's SDK maintenance policy defines it ("Developer Preview (Beta)",
    "Maintenance", "End of Support (EOS)"): what the documentation's status words mean, quoted."""

    phase: str = Field(min_length=1)  # the name before its parentheses ("Developer Preview")
    also_called: str | None = None  # the name in them ("Beta", "Stable", "EOS"); None: the policy gives none
    printed: str = Field(min_length=1)  # the cell as printed
    meaning: str = Field(min_length=1)  # the policy's description, as printed
    applies: str | None = None  # the policy's comment on where the phase applies; None: none printed


class GateBatch(BaseModel):
    source_id: str
    parser_version: str
    packages: list[ManifestPackage] = []
    statements: list[SupportStatement] = []
    releases: list[ReleaseDate] = []
    phases: list[LifecyclePhase] = []
    warnings: list[str] = []  # what the parser tolerated, named
    refused: list[str] = []  # rows refused one by one (a manifest row missing its name or version), with why
    shape: str | None = None

    @property
    def row_count(self) -> int:
        return len(self.packages) + len(self.statements) + len(self.releases) + len(self.phases)
