"""Issue 26, departure 5: what clozet_write's new input changes, shown with `lotdata diff` on simulated pulls.

Both pulls answer every task the same way (the pre-annotated middle sentence, a fixed wrong rewrite), once on the
input before issue 26 (every story not rejected, sentences under 10 characters merged) and once on today's (LOT §3).

    PYTHONPATH=$PWD .venv/bin/lotdata demo --out /tmp/demo
    PYTHONPATH=$PWD .venv/bin/python benchmarks/clozet_input_diff.py /tmp/demo/stories.parquet /tmp/clozet
    PYTHONPATH=$PWD .venv/bin/lotdata diff /tmp/clozet_old/clozet /tmp/clozet_new/clozet
"""

import sys
from pathlib import Path

from lotdata.annotate.jobs import Annotation, get_job
from lotdata.annotate.jobs import clozet_write as cw
from lotdata.annotate.jobs.base import Output, load_stories
from lotdata.tasks.common import merged_sentences

stories_path = Path(sys.argv[1])


def old_load(path, splits):
    # the loader before issue 26: every story not rejected, short sentences merged
    rows = [s for s in load_stories(path, None) if s["status"] != "rejected"]
    rows = [{**s, "sentences": merged_sentences(s, 10)} for s in rows]
    rows = [s for s in rows if len(s["sentences"]) >= 3]
    from lotdata.datasets.splits import story_order_key

    rank = {s["story_id"]: i for i, s in enumerate(sorted(rows, key=lambda s: story_order_key(s["story_id"], 0)))}
    for s in rows:
        s["split"] = ("val", "test")[rank[s["story_id"]] % 2]
    return rows


job = get_job("clozet_write")
for name, rows in (("old", old_load(stories_path, None)), ("new", cw.load(stories_path, None))):
    anns = []
    for n, task in enumerate(job.to_tasks(rows)):
        sentences = task["hidden"]["sentences"]
        guess = cw.mask_guess(sentences)
        original = sentences[guess]
        wrong = original[:-1] + "，却什么也没有发生。"
        values = {"rejected": False, "index": guess, "wrong": wrong, "policy": "reaction_intention"}
        anns.append(
            Annotation(
                uid=task["data"]["uid"],
                data=task["data"],
                annotator="sim",
                annotation_id=n + 1,
                created_at="2026-01-01T00:00:00",
                values=values,
                hidden=task["hidden"],
            )
        )
    assembled = job.assemble(anns)
    out = Path(f"{sys.argv[2]}_{name}")
    job.write(
        assembled, Output(folder=out, job="clozet_write", params={}, command="simulated", stats=assembled["stats"])
    )
    print(name, len(rows), "stories", len(assembled["clozet"]), "examples")
