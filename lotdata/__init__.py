"""lotdata: build and audit story-centric benchmark datasets (LOT, Story Cloze Test)."""

__version__ = "0.1.0"
