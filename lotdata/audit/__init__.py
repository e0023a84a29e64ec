"""Bias audit: the LOT Table 13 and ROCStories Table 6 baselines, token scans, AFLite, reports."""
