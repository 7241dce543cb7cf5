"""The report pages: the reports folder's summaries, one rendered as HTML, and
the files (plots, tables) a summary shows."""
from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import FileResponse

from dlgo.app.web.reports import SERVED, list_reports, render_report, report_file
from dlgo.app.web.routes.common import ReportsFolder

router = APIRouter()


@router.get("/api/reports")
async def reports_list(folder: ReportsFolder) -> list[dict[str, str]]:
    return list_reports(folder)


@router.get("/api/reports/{path:path}")
async def report_page(path: str, folder: ReportsFolder) -> dict[str, Any]:
    return render_report(folder, path)


@router.get("/reports/{path:path}", include_in_schema=False)
async def report_asset(path: str, folder: ReportsFolder) -> FileResponse:
    file = report_file(folder, path)
    return FileResponse(file, media_type=SERVED[file.suffix.lower()])
