"""The versions of a package an announcement speaks of ("torch-neuron 1.9 and 1.10 versions", "Tensorflow-Neuron 1.x",
"PyTorch Neuron versions 1.9 and 1.10"), found by their words.

The versions are taken out of the sentence, so that its status patterns read the package's name as they read any
other, and each is kept, as printed, beside the name it follows: the statement's version scope. A release number
("Neuron 2.30", "Neuron release 2.19", "SDK 2.31.0") is no package version and stays where it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_VERSION = r"v?\d+(?:\.(?:\d+|x))+"  # 1.9, 1.10, 1.x, 2.10.1: always a dot, so "V0" or "Trn2" is none
_VERSIONS = rf"{_VERSION}(?:(?:,\s*|,?\s+(?:and|or)\s+){_VERSION})*"
_SCOPED = re.compile(
    rf"(?P<name>[A-Za-z][\w.+/\-]*) (?P<word>versions? )?(?P<versions>{_VERSIONS})(?: versions?)?(?!\w|\.\w)",
    re.IGNORECASE,
)
# Words a release number follows ("Neuron 2.30", "Neuron SDK release 2.28"): a release, never a package's versions,
# unless the word "versions" says so ("PyTorch Neuron versions 1.9 and 1.10").
_RELEASE_WORDS = frozenset({"neuron", "release", "releases", "sdk"})


@dataclass(frozen=True)
class Scoped:
    """A sentence with its package versions taken out, and which name (by where it ends) each belonged to."""

    text: str
    versions_at: dict[int, str]  # the offset in `text` where a name ends -> its versions as printed

    def versions_of(self, end: int) -> str | None:
        return self.versions_at.get(end)


def without_versions(unit: str) -> Scoped:
    """The unit with each "<name> <versions>" written as "<name>", and the versions kept by the name's end."""
    parts: list[str] = []
    versions_at: dict[int, str] = {}
    length = 0
    last = 0
    for m in _SCOPED.finditer(unit):
        if m["name"].lower() in _RELEASE_WORDS and not m["word"]:
            continue
        kept = unit[last : m.end("name")]
        parts.append(kept)
        length += len(kept)
        versions_at[length] = m["versions"]
        last = m.end()
    parts.append(unit[last:])
    return Scoped("".join(parts), versions_at)
