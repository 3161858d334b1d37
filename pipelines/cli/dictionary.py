"""`python -m pipelines.cli.dictionary [PATH]` (`make docs`): write the data dictionary of a freshly built warehouse
(every kind's tables, views and columns, from their COMMENT ON text) to docs/data-dictionary.md or PATH."""

from __future__ import annotations

import sys
from pathlib import Path

from warehouse.dictionary import DEFAULT_PATH, generate


def main(argv: list[str]) -> None:
    path = Path(argv[0]) if argv else DEFAULT_PATH
    path.write_text(generate(), encoding="utf-8")
    sys.stdout.write(f"wrote {path}\n")


if __name__ == "__main__":
    main(sys.argv[1:])
