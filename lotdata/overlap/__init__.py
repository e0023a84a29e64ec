"""`lotdata overlap`: n-gram memorisation checks (LOT Section 5.6, Tables 14-16) at corpus scale."""

from lotdata.overlap.measure import OverlapResult, measure_overlap
from lotdata.overlap.testset import TestSet, load_test_set
from lotdata.overlap.texts import TokenSpec

DEFAULT_TOKENIZER = "rjieba"  # token-identical to jieba on Chinese text, ~30x faster (bench/overlap.md)

__all__ = ["DEFAULT_TOKENIZER", "OverlapResult", "TestSet", "TokenSpec", "load_test_set", "measure_overlap"]
