"""Running the pipeline on files: what the commands read, write and leave on disk.

- :mod:`ranking.running.inputs` — the one reader every input comes in by;
- :mod:`ranking.running.outputs` — the output-folder protocol (docs/outputs.md): names, temporaries, lock, order;
- :mod:`ranking.running.batch_inputs` — what each PATH given to ``batch`` stands for;
- :mod:`ranking.running.batch` — many bundles in, one folder per bundle and a summary out;
- :mod:`ranking.running.batch_summary` — a batch's ``summary.json``, checked before it is read;
- :mod:`ranking.running.recorder` — ``batch --ledger``'s recorder: results' recordings, in groups;
- :mod:`ranking.running.engines` — map a function over items in several processes.
"""
