"""Cleaning: noise stripping, annotator flags, rule-based rejection, exact and near-duplicate removal."""
