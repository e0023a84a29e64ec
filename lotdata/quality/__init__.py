"""A model in the annotation loop (issue 39): the story-quality classifier learnt from raters' decisions and the
ending-only model behind sct_write's `model_easy` flag (`lotdata.quality.model`); `lotdata quality train|score`."""
