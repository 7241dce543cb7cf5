"""The blocks of generated figures in README.md and docs/*.md (``scripts/docs_figures.py``),
each rendered from the committed reports' ``facts.json`` (:mod:`dlgo.storage.facts`): the
answers table (:mod:`.answers`), the documents' tables (:mod:`.tables`), the course's
findings (:mod:`.course`); :mod:`.common` reads the facts."""
