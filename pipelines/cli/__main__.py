"""`python -m pipelines.cli`: the `ratecard` command without its console script."""

from pipelines.cli.app import app

app(prog_name="ratecard")
