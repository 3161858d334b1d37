"""The command line: every `ratecard` command, its options and its terminal output."""
