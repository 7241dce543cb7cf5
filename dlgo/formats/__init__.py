"""How games and positions are written down: ``games.csv`` records (:mod:`.records`), SGF
(:mod:`.sgf`) and solved position sets (:mod:`.positions`). Files are written safely by
:mod:`dlgo.storage`; what a person sees (progress bars, plots, pictures) is :mod:`dlgo.display`'s."""
