"""The page: ``GET /`` (its scripts and styles are mounted at ``/static``)."""
from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse

#: the page's files, shipped in the package
STATIC = Path(__file__).parents[1] / "static"

router = APIRouter()


@router.get("/", include_in_schema=False)
async def index() -> FileResponse:
    return FileResponse(STATIC / "index.html", media_type="text/html")
