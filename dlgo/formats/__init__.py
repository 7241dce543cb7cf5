"""How games and results leave the program: ``games.csv`` records
(:mod:`.records`), SGF (:mod:`.sgf`), pictures of positions and games
(:mod:`.pictures`), plots (:mod:`.plotting`), and files written atomically
(:mod:`.atomic`)."""
