"""Tasks: one module per task (clozet, senpos, plotcom, outgen) registering its record, the builders and `build`."""
