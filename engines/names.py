"""The suite's own engines by name: the table the registry builds them from, and the
names that installed packages' engines may not take."""
from __future__ import annotations

#: the suite's own engines: name -> "module:Class", imported on first use
BUILT_IN: dict[str, str] = {
    "random": "engines.randombot:RandomAgent",
    "minimax": "engines.minimax:MinimaxAgent",
    "alphabeta": "engines.minimax:AlphaBetaAgent",
    "mcts": "engines.aliases:MCTSAgent",
    "uct": "engines.mcts:UCTAgent",
    "mcts-go": "engines.mcts:GoMCTSAgent",
    "predictor": "engines.predictor:PredictorAgent",
    "alphazero": "engines.alphazero:AlphaZeroAgent",
    "gumbel": "engines.alphazero:GumbelAgent",
    "alphago": "engines.aliases:AlphaGoAgent",
    "alphago-puct": "engines.alphago:AlphaGoPUCTAgent",
    "alphago-go": "engines.alphago:AlphaGoGoAgent",
    "pg": "engines.rl:PolicyAgent",
    "q": "engines.rl:QAgent",
    "ac": "engines.rl:ActorCriticAgent",
    "gtp": "engines.gtpbot:GTPAgent",
    "gnugo": "engines.gtpbot:GnuGoAgent",
    "openspiel": "engines.openspiel:OpenSpielAgent",
    "solver": "engines.solver:SolverAgent",
}
