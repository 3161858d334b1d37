"""`python -m ratecard`: the `ratecard` command without its console script."""

from ratecard.console import main

main()
