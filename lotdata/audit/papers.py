"""The published figures our audit is compared with (accuracy, %).

LOT Table 13 (Guan et al. 2022, test sets of ClozeT and SenPos) and ROCStories Table 6
(Mostafazadeh et al. 2016, Story Cloze validation and test sets); Schwartz et al. (2017) for an
ending-only classifier on the Story Cloze Test (style features alone, test set).
"""

from __future__ import annotations

LOT_TABLE13 = {
    "clozet": {"random": 50.00, "majority": 52.72, "length": 52.72, "bleu1": 46.94, "bleu2": 48.98,
               "sentiment": 50.34, "discourse_markers": 45.92, "bert_wo_context": 57.82, "bert_wo_long": 62.24},
    "senpos": {"random": 16.03, "majority": 16.24, "length": 16.45, "bleu1": 14.14, "bleu2": 14.95,
               "sentiment": 16.49, "discourse_markers": 9.15, "bert_wo_context": 18.08, "bert_wo_long": 19.00},
}
LOT_BERT = {"clozet": 69.39, "senpos": 43.68}  # the full model, the paper's reference line

ROC_TABLE6 = {
    "val": {"constant_first": 51.4, "frequency": 50.6, "ngram_overlap": 47.7, "sentiment_full": 48.9, "sentiment_last": 51.4},
    "test": {"constant_first": 51.3, "frequency": 52.0, "ngram_overlap": 49.4, "sentiment_full": 49.2, "sentiment_last": 52.2},
}
SCHWARTZ_ENDING_ONLY = {"test": 72.4}

REFERENCES = {
    "lot": "Guan et al. (2022), LOT: A Story-Centric Benchmark for Evaluating Chinese Long Text Understanding and Generation, TACL, Table 13 (test sets)",
    "roc": "Mostafazadeh et al. (2016), A Corpus and Cloze Evaluation for Deeper Understanding of Commonsense Stories, NAACL, Table 6",
    "schwartz": "Schwartz et al. (2017), The Effect of Different Writing Tasks on Linguistic Style: A Case Study of the ROC Story Cloze Task, CoNLL (style features, ending only)",
}

#: how each baseline is called in the papers' tables
PAPER_NAMES = {
    "random": "Random", "majority": "Majority", "constant_first": "constant-choose-first", "length": "Length",
    "bleu1": "BLEU-1", "bleu2": "BLEU-2", "sentiment": "Sentiment", "sentiment_full": "sentiment-full",
    "sentiment_last": "sentiment-last", "discourse_markers": "Discourse Markers", "frequency": "frequency",
    "ngram_overlap": "N-gram overlap", "ending_only": "ending only (options-only classifier)",
    "bert_wo_context": "BERT w/o Context", "bert_wo_long": "BERT w/o Long",
}


def paper_figure(baseline: str, task: str, lang: str, split: str) -> tuple[float, str] | None:
    """(figure, reference key) published for this baseline on this kind of data and split, if any."""
    if task == "clozet" and lang == "en":
        if baseline == "ending_only" and split in SCHWARTZ_ENDING_ONLY:
            return SCHWARTZ_ENDING_ONLY[split], "schwartz"
        value = ROC_TABLE6.get(split, {}).get(baseline)
        return (value, "roc") if value is not None else None
    if split == "test":
        value = LOT_TABLE13.get(task, {}).get(baseline)
        return (value, "lot") if value is not None else None
    return None


def substitute_note(baseline: str, task: str, lang: str) -> str | None:
    """What stands in for the paper's resource, shown next to the paper's figure; None when nothing does."""
    if task == "clozet" and lang == "en":
        if baseline in ("sentiment_full", "sentiment_last"):
            return "paper: Stanford CoreNLP sentiment; ours: VADER"
        if baseline == "frequency":
            return "paper: web hit counts; ours: words of the training split's right endings"
        if baseline == "ending_only":
            return "paper: style features + logistic regression; ours: word/char n-grams + length"
    if baseline in ("bert_wo_context", "bert_wo_long"):
        return "paper: bert-base fine-tuned; ours: the --model-path checkpoint"
    return None
