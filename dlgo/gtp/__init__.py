"""The Go Text Protocol (GTP version 2), both ways.

* :mod:`dlgo.gtp.protocol`: reading commands, writing responses, vertices and
  colours: what both sides share.
* :mod:`dlgo.app.gtp_server`: any of our engines behind GTP (``dlgo gtp``), for
  GoGui, Sabaki, gtp2ogs or another program.
* :mod:`dlgo.gtp.client`: any GTP program (GNU Go, Pachi) driven from Python;
  the ``gtp`` engine wraps it as an Agent.

The specification: https://www.lysator.liu.se/~gunnar/gtp/gtp2-spec-draft2/gtp2-spec.html
"""
from dlgo.gtp.protocol import Command, GtpError, parse_command

__all__ = ["Command", "GtpError", "parse_command"]
