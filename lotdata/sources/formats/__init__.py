"""The built-in corpus formats of `lotdata read`, one module each (registered in `lotdata.datasets.formats`).

A module here that does not start with `_` is loaded when the registry is first asked; it calls
`register_format(InputFormat(...))`. `_common.py` holds what several formats share.
"""
