"""The published figures our audit is compared with (accuracy, %).

LOT Table 13 (Guan et al. 2022, test sets of ClozeT and SenPos) and ROCStories Table 6
(Mostafazadeh et al. 2016, Story Cloze validation and test sets); Schwartz et al. (2017) for an
ending-only classifier on the Story Cloze Test (style features alone, test set).
"""

from __future__ import annotations

LOT_TABLE13 = {
    "clozet": {
        "random": 50.00,
        "majority": 52.72,
        "length": 52.72,
        "bleu1": 46.94,
        "bleu2": 48.98,
        "sentiment": 50.34,
        "discourse_markers": 45.92,
        "bert_wo_context": 57.82,
        "bert_wo_long": 62.24,
    },
    "senpos": {
        "random": 16.03,
        "majority": 16.24,
        "length": 16.45,
        "bleu1": 14.14,
        "bleu2": 14.95,
        "sentiment": 16.49,
        "discourse_markers": 9.15,
        "bert_wo_context": 18.08,
        "bert_wo_long": 19.00,
    },
}
LOT_BERT = {"clozet": 69.39, "senpos": 43.68}  # the full model, the paper's reference line

ROC_TABLE6 = {
    "val": {
        "constant_first": 51.4,
        "frequency": 50.6,
        "ngram_overlap": 47.7,
        "sentiment_full": 48.9,
        "sentiment_last": 51.4,
    },
    "test": {
        "constant_first": 51.3,
        "frequency": 52.0,
        "ngram_overlap": 49.4,
        "sentiment_full": 49.2,
        "sentiment_last": 52.2,
    },
}
SCHWARTZ_ENDING_ONLY = {"test": 72.4}

REFERENCES = {
    "lot": "Guan et al. (2022), LOT: A Story-Centric Benchmark for Evaluating Chinese Long Text Understanding and Generation, TACL, Table 13 (test sets)",
    "roc": "Mostafazadeh et al. (2016), A Corpus and Cloze Evaluation for Deeper Understanding of Commonsense Stories, NAACL, Table 6",
    "schwartz": "Schwartz et al. (2017), The Effect of Different Writing Tasks on Linguistic Style: A Case Study of the ROC Story Cloze Task, CoNLL (style features, ending only)",
}

#: how each baseline is called in the papers' tables
PAPER_NAMES = {
    "random": "Random",
    "majority": "Majority",
    "constant_first": "constant-choose-first",
    "length": "Length",
    "bleu1": "BLEU-1",
    "bleu2": "BLEU-2",
    "sentiment": "Sentiment",
    "sentiment_full": "sentiment-full",
    "sentiment_last": "sentiment-last",
    "discourse_markers": "Discourse Markers",
    "frequency": "frequency",
    "ngram_overlap": "N-gram overlap",
    "ending_only": "ending only (options-only classifier)",
    "bert_wo_context": "BERT w/o Context",
    "bert_wo_long": "BERT w/o Long",
}


#: the published tables for data of (task, language), searched in order, each {split: {baseline: figure}}
#: with its reference key: English ClozeT-style data is the Story Cloze Test (an ending-only classifier from
#: Schwartz et al., the rest from ROCStories Table 6); any other is compared with LOT Table 13 (test sets)
PUBLISHED = {
    ("clozet", "en"): (
        ({s: {"ending_only": v} for s, v in SCHWARTZ_ENDING_ONLY.items()}, "schwartz"),
        (ROC_TABLE6, "roc"),
    ),
}
#: what stands in for a paper's resource, for data of (task, language), then for any data
SUBSTITUTES = {
    ("clozet", "en"): {
        "sentiment_full": "paper: Stanford CoreNLP sentiment; ours: VADER",
        "sentiment_last": "paper: Stanford CoreNLP sentiment; ours: VADER",
        "frequency": "paper: web hit counts; ours: words of the training split's right endings",
        "ending_only": "paper: style features + logistic regression; ours: word/char n-grams + length",
    },
}
SUBSTITUTES_ANY_DATA = {
    "bert_wo_context": "paper: bert-base fine-tuned; ours: the --model-path checkpoint",
    "bert_wo_long": "paper: bert-base fine-tuned; ours: the --model-path checkpoint",
}


def paper_figure(baseline: str, task: str, lang: str, split: str) -> tuple[float, str] | None:
    """(figure, reference key) published for this baseline on this kind of data and split, if any."""
    tables = PUBLISHED.get((task, lang), (({"test": LOT_TABLE13.get(task, {})}, "lot"),))
    for table, reference in tables:
        value = table.get(split, {}).get(baseline)
        if value is not None:
            return value, reference
    return None


def substitute_note(baseline: str, task: str, lang: str) -> str | None:
    """What stands in for the paper's resource, shown next to the paper's figure; None when nothing does."""
    return SUBSTITUTES.get((task, lang), {}).get(baseline) or SUBSTITUTES_ANY_DATA.get(baseline)
