"""`python -m kadmit`: the command line."""

from kadmit.cli import main

main()
