"""The application layer: the command line (:mod:`.cli`), console games
(:mod:`.console`) and the GTP server (:mod:`.gtp_server`). The one place that
binds the engines to the rest of the suite."""
