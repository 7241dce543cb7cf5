"""The browser front end (``dlgo serve``): a FastAPI server, game sessions whose
engines run in processes of their own and whose games are saved on disk
(:mod:`.saved`), and a page in vanilla JavaScript and SVG shipped in
``static/``. Needs the ``web`` extra (FastAPI, uvicorn, markdown-it-py)."""
