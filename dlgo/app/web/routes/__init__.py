"""The web server's routes, one :class:`fastapi.APIRouter` per area, assembled
by :func:`dlgo.app.web.server.create_app`:

- :mod:`~dlgo.app.web.routes.page`: the page itself (``GET /``; ``/static`` is mounted beside it)
- :mod:`~dlgo.app.web.routes.catalog`: what there is to play (``GET /api/catalog``)
- :mod:`~dlgo.app.web.routes.games`: a game's session: open, show, a human's move, undo, record, close
- :mod:`~dlgo.app.web.routes.engines`: an engine's move and a hint, waited for with a deadline
- :mod:`~dlgo.app.web.routes.reports`: the report pages and their files

What a route needs from the application (the session store, the reports
folder) it gets through the dependencies of :mod:`~dlgo.app.web.routes.common`.
"""
