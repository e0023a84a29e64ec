"""The annotation loop on Label Studio.

`template` (labeling configs as data, result validation), `client` (connection, projects, idempotent push,
export or paged pull; knows no job), `jobs` (one module per job, each a registered `JobSpec`: rows -> tasks,
results -> answers -> tables -> files),
`agreement` (majority vote, Fleiss' kappa, per-annotator statistics), `state` (what raters must not see, kept
locally: hidden values, gold answers, the team), `push`, `pull` and `team` (the loop end to end: push a job, pull
and assemble it, add raters and follow their progress; `workflow` re-exports them), `commands` (the records of the
commands that write: push, pull, raters add, check, qualify, sct-csv), `server` (a local Label Studio in its own
venv), `cli` (`lotdata annotate raters add|push|status|pull`).
"""
