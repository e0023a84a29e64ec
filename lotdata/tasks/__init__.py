"""Task builders (SenPos, PlotCom, OutGen), splits, LOT jsonl format and Table 3 statistics."""
