"""`python -m lotdata`: the same CLI as the `lotdata` command."""

from lotdata.cli import main

main()
