"""`python -m pipelines.cli`: the `ratecard` command without its console script."""

from pipelines.cli.entry import main

main()
